//! Fuzz regressions: the checks of the fuzz targets (`fuzz/checks.rs`,
//! shared with `fuzz/fuzz_targets/`) run on every file in
//! `tests/data/fuzz-regressions/` and on every `.spv` module under
//! `tests/golden/` and `tests/corpus/`.
//!
//! A crash the fuzzer finds is kept by minimizing it (`cargo +nightly fuzz
//! tmin TARGET ARTIFACT`) and dropping the result in
//! `tests/data/fuzz-regressions/<target>-<n>.bin`; no code changes are
//! needed. Every file gets all three checks (`read`, `inspect`,
//! `specialize`), each file in a child process of its own (this test binary
//! re-run under `ulimit -v`), so a stack overflow, an abort, an allocation
//! trusting a header field or a hang fails with the file's name instead of
//! taking the test binary down, and one bad file does not hide the others.

#[path = "../fuzz/checks.rs"]
mod checks;
mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{repo, spv_files};

/// Set in a child: the one input it checks.
const CHILD: &str = "RSPV_FUZZ_REGRESSION_INPUT";
/// The test a child runs.
const TEST: &str = "fuzz_checks_pass_on_saved_inputs_and_golden_modules";
/// A child's address-space limit, in KiB (4 GiB; the fuzzer allows 2 GiB RSS).
const MEM_LIMIT_KB: u64 = 4 * 1024 * 1024;
/// A child's time limit (debug build; the fuzzer's limit is 10 s optimized).
const TIME_LIMIT: Duration = Duration::from_secs(120);

/// Files directly in `dir` (none if it does not exist), sorted.
fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file())
                .filter(|p| {
                    !p.file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with('.'))
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// Runs the three checks on `path` in a child process; `Err` describes how
/// the child failed, with the end of its output.
fn check_in_child(path: &Path) -> Result<(), String> {
    let run = common::Child {
        test: TEST,
        env: (CHILD, path.as_os_str()),
        log: "fuzz-regression",
        label: &path.file_name().unwrap().to_string_lossy(),
        mem_limit_kb: MEM_LIMIT_KB,
        time_limit: TIME_LIMIT,
        poll: Duration::from_millis(10),
        own_group: false,
    }
    .run();
    let text = &run.output;
    // The panic message (or, failing that, the end of the output).
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| {
            let t = l.trim();
            !t.is_empty()
                && !t.starts_with("note: ")
                && !matches!(t, "FAILED" | "failures:" | TEST)
                && !t.starts_with("running ")
                && !t.starts_with("test ")
        })
        .collect();
    let from = lines
        .iter()
        .position(|l| l.contains("panicked at"))
        .unwrap_or(lines.len().saturating_sub(12));
    let tail = lines[from..(from + 12).min(lines.len())].join("\n    ");
    match run.failure() {
        None => Ok(()),
        Some(why) => Err(format!("{why}\n    {tail}")),
    }
}

#[test]
fn fuzz_checks_pass_on_saved_inputs_and_golden_modules() {
    if let Some(path) = std::env::var_os(CHILD) {
        // Child: check one input; a panic fails this process.
        let data = std::fs::read(&path).unwrap();
        checks::check_read(&data);
        checks::check_inspect(&data);
        checks::check_specialize(&data);
        return;
    }
    let saved = files_in(&repo().join("tests/data/fuzz-regressions"));
    let golden = spv_files(&repo().join("tests/golden"));
    let corpus = spv_files(&repo().join("tests/corpus"));
    // The golden cases are directories with an input.spv each: all must be here.
    let cases = common::golden_cases("input.spv").len();
    assert!(
        cases > 0 && golden.len() >= cases,
        "found {} golden .spv modules for {cases} golden cases",
        golden.len()
    );
    assert!(!corpus.is_empty(), "no .spv under tests/corpus");

    let mut failures = Vec::new();
    let inputs: Vec<&PathBuf> = saved.iter().chain(&golden).chain(&corpus).collect();
    for path in &inputs {
        if let Err(e) = check_in_child(path) {
            let name = path.strip_prefix(repo()).unwrap_or(path);
            failures.push(format!("{}: {e}", name.display()));
        }
    }
    eprintln!(
        "fuzz checks (read, inspect, specialize for {:?}) ran on {} saved fuzz input(s), {} golden and {} corpus module(s)",
        checks::TARGETS,
        saved.len(),
        golden.len(),
        corpus.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} input(s) fail the fuzz checks (reproduce one: cargo +nightly fuzz run TARGET FILE in fuzz/):\n{}",
        failures.len(),
        inputs.len(),
        failures.join("\n")
    );
}
