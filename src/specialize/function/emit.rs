//! The full rewrite's emit: the function written from the plan the steps
//! before made (values substituted, branches folded, merges repaired,
//! blocks in their new order), as runs of the input and words of its own.

use crate::module::header_word;
use crate::operands::{Role, op};
use crate::specialize::context::{Context, Replacement};
use crate::specialize::lattice::Val;

use super::chain::allowed_chain_user;
use super::decode::{Func, result_of};
use super::merge::{MergeAction, kept_edge};
use super::rewritten::{BadUse, Writing};
use super::sccp::NONE;

/// Writes the rewritten function from the plan the steps before made.
pub(super) struct Emitter<'a, 'm> {
    pub(super) f: &'a Func<'m>,
    pub(super) ctx: &'a Context<'a>,
    pub(super) live: &'a [bool],
    pub(super) decided: &'a [usize],
    /// Per instruction: what replaces its result ([`Val::Top`]: nothing).
    pub(super) subst: &'a [Val],
    /// How many results `subst` replaces.
    pub(super) substituted: usize,
    /// Per instruction: its result is a local chain value.
    pub(super) chain: &'a [bool],
    pub(super) merge: &'a [Option<MergeAction>],
    pub(super) stub: &'a [bool],
}

impl Emitter<'_, '_> {
    /// Emits the function with its blocks in `order` into `out`, counting
    /// what it folds and recording calls, unresolved uses and removed ids.
    /// Words between the noted instructions that change are taken as
    /// whole runs of the input.
    pub(super) fn emit(&self, order: &[usize], out: &mut Writing) {
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
