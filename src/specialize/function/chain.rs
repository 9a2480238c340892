//! The chain: the boolean values computed from predicates through logic
//! instructions, boolean selects and phis. A chain value read by anything
//! else in a live block is a use the rewrite cannot resolve.

use crate::operands::op;
use crate::specialize::context::Context;
use crate::specialize::lattice::is_logic;

use super::Scratch;
use super::decode::Func;

/// True when noted instruction `i` may consume chain values.
pub(super) fn allowed_chain_user(f: &Func<'_>, i: usize) -> bool {
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
pub(super) fn mark_chain(f: &Func<'_>, ctx: &Context<'_>, scratch: &mut Scratch) {
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
