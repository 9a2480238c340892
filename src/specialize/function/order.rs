//! Block order after the rewrite: dominators (Cooper–Harvey–Kennedy) and an
//! order close to the input's in which every block follows its dominator.

use super::decode::Func;
use super::sccp::NONE;

/// The allocations of [`dominance_order`]'s common case, kept between
/// functions.
#[derive(Default)]
pub(super) struct Buffers {
    index: Vec<usize>,
    reached: Vec<bool>,
    entered: Vec<bool>,
}

/// Orders `kept` blocks like the input, except that a block whose immediate
/// dominator (in the rewritten CFG) comes later waits until it is placed.
/// `decided[b]` is the one successor a folded block keeps ([`NONE`]: all);
/// the result goes to `order`.
pub(super) fn dominance_order(
    f: &Func<'_>,
    kept: &[usize],
    live: &[bool],
    decided: &[usize],
    bufs: &mut Buffers,
    order: &mut Vec<usize>,
) {
    order.clear();
    // Position in `kept` of each block of the function (`NONE`: not kept).
    let Buffers {
        index,
        reached,
        entered,
    } = bufs;
    index.clear();
    index.resize(f.blocks.len(), NONE);
    for (k, &b) in kept.iter().enumerate() {
        index[b] = k;
    }
    let targets = |b: usize| match decided[b] {
        NONE => f.successors(b),
        _ => std::slice::from_ref(&decided[b]),
    };
    if keeps_input_order(kept, live, index, targets, reached, entered) {
        order.extend_from_slice(kept);
        return;
    }
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); kept.len()];
    for (k, &b) in kept.iter().enumerate() {
        if !live[b] {
            continue;
        }
        succ[k].extend(targets(b).iter().map(|&t| index[t]).filter(|&k| k != NONE));
    }
    let idom = immediate_dominators(&succ);
    // Walk the input order; a block whose dominator is not placed yet waits
    // on that dominator and is placed (with its own waiters) right after it.
    let mut placed = vec![false; kept.len()];
    let mut waiters: Vec<Vec<usize>> = vec![Vec::new(); kept.len()];
    for (k, dom) in idom.iter().enumerate() {
        match *dom {
            Some(d) if d != k && !placed[d] => {
                waiters[d].push(k);
                continue;
            }
            _ => {}
        }
        let mut stack = vec![k];
        while let Some(b) = stack.pop() {
            order.push(kept[b]);
            placed[b] = true;
            // Waiters in input order: push in reverse so the first pops first.
            stack.extend(std::mem::take(&mut waiters[b]).into_iter().rev());
        }
    }
    // Blocks in a dominator cycle cannot exist; anything left keeps its place.
    order.extend((0..kept.len()).filter(|&k| !placed[k]).map(|k| kept[k]));
}

/// True when every kept block already follows its immediate dominator, so
/// that [`dominance_order`] keeps the input order: the common case, found
/// without computing dominators.
///
/// A block reached from the entry by a path of kept edges that only go
/// forward in `kept` follows its dominator, which lies on that path. So
/// the input order stands when every block is so reached, or has no kept
/// incoming edge at all (unreachable: it keeps its place). Live blocks
/// only have edges out; `index` maps blocks to positions in `kept`.
fn keeps_input_order<'f>(
    kept: &[usize],
    live: &[bool],
    index: &[usize],
    targets: impl Fn(usize) -> &'f [usize],
    reached: &mut Vec<bool>,
    entered: &mut Vec<bool>,
) -> bool {
    let n = kept.len();
    reached.clear();
    reached.resize(n, false);
    entered.clear();
    entered.resize(n, false);
    reached[0] = true;
    for (k, &b) in kept.iter().enumerate() {
        if !live[b] {
            continue;
        }
        for &t in targets(b) {
            let j = index[t];
            if j == NONE {
                continue;
            }
            entered[j] = true;
            if reached[k] && j > k {
                reached[j] = true;
            }
        }
    }
    (1..n).all(|k| reached[k] || !entered[k])
}

/// Immediate dominators of nodes `0..n` (entry 0) by Cooper, Harvey and
/// Kennedy's iterative algorithm; `None` for nodes the entry does not reach.
/// Iterative throughout, so deep CFGs cannot overflow the stack.
pub(super) fn immediate_dominators(succ: &[Vec<usize>]) -> Vec<Option<usize>> {
    let n = succ.len();
    const NONE: usize = usize::MAX;
    // Reverse postorder by an explicit-stack DFS.
    let mut postorder = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
    seen[0] = true;
    while let Some(top) = stack.last_mut() {
        let (v, k) = *top;
        if k < succ[v].len() {
            top.1 += 1;
            let w = succ[v][k];
            if !seen[w] {
                seen[w] = true;
                stack.push((w, 0));
            }
        } else {
            postorder.push(v);
            stack.pop();
        }
    }
    let mut rank = vec![NONE; n];
    for (i, &v) in postorder.iter().enumerate() {
        rank[v] = i; // higher rank = earlier in reverse postorder
    }
    // Predecessors as one sorted edge list: `(to, from)`.
    let mut edges: Vec<(usize, usize)> = succ
        .iter()
        .enumerate()
        .flat_map(|(v, ws)| ws.iter().map(move |&w| (w, v)))
        .collect();
    edges.sort_unstable();
    let preds = |b: usize| {
        let start = edges.partition_point(|&(w, _)| w < b);
        edges[start..]
            .iter()
            .take_while(move |&&(w, _)| w == b)
            .map(|&(_, v)| v)
    };
    let mut idom = vec![NONE; n];
    idom[0] = 0;
    let intersect = |idom: &[usize], mut a: usize, mut b: usize| {
        while a != b {
            while rank[a] < rank[b] {
                a = idom[a];
            }
            while rank[b] < rank[a] {
                b = idom[b];
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &b in postorder.iter().rev().skip(1) {
            let mut new = NONE;
            for p in preds(b) {
                if idom[p] == NONE {
                    continue;
                }
                new = if new == NONE {
                    p
                } else {
                    intersect(&idom, p, new)
                };
            }
            if new != idom[b] {
                idom[b] = new;
                changed = true;
            }
        }
    }
    idom.into_iter()
        .enumerate()
        .map(|(v, d)| (d != NONE && v != 0).then_some(d))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{immediate_dominators, keeps_input_order};

    /// [`keeps_input_order`] on a CFG over blocks `0..n`, all kept and live.
    fn keeps_order(succ: &[Vec<usize>]) -> bool {
        let n = succ.len();
        let kept: Vec<usize> = (0..n).collect();
        let (mut reached, mut entered) = (Vec::new(), Vec::new());
        keeps_input_order(
            &kept,
            &vec![true; n],
            &kept,
            |b| &succ[b][..],
            &mut reached,
            &mut entered,
        )
    }

    #[test]
    fn input_order_kept_only_when_every_block_follows_its_dominator() {
        // A diamond in order.
        assert!(keeps_order(&[vec![1, 2], vec![3], vec![3], vec![]]));
        // 2 is reached only through 3, which comes after it.
        assert!(!keeps_order(&[vec![1, 3], vec![], vec![], vec![2]]));
        // An unreachable block with no edge in keeps its place.
        assert!(keeps_order(&[vec![1], vec![], vec![1]]));
        // A block entered only from an unreachable one is unreachable too,
        // but the quick test cannot tell: it declines.
        assert!(!keeps_order(&[vec![], vec![2], vec![]]));
        // Loops: back edges do not matter.
        assert!(keeps_order(&[vec![1], vec![2, 3], vec![1], vec![]]));
    }

    #[test]
    fn kept_order_agrees_with_the_dominators_on_random_cfgs() {
        let mut below = crate::random::below(0x2545_f491_4f6c_dd1d);
        let mut next = |m: usize| below(m as u64) as usize;
        let (mut kept_count, mut declined) = (0, 0);
        for _ in 0..2000 {
            let n = 1 + next(8);
            let succ: Vec<Vec<usize>> = (0..n)
                .map(|_| (0..next(3)).map(|_| next(n)).collect())
                .collect();
            let idom = immediate_dominators(&succ);
            // The input order stands when every block's dominator precedes
            // it; the quick test may decline, never wrongly accept.
            let follows = idom
                .iter()
                .enumerate()
                .all(|(k, d)| d.is_none_or(|d| d < k));
            if keeps_order(&succ) {
                assert!(follows, "{succ:?}: {idom:?}");
                kept_count += 1;
            } else {
                declined += 1;
            }
        }
        assert!(
            kept_count > 100 && declined > 100,
            "{kept_count} / {declined}"
        );
    }

    #[test]
    fn dominators_of_a_diamond_and_a_loop() {
        // 0 -> 1, 2; 1 -> 3; 2 -> 3; 3 -> 4, 1 (back edge); 5 unreachable
        let succ = vec![vec![1, 2], vec![3], vec![3], vec![4, 1], vec![], vec![3]];
        let idom = immediate_dominators(&succ);
        assert_eq!(idom, vec![None, Some(0), Some(0), Some(0), Some(3), None]);
    }

    #[test]
    fn deep_chain_does_not_overflow() {
        let n = 200_000;
        let succ: Vec<Vec<usize>> = (0..n)
            .map(|i| if i + 1 < n { vec![i + 1] } else { vec![] })
            .collect();
        let idom = immediate_dominators(&succ);
        assert_eq!(idom[n - 1], Some(n - 2));
    }
}
