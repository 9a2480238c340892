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
    let Some((&0, body)) = bytes.split_last() else {
        return Err(table_err(
            at,
            "the table's last byte is not NUL (the last entry is unterminated)",
        ));
    };
    let mut kept = Kept::with_capacity(body.iter().filter(|&&b| b == 0).count() + 1);
    for (k, entry) in body.split(|&b| b == 0).enumerate() {
        // (Valid UTF-8, as every real table is, is read in place.)
        let text = match std::str::from_utf8(entry) {
            Ok(text) => std::borrow::Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(entry),
        };
        let text: &str = &text;
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
        match (kept.spec_id_of(name), kept.name_of(spec_id)) {
            (Some(other), _) if other != spec_id => {
                return Err(bad(format!("`{name}` already has SpecId {other}")));
            }
            (_, Some(other)) if other != name => {
                return Err(bad(format!("SpecId {spec_id} already names `{other}`")));
            }
            (Some(_), _) => continue, // an exact repeat says nothing new
            _ => {}
        }
        kept.push(Predicate {
            spec_id,
            name: name.to_string(),
            kind,
            sites: Vec::new(),
        });
    }
    Ok(kept.list)
}

/// The entries of a table kept so far (no two with one name or one
/// SpecId), found by name and by SpecId: by a look through the list while
/// it is short, as real tables are, by maps once it is longer.
struct Kept {
    list: Vec<Predicate>,
    /// Each name's SpecId and each SpecId's place in `list`, once `list`
    /// holds [`Kept::SHORT`] entries (empty before).
    by_name: crate::fastmap::Map<String, u32>,
    by_id: crate::fastmap::Map<u32, usize>,
}

impl Kept {
    /// While the list holds fewer entries than this, it is looked
    /// through; from this many on, the maps answer.
    const SHORT: usize = 16;

    /// No entries, room for `entries`.
    fn with_capacity(entries: usize) -> Kept {
        Kept {
            list: Vec::with_capacity(entries),
            by_name: Default::default(),
            by_id: Default::default(),
        }
    }

    /// The SpecId of the entry named `name`.
    fn spec_id_of(&self, name: &str) -> Option<u32> {
        if self.list.len() < Kept::SHORT {
            self.list.iter().find(|p| p.name == name).map(|p| p.spec_id)
        } else {
            self.by_name.get(name).copied()
        }
    }

    /// The name of the entry with SpecId `spec_id`.
    fn name_of(&self, spec_id: u32) -> Option<&str> {
        let found = if self.list.len() < Kept::SHORT {
            self.list.iter().find(|p| p.spec_id == spec_id)
        } else {
            self.by_id.get(&spec_id).map(|&k| &self.list[k])
        };
        found.map(|p| p.name.as_str())
    }

    /// Keeps `p`, whose name and SpecId no entry has: in the maps too
    /// once the list is long (every entry when it gets there).
    fn push(&mut self, p: Predicate) {
        self.list.push(p);
        let n = self.list.len();
        if n < Kept::SHORT {
            return;
        }
        let from = if n == Kept::SHORT { 0 } else { n - 1 };
        for (k, p) in self.list.iter().enumerate().skip(from) {
            self.by_name.insert(p.name.clone(), p.spec_id);
            self.by_id.insert(p.spec_id, k);
        }
    }
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

    /// Long tables find repeats through maps rather than the list: the
    /// same answers on either side of the switch.
    #[test]
    fn repeats_in_long_tables() {
        for n in [
            Kept::SHORT - 1,
            Kept::SHORT,
            Kept::SHORT + 1,
            3 * Kept::SHORT,
        ] {
            let mut table: Vec<u8> = (0..n)
                .flat_map(|k| format!("has.f{k} {}\0", 100 + k).into_bytes())
                .collect();
            let len = table.len();
            for k in [0, n / 2, n - 1] {
                table.extend(format!("has.f{k} {}\0", 100 + k).bytes());
                let got = entries(&table).unwrap();
                assert_eq!(got.len(), n, "{n} entries, a repeat of {k}");
                assert_eq!(got[k], (format!("has.f{k}"), 100 + k as u32));
                let mut name = table[..len].to_vec();
                name.extend(format!("has.f{k} 7\0").bytes());
                let message = format!("already has SpecId {}", 100 + k);
                assert!(entries(&name).unwrap_err().to_string().contains(&message));
                let mut id = table[..len].to_vec();
                id.extend(format!("has.g {}\0", 100 + k).bytes());
                let message = format!("SpecId {} already names `has.f{k}`", 100 + k);
                assert!(entries(&id).unwrap_err().to_string().contains(&message));
            }
        }
    }
}
