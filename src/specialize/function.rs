//! The per-function rewrite: fold what the predicates decide, drop the dead
//! arms, repair phis and merge instructions.
//!
//! Only functions that use a predicate (or a module-level value computed from
//! one) come here; all others are copied as word ranges.
//!
//! Algorithm: sparse conditional constant propagation (Wegman–Zadeck) over the
//! function's CFG, restricted to what predicates can reach. Each value is
//! `Top` (not yet known), `Const(b)`, `Same(x)` (equal to the existing value
//! `x`) or `Varying`. Boolean constants and the resolved predicates seed the
//! lattice; `OpLogical*`, `OpSelect` and `OpPhi` propagate it; a conditional
//! branch (or `OpSwitch`) on a known value makes only one edge executable.
//! Blocks no executable edge reaches are removed, phis lose the pairs of
//! removed edges, instructions whose value became known are deleted and their
//! uses rewritten. Because only executable edges feed phis, `p && i < n`
//! loop conditions (a phi of `false` and `i < n`) fold exactly when `p` is
//! false. Merge instructions are kept valid: a folded selection loses its
//! `OpSelectionMerge`; a loop whose continue target died loses its loop
//! construct; a merge block still named by a live header but no longer
//! reached becomes `OpLabel; OpUnreachable`. Blocks are re-ordered only where
//! a block would otherwise precede its new dominator.
//!
//! Separately, a flow-insensitive pass marks the *chain*: boolean values
//! computed from predicates through logic ops, boolean selects and phis. A
//! chain value used by anything else in a live block is an unresolved use.

use crate::fastmap::{Map as HashMap, Set as HashSet};

use crate::error::{Error, Result};
use crate::module::{Inst, Module, insts};
use crate::operands::{Role, for_each_id, op, result_pos};

use super::context::{Context, Val};

/// A use of a chain value the pass cannot fold, found in a live block.
#[derive(Debug, Clone)]
pub struct BadUse {
    /// Label of the block.
    pub block: u32,
    /// The using instruction.
    pub inst: Inst,
    /// The chain value it uses.
    pub value: u32,
}

/// What rewriting one function produced.
#[derive(Debug, Default)]
pub struct Rewritten {
    /// The function's new words (`OpFunction` … `OpFunctionEnd`).
    pub words: Vec<u32>,
    /// Callees of live `OpFunctionCall`s, in order.
    pub callees: Vec<u32>,
    /// Unresolved uses in live blocks.
    pub bad_uses: Vec<BadUse>,
    /// Result ids that no longer exist (deleted instructions, removed blocks).
    pub removed_ids: Vec<u32>,
    /// Conditional branches and switches made unconditional.
    pub branches_folded: usize,
    /// Selects replaced by their chosen operand.
    pub selects_folded: usize,
    /// Phis replaced by their one value.
    pub phis_folded: usize,
    /// Blocks removed.
    pub blocks_removed: usize,
    /// Local chain values with their defining instruction, for messages
    /// (filled only when there are bad uses).
    pub chain_defs: HashMap<u32, Inst>,
}

struct Block {
    label: u32,
    /// Instruction indices `[first, end)`, label excluded.
    first: usize,
    end: usize,
}

/// The decoded function.
struct Func<'m> {
    words: &'m [u32],
    insts: Vec<Inst>,
    /// `(word index within the instruction, role)` of every id, all
    /// instructions back to back; `id_start[i]..id_start[i + 1]` are
    /// instruction `i`'s.
    id_list: Vec<(u32, Role)>,
    id_start: Vec<u32>,
    blocks: Vec<Block>,
    block_of_label: HashMap<u32, usize>,
    /// Successor blocks of every block, back to back;
    /// `succ_start[b]..succ_start[b + 1]` are block `b`'s.
    succ_list: Vec<usize>,
    succ_start: Vec<u32>,
    /// Block index of each instruction (usize::MAX before the first label).
    block_of_inst: Vec<usize>,
    /// Defining instruction index of each local result id.
    def: HashMap<u32, usize>,
    /// Instructions using each local or global id.
    /// `(id, instruction)` for every use, sorted: the users of an id are
    /// one contiguous run.
    uses: Vec<(u32, u32)>,
}

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

pub(super) fn is_logic(opcode: u16) -> bool {
    matches!(
        opcode,
        op::LogicalNot | op::LogicalAnd | op::LogicalOr | op::LogicalEqual | op::LogicalNotEqual
    )
}

impl<'m> Func<'m> {
    fn decode(
        m: &Module<'m>,
        ctx: &Context<'_>,
        start: usize,
        end: usize,
        fname: &str,
    ) -> Result<Self> {
        let words = m.words;
        let list: Vec<Inst> = insts(words, start, end).collect();
        let mut f = Func {
            words,
            id_list: Vec::with_capacity(list.len() * 3),
            id_start: Vec::with_capacity(list.len() + 1),
            blocks: Vec::new(),
            block_of_label: HashMap::default(),
            succ_list: Vec::new(),
            succ_start: Vec::new(),
            block_of_inst: Vec::with_capacity(list.len()),
            def: HashMap::default(),
            uses: Vec::new(),
            insts: list,
        };
        // Types of local values, for OpSwitch literal widths.
        let mut local_type: HashMap<u32, u32> = HashMap::default();
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
            let width = |sel: u32| {
                let ty = local_type
                    .get(&sel)
                    .copied()
                    .or_else(|| ctx.globals.type_of(m, sel));
                match ty.and_then(|t| ctx.globals.int_width.get(&t)) {
                    Some(w) if *w > 32 => 2,
                    _ => 1,
                }
            };
            let list = &mut f.id_list;
            for_each_id(iw, inst.byte_offset(), &width, &mut |pos, role| {
                list.push((pos as u32, role))
            })?;
            let mut ty = None;
            for &(pos, role) in &f.id_list[first_id..] {
                let id = iw[pos as usize];
                match role {
                    Role::Result => {
                        if id == 0 || id >= m.bound() {
                            return Err(crate::error::binary(
                                inst.byte_offset() + pos as usize * 4,
                                format!(
                                    "id {id} is out of range (the header's bound is {})",
                                    m.bound()
                                ),
                            ));
                        }
                        f.def.insert(id, i);
                        if let Some(t) = ty {
                            local_type.insert(id, t);
                        }
                    }
                    Role::ResultType => ty = Some(id),
                    Role::Use | Role::MaybeId => f.uses.push((id, i as u32)),
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
    fn users(&self, id: u32) -> impl Iterator<Item = usize> + '_ {
        let start = self.uses.partition_point(|&(x, _)| x < id);
        self.uses[start..]
            .iter()
            .take_while(move |&&(x, _)| x == id)
            .map(|&(_, i)| i as usize)
    }

    /// The id positions of instruction `i`.
    fn ids(&self, i: usize) -> &[(u32, Role)] {
        &self.id_list[self.id_start[i] as usize..self.id_start[i + 1] as usize]
    }

    fn inst_words(&self, i: usize) -> &'m [u32] {
        let inst = self.insts[i];
        &self.words[inst.at..inst.end()]
    }

    fn terminator(&self, b: usize) -> usize {
        self.blocks[b].end - 1
    }

    /// The merge instruction of a block (the one before its terminator).
    fn merge_inst(&self, b: usize) -> Option<usize> {
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
    fn successors(&self, b: usize) -> &[usize] {
        &self.succ_list[self.succ_start[b] as usize..self.succ_start[b + 1] as usize]
    }
}

fn short(inst: &Inst, fname: &str) -> Error {
    structure(inst, fname, "instruction too short".to_string())
}

fn structure(inst: &Inst, fname: &str, message: String) -> Error {
    Error::Structure {
        offset: inst.byte_offset(),
        function: Some(fname.to_string()),
        message,
    }
}

/// Lattice value with the evaluation helpers of SCCP.
pub(super) fn meet_logic(opcode: u16, a: Val, b: Val) -> Val {
    use Val::*;
    match opcode {
        op::LogicalAnd => match (a, b) {
            (Const(false), _) | (_, Const(false)) => Const(false),
            (Top, _) | (_, Top) => Top,
            (Const(true), x) | (x, Const(true)) => x,
            (Same(x), Same(y)) if x == y => Same(x),
            _ => Varying,
        },
        op::LogicalOr => match (a, b) {
            (Const(true), _) | (_, Const(true)) => Const(true),
            (Top, _) | (_, Top) => Top,
            (Const(false), x) | (x, Const(false)) => x,
            (Same(x), Same(y)) if x == y => Same(x),
            _ => Varying,
        },
        op::LogicalEqual => match (a, b) {
            (Top, _) | (_, Top) => Top,
            (Const(x), Const(y)) => Const(x == y),
            (Const(true), x) | (x, Const(true)) => x,
            (Same(x), Same(y)) if x == y => Const(true),
            _ => Varying,
        },
        op::LogicalNotEqual => match (a, b) {
            (Top, _) | (_, Top) => Top,
            (Const(x), Const(y)) => Const(x != y),
            (Const(false), x) | (x, Const(false)) => x,
            (Same(x), Same(y)) if x == y => Const(false),
            _ => Varying,
        },
        _ => Varying,
    }
}

struct Sccp<'a, 'm> {
    f: &'a Func<'m>,
    ctx: &'a Context<'a>,
    lat: HashMap<u32, Val>,
    exec_block: Vec<bool>,
    /// Executable flag of each CFG edge, indexed like `Func::succ_list`.
    exec_edge: Vec<bool>,
    block_wl: Vec<usize>,
    value_wl: Vec<u32>,
    /// Per block: the one successor a folded terminator keeps (by block).
    decided: HashMap<usize, usize>,
    fname: &'a str,
}

impl<'a, 'm> Sccp<'a, 'm> {
    /// The lattice value of an operand.
    fn value(&self, id: u32) -> Val {
        if let Some(v) = self.lat.get(&id) {
            return match v {
                Val::Varying => Val::Same(id),
                other => *other,
            };
        }
        if self.f.def.contains_key(&id) && self.tracked(self.f.def[&id]) {
            return Val::Top;
        }
        match self.ctx.global_val(id) {
            Some(v) => v,
            None => Val::Same(id),
        }
    }

    /// True for instructions whose value the lattice models.
    fn tracked(&self, i: usize) -> bool {
        let opcode = self.f.insts[i].opcode;
        opcode == op::Phi || opcode == op::Select || is_logic(opcode)
    }

    fn run(&mut self) -> Result<()> {
        self.exec_block[0] = true;
        self.block_wl.push(0);
        while !self.block_wl.is_empty() || !self.value_wl.is_empty() {
            while let Some(b) = self.block_wl.pop() {
                let (first, end) = (self.f.blocks[b].first, self.f.blocks[b].end);
                for i in first..end {
                    self.visit(i)?;
                }
            }
            while let Some(id) = self.value_wl.pop() {
                for u in self.f.users(id) {
                    let b = self.f.block_of_inst[u];
                    if b != usize::MAX && self.exec_block[b] {
                        self.visit(u)?;
                    }
                }
            }
        }
        Ok(())
    }

    fn set(&mut self, id: u32, new: Val) {
        let old = self.lat.get(&id).copied().unwrap_or(Val::Top);
        let new = match (old, new) {
            (_, Val::Top) => old,
            (Val::Top, n) => n,
            (o, n) if o == n => o,
            _ => Val::Varying,
        };
        if new != old {
            self.lat.insert(id, new);
            self.value_wl.push(id);
        }
    }

    /// True when some edge `from → to` is executable.
    fn executable(&self, from: usize, to: usize) -> bool {
        let f = self.f;
        let start = f.succ_start[from] as usize;
        f.successors(from)
            .iter()
            .enumerate()
            .any(|(k, &s)| s == to && self.exec_edge[start + k])
    }

    fn mark_edge(&mut self, from: usize, to: usize) {
        let f = self.f;
        let start = f.succ_start[from] as usize;
        let mut new = false;
        for (k, &s) in f.successors(from).iter().enumerate() {
            if s == to && !self.exec_edge[start + k] {
                self.exec_edge[start + k] = true;
                new = true;
            }
        }
        if new {
            if self.exec_block[to] {
                // New incoming edge: phis of `to` must be re-evaluated.
                let (first, end) = (self.f.blocks[to].first, self.f.blocks[to].end);
                for i in first..end {
                    if self.f.insts[i].opcode == op::Phi {
                        let _ = self.visit(i);
                    }
                }
            } else {
                self.exec_block[to] = true;
                self.block_wl.push(to);
            }
        }
    }

    fn visit(&mut self, i: usize) -> Result<()> {
        let inst = self.f.insts[i];
        let w = self.f.inst_words(i);
        let b = self.f.block_of_inst[i];
        match inst.opcode {
            op::Phi if w.len() >= 3 => {
                let mut acc = Val::Top;
                let mut edges = 0;
                for pair in w[3..].chunks(2) {
                    let [v, parent] = pair else { continue };
                    let Some(&pb) = self.f.block_of_label.get(parent) else {
                        return Err(structure(
                            &inst,
                            self.fname,
                            format!("OpPhi names %{parent}, which is not a block of this function"),
                        ));
                    };
                    if !self.executable(pb, b) {
                        continue;
                    }
                    edges += 1;
                    let val = self.value(*v);
                    acc = match (acc, val) {
                        (Val::Top, x) | (x, Val::Top) => x,
                        (x, y) if x == y => x,
                        _ => Val::Varying,
                    };
                }
                // A local value may stand in for the phi only on a single edge.
                if let Val::Same(x) = acc
                    && edges > 1
                    && self.f.def.contains_key(&x)
                {
                    acc = Val::Varying;
                }
                self.set(w[2], acc);
            }
            opc if is_logic(opc) && w.len() >= 4 => {
                let a = self.value(w[3]);
                let v = if opc == op::LogicalNot {
                    match a {
                        Val::Const(x) => Val::Const(!x),
                        Val::Top => Val::Top,
                        _ => Val::Varying,
                    }
                } else if w.len() >= 5 {
                    meet_logic(opc, a, self.value(w[4]))
                } else {
                    Val::Varying
                };
                self.set(w[2], v);
            }
            op::Select if w.len() >= 6 => {
                let v = match self.value(w[3]) {
                    Val::Const(true) => self.value(w[4]),
                    Val::Const(false) => self.value(w[5]),
                    Val::Top => Val::Top,
                    _ => Val::Varying,
                };
                self.set(w[2], v);
            }
            op::Branch | op::BranchConditional | op::Switch => {
                let f = self.f;
                let succ = f.successors(b);
                let chosen = match inst.opcode {
                    op::BranchConditional => match self.value(w[1]) {
                        Val::Const(true) => Some(Some(succ[0])),
                        Val::Const(false) => Some(Some(succ[1])),
                        Val::Top => Some(None),
                        _ => None,
                    },
                    op::Switch => self.switch_target(i, succ),
                    _ => None,
                };
                match chosen {
                    Some(Some(s)) => {
                        if succ.iter().any(|&x| x != s) {
                            self.decided.insert(b, s);
                        }
                        self.mark_edge(b, s);
                    }
                    Some(None) => {} // condition not known yet
                    None => {
                        self.decided.remove(&b);
                        for &s in succ {
                            self.mark_edge(b, s);
                        }
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// For a switch on a value known to be a module-level integer constant:
    /// `Some(Some(target))`; on an unknown value `Some(None)`; else `None`.
    fn switch_target(&self, i: usize, succ: &[usize]) -> Option<Option<usize>> {
        let w = self.f.inst_words(i);
        let sel = match self.value(w[1]) {
            Val::Top => return Some(None),
            Val::Same(x) if x != w[1] => x,
            _ => return None,
        };
        let value = self.ctx.int_constant(sel)?;
        // succ[0] is the default, then one per case, in order.
        let lit = self
            .f
            .ids(i)
            .iter()
            .filter(|(p, _)| *p >= 3)
            .map(|(p, _)| *p as usize)
            .collect::<Vec<_>>();
        let mut prev = 3;
        for (k, &label_pos) in lit.iter().enumerate() {
            let lit_words = &w[prev..label_pos];
            let case = lit_words
                .iter()
                .rev()
                .fold(0u64, |acc, &x| (acc << 32) | x as u64);
            if case == value {
                return Some(Some(succ[k + 1]));
            }
            prev = label_pos + 1;
        }
        Some(Some(succ[0]))
    }
}

/// Specializes one function whose words are `m.words[start..end]`.
pub fn rewrite(
    m: &Module<'_>,
    ctx: &mut Context<'_>,
    start: usize,
    end: usize,
    fname: &str,
) -> Result<Rewritten> {
    let f = Func::decode(m, ctx, start, end, fname)?;
    let mut out = Rewritten::default();
    if f.blocks.is_empty() {
        out.words = m.words[start..end].to_vec();
        return Ok(out);
    }
    let n = f.blocks.len();
    let mut s = Sccp {
        f: &f,
        ctx,
        lat: HashMap::default(),
        exec_block: vec![false; n],
        exec_edge: vec![false; f.succ_list.len()],
        block_wl: Vec::new(),
        value_wl: Vec::new(),
        decided: HashMap::default(),
        fname,
    };
    s.run()?;
    let Sccp {
        lat,
        exec_block: live,
        decided,
        ..
    } = s;

    // The chain: local booleans computed from predicates (flow-insensitive).
    let chain = local_chain(&f, ctx);

    // What replaces each deleted value.
    let mut subst: HashMap<u32, Val> = HashMap::default();
    for (&id, &v) in &lat {
        let i = f.def[&id];
        let b = f.block_of_inst[i];
        if b == usize::MAX || !live[b] {
            continue;
        }
        match v {
            Val::Const(_) => {
                subst.insert(id, v);
            }
            Val::Same(x) if x != id => {
                subst.insert(id, v);
            }
            _ => {}
        }
    }

    // Merge instructions and the blocks they keep alive.
    let mut merge_action: HashMap<usize, MergeAction> = HashMap::default();
    let mut preds: Option<Vec<Vec<usize>>> = None;
    let mut stubs: HashSet<usize> = HashSet::default();
    for b in 0..n {
        if !live[b] {
            continue;
        }
        let Some(mi) = f.merge_inst(b) else { continue };
        let mw = f.inst_words(mi);
        let folded = decided.contains_key(&b);
        let block_of = |label: u32| {
            f.block_of_label.get(&label).copied().ok_or_else(|| {
                structure(
                    &f.insts[mi],
                    fname,
                    format!(
                        "merge instruction names %{label}, which is not a block of this function"
                    ),
                )
            })
        };
        let action = if f.insts[mi].opcode == op::SelectionMerge {
            if folded {
                MergeAction::Drop
            } else {
                MergeAction::Keep
            }
        } else {
            let cont = block_of(*mw.get(2).ok_or_else(|| short(&f.insts[mi], fname))?)?;
            let conditional = matches!(
                f.insts[f.terminator(b)].opcode,
                op::BranchConditional | op::Switch
            );
            // A back edge is an edge into the header from a block laid out
            // at or after it (structured blocks follow their dominators).
            let back_edge = preds
                .get_or_insert_with(|| predecessors(&f))
                .get(b)
                .into_iter()
                .flatten()
                .any(|&x| x >= b && kept_edge(&f, x, b, &live, &decided));
            if live[cont] && back_edge {
                MergeAction::Keep
            } else if folded || !conditional {
                // No back edge is left: the loop construct goes. An
                // unconditional header needs no merge at all.
                MergeAction::Drop
            } else {
                // Still a two-way header: keep it a selection.
                MergeAction::ToSelection
            }
        };
        if action != MergeAction::Drop {
            let merge = block_of(*mw.get(1).ok_or_else(|| short(&f.insts[mi], fname))?)?;
            if !live[merge] {
                stubs.insert(merge);
            }
        }
        merge_action.insert(mi, action);
    }

    // Blocks of the result, in an order where each block follows its
    // immediate dominator.
    let kept: Vec<usize> = (0..n).filter(|&b| live[b] || stubs.contains(&b)).collect();
    let order = dominance_order(&f, &kept, &live, &decided);
    out.blocks_removed = n - kept.len();

    // Emit.
    let mut words = Vec::with_capacity(end - start);
    let head_end = f.blocks[0].first - 1;
    for i in 0..head_end {
        emit_substituted(&f, i, &subst, ctx, &mut words);
    }
    for &b in &order {
        let blk = &f.blocks[b];
        words.extend_from_slice(f.inst_words(blk.first - 1)); // OpLabel
        if stubs.contains(&b) {
            words.extend_from_slice(&[(1 << 16) | op::Unreachable as u32]);
            continue;
        }
        for i in blk.first..blk.end {
            let inst = f.insts[i];
            let w = f.inst_words(i);
            if let Some(a) = merge_action.get(&i) {
                match a {
                    MergeAction::Keep => emit_substituted(&f, i, &subst, ctx, &mut words),
                    MergeAction::Drop => {}
                    MergeAction::ToSelection => {
                        words.extend_from_slice(&[(3 << 16) | op::SelectionMerge as u32, w[1], 0])
                    }
                }
                continue;
            }
            if let Some(pos) = result_pos(inst.opcode)
                && let Some(&id) = w.get(pos)
                && subst.contains_key(&id)
            {
                match inst.opcode {
                    op::Select => out.selects_folded += 1,
                    op::Phi => out.phis_folded += 1,
                    _ => {}
                }
                out.removed_ids.push(id);
                continue;
            }
            if i == blk.end - 1 && decided.contains_key(&b) {
                let target = f.blocks[decided[&b]].label;
                words.extend_from_slice(&[(2 << 16) | op::Branch as u32, target]);
                out.branches_folded += 1;
                continue;
            }
            if inst.opcode == op::Phi {
                emit_phi(&f, i, b, &live, &decided, &subst, ctx, &mut words);
                continue;
            }
            if inst.opcode == op::FunctionCall && w.len() >= 4 {
                out.callees.push(w[3]);
            }
            // Chain values used where they cannot be folded.
            if !allowed_chain_user(&f, i) {
                for &(pos, role) in f.ids(i) {
                    let id = w[pos as usize];
                    if matches!(role, Role::Use | Role::MaybeId)
                        && (chain.contains(&id) || ctx.is_chain(id))
                    {
                        out.bad_uses.push(BadUse {
                            block: blk.label,
                            inst,
                            value: id,
                        });
                    }
                }
            }
            emit_substituted(&f, i, &subst, ctx, &mut words);
        }
    }
    words.extend_from_slice(f.inst_words(f.insts.len() - 1)); // OpFunctionEnd
    out.words = words;
    if !out.bad_uses.is_empty() {
        // Only an error message needs the chain's definitions.
        for &id in &chain {
            out.chain_defs.insert(id, f.insts[f.def[&id]]);
        }
    }

    // Ids that no longer exist: results in removed blocks.
    for (b, _) in live.iter().enumerate().filter(|(_, l)| !**l) {
        if !stubs.contains(&b) {
            out.removed_ids.push(f.blocks[b].label);
        }
        for i in f.blocks[b].first..f.blocks[b].end {
            if let Some(pos) = result_pos(f.insts[i].opcode)
                && let Some(&id) = f.inst_words(i).get(pos)
            {
                out.removed_ids.push(id);
            }
        }
    }
    Ok(out)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MergeAction {
    Keep,
    Drop,
    ToSelection,
}

/// Predecessor blocks of every block in the input CFG.
fn predecessors(f: &Func<'_>) -> Vec<Vec<usize>> {
    let mut preds = vec![Vec::new(); f.blocks.len()];
    for b in 0..f.blocks.len() {
        for &s in f.successors(b) {
            preds[s].push(b);
        }
    }
    preds
}

/// True when the result keeps an edge `from → to`.
fn kept_edge(
    f: &Func<'_>,
    from: usize,
    to: usize,
    live: &[bool],
    decided: &HashMap<usize, usize>,
) -> bool {
    live[from]
        && match decided.get(&from) {
            Some(&d) => d == to,
            None => f.successors(from).contains(&to),
        }
}

/// True when instruction `i` may consume chain values.
fn allowed_chain_user(f: &Func<'_>, i: usize) -> bool {
    match f.insts[i].opcode {
        o if is_logic(o) => true,
        op::Phi => true,
        op::Select => true, // bool select: any operand; other types: only the condition is bool
        op::BranchConditional => true, // only its condition can be a value
        _ => false,
    }
}

/// Local chain values: bool results of logic ops, selects and phis with a
/// chain operand (global or local), to a fixpoint.
fn local_chain(f: &Func<'_>, ctx: &Context<'_>) -> HashSet<u32> {
    let mut chain: HashSet<u32> = HashSet::default();
    let mut work: Vec<u32> = f
        .uses
        .iter()
        .map(|&(id, _)| id)
        .filter(|id| ctx.is_chain(*id))
        .collect();
    work.dedup();
    while let Some(id) = work.pop() {
        for u in f.users(id) {
            let inst = f.insts[u];
            if !(is_logic(inst.opcode) || inst.opcode == op::Select || inst.opcode == op::Phi) {
                continue;
            }
            let w = f.inst_words(u);
            if w.len() < 3 || Some(w[1]) != ctx.globals.bool_type {
                continue;
            }
            if chain.insert(w[2]) {
                work.push(w[2]);
            }
        }
    }
    chain
}

/// Copies instruction `i`, rewriting uses of substituted ids.
fn emit_substituted(
    f: &Func<'_>,
    i: usize,
    subst: &HashMap<u32, Val>,
    ctx: &mut Context<'_>,
    out: &mut Vec<u32>,
) {
    let w = f.inst_words(i);
    let start = out.len();
    out.extend_from_slice(w);
    for &(pos, role) in f.ids(i) {
        if matches!(role, Role::Use | Role::MaybeId)
            && let Some(r) = replacement(w[pos as usize], subst, ctx)
        {
            out[start + pos as usize] = r;
        }
    }
}

/// The id that replaces `id`, if any: chases local substitutions, then the
/// module-level ones (resolved predicates and folded module-level chain).
fn replacement(id: u32, subst: &HashMap<u32, Val>, ctx: &mut Context<'_>) -> Option<u32> {
    let mut cur = id;
    for _ in 0..=subst.len() {
        match subst.get(&cur) {
            Some(Val::Const(b)) => return Some(ctx.constant(*b)),
            Some(Val::Same(x)) => cur = *x,
            _ => break,
        }
    }
    let r = ctx.global_replacement(cur).unwrap_or(cur);
    (r != id).then_some(r)
}

/// Copies a phi, keeping only pairs whose edge survives.
#[allow(clippy::too_many_arguments)]
fn emit_phi(
    f: &Func<'_>,
    i: usize,
    b: usize,
    live: &[bool],
    decided: &HashMap<usize, usize>,
    subst: &HashMap<u32, Val>,
    ctx: &mut Context<'_>,
    out: &mut Vec<u32>,
) {
    let w = f.inst_words(i);
    let mut body = vec![w[1], w[2]];
    for pair in w[3..].chunks(2) {
        let [v, parent] = pair else { continue };
        let Some(&pb) = f.block_of_label.get(parent) else {
            continue;
        };
        if kept_edge(f, pb, b, live, decided) {
            body.push(replacement(*v, subst, ctx).unwrap_or(*v));
            body.push(*parent);
        }
    }
    out.push((((body.len() + 1) as u32) << 16) | op::Phi as u32);
    out.extend_from_slice(&body);
}

/// Orders `kept` blocks like the input, except that a block whose immediate
/// dominator (in the rewritten CFG) comes later waits until it is placed.
fn dominance_order(
    f: &Func<'_>,
    kept: &[usize],
    live: &[bool],
    decided: &HashMap<usize, usize>,
) -> Vec<usize> {
    let mut index: HashMap<usize, usize> = HashMap::default();
    for (k, &b) in kept.iter().enumerate() {
        index.insert(b, k);
    }
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); kept.len()];
    for (k, &b) in kept.iter().enumerate() {
        if !live[b] {
            continue;
        }
        let targets = match decided.get(&b) {
            Some(&d) => vec![d],
            None => f.successors(b).to_vec(),
        };
        succ[k].extend(targets.iter().filter_map(|t| index.get(t).copied()));
    }
    let idom = immediate_dominators(&succ);
    // Walk the input order; a block whose dominator is not placed yet waits
    // on that dominator and is placed (with its own waiters) right after it.
    let mut placed = vec![false; kept.len()];
    let mut waiters: Vec<Vec<usize>> = vec![Vec::new(); kept.len()];
    let mut order = Vec::with_capacity(kept.len());
    for (k, dom) in idom.iter().enumerate() {
        match *dom {
            Some(d) if d != k && !placed[d] => {
                waiters[d].push(k);
                continue;
            }
            _ => {}
        }
        let mut stack = vec![k];
        while let Some(b) = stack.pop() {
            order.push(kept[b]);
            placed[b] = true;
            // Waiters in input order: push in reverse so the first pops first.
            stack.extend(std::mem::take(&mut waiters[b]).into_iter().rev());
        }
    }
    // Blocks in a dominator cycle cannot exist; anything left keeps its place.
    order.extend((0..kept.len()).filter(|&k| !placed[k]).map(|k| kept[k]));
    order
}

/// Immediate dominators of nodes `0..n` (entry 0) by Cooper, Harvey and
/// Kennedy's iterative algorithm; `None` for nodes the entry does not reach.
/// Iterative throughout, so deep CFGs cannot overflow the stack.
fn immediate_dominators(succ: &[Vec<usize>]) -> Vec<Option<usize>> {
    let n = succ.len();
    const NONE: usize = usize::MAX;
    // Reverse postorder by an explicit-stack DFS.
    let mut postorder = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
    seen[0] = true;
    while let Some(top) = stack.last_mut() {
        let (v, k) = *top;
        if k < succ[v].len() {
            top.1 += 1;
            let w = succ[v][k];
            if !seen[w] {
                seen[w] = true;
                stack.push((w, 0));
            }
        } else {
            postorder.push(v);
            stack.pop();
        }
    }
    let mut rank = vec![NONE; n];
    for (i, &v) in postorder.iter().enumerate() {
        rank[v] = i; // higher rank = earlier in reverse postorder
    }
    // Predecessors as one sorted edge list: `(to, from)`.
    let mut edges: Vec<(usize, usize)> = succ
        .iter()
        .enumerate()
        .flat_map(|(v, ws)| ws.iter().map(move |&w| (w, v)))
        .collect();
    edges.sort_unstable();
    let preds = |b: usize| {
        let start = edges.partition_point(|&(w, _)| w < b);
        edges[start..]
            .iter()
            .take_while(move |&&(w, _)| w == b)
            .map(|&(_, v)| v)
    };
    let mut idom = vec![NONE; n];
    idom[0] = 0;
    let intersect = |idom: &[usize], mut a: usize, mut b: usize| {
        while a != b {
            while rank[a] < rank[b] {
                a = idom[a];
            }
            while rank[b] < rank[a] {
                b = idom[b];
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &b in postorder.iter().rev().skip(1) {
            let mut new = NONE;
            for p in preds(b) {
                if idom[p] == NONE {
                    continue;
                }
                new = if new == NONE {
                    p
                } else {
                    intersect(&idom, p, new)
                };
            }
            if new != idom[b] {
                idom[b] = new;
                changed = true;
            }
        }
    }
    idom.into_iter()
        .enumerate()
        .map(|(v, d)| (d != NONE && v != 0).then_some(d))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::immediate_dominators;

    #[test]
    fn dominators_of_a_diamond_and_a_loop() {
        // 0 -> 1, 2; 1 -> 3; 2 -> 3; 3 -> 4, 1 (back edge); 5 unreachable
        let succ = vec![vec![1, 2], vec![3], vec![3], vec![4, 1], vec![], vec![3]];
        let idom = immediate_dominators(&succ);
        assert_eq!(idom, vec![None, Some(0), Some(0), Some(0), Some(3), None]);
    }

    #[test]
    fn deep_chain_does_not_overflow() {
        let n = 200_000;
        let succ: Vec<Vec<usize>> = (0..n)
            .map(|i| if i + 1 < n { vec![i + 1] } else { vec![] })
            .collect();
        let idom = immediate_dominators(&succ);
        assert_eq!(idom[n - 1], Some(n - 2));
    }
}
