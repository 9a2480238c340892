//! Batch runs: `--targets a,b,c` or `--all-targets` with `--out-dir DIR`.
//!
//! The module is parsed and analysed once; targets that resolve every
//! predicate alike share one rewrite, and distinct rewrites use the cores
//! (`Prepared::specialize_many`). All or nothing: if any target fails,
//! nothing is written and every failure is listed. Otherwise each module is
//! written atomically as `<target>.spv` (`:` written as `_`), then
//! `manifest.json` with each file's target, size, SHA-256 and predicate
//! values. A progress line is drawn on stderr when it is a terminal.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use rspv_specialize::{ArchTables, Error, Options, Prepared, Target, TargetOptions};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::io::{display_path, emit_json_to_stderr, read_words, write_output, write_with};
use crate::{Failure, SpecializeArgs};

/// Runs a batch.
pub(crate) fn run_batch(
    args: &SpecializeArgs,
    tables: &ArchTables,
    input: &Path,
    out_dir: &Path,
) -> Result<(), Failure> {
    let options = TargetOptions {
        wave64: args.tables.wave64,
    };
    let ids: Vec<String> = if args.all_targets {
        tables.processors().iter().map(|p| p.name.clone()).collect()
    } else {
        args.targets.clone()
    };
    let targets = ids
        .iter()
        .map(|id| {
            // --wave64 applies where it can: wave64 on a wave32-only
            // processor falls back to its only size in an --all-targets run.
            tables.target_with(id, &options).or_else(|e| {
                if args.all_targets {
                    tables.target(id)
                } else {
                    Err(e)
                }
            })
        })
        .collect::<Result<Vec<Target<'_>>, Error>>()?;
    let file = display_path(input);
    let with_file = |error: Error| Failure {
        file: Some(file.clone()),
        error,
    };
    let (words, endian) = read_words(input)?;
    let prepared = Prepared::new(&words, endian).map_err(with_file)?;
    let tty = std::io::stderr().is_terminal();
    let progress = |done: usize, total: usize| {
        if tty {
            eprint!("\rspecializing: {done}/{total} distinct modules");
            if done == total {
                eprintln!();
            }
        }
    };
    let results = prepared.specialize_many_with_progress(&targets, &Options::default(), &progress);

    let failures: Vec<String> = targets
        .iter()
        .zip(&results)
        .filter_map(|(t, r)| r.as_ref().err().map(|e| format!("{}: {e}", t.id())))
        .collect();
    if !failures.is_empty() {
        return Err(with_file(Error::Io {
            path: "batch".to_string(),
            message: format!(
                "{} of {} targets failed, nothing written:\n{}",
                failures.len(),
                targets.len(),
                failures.join("\n")
            ),
        }));
    }
    std::fs::create_dir_all(out_dir).map_err(|e| Error::Io {
        path: out_dir.display().to_string(),
        message: format!("cannot create: {e}"),
    })?;
    let mut written: Vec<PathBuf> = Vec::new();
    let mut entries: Vec<Value> = Vec::new();
    for (t, r) in targets.iter().zip(results) {
        let Ok(out) = r else { continue };
        let name = format!("{}.spv", t.id().replace(':', "_"));
        let path = out_dir.join(&name);
        let data = out.bytes();
        if let Err(e) = write_with(&path, &mut |w| w.write_all(&data)) {
            for p in &written {
                let _ = std::fs::remove_file(p);
            }
            return Err(e.into());
        }
        written.push(path);
        let values: serde_json::Map<String, Value> = out
            .report()
            .predicates
            .iter()
            .map(|p| (p.name.clone(), Value::Bool(p.value)))
            .collect();
        entries.push(json!({
            "target": t.id(),
            "file": name,
            "size": data.len(),
            "sha256": hex(&Sha256::digest(&data)),
            "predicates": values,
        }));
    }
    let manifest = json!({ "input": file, "targets": entries });
    let text = serde_json::to_string_pretty(&manifest).unwrap_or_default() + "\n";
    write_output(&out_dir.join("manifest.json"), text.as_bytes())?;
    if !matches!(args.report, crate::ReportFormat::None) {
        emit_json_to_stderr(&json!({
            "out_dir": out_dir.display().to_string(),
            "modules": written.len(),
        }));
    }
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
