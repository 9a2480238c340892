//! The feature-predicate table `llvm.amdgcn.feature.predicate.ids`.
//!
//! The table is a module-scope `OpVariable` named by `OpName` (or, failing
//! that, by its `LinkageAttributes` name) whose initializer is an
//! `OpConstantComposite` of an array of 8-bit integers. Its bytes are entries
//! `"<name> <SpecId>\0"`; each element is an `OpConstant` or, for a zero byte,
//! an `OpConstantNull` (llc-22 writes zeros that way). Every
//! `OpSpecConstantTrue/False` decorated with a SpecId of the table is a call
//! site of that predicate; several call sites may share a SpecId.
//!
//! A module without the table has no predicates; that is not an error.

use crate::error::{Result, table as table_err};
use crate::globals::Globals;
use crate::idbits::IdBits;
use crate::idset::IdIndex;
use crate::module::{Inst, Module};
use crate::operands::op;
use crate::target::PredicateKind;

/// The name of the table variable.
pub const TABLE_NAME: &str = "llvm.amdgcn.feature.predicate.ids";

/// One predicate: a name in the table with its SpecId and call sites.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Predicate {
    /// The SpecId the table gives it.
    pub spec_id: u32,
    /// The name as written in the table, e.g. `has.mai-insts`.
    pub name: String,
    /// `is.` or `has.`.
    pub kind: PredicateKind,
    /// Result ids of the spec constants carrying this SpecId.
    pub sites: Vec<u32>,
}

/// The decoded table and where it lives in the module.
#[derive(Debug, Clone)]
pub struct PredicateTable {
    /// The table variable's id.
    pub variable: u32,
    /// The variable's `OpVariable` instruction.
    pub variable_inst: Inst,
    /// The entries, in table order.
    pub predicates: Vec<Predicate>,
}

impl PredicateTable {
    /// The predicate with this SpecId.
    pub fn by_spec_id(&self, spec_id: u32) -> Option<&Predicate> {
        self.predicates.iter().find(|p| p.spec_id == spec_id)
    }
}

/// Finds and decodes the table. `Ok(None)` when the module has none.
pub fn read(m: &Module<'_>, g: &Globals) -> Result<Option<PredicateTable>> {
    // The name may be on the variable's OpName, its LinkageAttributes, or
    // both; two different ids carrying it is an error.
    let mut named: Vec<u32> = g.ids_named(TABLE_NAME).collect();
    named.sort_unstable();
    named.dedup();
    let variable = match named.as_slice() {
        [] => return Ok(None),
        [one] => *one,
        [a, b, ..] => {
            return Err(table_err(
                0,
                format!("two ids are named {TABLE_NAME}: %{a} and %{b}"),
            ));
        }
    };
    let var = match g.defs.get(variable) {
        Some(i) if i.opcode == op::Variable => i,
        Some(i) => {
            return Err(table_err(
                i.byte_offset(),
                format!(
                    "%{variable} is named {TABLE_NAME} but is a {}, not an OpVariable",
                    crate::operands::opname(i.opcode)
                ),
            ));
        }
        None => {
            return Err(table_err(
                0,
                format!("%{variable} is named {TABLE_NAME} but is not defined at module scope"),
            ));
        }
    };
    if var.len < 5 {
        return Err(table_err(
            var.byte_offset(),
            format!("table variable %{variable} has no initializer"),
        ));
    }
    let init_id = m.id_at(var.at + 4)?;
    let bytes = table_bytes(m, g, init_id)?;
    let predicates = parse_entries(&bytes, var.byte_offset())?;
    let mut table = PredicateTable {
        variable,
        variable_inst: var,
        predicates,
    };
    attach_sites(m, g, &mut table)?;
    Ok(Some(table))
}

/// Reads the initializer's bytes: an `OpConstantComposite` (or an all-zero
/// `OpConstantNull`) of an array of 8-bit integers.
fn table_bytes(m: &Module<'_>, g: &Globals, init_id: u32) -> Result<Vec<u8>> {
    let w = m.words;
    let init = g.defs.get(init_id).ok_or_else(|| {
        table_err(
            0,
            format!("initializer %{init_id} is not defined at module scope"),
        )
    })?;
    let at = init.byte_offset();
    let array_ty = w[init.at + 1];
    let elem_ty = match g.defs.get(array_ty) {
        Some(t) if t.opcode == op::TypeArray && t.len >= 4 => w[t.at + 2],
        _ => {
            return Err(table_err(
                at,
                format!("initializer %{init_id} is not an array (type %{array_ty})"),
            ));
        }
    };
    if g.int_width.get(&elem_ty) != Some(&8) {
        return Err(table_err(
            at,
            format!("initializer %{init_id} is not an array of 8-bit integers"),
        ));
    }
    match init.opcode {
        op::ConstantComposite => {}
        op::ConstantNull => {
            return Err(table_err(
                at,
                "the table is all zero bytes (OpConstantNull): no entries",
            ));
        }
        other => {
            return Err(table_err(
                at,
                format!(
                    "initializer %{init_id} is a {}, not an OpConstantComposite",
                    crate::operands::opname(other)
                ),
            ));
        }
    }
    let mut bytes = Vec::with_capacity(init.len.saturating_sub(3));
    for (k, &elem) in w[init.at + 3..init.end()].iter().enumerate() {
        let bad = |what: &str| {
            table_err(
                at,
                format!(
                    "element {k} (%{elem}) {what}: every element must be an 8-bit OpConstant or OpConstantNull"
                ),
            )
        };
        let Some(e) = g.defs.get(elem) else {
            return Err(bad("is not defined at module scope"));
        };
        if w[e.at + 1] != elem_ty {
            return Err(bad("has another type"));
        }
        match e.opcode {
            op::Constant if e.len == 4 && w[e.at + 3] <= 0xff => bytes.push(w[e.at + 3] as u8),
            op::Constant => return Err(bad("is not an 8-bit value")),
            op::ConstantNull => bytes.push(0),
            _ => return Err(bad("is not a constant")),
        }
    }
    Ok(bytes)
}

/// Splits the bytes into `"<name> <SpecId>"` entries and checks them.
fn parse_entries(bytes: &[u8], at: usize) -> Result<Vec<Predicate>> {
    if bytes.last() != Some(&0) {
        return Err(table_err(
            at,
            "the table's last byte is not NUL (the last entry is unterminated)",
        ));
    }
    // (Every entry decoded first: the maps below borrow the names.)
    let texts: Vec<std::borrow::Cow<'_, str>> = bytes[..bytes.len() - 1]
        .split(|&b| b == 0)
        .map(String::from_utf8_lossy)
        .collect();
    let mut out: Vec<Predicate> = Vec::with_capacity(texts.len());
    let mut by_name: crate::fastmap::Map<&str, u32> =
        crate::fastmap::Map::with_capacity_and_hasher(texts.len(), Default::default());
    let mut by_id: crate::fastmap::Map<u32, &str> =
        crate::fastmap::Map::with_capacity_and_hasher(texts.len(), Default::default());
    for (k, text) in texts.iter().enumerate() {
        let text: &str = text;
        let bad = |what: String| table_err(at, format!("entry {k} `{text}`: {what}"));
        let Some((name, id)) = text.rsplit_once(' ') else {
            return Err(bad("has no space before its SpecId".to_string()));
        };
        if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad(format!("SpecId `{id}` is not a decimal integer")));
        }
        let spec_id: u32 = id
            .parse()
            .map_err(|_| bad(format!("SpecId `{id}` is out of range (max {})", u32::MAX)))?;
        let Some((kind, _)) = PredicateKind::split(name) else {
            return Err(bad(
                "the name starts with neither `is.` nor `has.`".to_string()
            ));
        };
        match (by_name.get(name), by_id.get(&spec_id)) {
            (Some(&other), _) if other != spec_id => {
                return Err(bad(format!("`{name}` already has SpecId {other}")));
            }
            (_, Some(&other)) if other != name => {
                return Err(bad(format!("SpecId {spec_id} already names `{other}`")));
            }
            (Some(_), _) => continue, // an exact repeat says nothing new
            _ => {}
        }
        by_name.insert(name, spec_id);
        by_id.insert(spec_id, name);
        out.push(Predicate {
            spec_id,
            name: name.to_string(),
            kind,
            sites: Vec::new(),
        });
    }
    Ok(out)
}

/// Attaches every spec constant decorated with a table SpecId.
fn attach_sites(m: &Module<'_>, g: &Globals, table: &mut PredicateTable) -> Result<()> {
    let w = m.words;
    // (Each SpecId's predicate: SpecIds are small numbers, so the index is
    // a table, one look-up a decoration.)
    let index = IdIndex::new(table.predicates.iter().map(|p| p.spec_id), w.len());
    // (Room for each predicate's share of the decorations: one
    // allocation each when the sites spread evenly, as a call site per
    // kernel does; no more room in all than there are decorations.)
    let room = g.spec_ids.len().div_ceil(table.predicates.len().max(1));
    for p in &mut table.predicates {
        p.sites.reserve_exact(room);
    }
    // Each site's SpecId, to catch a site given two: the sites seen as bits
    // while no site repeats (the common case), then, from the first repeat
    // on, a map from site to SpecId rebuilt from the decorations before it.
    let mut seen = IdBits::new(m.bound(), w.len());
    let mut site_spec: Option<crate::fastmap::Map<u32, u32>> = None;
    for (j, dec) in g.spec_ids.iter().enumerate() {
        let (target, spec_id) = (dec.target, dec.spec_id);
        let Some(i) = index.get(spec_id) else {
            continue;
        };
        let name = &table.predicates[i].name;
        let def = g.defs.get(target);
        match def {
            Some(d)
                if (d.opcode == op::SpecConstantTrue || d.opcode == op::SpecConstantFalse)
                    && Some(w[d.at + 1]) == g.bool_type =>
            {
                if site_spec.is_none() && !seen.insert(target) {
                    // Every earlier decoration of a table SpecId made a
                    // site (or the run would have stopped there).
                    let earlier = g.spec_ids[..j]
                        .iter()
                        .filter(|d| index.get(d.spec_id).is_some())
                        .map(|d| (d.target, d.spec_id));
                    site_spec = Some(earlier.collect());
                }
                if let Some(site_spec) = &mut site_spec
                    && let Some(other) = site_spec.insert(target, spec_id)
                    && other != spec_id
                {
                    return Err(table_err(
                        dec.byte_offset(),
                        format!(
                            "spec constant %{target} has two SpecIds of the table: {other} and {spec_id}"
                        ),
                    ));
                }
                table.predicates[i].sites.push(target);
            }
            _ => {
                return Err(table_err(
                    dec.byte_offset(),
                    format!(
                        "SpecId {spec_id} ({name}) decorates %{target}, which is not a boolean \
                         OpSpecConstantTrue/False"
                    ),
                ));
            }
        }
    }
    for p in &mut table.predicates {
        p.sites.sort_unstable();
        p.sites.dedup();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(s: &[u8]) -> Result<Vec<(String, u32)>> {
        parse_entries(s, 0).map(|v| v.into_iter().map(|p| (p.name, p.spec_id)).collect())
    }

    #[test]
    fn decodes_entries_in_table_order() {
        let got = entries(b"is.gfx950 1\0has.mai-insts 0\0has. 2\0").unwrap();
        assert_eq!(
            got,
            vec![
                ("is.gfx950".to_string(), 1),
                ("has.mai-insts".to_string(), 0),
                ("has.".to_string(), 2)
            ]
        );
    }

    #[test]
    fn malformed_entries() {
        let err = |b: &[u8]| entries(b).unwrap_err().to_string();
        assert!(err(b"is.gfx950 1").contains("last byte is not NUL"));
        assert!(err(b"is.gfx950 x1\0").contains("not a decimal integer"));
        assert!(err(b"is.gfx950 -1\0").contains("not a decimal integer"));
        assert!(err(b"is.gfx950 99999999999\0").contains("out of range"));
        assert!(err(b"is.gfx950\0").contains("no space"));
        assert!(err(b"gfx950 0\0").contains("neither `is.` nor `has.`"));
        assert!(err(b"is.a 0\0is.a 1\0").contains("already has SpecId 0"));
        assert!(err(b"is.a 0\0is.b 0\0").contains("SpecId 0 already names `is.a`"));
        assert_eq!(entries(b"is.a 0\0is.a 0\0").unwrap().len(), 1);
    }
}
