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
//!
//! Files: [`decode`] (the function as blocks, ids and edges), [`sccp`] (the
//! lattice and the propagation), [`order`] (dominators and block order), and
//! this file (the rewrite that uses them).

mod decode;
mod local_ids;
mod order;
mod sccp;

use crate::fastmap::{Map as HashMap, Set as HashSet};
use crate::module::{Inst, Module, push_inst};
use crate::operands::{Role, op, result_pos};

use super::context::{Context, Replacement, Val};
pub(in crate::specialize) use decode::Func;
pub(in crate::specialize) use decode::is_logic;
use decode::{short, structure};
use order::dominance_order;
use sccp::Sccp;
pub(in crate::specialize) use sccp::meet_logic;

use crate::error::Result;

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
    /// Positions in `words` that take the boolean constant of the given
    /// value (0 until then), in the order the rewrite needed them: the
    /// driver fills them, choosing each constant on its first need, so that
    /// the rewrite itself only reads the context.
    pub constant_uses: Vec<(usize, bool)>,
    /// Local chain values with their defining instruction, for messages
    /// (filled only when there are bad uses).
    pub chain_defs: HashMap<u32, Inst>,
}

/// Specializes one function whose words are `m.words[start..end]`.
pub fn rewrite(
    m: &Module<'_>,
    ctx: &Context<'_>,
    start: usize,
    end: usize,
    fname: &str,
) -> Result<Rewritten> {
    let f = Func::decode(m, ctx, start, end, fname)?;
    rewrite_decoded(m, &f, ctx, start, end, fname)
}

/// [`rewrite`] of a function decoded before: decoding does not depend on
/// the predicates' values, so a batch decodes each function once for all
/// its sets of values.
pub(in crate::specialize) fn rewrite_decoded(
    m: &Module<'_>,
    f: &Func<'_>,
    ctx: &Context<'_>,
    start: usize,
    end: usize,
    fname: &str,
) -> Result<Rewritten> {
    let mut out = Rewritten::default();
    if f.blocks.is_empty() {
        out.words = m.words[start..end].to_vec();
        return Ok(out);
    }
    let n = f.blocks.len();
    let mut s = Sccp {
        f,
        ctx,
        lat: HashMap::with_capacity_and_hasher(n, Default::default()),
        exec_block: vec![false; n],
        exec_edge: vec![false; f.succ_list.len()],
        block_wl: Vec::new(),
        value_wl: Vec::new(),
        decided: HashMap::with_capacity_and_hasher(n, Default::default()),
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
    let chain = local_chain(f, ctx);

    // What replaces each deleted value.
    let subst = substitutions(f, &lat, &live);

    // Merge instructions and the blocks they keep alive.
    let (merge_action, stubs) = merge_actions(f, &live, &decided, fname)?;

    // Blocks of the result, in an order where each block follows its
    // immediate dominator.
    let kept: Vec<usize> = (0..n).filter(|&b| live[b] || stubs.contains(&b)).collect();
    let order = dominance_order(f, &kept, &live, &decided);
    out.blocks_removed = n - kept.len();

    // Emit.
    let mut words = Vec::with_capacity(end - start);
    let head_end = f.blocks[0].first - 1;
    for i in 0..head_end {
        emit_substituted(f, i, &subst, ctx, &mut out.constant_uses, &mut words);
    }
    for &b in &order {
        let blk = &f.blocks[b];
        words.extend_from_slice(f.inst_words(blk.first - 1)); // OpLabel
        if stubs.contains(&b) {
            push_inst(&mut words, op::Unreachable, []);
            continue;
        }
        for i in blk.first..blk.end {
            let inst = f.insts[i];
            let w = f.inst_words(i);
            if let Some(a) = merge_action.get(&i) {
                match a {
                    MergeAction::Keep => {
                        emit_substituted(f, i, &subst, ctx, &mut out.constant_uses, &mut words)
                    }
                    MergeAction::Drop => {}
                    MergeAction::ToSelection => {
                        push_inst(&mut words, op::SelectionMerge, [w[1], 0])
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
                push_inst(&mut words, op::Branch, [target]);
                out.branches_folded += 1;
                continue;
            }
            if inst.opcode == op::Phi {
                emit_phi(
                    f,
                    i,
                    b,
                    &live,
                    &decided,
                    &subst,
                    ctx,
                    &mut out.constant_uses,
                    &mut words,
                );
                continue;
            }
            if inst.opcode == op::FunctionCall && w.len() >= 4 {
                out.callees.push(w[3]);
            }
            // Chain values used where they cannot be folded.
            if !allowed_chain_user(f, i) {
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
            emit_substituted(f, i, &subst, ctx, &mut out.constant_uses, &mut words);
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
    removed_block_ids(f, &live, &stubs, &mut out.removed_ids);
    Ok(out)
}

/// What replaces each value SCCP folded in a live block: a constant, or
/// another id it equals.
fn substitutions(f: &Func<'_>, lat: &HashMap<u32, Val>, live: &[bool]) -> HashMap<u32, Val> {
    let mut subst: HashMap<u32, Val> =
        HashMap::with_capacity_and_hasher(lat.len(), Default::default());
    for (&id, &v) in lat {
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
    subst
}

/// What becomes of each live block's merge instruction (kept, dropped, or
/// turned into a selection merge), and the dead merge blocks that must stay
/// as `OpUnreachable` stubs because a kept merge names them.
fn merge_actions(
    f: &Func<'_>,
    live: &[bool],
    decided: &HashMap<usize, usize>,
    fname: &str,
) -> Result<(HashMap<usize, MergeAction>, HashSet<usize>)> {
    let n = f.blocks.len();
    let mut merge_action: HashMap<usize, MergeAction> =
        HashMap::with_capacity_and_hasher(n, Default::default());
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
                .get_or_insert_with(|| predecessors(f))
                .get(b)
                .into_iter()
                .flatten()
                .any(|&x| x >= b && kept_edge(f, x, b, live, decided));
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
    Ok((merge_action, stubs))
}

/// Pushes onto `removed` the ids defined in removed blocks: their labels
/// (stubs keep theirs) and every result.
fn removed_block_ids(f: &Func<'_>, live: &[bool], stubs: &HashSet<usize>, removed: &mut Vec<u32>) {
    for (b, _) in live.iter().enumerate().filter(|(_, l)| !**l) {
        if !stubs.contains(&b) {
            removed.push(f.blocks[b].label);
        }
        for i in f.blocks[b].first..f.blocks[b].end {
            if let Some(pos) = result_pos(f.insts[i].opcode)
                && let Some(&id) = f.inst_words(i).get(pos)
            {
                removed.push(id);
            }
        }
    }
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
    ctx: &Context<'_>,
    constant_uses: &mut Vec<(usize, bool)>,
    out: &mut Vec<u32>,
) {
    let w = f.inst_words(i);
    let start = out.len();
    out.extend_from_slice(w);
    for &(pos, role) in f.ids(i) {
        if matches!(role, Role::Use | Role::MaybeId)
            && let Some(r) = replacement(w[pos as usize], subst, ctx)
        {
            out[start + pos as usize] = place(r, start + pos as usize, constant_uses);
        }
    }
}

/// The word for a replacement at `out` position `at`: the id itself, or a
/// placeholder recorded in `constant_uses` for the driver to fill with the
/// boolean constant it chooses.
fn place(r: Replacement, at: usize, constant_uses: &mut Vec<(usize, bool)>) -> u32 {
    match r {
        Replacement::Id(id) => id,
        Replacement::Constant(b) => {
            constant_uses.push((at, b));
            0
        }
    }
}

/// What replaces `id`, if anything: chases local substitutions, then the
/// module-level ones (resolved predicates and folded module-level chain).
fn replacement(id: u32, subst: &HashMap<u32, Val>, ctx: &Context<'_>) -> Option<Replacement> {
    let mut cur = id;
    for _ in 0..=subst.len() {
        match subst.get(&cur) {
            Some(Val::Const(b)) => return Some(Replacement::Constant(*b)),
            Some(Val::Same(x)) => cur = *x,
            _ => break,
        }
    }
    ctx.replacement(cur)
        .or_else(|| (cur != id).then_some(Replacement::Id(cur)))
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
    ctx: &Context<'_>,
    constant_uses: &mut Vec<(usize, bool)>,
    out: &mut Vec<u32>,
) {
    let w = f.inst_words(i);
    // Where `body[k]` lands: after the header word.
    let base = out.len() + 1;
    let mut body = vec![w[1], w[2]];
    for pair in w[3..].chunks(2) {
        let [v, parent] = pair else { continue };
        let Some(&pb) = f.block_of_label.get(parent) else {
            continue;
        };
        if kept_edge(f, pb, b, live, decided) {
            let word = match replacement(*v, subst, ctx) {
                Some(r) => place(r, base + body.len(), constant_uses),
                None => *v,
            };
            body.push(word);
            body.push(*parent);
        }
    }
    push_inst(out, op::Phi, body);
}
