//! `rspv-specialize inspect`: the predicate table, and its values for one
//! target or as a matrix over all of them. For a container, every SPIR-V
//! module it holds (or the one `--module K` picks), each under a line saying
//! where it was found; `--format json` lists them in a `modules` array.

use std::collections::BTreeMap;

use rspv_specialize::json::{inspection as inspection_json, predicate as predicate_json};
use rspv_specialize::{
    ArchTables, Described, Error, Inspection, Resolved, Target, inspect as inspect_bytes,
    inspect_words,
};
use serde_json::{Map, Value, json};

use super::container::{Source, describe, module_json, read_source};
use super::io::{display_path, emit, emit_json, load_tables, resolve_target};
use super::targets::display_order;
use crate::{Failure, Format, InspectArgs};

/// What `inspect` shows of one predicate, whatever the target.
type Row = Described;

pub(crate) fn run_inspect(args: &InspectArgs) -> Result<(), Failure> {
    let tables = load_tables(args.tables.arch_tables.as_deref())?;
    let wave64 = args.tables.wave64;
    // Resolve the target before reading the module: a typo in the target is
    // reported whatever the input.
    let target = match &args.target {
        Some(id) => Some(resolve_target(&tables, id, wave64)?),
        None => None,
    };
    let file = display_path(&args.input);
    let container = match read_source(&args.input)? {
        Source::Spirv(words, _) => {
            if let Some(k) = args.module.filter(|&k| k != 0) {
                return Err(Failure::usage(format!(
                    "--module {k}: {file} is a single SPIR-V module (module 0)"
                )));
            }
            let inspection = inspect_words(&words).map_err(|e| Failure::in_file(&file, e))?;
            return match show(args, &tables, target.as_ref(), &file, &inspection)? {
                Shown::Text(text) => emit(&text),
                Shown::Json(value) => emit_json(&value),
            }
            .map_err(Failure::from);
        }
        Source::Container(c) => c,
    };
    // A container: each module (or the one --module picks) under a line
    // saying where it was found; JSON lists them in "modules".
    let mut text = String::new();
    let mut modules = Vec::new();
    for m in container.select(args.module)? {
        let label = m.label(&file);
        let inspection = inspect_bytes(&m.bytes).map_err(|e| Failure::in_file(&label, e))?;
        let name = format!("{file} module {}", m.index);
        match show(args, &tables, target.as_ref(), &name, &inspection)? {
            Shown::Text(t) => text += &format!("{}\n{t}\n", describe(m)),
            Shown::Json(Value::Object(mut obj)) => {
                obj.remove("input");
                let mut entry = module_json(m);
                entry.extend(obj);
                modules.push(Value::Object(entry));
            }
            Shown::Json(_) => {}
        }
    }
    match args.format {
        Format::Text => emit(&format!(
            "{file}: {} holding {} SPIR-V module(s)\n\n{text}",
            container.kind.name(),
            container.modules.len()
        )),
        Format::Json => emit_json(&json!({
            "input": file,
            "container": container.kind.name(),
            "modules": modules,
        })),
    }
    .map_err(Failure::from)
}

/// What `inspect` prints for one module.
enum Shown {
    Text(String),
    Json(Value),
}

/// The table of one module (`file` names it), with values for `target` or
/// every processor, as text or JSON.
fn show(
    args: &InspectArgs,
    tables: &ArchTables,
    target: Option<&Target<'_>>,
    file: &str,
    inspection: &Inspection,
) -> Result<Shown, Failure> {
    let wave64 = args.tables.wave64;
    let rows = inspection.describe(tables);
    if args.all_targets {
        let mut columns = Vec::new();
        for p in display_order(tables) {
            // wave64 applies where the processor runs wave64; wave32-only
            // processors keep their only size.
            let w64 = wave64 && p.wavefront_sizes.contains(&64);
            let t = resolve_target(tables, &p.name, w64)?;
            let values = values_for(inspection, &t)?;
            columns.push((t, values));
        }
        return Ok(match args.format {
            Format::Text => Shown::Text(text_all_targets(file, &rows, &columns, wave64)),
            Format::Json => {
                Shown::Json(json_all_targets(file, inspection, &rows, &columns, wave64))
            }
        });
    }
    Ok(match (args.format, target) {
        (Format::Json, _) => {
            let mut obj = Map::new();
            obj.insert("input".into(), json!(file));
            if let Value::Object(rest) = inspection_json(inspection, tables, target)? {
                obj.extend(rest);
            }
            Shown::Json(Value::Object(obj))
        }
        (Format::Text, Some(target)) => {
            let values = values_for(inspection, target)?;
            Shown::Text(text_one_target(file, &rows, target, &values))
        }
        (Format::Text, None) => Shown::Text(text_table(file, &rows)),
    })
}

/// Every predicate's value for `target`, by SpecId.
pub(crate) fn values_for(
    inspection: &Inspection,
    target: &Target<'_>,
) -> Result<BTreeMap<u32, Resolved>, Error> {
    Ok(inspection
        .resolve(target)?
        .into_iter()
        .map(|r| (r.spec_id, r))
        .collect())
}

pub(crate) fn predicates_json(rows: &[Row], values: &BTreeMap<u32, Resolved>) -> Vec<Value> {
    rows.iter()
        .map(|r| predicate_json(r, values.get(&r.predicate.spec_id)))
        .collect()
}

pub(crate) fn json_all_targets(
    file: &str,
    inspection: &Inspection,
    rows: &[Row],
    columns: &[(Target<'_>, BTreeMap<u32, Resolved>)],
    wave64: bool,
) -> Value {
    let targets: Vec<Value> = if inspection.has_table {
        columns
            .iter()
            .map(|(t, values)| {
                let mut obj = rspv_specialize::json::target(t);
                obj.insert("predicates".into(), json!(predicates_json(rows, values)));
                Value::Object(obj)
            })
            .collect()
    } else {
        Vec::new()
    };
    json!({
        "input": file,
        "has_table": inspection.has_table,
        "wave64": wave64,
        "predicates": rows.iter().map(|r| predicate_json(r, None)).collect::<Vec<_>>(),
        "targets": targets,
    })
}

const NO_TABLE: &str = "no predicate table: nothing to specialize\n";

/// Summary line: how many predicates and call sites.
pub(crate) fn summary(file: &str, rows: &[Row]) -> String {
    let sites: usize = rows.iter().map(|r| r.predicate.sites.len()).sum();
    format!(
        "{file}: {} predicate{}, {sites} call site{}\n",
        rows.len(),
        plural(rows.len()),
        plural(sites)
    )
}

pub(crate) fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The builtins cell: the first two names (without the common
/// `__builtin_amdgcn_` prefix) and how many more.
pub(crate) fn builtins_cell(builtins: &[String]) -> String {
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

pub(crate) fn text_table(file: &str, rows: &[Row]) -> String {
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

pub(crate) fn name_width(rows: &[Row]) -> usize {
    rows.iter()
        .map(|r| r.predicate.name.len())
        .max()
        .unwrap_or(0)
        .max(4)
}

pub(crate) fn text_one_target(
    file: &str,
    rows: &[Row],
    target: &Target<'_>,
    values: &BTreeMap<u32, Resolved>,
) -> String {
    let p = target.processor();
    let mut out = format!(
        "target {} (processor {}, {}{}, wave{})\n",
        target.given(),
        p.name,
        p.generation,
        if p.generic { ", generic" } else { "" },
        target.wavefront_size()
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
        let (value, note) = values
            .get(&pr.spec_id)
            .map_or((false, None), |v| (v.value, v.note.clone()));
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
pub(crate) fn text_all_targets(
    file: &str,
    rows: &[Row],
    columns: &[(Target<'_>, BTreeMap<u32, Resolved>)],
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
    let label = |t: &Target<'_>| {
        let p = t.processor();
        if p.generic {
            format!("{} *", p.name)
        } else {
            p.name.clone()
        }
    };
    let lw = columns
        .iter()
        .map(|(t, _)| label(t).len())
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
    for (t, values) in columns {
        let p = t.processor();
        if last_gen.is_some_and(|g| g != p.generation) {
            out.push('\n');
        }
        last_gen = Some(&p.generation);
        let mut s = format!("{:<lw$} ", label(t));
        for r in rows {
            let v = values.get(&r.predicate.spec_id).is_some_and(|v| v.value);
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
            .filter(|(_, v)| v.get(&id).is_some_and(|v| v.value))
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
