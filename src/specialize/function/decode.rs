//! The function as the rewrite sees it: its instructions, its blocks with
//! their successors (checked to be blocks of the function), the definitions
//! of its ids, the users of the ids the lattice and the chain follow, and
//! the id operands of the instructions that read one of those or an id the
//! module scope replaces.
//!
//! Every id operand is checked against the header's bound (as the rest of
//! the pass does for what it reads), but most instructions have a flat
//! layout ([`flat_ids`]) checked with one comparison per word; only the
//! others go through the grammar walker. Most instructions of a rewritten
//! function are passed over: a flat layout (known from the opcode's
//! [`Shape`]) whose words are all in-range ids, none of them one the
//! rewrite watches, only defines its result; the others are decoded.

use crate::error::{Error, Result};
use crate::module::{Inst, Module, check_inst_id, insts, must_be_id};
use crate::operands::{FlatIds, Role, Shape, flat_ids, for_each_id, op, result_pos, shapes};

use super::super::context::Context;
use super::local_ids::{LocalMap, Window};

/// A block: its label and the instructions after the label.
#[derive(Clone, Copy)]
pub(super) struct Block {
    pub(super) label: u32,
    /// Instruction indices `[first, end)`, label excluded.
    pub(super) first: usize,
    pub(super) end: usize,
}

/// The decoded function.
pub(in crate::specialize) struct Func<'m> {
    pub(super) words: &'m [u32],
    /// The function's words in `words` (`OpFunction` … `OpFunctionEnd`).
    pub(super) range: std::ops::Range<usize>,
    pub(super) insts: Vec<Inst>,
    /// `(word index within the instruction, role)` of every id of the
    /// instructions that mention one the emitter must look at (see
    /// `mentions`) and of every `OpSwitch`, back to back;
    /// `id_start[i]..id_start[i + 1]` are instruction `i`'s (empty for the
    /// others).
    pub(super) id_list: Vec<(u32, Role)>,
    pub(super) id_start: Vec<u32>,
    /// The result id of each instruction (0: none).
    pub(super) result: Vec<u32>,
    /// Per instruction: true when it uses an id [`Func::users`] may be asked
    /// about or one the module scope may replace
    /// ([`Context::may_replace`]). Only these can have an operand rewritten
    /// or use a chain value.
    pub(super) mentions: Vec<bool>,
    pub(super) blocks: Vec<Block>,
    pub(super) block_of_label: LocalMap,
    /// Successor blocks of every block, back to back;
    /// `succ_start[b]..succ_start[b + 1]` are block `b`'s.
    pub(super) succ_list: Vec<usize>,
    pub(super) succ_start: Vec<u32>,
    /// Block index of each instruction (usize::MAX before the first label).
    pub(super) block_of_inst: Vec<usize>,
    /// Defining instruction index of each local result id.
    pub(super) def: LocalMap,
    /// Instructions using the ids that [`Func::users`] may be asked about:
    /// the results of the instructions the lattice tracks (`OpPhi`,
    /// `OpSelect`, logic ops) and the module's chain ids (`Context::is_chain`).
    /// `(id, instruction)` for every use of such an id, sorted: the users of
    /// an id are one contiguous run.
    pub(super) uses: Vec<(u32, u32)>,
    /// Per slot of the id window: the result of a tracked instruction.
    tracked: Vec<bool>,
    /// True when no two instructions define the same id (always, in a
    /// valid module): then `def[result[i]] == i` for every result.
    pub(super) unique_results: bool,
    /// The number of `OpFunctionCall`s (the most callees a rewrite lists).
    pub(super) calls: usize,
}

/// The allocations of a [`Func`], kept between the functions of one run so
/// that decoding a function allocates nothing once they have grown.
#[derive(Default)]
pub(super) struct Buffers {
    insts: Vec<Inst>,
    id_list: Vec<(u32, Role)>,
    id_start: Vec<u32>,
    result: Vec<u32>,
    mentions: Vec<bool>,
    blocks: Vec<Block>,
    block_of_label: LocalMap,
    succ_list: Vec<usize>,
    succ_start: Vec<u32>,
    block_of_inst: Vec<usize>,
    def: LocalMap,
    uses: Vec<(u32, u32)>,
    tracked: Vec<bool>,
    /// The results of tracked instructions, while the window is not known.
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
        let (lo, hi) = f.read_insts(start, end, &mut bufs.tracked_ids);
        f.find_window(lo, hi, &bufs.tracked_ids);
        f.walk_ids(m, ctx, fname)?;
        f.check_blocks(fname)?;
        f.link_successors(fname)?;
        Ok(f)
    }

    /// An empty function over `words`, holding `bufs`' storage.
    fn empty(words: &'m [u32], bufs: &mut Buffers) -> Self {
        Func {
            words,
            range: 0..0,
            insts: cleared(&mut bufs.insts),
            id_list: cleared(&mut bufs.id_list),
            id_start: cleared(&mut bufs.id_start),
            result: cleared(&mut bufs.result),
            mentions: cleared(&mut bufs.mentions),
            blocks: cleared(&mut bufs.blocks),
            block_of_label: std::mem::take(&mut bufs.block_of_label),
            succ_list: cleared(&mut bufs.succ_list),
            succ_start: cleared(&mut bufs.succ_start),
            block_of_inst: cleared(&mut bufs.block_of_inst),
            def: std::mem::take(&mut bufs.def),
            uses: cleared(&mut bufs.uses),
            tracked: cleared(&mut bufs.tracked),
            unique_results: true,
            calls: 0,
        }
    }

    /// Gives the storage back for the next function.
    pub(super) fn recycle(self, bufs: &mut Buffers) {
        *bufs = Buffers {
            insts: self.insts,
            id_list: self.id_list,
            id_start: self.id_start,
            result: self.result,
            mentions: self.mentions,
            blocks: self.blocks,
            block_of_label: self.block_of_label,
            succ_list: self.succ_list,
            succ_start: self.succ_start,
            block_of_inst: self.block_of_inst,
            def: self.def,
            uses: self.uses,
            tracked: self.tracked,
            tracked_ids: std::mem::take(&mut bufs.tracked_ids),
        };
    }

    /// Lists the instructions of `words[start..end]`; returns the range of
    /// the result ids they define (the function's own aside: it is numbered
    /// with the module's functions, far from its body's ids) and puts the
    /// results of tracked instructions in `tracked_ids`.
    fn read_insts(&mut self, start: usize, end: usize, tracked_ids: &mut Vec<u32>) -> (u32, u32) {
        let words = self.words;
        let shapes = shapes();
        let (mut lo, mut hi) = (u32::MAX, 0u32);
        tracked_ids.clear();
        for inst in insts(words, start, end) {
            self.insts.push(inst);
            self.calls += (inst.opcode == op::FunctionCall) as usize;
            if inst.opcode == op::Function {
                continue;
            }
            let p = shapes
                .get(inst.opcode as usize)
                .map_or(0, |s| s.result as usize);
            if p > 0 && p < inst.len {
                let id = words[inst.at + p];
                lo = lo.min(id);
                hi = hi.max(id);
                if p == 2 && is_tracked(inst.opcode) {
                    tracked_ids.push(id);
                }
            }
        }
        (lo, hi)
    }

    /// Sizes the local maps for the window of ids `lo..=hi` and marks the
    /// tracked results in it.
    fn find_window(&mut self, lo: u32, hi: u32, tracked_ids: &[u32]) {
        let window = Window::new(lo, hi, self.insts.len());
        self.def.reset(window);
        self.block_of_label.reset(window);
        self.tracked.resize(window.len(), false);
        for &id in tracked_ids {
            if let Some(k) = window.slot(id) {
                self.tracked[k] = true;
            }
        }
    }

    /// True when the users of `id` may be asked for: a tracked result, or
    /// any id when the window is empty (nothing is known).
    fn followed(&self, id: u32) -> bool {
        let window = self.def.window();
        if window.is_empty() {
            return true;
        }
        window.slot(id).is_some_and(|k| self.tracked[k])
    }

    /// Splits the instructions into blocks and walks every id operand:
    /// checks it against the bound, records definitions, results and the
    /// uses of followed ids.
    fn walk_ids(&mut self, m: &Module<'m>, ctx: &Context<'_>, fname: &str) -> Result<()> {
        let words = self.words;
        let bound = m.bound();
        let shapes = shapes();
        let n = self.insts.len();
        self.id_start.resize(n + 1, 0);
        self.result.resize(n, 0);
        self.mentions.resize(n, false);
        for i in 0..n {
            let inst = self.insts[i];
            let iw = &words[inst.at..inst.end()];
            if inst.opcode == op::Label {
                if let Some(b) = self.blocks.last_mut() {
                    b.end = i;
                }
                let label = *iw.get(1).ok_or_else(|| short(&inst, fname))?;
                if self
                    .block_of_label
                    .insert(label, self.blocks.len())
                    .is_some()
                {
                    return Err(structure(
                        &inst,
                        fname,
                        format!("label %{label} is defined twice"),
                    ));
                }
                self.blocks.push(Block {
                    label,
                    first: i + 1,
                    end: i + 1,
                });
            }
            self.id_start[i] = self.id_list.len() as u32;
            let checked = |f: &FlatIds| iw[1..f.checked_end].iter().all(|&x| x != 0 && x < bound);
            let (result, mentions) = if let Some(result) = self.passed_over(iw, shapes, bound, ctx)
            {
                if result != 0 && self.def.insert(result, i).is_some() {
                    self.unique_results = false;
                }
                (result, false)
            } else {
                match flat_ids(iw).filter(checked) {
                    Some(flat) => self.flat_inst(i, iw, flat, ctx),
                    None => self.walked_inst(m, i, ctx)?,
                }
            };
            self.result[i] = result;
            self.mentions[i] = mentions;
        }
        self.id_start[n] = self.id_list.len() as u32;
        if let Some(b) = self.blocks.last_mut() {
            b.end = n - 1; // before OpFunctionEnd
        }
        // Labels and what precedes the first one are in no block;
        // `OpFunctionEnd` counts as the last block's.
        self.block_of_inst.resize(n, usize::MAX);
        for (b, blk) in self.blocks.iter().enumerate() {
            self.block_of_inst[blk.first..blk.end].fill(b);
        }
        if !self.blocks.is_empty() {
            self.block_of_inst[n - 1] = self.blocks.len() - 1;
        }
        self.uses.sort_unstable();
        Ok(())
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

    /// Records instruction `i`'s use of `id`; true when the emitter must
    /// look at it (a followed id, or one the module scope may replace).
    #[inline]
    fn note_use(&mut self, id: u32, i: usize, ctx: &Context<'_>) -> bool {
        if self.followed(id) {
            self.uses.push((id, i as u32));
            true
        } else if ctx.may_replace(id) {
            if ctx.is_chain(id) {
                self.uses.push((id, i as u32));
            }
            true
        } else {
            false
        }
    }

    /// Decodes instruction `i` (words `iw`) of a flat layout whose ids are
    /// all in range: its result and whether it mentions an id the emitter
    /// must look at. Only then are its id positions kept.
    fn flat_inst(&mut self, i: usize, iw: &[u32], flat: FlatIds, ctx: &Context<'_>) -> (u32, bool) {
        let result = if flat.result > 0 { iw[flat.result] } else { 0 };
        if result != 0 && self.def.insert(result, i).is_some() {
            self.unique_results = false;
        }
        let mut mentions = false;
        let reads = iw[flat.first_use..flat.checked_end]
            .iter()
            .chain(&iw[flat.maybe_from..]);
        for &id in reads {
            mentions |= self.note_use(id, i, ctx);
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

    /// Decodes instruction `i` through the grammar walker, checking each id
    /// against the bound: its result and whether it mentions an id the
    /// emitter must look at. Its id positions are kept only then, or for
    /// an `OpSwitch` (whose targets they give).
    fn walked_inst(&mut self, m: &Module<'m>, i: usize, ctx: &Context<'_>) -> Result<(u32, bool)> {
        let words = self.words;
        let inst = self.insts[i];
        let iw = &words[inst.at..inst.end()];
        let first_id = self.id_list.len();
        // OpSwitch literals are as wide as the selector's type: read it
        // off the selector's (earlier, dominating) definition.
        let (def, insts) = (&self.def, &self.insts);
        let width = |sel: u32| {
            let local = def.get(&sel).and_then(|&d| {
                let di = insts[d];
                (result_pos(di.opcode) == Some(2)).then(|| words[di.at + 1])
            });
            let ty = local.or_else(|| ctx.globals.type_of(m, sel));
            match ty.and_then(|t| ctx.globals.int_width.get(&t)) {
                Some(w) if *w > 32 => 2,
                _ => 1,
            }
        };
        let list = &mut self.id_list;
        for_each_id(iw, inst.byte_offset(), &width, &mut |pos, role| {
            list.push((pos as u32, role))
        })?;
        let (mut result, mut mentions) = (0, false);
        for k in first_id..self.id_list.len() {
            let (pos, role) = self.id_list[k];
            let id = iw[pos as usize];
            if (id == 0 || id >= m.bound()) && must_be_id(inst.opcode, pos as usize, role) {
                check_inst_id(words, inst, pos as usize)?;
            }
            match role {
                Role::Result => {
                    if self.def.insert(id, i).is_some() {
                        self.unique_results = false;
                    }
                    result = id;
                }
                Role::ResultType => {}
                Role::Use | Role::MaybeId => mentions |= self.note_use(id, i, ctx),
            }
        }
        if !mentions && inst.opcode != op::Switch {
            self.id_list.truncate(first_id);
        }
        Ok((result, mentions))
    }

    /// Checks that every block ends in its one terminator.
    fn check_blocks(&self, fname: &str) -> Result<()> {
        for b in &self.blocks {
            if let Some(i) =
                (b.first..b.end.saturating_sub(1)).find(|&i| is_terminator(self.insts[i].opcode))
            {
                return Err(structure(
                    &self.insts[i],
                    fname,
                    format!("block %{} has a terminator before its end", b.label),
                ));
            }
            if b.first >= b.end || !is_terminator(self.insts[b.end - 1].opcode) {
                let inst = self.insts[b.first - 1];
                return Err(structure(
                    &inst,
                    fname,
                    format!("block %{} does not end in a terminator", b.label),
                ));
            }
        }
        Ok(())
    }

    /// Resolves every block's branch targets to blocks of the function.
    fn link_successors(&mut self, fname: &str) -> Result<()> {
        for b in 0..self.blocks.len() {
            self.succ_start.push(self.succ_list.len() as u32);
            let t = self.terminator(b);
            let w = self.inst_words(t);
            match self.insts[t].opcode {
                op::Branch => self.link(t, w[1], fname)?,
                op::BranchConditional => {
                    self.link(t, w[2], fname)?;
                    self.link(t, w[3], fname)?;
                }
                op::Switch => {
                    // Every id after the selector is a target.
                    for k in self.id_start[t] as usize..self.id_start[t + 1] as usize {
                        let p = self.id_list[k].0 as usize;
                        if p >= 2 {
                            self.link(t, w[p], fname)?;
                        }
                    }
                }
                _ => {}
            }
        }
        self.succ_start.push(self.succ_list.len() as u32);
        Ok(())
    }

    /// Adds the block labelled `label` to the successors, for terminator `t`.
    fn link(&mut self, t: usize, label: u32, fname: &str) -> Result<()> {
        let Some(&s) = self.block_of_label.get(&label) else {
            return Err(structure(
                &self.insts[t],
                fname,
                format!("branch target %{label} is not a block of this function"),
            ));
        };
        self.succ_list.push(s);
        Ok(())
    }

    /// The instructions that use `id`, in order.
    pub(super) fn users(&self, id: u32) -> impl Iterator<Item = usize> + '_ {
        let start = self.uses.partition_point(|&(x, _)| x < id);
        self.uses[start..]
            .iter()
            .take_while(move |&&(x, _)| x == id)
            .map(|&(_, i)| i as usize)
    }

    /// The id positions of instruction `i`.
    pub(super) fn ids(&self, i: usize) -> &[(u32, Role)] {
        &self.id_list[self.id_start[i] as usize..self.id_start[i + 1] as usize]
    }

    /// The number of words of the function.
    pub(super) fn words_len(&self) -> usize {
        match (self.insts.first(), self.insts.last()) {
            (Some(a), Some(b)) => b.end() - a.at,
            _ => 0,
        }
    }

    /// The words of instruction `i`.
    pub(super) fn inst_words(&self, i: usize) -> &'m [u32] {
        let inst = self.insts[i];
        &self.words[inst.at..inst.end()]
    }

    /// The index of block `b`'s terminator.
    pub(super) fn terminator(&self, b: usize) -> usize {
        self.blocks[b].end - 1
    }

    /// The merge instruction of a block (the one before its terminator).
    pub(super) fn merge_inst(&self, b: usize) -> Option<usize> {
        let t = self.terminator(b);
        (t > self.blocks[b].first
            && matches!(self.insts[t - 1].opcode, op::SelectionMerge | op::LoopMerge))
        .then_some(t - 1)
    }

    /// Successor blocks of block `b`, in terminator order.
    pub(super) fn successors(&self, b: usize) -> &[usize] {
        &self.succ_list[self.succ_start[b] as usize..self.succ_start[b + 1] as usize]
    }
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
