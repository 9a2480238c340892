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
//! Files: [`quick`] (the quick way, for the common shape),
//! [`decode`](mod@decode) (the function as blocks, edges and the instructions
//! the rewrite looks at), [`local_ids`] (dense maps over the function's ids),
//! [`sccp`] (the lattice and the propagation), [`chain`] (the values computed
//! from predicates, whose other uses cannot be resolved), [`merge`] (what
//! becomes of merge instructions, and the stubs they keep), [`order`]
//! (dominators and block order), [`emit`](mod@emit) (the full rewrite written
//! out), [`rewritten`] (what a rewrite produces, and the builder both ways
//! write it with), and this file (the rewrite as its steps: decode, propagate,
//! mark the chain, plan substitutions and merges, order, emit).

mod chain;
mod decode;
mod emit;
mod local_ids;
mod merge;
mod order;
mod quick;
mod rewritten;
mod sccp;

use crate::module::Module;

use decode::{NO_BLOCK, result_of};

use super::context::Context;
use super::lattice::Val;
use chain::mark_chain;
pub(in crate::specialize) use decode::Func;
use emit::Emitter;
use merge::{MergeAction, merge_actions};
use order::dominance_order;
use sccp::Sccp;

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
