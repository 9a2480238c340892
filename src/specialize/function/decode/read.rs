//! The one pass over the function's words ([`Func::read`]): checks every
//! id operand against the module's bound, opens and closes the blocks,
//! notes what the rewrite looks at, lists the calls and the uses of
//! tracked results. Most instructions take a short way (plain
//! instructions of a flat layout inline here, the others in
//! [`short_ways`](super::short_ways)); the rest go the long way,
//! [`Func::step`], through the grammar walker where the layout is not
//! flat, which reports the errors it always did.

use crate::error::Result;
use crate::module::{Inst, Module};
use crate::operands::{FlatIds, Role, flat_ids, op, shapes};

use super::super::super::context::Context;
use super::{Func, NO_BLOCK, Noted, PLAIN, is_merge, is_terminator, is_tracked, short, structure};

/// Where [`Func::read`] is: the block it reads and what that block's
/// instructions showed so far.
pub(super) struct ReadState {
    /// The module's id bound: every id read is below it.
    pub(super) bound: u32,
    /// The block being read ([`NO_BLOCK`]: none).
    pub(super) block: usize,
    /// True when the last instruction of the block was a terminator.
    pub(super) last_was_terminator: bool,
    /// Word index of the block's first terminator followed by another of
    /// its instructions.
    pub(super) early: Option<usize>,
    /// Word index of the instruction read last.
    pub(super) prev_at: usize,
    /// The first structure error of a block.
    pub(super) deferred: Option<Deferred>,
}

/// What [`Func::read`] needs of an opcode, in one look-up.
#[derive(Clone, Copy, Default)]
pub(in crate::specialize::function) struct OpInfo {
    /// Word index of the result id (0: none).
    pub(in crate::specialize::function) result: u8,
    /// The fewest words of a flat layout ([`Shape::flat_min`](crate::operands::Shape::flat_min)).
    pub(in crate::specialize::function) flat_min: u8,
    /// True when an instruction of the opcode with a flat layout whose
    /// words are all in-range ids none of them watched needs nothing but
    /// its result recorded (and its callee, for a call): an opcode with a
    /// flat layout, and nothing the rewrite looks at (labels, terminators,
    /// merges, tracked, the function's ends).
    pub(in crate::specialize::function) plain: bool,
    /// True when the words must be looked at to know that the layout is
    /// flat ([`Shape::exact`](crate::operands::Shape::exact)).
    pub(in crate::specialize::function) exact: bool,
    /// True when the lattice tracks the opcode's result ([`is_tracked`]).
    pub(super) tracked: bool,
}

/// [`OpInfo`] of the core opcodes (below [`OP_INFOS`]), indexed by
/// opcode; extension opcodes past them take the long way. Kept short:
/// every process builds it once, and a CLI run on a small module should
/// not pay for thousands of entries it never reads.
pub(in crate::specialize::function) fn op_infos() -> &'static [OpInfo] {
    static TABLE: std::sync::OnceLock<Vec<OpInfo>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        shapes()
            .iter()
            .take(OP_INFOS)
            .enumerate()
            .map(|(opcode, s)| {
                let opcode = opcode as u16;
                let looked_at = opcode == op::Label
                    || opcode == op::Function
                    || opcode == op::FunctionEnd
                    || is_terminator(opcode)
                    || is_merge(opcode)
                    || is_tracked(opcode);
                OpInfo {
                    result: s.result,
                    flat_min: s.flat_min,
                    plain: s.flat_min != 0 && !looked_at,
                    exact: s.exact,
                    tracked: is_tracked(opcode),
                }
            })
            .collect()
    })
}

/// The opcodes [`op_infos`] describes: all of the core grammar's but the
/// few extension-era ones numbered in the thousands.
const OP_INFOS: usize = 512;

/// A structure error found while reading, reported once every id has
/// been checked (ids first, as the checks always ran).
pub(super) enum Deferred {
    /// A terminator before the end of block `label`.
    EarlyTerminator(Inst, u32),
    /// Block `label` (at its `OpLabel`) does not end in a terminator.
    NoTerminator(Inst, u32),
}

impl<'m> Func<'m> {
    /// The one pass over the instructions: checks every id, builds the
    /// blocks, notes what the rewrite looks at, lists the calls and the
    /// uses of tracked results (`(tracked index, noted index)` in
    /// `use_pairs`). Returns the first structure error of a block, which
    /// the caller reports only now that every id is checked.
    ///
    /// Most instructions take the short way here: an opcode that is
    /// nothing the rewrite looks at ([`OpInfo::plain`]), a flat layout
    /// whose words are all in-range ids, and, when none of them is
    /// watched, a result not defined before (when one is, the instruction
    /// is decoded from its flat layout, [`Func::watched_plain`]). The
    /// others go through [`Func::step`].
    pub(super) fn read(
        &mut self,
        m: &Module<'m>,
        ctx: &Context<'_>,
        fname: &str,
        use_pairs: &mut Vec<(u32, u32)>,
    ) -> Result<Option<Deferred>> {
        let words = self.words;
        let infos = op_infos();
        use_pairs.clear();
        let mut st = ReadState {
            bound: m.bound(),
            block: NO_BLOCK,
            last_was_terminator: false,
            early: None,
            prev_at: 0,
            deferred: None,
        };
        let (mut at, end) = (self.range.start, self.range.end);
        while at < end {
            let head = words[at];
            let len = (head >> 16) as usize;
            let opcode = head as u16;
            if let Some(info) = infos.get(opcode as usize)
                && info.plain
                && len >= info.flat_min as usize
                && self.read_plain(at, len, info, &mut st, ctx, use_pairs)
            {
                st.prev_at = at;
                at += len;
                continue;
            }
            if !self.read_short(at, opcode, len, &mut st, ctx, use_pairs) {
                self.step(m, ctx, fname, use_pairs, &mut st, at)?;
            }
            st.prev_at = at;
            at += len.max(1);
        }
        Ok(st.deferred)
    }

    /// [`Func::read`]'s short way for a plain instruction (`info`'s
    /// opcode, `len` words at word `at`, at least its flat layout's): true
    /// when it is read, its result recorded (and its callee, for a call),
    /// or, when it reads a watched id, decoded from its flat layout. False
    /// sends it the long way: an id out of range, a layout that is not
    /// flat after all, a result defined before.
    #[inline(always)]
    fn read_plain(
        &mut self,
        at: usize,
        len: usize,
        info: &OpInfo,
        st: &mut ReadState,
        ctx: &Context<'_>,
        use_pairs: &mut Vec<(u32, u32)>,
    ) -> bool {
        let bound = st.bound;
        let iw = &self.words[at..at + len];
        let mut watched = false;
        let in_range = iw[1..].iter().all(|&x| {
            watched = watched || self.tracked.contains_key(&x) || ctx.may_replace(x);
            x != 0 && x < bound
        });
        let result = if info.result > 0 {
            iw[info.result as usize]
        } else {
            0
        };
        let done = in_range
            && if !watched {
                (!info.exact || flat_ids(iw).is_some())
                    && (result == 0 || self.def.insert_new(result, PLAIN | at))
            } else if let Some(flat) = flat_ids(iw) {
                self.watched_plain(at, iw, flat, st.block, ctx, use_pairs);
                true
            } else {
                false
            };
        if done {
            if st.last_was_terminator {
                st.early.get_or_insert(st.prev_at);
                st.last_was_terminator = false;
            }
            if iw[0] as u16 == op::FunctionCall && len >= 4 && st.block != NO_BLOCK {
                self.calls.push((iw[2], iw[3]));
                self.blocks[st.block].calls.1 += 1;
            }
        }
        done
    }

    /// [`Func::read`]'s short way for the other instructions most blocks
    /// are made of (the `opcode` of `len` words at word `at`): a label, an
    /// unconditional branch or return, a conditional branch, a tracked
    /// instruction, each in its common form. False sends it the long way.
    #[inline(always)]
    fn read_short(
        &mut self,
        at: usize,
        opcode: u16,
        len: usize,
        st: &mut ReadState,
        ctx: &Context<'_>,
        use_pairs: &mut Vec<(u32, u32)>,
    ) -> bool {
        let (words, bound) = (self.words, st.bound);
        let watched =
            |x: u32| x == 0 || x >= bound || self.tracked.contains_key(&x) || ctx.may_replace(x);
        match (opcode, len) {
            (op::Label, 2) => {
                // A label's id is its result, not a use: only its range
                // matters, and that it is new (the maps share a window).
                let label = words[at + 1];
                let slot = self
                    .def
                    .free_slot(label)
                    .filter(|&k| label != 0 && label < bound && self.block_of_label.is_free(k));
                if let Some(k) = slot {
                    self.block_of_label.set_slot(k, self.blocks.len());
                    self.def.set_slot(k, PLAIN | at);
                    self.open_block(st, label, at, 2);
                }
                slot.is_some()
            }
            (op::Branch, 2) | (op::Return, 1) if st.block != NO_BLOCK => {
                let plain = len == 1 || !watched(words[at + 1]);
                if plain {
                    if st.last_was_terminator {
                        st.early.get_or_insert(st.prev_at);
                    }
                    st.last_was_terminator = true;
                    let inst = Inst { at, opcode, len };
                    self.note(inst, 0, st.block, false, (0, 0));
                }
                plain
            }
            (op::BranchConditional, 4) if st.block != NO_BLOCK => {
                // Its targets plain, its condition perhaps watched.
                let (c, t, e) = (words[at + 1], words[at + 2], words[at + 3]);
                let plain = c != 0 && c < bound && !watched(t) && !watched(e);
                if plain {
                    if st.last_was_terminator {
                        st.early.get_or_insert(st.prev_at);
                    }
                    st.last_was_terminator = true;
                    let k = self.noted.len() as u32;
                    let first = self.id_list.len() as u32;
                    let mentions = self.note_use(c, k, ctx, use_pairs);
                    if mentions {
                        self.id_list.extend((1..4).map(|p| (p as u32, Role::Use)));
                    }
                    let ids = (first, self.id_list.len() as u32);
                    let inst = Inst { at, opcode, len };
                    self.note(inst, 0, st.block, mentions, ids);
                }
                plain
            }
            _ if is_tracked(opcode) && st.block != NO_BLOCK => {
                let plain = self.tracked_inst(at, st.block, bound, ctx, use_pairs);
                if plain && st.last_was_terminator {
                    st.early.get_or_insert(st.prev_at);
                    st.last_was_terminator = false;
                }
                plain
            }
            _ => false,
        }
    }

    /// [`Func::read`]'s long way for the instruction at word `at`: block
    /// boundaries, the decode of instructions that mention a watched id
    /// or have no flat layout, and what is noted.
    #[inline(never)]
    pub(super) fn step(
        &mut self,
        m: &Module<'m>,
        ctx: &Context<'_>,
        fname: &str,
        use_pairs: &mut Vec<(u32, u32)>,
        st: &mut ReadState,
        at: usize,
    ) -> Result<()> {
        let words = self.words;
        let head = words[at];
        let inst = Inst {
            at,
            opcode: head as u16,
            len: (head >> 16) as usize,
        };
        let iw = &words[at..inst.end()];
        let is_end = inst.end() >= self.range.end;
        if is_end {
            if st.block != NO_BLOCK {
                self.close(st, at);
            }
        } else if st.block != NO_BLOCK && inst.opcode != op::Label {
            if st.last_was_terminator {
                st.early.get_or_insert(st.prev_at);
            }
            st.last_was_terminator = is_terminator(inst.opcode);
        }
        if is_end {
            self.end_at = at;
        } else if inst.opcode == op::Label {
            let label = *iw.get(1).ok_or_else(|| short(&inst, fname))?;
            if self.block_of_label.get(&label).is_some() {
                return Err(structure(
                    &inst,
                    fname,
                    format!("label %{label} is defined twice"),
                ));
            }
            self.block_of_label.insert(label, self.blocks.len());
            self.open_block(st, label, at, inst.len);
        }
        let block = st.block;
        let (result, mut noted) = match self.passed_over(iw, shapes(), m.bound(), ctx) {
            Some(result) => (result, false),
            None => {
                let first_id = self.id_list.len();
                let k = self.noted.len() as u32;
                let bound = m.bound();
                let in_range =
                    |f: &FlatIds| iw[1..f.checked_end].iter().all(|&x| x != 0 && x < bound);
                let (result, mentions) = match flat_ids(iw).filter(in_range) {
                    Some(flat) => self.flat_inst(k, iw, flat, ctx, use_pairs),
                    None => self.walked_inst(m, inst, k, ctx, use_pairs)?,
                };
                let keep = mentions || inst.opcode == op::Switch;
                if keep {
                    let ids = (first_id as u32, self.id_list.len() as u32);
                    self.note(inst, result, block, mentions, ids);
                } else {
                    self.id_list.truncate(first_id);
                }
                (result, keep)
            }
        };
        if !noted
            && (is_tracked(inst.opcode)
                || (block != NO_BLOCK && (is_terminator(inst.opcode) || is_merge(inst.opcode))))
        {
            self.note(inst, result, block, false, (0, 0));
            noted = true;
        }
        if result != 0 {
            self.define(result, inst, noted, block);
        }
        if inst.opcode == op::FunctionCall && inst.len >= 4 && block != NO_BLOCK {
            self.calls.push((iw[2], iw[3]));
            self.blocks[block].calls.1 += 1;
        }
        Ok(())
    }

    /// Notes instruction `inst` of `block`.
    pub(super) fn note(
        &mut self,
        inst: Inst,
        result: u32,
        block: usize,
        mentions: bool,
        ids: (u32, u32),
    ) {
        self.noted.push(Noted {
            inst,
            result,
            block,
            mentions,
            ids,
        });
        if block != NO_BLOCK {
            self.blocks[block].noted.1 += 1;
        }
    }

    /// Records `inst` of `block` as the definition of `result` (`noted`:
    /// it is the last noted instruction). A second definition of an id is
    /// noted too, so that an id defined twice has a noted definition (its
    /// last, as the rewrite has always taken it).
    pub(super) fn define(&mut self, result: u32, inst: Inst, noted: bool, block: usize) {
        let value = if noted {
            self.noted.len() - 1
        } else {
            PLAIN | inst.at
        };
        if self.def.insert(result, value).is_some() {
            self.unique_results = false;
            if !noted {
                self.note(inst, result, block, false, (0, 0));
                self.def.insert(result, self.noted.len() - 1);
            }
        }
    }
}
