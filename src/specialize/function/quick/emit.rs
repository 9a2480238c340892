//! The quick rewrite's output for one set of values: the live blocks as
//! spans of the input, broken where a block goes, a branch folds or a
//! marked instruction changes.

use crate::module::header_word;
use crate::operands::{flat_ids, op};
use crate::specialize::function::{Emitted, Rewritten, Writing};
use crate::specialize::lattice::Val;

use super::fold::{folded, kept_edge};
use super::{Buffers, Mark, NONE, PhiPlan, instruction};

/// Writes the rewrite: the live blocks as they are, but for each folded
/// branch (an `OpBranch` of the rewrite's own) and each logic instruction
/// that became a constant (gone); and the ids of what went. The blocks
/// lie one after the other from the first label to the `OpFunctionEnd`
/// (the read saw nothing but a label follow a terminator), so the input
/// and the callees are taken in runs broken only where something goes or
/// changes: a block that goes, a folded branch, a marked instruction that
/// changes.
#[inline(never)]
pub(super) fn emit(
    words: &[u32],
    start: usize,
    end: usize,
    bufs: &Buffers,
    emitted: &mut Emitted,
) -> Rewritten {
    let mut out = Writing {
        read_callees: Some(&bufs.callees),
        ..Writing::new(emitted)
    };
    let blocks = &bufs.blocks;
    // (The last block ends at the `OpFunctionEnd`.)
    debug_assert_eq!(blocks.last().map(|b| b.end), Some(end - 1));
    // Room for what the read bounds (the storage is kept from function to
    // function, so only a run's first rewrite grows it): a span or two and
    // a folded branch a block, its calls, the labels and results of dead
    // blocks.
    out.spans.reserve(2 * blocks.len() + 2);
    out.own.reserve(2 * blocks.len());
    out.callees.reserve(bufs.callees.len());
    out.removed_ids.reserve(blocks.len() + bufs.results.len());
    let range = |(from, to): (u32, u32)| from as usize..to as usize;
    // Where the input not yet taken starts, and the callees not yet taken.
    let (mut run, mut callees_from) = (start, 0);
    for (blk, &live) in blocks.iter().zip(&bufs.live) {
        if !live {
            out.take_input(run..blk.label_at);
            run = blk.end;
            let (first, past) = (blk.callees.0 as usize, blk.callees.1 as usize);
            // (A few ids at a time: pushed, not copied by `memcpy`.)
            for &callee in &bufs.callees[callees_from..first] {
                out.callees.push(callee);
            }
            callees_from = past;
            out.blocks_removed += 1;
            out.removed_ids.push(blk.label);
            for &id in &bufs.results[range(blk.results)] {
                out.removed_ids.push(id);
            }
            continue;
        }
        // (Most blocks have no marks.)
        let marks = if blk.marks.0 < blk.marks.1 {
            &bufs.marks[range(blk.marks)]
        } else {
            &[]
        };
        for &(at, block, mark) in marks {
            if changes(words, at, mark, bufs) {
                let iw = instruction(words, at);
                out.take_input(run..at);
                write_change(iw, mark, block, bufs, &mut out);
                run = at + iw.len();
            }
        }
        if blk.decided != NONE {
            out.take_input(run..blk.term_at);
            let own = out.own.len();
            out.own.extend([
                header_word(2, op::Branch),
                blocks[blk.decided as usize].label,
            ]);
            out.take_own(own);
            out.branches_folded += 1;
            run = blk.end;
        }
    }
    out.take_input(run..end);
    out.callees.extend_from_slice(&bufs.callees[callees_from..]);
    out.finish(emitted)
}

/// True when the emit changes the marked instruction `iw` of a live
/// block: a logic result that became a constant, a phi that loses pairs
/// or goes, a reader of a phi that goes. (The instruction is at word
/// `at`; only a reader's words are looked at, when a phi folds.)
fn changes(words: &[u32], at: usize, mark: Mark, bufs: &Buffers) -> bool {
    match mark {
        Mark::Logic(j) => matches!(bufs.logic[j].value, Val::Const(_)),
        Mark::Phi(j) => bufs.phis[j].plan != PhiPlan::Keep,
        Mark::Reader => {
            bufs.folded_phis > 0 && {
                let iw = instruction(words, at);
                read_positions(iw).any(|p| folded(bufs, iw[p]).is_some())
            }
        }
    }
}

/// The words of `iw` that the full rewrite reads as ids and may replace:
/// a flat layout's uses (none without a flat layout).
fn read_positions(iw: &[u32]) -> impl Iterator<Item = usize> {
    flat_ids(iw)
        .map(|flat| (flat.first_use..flat.checked_end).chain(flat.maybe_from..iw.len()))
        .into_iter()
        .flatten()
}

/// Writes what becomes of the marked instruction `iw` of live block
/// `block` when it [`changes`]: nothing and its result's id gone, its
/// phi pairs of kept edges, or its words reading each folded phi's value
/// (where the full rewrite reads ids: a flat layout's uses).
fn write_change(iw: &[u32], mark: Mark, block: u32, bufs: &Buffers, out: &mut Writing) {
    match mark {
        Mark::Logic(_) => out.removed_ids.push(iw[2]),
        Mark::Phi(j) => {
            if let PhiPlan::Fold(_) = bufs.phis[j].plan {
                out.removed_ids.push(iw[2]);
                out.phis_folded += 1;
                return;
            }
            let start = out.own.len();
            out.own.extend_from_slice(&iw[..3]);
            for pair in iw[3..].chunks(2) {
                let from = bufs.ids.get(pair[1]).map_or(0, |p| p >> 2);
                if kept_edge(bufs, from, block) {
                    out.own.extend_from_slice(pair);
                }
            }
            out.own[start] = header_word(out.own.len() - start, op::Phi);
            out.take_own(start);
        }
        Mark::Reader => {
            let start = out.own.len();
            out.own.extend_from_slice(iw);
            for p in read_positions(iw) {
                if let Some(id) = folded(bufs, iw[p]) {
                    out.own[start + p] = id;
                }
            }
            out.take_own(start);
        }
    }
}
