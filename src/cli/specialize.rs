//! The main job: `rspv-specialize --target T IN -o OUT`.
//!
//! Reads IN (or stdin), specializes it, and writes OUT (or stdout)
//! atomically; on any error nothing is written. The report goes to stderr.
//! The input file is never overwritten unless `--in-place` asks for it.

use std::path::Path;

use rspv_specialize::module::write_words;
use rspv_specialize::specialize::Report;
use rspv_specialize::{Error, Options, Prepared};
use serde_json::{Value, json};

use super::io::{display_path, load_tables, read_words, resolve_target, write_output, write_with};
use crate::{Failure, ModuleFormat, ReportFormat, SpecializeArgs};

/// Runs the main job.
pub(crate) fn run_specialize(args: &SpecializeArgs) -> Result<(), Failure> {
    let Some(input) = &args.input else {
        return Err(usage("IN is required"));
    };
    if let Some(dir) = &args.out_dir {
        let tables = load_tables(args.tables.arch_tables.as_deref())?;
        return super::batch::run_batch(args, &tables, input, dir);
    }
    let Some(target_id) = &args.target else {
        // clap enforces it; this only guards against misuse.
        return Err(usage("--target is required"));
    };
    let output = match (&args.output, args.in_place) {
        (Some(o), false) => o.clone(),
        (None, true) if input.as_os_str() != "-" => input.clone(),
        (None, true) => return Err(usage("--in-place needs a file, not stdin")),
        _ => return Err(usage("give -o OUT or --in-place")),
    };
    if !args.in_place && output.as_os_str() != "-" && same_file(input, &output) {
        return Err(usage(&format!(
            "refusing to overwrite the input {}; pass --in-place to do that",
            output.display()
        )));
    }
    let file = display_path(input);
    let with_file = |error: Error| Failure {
        file: Some(file.clone()),
        error,
    };
    let tables = load_tables(args.tables.arch_tables.as_deref())?;
    let target = resolve_target(&tables, target_id, args.tables.wave64)?;
    let (words, endian) = read_words(input)?;
    let out = Prepared::new(&words, endian)
        .and_then(|p| p.specialize(&target, &Options::default()))
        .map_err(with_file)?;
    drop(words);
    match args.emit {
        ModuleFormat::Spv => {
            write_with(&output, &mut |w| write_words(w, out.words(), out.endian()))?
        }
        ModuleFormat::Spvasm => {
            let text = rspv_specialize::disasm::disassemble(out.words()).map_err(with_file)?;
            write_output(&output, text.as_bytes())?
        }
    }
    match args.report {
        ReportFormat::Text => eprint!("{}", out.report()),
        ReportFormat::Json => {
            let text = serde_json::to_string_pretty(&report_json(out.report())).unwrap_or_default();
            eprintln!("{text}");
        }
        ReportFormat::None => {}
    }
    Ok(())
}

fn usage(message: &str) -> Failure {
    Failure {
        file: None,
        error: Error::Io {
            path: "arguments".to_string(),
            message: message.to_string(),
        },
    }
}

/// True when both paths name one existing file.
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// The report as one JSON object.
pub(crate) fn report_json(r: &Report) -> Value {
    json!({
        "target": r.target,
        "table_removed": r.table_removed,
        "predicates": r.predicates.iter().map(|p| json!({
            "spec_id": p.spec_id,
            "name": p.name,
            "value": p.value,
            "note": p.note,
        })).collect::<Vec<_>>(),
        "branches_folded": r.branches_folded,
        "selects_folded": r.selects_folded,
        "phis_folded": r.phis_folded,
        "blocks_removed": r.blocks_removed,
        "functions_rewritten": r.functions_rewritten,
        "functions_removed": r.functions_removed,
    })
}
