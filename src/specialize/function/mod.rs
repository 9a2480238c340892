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
//! Cost: the rewrite runs once per predicated function, so it keeps its
//! working storage in a [`Scratch`] the caller passes from one function to
//! the next (no per-function maps: every table is an array indexed by
//! noted instruction, block or local id), keeps nothing of the
//! instructions it leaves alone, decodes the operands only of the
//! instructions that read an id it may replace, and copies everything else
//! as word runs between the few instructions that change.
//!
//! Files: [`quick`] (the quick way, for the common shape), [`decode`](mod@decode)
//! (the function as blocks, edges and the instructions the rewrite looks
//! at), [`local_ids`] (dense maps over the function's ids), [`sccp`] (the
//! lattice and the propagation), [`order`] (dominators and block order),
//! [`rewritten`] (what a rewrite produces, and the builder both ways write
//! it with), and this file (the rewrite as its steps: decode, propagate,
//! mark the chain, plan substitutions and merges, order, emit).

mod decode;
mod local_ids;
mod order;
mod quick;
mod rewritten;
mod sccp;

use crate::module::{Module, header_word};
use crate::operands::{Role, op};

use decode::{NO_BLOCK, result_of};

use super::context::{Context, Replacement};
use super::lattice::{Val, is_logic};
pub(in crate::specialize) use decode::Func;
use decode::{short, structure};
use order::dominance_order;
use sccp::{NONE, Sccp};

pub(crate) use rewritten::{BadUse, Rewritten, Span};
use rewritten::{Emitted, Writing};

use crate::error::Result;

/// Storage reused across the functions of one run: the rewrite of a
/// function allocates little beyond its output once these have grown.
/// Holds nothing between calls that affects a result.
#[derive(Default)]
pub(super) struct Scratch {
    quick: quick::Buffers,
    func: decode::Buffers,
    sccp: sccp::Buffers,
    order: order::Buffers,
    /// Per noted instruction: what replaces its result ([`Val::Top`]:
    /// nothing).
    subst: Vec<Val>,
    /// Per noted instruction: its result is a local chain value.
    chain: Vec<bool>,
    /// The local chain values, and the chain walk's worklist.
    chain_ids: Vec<u32>,
    chain_work: Vec<u32>,
    /// Per block: what becomes of its merge instruction (`None`: no merge
    /// instruction, or a dead block).
    merge: Vec<Option<MergeAction>>,
    /// Per block: a dead merge block kept as `OpLabel; OpUnreachable`.
    stub: Vec<bool>,
    kept: Vec<usize>,
    order_out: Vec<usize>,
    /// The lists a rewrite is written into ([`Writing`]'s), reused.
    emitted: Emitted,
}

/// Specializes one function whose words are `m.words[start..end]`, using
/// (and growing) `scratch`.
pub(super) fn rewrite(
    m: &Module<'_>,
    ctx: &Context<'_>,
    start: usize,
    end: usize,
    fname: &str,
    scratch: &mut Scratch,
) -> Result<Rewritten> {
    let read = read_quick(m, ctx, start, end, scratch);
    if read && let Some(out) = rewrite_read_quick(m, ctx, start, end, fname, scratch) {
        return Ok(out);
    }
    let out = full_rewrite(m, ctx, start, end, fname, scratch)?;
    // (What the read found stays true whatever the values.)
    Ok(match read {
        true => out.with_read_callees(scratch.quick.callees()),
        false => out,
    })
}

impl Scratch {
    /// Takes back the storage of `r`, a rewrite no longer needed, for the
    /// next rewrite made in this scratch (see [`Writing::finish`]).
    pub(in crate::specialize) fn recycle(&mut self, r: Rewritten) {
        self.emitted.recycle(r);
    }
}

/// Reads the function in `m.words[start..end]` the quick way
/// ([`quick::read_function`]) into `scratch`, for [`rewrite_read_quick`]
/// with any context of the module: false when the full rewrite must take
/// it.
pub(in crate::specialize) fn read_quick(
    m: &Module<'_>,
    ctx: &Context<'_>,
    start: usize,
    end: usize,
    scratch: &mut Scratch,
) -> bool {
    quick::read_function(m.words, ctx, start, end, &mut scratch.quick).is_some()
}

/// The quick rewrite for `ctx` of the function [`read_quick`] read last
/// into `scratch` (`m.words[start..end]`, named `fname`), or `None` when
/// the full rewrite must do it for these values. Builds with debug
/// assertions and fuzz builds check it against the full rewrite.
pub(in crate::specialize) fn rewrite_read_quick(
    m: &Module<'_>,
    ctx: &Context<'_>,
    start: usize,
    end: usize,
    fname: &str,
    scratch: &mut Scratch,
) -> Option<Rewritten> {
    let out = quick::rewrite_read(
        m.words,
        ctx,
        start,
        end,
        &mut scratch.quick,
        &mut scratch.emitted,
    )?;
    #[cfg(any(debug_assertions, fuzzing))]
    check_quick(&out, &full_rewrite(m, ctx, start, end, fname, scratch));
    #[cfg(not(any(debug_assertions, fuzzing)))]
    let _ = fname;
    Some(out)
}

/// True when [`rewrite`] takes the quick way for the function in
/// `m.words[start..end]` (for tests: the cross-check alone cannot tell a
/// quick way that always declines).
#[cfg(test)]
pub(in crate::specialize) fn takes_quick_way(
    m: &Module<'_>,
    ctx: &Context<'_>,
    start: usize,
    end: usize,
) -> bool {
    let mut s = Scratch::default();
    quick::read_function(m.words, ctx, start, end, &mut s.quick).is_some()
        && quick::rewrite_read(m.words, ctx, start, end, &mut s.quick, &mut s.emitted).is_some()
}

/// [`rewrite`] without the quick way: decode, then the rewrite's steps.
fn full_rewrite(
    m: &Module<'_>,
    ctx: &Context<'_>,
    start: usize,
    end: usize,
    fname: &str,
    scratch: &mut Scratch,
) -> Result<Rewritten> {
    let f = Func::decode(m, ctx, start, end, fname, &mut scratch.func)?;
    let out = rewrite_decoded(&f, ctx, fname, scratch);
    f.recycle(&mut scratch.func);
    out
}

/// Checks that the quick rewrite gave what the full one gives (`full`):
/// every build with debug assertions (the tests) and every fuzz build
/// runs both on each function the quick way takes.
#[cfg(any(debug_assertions, fuzzing))]
fn check_quick(quick: &Rewritten, full: &Result<Rewritten>) {
    let full = full
        .as_ref()
        .expect("the full rewrite fails where the quick one took the function");
    let fields = |r: &Rewritten| {
        (
            r.spans().collect::<Vec<_>>(),
            r.own().to_vec(),
            r.callees().to_vec(),
            // (A set: the rewrites list its ids in different orders.)
            {
                let mut ids = r.removed_ids().to_vec();
                ids.sort_unstable();
                ids
            },
            r.constant_uses.clone(),
            [
                r.branches_folded,
                r.selects_folded,
                r.phis_folded,
                r.blocks_removed,
                r.bad_uses.len(),
                r.chain_defs.len(),
            ],
        )
    };
    assert_eq!(
        fields(quick),
        fields(full),
        "the quick and the full rewrite disagree"
    );
}

/// Decodes the function in `m.words[start..end]` for [`rewrite_decoded`],
/// in `scratch`'s storage.
pub(in crate::specialize) fn decode<'m>(
    m: &Module<'m>,
    ctx: &Context<'_>,
    start: usize,
    end: usize,
    fname: &str,
    scratch: &mut Scratch,
) -> Result<Func<'m>> {
    Func::decode(m, ctx, start, end, fname, &mut scratch.func)
}

/// [`rewrite`] of a function decoded before: decoding does not depend on
/// the predicates' values, so a batch decodes each function once for all
/// its sets of values.
pub(in crate::specialize) fn rewrite_decoded(
    f: &Func<'_>,
    ctx: &Context<'_>,
    fname: &str,
    scratch: &mut Scratch,
) -> Result<Rewritten> {
    if f.blocks.is_empty() {
        let mut out = Writing::new(&mut scratch.emitted);
        out.take_input(f.range.clone());
        Ok(out.finish(&mut scratch.emitted))
    } else {
        rewrite_blocks(f, ctx, fname, scratch)
    }
}

/// The rewrite of a decoded function with blocks, as its steps: propagate,
/// find the chain, plan substitutions and merges, order, emit.
fn rewrite_blocks(
    f: &Func<'_>,
    ctx: &Context<'_>,
    fname: &str,
    scratch: &mut Scratch,
) -> Result<Rewritten> {
    let mut s = Sccp::new(f, ctx, fname, &mut scratch.sccp);
    s.run()?;
    mark_chain(f, ctx, scratch);
    let substituted = substitutions(f, &s, &mut scratch.subst);
    merge_actions(f, &s.exec_block, &s.decided, fname, scratch)?;
    let live = &s.exec_block;
    scratch.kept.clear();
    scratch.kept.reserve(f.blocks.len());
    scratch.order_out.reserve(f.blocks.len());
    let stub = &scratch.stub;
    scratch
        .kept
        .extend((0..f.blocks.len()).filter(|&b| live[b] || stub[b]));
    dominance_order(
        f,
        &scratch.kept,
        live,
        &s.decided,
        &mut scratch.order,
        &mut scratch.order_out,
    );
    // At most every deleted result and every id of a removed block goes
    // (a result takes at least two words).
    let dead_ids: usize = (0..f.blocks.len())
        .filter(|&b| !live[b])
        .map(|b| 1 + (f.blocks[b].end - f.blocks[b].body) / 2)
        .sum();
    // The emitter adds at most two spans per noted instruction and three
    // per block, and writes at most the noted instructions' words and one
    // word per block (a stub's `OpUnreachable`).
    let noted_words: usize = f.noted.iter().map(|n| n.inst.end() - n.inst.at).sum();
    let mut out = Writing {
        blocks_removed: f.blocks.len() - scratch.kept.len(),
        ..Writing::new(&mut scratch.emitted)
    };
    out.removed_ids.reserve(substituted + dead_ids);
    out.callees.reserve(f.calls.len());
    out.spans
        .reserve(2 * f.noted.len() + 3 * f.blocks.len() + 2);
    out.own.reserve(noted_words + f.blocks.len());
    let e = Emitter {
        f,
        ctx,
        live,
        decided: &s.decided,
        subst: &scratch.subst,
        substituted,
        chain: &scratch.chain,
        merge: &scratch.merge,
        stub: &scratch.stub,
    };
    e.emit(&scratch.order_out, &mut out);
    if !out.bad_uses.is_empty() {
        // Only an error message needs the chain's definitions.
        for &id in &scratch.chain_ids {
            if let Some(d) = f.noted_def(id) {
                out.chain_defs.insert(id, f.noted[d].inst);
            }
        }
    }
    removed_block_ids(f, live, &scratch.stub, &mut out.removed_ids);
    s.recycle(&mut scratch.sccp);
    Ok(out.finish(&mut scratch.emitted))
}

/// What replaces each value SCCP folded in a live block, at its defining
/// noted instruction in `subst`: a constant, or another id it equals.
/// Returns how many there are.
fn substitutions(f: &Func<'_>, s: &Sccp<'_, '_>, subst: &mut Vec<Val>) -> usize {
    subst.clear();
    subst.resize(f.noted.len(), Val::Top);
    let mut count = 0;
    for &id in &s.lat_ids {
        // A value set has a noted definition (`Sccp::set`).
        let Some(i) = f.noted_def(id) else { continue };
        let b = f.noted[i].block;
        if b == NO_BLOCK || !s.exec_block[b] {
            continue;
        }
        let v = s.lat[i];
        match v {
            Val::Const(_) => {}
            Val::Same(x) if x != id => {}
            _ => continue,
        }
        subst[i] = v;
        count += 1;
    }
    count
}

/// What becomes of each live block's merge instruction (kept, dropped, or
/// turned into a selection merge), in `scratch.merge`, and the dead merge
/// blocks that must stay as `OpUnreachable` stubs because a kept merge
/// names them, in `scratch.stub`.
fn merge_actions(
    f: &Func<'_>,
    live: &[bool],
    decided: &[usize],
    fname: &str,
    scratch: &mut Scratch,
) -> Result<()> {
    let n = f.blocks.len();
    let (merge, stubs) = (&mut scratch.merge, &mut scratch.stub);
    merge.clear();
    merge.resize(n, None);
    stubs.clear();
    stubs.resize(n, false);
    let mut preds: Option<Vec<Vec<usize>>> = None;
    for b in 0..n {
        if !live[b] {
            continue;
        }
        let Some(mi) = f.merge_inst(b) else { continue };
        let mw = f.inst_words(mi);
        let folded = decided[b] != NONE;
        let block_of = |label: u32| {
            f.block_of_label.get(&label).copied().ok_or_else(|| {
                structure(
                    &f.noted[mi].inst,
                    fname,
                    format!(
                        "merge instruction names %{label}, which is not a block of this function"
                    ),
                )
            })
        };
        let action = if f.noted[mi].inst.opcode == op::SelectionMerge {
            if folded {
                MergeAction::Drop
            } else {
                MergeAction::Keep
            }
        } else {
            let cont = block_of(*mw.get(2).ok_or_else(|| short(&f.noted[mi].inst, fname))?)?;
            let conditional = matches!(
                f.noted[f.terminator(b)].inst.opcode,
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
            let target = block_of(*mw.get(1).ok_or_else(|| short(&f.noted[mi].inst, fname))?)?;
            if !live[target] {
                stubs[target] = true;
            }
        }
        merge[b] = Some(action);
    }
    Ok(())
}

/// Pushes onto `removed` the ids defined in removed blocks: their labels
/// (stubs keep theirs) and every result (read off the words: the decode
/// keeps nothing of most instructions).
fn removed_block_ids(f: &Func<'_>, live: &[bool], stub: &[bool], removed: &mut Vec<u32>) {
    for (b, _) in live.iter().enumerate().filter(|(_, l)| !**l) {
        if !stub[b] {
            removed.push(f.blocks[b].label);
        }
        let blk = &f.blocks[b];
        let mut at = blk.body;
        while at < blk.end {
            let iw = &f.words[at..at + (f.words[at] >> 16).max(1) as usize];
            let result = result_of(iw);
            if result != 0 {
                removed.push(result);
            }
            at += iw.len();
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
fn kept_edge(f: &Func<'_>, from: usize, to: usize, live: &[bool], decided: &[usize]) -> bool {
    live[from]
        && match decided[from] {
            NONE => f.successors(from).contains(&to),
            d => d == to,
        }
}

/// True when noted instruction `i` may consume chain values.
fn allowed_chain_user(f: &Func<'_>, i: usize) -> bool {
    match f.noted[i].inst.opcode {
        o if is_logic(o) => true,
        op::Phi => true,
        op::Select => true, // bool select: any operand; other types: only the condition is bool
        op::BranchConditional => true, // only its condition can be a value
        _ => false,
    }
}

/// Marks the local chain values: bool results of logic ops, selects and
/// phis with a chain operand (global or local), to a fixpoint; flags in
/// `scratch.chain` (at the defining noted instruction), ids in
/// `scratch.chain_ids`.
fn mark_chain(f: &Func<'_>, ctx: &Context<'_>, scratch: &mut Scratch) {
    let (chain, ids, work) = (
        &mut scratch.chain,
        &mut scratch.chain_ids,
        &mut scratch.chain_work,
    );
    chain.clear();
    chain.resize(f.noted.len(), false);
    ids.clear();
    work.clear();
    // A user of a chain value whose bool result is one too.
    let mut reach = |u: usize, chain: &mut Vec<bool>, work: &mut Vec<u32>| {
        let opcode = f.noted[u].inst.opcode;
        if !(is_logic(opcode) || opcode == op::Select || opcode == op::Phi) {
            return;
        }
        let w = f.inst_words(u);
        if w.len() < 3 || Some(w[1]) != ctx.globals.bool_type {
            return;
        }
        // `w[2]` is `u`'s result, so it has a (noted) definition.
        let Some(d) = f.noted_def(w[2]) else { return };
        if !chain[d] {
            chain[d] = true;
            ids.push(w[2]);
            work.push(w[2]);
        }
    };
    for &u in &f.chain_users {
        reach(u as usize, chain, work);
    }
    while let Some(id) = work.pop() {
        for &u in f.users(id) {
            reach(u as usize, chain, work);
        }
    }
}

/// Writes the rewritten function from the plan the steps before made.
struct Emitter<'a, 'm> {
    f: &'a Func<'m>,
    ctx: &'a Context<'a>,
    live: &'a [bool],
    decided: &'a [usize],
    /// Per instruction: what replaces its result ([`Val::Top`]: nothing).
    subst: &'a [Val],
    /// How many results `subst` replaces.
    substituted: usize,
    /// Per instruction: its result is a local chain value.
    chain: &'a [bool],
    merge: &'a [Option<MergeAction>],
    stub: &'a [bool],
}

impl Emitter<'_, '_> {
    /// Emits the function with its blocks in `order` into `out`, counting
    /// what it folds and recording calls, unresolved uses and removed ids.
    /// Words between the noted instructions that change are taken as
    /// whole runs of the input.
    fn emit(&self, order: &[usize], out: &mut Writing) {
        let f = self.f;
        // The head: `OpFunction` and its parameters, up to the first label.
        let first = &f.blocks[0];
        let mut run = f.range.start;
        for k in 0..first.noted.0 as usize {
            let inst = f.noted[k].inst;
            if f.noted[k].mentions && inst.at < first.label_at {
                out.take_input(run..inst.at);
                run = inst.end();
                self.copy(k, out);
            }
        }
        out.take_input(run..first.label_at);
        for &b in order {
            let blk = &f.blocks[b];
            out.take_input(blk.label_at..blk.body); // OpLabel
            if self.stub[b] {
                out.write(op::Unreachable, []);
                continue;
            }
            self.push_callees(b, out);
            let merge = f.merge_inst(b);
            // Instructions copied verbatim accumulate as one word run,
            // `run..` up to the next one that is not.
            let mut run = blk.body;
            for k in f.block_noted(b) {
                let inst = f.noted[k].inst;
                // A label is written as it is, above.
                if inst.opcode == op::Label || self.verbatim(b, k, merge) {
                    continue;
                }
                self.copy_run(run, inst.at, out);
                run = inst.end();
                self.emit_noted(b, k, merge, out);
            }
            self.copy_run(run, blk.end, out);
        }
        out.take_input(f.end_at..f.range.end); // OpFunctionEnd
    }

    /// Lists the callees of live block `b`'s calls that stay.
    fn push_callees(&self, b: usize, out: &mut Writing) {
        let calls = self.f.block_calls(b);
        if calls.is_empty() {
            return;
        }
        if self.substituted == 0 || self.f.unique_results {
            out.callees.extend(calls.iter().map(|&(_, callee)| callee));
        } else {
            out.callees.extend(
                calls
                    .iter()
                    .filter(|&&(result, _)| self.local_subst(result).is_none())
                    .map(|&(_, callee)| callee),
            );
        }
    }

    /// Takes the instructions that are not noted in `words[from..to]`:
    /// as they are, but for those defining an id substituted (possible
    /// only when an id is defined twice), which go.
    #[inline]
    fn copy_run(&self, from: usize, to: usize, out: &mut Writing) {
        if self.substituted == 0 || self.f.unique_results {
            out.take_input(from..to);
        } else {
            self.copy_run_dropping(from, to, out);
        }
    }

    /// [`Emitter::copy_run`] when a substituted id may be defined in the
    /// run: instruction by instruction.
    #[inline(never)]
    fn copy_run_dropping(&self, from: usize, to: usize, out: &mut Writing) {
        let f = self.f;
        let mut at = from;
        while at < to {
            let iw = &f.words[at..at + (f.words[at] >> 16).max(1) as usize];
            let result = result_of(iw);
            if result != 0 && self.local_subst(result).is_some() {
                out.removed_ids.push(result);
            } else {
                out.take_input(at..at + iw.len());
            }
            at += iw.len();
        }
    }

    /// True when noted instruction `k` of live block `b` (whose merge
    /// instruction is `merge`) is copied as it is: no operand to rewrite,
    /// not a phi, a result that stays, not a merge instruction or
    /// terminator that changes.
    fn verbatim(&self, b: usize, k: usize, merge: Option<usize>) -> bool {
        let n = &self.f.noted[k];
        if merge == Some(k) {
            return !n.mentions && matches!(self.merge[b], Some(MergeAction::Keep) | None);
        }
        if k == self.f.terminator(b) && self.decided[b] != NONE {
            return false;
        }
        !(n.mentions || n.inst.opcode == op::Phi || self.substituted(k))
    }

    /// True when noted instruction `k`'s result is substituted (so it goes).
    fn substituted(&self, k: usize) -> bool {
        let result = self.f.noted[k].result;
        if self.substituted == 0 || result == 0 {
            return false;
        }
        if self.f.unique_results {
            // Its result is defined once: by `k` itself.
            return self.subst[k] != Val::Top;
        }
        self.local_subst(result).is_some()
    }

    /// Emits noted instruction `k` of live block `b` (whose merge
    /// instruction is `merge`).
    fn emit_noted(&self, b: usize, k: usize, merge: Option<usize>, out: &mut Writing) {
        let f = self.f;
        let n = f.noted[k];
        if merge == Some(k) {
            match self.merge[b] {
                Some(MergeAction::Keep) | None => self.copy(k, out),
                Some(MergeAction::Drop) => {}
                Some(MergeAction::ToSelection) => {
                    out.write(op::SelectionMerge, [f.inst_words(k)[1], 0])
                }
            }
            return;
        }
        if self.substituted(k) {
            match n.inst.opcode {
                op::Select => out.selects_folded += 1,
                op::Phi => out.phis_folded += 1,
                _ => {}
            }
            out.removed_ids.push(n.result);
            return;
        }
        if k == f.terminator(b) && self.decided[b] != NONE {
            let target = f.blocks[self.decided[b]].label;
            out.write(op::Branch, [target]);
            out.branches_folded += 1;
            return;
        }
        if n.inst.opcode == op::Phi {
            self.emit_phi(k, b, out);
            return;
        }
        // Chain values used where they cannot be folded.
        if n.mentions && !allowed_chain_user(f, k) {
            let w = f.inst_words(k);
            for &(pos, role) in f.ids(k) {
                let id = w[pos as usize];
                if matches!(role, Role::Use | Role::MaybeId)
                    && (self.is_local_chain(id) || self.ctx.is_chain(id))
                {
                    out.bad_uses.push(BadUse {
                        block: f.blocks[b].label,
                        inst: n.inst,
                        value: id,
                    });
                }
            }
        }
        self.copy(k, out);
    }

    /// True when `id` is a local chain value.
    fn is_local_chain(&self, id: u32) -> bool {
        self.f.noted_def(id).is_some_and(|d| self.chain[d])
    }

    /// What replaces the local `id`, if it is substituted.
    fn local_subst(&self, id: u32) -> Option<Val> {
        let d = self.f.noted_def(id)?;
        Some(self.subst[d]).filter(|v| *v != Val::Top)
    }

    /// Copies noted instruction `k`, rewriting uses of substituted ids:
    /// taken from the input if none is, else written as the rewrite's own.
    fn copy(&self, k: usize, out: &mut Writing) {
        let f = self.f;
        let w = f.inst_words(k);
        let start = out.own.len();
        if f.noted[k].mentions {
            for &(pos, role) in f.ids(k) {
                if matches!(role, Role::Use | Role::MaybeId)
                    && let Some(r) = self.replacement(w[pos as usize])
                {
                    if out.own.len() == start {
                        out.own.extend_from_slice(w);
                    }
                    let at = start + pos as usize;
                    out.own[at] = place(r, at, &mut out.constant_uses);
                }
            }
        }
        if out.own.len() > start {
            out.take_own(start);
        } else {
            let inst = f.noted[k].inst;
            out.take_input(inst.at..inst.end());
        }
    }

    /// What replaces `id`, if anything: chases local substitutions, then
    /// the module-level ones (resolved predicates and folded module-level
    /// chain).
    fn replacement(&self, id: u32) -> Option<Replacement> {
        let mut cur = id;
        for _ in 0..=self.substituted {
            match self.local_subst(cur) {
                Some(Val::Const(b)) => return Some(Replacement::Constant(b)),
                Some(Val::Same(x)) => cur = x,
                _ => break,
            }
        }
        self.ctx
            .replacement(cur)
            .or_else(|| (cur != id).then_some(Replacement::Id(cur)))
    }

    /// Copies phi `k` of block `b`, keeping only pairs whose edge
    /// survives: taken from the input if that leaves it as it is.
    fn emit_phi(&self, k: usize, b: usize, out: &mut Writing) {
        let f = self.f;
        let w = f.inst_words(k);
        let constants = out.constant_uses.len();
        let words = &mut out.own;
        let at = words.len();
        words.extend_from_slice(&w[..3]);
        for pair in w[3..].chunks(2) {
            let [v, parent] = pair else { continue };
            let Some(&pb) = f.block_of_label.get(parent) else {
                continue;
            };
            if kept_edge(f, pb, b, self.live, self.decided) {
                let word = match self.replacement(*v) {
                    Some(r) => place(r, words.len(), &mut out.constant_uses),
                    None => *v,
                };
                words.push(word);
                words.push(*parent);
            }
        }
        words[at] = header_word(words.len() - at, op::Phi);
        if out.constant_uses.len() == constants && words[at..] == *w {
            words.truncate(at);
            let inst = f.noted[k].inst;
            out.take_input(inst.at..inst.end());
        } else {
            out.take_own(at);
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
