//! The `rspv-specialize` command line.
//!
//! - `rspv-specialize --target T IN -o OUT` specializes a module for one
//!   target (the main job; top-level arguments, no subcommand).
//! - `rspv-specialize inspect IN [--target T | --all-targets]` prints the
//!   predicate table, and the predicates' values for one or every target.
//! - `rspv-specialize targets` lists the processors of the arch tables.
//!
//! Errors go to stderr as `error: <message>`. Exit codes: 0 success, 1 bad
//! input (module, predicate table, arch tables, target, unreadable file),
//! 2 usage errors (clap's own).

use std::collections::BTreeMap;
use std::fmt;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};
use rspv_specialize::arch::Processor;
use rspv_specialize::table::Predicate;
use rspv_specialize::{ArchTables, Error, Inspection, Target, TargetOptions};
use serde_json::{Value, json};

/// Command-line arguments.
#[derive(Parser, Debug)]
#[command(
    name = "rspv-specialize",
    version,
    about = "Specialize AMD-flavoured SPIR-V feature predicates for one GPU",
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
struct Cli {
    /// The main job's arguments (used when no subcommand is given).
    #[command(flatten)]
    specialize: SpecializeArgs,
    /// A subcommand, if any.
    #[command(subcommand)]
    command: Option<Command>,
}

/// Arguments of the main job: `--target T IN -o OUT`.
#[derive(Args, Debug)]
struct SpecializeArgs {
    /// Target ID: a processor (gfx950), a legacy alias (tahiti), a generic
    /// target (gfx9-4-generic), optionally with target-ID features
    /// (gfx950:sramecc+:xnack-).
    #[arg(long, short = 't', value_name = "TARGET", required = true)]
    target: Option<String>,
    /// Arch tables and wave size.
    #[command(flatten)]
    tables: TablesArgs,
    /// Input module (`-` reads stdin).
    #[arg(value_name = "IN", required = true)]
    input: Option<PathBuf>,
    /// Output module (`-` writes stdout).
    #[arg(short = 'o', long = "output", value_name = "OUT", required = true)]
    output: Option<PathBuf>,
}

/// Where the arch tables come from and how targets are configured.
#[derive(Args, Debug, Clone)]
struct TablesArgs {
    /// Load the arch tables from DIR (one YAML file per processor, plus
    /// builtins.yaml) instead of the embedded ones.
    #[arg(long, value_name = "DIR")]
    arch_tables: Option<PathBuf>,
    /// Use wave64 on dual-wave processors (clang's -mwavefrontsize64).
    #[arg(long)]
    wave64: bool,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
enum Command {
    /// Print a module's predicate table, and the predicates' values for one
    /// target or for every known processor.
    Inspect(InspectArgs),
    /// List the processors of the arch tables.
    Targets(TargetsArgs),
}

/// Arguments of `inspect`.
#[derive(Args, Debug)]
struct InspectArgs {
    /// Input module (`-` reads stdin).
    #[arg(value_name = "IN")]
    input: PathBuf,
    /// Also print each predicate's value for this target ID.
    #[arg(
        long,
        short = 't',
        value_name = "TARGET",
        conflicts_with = "all_targets"
    )]
    target: Option<String>,
    /// Print the value of every predicate for every processor in the tables.
    #[arg(long)]
    all_targets: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Arch tables and wave size.
    #[command(flatten)]
    tables: TablesArgs,
}

/// Arguments of `targets`.
#[derive(Args, Debug)]
struct TargetsArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Load the arch tables from DIR instead of the embedded ones.
    #[arg(long, value_name = "DIR")]
    arch_tables: Option<PathBuf>,
}

/// Output formats of `inspect` and `targets`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    /// Human-readable tables.
    Text,
    /// One JSON object.
    Json,
}

/// An error as the CLI reports it: the library's error, with the input file
/// it concerns when there is one.
struct Failure {
    /// The input file the error is about, if any.
    file: Option<String>,
    /// What went wrong.
    error: Error,
}

impl From<Error> for Failure {
    fn from(error: Error) -> Self {
        Failure { file: None, error }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.file {
            Some(file) => write!(f, "{file}: {}", self.error),
            None => write!(f, "{}", self.error),
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Some(Command::Inspect(args)) => run_inspect(args),
        Some(Command::Targets(args)) => run_targets(args),
        None => run_specialize(&cli.specialize).map_err(Failure::from),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

/// The main job: specialize IN for one target and write OUT.
///
/// Placeholder until `rspv_specialize::specialize` lands; replace the body
/// with: load the tables ([`load_tables`]), resolve the target
/// ([`resolve_target`]), read the input ([`read_input`]), specialize, and
/// write the result with [`write_output`].
fn run_specialize(args: &SpecializeArgs) -> Result<(), Error> {
    let _ = args;
    eprintln!("specialize: not implemented yet");
    std::process::exit(2)
}

/// The arch tables: the embedded ones or those of `--arch-tables DIR`.
fn load_tables(dir: Option<&Path>) -> Result<ArchTables, Error> {
    match dir {
        Some(dir) => ArchTables::from_dir(dir),
        None => Ok(ArchTables::embedded()),
    }
}

/// Resolves a target ID with the wave-size choice.
fn resolve_target<'t>(tables: &'t ArchTables, id: &str, wave64: bool) -> Result<Target<'t>, Error> {
    tables.target_with(id, &TargetOptions { wave64 })
}

/// Reads the input module; `-` is stdin. Errors name the path.
fn read_input(path: &Path) -> Result<Vec<u8>, Error> {
    let io = |e: std::io::Error| Error::Io {
        path: display_path(path),
        message: format!("cannot read: {e}"),
    };
    if path.as_os_str() == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut bytes)
            .map_err(io)?;
        Ok(bytes)
    } else {
        std::fs::read(path).map_err(io)
    }
}

/// How an input path is named in messages.
fn display_path(path: &Path) -> String {
    if path.as_os_str() == "-" {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    }
}

/// Writes `bytes` to `path` atomically: into a temporary file next to it,
/// then renamed over it, so a failure leaves no half-written output. `-`
/// writes to stdout.
#[allow(dead_code)] // used once `run_specialize` calls the library
fn write_output(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    if path.as_os_str() == "-" {
        return emit_bytes(bytes);
    }
    let io = |e: std::io::Error| Error::Io {
        path: path.display().to_string(),
        message: format!("cannot write: {e}"),
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        name.as_deref().unwrap_or("out"),
        std::process::id()
    ));
    let result = std::fs::File::create(&tmp)
        .and_then(|mut f| f.write_all(bytes).and_then(|()| f.sync_all()))
        .and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(io)
}

/// Writes to stdout; a closed pipe (`| head`) is not an error.
fn emit_bytes(bytes: &[u8]) -> Result<(), Error> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Error::Io {
            path: "<stdout>".to_string(),
            message: e.to_string(),
        }),
    }
}

/// Writes text to stdout.
fn emit(text: &str) -> Result<(), Error> {
    emit_bytes(text.as_bytes())
}

/// Writes a JSON value to stdout, pretty-printed, with a final newline.
fn emit_json(value: &Value) -> Result<(), Error> {
    // Serializing a `Value` to a string cannot fail.
    let text = serde_json::to_string_pretty(value).unwrap_or_default();
    emit(&format!("{text}\n"))
}

// ---------------------------------------------------------------------------
// inspect

/// What `inspect` shows of one predicate, whatever the target.
struct Row {
    /// The table entry.
    predicate: Predicate,
    /// Builtins whose requirement is exactly this `has.` expression.
    builtins: Vec<String>,
    /// A note that holds for every target (unknown processor or feature).
    note: Option<String>,
}

/// One predicate's value for one target: `(value, note)`.
type ValueNote = (bool, Option<String>);

fn run_inspect(args: &InspectArgs) -> Result<(), Failure> {
    let tables = load_tables(args.tables.arch_tables.as_deref())?;
    let wave64 = args.tables.wave64;
    // Resolve the target before reading the module: a typo in the target is
    // reported whatever the input.
    let target = match &args.target {
        Some(id) => Some(resolve_target(&tables, id, wave64)?),
        None => None,
    };
    let bytes = read_input(&args.input)?;
    let inspection = rspv_specialize::inspect(&bytes).map_err(|error| Failure {
        file: Some(display_path(&args.input)),
        error,
    })?;
    let rows = rows(&tables, &inspection);
    let file = display_path(&args.input);
    if let Some(target) = &target {
        let values = values_for(&inspection, target)?;
        return match args.format {
            Format::Text => emit(&text_one_target(&file, &rows, target, &values)),
            Format::Json => emit_json(&json_one_target(&file, &inspection, &rows, target, &values)),
        }
        .map_err(Failure::from);
    }
    if args.all_targets {
        let mut columns = Vec::new();
        for p in display_order(&tables) {
            // wave64 applies where the processor runs wave64; wave32-only
            // processors keep their only size.
            let w64 = wave64 && p.wavefront_sizes.contains(&64);
            let t = resolve_target(&tables, &p.name, w64)?;
            columns.push((p, values_for(&inspection, &t)?));
        }
        return match args.format {
            Format::Text => emit(&text_all_targets(&file, &rows, &columns, wave64)),
            Format::Json => emit_json(&json_all_targets(
                &file,
                &inspection,
                &rows,
                &columns,
                wave64,
            )),
        }
        .map_err(Failure::from);
    }
    match args.format {
        Format::Text => emit(&text_table(&file, &rows)),
        Format::Json => emit_json(&json!({
            "input": file,
            "has_table": inspection.has_table,
            "predicates": rows.iter().map(|r| row_json(r, None)).collect::<Vec<_>>(),
        })),
    }
    .map_err(Failure::from)
}

/// The predicates in SpecId order, with their builtins and notes.
fn rows(tables: &ArchTables, inspection: &Inspection) -> Vec<Row> {
    let mut preds = inspection.predicates.clone();
    preds.sort_by_key(|p| p.spec_id);
    // Notes depend only on the name (a processor or feature no table knows),
    // so any processor tells them.
    let any = tables
        .processors()
        .first()
        .and_then(|p| tables.target(&p.name).ok());
    preds
        .into_iter()
        .map(|p| {
            let builtins = match p.name.strip_prefix("has.") {
                Some(expr) => tables
                    .builtins_requiring(expr)
                    .map(|b| b.name.clone())
                    .collect(),
                None => Vec::new(),
            };
            let note = any
                .as_ref()
                .and_then(|t| t.evaluate(&p.name).ok())
                .and_then(|e| e.note);
            Row {
                predicate: p,
                builtins,
                note,
            }
        })
        .collect()
}

/// Every predicate's value for `target`, by SpecId.
fn values_for(
    inspection: &Inspection,
    target: &Target<'_>,
) -> Result<BTreeMap<u32, ValueNote>, Error> {
    Ok(inspection
        .resolve(target)?
        .into_iter()
        .map(|r| (r.spec_id, (r.value, r.note)))
        .collect())
}

/// The wavefront size a target runs with.
fn wavefront_size(target: &Target<'_>) -> u32 {
    if target.features().contains("wavefrontsize32") {
        32
    } else {
        64
    }
}

/// The JSON object of one predicate, with its value when one is given.
fn row_json(row: &Row, value: Option<&ValueNote>) -> Value {
    let p = &row.predicate;
    let mut obj = json!({
        "spec_id": p.spec_id,
        "name": p.name,
        "kind": p.kind.as_str(),
        "call_sites": p.sites.len(),
        "builtins": row.builtins,
        "note": row.note,
    });
    if let Some((v, note)) = value {
        obj["value"] = json!(v);
        obj["note"] = json!(note.as_ref().or(row.note.as_ref()));
    }
    obj
}

fn predicates_json(rows: &[Row], values: &BTreeMap<u32, ValueNote>) -> Vec<Value> {
    rows.iter()
        .map(|r| row_json(r, values.get(&r.predicate.spec_id)))
        .collect()
}

fn json_one_target(
    file: &str,
    inspection: &Inspection,
    rows: &[Row],
    target: &Target<'_>,
    values: &BTreeMap<u32, ValueNote>,
) -> Value {
    json!({
        "input": file,
        "target": target.id(),
        "processor": target.processor().name,
        "wavefront_size": wavefront_size(target),
        "has_table": inspection.has_table,
        "predicates": predicates_json(rows, values),
    })
}

fn json_all_targets(
    file: &str,
    inspection: &Inspection,
    rows: &[Row],
    columns: &[(&Processor, BTreeMap<u32, ValueNote>)],
    wave64: bool,
) -> Value {
    let targets: Vec<Value> = if inspection.has_table {
        columns
            .iter()
            .map(|(p, values)| {
                json!({
                    "target": p.name,
                    "predicates": predicates_json(rows, values),
                })
            })
            .collect()
    } else {
        Vec::new()
    };
    json!({
        "input": file,
        "has_table": inspection.has_table,
        "wave64": wave64,
        "predicates": rows.iter().map(|r| row_json(r, None)).collect::<Vec<_>>(),
        "targets": targets,
    })
}

const NO_TABLE: &str = "no predicate table: nothing to specialize\n";

/// Summary line: how many predicates and call sites.
fn summary(file: &str, rows: &[Row]) -> String {
    let sites: usize = rows.iter().map(|r| r.predicate.sites.len()).sum();
    format!(
        "{file}: {} predicate{}, {sites} call site{}\n",
        rows.len(),
        plural(rows.len()),
        plural(sites)
    )
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The builtins cell: the first two names (without the common
/// `__builtin_amdgcn_` prefix) and how many more.
fn builtins_cell(builtins: &[String]) -> String {
    let short = |b: &String| {
        b.strip_prefix(BUILTIN_PREFIX)
            .unwrap_or(b.as_str())
            .to_string()
    };
    match builtins {
        [] => "-".to_string(),
        [a] => short(a),
        [a, b] => format!("{}, {}", short(a), short(b)),
        [a, b, rest @ ..] => format!("{}, {} (+{} more)", short(a), short(b), rest.len()),
    }
}

/// Stripped from builtin names in text output (the column header says so).
const BUILTIN_PREFIX: &str = "__builtin_amdgcn_";

fn text_table(file: &str, rows: &[Row]) -> String {
    if rows.is_empty() {
        return NO_TABLE.to_string();
    }
    let mut out = summary(file, rows);
    let w = name_width(rows);
    out.push_str(&format!(
        "{:>6}  {:<4}  {:>5}  {:<w$}  builtins ({BUILTIN_PREFIX}*)\n",
        "SpecId", "kind", "sites", "name"
    ));
    for r in rows {
        let p = &r.predicate;
        out.push_str(&format!(
            "{:>6}  {:<4}  {:>5}  {:<w$}  {}\n",
            p.spec_id,
            p.kind.as_str(),
            p.sites.len(),
            p.name,
            builtins_cell(&r.builtins)
        ));
        if let Some(n) = &r.note {
            out.push_str(&format!("{:>6}  note: {n}\n", ""));
        }
    }
    out
}

fn name_width(rows: &[Row]) -> usize {
    rows.iter()
        .map(|r| r.predicate.name.len())
        .max()
        .unwrap_or(0)
        .max(4)
}

fn text_one_target(
    file: &str,
    rows: &[Row],
    target: &Target<'_>,
    values: &BTreeMap<u32, ValueNote>,
) -> String {
    let p = target.processor();
    let mut out = format!(
        "target {} (processor {}, {}{}, wave{})\n",
        target.id(),
        p.name,
        p.generation,
        if p.generic { ", generic" } else { "" },
        wavefront_size(target)
    );
    if rows.is_empty() {
        out.push_str(NO_TABLE);
        return out;
    }
    out.push_str(&summary(file, rows));
    let w = name_width(rows);
    out.push_str(&format!(
        "{:>6}  {:<4}  {:>5}  {:<5}  {:<w$}  builtins ({BUILTIN_PREFIX}*)\n",
        "SpecId", "kind", "sites", "value", "name"
    ));
    for r in rows {
        let pr = &r.predicate;
        let (value, note) = values.get(&pr.spec_id).cloned().unwrap_or((false, None));
        out.push_str(&format!(
            "{:>6}  {:<4}  {:>5}  {:<5}  {:<w$}  {}\n",
            pr.spec_id,
            pr.kind.as_str(),
            pr.sites.len(),
            value,
            pr.name,
            builtins_cell(&r.builtins)
        ));
        if let Some(n) = note.or_else(|| r.note.clone()) {
            out.push_str(&format!("{:>6}  note: {n}\n", ""));
        }
    }
    out
}

/// The matrix: one row per processor (grouped by generation), one column per
/// predicate (headed by its SpecId, digits stacked), `1` true, `.` false;
/// then a legend naming each column.
fn text_all_targets(
    file: &str,
    rows: &[Row],
    columns: &[(&Processor, BTreeMap<u32, ValueNote>)],
    wave64: bool,
) -> String {
    if rows.is_empty() {
        return NO_TABLE.to_string();
    }
    let mut out = summary(file, rows);
    out.push_str(&format!(
        "values for {} processors{}: 1 = true, . = false; columns are SpecIds (legend below)\n\n",
        columns.len(),
        if wave64 {
            " (wave64 where supported)"
        } else {
            ""
        }
    ));
    let label = |p: &Processor| {
        if p.generic {
            format!("{} *", p.name)
        } else {
            p.name.clone()
        }
    };
    let lw = columns
        .iter()
        .map(|(p, _)| label(p).len())
        .max()
        .unwrap_or(0)
        .max(6);
    // Column headers: SpecIds written vertically, most significant digit on top.
    let ids: Vec<String> = rows
        .iter()
        .map(|r| r.predicate.spec_id.to_string())
        .collect();
    let depth = ids.iter().map(String::len).max().unwrap_or(1);
    for line in 0..depth {
        let mut s = format!("{:<lw$} ", if line + 1 == depth { "SpecId" } else { "" });
        for id in &ids {
            let pad = depth - id.len();
            let c = if line < pad {
                ' '
            } else {
                id.as_bytes()[line - pad] as char
            };
            s.push(' ');
            s.push(c);
        }
        out.push_str(s.trim_end());
        out.push('\n');
    }
    let mut last_gen: Option<&str> = None;
    for (p, values) in columns {
        if last_gen.is_some_and(|g| g != p.generation) {
            out.push('\n');
        }
        last_gen = Some(&p.generation);
        let mut s = format!("{:<lw$} ", label(p));
        for r in rows {
            let v = values.get(&r.predicate.spec_id).is_some_and(|(v, _)| *v);
            s.push(' ');
            s.push(if v { '1' } else { '.' });
        }
        out.push_str(&s);
        out.push('\n');
    }
    out.push_str("\n(* = generic target)\n\nlegend:\n");
    let w = name_width(rows);
    for r in rows {
        let id = r.predicate.spec_id;
        let trues = columns
            .iter()
            .filter(|(_, v)| v.get(&id).is_some_and(|(v, _)| *v))
            .count();
        out.push_str(&format!(
            "{id:>6}  {:<w$}  true for {trues}/{}\n",
            r.predicate.name,
            columns.len()
        ));
        if let Some(n) = &r.note {
            out.push_str(&format!("{:>6}  note: {n}\n", ""));
        }
    }
    out
}

// ---------------------------------------------------------------------------
// targets

fn run_targets(args: &TargetsArgs) -> Result<(), Failure> {
    let tables = load_tables(args.arch_tables.as_deref())?;
    let procs = display_order(&tables);
    match args.format {
        Format::Json => emit_json(&json!({
            "processors": procs.iter().map(|p| json!({
                "name": p.name,
                "aliases": p.aliases,
                "generation": p.generation,
                "generic": p.generic,
                "covers": p.covers,
                "wavefront_sizes": p.wavefront_sizes,
                "default_wavefront_size": p.default_wavefront_size,
                "target_id_features": p.target_id_features,
                "features": p.features,
            })).collect::<Vec<_>>(),
        })),
        Format::Text => emit(&text_targets(&tables, &procs)),
    }
    .map_err(Failure::from)
}

fn text_targets(tables: &ArchTables, procs: &[&Processor]) -> String {
    let none = |v: String| if v.is_empty() { "-".to_string() } else { v };
    let cells: Vec<[String; 6]> = procs
        .iter()
        .map(|p| {
            let waves = p
                .wavefront_sizes
                .iter()
                .map(|w| {
                    if p.wavefront_sizes.len() > 1 && *w == p.default_wavefront_size {
                        format!("{w}*")
                    } else {
                        w.to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join(",");
            let generic = if p.generic {
                format!("covers {}", p.covers.join(","))
            } else {
                "-".to_string()
            };
            [
                p.name.clone(),
                none(p.aliases.join(",")),
                p.generation.clone(),
                waves,
                none(p.target_id_features.join(",")),
                generic,
            ]
        })
        .collect();
    let heads = ["name", "aliases", "gen", "wave", "target-ID", "generic"];
    let mut widths = heads.map(str::len);
    for c in &cells {
        for (w, s) in widths.iter_mut().zip(c.iter()) {
            *w = (*w).max(s.len());
        }
    }
    let line = |c: &[&str]| {
        let mut s = String::new();
        for (i, cell) in c.iter().enumerate() {
            if i + 1 == c.len() {
                s.push_str(cell);
            } else {
                s.push_str(&format!("{cell:<w$}  ", w = widths[i]));
            }
        }
        s.trim_end().to_string() + "\n"
    };
    let mut out = format!(
        "{} processors, {} builtins (wave: * = default)\n",
        procs.len(),
        tables.builtins().len()
    );
    out.push_str(&line(&heads));
    let mut last_gen: Option<&str> = None;
    for c in &cells {
        if last_gen.is_some_and(|g| g != c[2]) {
            out.push('\n');
        }
        last_gen = Some(&c[2]);
        out.push_str(&line(&c.each_ref().map(String::as_str)));
    }
    out
}

/// Processors in ISA order: by generation, specific processors before
/// generic ones, then by version (`gfx90a` after `gfx909`).
fn display_order(tables: &ArchTables) -> Vec<&Processor> {
    let mut v: Vec<&Processor> = tables.processors().iter().collect();
    v.sort_by_key(|p| {
        (
            number_after_gfx(&p.generation),
            p.generic,
            version_key(&p.name),
            p.name.clone(),
        )
    });
    v
}

/// `gfx12` → 12; anything else sorts last.
fn number_after_gfx(s: &str) -> u32 {
    s.strip_prefix("gfx")
        .and_then(|n| n.parse().ok())
        .unwrap_or(u32::MAX)
}

/// `gfx90a` → (9, 0, 10): major, minor, hex stepping; others sort last.
fn version_key(name: &str) -> (u32, u32, u32) {
    let last = (u32::MAX, u32::MAX, u32::MAX);
    let Some(v) = name.strip_prefix("gfx") else {
        return last;
    };
    if v.len() < 3 || !v.is_ascii() {
        return last;
    }
    let (major, rest) = v.split_at(v.len() - 2);
    let mut chars = rest.chars();
    let minor = chars.next().and_then(|c| c.to_digit(10));
    let step = chars.next().and_then(|c| c.to_digit(16));
    match (major.parse(), minor, step) {
        (Ok(ma), Some(mi), Some(st)) => (ma, mi, st),
        _ => last,
    }
}
