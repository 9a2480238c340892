//! JSON forms of reports and inspections (feature `json`), one shape shared
//! by the command line (`--report json`, `inspect --format json`) and the C
//! ABI (`rspv_specialize_report`, `rspv_inspect`).
//!
//! Objects keep their keys in the order written here. Predicates are listed
//! in SpecId order. A target is named as given (`target`), with the
//! canonical target ID (`target_id`), processor and wavefront size it
//! resolved to.

use serde_json::{Map, Value, json};

use crate::arch::ArchTables;
use crate::error::Result;
use crate::inspect::{Described, Inspection, Resolved};
use crate::specialize::Report;
use crate::target::Target;

/// `{"target", "target_id", "processor", "wavefront_size"}` of a target.
pub fn target(t: &Target<'_>) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("target".into(), json!(t.given()));
    m.insert("target_id".into(), json!(t.id()));
    m.insert("processor".into(), json!(t.processor_name()));
    m.insert("wavefront_size".into(), json!(t.wavefront_size()));
    m
}

/// A specialization's report.
///
/// ```
/// use rspv_specialize::{ArchTables, Options, specialize};
/// let input = std::fs::read("tests/golden/dispatch-chain/input.spv").unwrap();
/// let target = ArchTables::embedded().target("tahiti").unwrap();
/// let out = specialize(&input, &target, &Options::default()).unwrap();
/// let v = rspv_specialize::json::report(out.report());
/// assert_eq!(v["target"], "tahiti");
/// assert_eq!(v["processor"], "gfx600");
/// assert_eq!(v["wavefront_size"], 64);
/// ```
pub fn report(r: &Report) -> Value {
    json!({
        "target": r.target,
        "target_id": r.target_id,
        "processor": r.processor,
        "wavefront_size": r.wavefront_size,
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
        "functions_rewritten": r.functions_rewritten.iter().collect::<Vec<_>>(),
        "functions_removed": r.functions_removed.iter().collect::<Vec<_>>(),
    })
}

/// One predicate as `inspect` lists it, with its value for a target when
/// one is given (the value's note, if any, replaces the general one).
pub fn predicate(d: &Described, value: Option<&Resolved>) -> Value {
    let p = &d.predicate;
    let mut obj = json!({
        "spec_id": p.spec_id,
        "name": p.name,
        "kind": p.kind.as_str(),
        "call_sites": p.sites.len(),
        "builtins": d.builtins,
        "note": d.note,
    });
    if let Some(v) = value {
        obj["value"] = json!(v.value);
        obj["note"] = json!(v.note.as_ref().or(d.note.as_ref()));
    }
    obj
}

/// A module's predicate table, and each predicate's value for `target`
/// when one is given. Errors only when a predicate's name cannot be
/// evaluated (see [`Inspection::resolve`]).
///
/// ```
/// use rspv_specialize::{ArchTables, inspect};
/// let tables = ArchTables::embedded();
/// let bytes = std::fs::read("tests/golden/dispatch-chain/input.spv").unwrap();
/// let table = inspect(&bytes).unwrap();
/// let v = rspv_specialize::json::inspection(&table, tables, Some(&tables.target("gfx942").unwrap())).unwrap();
/// assert_eq!(v["has_table"], true);
/// let mai = v["predicates"].as_array().unwrap().iter().find(|p| p["name"] == "has.mai-insts").unwrap();
/// assert_eq!(mai["value"], true);
/// ```
pub fn inspection(
    inspection: &Inspection,
    tables: &ArchTables,
    target: Option<&Target<'_>>,
) -> Result<Value> {
    let described = inspection.describe(tables);
    let values = match target {
        Some(t) => Some(inspection.resolve(t)?),
        None => None,
    };
    let mut m = target.map(self::target).unwrap_or_default();
    m.insert("has_table".into(), json!(inspection.has_table));
    let predicates = described
        .iter()
        .map(|d| {
            let value = values
                .as_ref()
                .and_then(|vs| vs.iter().find(|v| v.spec_id == d.predicate.spec_id));
            predicate(d, value)
        })
        .collect();
    m.insert("predicates".into(), Value::Array(predicates));
    Ok(Value::Object(m))
}
