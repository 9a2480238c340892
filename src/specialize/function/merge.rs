//! What becomes of the merge instructions of a function's live blocks
//! once branches fold (kept, dropped, or turned into a selection merge),
//! and the dead merge blocks a kept merge still names (left as
//! `OpLabel; OpUnreachable` stubs).

use crate::error::Result;
use crate::operands::op;

use super::Scratch;
use super::decode::{Func, short, structure};
use super::sccp::NONE;

/// What becomes of each live block's merge instruction (kept, dropped, or
/// turned into a selection merge), in `scratch.merge`, and the dead merge
/// blocks that must stay as `OpUnreachable` stubs because a kept merge
/// names them, in `scratch.stub`.
pub(super) fn merge_actions(
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum MergeAction {
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
pub(super) fn kept_edge(
    f: &Func<'_>,
    from: usize,
    to: usize,
    live: &[bool],
    decided: &[usize],
) -> bool {
    live[from]
        && match decided[from] {
            NONE => f.successors(from).contains(&to),
            d => d == to,
        }
}
