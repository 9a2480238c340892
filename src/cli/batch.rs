//! Batch runs: `--targets a,b,c` or `--all-targets` with `--out-dir DIR`.
//!
//! The module is parsed and analysed once; targets that resolve every
//! predicate alike share one rewrite, and distinct rewrites use the cores
//! (`Prepared::specialize_many`). All or nothing: if any target fails,
//! nothing is written and every failure is listed, identical ones once with
//! the targets they hit. Otherwise the files an earlier `manifest.json` in
//! DIR lists are removed, each module is written atomically under the name
//! [`output_name`] gives it, then `manifest.json` with each file's target
//! (as given, and what it resolved to), wave size, size, SHA-256 and
//! predicate values. A progress line is drawn on stderr when it is a
//! terminal; the report (text, or JSON with `--report json`) follows.

use std::collections::BTreeSet;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use rspv_specialize::module::Endian;
use rspv_specialize::{ArchTables, Error, Options, Prepared, Specialized, Target, TargetOptions};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::container::{Container, Module, Source, module_file, read_source};
use super::io::{Words, display_path, module_bytes, write_output};
use super::targets::display_order;
use crate::{Failure, ReportFormat, SpecializeArgs};

/// The manifest's file name in DIR.
const MANIFEST: &str = "manifest.json";

/// The file name of one batch output: the target as the user wrote it, `:`
/// written as `_`, then `-wave64` when the target runs wave64 because
/// `--wave64` asked for it: `tahiti.spv`, `gfx90a_xnack+.spv`,
/// `gfx1100-wave64.spv`. The one place batch names are made.
pub(crate) fn output_name(given: &str, wave64: bool) -> String {
    let suffix = if wave64 { "-wave64" } else { "" };
    format!("{}{suffix}.spv", given.replace(':', "_"))
}

/// True for a name that stays inside the directory it is joined to: one
/// normal path component (no separator, not `.` or `..`).
fn is_plain_file_name(name: &str) -> bool {
    let mut parts = Path::new(name).components();
    matches!(
        (parts.next(), parts.next()),
        (Some(std::path::Component::Normal(n)), None) if n == name
    )
}

/// One target of the batch and its output.
struct Job<'t> {
    target: Target<'t>,
    /// True when `--wave64` applies to this target.
    wave64: bool,
    /// Its file name in DIR.
    file: String,
}

/// One module the batch specializes: the bare input, or one module of a
/// container.
struct Unit<'c> {
    /// The container's module, if the input is a container.
    module: Option<&'c Module>,
    /// Its words (emptied once specialized).
    words: Words,
    endian: Endian,
    /// How messages name it.
    label: String,
}

impl Unit<'_> {
    /// The file of `job`'s output for this module: the target's name, with
    /// `m<K>-` before it for module K of a container.
    fn file(&self, job: &Job<'_>) -> String {
        match self.module {
            Some(m) => module_file(m.index, Some(&job.file)),
            None => job.file.clone(),
        }
    }
}

/// Runs a batch: resolve the targets, read the modules, specialize each
/// for all of them (nothing written if any fails), write the outputs and
/// the manifest, report.
pub(crate) fn run_batch(
    args: &SpecializeArgs,
    tables: &ArchTables,
    input: &Path,
    out_dir: &Path,
) -> Result<(), Failure> {
    let jobs = resolve_targets(args, tables)?;
    if out_dir.exists() && !out_dir.is_dir() {
        return Err(Failure::from(Error::Io {
            path: out_dir.display().to_string(),
            message: "not a directory".to_string(),
        }));
    }
    let file = display_path(input);
    let (container, bare) = match read_source(input)? {
        Source::Spirv(words, endian) => (None, Some((words, endian))),
        Source::Container(c) => (Some(c), None),
    };
    let mut units = read_units(args, &file, bare, container.as_ref())?;
    let outs = specialize_units(&mut units, &jobs, &file)?;
    std::fs::create_dir_all(out_dir).map_err(|e| Error::Io {
        path: out_dir.display().to_string(),
        message: format!("cannot create: {e}"),
    })?;
    remove_earlier_outputs(out_dir);
    let entries = write_outputs(args, out_dir, &jobs, &units, &outs)?;
    let mut manifest = json!({
        "input": file,
        "wave64": args.tables.wave64,
        "targets": entries,
    });
    if let Some(c) = &container {
        manifest["container"] = json!(c.kind.name());
    }
    let text = serde_json::to_string_pretty(&manifest).unwrap_or_default() + "\n";
    write_output(&out_dir.join(MANIFEST), text.as_bytes(), args.fsync)?;
    match args.report_format() {
        ReportFormat::Text => eprint!("{}", report_text(&file, out_dir, &jobs, &units, &outs)),
        ReportFormat::Json => eprintln!(
            "{}",
            serde_json::to_string_pretty(&report_json(&file, out_dir, &jobs, &units, &outs))
                .unwrap_or_default()
        ),
        ReportFormat::None => {}
    }
    Ok(())
}

/// The modules to specialize: the bare module (`bare`), or the modules of
/// `container` that `--module` selects (all by default), each read into
/// words. `file` names the input in messages.
fn read_units<'c>(
    args: &SpecializeArgs,
    file: &str,
    bare: Option<(Words, Endian)>,
    container: Option<&'c Container>,
) -> Result<Vec<Unit<'c>>, Failure> {
    let mut units: Vec<Unit<'c>> = Vec::new();
    if let Some((words, endian)) = bare {
        if let Some(k) = args.module.filter(|&k| k != 0) {
            return Err(Failure::usage(format!(
                "--module {k}: {file} is a single SPIR-V module (module 0)"
            )));
        }
        units.push(Unit {
            module: None,
            words,
            endian,
            label: file.to_string(),
        });
    }
    if let Some(c) = container {
        for m in c.select(args.module)? {
            let label = m.label(file);
            let (words, endian) = m.words().map_err(|e| Failure::in_file(&label, e))?;
            units.push(Unit {
                module: Some(m),
                words: Words::Read(words),
                endian,
                label,
            });
        }
    }
    Ok(units)
}

/// Every unit specialized for every job, in order; each unit's words are
/// dropped once it is done. All or nothing: the failures of all units,
/// listed (identical ones once, with the targets they hit).
fn specialize_units(
    units: &mut [Unit<'_>],
    jobs: &[Job<'_>],
    file: &str,
) -> Result<Vec<Vec<Specialized>>, Failure> {
    let tty = std::io::stderr().is_terminal();
    let progress = |done: usize, total: usize| {
        if tty {
            eprint!("\rspecializing: {done}/{total} distinct modules");
            if done == total {
                eprintln!();
            }
        }
    };
    let targets: Vec<Target<'_>> = jobs.iter().map(|j| j.target.clone()).collect();
    let mut outs: Vec<Vec<Specialized>> = Vec::with_capacity(units.len());
    let mut failed: Vec<(String, Vec<String>)> = Vec::new();
    for unit in units.iter_mut() {
        let results = Prepared::specialize_many_once(
            &unit.words,
            unit.endian,
            &targets,
            &Options::default(),
            &progress,
        )
        .map_err(|e| Failure::in_file(&unit.label, e))?;
        let mut unit_outs = Vec::with_capacity(results.len());
        for (job, r) in jobs.iter().zip(results) {
            match r {
                Ok(out) => unit_outs.push(out),
                Err(e) => {
                    let message = match unit.module {
                        Some(m) => format!("module {}: {e}", m.index),
                        None => e.to_string(),
                    };
                    add_failure(&mut failed, message, job.target.given())
                }
            }
        }
        outs.push(unit_outs);
        unit.words = Words::default();
    }
    if !failed.is_empty() {
        return Err(Failure::Message(format!(
            "{file}: {}",
            failures_text(&failed, jobs.len() * units.len())
        )));
    }
    Ok(outs)
}

/// Writes every output into `out_dir` (each atomically; on a failure the
/// ones written are removed) and returns their manifest entries.
fn write_outputs(
    args: &SpecializeArgs,
    out_dir: &Path,
    jobs: &[Job<'_>],
    units: &[Unit<'_>],
    outs: &[Vec<Specialized>],
) -> Result<Vec<Value>, Failure> {
    let mut written: Vec<PathBuf> = Vec::new();
    let mut entries: Vec<Value> = Vec::new();
    let mut digests = Digests::default();
    for (unit, unit_outs) in units.iter().zip(outs) {
        for (job, out) in jobs.iter().zip(unit_outs) {
            let name = unit.file(job);
            let path = out_dir.join(&name);
            let data = module_bytes(out.words(), out.endian());
            if let Err(e) = write_output(&path, &data, args.fsync) {
                for p in &written {
                    let _ = std::fs::remove_file(p);
                }
                return Err(e.into());
            }
            written.push(path);
            let digest = digests.of(out, &data);
            let mut entry = manifest_entry(job, out, data.len(), &digest);
            entry.insert("file".into(), json!(name));
            if let Some(m) = unit.module {
                entry.insert("module".into(), json!(m.index));
                entry.insert("location".into(), json!(m.location.to_string()));
            }
            entries.push(Value::Object(entry));
        }
    }
    Ok(entries)
}

/// The targets of the batch, resolved, with their file names. Every
/// target that does not resolve is listed (exit 1); a target given twice,
/// or two targets that would write one file, is a usage error.
fn resolve_targets<'t>(
    args: &SpecializeArgs,
    tables: &'t ArchTables,
) -> Result<Vec<Job<'t>>, Failure> {
    let wave64 = args.tables.wave64;
    let given: Vec<String> = if args.all_targets {
        display_order(tables)
            .iter()
            .map(|p| p.name.clone())
            .collect()
    } else {
        args.targets.clone()
    };
    let mut jobs = Vec::with_capacity(given.len());
    let mut failed: Vec<(String, Vec<String>)> = Vec::new();
    let mut names = BTreeSet::new();
    for id in &given {
        if id.is_empty() {
            return Err(Failure::usage("--targets has an empty target name"));
        }
        let options = TargetOptions { wave64 };
        let resolved = match tables.target_with(id, &options) {
            // --wave64 applies where it can: a wave32-only processor keeps
            // its only size in an --all-targets run.
            Err(_) if wave64 && args.all_targets => tables.target(id).map(|t| (t, false)),
            r => r.map(|t| (t, wave64)),
        };
        let (target, wave64) = match resolved {
            Ok(t) => t,
            Err(e) => {
                let hint = crate::hint(&e);
                add_failure(&mut failed, format!("{e}{hint}"), id);
                continue;
            }
        };
        let file = output_name(id, wave64);
        if !is_plain_file_name(&file) || file == MANIFEST {
            return Err(Failure::usage(format!(
                "target `{id}` cannot be a file name in --out-dir"
            )));
        }
        if !names.insert(file.clone()) {
            return Err(Failure::usage(format!(
                "--targets names `{id}` twice (both would write {file})"
            )));
        }
        jobs.push(Job {
            target,
            wave64,
            file,
        });
    }
    if failed.is_empty() {
        Ok(jobs)
    } else {
        Err(Failure::Message(failures_text(&failed, given.len())))
    }
}

/// Adds `target` to the failure with this message, or a new failure.
fn add_failure(failed: &mut Vec<(String, Vec<String>)>, message: String, target: &str) {
    match failed.iter_mut().find(|(m, _)| *m == message) {
        Some((_, targets)) => targets.push(target.to_string()),
        None => failed.push((message, vec![target.to_string()])),
    }
}

/// `N of M targets failed, nothing written:` then each distinct failure
/// once, with the targets it hit.
fn failures_text(failed: &[(String, Vec<String>)], total: usize) -> String {
    let n: usize = failed.iter().map(|(_, t)| t.len()).sum();
    let mut text = format!("{n} of {total} targets failed, nothing written:");
    for (message, targets) in failed {
        text.push_str(&format!("\n  {}: ", targets.join(", ")));
        text.push_str(&message.replace('\n', "\n    "));
    }
    text
}

/// Removes the files an earlier manifest in `dir` lists, so a re-run leaves
/// no stale module behind. Only plain file names inside `dir` are removed
/// (never a path that leads elsewhere), only regular files, and nothing
/// when the manifest cannot be read as one.
fn remove_earlier_outputs(dir: &Path) {
    let Ok(text) = std::fs::read(dir.join(MANIFEST)) else {
        return;
    };
    let Ok(manifest) = serde_json::from_slice::<Value>(&text) else {
        eprintln!(
            "note: {} is not a manifest this tool wrote: no earlier outputs removed",
            dir.join(MANIFEST).display()
        );
        return;
    };
    let files = manifest["targets"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|entry| entry["file"].as_str());
    for name in files {
        if !is_plain_file_name(name) || name == MANIFEST {
            continue;
        }
        let path = dir.join(name);
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
            let _ = std::fs::remove_file(&path);
        }
    }
}

/// The SHA-256 digests of a batch's outputs, each computed once: targets
/// that resolve every predicate alike get the same module (61 processors
/// make 8 distinct modules of the generated benchmark module), and hashing
/// every copy took most of a batch run.
#[derive(Default)]
struct Digests<'o> {
    /// An output's predicate values, the output, and its digest (hex).
    known: Vec<(Vec<bool>, &'o Specialized, String)>,
}

impl<'o> Digests<'o> {
    /// The digest (hex) of `data`, the bytes of `out`: that of an earlier
    /// output with the same predicate values when its words and byte order
    /// are the same (checked, not assumed), else computed.
    fn of(&mut self, out: &'o Specialized, data: &[u8]) -> String {
        let values = predicate_values(out);
        let same = |(v, o, _): &&(Vec<bool>, &Specialized, String)| {
            *v == values && o.endian() == out.endian() && o.words() == out.words()
        };
        if let Some((_, _, digest)) = self.known.iter().find(same) {
            return digest.clone();
        }
        let digest = hex(&Sha256::digest(data));
        self.known.push((values, out, digest.clone()));
        digest
    }
}

/// The manifest entry of one output of `size` bytes whose SHA-256 digest
/// is `digest` (hex).
fn manifest_entry(
    job: &Job<'_>,
    out: &Specialized,
    size: usize,
    digest: &str,
) -> Map<String, Value> {
    let values: Map<String, Value> = out
        .report()
        .predicates
        .iter()
        .map(|p| (p.name.clone(), Value::Bool(p.value)))
        .collect();
    let mut entry = rspv_specialize::json::target(&job.target);
    entry.insert("wave64".into(), json!(job.wave64));
    entry.insert("file".into(), json!(job.file));
    entry.insert("size".into(), json!(size));
    entry.insert("sha256".into(), json!(digest));
    entry.insert("predicates".into(), Value::Object(values));
    entry
}

/// The value of each predicate in `out`, in table order: outputs alike in
/// these are the same rewrite.
fn predicate_values(out: &Specialized) -> Vec<bool> {
    out.report().predicates.iter().map(|p| p.value).collect()
}

/// The outputs grouped by distinct rewrite, in the order of their first
/// target: `(indices into jobs, the first output)`. Targets that give every
/// predicate the same value share one rewrite.
fn distinct(outs: &[Specialized]) -> Vec<(Vec<usize>, &Specialized)> {
    let mut groups: Vec<(Vec<usize>, &Specialized)> = Vec::new();
    for (i, out) in outs.iter().enumerate() {
        match groups
            .iter_mut()
            .find(|(_, first)| predicate_values(first) == predicate_values(out))
        {
            Some((members, _)) => members.push(i),
            None => groups.push((vec![i], out)),
        }
    }
    groups
}

/// A target for a report line: `tahiti=gfx600` when the processor is not
/// what was written, else as written.
fn target_label(t: &Target<'_>) -> String {
    let written = t.given().split(':').next().unwrap_or_default();
    if written == t.processor_name() {
        t.given().to_string()
    } else {
        format!("{}={}", t.given(), t.processor_name())
    }
}

/// The text report: one line per distinct rewrite (under a line naming the
/// module, for a container), then a summary.
fn report_text(
    file: &str,
    out_dir: &Path,
    jobs: &[Job<'_>],
    units: &[Unit<'_>],
    outs: &[Vec<Specialized>],
) -> String {
    let mut text = String::new();
    let mut distinct_total = 0;
    for (unit, unit_outs) in units.iter().zip(outs) {
        if let Some(m) = unit.module {
            text.push_str(&format!("module {}: {}\n", m.index, m.location));
        }
        let (lines, n) = rewrite_lines(jobs, unit_outs);
        text.push_str(&lines);
        distinct_total += n;
    }
    text.push_str(&format!(
        "{file}: wrote {} module(s) ({distinct_total} distinct) and {MANIFEST} to {}\n",
        jobs.len() * units.len(),
        out_dir.display()
    ));
    text
}

/// One line per distinct rewrite of one module's outputs, and how many.
fn rewrite_lines(jobs: &[Job<'_>], outs: &[Specialized]) -> (String, usize) {
    let groups = distinct(outs);
    let mut text = String::new();
    for (members, out) in &groups {
        let mut by_wave: Vec<(u32, Vec<String>)> = Vec::new();
        for &i in members {
            let t = &jobs[i].target;
            let w = t.wavefront_size();
            match by_wave.iter_mut().find(|(size, _)| *size == w) {
                Some((_, names)) => names.push(target_label(t)),
                None => by_wave.push((w, vec![target_label(t)])),
            }
        }
        let targets: Vec<String> = by_wave
            .iter()
            .map(|(w, names)| format!("{} [wave{w}]", names.join(", ")))
            .collect();
        let r = out.report();
        let what = if r.table_removed {
            let trues: Vec<String> = r
                .predicates
                .iter()
                .filter(|p| p.value)
                .map(|p| format!("{} [{}]", p.name, p.spec_id))
                .collect();
            format!(
                "true: {}; folded {} branch(es), {} select(s), {} phi(s); removed {} block(s), {} function(s)",
                if trues.is_empty() {
                    "none".to_string()
                } else {
                    trues.join(", ")
                },
                r.branches_folded,
                r.selects_folded,
                r.phis_folded,
                r.blocks_removed,
                r.functions_removed.len()
            )
        } else {
            "no predicate table: module unchanged".to_string()
        };
        text.push_str(&format!(
            "{}: {} bytes; {what}\n",
            targets.join("; "),
            out.words().len() * 4
        ));
    }
    (text, groups.len())
}

/// The JSON report: the distinct rewrites, each with its targets and what
/// was resolved and removed.
fn report_json(
    file: &str,
    out_dir: &Path,
    jobs: &[Job<'_>],
    units: &[Unit<'_>],
    outs: &[Vec<Specialized>],
) -> Value {
    let mut rewrites: Vec<Value> = Vec::new();
    for (unit, unit_outs) in units.iter().zip(outs) {
        rewrites.extend(rewrites_json(jobs, unit, unit_outs));
    }
    json!({
        "input": file,
        "out_dir": out_dir.display().to_string(),
        "modules": jobs.len() * units.len(),
        "distinct": rewrites.len(),
        "rewrites": rewrites,
    })
}

/// The distinct rewrites of one module's outputs, each with its targets
/// and files (and the module's index, for a container).
fn rewrites_json(jobs: &[Job<'_>], unit: &Unit<'_>, outs: &[Specialized]) -> Vec<Value> {
    distinct(outs)
        .iter()
        .map(|(members, out)| {
            let targets: Vec<Value> = members
                .iter()
                .map(|&i| {
                    let mut t = rspv_specialize::json::target(&jobs[i].target);
                    t.insert("file".into(), json!(unit.file(&jobs[i])));
                    Value::Object(t)
                })
                .collect();
            let mut obj = Map::new();
            if let Some(m) = unit.module {
                obj.insert("module".into(), json!(m.index));
            }
            obj.insert("targets".into(), Value::Array(targets));
            obj.insert("size".into(), json!(out.words().len() * 4));
            if let Value::Object(report) = rspv_specialize::json::report(out.report()) {
                for (k, v) in report {
                    if !matches!(
                        k.as_str(),
                        "target" | "target_id" | "processor" | "wavefront_size"
                    ) {
                        obj.insert(k, v);
                    }
                }
            }
            Value::Object(obj)
        })
        .collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_one_scheme() {
        assert_eq!(output_name("tahiti", false), "tahiti.spv");
        assert_eq!(output_name("gfx90a:xnack+", false), "gfx90a_xnack+.spv");
        assert_eq!(output_name("gfx1100", true), "gfx1100-wave64.spv");
    }

    #[test]
    fn only_plain_names_are_file_names() {
        assert!(is_plain_file_name("gfx942.spv"));
        for bad in ["", ".", "..", "../x.spv", "a/b.spv", "/etc/passwd", "./x"] {
            assert!(!is_plain_file_name(bad), "{bad}");
        }
    }
}
