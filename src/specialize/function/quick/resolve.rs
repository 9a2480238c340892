//! What the read's instructions refer to, found once for every set of
//! values: branch targets as blocks, and what each branch condition,
//! logic operand and phi pair reads.

use crate::operands::op;
use crate::specialize::context::Context;
use crate::specialize::lattice::Val;

use super::{Buffers, Exit, LABEL, LOGIC, NONE, PHI, Pair, Source, instruction};

/// Resolves branch targets to blocks of the function, and finds what each logic
/// operand and branch condition reads ([`Source`]) and what each phi pair is
/// ([`Pair`]). `None` for a logic instruction that reads a later logic result
/// or a phi, as [`evaluate`](super::evaluate) would find for any values.
#[inline(never)]
pub(super) fn resolve(
    words: &[u32],
    ctx: &Context<'_>,
    start: usize,
    bufs: &mut Buffers,
) -> Option<()> {
    let Buffers {
        ids,
        blocks,
        logic,
        phis,
        pairs,
        logic_tests,
        ..
    } = bufs;
    let block_of = |label: u32| match ids.get(label) {
        Some(v) if v & 3 == LABEL => Some((v >> 2) as u32),
        _ => None,
    };
    // Any id but a logic result or a phi, as the lattice reads it: a
    // module-scope value (even where a function redefines its id), else
    // itself (`unknown`).
    let other = |x: u32, unknown: Val| {
        if ctx.may_replace(x) {
            return Source::Decided(x);
        }
        Source::Fixed(ctx.fixed_val(x).unwrap_or(unknown))
    };
    logic_tests.clear();
    for (k, b) in blocks.iter_mut().enumerate() {
        if b.t != NONE {
            b.t = block_of(b.t)?;
        }
        if b.e != NONE {
            b.e = block_of(b.e)?;
        }
        if let Exit::Conditional = b.exit {
            b.test = match ids.get(b.cond).map(|v| (v & 3, v >> 2)) {
                Some((LOGIC, i)) => {
                    logic_tests.push((k as u32, i));
                    Source::Logic(i, b.cond)
                }
                Some((PHI, _)) => Source::Refused,
                _ => other(b.cond, Val::Varying),
            };
        }
    }
    let own_id = words[start + 2];
    pairs.clear();
    for phi in phis.iter_mut() {
        let w = instruction(words, phi.at);
        let first = pairs.len() as u32;
        for pair in w[3..].chunks(2) {
            let (value, parent) = (pair[0], pair[1]);
            let tracked = ids.get(value).is_some_and(|x| x & 3 >= LOGIC);
            pairs.push(Pair {
                value,
                from: block_of(parent).unwrap_or(NONE),
                refused: tracked || ctx.may_replace(value) || ctx.fixed_val(value).is_some(),
                local: value == own_id || ids.get(value).is_some(),
            });
        }
        phi.pairs = (first, pairs.len() as u32);
    }
    for j in 0..logic.len() {
        let w = &words[logic[j].at..];
        let operands = if logic[j].opcode == op::LogicalNot {
            1
        } else {
            2
        };
        for k in 0..operands {
            let x = w[3 + k];
            logic[j].reads[k] = match ids.get(x).map(|v| (v & 3, v >> 2)) {
                // (A later logic result, or a phi: never known here.)
                Some((LOGIC, i)) if i < j => Source::Logic(i, x),
                Some((LOGIC | PHI, _)) => return None,
                _ => other(x, Val::Same(x)),
            };
        }
    }
    Some(())
}
