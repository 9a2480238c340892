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
    pub defs: HashMap<u32, Inst>,
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
        let mut g = Globals {
            defs: HashMap::with_capacity_and_hasher(m.globals.len(), Default::default()),
            ..Globals::default()
        };
        let w = m.words;
        let bound = m.bound();
        for &inst in &m.globals {
            let words = m.inst_words(inst);
            if g.scan_common(words, bound, inst) {
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
                g.defs.insert(id, inst);
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
        Ok(g)
    }

    /// The generic scan's work on the most frequent well-formed module-level
    /// instructions (entry points, `SpecId` decorations, boolean constants),
    /// without walking the grammar: true when `words` (`inst`'s) is one of
    /// them, with every id in range, and has been recorded. Anything else,
    /// and every error, is left to the generic scan, which then says
    /// exactly what is wrong.
    #[inline]
    fn scan_common(&mut self, words: &[u32], bound: u32, inst: Inst) -> bool {
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
                self.defs.insert(words[2], inst);
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
        let inst = self.defs.get(&id)?;
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

#[cfg(test)]
mod tests {
    use super::Globals;

    #[test]
    fn unnamed_functions_are_named_by_id() {
        let g = Globals::default();
        for id in [0, 7, 10, 99, 1000, 4_294_967_295] {
            assert_eq!(g.function_name(id), format!("%{id}"));
        }
    }
}
