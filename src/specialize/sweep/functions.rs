//! Which functions stay: liveness from the roots the input gives, walked
//! through the rewritten call graph, then the sweep of what it did not
//! reach (the first step of the module-wide sweep).

use crate::fastmap::{Map as HashMap, Set as HashSet};
use crate::idset::IdIndex;

/// The call graph's roots in the input, which do not depend on the
/// predicates: entry points, exported functions, functions referenced other
/// than by a call, functions nothing calls, and, among the functions the
/// input does not reach from those, each group of mutually recursive
/// functions that nothing outside the group calls (the same rule for
/// recursion: the pass did not kill the group, so all of it stays).
/// `index` maps each id of `all` to its place there; `calls` hold the
/// callees of every call in the input (in any order and lists, a callee as
/// often as it likes), `callees` each function's, by its place. The roots
/// that are functions come in the order of `all`, each once; then any
/// other id `entry_or_exported` or `referenced` names, as given.
pub(in crate::specialize) fn liveness_roots<'c>(
    all: &[u32],
    index: &IdIndex,
    calls: &[&[u32]],
    entry_or_exported: impl Iterator<Item = u32>,
    referenced: impl Iterator<Item = u32>,
    callees: &dyn Fn(usize) -> &'c [u32],
) -> Vec<u32> {
    let mut called = crate::zeroed::vec(all.len());
    for &c in calls.iter().copied().flatten() {
        if let Some(k) = index.get(c) {
            called[k] = true;
        }
    }
    let mut is_root = crate::zeroed::vec(all.len());
    let mut others = Vec::new();
    for id in entry_or_exported.chain(referenced) {
        match index.get(id) {
            Some(k) => is_root[k] = true,
            None => others.push(id),
        }
    }
    for (k, &f) in all.iter().enumerate() {
        // (A repeated id counts at its last place, `index`'s.)
        if !called[k] && index.get(f) == Some(k) {
            is_root[k] = true;
        }
    }
    // (What the roots do not reach lies on or below a cycle of calls
    // among the other functions: walked back along its callers, such a
    // function never meets a root, one that nothing calls among them, so
    // its callers loop. Without such a cycle the roots reach everything,
    // and the walk from them is spared; unless an id names two functions,
    // see `roots_may_miss`.)
    // (Tests and fuzz builds walk anyway, and check that nothing is
    // missed where the walk was spared.)
    let may_miss = roots_may_miss(all, index, &is_root, callees);
    if may_miss || cfg!(any(debug_assertions, fuzzing)) {
        let starts = (0..all.len()).filter(|&k| is_root[k]).map(|k| all[k]);
        let reached = reach_dense(all, index, starts, callees);
        let rest: Vec<u32> = all
            .iter()
            .copied()
            .filter(|&f| index.get(f).is_some_and(|k| !reached[k]))
            .collect();
        assert!(
            may_miss || rest.is_empty(),
            "the walk was to be spared, yet the roots miss {rest:?}"
        );
        let callees_of = |f: u32| index.get(f).map_or(&[][..], callees);
        for f in uncalled_recursion(&rest, &callees_of) {
            if let Some(k) = index.get(f) {
                is_root[k] = true;
            }
        }
    }
    let mut roots: Vec<u32> = (0..all.len())
        .filter(|&k| is_root[k])
        .map(|k| all[k])
        .collect();
    others.sort_unstable();
    others.dedup();
    roots.extend(others);
    roots
}

/// True when the roots (`is_root`, by place in `all`, `index`) may not
/// reach every function along `callees`, so that the walk from them must
/// tell: when the functions that are not roots call one another in a
/// cycle (a depth-first walk over them alone, which meets a function on
/// its own path), and when an id names two functions (an invalid module):
/// a call reaches only the id's last place, `index`'s, so what an earlier
/// one calls may be called by nothing the roots reach, yet is no root (a
/// fuzz finding, `tests/data/fuzz-regressions/specialize-11.bin`).
fn roots_may_miss<'c>(
    all: &[u32],
    index: &IdIndex,
    is_root: &[bool],
    callees: &dyn Fn(usize) -> &'c [u32],
) -> bool {
    const ON_PATH: u8 = 1;
    const DONE: u8 = 2;
    let mut state: Vec<u8> = crate::zeroed::vec(all.len());
    // (The path: each place with the callees it has yet to follow.)
    let mut path: Vec<(usize, &[u32])> = Vec::new();
    for (start, &f) in all.iter().enumerate() {
        if is_root[start] || state[start] != 0 {
            continue;
        }
        // (A place whose id a later one takes is no root, and no call
        // reaches it: it comes here.)
        if index.get(f) != Some(start) {
            return true;
        }
        state[start] = ON_PATH;
        path.push((start, callees(start)));
        while let Some((k, next)) = path.last_mut() {
            let Some((&c, later)) = next.split_first() else {
                state[*k] = DONE;
                path.pop();
                continue;
            };
            *next = later;
            match index.get(c) {
                Some(j) if !is_root[j] && state[j] == ON_PATH => return true,
                Some(j) if !is_root[j] && state[j] == 0 => {
                    state[j] = ON_PATH;
                    path.push((j, callees(j)));
                }
                _ => {}
            }
        }
    }
    false
}

/// Marks, by place in `all` (`index`), the functions reachable from
/// `starts` along `callees` (each function's, by its place; iterative).
fn reach_dense<'c>(
    all: &[u32],
    index: &IdIndex,
    starts: impl Iterator<Item = u32>,
    callees: &dyn Fn(usize) -> &'c [u32],
) -> Vec<bool> {
    reach_stopping(all, index, starts, callees, |_| false).0
}

/// [`reach_dense`], not walking on from the places `stop` holds: the
/// places reached, and those of them it stopped at, as met.
#[inline(always)]
fn reach_stopping<'c>(
    all: &[u32],
    index: &IdIndex,
    starts: impl Iterator<Item = u32>,
    callees: &dyn Fn(usize) -> &'c [u32],
    stop: impl Fn(usize) -> bool,
) -> (Vec<bool>, Vec<usize>) {
    let mut seen = crate::zeroed::vec(all.len());
    // (A place is stacked once at most.)
    let mut stack = Vec::with_capacity(all.len());
    for id in starts {
        visit(index, id, &mut seen, &mut stack);
    }
    let stopped = walk(index, &mut seen, stack, callees, stop);
    (seen, stopped)
}

/// Marks the place of function `id` in `seen` and stacks it, unless it
/// has none or was marked before.
#[inline(always)]
fn visit(index: &IdIndex, id: u32, seen: &mut [bool], stack: &mut Vec<usize>) {
    if let Some(k) = index.get(id)
        && !seen[k]
    {
        seen[k] = true;
        stack.push(k);
    }
}

/// Marks in `seen` what the places on `stack` reach along `callees`, not
/// walking on from the places `stop` holds; returns those, as met.
#[inline(always)]
fn walk<'c>(
    index: &IdIndex,
    seen: &mut [bool],
    mut stack: Vec<usize>,
    callees: &dyn Fn(usize) -> &'c [u32],
    stop: impl Fn(usize) -> bool,
) -> Vec<usize> {
    let mut stopped = Vec::new();
    while let Some(k) = stack.pop() {
        if stop(k) {
            stopped.push(k);
            continue;
        }
        for &c in callees(k) {
            visit(index, c, seen, &mut stack);
        }
    }
    stopped
}

/// What the roots reach before any function a rewrite changes is walked:
/// the part of [`dead_functions`]' walk that every set of predicate values
/// shares, so a batch walks it once for all its groups.
#[derive(Debug)]
pub(in crate::specialize) struct FixedReach {
    /// By place: reached.
    seen: Vec<bool>,
    /// The places reached whose callees a rewrite may change, not walked
    /// on from.
    frontier: Vec<usize>,
}

impl FixedReach {
    /// The walk from `roots` along `callees` (the input's call graph, each
    /// function's callees by its place), stopping at the places
    /// `rewritten` holds (by place in `all`, `index`): there the rewrites'
    /// callees take over.
    pub(in crate::specialize) fn new<'c>(
        all: &[u32],
        index: &IdIndex,
        roots: &[u32],
        rewritten: &[bool],
        callees: &dyn Fn(usize) -> &'c [u32],
    ) -> FixedReach {
        let stop = |k: usize| rewritten.get(k).copied().unwrap_or(false);
        let (seen, frontier) = reach_stopping(all, index, roots.iter().copied(), callees, stop);
        FixedReach { seen, frontier }
    }
}

/// The members of the groups of mutually recursive functions in `rest`
/// that nothing outside their group calls. Every caller of a function in
/// `rest` is in `rest` (the roots reach the others), so these are the
/// source components of `rest`'s call graph. Linear: a depth-first walk
/// gives finish times; the latest-finishing function not yet covered is in
/// such a group (no other component reaches it), whose members are then
/// exactly the functions that reach it; everything it reaches is covered.
fn uncalled_recursion<'c>(rest: &[u32], callees: &dyn Fn(u32) -> &'c [u32]) -> Vec<u32> {
    let in_rest: HashSet<u32> = rest.iter().copied().collect();
    let mut callers: HashMap<u32, Vec<u32>> = HashMap::default();
    for &f in rest {
        for &c in callees(f) {
            callers.entry(c).or_default().push(f);
        }
    }
    let mut finished = Vec::with_capacity(rest.len());
    let mut visited: HashSet<u32> = HashSet::default();
    for &start in rest {
        if !visited.insert(start) {
            continue;
        }
        let mut stack = vec![(start, 0usize)];
        while let Some((f, next)) = stack.last_mut() {
            match callees(*f).get(*next) {
                Some(&c) => {
                    *next += 1;
                    if in_rest.contains(&c) && visited.insert(c) {
                        stack.push((c, 0));
                    }
                }
                None => {
                    finished.push(*f);
                    stack.pop();
                }
            }
        }
    }
    let callers_of = |f: u32| callers.get(&f).map_or(&[][..], Vec::as_slice);
    let mut covered: HashSet<u32> = HashSet::default();
    let mut out = Vec::new();
    for &v in finished.iter().rev() {
        if covered.contains(&v) {
            continue;
        }
        out.extend(reach(std::iter::once(v), &callers_of));
        let mut stack = vec![v];
        while let Some(f) = stack.pop() {
            if in_rest.contains(&f) && covered.insert(f) {
                stack.extend(callees(f).iter().copied());
            }
        }
    }
    out
}

/// Functions to remove: those the rewritten call graph (`callees`, each
/// function's by its place) no longer reaches from `roots` (see
/// [`liveness_roots`]), by place in `all` (`index`; only each id's place
/// there counts). With `fixed` (made from
/// the same roots, and stopped at every function whose `callees` differ
/// from the input's), the walk goes on from there.
pub(in crate::specialize) fn dead_functions<'c>(
    all: &[u32],
    index: &IdIndex,
    roots: &[u32],
    callees: &dyn Fn(usize) -> &'c [u32],
    fixed: Option<&FixedReach>,
) -> Vec<bool> {
    let mut dead = match fixed {
        Some(f) => {
            let mut seen = f.seen.clone();
            walk(index, &mut seen, f.frontier.clone(), callees, |_| false);
            seen
        }
        None => reach_dense(all, index, roots.iter().copied(), callees),
    };
    for d in &mut dead {
        *d = !*d;
    }
    dead
}

/// Functions reachable from `starts` along `callees` (iterative).
fn reach<'c>(
    starts: impl Iterator<Item = u32>,
    callees: &dyn Fn(u32) -> &'c [u32],
) -> HashSet<u32> {
    let mut stack: Vec<u32> = starts.collect();
    let mut seen: HashSet<u32> = HashSet::with_capacity_and_hasher(stack.len(), Default::default());
    while let Some(f) = stack.pop() {
        if seen.insert(f) {
            stack.extend(callees(f).iter().copied());
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(function, callees)` as a callee lookup.
    fn graph(edges: &[(u32, &[u32])]) -> HashMap<u32, Vec<u32>> {
        edges.iter().map(|(f, c)| (*f, c.to_vec())).collect()
    }

    /// The roots, sorted.
    fn roots(all: &[u32], entries: &[u32], g: &HashMap<u32, Vec<u32>>) -> Vec<u32> {
        let callees = |k: usize| g.get(&all[k]).map_or(&[][..], Vec::as_slice);
        let index = IdIndex::new(all.iter().copied(), 0);
        let calls: Vec<&[u32]> = (0..all.len()).map(callees).collect();
        let mut roots = liveness_roots(
            all,
            &index,
            &calls,
            entries.iter().copied(),
            std::iter::empty(),
            &callees,
        );
        roots.sort_unstable();
        roots
    }

    #[test]
    fn uncalled_functions_are_roots_and_their_callees_are_not() {
        // 1 (entry) -> 2; 3 (uncalled) -> 4 -> 5.
        let g = graph(&[(1, &[2]), (3, &[4]), (4, &[5])]);
        assert_eq!(roots(&[1, 2, 3, 4, 5], &[1], &g), [1, 3]);
    }

    #[test]
    fn recursion_nothing_outside_calls_is_a_root_what_it_calls_is_not() {
        // 1 (entry). 2 <-> 3 (nothing else calls them); 3 -> 4 <-> 5;
        // 6 -> 6 (calls only itself) -> 7; 8 -> 8 called by 1.
        let g = graph(&[
            (1, &[8]),
            (2, &[3]),
            (3, &[2, 4]),
            (4, &[5]),
            (5, &[4]),
            (6, &[6, 7]),
            (8, &[8]),
        ]);
        let all = [4, 5, 7, 1, 8, 2, 3, 6];
        assert_eq!(roots(&all, &[1], &g), [1, 2, 3, 6]);
        // Whatever order the functions come in.
        for k in 0..all.len() {
            let mut order = all;
            order.rotate_left(k);
            assert_eq!(roots(&order, &[1], &g), [1, 2, 3, 6], "{order:?}");
            order.reverse();
            assert_eq!(roots(&order, &[1], &g), [1, 2, 3, 6], "{order:?}");
        }
        // With 3's call to 4 and 6's to 7 in dead arms, 4, 5 and 7 go.
        let after = graph(&[
            (1, &[8]),
            (2, &[3]),
            (3, &[2]),
            (4, &[5]),
            (5, &[4]),
            (6, &[6]),
            (8, &[8]),
        ]);
        let callees = |k: usize| after.get(&all[k]).map_or(&[][..], Vec::as_slice);
        let index = IdIndex::new(all.iter().copied(), 0);
        let root_ids = roots(&all, &[1], &g);
        let dead_at = dead_functions(&all, &index, &root_ids, &callees, None);
        let mut dead: Vec<u32> = (0..all.len())
            .filter(|&k| dead_at[k])
            .map(|k| all[k])
            .collect();
        dead.sort_unstable();
        assert_eq!(dead, [4, 5, 7]);
        // The walk shared by a batch, stopped at the rewritten 3 and 6,
        // then finished with the rewrites' callees, decides alike.
        let input = |k: usize| g.get(&all[k]).map_or(&[][..], Vec::as_slice);
        let rewritten: Vec<bool> = all.iter().map(|f| [3, 6].contains(f)).collect();
        let fixed = FixedReach::new(&all, &index, &root_ids, &rewritten, &input);
        assert_eq!(
            dead_functions(&all, &index, &root_ids, &callees, Some(&fixed)),
            dead_at
        );
    }

    /// On call graphs made at random (a few thousand, small enough to hold
    /// cycles often), every id naming one function: `roots_may_miss`
    /// agrees with petgraph's cycle test over the functions that are not
    /// roots, and where it finds no cycle the roots reach every function,
    /// so that `liveness_roots` may spare that walk; the roots are then
    /// those of the walk.
    #[test]
    fn no_cycle_outside_the_roots_means_the_roots_reach_everything() {
        use petgraph::algo::is_cyclic_directed;
        use petgraph::graph::DiGraph;
        let mut next = crate::random::below(0x9e37_79b9_7f4a_7c15);
        let (mut with_cycle, mut without) = (0, 0);
        for _ in 0..4000 {
            let n = 1 + next(9) as u32;
            // Ids 1..=n, in an order of their own; an edge now and then,
            // each once (a callee list holds a function once).
            let mut all: Vec<u32> = (1..=n).collect();
            all.rotate_left(next(u64::from(n)) as usize);
            let mut g: HashMap<u32, Vec<u32>> = HashMap::default();
            for f in 1..=n {
                for c in 1..=n {
                    if next(4) == 0 {
                        g.entry(f).or_default().push(c);
                    }
                }
            }
            let entries: Vec<u32> = (1..=n).filter(|_| next(3) == 0).collect();
            let callees = |k: usize| g.get(&all[k]).map_or(&[][..], Vec::as_slice);
            let index = IdIndex::new(all.iter().copied(), 0);
            // The roots before the cycle rule: entries and uncalled.
            let called: HashSet<u32> = g.values().flatten().copied().collect();
            let is_root: Vec<bool> = (all.iter())
                .map(|f| entries.contains(f) || !called.contains(f))
                .collect();
            let mut others = DiGraph::<u32, ()>::new();
            let node: HashMap<u32, _> = (all.iter().zip(&is_root))
                .filter(|&(_, &root)| !root)
                .map(|(&f, _)| (f, others.add_node(f)))
                .collect();
            for (f, cs) in &g {
                for c in cs {
                    if let (Some(&a), Some(&b)) = (node.get(f), node.get(c)) {
                        others.add_edge(a, b, ());
                    }
                }
            }
            let cycle = roots_may_miss(&all, &index, &is_root, &callees);
            assert_eq!(
                cycle,
                is_cyclic_directed(&others),
                "{all:?} {g:?} {entries:?}"
            );
            if cycle {
                with_cycle += 1;
                continue;
            }
            without += 1;
            let starts = (0..all.len()).filter(|&k| is_root[k]).map(|k| all[k]);
            let reached = reach_dense(&all, &index, starts, &callees);
            assert!(reached.iter().all(|&r| r), "{all:?} {g:?} {entries:?}");
            let mut want: Vec<u32> = (0..all.len())
                .filter(|&k| is_root[k])
                .map(|k| all[k])
                .collect();
            want.sort_unstable();
            assert_eq!(roots(&all, &entries, &g), want);
        }
        // Both kinds were made, many times.
        assert!(with_cycle > 500 && without > 500, "{with_cycle} {without}");
    }

    /// An id that names two functions (an invalid module, as the fuzzer
    /// made one): a call reaches only the id's last place, so a function
    /// that only the first place calls is reached from no root and called
    /// by nothing the roots reach. The walk from the roots must tell that
    /// (it makes the function a root, as before the walk could be
    /// spared), though the functions that are not roots hold no cycle.
    #[test]
    fn what_only_a_function_defined_again_calls_is_a_root() {
        // Places: 0 is function 5, which calls 7; 1 is 7; 2 is 5 again,
        // the entry point.
        let all = [5, 7, 5];
        let index = IdIndex::new(all.iter().copied(), 0);
        let lists: [&[u32]; 3] = [&[7], &[], &[]];
        let callees = |k: usize| lists[k];
        let calls = lists.concat();
        assert!(roots_may_miss(
            &all,
            &index,
            &[false, false, true],
            &callees
        ));
        let mut got = liveness_roots(
            &all,
            &index,
            &[&calls],
            [5].into_iter(),
            std::iter::empty(),
            &callees,
        );
        got.sort_unstable();
        assert_eq!(got, [5, 7]);
    }
}
