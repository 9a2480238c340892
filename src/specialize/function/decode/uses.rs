//! The ids an instruction reads: which are watched (a tracked result, or
//! an id the module scope may replace), the decode of an instruction that
//! reads one (its id positions, kept for the emitter), and the users of
//! every tracked result, grouped once the read is over.

use crate::error::Result;
use crate::module::{Inst, Module, check_inst_id, must_be_id};
use crate::operands::{FlatIds, Role, Shape, flat_ids, for_each_id, result_pos};

use super::super::super::context::Context;
use super::{Def, Func};

impl<'m> Func<'m> {
    /// True when the users of `id` may be asked for: a tracked result.
    #[inline]
    pub(super) fn followed(&self, id: u32) -> bool {
        self.tracked.contains_key(&id)
    }

    /// The result (0: none) of an instruction, words `iw`, that needs no
    /// decoding: a flat layout ([`flat_ids`]) whose every word after the
    /// header is an id in range (so every id is checked) and none an id the
    /// emitter must look at (so nothing of it is recorded but its result).
    /// `None` when it must be decoded.
    #[inline]
    pub(super) fn passed_over(
        &self,
        iw: &[u32],
        shapes: &[Shape],
        bound: u32,
        ctx: &Context<'_>,
    ) -> Option<u32> {
        let shape = shapes.get((iw[0] & 0xffff) as usize)?;
        if shape.flat_min == 0 || iw.len() < shape.flat_min as usize {
            return None;
        }
        let watched = |x: u32| self.followed(x) || ctx.may_replace(x);
        if iw[1..].iter().any(|&x| x == 0 || x >= bound || watched(x)) {
            return None;
        }
        if shape.exact && flat_ids(iw).is_none() {
            return None;
        }
        Some(if shape.result > 0 {
            iw[shape.result as usize]
        } else {
            0
        })
    }

    /// Records the use of `id` by the instruction to be noted as `k`;
    /// true when the emitter must look at it (a followed id, or one the
    /// module scope may replace).
    #[inline(always)]
    pub(super) fn note_use(
        &mut self,
        id: u32,
        k: u32,
        ctx: &Context<'_>,
        use_pairs: &mut Vec<(u32, u32)>,
    ) -> bool {
        if let Some(&t) = self.tracked.get(&id) {
            use_pairs.push((t as u32, k));
            true
        } else if ctx.may_replace(id) {
            if ctx.is_chain(id) {
                self.chain_users.push(k);
            }
            true
        } else {
            false
        }
    }

    /// Decodes an instruction (words `iw`, to be noted as `k` if it
    /// mentions an id the emitter must look at) of a flat layout whose ids
    /// are all in range: its result and whether it mentions such an id.
    /// Only then are its id positions kept.
    pub(super) fn flat_inst(
        &mut self,
        k: u32,
        iw: &[u32],
        flat: FlatIds,
        ctx: &Context<'_>,
        use_pairs: &mut Vec<(u32, u32)>,
    ) -> (u32, bool) {
        let result = if flat.result > 0 { iw[flat.result] } else { 0 };
        let mut mentions = false;
        let reads = iw[flat.first_use..flat.checked_end]
            .iter()
            .chain(&iw[flat.maybe_from..]);
        for &id in reads {
            mentions |= self.note_use(id, k, ctx, use_pairs);
        }
        if mentions {
            let list = &mut self.id_list;
            if flat.result == 2 {
                list.push((1, Role::ResultType));
            }
            if flat.result > 0 {
                list.push((flat.result as u32, Role::Result));
            }
            list.extend((flat.first_use..flat.checked_end).map(|p| (p as u32, Role::Use)));
            list.extend((flat.maybe_from..iw.len()).map(|p| (p as u32, Role::MaybeId)));
        }
        (result, mentions)
    }

    /// Decodes `inst` (to be noted as `k` if it mentions an id the emitter
    /// must look at) through the grammar walker, checking each id against
    /// the bound: its result and whether it mentions such an id. Its id
    /// positions stay in the list (the caller drops them when it does not
    /// note the instruction).
    pub(super) fn walked_inst(
        &mut self,
        m: &Module<'m>,
        inst: Inst,
        k: u32,
        ctx: &Context<'_>,
        use_pairs: &mut Vec<(u32, u32)>,
    ) -> Result<(u32, bool)> {
        let words = self.words;
        let iw = &words[inst.at..inst.end()];
        let first_id = self.id_list.len();
        let mut list = std::mem::take(&mut self.id_list);
        // OpSwitch literals are as wide as the selector's type: read it
        // off the selector's (earlier, dominating) definition.
        let width = |sel: u32| {
            let local = self.def_of(sel).and_then(|d| {
                let di = match d {
                    Def::Noted(n) => self.noted[n].inst,
                    Def::Plain(at) => Inst {
                        at,
                        opcode: words[at] as u16,
                        len: (words[at] >> 16) as usize,
                    },
                };
                (result_pos(di.opcode) == Some(2)).then(|| words[di.at + 1])
            });
            let ty = local.or_else(|| ctx.globals.type_of(m, sel));
            match ty.and_then(|t| ctx.globals.int_width.get(&t)) {
                Some(w) if *w > 32 => 2,
                _ => 1,
            }
        };
        let walked = for_each_id(iw, inst.byte_offset(), &width, &mut |pos, role| {
            list.push((pos as u32, role))
        });
        self.id_list = list;
        walked?;
        let (mut result, mut mentions) = (0, false);
        for j in first_id..self.id_list.len() {
            let (pos, role) = self.id_list[j];
            let id = iw[pos as usize];
            if (id == 0 || id >= m.bound()) && must_be_id(inst.opcode, pos as usize, role) {
                check_inst_id(words, inst, pos as usize)?;
            }
            match role {
                Role::Result => result = id,
                Role::ResultType => {}
                Role::Use | Role::MaybeId => mentions |= self.note_use(id, k, ctx, use_pairs),
            }
        }
        Ok((result, mentions))
    }

    /// Lists the users of every tracked result from `use_pairs`, grouped
    /// by result (a counting sort: `tracked` results).
    pub(super) fn link_users(&mut self, tracked: usize, use_pairs: &[(u32, u32)]) {
        let (start, list) = (&mut self.use_start, &mut self.use_list);
        start.resize(tracked + 2, 0);
        for &(t, _) in use_pairs {
            start[t as usize + 2] += 1;
        }
        for t in 2..start.len() {
            start[t] += start[t - 1];
        }
        // `start[t + 1]` is now where `t`'s users begin: fill from there,
        // leaving `start[t + 1]` where they end.
        list.resize(use_pairs.len(), 0);
        for &(t, k) in use_pairs {
            let slot = &mut start[t as usize + 1];
            list[*slot as usize] = k;
            *slot += 1;
        }
        start.pop();
    }
}
