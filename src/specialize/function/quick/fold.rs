//! Folding for one set of values: what each logic instruction becomes,
//! the blocks the entry reaches, and what becomes of each phi of a live
//! block; `None` wherever the full rewrite would not do the same.

use crate::operands::{flat_ids, op};
use crate::specialize::context::Context;
use crate::specialize::lattice::{Val, meet_logic};

use super::{Buffers, Exit, Logic, Mark, NONE, PHI, Phi, PhiPlan, Source, instruction};

/// The value of every logic instruction, as the full rewrite's lattice
/// finds it where its operands' blocks run: a constant, or varying. `None`
/// for a logic result that folds to another id, or reads a predicate and
/// stays varying.
#[inline(never)]
pub(super) fn evaluate(ctx: &Context<'_>, bufs: &mut Buffers) -> Option<()> {
    let logic = &mut bufs.logic;
    for j in 0..logic.len() {
        let Logic { opcode, reads, .. } = logic[j];
        let mut watched = false;
        let mut operand = |source: Source| -> Option<Val> {
            match source {
                // (A varying result stands for itself, as in the lattice.)
                Source::Logic(i, x) => match logic[i].value {
                    Val::Varying => Some(Val::Same(x)),
                    v => {
                        watched = true;
                        Some(v)
                    }
                },
                Source::Fixed(v) => Some(v),
                Source::Decided(x) => match ctx.global_val(x) {
                    Some(v @ Val::Const(_)) => {
                        watched = true;
                        Some(v)
                    }
                    _ => None,
                },
                Source::Refused => None,
            }
        };
        let a = operand(reads[0])?;
        let value = if opcode == op::LogicalNot {
            match a {
                Val::Const(x) => Val::Const(!x),
                _ => Val::Varying,
            }
        } else {
            meet_logic(opcode, a, operand(reads[1])?)
        };
        match value {
            Val::Const(_) => {}
            // Kept as it is only when it reads nothing the rewrite changes.
            Val::Varying if !watched => {}
            _ => return None,
        }
        logic[j].value = value;
    }
    Some(())
}

/// The value of a branch condition that reads `test`: a constant folds
/// it. `None` when the full rewrite would see anything but a constant or
/// a value it cannot know.
#[inline]
fn condition(ctx: &Context<'_>, logic: &[Logic], test: Source) -> Option<Val> {
    match test {
        Source::Logic(i, _) => Some(logic[i].value),
        Source::Fixed(v) => Some(v),
        Source::Decided(x) => match ctx.global_val(x) {
            Some(v @ Val::Const(_)) => Some(v),
            _ => None,
        },
        Source::Refused => None,
    }
}

/// Marks the blocks the entry reaches, folding each conditional branch on
/// a constant: the executable blocks of the full rewrite's propagation.
/// One pass in block order, as a block is reached only from an earlier
/// one when each live block follows its dominator in the input order (the
/// full rewrite then keeps that order). `None` at a block reached only
/// through a kept edge going back (the order would change) and at a
/// condition the full rewrite would not see as a constant or unknowable.
#[inline(never)]
pub(super) fn reach(ctx: &Context<'_>, bufs: &mut Buffers) -> Option<()> {
    let Buffers {
        blocks,
        live,
        logic,
        ..
    } = bufs;
    live.clear();
    live.resize(blocks.len(), false);
    *live.first_mut()? = true;
    for (b, blk) in blocks.iter_mut().enumerate() {
        blk.decided = NONE;
        if !live[b] {
            continue;
        }
        let (t, e) = match blk.exit {
            Exit::Leave => continue,
            Exit::Branch => (blk.t, NONE),
            Exit::Conditional => match condition(ctx, logic, blk.test)? {
                Val::Const(c) => {
                    blk.decided = if c { blk.t } else { blk.e };
                    (blk.decided, NONE)
                }
                _ => (blk.t, blk.e),
            },
        };
        reach_edge(live, b, t)?;
        if e != NONE {
            reach_edge(live, b, e)?;
        }
    }
    Some(())
}

/// Marks block `t`, a target of live block `b`, live. (Blocks up to `b`
/// are settled: `None` when `t` is one of them not yet live, which a
/// later block could reach only going back.)
#[inline(always)]
fn reach_edge(live: &mut [bool], b: usize, t: u32) -> Option<()> {
    let t = t as usize;
    if t > b {
        *live.get_mut(t)? = true;
        Some(())
    } else {
        live.get(t).copied()?.then_some(())
    }
}

/// True when the edge `from → to` stays (as the full rewrite keeps edges).
pub(super) fn kept_edge(bufs: &Buffers, from: usize, to: u32) -> bool {
    let b = &bufs.blocks[from];
    bufs.live[from]
        && match (b.decided, b.exit) {
            (NONE, Exit::Conditional) => b.t == to || b.e == to,
            (NONE, Exit::Branch) => b.t == to,
            (NONE, Exit::Leave) => false,
            (d, _) => d == to,
        }
}

/// Checks what only liveness tells: in a live block, a logic instruction
/// reads logic results of live blocks only, and a branch condition is
/// such a result (only the blocks whose condition is a logic result are
/// looked at: [`Buffers::logic_tests`]).
#[inline(never)]
pub(super) fn check_live(bufs: &Buffers) -> Option<()> {
    let (logic, live) = (&bufs.logic, &bufs.live);
    let reads_dead = |source: Source| match source {
        Source::Logic(i, _) => !live[logic[i].block as usize],
        _ => false,
    };
    for l in logic {
        if live[l.block as usize] && l.reads.into_iter().any(reads_dead) {
            return None;
        }
    }
    for &(b, i) in &bufs.logic_tests {
        if live[b as usize] && !live[logic[i].block as usize] {
            return None;
        }
    }
    Some(())
}

/// Decides what becomes of each phi of a live block, as the full rewrite's
/// propagation and emit do: kept whole, its dead edges' pairs dropped, or
/// folded into the one value left (a value reached on several edges only when
/// it is not the function's own: [`PhiPlan`]). `None` for a phi naming a parent
/// that is no block, reading a logic result, a phi, a constant or a value the
/// rewrite changes on a kept edge ([`Pair`](super::Pair)), or left with no
/// edge; and for a reader of a folded phi without a flat layout.
#[inline(never)]
pub(super) fn plan_phis(words: &[u32], bufs: &mut Buffers) -> Option<()> {
    bufs.folded_phis = 0;
    for j in 0..bufs.phis.len() {
        let Phi { block, pairs, .. } = bufs.phis[j];
        bufs.phis[j].plan = PhiPlan::Keep;
        if !bufs.live[block as usize] {
            continue;
        }
        let pairs = &bufs.pairs[pairs.0 as usize..pairs.1 as usize];
        let (mut kept, mut first, mut local, mut same) = (0, 0, false, true);
        for p in pairs {
            if p.from == NONE {
                return None;
            }
            if !kept_edge(bufs, p.from as usize, block) {
                continue;
            }
            if p.refused {
                return None;
            }
            if kept == 0 {
                (first, local) = (p.value, p.local);
            }
            same &= p.value == first;
            kept += 1;
        }
        let plan = match kept {
            0 => return None,
            _ if same && (kept == 1 || !local) => {
                bufs.folded_phis += 1;
                PhiPlan::Fold(first)
            }
            k if k == pairs.len() => PhiPlan::Keep,
            _ => PhiPlan::Drop,
        };
        bufs.phis[j].plan = plan;
    }
    if bufs.folded_phis == 0 {
        return Some(());
    }
    for &(at, block, mark) in &bufs.marks {
        if matches!(mark, Mark::Reader) && bufs.live[block as usize] {
            let iw = instruction(words, at);
            if iw.iter().any(|&x| folded(bufs, x).is_some()) && flat_ids(iw).is_none() {
                return None;
            }
        }
    }
    Some(())
}

/// The id that replaces `x` when it is a folded phi's result.
#[inline]
pub(super) fn folded(bufs: &Buffers, x: u32) -> Option<u32> {
    match bufs.ids.get(x) {
        Some(v) if v & 3 == PHI => match bufs.phis[v >> 2].plan {
            PhiPlan::Fold(id) => Some(id),
            _ => None,
        },
        _ => None,
    }
}
