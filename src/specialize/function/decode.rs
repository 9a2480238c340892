//! The function as the rewrite sees it, read straight off its words: its
//! blocks (label, where their words end, successors checked to be blocks
//! of the function), the calls they make, and the few instructions the
//! rewrite looks at ([`Noted`]): terminators, merge instructions, the
//! instructions whose result the lattice tracks (`OpPhi`, `OpSelect`,
//! logic ops), and those that read a tracked result or an id the module
//! scope may replace. Everything else is passed over and later copied as
//! whole word runs, so it costs one id check per word and nothing kept.
//!
//! Two passes over the words: a header walk ([`window`]) finds the window
//! of ids the function defines and the tracked results (a phi may read a
//! result defined further down), then one pass ([`read`]) checks every id
//! operand against the header's bound (as the rest of the pass does for
//! what it reads), builds the blocks and notes what the rewrite needs,
//! taking a short way for what most instructions of a predicated function
//! are. Structure errors of blocks are reported after every id is checked,
//! as they always were; branch targets are resolved to blocks last.
//!
//! Files: this one (the decoded function, its storage and what the rewrite
//! asks of it), [`window`] (the header walk), [`read`] (the one pass and its
//! long way), [`short_ways`] (the short ways of the common instructions),
//! [`uses`] (watched ids, operand decoding, users of tracked results) and
//! [`blocks`] (blocks and their successors).

mod blocks;
mod read;
mod short_ways;
mod uses;
mod window;

use crate::error::{Error, Result};
use crate::module::{Inst, Module};
use crate::operands::{Role, op, shapes};

use super::super::context::Context;
use super::super::lattice::is_logic;
use super::local_ids::LocalMap;
use read::Deferred;
pub(super) use read::{OpInfo, op_infos};

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

/// The most entries [`Func::reserve`] makes room for ahead in each list: a
/// larger function grows them as it goes.
const RESERVED: usize = 1 << 12;

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
pub(super) fn cleared<T>(slot: &mut Vec<T>) -> Vec<T> {
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

/// True for the instructions whose result the lattice tracks.
pub(super) fn is_tracked(opcode: u16) -> bool {
    opcode == op::Phi || opcode == op::Select || is_logic(opcode)
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
        let insts = f.find_window(&mut bufs.tracked_ids);
        f.reserve(insts);
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

    /// Makes room, once, for what the read lists of a function of `insts`
    /// instructions: at most one noted instruction, block or call an
    /// instruction, and two successors a block (more only for a switch),
    /// up to [`RESERVED`] entries. The first function of a run would
    /// otherwise grow each list step by step, and a call on a small module
    /// decodes one or two.
    fn reserve(&mut self, insts: usize) {
        let n = insts.min(RESERVED);
        self.noted.reserve(n);
        self.blocks.reserve(n);
        self.succ_start.reserve(n + 1);
        self.succ_list.reserve(2 * n);
        self.calls.reserve(n);
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
