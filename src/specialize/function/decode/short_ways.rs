//! [`Func::read`]'s short ways for the instructions that are neither
//! passed over nor worth the grammar walker: a plain instruction of a flat
//! layout that reads a watched id, and a tracked instruction (`OpPhi`,
//! `OpSelect`, a logic op) of a flat layout. Each does what the long way,
//! [`Func::step`], would, for less.

use crate::module::Inst;
use crate::operands::{FlatIds, Role, op};

use super::super::super::context::Context;
use super::Func;
use super::read::op_infos;

impl<'m> Func<'m> {
    /// [`Func::read`]'s short way for a plain instruction ([`OpInfo::plain`](super::read::OpInfo::plain))
    /// of a flat layout, words `iw` at word `at` of `block`, whose ids are
    /// all in range and one of them watched: notes it if it reads a
    /// watched id and records its result, as the long way would.
    pub(super) fn watched_plain(
        &mut self,
        at: usize,
        iw: &[u32],
        flat: FlatIds,
        block: usize,
        ctx: &Context<'_>,
        use_pairs: &mut Vec<(u32, u32)>,
    ) {
        let k = self.noted.len() as u32;
        let first = self.id_list.len() as u32;
        let (result, mentions) = self.flat_inst(k, iw, flat, ctx, use_pairs);
        let inst = Inst {
            at,
            opcode: iw[0] as u16,
            len: iw.len(),
        };
        if mentions {
            let ids = (first, self.id_list.len() as u32);
            self.note(inst, result, block, true, ids);
        }
        if result != 0 {
            self.define(result, inst, mentions, block);
        }
    }

    /// [`Func::read`]'s short way for a tracked instruction (`OpPhi`,
    /// `OpSelect`, a logic op) of a flat layout whose ids are all in range:
    /// notes it, its uses of watched ids and its result, as the long way
    /// would. False, doing nothing, for any other layout.
    pub(super) fn tracked_inst(
        &mut self,
        at: usize,
        block: usize,
        bound: u32,
        ctx: &Context<'_>,
        use_pairs: &mut Vec<(u32, u32)>,
    ) -> bool {
        let words = self.words;
        let (opcode, len) = (words[at] as u16, (words[at] >> 16) as usize);
        let flat = match opcode {
            op::Phi => len >= 3 && (len - 3).is_multiple_of(2),
            _ => op_infos().get(opcode as usize).map(|i| i.flat_min as usize) == Some(len),
        };
        if !flat || !words[at + 1..at + len].iter().all(|&x| x != 0 && x < bound) {
            return false;
        }
        let k = self.noted.len() as u32;
        let mut mentions = false;
        for &id in &words[at + 3..at + len] {
            mentions |= self.note_use(id, k, ctx, use_pairs);
        }
        let first = self.id_list.len() as u32;
        if mentions {
            self.id_list.push((1, Role::ResultType));
            self.id_list.push((2, Role::Result));
            self.id_list.extend((3..len).map(|p| (p as u32, Role::Use)));
        }
        let ids = (first, self.id_list.len() as u32);
        let inst = Inst { at, opcode, len };
        let result = words[at + 2];
        self.note(inst, result, block, mentions, ids);
        self.define(result, inst, true, block);
        true
    }
}
