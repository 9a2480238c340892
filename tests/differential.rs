//! Differential test: the library's outcome on every test module for every
//! target must be what a baseline commit's library gave, recorded in
//! `tests/data/differential/<baseline>.tsv` (today `pre-lean-core`: the
//! commit before the lean-core rewrite of issue 10).
//!
//! Modules: every `.spv` under `tests/` (golden inputs, corpus, `tests/data`)
//! and every saved fuzz input (`tests/data/fuzz-regressions/*.bin`), each as
//! stored and with every word byte-swapped (the other byte order), plus a few
//! small benchmark modules built here by `benches/common/gen.rs`
//! (deterministic: it has no randomness). Targets: every processor of the
//! embedded tables, each dual-wave one also with wave64, and the target IDs
//! of [`EXTRA_TARGETS`] (aliases, `:xnack±` / `:sramecc±` modifiers,
//! generics). An outcome is the output's length and SHA-256 (first 16 hex
//! digits) or the error message. Each module is parsed once and specialized
//! for all targets in one `specialize_many` call.
//!
//! The file also records each module's input (length and hash), so a changed
//! input is reported as such rather than as a changed output.
//!
//! Regenerating the baseline (for a new one: another commit or tag) runs
//! this same file against the old library, in a temporary worktree:
//! `tools/gen_differential.sh [COMMIT]` (see there). In this test,
//! `RSPV_DIFFERENTIAL_WRITE=PATH` writes the table to PATH instead of
//! comparing.

#[path = "../benches/common/gen.rs"]
mod generator;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use rspv_specialize::{ArchTables, Options, Target, TargetOptions, specialize_many};
use sha2::{Digest, Sha256};

/// The recorded baseline, relative to the crate root.
const BASELINE: &str = "tests/data/differential/pre-lean-core.tsv";

/// Target IDs beyond the processors' names: legacy aliases, target-ID
/// modifiers (on processors, generics and an alias), and both at once.
const EXTRA_TARGETS: &[&str] = &[
    "tahiti",
    "hainan",
    "fiji",
    "polaris11",
    "kabini",
    "stoney",
    "stoney:xnack+",
    "carrizo:xnack-",
    "gfx900:xnack+",
    "gfx906:xnack-",
    "gfx908:sramecc+",
    "gfx908:sramecc-:xnack+",
    "gfx90a:xnack+",
    "gfx90a:xnack-",
    "gfx90a:sramecc+:xnack+",
    "gfx90a:sramecc-:xnack-",
    "gfx942:sramecc+",
    "gfx942:xnack+",
    "gfx950:sramecc-:xnack-",
    "gfx1010:xnack+",
    "gfx1013:xnack-",
    "gfx9-generic:xnack+",
    "gfx9-4-generic:sramecc+:xnack-",
    "gfx10-1-generic:xnack-",
];

/// Benchmark modules built by `generator::generate(kernels, every, calls)`.
const GENERATED: &[(usize, usize, bool)] = &[(12, 1, true), (12, 1, false), (40, 7, true)];

/// A module under test: its key in the table and its bytes.
struct Input {
    key: String,
    bytes: Vec<u8>,
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Files under `dir`, recursively, whose name ends with one of `suffixes`.
fn files(dir: &Path, suffixes: &[&str], out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, suffixes, out);
        } else if suffixes.iter().any(|s| path.to_string_lossy().ends_with(s)) {
            out.push(path);
        }
    }
}

/// Every word's bytes reversed (a trailing partial word is kept as is).
fn swap_words(bytes: &[u8]) -> Vec<u8> {
    let mut out: Vec<u8> = bytes
        .chunks_exact(4)
        .flat_map(|c| [c[3], c[2], c[1], c[0]])
        .collect();
    out.extend_from_slice(bytes.chunks_exact(4).remainder());
    out
}

/// A module's key: its path under `tests/`, without the file name when the
/// directory names it (`golden/<case>/input.spv` is `golden/<case>`,
/// `corpus/<name>/<name>.spv` is `corpus/<name>`).
fn module_key(path: &Path) -> String {
    let key = path.to_string_lossy().replace('\\', "/");
    let (dir, file) = key.rsplit_once('/').unwrap_or(("", &key));
    let named_by_dir =
        file == "input.spv" || dir.rsplit('/').next() == Some(file.trim_end_matches(".spv"));
    if named_by_dir && !dir.is_empty() {
        dir.to_string()
    } else {
        key
    }
}

/// The modules, in a fixed order.
fn inputs() -> Vec<Input> {
    let tests = repo().join("tests");
    let mut paths = Vec::new();
    files(&tests, &[".spv"], &mut paths);
    files(&tests.join("data/fuzz-regressions"), &[".bin"], &mut paths);
    paths.sort();
    let mut out = Vec::new();
    for p in paths {
        let key = module_key(p.strip_prefix(&tests).unwrap());
        let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        out.push(Input {
            key: format!("{key} swapped"),
            bytes: swap_words(&bytes),
        });
        out.push(Input { key, bytes });
    }
    for &(kernels, every, calls) in GENERATED {
        let bytes = generator::to_bytes(&generator::generate(kernels, every, calls));
        let kind = if calls { "calls" } else { "no-calls" };
        let key = format!("generated kernels={kernels} every={every} {kind}");
        out.push(Input {
            key: format!("{key} swapped"),
            bytes: swap_words(&bytes),
        });
        out.push(Input { key, bytes });
    }
    out
}

/// Every target: `(key, target)`.
fn targets() -> Vec<(String, Target<'static>)> {
    let tables = ArchTables::embedded();
    let wave64 = TargetOptions { wave64: true };
    let mut out = Vec::new();
    for p in tables.processors() {
        out.push((p.name.clone(), tables.target(&p.name).unwrap()));
        if p.is_dual_wave() {
            let t = tables.target_with(&p.name, &wave64).unwrap();
            out.push((format!("{} wave64", p.name), t));
        }
    }
    for id in EXTRA_TARGETS {
        let t = tables
            .target(id)
            .unwrap_or_else(|e| panic!("target `{id}`: {e}"));
        out.push((id.to_string(), t));
    }
    out
}

/// The first 16 hex digits of the SHA-256 of `bytes`.
fn hash(bytes: &[u8]) -> String {
    Sha256::digest(bytes)[..8]
        .iter()
        .fold(String::new(), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

/// An error message on one line.
fn one_line(message: &str) -> String {
    message
        .replace('\\', "\\\\")
        .replace('\n', "\\n")
        .replace('\t', "\\t")
}

/// `(module, target) -> outcome` lines of one input, the input's own line
/// (target `(input)`) first.
fn outcomes(input: &Input, targets: &[(String, Target<'static>)]) -> Vec<(String, String)> {
    let mut out = vec![(
        "(input)".to_string(),
        format!("{} {}", input.bytes.len(), hash(&input.bytes)),
    )];
    let ts: Vec<Target<'static>> = targets.iter().map(|(_, t)| t.clone()).collect();
    match specialize_many(&input.bytes, &ts, &Options::default()) {
        Err(e) => {
            let line = format!("error {}", one_line(&e.to_string()));
            out.extend(targets.iter().map(|(k, _)| (k.clone(), line.clone())));
        }
        Ok(results) => {
            // Targets of one group share their words: hash them once.
            let mut seen: HashMap<*const u32, String> = HashMap::new();
            for ((k, _), r) in targets.iter().zip(results) {
                let line = match r {
                    Ok(s) => seen
                        .entry(s.words().as_ptr())
                        .or_insert_with(|| {
                            let bytes = s.bytes();
                            format!("ok {} {}", bytes.len(), hash(&bytes))
                        })
                        .clone(),
                    Err(e) => format!("error {}", one_line(&e.to_string())),
                };
                out.push((k.clone(), line));
            }
        }
    }
    out
}

/// All outcomes, in table order: `(module, target, outcome)`.
fn table() -> Vec<(String, String, String)> {
    let targets = targets();
    let inputs = inputs();
    // Modules on two threads (specialize_many adds its own per module).
    let per_input: Vec<Vec<(String, String)>> = std::thread::scope(|s| {
        let half = inputs.len().div_ceil(2);
        let handles: Vec<_> = inputs
            .chunks(half.max(1))
            .map(|chunk| {
                let targets = &targets;
                s.spawn(move || {
                    chunk
                        .iter()
                        .map(|i| outcomes(i, targets))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    inputs
        .iter()
        .zip(per_input)
        .flat_map(|(i, lines)| lines.into_iter().map(move |(t, o)| (i.key.clone(), t, o)))
        .collect()
}

const HEADER: &str = "\
# Differential baseline: the outcome of rspv-specialize's library on every
# test module (as stored and byte-swapped, plus generated modules) for every
# target, recorded by tests/differential.rs, which compares the current
# library against this file.
#
# Columns (tab-separated): module (path under tests/, without the file
# name where the directory names it: golden/CASE, corpus/NAME; `swapped` =
# every word byte-swapped; `generated ...` = benches/common/gen.rs), target (target
# ID, `wave64` = TargetOptions { wave64: true }; `(input)` = the input
# itself), outcome (`ok LENGTH SHA256[..16 hex]` of the output bytes, or
# `error MESSAGE`; the input line: `LENGTH SHA256[..16 hex]`).
#
# Regenerate (for this baseline or a new one) from a checkout that has
# tests/differential.rs and tools/gen_differential.sh:
#   tools/gen_differential.sh pre-lean-core
# which does, in effect:
#   git worktree add --detach /tmp/base pre-lean-core
#   cp -r tests /tmp/base/; cp benches/common/gen.rs /tmp/base/benches/common/
#   (and adds the sha2 dev-dependency to /tmp/base/Cargo.toml if missing)
#   cd /tmp/base && RSPV_DIFFERENTIAL_WRITE=$OLDPWD/tests/data/differential/pre-lean-core.tsv \\
#       cargo test --release --test differential
#   git worktree remove --force /tmp/base
";

#[test]
fn outcomes_match_the_baseline() {
    let start = std::time::Instant::now();
    let current = table();
    let computed = start.elapsed();
    if let Some(path) = std::env::var_os("RSPV_DIFFERENTIAL_WRITE") {
        let base = std::env::var("RSPV_DIFFERENTIAL_BASE").unwrap_or_else(|_| "unknown".into());
        let mut text = format!("{HEADER}#\n# Recorded from: {base}\n");
        for (m, t, o) in &current {
            let _ = writeln!(text, "{m}\t{t}\t{o}");
        }
        std::fs::write(&path, text).unwrap();
        eprintln!(
            "wrote {} lines to {} in {computed:?}",
            current.len(),
            Path::new(&path).display()
        );
        return;
    }
    let text = std::fs::read_to_string(repo().join(BASELINE))
        .unwrap_or_else(|e| panic!("{BASELINE}: {e}"));
    let mut baseline: BTreeMap<(String, String), (usize, String)> = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        let mut cols = line.splitn(3, '\t');
        let (Some(m), Some(t), Some(o)) = (cols.next(), cols.next(), cols.next()) else {
            panic!("{BASELINE}:{}: not three tab-separated columns", n + 1);
        };
        baseline.insert((m.into(), t.into()), (n + 1, o.into()));
    }
    assert!(!baseline.is_empty(), "{BASELINE} records nothing");

    // Inputs first: a module whose input changed is reported as such, not
    // as differing outputs.
    let changed_inputs: Vec<String> = current
        .iter()
        .filter(|(_, t, _)| t == "(input)")
        .filter_map(|(m, t, o)| {
            let (_, want) = baseline.get(&(m.clone(), t.clone()))?;
            (want != o).then(|| format!("{m}: recorded {want}, now {o}"))
        })
        .collect();
    let changed: BTreeSet<&str> = changed_inputs
        .iter()
        .map(|c| c.split_once(": ").unwrap().0)
        .collect();
    // Differences by module, in table order.
    let mut differences: Vec<(&str, Vec<String>)> = Vec::new();
    let mut new_pairs = Vec::new();
    let mut checked = 0usize;
    for (m, t, o) in current.iter().filter(|(_, t, _)| t != "(input)") {
        let Some((line, want)) = baseline.get(&(m.clone(), t.clone())) else {
            new_pairs.push(format!("{m} for {t}"));
            continue;
        };
        checked += 1;
        if want == o || changed.contains(m.as_str()) {
            continue;
        }
        let d = format!("{t} ({BASELINE}:{line}):\n      expected: {want}\n      got:      {o}");
        match differences.last_mut() {
            Some((dm, ds)) if *dm == m.as_str() => ds.push(d),
            _ => differences.push((m, vec![d])),
        }
    }
    let current_keys: BTreeSet<(&str, &str)> = current
        .iter()
        .map(|(m, t, _)| (m.as_str(), t.as_str()))
        .collect();
    let missing: Vec<String> = baseline
        .keys()
        .filter(|(m, t)| !current_keys.contains(&(m.as_str(), t.as_str())))
        .map(|(m, t)| format!("{m} for {t}"))
        .collect();
    eprintln!(
        "differential: {checked} module x target pairs compared against {BASELINE} in \
         {computed:?}; {} pair(s) not in the baseline (new modules or targets) not compared",
        new_pairs.len()
    );
    for p in new_pairs.iter().take(5) {
        eprintln!("  not in the baseline: {p}");
    }

    let mut report = String::new();
    if !changed_inputs.is_empty() {
        let _ = writeln!(
            report,
            "{} input(s) changed since the baseline was recorded (regenerate it: \
             tools/gen_differential.sh):",
            changed_inputs.len()
        );
        for c in changed_inputs.iter().take(10) {
            let _ = writeln!(report, "  {c}");
        }
    }
    if !missing.is_empty() {
        let _ = writeln!(
            report,
            "{} recorded pair(s) no longer computed (module or target gone), e.g.:",
            missing.len()
        );
        for c in missing.iter().take(10) {
            let _ = writeln!(report, "  {c}");
        }
    }
    if !differences.is_empty() {
        let total: usize = differences.iter().map(|(_, ds)| ds.len()).sum();
        let _ = writeln!(
            report,
            "{total} of {checked} outcomes differ from the baseline, in {} module(s); \
             the first targets of the first modules:",
            differences.len()
        );
        for (m, ds) in differences.iter().take(12) {
            let _ = writeln!(report, "  {m}: {} target(s) differ", ds.len());
            for d in ds.iter().take(3) {
                let _ = writeln!(report, "    {d}");
            }
        }
    }
    assert!(report.is_empty(), "\n{report}");
}
