//! The main job: `rspv-specialize --target T IN -o OUT`.
//!
//! Reads IN (or stdin): a SPIR-V module, or the one module of a container
//! that `--module K` picks (or its only one). Specializes it, and writes
//! OUT (or stdout) atomically, the same bytes as for the bare module; on
//! any error nothing is written. The report goes to stderr. The input file
//! is never overwritten unless `--in-place` asks for it (never a
//! container: that would replace it with one module).

use std::path::Path;

use rspv_specialize::{Options, Prepared};

use super::container::{Source, read_source};
use super::io::{Words, display_path, load_tables, resolve_target, write_module, write_output};
use crate::{Failure, ModuleFormat, ReportFormat, SpecializeArgs};

/// Runs the main job, or a batch when `--targets` / `--all-targets` is
/// given. Which flags go together is checked here, not by clap, so each
/// usage error says exactly what is missing or too much.
pub(crate) fn run_specialize(args: &SpecializeArgs) -> Result<(), Failure> {
    let Some(input) = &args.input else {
        return Err(Failure::usage("IN is required"));
    };
    let batch = args.all_targets || !args.targets.is_empty();
    if batch {
        let Some(dir) = &args.out_dir else {
            let which = if args.all_targets {
                "--all-targets"
            } else {
                "--targets"
            };
            return Err(Failure::usage(format!(
                "{which} writes one module per target: give --out-dir DIR"
            )));
        };
        let tables = load_tables(args.tables.arch_tables.as_deref())?;
        return super::batch::run_batch(args, &tables, input, dir);
    }
    let Some(target_id) = &args.target else {
        return Err(Failure::usage(
            "give --target TARGET (with -o OUT or --in-place), or --targets/--all-targets \
             with --out-dir DIR",
        ));
    };
    if args.out_dir.is_some() {
        return Err(Failure::usage(
            "--out-dir is for --targets or --all-targets; with --target give -o OUT",
        ));
    }
    let output = match (&args.output, args.in_place) {
        (Some(o), false) => o.clone(),
        (None, true) if input.as_os_str() != "-" => input.clone(),
        (None, true) => return Err(Failure::usage("--in-place needs a file, not stdin")),
        _ => return Err(Failure::usage("give -o OUT (or --in-place)")),
    };
    if !args.in_place && output.as_os_str() != "-" && same_file(input, &output) {
        return Err(Failure::usage(format!(
            "refusing to overwrite the input {}; pass --in-place to do that",
            output.display()
        )));
    }
    let tables = load_tables(args.tables.arch_tables.as_deref())?;
    let target = resolve_target(&tables, target_id, args.tables.wave64)?;
    let (words, endian, file) = match read_source(input)? {
        Source::Spirv(words, endian) if args.module.unwrap_or(0) == 0 => {
            (words, endian, display_path(input))
        }
        Source::Spirv(..) => {
            return Err(Failure::usage(format!(
                "--module {}: {} is a single SPIR-V module (module 0)",
                args.module.unwrap_or(0),
                display_path(input)
            )));
        }
        Source::Container(_) if args.in_place => {
            return Err(Failure::usage(format!(
                "--in-place would replace the container {} with one SPIR-V module; give -o OUT",
                display_path(input)
            )));
        }
        Source::Container(c) => {
            let m = c.one(args.module)?;
            let file = m.label(&display_path(input));
            let (words, endian) = m.words().map_err(|e| Failure::in_file(&file, e))?;
            (Words::Read(words), endian, file)
        }
    };
    // The output borrows the input's words for what it keeps unchanged;
    // the analysis goes before it is written.
    let out = Prepared::specialize_once(&words, endian, &target, &Options::default())
        .map_err(|e| Failure::in_file(&file, e))?;
    match args.emit {
        ModuleFormat::Spv => write_module(&output, out.chunks(), out.endian(), args.fsync)?,
        ModuleFormat::Spvasm => {
            let text = rspv_specialize::disasm::disassemble(&out.to_words())
                .map_err(|e| Failure::in_file(&file, e))?;
            write_output(&output, text.as_bytes(), args.fsync)?
        }
    }
    match args.report_format() {
        ReportFormat::Text => eprint!("{}", out.report()),
        ReportFormat::Json => {
            let text = serde_json::to_string_pretty(&rspv_specialize::json::report(out.report()))
                .unwrap_or_default();
            eprintln!("{text}");
        }
        ReportFormat::None => {}
    }
    Ok(())
}

/// True when both paths name one existing file.
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}
