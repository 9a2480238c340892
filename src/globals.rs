//! What the module-level instructions say, gathered in one pass: definitions
//! by id, names, `SpecId` and linkage decorations, entry points, and the
//! boolean and integer types the rewrite needs.

use crate::fastmap::{Map as HashMap, Set as HashSet};

use crate::error::Result;
use crate::module::{
    Inst, Module, check_inst_id, literal_string, literal_string_words, must_be_id,
};
use crate::operands::{for_each_id, op, result_pos};

/// `Decoration::SpecId`.
const DEC_SPEC_ID: u32 = spirv::Decoration::SpecId as u32;
/// `Decoration::LinkageAttributes`.
const DEC_LINKAGE: u32 = spirv::Decoration::LinkageAttributes as u32;
/// `LinkageType::Export`.
const LINK_EXPORT: u32 = spirv::LinkageType::Export as u32;

/// Index of the module-level instructions.
#[derive(Debug, Default)]
pub struct Globals {
    /// Module-level definitions by result id.
    pub defs: Defs,
    /// `OpName` strings by target id.
    pub names: HashMap<u32, String>,
    /// `OpDecorate %x SpecId N`: `(x, N, the decoration)`.
    pub spec_ids: Vec<(u32, u32, Inst)>,
    /// Ids decorated `LinkageAttributes … Export`.
    pub exported: HashSet<u32>,
    /// `(id, linkage name)` of every `LinkageAttributes` decoration.
    pub linkage_names: Vec<(u32, String)>,
    /// The `OpEntryPoint` instructions.
    pub entry_points: Vec<Inst>,
    /// The first `OpTypeBool`.
    pub bool_type: Option<u32>,
    /// Every `OpConstantTrue` / `OpConstantFalse` of the bool type, with its
    /// value.
    pub bool_consts: HashMap<u32, bool>,
    /// Width in bits of each `OpTypeInt`.
    pub int_width: HashMap<u32, u32>,
}

impl Globals {
    /// Scans the module-level instructions of `m`.
    pub fn scan(m: &Module<'_>) -> Result<Globals> {
        let mut g = Globals::default();
        let mut defs = DefsBuilder::default();
        let w = m.words;
        let bound = m.bound();
        for inst in m.globals() {
            let words = m.inst_words(inst);
            if g.scan_common(words, bound, inst, &mut defs) {
                continue;
            }
            // Every known instruction must hold the operands its grammar
            // requires, each id below the bound: later stages index them
            // without further checks.
            let mut bad = None;
            for_each_id(words, inst.byte_offset(), &|_| 1, &mut |pos, role| {
                let id = words[pos];
                if bad.is_none() && (id == 0 || id >= bound) && must_be_id(inst.opcode, pos, role) {
                    bad = Some(pos);
                }
            })?;
            if let Some(pos) = bad {
                check_inst_id(w, inst, pos)?;
            }
            if let Some(pos) = result_pos(inst.opcode)
                && pos < words.len()
            {
                let id = words[pos];
                check_inst_id(w, inst, pos)?;
                defs.push(id, inst);
            }
            match inst.opcode {
                op::Name if inst.len >= 3 => {
                    let (s, _) = literal_string(w, inst.at + 2, inst.end())?;
                    g.names.insert(words[1], s);
                }
                op::Decorate if inst.len >= 3 => {
                    let target = m.id_at(inst.at + 1)?;
                    match words[2] {
                        DEC_SPEC_ID if inst.len >= 4 => g.spec_ids.push((target, words[3], inst)),
                        DEC_LINKAGE if inst.len >= 5 => {
                            let (s, n) = literal_string(w, inst.at + 3, inst.end())?;
                            if let Some(&ty) = words.get(3 + n) {
                                if ty == LINK_EXPORT {
                                    g.exported.insert(target);
                                }
                                g.linkage_names.push((target, s));
                            }
                        }
                        _ => {}
                    }
                }
                op::EntryPoint if inst.len >= 4 => {
                    m.id_at(inst.at + 2)?;
                    literal_string(w, inst.at + 3, inst.end())?;
                    g.entry_points.push(inst);
                }
                op::TypeBool if inst.len >= 2 => {
                    g.bool_type.get_or_insert(words[1]);
                }
                op::TypeInt if inst.len >= 3 => {
                    g.int_width.insert(words[1], words[2]);
                }
                op::ConstantTrue | op::ConstantFalse
                    if inst.len >= 3 && Some(words[1]) == g.bool_type =>
                {
                    g.bool_consts
                        .insert(words[2], inst.opcode == op::ConstantTrue);
                }
                _ => {}
            }
        }
        g.defs = defs.finish();
        // (The lists are kept for the whole run: no spare capacity.)
        g.spec_ids.shrink_to_fit();
        g.entry_points.shrink_to_fit();
        Ok(g)
    }

    /// The generic scan's work on the most frequent well-formed module-level
    /// instructions (entry points, `SpecId` decorations, boolean constants),
    /// without walking the grammar: true when `words` (`inst`'s) is one of
    /// them, with every id in range, and has been recorded. Anything else,
    /// and every error, is left to the generic scan, which then says
    /// exactly what is wrong.
    #[inline]
    fn scan_common(
        &mut self,
        words: &[u32],
        bound: u32,
        inst: Inst,
        defs: &mut DefsBuilder,
    ) -> bool {
        let id_ok = |x: u32| x != 0 && x < bound;
        match inst.opcode {
            op::EntryPoint if words.len() >= 4 && id_ok(words[2]) => {
                // Model, function, name, then interface ids.
                let Some(n) = literal_string_words(words, 3, words.len()) else {
                    return false;
                };
                if !words[3 + n..].iter().all(|&x| id_ok(x)) {
                    return false;
                }
                self.entry_points.push(inst);
                true
            }
            op::Decorate if words.len() == 4 && words[2] == DEC_SPEC_ID && id_ok(words[1]) => {
                self.spec_ids.push((words[1], words[3], inst));
                true
            }
            op::SpecConstantTrue | op::SpecConstantFalse | op::ConstantTrue | op::ConstantFalse
                if words.len() == 3 && id_ok(words[1]) && id_ok(words[2]) =>
            {
                defs.push(words[2], inst);
                if matches!(inst.opcode, op::ConstantTrue | op::ConstantFalse)
                    && Some(words[1]) == self.bool_type
                {
                    self.bool_consts
                        .insert(words[2], inst.opcode == op::ConstantTrue);
                }
                true
            }
            _ => false,
        }
    }

    /// The result type of a module-level value, if it has one.
    pub fn type_of(&self, m: &Module<'_>, id: u32) -> Option<u32> {
        let inst = self.defs.get(id)?;
        (result_pos(inst.opcode) == Some(2)).then(|| m.words[inst.at + 1])
    }

    /// `%id` with its `OpName` if it has one: `%12 (main)`.
    pub fn display_id(&self, id: u32) -> String {
        match self.names.get(&id) {
            Some(n) => format!("%{id} ({n})"),
            None => format!("%{id}"),
        }
    }

    /// A function as people name it: its `OpName`, else its linkage name,
    /// else `%id`.
    pub fn function_name(&self, id: u32) -> String {
        if let Some(n) = self.names.get(&id) {
            return n.clone();
        }
        if let Some((_, n)) = self.linkage_names.iter().find(|(t, _)| *t == id) {
            return n.clone();
        }
        // (Digits by hand: `format!` costs some thousand instructions, and
        // most functions of a large module may be named this way.)
        let mut digits = [0u8; 10];
        let (mut rest, mut k) = (id, digits.len());
        loop {
            k -= 1;
            digits[k] = b'0' + (rest % 10) as u8;
            rest /= 10;
            if rest == 0 {
                break;
            }
        }
        let mut name = String::with_capacity(1 + digits.len() - k);
        name.push('%');
        name.extend(digits[k..].iter().map(|&d| d as char));
        name
    }
}

/// A module-level instruction as [`Defs`] keeps it: its first word's
/// index and the first word itself (8 bytes, where an [`Inst`] takes 24).
#[derive(Debug, Clone, Copy)]
struct PackedInst {
    /// Index of the instruction's first word in the module.
    at: u32,
    /// The first word: word count and opcode.
    header: u32,
}

impl PackedInst {
    /// Packs `inst` (the parse checked that every word index fits in 32
    /// bits).
    fn new(inst: Inst) -> PackedInst {
        PackedInst {
            at: inst.at as u32,
            header: crate::module::header_word(inst.len, inst.opcode),
        }
    }

    /// The instruction.
    fn unpack(self) -> Inst {
        Inst {
            at: self.at as usize,
            opcode: (self.header & 0xffff) as u16,
            len: (self.header >> 16) as usize,
        }
    }
}

/// Module-level definitions by result id (an id defined twice maps to its
/// last definition). Compact: 8 bytes per definition, and an index of 4
/// bytes per id up to the largest defined one when that is at most four
/// times the definitions, 65,536 at least (else the ids sorted, searched
/// by halving: at most 24 bytes per definition either way, where a hash
/// map of `Inst` took 33).
#[derive(Debug, Default)]
pub struct Defs {
    /// The definitions, in module order (dense) or by id (sparse).
    insts: Vec<PackedInst>,
    /// Dense: index + 1 into `insts` of every id up to the largest (0: none).
    dense: Vec<u32>,
    /// Sparse: the id of each of `insts`, ascending.
    sorted_ids: Vec<u32>,
}

impl Defs {
    /// The instruction that defines `id` at module scope.
    #[inline]
    pub fn get(&self, id: u32) -> Option<Inst> {
        let k = match self.dense.get(id as usize) {
            Some(&k) => (k as usize).checked_sub(1)?,
            None if self.sorted_ids.is_empty() => return None,
            None => self.sorted_ids.binary_search(&id).ok()?,
        };
        Some(self.insts[k].unpack())
    }

    /// True when `id` is defined at module scope.
    #[inline]
    pub fn contains(&self, id: u32) -> bool {
        self.get(id).is_some()
    }
}

/// [`Defs`] under construction: the definitions in module order.
#[derive(Default)]
struct DefsBuilder {
    /// `(id, its definition)`, in module order.
    defs: Vec<(u32, PackedInst)>,
    /// The largest id.
    max: u32,
}

impl DefsBuilder {
    /// Records that `inst` defines `id`.
    #[inline]
    fn push(&mut self, id: u32, inst: Inst) {
        self.max = self.max.max(id);
        self.defs.push((id, PackedInst::new(inst)));
    }

    /// The finished index.
    fn finish(mut self) -> Defs {
        let n = self.defs.len();
        if (self.max as usize) <= n.saturating_mul(4).max(1 << 16) {
            let mut dense = vec![0u32; self.max as usize + 1];
            for (k, &(id, _)) in self.defs.iter().enumerate() {
                dense[id as usize] = k as u32 + 1;
            }
            Defs {
                insts: self.defs.into_iter().map(|(_, i)| i).collect(),
                dense,
                sorted_ids: Vec::new(),
            }
        } else {
            // A stable sort keeps an id's definitions in module order; the
            // last one is kept.
            self.defs.sort_by_key(|&(id, _)| id);
            self.defs.dedup_by(|later, kept| {
                let same = later.0 == kept.0;
                if same {
                    *kept = *later;
                }
                same
            });
            Defs {
                sorted_ids: self.defs.iter().map(|&(id, _)| id).collect(),
                insts: self.defs.into_iter().map(|(_, i)| i).collect(),
                dense: Vec::new(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unnamed_functions_are_named_by_id() {
        let g = Globals::default();
        for id in [0, 7, 10, 99, 1000, 4_294_967_295] {
            assert_eq!(g.function_name(id), format!("%{id}"));
        }
    }

    /// The dense index and the sorted ids (a definition far beyond the
    /// others) find the same instructions, an id defined twice its last
    /// definition.
    #[test]
    fn dense_and_sparse_defs_agree() {
        let inst = |at: usize, opcode: u16, len: usize| Inst { at, opcode, len };
        let defs = [
            (7, inst(10, 1, 3)),
            (3, inst(13, 2, 4)),
            (7, inst(17, 3, 2)),
            (100, inst(19, 4, 65535)),
        ];
        let build = |far: Option<u32>| {
            let mut b = DefsBuilder::default();
            for &(id, i) in &defs {
                b.push(id, i);
            }
            if let Some(id) = far {
                b.push(id, inst(30, 5, 1));
            }
            b.finish()
        };
        let (dense, sparse) = (build(None), build(Some(u32::MAX - 1)));
        assert!(!dense.dense.is_empty() && sparse.dense.is_empty());
        for (id, want) in [
            (7, Some(defs[2].1)),
            (3, Some(defs[1].1)),
            (100, Some(defs[3].1)),
            (0, None),
            (8, None),
            (101, None),
            (u32::MAX, None),
        ] {
            assert_eq!(dense.get(id), want, "{id}");
            assert_eq!(sparse.get(id), want, "{id}");
            assert_eq!(dense.contains(id), want.is_some(), "{id}");
        }
        assert_eq!(sparse.get(u32::MAX - 1), Some(inst(30, 5, 1)));
        assert_eq!(dense.get(u32::MAX - 1), None);
    }
}
