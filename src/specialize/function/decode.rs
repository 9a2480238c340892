//! The function as the rewrite sees it: its instructions, the id operands of
//! each, its blocks with their successors (checked to be blocks of the
//! function), the definitions of its ids and the users of the ids the
//! lattice and the chain follow.

use crate::error::{Error, Result};
use crate::module::{Inst, Module, check_inst_id, insts, must_be_id};
use crate::operands::{Role, for_each_id, op, result_pos};

use super::super::context::Context;
use super::local_ids::{LocalMap, Window};

/// A block: its label and the instructions after the label.
pub(super) struct Block {
    pub(super) label: u32,
    /// Instruction indices `[first, end)`, label excluded.
    pub(super) first: usize,
    pub(super) end: usize,
}

/// The decoded function.
pub(in crate::specialize) struct Func<'m> {
    pub(super) words: &'m [u32],
    pub(super) insts: Vec<Inst>,
    /// `(word index within the instruction, role)` of every id, all
    /// instructions back to back; `id_start[i]..id_start[i + 1]` are
    /// instruction `i`'s.
    pub(super) id_list: Vec<(u32, Role)>,
    pub(super) id_start: Vec<u32>,
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

impl<'m> Func<'m> {
    /// Decodes the function in `m.words[start..end]`; errors name the
    /// instruction and the function `fname`.
    pub(in crate::specialize) fn decode(
        m: &Module<'m>,
        ctx: &Context<'_>,
        start: usize,
        end: usize,
        fname: &str,
    ) -> Result<Self> {
        let words = m.words;
        // Sized for the usual 3–4 words per instruction: one allocation.
        let mut list: Vec<Inst> = Vec::with_capacity((end - start) / 3 + 1);
        list.extend(insts(words, start, end));
        let results = Results::find(words, &list);
        let mut f = Func {
            words,
            id_list: Vec::with_capacity(list.len() * 3),
            id_start: Vec::with_capacity(list.len() + 1),
            blocks: Vec::with_capacity(results.labels),
            block_of_label: LocalMap::new(results.window),
            succ_list: Vec::with_capacity(results.labels * 2),
            succ_start: Vec::with_capacity(results.labels + 1),
            block_of_inst: Vec::with_capacity(list.len()),
            def: LocalMap::new(results.window),
            uses: Vec::new(),
            insts: list,
        };
        for (i, inst) in f.insts.iter().enumerate() {
            let iw = &words[inst.at..inst.end()];
            if inst.opcode == op::Label {
                if let Some(b) = f.blocks.last_mut() {
                    b.end = i;
                }
                let label = *iw.get(1).ok_or_else(|| short(inst, fname))?;
                if f.block_of_label.insert(label, f.blocks.len()).is_some() {
                    return Err(structure(
                        inst,
                        fname,
                        format!("label %{label} is defined twice"),
                    ));
                }
                f.blocks.push(Block {
                    label,
                    first: i + 1,
                    end: i + 1,
                });
            }
            f.block_of_inst
                .push(if inst.opcode == op::Label || f.blocks.is_empty() {
                    usize::MAX
                } else {
                    f.blocks.len() - 1
                });
            f.id_start.push(f.id_list.len() as u32);
            let first_id = f.id_list.len();
            // OpSwitch literals are as wide as the selector's type: read it
            // off the selector's (earlier, dominating) definition.
            let (def, insts) = (&f.def, &f.insts);
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
            let list = &mut f.id_list;
            for_each_id(iw, inst.byte_offset(), &width, &mut |pos, role| {
                list.push((pos as u32, role))
            })?;
            for &(pos, role) in &f.id_list[first_id..] {
                let id = iw[pos as usize];
                if (id == 0 || id >= m.bound()) && must_be_id(inst.opcode, pos as usize, role) {
                    check_inst_id(words, *inst, pos as usize)?;
                }
                match role {
                    Role::Result => {
                        f.def.insert(id, i);
                    }
                    Role::ResultType => {}
                    Role::Use | Role::MaybeId => {
                        if results.followed(id) || ctx.is_chain(id) {
                            f.uses.push((id, i as u32));
                        }
                    }
                }
            }
        }
        f.id_start.push(f.id_list.len() as u32);
        if let Some(b) = f.blocks.last_mut() {
            b.end = f.insts.len() - 1; // before OpFunctionEnd
        }
        f.uses.sort_unstable();
        for b in &f.blocks {
            if let Some(i) =
                (b.first..b.end.saturating_sub(1)).find(|&i| is_terminator(f.insts[i].opcode))
            {
                return Err(structure(
                    &f.insts[i],
                    fname,
                    format!("block %{} has a terminator before its end", b.label),
                ));
            }
            if b.first >= b.end || !is_terminator(f.insts[b.end - 1].opcode) {
                let inst = f.insts[b.first - 1];
                return Err(structure(
                    &inst,
                    fname,
                    format!("block %{} does not end in a terminator", b.label),
                ));
            }
        }
        for b in 0..f.blocks.len() {
            f.succ_start.push(f.succ_list.len() as u32);
            let t = f.terminator(b);
            let w = f.inst_words(t);
            for p in f.successor_positions(b) {
                let Some(&s) = f.block_of_label.get(&w[p]) else {
                    return Err(structure(
                        &f.insts[t],
                        fname,
                        format!("branch target %{} is not a block of this function", w[p]),
                    ));
                };
                f.succ_list.push(s);
            }
        }
        f.succ_start.push(f.succ_list.len() as u32);
        Ok(f)
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

    /// Successor labels of a block's terminator, as word positions.
    fn successor_positions(&self, b: usize) -> Vec<usize> {
        let t = self.terminator(b);
        match self.insts[t].opcode {
            op::Branch => vec![1],
            op::BranchConditional => vec![2, 3],
            op::Switch => self
                .ids(t)
                .iter()
                .filter(|(p, _)| *p >= 2)
                .map(|(p, _)| *p as usize)
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Successor blocks of block `b`, in terminator order.
    pub(super) fn successors(&self, b: usize) -> &[usize] {
        &self.succ_list[self.succ_start[b] as usize..self.succ_start[b + 1] as usize]
    }
}

/// What a pre-pass over a function's result words finds: the window of
/// ids it defines, which of them the lattice tracks, and its block count.
struct Results {
    window: Window,
    /// Per id of `window`: the result of an `OpPhi`, `OpSelect` or logic op.
    tracked: Vec<bool>,
    labels: usize,
}

impl Results {
    /// Scans the result words of `list`.
    fn find(words: &[u32], list: &[Inst]) -> Results {
        let (mut lo, mut hi, mut labels) = (u32::MAX, 0u32, 0usize);
        for inst in list {
            labels += usize::from(inst.opcode == op::Label);
            // The function's own id is numbered with the module's functions,
            // far from its body's ids: leave it to the hash map.
            if inst.opcode == op::Function {
                continue;
            }
            if let Some(p) = result_pos(inst.opcode).filter(|&p| p < inst.len) {
                let id = words[inst.at + p];
                lo = lo.min(id);
                hi = hi.max(id);
            }
        }
        let window = Window::new(lo, hi, list.len());
        let mut tracked = vec![false; window.len()];
        for inst in list {
            if Self::is_tracked(inst.opcode)
                && inst.len >= 3
                && let Some(k) = window.slot(words[inst.at + 2])
            {
                tracked[k] = true;
            }
        }
        Results {
            window,
            tracked,
            labels,
        }
    }

    /// True for the instructions whose result the lattice tracks.
    fn is_tracked(opcode: u16) -> bool {
        opcode == op::Phi || opcode == op::Select || is_logic(opcode)
    }

    /// True when the users of `id` may be asked for: a tracked result, or
    /// any id when the window is empty (nothing is known).
    fn followed(&self, id: u32) -> bool {
        if self.window.is_empty() {
            return true;
        }
        self.window.slot(id).is_some_and(|k| self.tracked[k])
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
