//! Module-level definitions by result id, in a compact index.

use crate::module::Inst;

use super::sort_keeping_last;

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
pub(super) struct DefsBuilder {
    /// `(id, its definition)`, in module order.
    defs: Vec<(u32, PackedInst)>,
    /// The largest id.
    max: u32,
}

impl DefsBuilder {
    /// An empty builder with room for exactly `definitions` definitions.
    pub(super) fn with_room(definitions: usize) -> DefsBuilder {
        DefsBuilder {
            defs: Vec::with_capacity(definitions),
            max: 0,
        }
    }

    /// Records that `inst` defines `id`.
    #[inline]
    pub(super) fn push(&mut self, id: u32, inst: Inst) {
        self.max = self.max.max(id);
        self.defs.push((id, PackedInst::new(inst)));
    }

    /// The finished index.
    pub(super) fn finish(mut self) -> Defs {
        let n = self.defs.len();
        if (self.max as usize) <= n.saturating_mul(4).max(1 << 16) {
            let mut dense = crate::zeroed::vec(self.max as usize + 1);
            for (k, &(id, _)) in self.defs.iter().enumerate() {
                dense[id as usize] = k as u32 + 1;
            }
            Defs {
                insts: self.defs.into_iter().map(|(_, i)| i).collect(),
                dense,
                sorted_ids: Vec::new(),
            }
        } else {
            sort_keeping_last(&mut self.defs);
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
