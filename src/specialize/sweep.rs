//! The module-wide sweep after the per-function rewrite.
//!
//! 1. **Dead functions.** Liveness from roots, then sweep (as walrus' gc):
//!    roots are entry points, `Export`-linked functions, functions referenced
//!    other than by a call, and functions nothing called in the input (the
//!    pass did not kill those, so they stay). Liveness walks the rewritten
//!    call graph from the roots, so what only a dead arm called goes, even
//!    when the arm is in a root nothing called. A function reached before
//!    the rewrite but not after it is removed, whether it has a body or is an
//!    imported declaration.
//! 2. **The table.** The table variable goes, then each constant and type
//!    that only it (transitively) used, latest definition first.

use crate::fastmap::{Map as HashMap, Set as HashSet};

use crate::globals::Globals;
use crate::module::Module;
use crate::operands::{Role, for_each_id};
use crate::table::PredicateTable;

/// The call graph's roots in the input, which do not depend on the
/// predicates: entry points, exported functions, functions referenced other
/// than by a call, functions nothing calls, and any function the input
/// does not reach from those (only recursion that nothing else calls).
pub fn liveness_roots<'c>(
    all: &[u32],
    entry_or_exported: impl Iterator<Item = u32>,
    referenced: impl Iterator<Item = u32>,
    callees: &dyn Fn(u32) -> &'c [u32],
) -> Vec<u32> {
    let called: HashSet<u32> = all.iter().flat_map(|&f| callees(f)).copied().collect();
    let mut roots: Vec<u32> = entry_or_exported
        .chain(referenced)
        .chain(all.iter().copied().filter(|f| !called.contains(f)))
        .collect();
    let reached = reach(roots.iter().copied(), callees);
    roots.extend(all.iter().copied().filter(|f| !reached.contains(f)));
    roots.sort_unstable();
    roots.dedup();
    roots
}

/// Functions to remove: those the rewritten call graph (`callees`) no
/// longer reaches from `roots` (see [`liveness_roots`]).
pub fn dead_functions<'c>(
    all: &[u32],
    roots: &[u32],
    callees: &dyn Fn(u32) -> &'c [u32],
) -> HashSet<u32> {
    let reached = reach(roots.iter().copied(), callees);
    all.iter()
        .copied()
        .filter(|f| !reached.contains(f))
        .collect()
}

/// Functions reachable from `starts` along `callees` (iterative).
fn reach<'c>(
    starts: impl Iterator<Item = u32>,
    callees: &dyn Fn(u32) -> &'c [u32],
) -> HashSet<u32> {
    let mut seen: HashSet<u32> = HashSet::default();
    let mut stack: Vec<u32> = starts.collect();
    while let Some(f) = stack.pop() {
        if seen.insert(f) {
            stack.extend(callees(f).iter().copied());
        }
    }
    seen
}

/// The table variable and the module-scope ids it uses, transitively, in
/// definition order.
pub fn table_closure(m: &Module<'_>, g: &Globals, table: &PredicateTable) -> Vec<u32> {
    let mut seen: HashSet<u32> = HashSet::default();
    let mut stack = vec![table.variable];
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        let Some(&inst) = g.defs.get(&id) else {
            continue;
        };
        let w = m.inst_words(inst);
        let _ = for_each_id(w, inst.byte_offset(), &|_| 1, &mut |pos, role| {
            if matches!(role, Role::Use | Role::ResultType) && g.defs.contains_key(&w[pos]) {
                stack.push(w[pos]);
            }
        });
    }
    let mut ids: Vec<u32> = seen.into_iter().collect();
    ids.sort_by_key(|id| g.defs[id].at);
    ids
}

/// Module-scope readers of the table's closure. Names and decorations go
/// with the id they name (word 1), so naming a closure id does not read it;
/// any other id they hold (`OpDecorateId` operands) is read on behalf of the
/// id they name. Does not depend on the predicates' values, so it is
/// computed once per module.
#[derive(Debug, Default)]
pub struct TableReaders {
    /// Result ids of the instructions that read each closure id.
    by_result: HashMap<u32, Vec<u32>>,
    /// Closure ids read by an instruction without a result (other than the
    /// variable's entry-point interface slots): they must stay.
    anonymous: HashSet<u32>,
}

/// Finds the module-scope readers of `closure`.
pub fn table_readers(m: &Module<'_>, closure: &[u32], table_variable: u32) -> TableReaders {
    let candidates: HashSet<u32> = closure.iter().copied().collect();
    let mut r = TableReaders::default();
    for &inst in &m.globals {
        let w = m.inst_words(inst);
        let annotation = crate::specialize::emit::is_annotation(inst.opcode);
        let result = if annotation {
            w.get(1).copied()
        } else {
            crate::operands::result_pos(inst.opcode).and_then(|p| w.get(p).copied())
        };
        let _ = for_each_id(w, inst.byte_offset(), &|_| 1, &mut |pos, role| {
            if matches!(role, Role::Use | Role::ResultType | Role::MaybeId)
                && !(annotation && pos == 1)
                && candidates.contains(&w[pos])
            {
                match result {
                    Some(res) => r.by_result.entry(w[pos]).or_default().push(res),
                    // e.g. OpEntryPoint interfaces: handled by the emitter
                    // for the variable; anything else keeps the id.
                    None if w[pos] == table_variable => {}
                    None => {
                        r.anonymous.insert(w[pos]);
                    }
                }
            }
        });
    }
    r
}

/// Which of the table's closure can go: the variable always; any other id
/// when every module-scope reader of it goes too and no kept function
/// mentions it (`kept_function_mentions`).
pub fn removable_table_ids(
    closure: &[u32],
    readers: &TableReaders,
    removed: &HashSet<u32>,
    kept_function_mentions: &HashSet<u32>,
    table_variable: u32,
) -> Vec<u32> {
    let mut gone: HashSet<u32> = removed.clone();
    gone.insert(table_variable);
    let mut out = vec![table_variable];
    for &id in closure.iter().rev() {
        if id == table_variable
            || kept_function_mentions.contains(&id)
            || readers.anonymous.contains(&id)
        {
            continue;
        }
        let all_gone = readers
            .by_result
            .get(&id)
            .into_iter()
            .flatten()
            .all(|r| gone.contains(r));
        if all_gone {
            gone.insert(id);
            out.push(id);
        }
    }
    out
}
