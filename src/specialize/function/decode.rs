//! The function as the rewrite sees it, read straight off its words: its
//! blocks (label, where their words end, successors checked to be blocks
//! of the function), the calls they make, and the few instructions the
//! rewrite looks at ([`Noted`]): terminators, merge instructions, the
//! instructions whose result the lattice tracks (`OpPhi`, `OpSelect`,
//! logic ops), and those that read a tracked result or an id the module
//! scope may replace. Everything else is passed over and later copied as
//! whole word runs, so it costs one id check per word and nothing kept.
//!
//! Two passes over the words: a header walk finds the window of ids the
//! function defines and the tracked results (a phi may read a result
//! defined further down), then one pass checks every id operand against
//! the header's bound (as the rest of the pass does for what it reads),
//! builds the blocks and notes what the rewrite needs. That pass takes a
//! short way for what most instructions of a predicated function are:
//! plain instructions of a flat layout ([`flat_ids`], known from the
//! opcode's [`Shape`]), checked with one comparison per word and decoded
//! only when they read a watched id; labels; tracked instructions of a
//! flat layout; and `OpBranch`, `OpReturn` and `OpBranchConditional` with
//! plain targets.
//! Everything else goes the long way ([`Func::step`]): the grammar walker
//! where the layout is not flat, which reports the errors it always did.
//! Structure errors of blocks are reported after every id is checked, as
//! they always were.

use crate::error::{Error, Result};
use crate::module::{Inst, Module, check_inst_id, must_be_id};
use crate::operands::{FlatIds, Role, Shape, flat_ids, for_each_id, op, result_pos, shapes};

use super::super::context::Context;
use super::local_ids::{LocalMap, Window};

/// A block: its label and where its words and noted instructions are.
#[derive(Clone, Copy)]
pub(super) struct Block {
    pub(super) label: u32,
    /// Word index of its `OpLabel`.
    pub(super) label_at: usize,
    /// Word index just past the `OpLabel`.
    pub(super) body: usize,
    /// Word index just past its terminator.
    pub(super) end: usize,
    /// Its noted instructions, `Func::noted[noted.0..noted.1]`; the last
    /// is its terminator.
    pub(super) noted: (u32, u32),
    /// Its calls, `Func::calls[calls.0..calls.1]`.
    pub(super) calls: (u32, u32),
}

/// An instruction the rewrite looks at (see the module doc).
#[derive(Clone, Copy)]
pub(super) struct Noted {
    pub(super) inst: Inst,
    /// Its result id (0: none).
    pub(super) result: u32,
    /// Its block ([`NO_BLOCK`] before the first label).
    pub(super) block: usize,
    /// True when it reads an id [`Func::users`] may be asked about or one
    /// the module scope may replace ([`Context::may_replace`]): only these
    /// can have an operand rewritten or use a chain value.
    pub(super) mentions: bool,
    /// Its id positions `Func::id_list[ids.0..ids.1]`: kept for the
    /// instructions that mention such an id and for `OpSwitch` (whose
    /// targets they give), empty for the others.
    pub(super) ids: (u32, u32),
}

/// "No block": [`Noted::block`] of an instruction before the first label.
pub(super) const NO_BLOCK: usize = usize::MAX;

/// What defines a local id: a noted instruction (by index) or another
/// instruction (by word index).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Def {
    Noted(usize),
    Plain(usize),
}

/// [`Def::Plain`]'s tag in the `def` map's values.
const PLAIN: usize = 1 << (usize::BITS - 2);

/// The decoded function.
pub(in crate::specialize) struct Func<'m> {
    pub(super) words: &'m [u32],
    /// The function's words in `words` (`OpFunction` … `OpFunctionEnd`).
    pub(super) range: std::ops::Range<usize>,
    /// Word index of the `OpFunctionEnd`.
    pub(super) end_at: usize,
    pub(super) noted: Vec<Noted>,
    /// `(word index within the instruction, role)` of the ids of some
    /// noted instructions ([`Noted::ids`]).
    id_list: Vec<(u32, Role)>,
    pub(super) blocks: Vec<Block>,
    pub(super) block_of_label: LocalMap,
    /// Successor blocks of every block, back to back;
    /// `succ_start[b]..succ_start[b + 1]` are block `b`'s.
    pub(super) succ_list: Vec<usize>,
    pub(super) succ_start: Vec<u32>,
    /// `(result, callee)` of every `OpFunctionCall` in a block, in order.
    pub(super) calls: Vec<(u32, u32)>,
    /// The definition of each local result id ([`Func::def`]).
    def: LocalMap,
    /// Index of each tracked result in the users table.
    tracked: LocalMap,
    /// The noted instructions using tracked result `t`:
    /// `use_list[use_start[t]..use_start[t + 1]]`, in order.
    use_start: Vec<u32>,
    use_list: Vec<u32>,
    /// The noted instructions using a module-scope chain id
    /// ([`Context::is_chain`]), in order (once per use).
    pub(super) chain_users: Vec<u32>,
    /// True when no two instructions define the same id (always, in a
    /// valid module). Otherwise an id's definition is its last one, which
    /// is noted.
    pub(super) unique_results: bool,
}

/// The allocations of a [`Func`], kept between the functions of one run so
/// that decoding a function allocates nothing once they have grown.
#[derive(Default)]
pub(super) struct Buffers {
    noted: Vec<Noted>,
    id_list: Vec<(u32, Role)>,
    blocks: Vec<Block>,
    block_of_label: LocalMap,
    succ_list: Vec<usize>,
    succ_start: Vec<u32>,
    calls: Vec<(u32, u32)>,
    def: LocalMap,
    tracked: LocalMap,
    use_start: Vec<u32>,
    use_list: Vec<u32>,
    chain_users: Vec<u32>,
    /// `(tracked index, noted index)` of each use of a tracked result.
    use_pairs: Vec<(u32, u32)>,
    /// The results of tracked instructions, in order.
    tracked_ids: Vec<u32>,
}

/// Takes `v` out of `slot`, emptied.
fn cleared<T>(slot: &mut Vec<T>) -> Vec<T> {
    let mut v = std::mem::take(slot);
    v.clear();
    v
}

/// True for the instructions that end a block.
fn is_terminator(opcode: u16) -> bool {
    matches!(
        opcode,
        op::Branch
            | op::BranchConditional
            | op::Switch
            | op::Return
            | op::ReturnValue
            | op::Kill
            | op::Unreachable
            | op::TerminateInvocation
            | op::IgnoreIntersectionKHR
            | op::TerminateRayKHR
            | op::EmitMeshTasksEXT
    )
}

/// True for the merge instructions of structured control flow.
pub(super) fn is_merge(opcode: u16) -> bool {
    opcode == op::SelectionMerge || opcode == op::LoopMerge
}

/// True for the boolean logic ops the lattice folds.
pub(in crate::specialize) fn is_logic(opcode: u16) -> bool {
    matches!(
        opcode,
        op::LogicalNot | op::LogicalAnd | op::LogicalOr | op::LogicalEqual | op::LogicalNotEqual
    )
}

/// True for the instructions whose result the lattice tracks.
pub(super) fn is_tracked(opcode: u16) -> bool {
    opcode == op::Phi || opcode == op::Select || is_logic(opcode)
}

/// Where [`Func::read`] is: the block it reads and what that block's
/// instructions showed so far.
struct ReadState {
    /// The block being read ([`NO_BLOCK`]: none).
    block: usize,
    /// True when the last instruction of the block was a terminator.
    last_was_terminator: bool,
    /// Word index of the block's first terminator followed by another of
    /// its instructions.
    early: Option<usize>,
    /// Word index of the instruction read last.
    prev_at: usize,
    /// The first structure error of a block.
    deferred: Option<Deferred>,
}

/// What [`Func::read`] needs of an opcode, in one look-up.
#[derive(Clone, Copy, Default)]
struct OpInfo {
    /// Word index of the result id (0: none).
    result: u8,
    /// The fewest words of a flat layout ([`Shape::flat_min`]).
    flat_min: u8,
    /// True when an instruction of the opcode with a flat layout whose
    /// words are all in-range ids none of them watched needs nothing but
    /// its result recorded (and its callee, for a call): an opcode with a
    /// flat layout, and nothing the rewrite looks at (labels, terminators,
    /// merges, tracked, the function's ends).
    plain: bool,
    /// True when the words must be looked at to know that the layout is
    /// flat ([`Shape::exact`]).
    exact: bool,
    /// True when the lattice tracks the opcode's result ([`is_tracked`]).
    tracked: bool,
}

/// [`OpInfo`] of the core opcodes (below [`OP_INFOS`]), indexed by
/// opcode; extension opcodes past them take the long way. Kept short:
/// every process builds it once, and a CLI run on a small module should
/// not pay for thousands of entries it never reads.
fn op_infos() -> &'static [OpInfo] {
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
enum Deferred {
    /// A terminator before the end of block `label`.
    EarlyTerminator(Inst, u32),
    /// Block `label` (at its `OpLabel`) does not end in a terminator.
    NoTerminator(Inst, u32),
}

impl<'m> Func<'m> {
    /// Decodes the function in `m.words[start..end]` into `bufs`' storage;
    /// errors name the instruction and the function `fname`. Give the
    /// storage back with [`Func::recycle`].
    pub(super) fn decode(
        m: &Module<'m>,
        ctx: &Context<'_>,
        start: usize,
        end: usize,
        fname: &str,
        bufs: &mut Buffers,
    ) -> Result<Self> {
        let mut f = Func::empty(m.words, bufs);
        f.range = start..end;
        f.find_window(&mut bufs.tracked_ids);
        let deferred = f.read(m, ctx, fname, &mut bufs.use_pairs)?;
        if let Some(d) = deferred {
            return Err(match d {
                Deferred::EarlyTerminator(inst, label) => structure(
                    &inst,
                    fname,
                    format!("block %{label} has a terminator before its end"),
                ),
                Deferred::NoTerminator(inst, label) => structure(
                    &inst,
                    fname,
                    format!("block %{label} does not end in a terminator"),
                ),
            });
        }
        f.link_users(bufs.tracked_ids.len(), &bufs.use_pairs);
        f.link_successors(fname)?;
        Ok(f)
    }

    /// An empty function over `words`, holding `bufs`' storage.
    fn empty(words: &'m [u32], bufs: &mut Buffers) -> Self {
        Func {
            words,
            range: 0..0,
            end_at: 0,
            noted: cleared(&mut bufs.noted),
            id_list: cleared(&mut bufs.id_list),
            blocks: cleared(&mut bufs.blocks),
            block_of_label: std::mem::take(&mut bufs.block_of_label),
            succ_list: cleared(&mut bufs.succ_list),
            succ_start: cleared(&mut bufs.succ_start),
            calls: cleared(&mut bufs.calls),
            def: std::mem::take(&mut bufs.def),
            tracked: std::mem::take(&mut bufs.tracked),
            use_start: cleared(&mut bufs.use_start),
            use_list: cleared(&mut bufs.use_list),
            chain_users: cleared(&mut bufs.chain_users),
            unique_results: true,
        }
    }

    /// Gives the storage back for the next function.
    pub(super) fn recycle(self, bufs: &mut Buffers) {
        *bufs = Buffers {
            noted: self.noted,
            id_list: self.id_list,
            blocks: self.blocks,
            block_of_label: self.block_of_label,
            succ_list: self.succ_list,
            succ_start: self.succ_start,
            calls: self.calls,
            def: self.def,
            tracked: self.tracked,
            use_start: self.use_start,
            use_list: self.use_list,
            chain_users: self.chain_users,
            use_pairs: std::mem::take(&mut bufs.use_pairs),
            tracked_ids: std::mem::take(&mut bufs.tracked_ids),
        };
    }

    /// Walks the instruction headers: sizes the local maps for the window
    /// of the result ids the function defines (its own aside: it is
    /// numbered with the module's functions, far from its body's ids) and
    /// numbers the results of tracked instructions, listed in
    /// `tracked_ids`.
    #[inline(never)]
    fn find_window(&mut self, tracked_ids: &mut Vec<u32>) {
        let words = self.words;
        let (infos, shapes) = (op_infos(), shapes());
        let (mut lo, mut hi) = (u32::MAX, 0u32);
        tracked_ids.clear();
        // From past the `OpFunction` (the range starts with it).
        let (start, end) = (self.range.start, self.range.end);
        let mut at = start + (words[start] >> 16).max(1) as usize;
        let mut count = 1;
        while at < end {
            let head = words[at];
            let (len, opcode) = ((head >> 16) as usize, head as u16);
            count += 1;
            let (p, tracked) = match infos.get(opcode as usize) {
                Some(i) => (i.result as usize, i.tracked),
                None => (
                    shapes.get(opcode as usize).map_or(0, |s| s.result as usize),
                    false,
                ),
            };
            if p > 0 && p < len {
                let id = words[at + p];
                lo = lo.min(id);
                hi = hi.max(id);
                if tracked {
                    tracked_ids.push(id);
                }
            }
            at += len.max(1);
        }
        let window = Window::new(lo, hi, count);
        self.def.reset(window);
        self.block_of_label.reset(window);
        self.tracked.reset(window);
        for (t, &id) in tracked_ids.iter().enumerate() {
            self.tracked.insert(id, t);
        }
    }

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
    fn read(
        &mut self,
        m: &Module<'m>,
        ctx: &Context<'_>,
        fname: &str,
        use_pairs: &mut Vec<(u32, u32)>,
    ) -> Result<Option<Deferred>> {
        let words = self.words;
        let bound = m.bound();
        let infos = op_infos();
        use_pairs.clear();
        let mut st = ReadState {
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
            {
                let iw = &words[at..at + len];
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
                    if opcode == op::FunctionCall && len >= 4 && st.block != NO_BLOCK {
                        self.calls.push((iw[2], iw[3]));
                        self.blocks[st.block].calls.1 += 1;
                    }
                    st.prev_at = at;
                    at += len;
                    continue;
                }
            }
            let watched = |x: u32| {
                x == 0 || x >= bound || self.tracked.contains_key(&x) || ctx.may_replace(x)
            };
            let done = match (opcode, len) {
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
                        self.open_block(&mut st, label, at, 2);
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
            };
            if !done {
                self.step(m, ctx, fname, use_pairs, &mut st, at)?;
            }
            st.prev_at = at;
            at += len.max(1);
        }
        Ok(st.deferred)
    }

    /// Ends the block being read, if any, at word `at` and begins the
    /// block of the label `label` whose `OpLabel` there takes `len` words
    /// (the caller maps the label to it).
    #[inline]
    fn open_block(&mut self, st: &mut ReadState, label: u32, at: usize, len: usize) {
        if st.block != NO_BLOCK {
            self.close(st, at);
        }
        let (n, c) = (self.noted.len() as u32, self.calls.len() as u32);
        st.block = self.blocks.len();
        st.last_was_terminator = false;
        st.early = None;
        self.blocks.push(Block {
            label,
            label_at: at,
            body: at + len,
            end: at + len,
            noted: (n, n),
            calls: (c, c),
        });
    }

    /// [`Func::read`]'s short way for a plain instruction ([`OpInfo::plain`])
    /// of a flat layout, words `iw` at word `at` of `block`, whose ids are
    /// all in range and one of them watched: notes it if it reads a
    /// watched id and records its result, as the long way would.
    fn watched_plain(
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
    fn tracked_inst(
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

    /// [`Func::read`]'s long way for the instruction at word `at`: block
    /// boundaries, the decode of instructions that mention a watched id
    /// or have no flat layout, and what is noted.
    #[inline(never)]
    fn step(
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
    fn note(&mut self, inst: Inst, result: u32, block: usize, mentions: bool, ids: (u32, u32)) {
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
    fn define(&mut self, result: u32, inst: Inst, noted: bool, block: usize) {
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

    /// Ends the block `st` reads at word `at`, keeping the first
    /// structure error.
    fn close(&mut self, st: &mut ReadState, at: usize) {
        let b = &mut self.blocks[st.block];
        b.end = at;
        st.block = NO_BLOCK;
        if st.deferred.is_some() {
            return;
        }
        if let Some(t) = st.early {
            let head = self.words[t];
            let inst = Inst {
                at: t,
                opcode: head as u16,
                len: (head >> 16) as usize,
            };
            st.deferred = Some(Deferred::EarlyTerminator(inst, b.label));
        } else if !st.last_was_terminator {
            let label = Inst {
                at: b.label_at,
                opcode: op::Label,
                len: b.body - b.label_at,
            };
            st.deferred = Some(Deferred::NoTerminator(label, b.label));
        }
    }

    /// True when the users of `id` may be asked for: a tracked result.
    #[inline]
    fn followed(&self, id: u32) -> bool {
        self.tracked.contains_key(&id)
    }

    /// The result (0: none) of an instruction, words `iw`, that needs no
    /// decoding: a flat layout ([`flat_ids`]) whose every word after the
    /// header is an id in range (so every id is checked) and none an id the
    /// emitter must look at (so nothing of it is recorded but its result).
    /// `None` when it must be decoded.
    #[inline]
    fn passed_over(
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
    fn note_use(
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
    fn flat_inst(
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
    fn walked_inst(
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
    fn link_users(&mut self, tracked: usize, use_pairs: &[(u32, u32)]) {
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

    /// Resolves every block's branch targets to blocks of the function.
    fn link_successors(&mut self, fname: &str) -> Result<()> {
        for b in 0..self.blocks.len() {
            self.succ_start.push(self.succ_list.len() as u32);
            let t = self.terminator(b);
            let w = self.inst_words(t);
            let targets = match self.noted[t].inst.opcode {
                op::Branch => &w[1..2],
                op::BranchConditional => &w[2..4],
                op::Switch => {
                    // Every id after the selector is a target.
                    let (a, z) = self.noted[t].ids;
                    for j in a as usize..z as usize {
                        let p = self.id_list[j].0 as usize;
                        if p >= 2 {
                            self.link(t, w[p], fname)?;
                        }
                    }
                    continue;
                }
                _ => continue,
            };
            for &label in targets {
                self.link(t, label, fname)?;
            }
        }
        self.succ_start.push(self.succ_list.len() as u32);
        Ok(())
    }

    /// Adds the block labelled `label` to the successors, for terminator `t`.
    #[inline(always)]
    fn link(&mut self, t: usize, label: u32, fname: &str) -> Result<()> {
        match self.block_of_label.get(&label) {
            Some(&s) => {
                self.succ_list.push(s);
                Ok(())
            }
            None => Err(self.not_a_block(t, label, fname)),
        }
    }

    /// The error for a branch target, `label` of terminator `t`, that is
    /// not a block of the function.
    #[cold]
    #[inline(never)]
    fn not_a_block(&self, t: usize, label: u32, fname: &str) -> Error {
        structure(
            &self.noted[t].inst,
            fname,
            format!("branch target %{label} is not a block of this function"),
        )
    }

    /// The definition of the local `id`, if the function defines it.
    #[inline]
    pub(super) fn def_of(&self, id: u32) -> Option<Def> {
        self.def.get(&id).map(|&v| {
            if v & PLAIN != 0 {
                Def::Plain(v & !PLAIN)
            } else {
                Def::Noted(v)
            }
        })
    }

    /// The noted instruction defining `id`, if any.
    #[inline]
    pub(super) fn noted_def(&self, id: u32) -> Option<usize> {
        match self.def_of(id)? {
            Def::Noted(k) => Some(k),
            Def::Plain(_) => None,
        }
    }

    /// The noted instructions that use the tracked result `id`, in order.
    pub(super) fn users(&self, id: u32) -> &[u32] {
        match self.tracked.get(&id) {
            Some(&t) => &self.use_list[self.use_start[t] as usize..self.use_start[t + 1] as usize],
            None => &[],
        }
    }

    /// The id positions of noted instruction `k`.
    pub(super) fn ids(&self, k: usize) -> &[(u32, Role)] {
        let (a, z) = self.noted[k].ids;
        &self.id_list[a as usize..z as usize]
    }

    /// The words of noted instruction `k`.
    #[inline]
    pub(super) fn inst_words(&self, k: usize) -> &'m [u32] {
        let inst = self.noted[k].inst;
        &self.words[inst.at..inst.end()]
    }

    /// The noted instructions of block `b`.
    #[inline]
    pub(super) fn block_noted(&self, b: usize) -> std::ops::Range<usize> {
        let (a, z) = self.blocks[b].noted;
        a as usize..z as usize
    }

    /// The noted index of block `b`'s terminator.
    #[inline]
    pub(super) fn terminator(&self, b: usize) -> usize {
        self.blocks[b].noted.1 as usize - 1
    }

    /// The merge instruction of a block (the one right before its
    /// terminator), as a noted index.
    #[inline]
    pub(super) fn merge_inst(&self, b: usize) -> Option<usize> {
        let t = self.terminator(b);
        let m = t.checked_sub(1)?;
        (m >= self.blocks[b].noted.0 as usize
            && is_merge(self.noted[m].inst.opcode)
            && self.noted[m].inst.end() == self.noted[t].inst.at)
            .then_some(m)
    }

    /// Successor blocks of block `b`, in terminator order.
    #[inline]
    pub(super) fn successors(&self, b: usize) -> &[usize] {
        &self.succ_list[self.succ_start[b] as usize..self.succ_start[b + 1] as usize]
    }

    /// The calls `(result, callee)` of block `b`.
    pub(super) fn block_calls(&self, b: usize) -> &[(u32, u32)] {
        let (a, z) = self.blocks[b].calls;
        &self.calls[a as usize..z as usize]
    }
}

/// The result id (0: none) of the instruction `iw`, by its opcode.
#[inline]
pub(super) fn result_of(iw: &[u32]) -> u32 {
    let p = shapes()
        .get((iw[0] & 0xffff) as usize)
        .map_or(0, |s| s.result as usize);
    if p > 0 && p < iw.len() { iw[p] } else { 0 }
}

/// The error for an instruction too short for what it must hold.
pub(super) fn short(inst: &Inst, fname: &str) -> Error {
    structure(inst, fname, "instruction too short".to_string())
}

/// An [`Error::Structure`] at `inst` in function `fname`.
pub(super) fn structure(inst: &Inst, fname: &str, message: String) -> Error {
    Error::Structure {
        offset: inst.byte_offset(),
        function: Some(fname.to_string()),
        message,
    }
}
