//! The predicate table's closure and what goes with the table: the table
//! variable, then each constant and type that only it (transitively)
//! used, latest definition first (the second step of the module-wide
//! sweep).

use crate::globals::{Globals, ModuleReads, definition_ids};
use crate::idbits::IdBits;
use crate::idset::IdIndex;
use crate::module::Module;
use crate::operands::{Role, for_each_id};
use crate::table::PredicateTable;

/// The table variable and the module-scope ids it uses, transitively, in
/// definition order.
pub(in crate::specialize) fn table_closure(
    m: &Module<'_>,
    g: &Globals,
    table: &PredicateTable,
) -> Vec<u32> {
    let mut seen = IdBits::new(m.bound(), m.words.len());
    // Each member with its definition's position (0 for a variable
    // without one, then alone), packed as `position << 32 | id` (word
    // indices fit in 32 bits): one integer sort, cheaper than of pairs.
    // (Room for the closure of a typical table: a string's bytes.)
    let mut found: Vec<u64> = Vec::with_capacity(128);
    let mut stack = Vec::with_capacity(128);
    stack.push(table.variable);
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        let Some(inst) = g.defs.get(id) else {
            found.push(u64::from(id));
            continue;
        };
        found.push(((inst.at as u64) << 32) | u64::from(id));
        let w = m.inst_words(inst);
        let mut reads = |x: u32| {
            if g.defs.contains(x) {
                stack.push(x);
            }
        };
        if let Some((typed, _, uses)) = definition_ids(w) {
            if typed {
                reads(w[1]);
            }
            w[uses].iter().for_each(|&x| reads(x));
            continue;
        }
        let _ = for_each_id(w, inst.byte_offset(), &|_| 1, &mut |pos, role| {
            if matches!(role, Role::Use | Role::ResultType) {
                reads(w[pos]);
            }
        });
    }
    found.sort_unstable();
    found.into_iter().map(|x| x as u32).collect()
}

/// Module-scope readers of the table's closure. Names and decorations go
/// with the id they name (word 1), so naming a closure id does not read it;
/// any other id they hold (`OpDecorateId` operands) is read on behalf of the
/// id they name. Does not depend on the predicates' values, so it is
/// computed once per module.
#[derive(Debug)]
pub(in crate::specialize) struct TableReaders {
    /// Each closure id's place in the closure.
    place: IdIndex,
    /// Where the readers of each place start in `readers` (and, last,
    /// where they end).
    starts: Vec<u32>,
    /// The result ids of the instructions that read each closure id, by
    /// place, in module order (an instruction reading an id twice is there
    /// twice; a count sort: nothing to search or sort per id).
    readers: Vec<u32>,
    /// Closure ids read by an instruction without a result (other than the
    /// variable's entry-point interface slots): they must stay. Sorted.
    anonymous: Vec<u32>,
}

impl TableReaders {
    /// The readers of the `places` ids of the closure whose places are
    /// `place` (ids each once) from `(place of a closure id, result id of
    /// an instruction reading it)` pairs, and the ids read by
    /// instructions without a result.
    fn new(
        place: IdIndex,
        places: usize,
        pairs: &[(u32, u32)],
        mut anonymous: Vec<u32>,
    ) -> TableReaders {
        // Counts shifted by two places, summed, then each reader put at
        // its place's next slot: `starts[k + 1]` ends where place `k + 1`
        // starts, and the spare last count goes.
        let mut starts = crate::zeroed::vec::<u32>(places + 2);
        for &(k, _) in pairs {
            starts[k as usize + 2] += 1;
        }
        for k in 1..starts.len() {
            starts[k] += starts[k - 1];
        }
        let mut readers = crate::zeroed::vec(starts[places + 1] as usize);
        for &(k, r) in pairs {
            let slot = &mut starts[k as usize + 1];
            readers[*slot as usize] = r;
            *slot += 1;
        }
        starts.pop();
        anonymous.sort_unstable();
        anonymous.dedup();
        TableReaders {
            place,
            starts,
            readers,
            anonymous,
        }
    }

    /// Result ids of the instructions that read closure id `id`.
    #[inline]
    fn of(&self, id: u32) -> &[u32] {
        match self.place.get(id) {
            Some(k) => &self.readers[self.starts[k] as usize..self.starts[k + 1] as usize],
            None => &[],
        }
    }
}

/// Finds the module-scope readers of `closure` among what the module-level
/// instructions read (`reads`, from `Globals::scan_with_reads`); the module
/// has `module_words` words.
pub(in crate::specialize) fn table_readers(
    reads: &ModuleReads,
    module_words: usize,
    closure: &[u32],
    table_variable: u32,
) -> TableReaders {
    // Each closure id's place, which also tells which ids are in it.
    let place = IdIndex::new(closure.iter().copied(), module_words);
    // (Room for every id read in a small module, where the closure's
    // string bytes are most of them; a larger one's list grows.)
    let room = reads.ids_read().min(1 << 12).max(2 * closure.len());
    let mut pairs: Vec<(u32, u32)> = Vec::with_capacity(room);
    let mut anonymous = Vec::new();
    // Each place's last reader: an instruction that reads an id again (a
    // string's repeated bytes in the table's initializer) adds no pair,
    // as a reader only counts for whether it goes. (The list starts at 0,
    // which no reader stored here is: reader 0 is taken by the first two
    // arms below. Each instruction's reads come once, in order, so a
    // reader never returns to a place after another.)
    let mut last_reader = crate::zeroed::vec::<u32>(closure.len());
    for (_, reader, ids) in reads.iter() {
        for &x in ids {
            let Some(k) = place.get(x) else {
                continue;
            };
            match reader {
                // e.g. OpEntryPoint interfaces: handled by the emitter for
                // the variable; anything else keeps the id.
                0 if x == table_variable => {}
                0 => anonymous.push(x),
                _ if last_reader[k] == reader => {}
                _ => {
                    last_reader[k] = reader;
                    pairs.push((k as u32, reader));
                }
            }
        }
    }
    TableReaders::new(place, closure.len(), &pairs, anonymous)
}

/// Which of the table's closure the functions decide. An id of the closure
/// goes only when no kept function mentions it and every module-scope
/// reader of it goes ([`removable_table_ids`]). A reader that is a
/// module-scope definition outside the closure and outside the predicate
/// chain (a "pin") never goes, so the ids it reads stay whatever the
/// functions do, and so do the ids those read; an id read by an
/// instruction without a result stays too, and the variable always goes.
/// The scan then records only the mentions of the rest (`tracked`): most
/// instructions name a common type such as `%uint` that a pin holds.
#[derive(Debug, Default)]
pub(in crate::specialize) struct TableTracking {
    /// The closure ids whose mentions can decide whether they go.
    pub tracked: Vec<u32>,
    /// The module-scope ids that hold the others: the decision above holds
    /// while none of them is removed (only a module that also defines one
    /// in a function can remove one).
    pub pins: Vec<u32>,
}

impl TableTracking {
    /// Finds which of `closure` the functions decide; `pin(id)` tells
    /// whether a reader is a module-scope definition outside the
    /// predicate chain.
    pub(in crate::specialize) fn new(
        closure: &[u32],
        readers: &TableReaders,
        table_variable: u32,
        pin: &dyn Fn(u32) -> bool,
    ) -> TableTracking {
        // `removable_table_ids` with no function mentioning anything and
        // every id removed but the pins: what stays then always stays.
        let mut gone = Gone::new(closure, table_variable);
        let mut tt = TableTracking {
            tracked: Vec::with_capacity(closure.len()),
            pins: Vec::with_capacity(closure.len()),
        };
        for &id in closure.iter().rev() {
            if id == table_variable || readers.anonymous.binary_search(&id).is_ok() {
                continue;
            }
            let mut held = false;
            for &r in readers.of(id) {
                if gone.contains(r) || !pin(r) {
                    continue;
                }
                held = true;
                tt.pins.push(r);
            }
            if !held {
                gone.insert(id);
                tt.tracked.push(id);
            }
        }
        tt.tracked.sort_unstable();
        tt.pins.sort_unstable();
        tt.pins.dedup();
        tt
    }
}

/// Which of the table's closure and variable go (only those ids can): a
/// bit per id, for ids up to 32 per closure member (the closure's ids are
/// mostly small; any beyond that are hashed), so a reader is looked up
/// without a search.
struct Gone(IdBits);

impl Gone {
    /// Nothing gone but the variable.
    fn new(closure: &[u32], table_variable: u32) -> Gone {
        let largest = closure.iter().fold(table_variable, |a, &b| a.max(b));
        let mut gone = Gone(IdBits::new(largest.saturating_add(1), closure.len() + 1));
        gone.insert(table_variable);
        gone
    }

    /// Marks closure id (or the variable) `id` as gone.
    #[inline]
    fn insert(&mut self, id: u32) {
        self.0.insert(id);
    }

    /// True when `id` goes.
    #[inline]
    fn contains(&self, id: u32) -> bool {
        self.0.contains(id)
    }
}

/// Which of the table's closure can go: the variable always; any other id
/// when every module-scope reader of it goes too (is in `removed` or goes
/// here) and no kept function mentions it (`kept_function_mentions`).
pub(in crate::specialize) fn removable_table_ids(
    closure: &[u32],
    readers: &TableReaders,
    removed: &IdBits,
    kept_function_mentions: &IdBits,
    table_variable: u32,
) -> Vec<u32> {
    let mut out = Vec::with_capacity(closure.len() + 1);
    out.push(table_variable);
    let mut gone = Gone::new(closure, table_variable);
    for &id in closure.iter().rev() {
        if id == table_variable
            || kept_function_mentions.contains(id)
            || readers.anonymous.binary_search(&id).is_ok()
        {
            continue;
        }
        let all_gone = readers
            .of(id)
            .iter()
            .all(|&r| removed.contains(r) || gone.contains(r));
        if all_gone {
            gone.insert(id);
            out.push(id);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fastmap::Set as HashSet;

    /// [`TableReaders`] of `closure` from `(closure id, reader)` pairs
    /// (the pairs of ids outside the closure left out, as `table_readers`
    /// does).
    fn readers_of(closure: &[u32], pairs: &[(u32, u32)], anonymous: Vec<u32>) -> TableReaders {
        let place = IdIndex::new(closure.iter().copied(), 64);
        let by_place: Vec<(u32, u32)> = pairs
            .iter()
            .filter_map(|&(id, r)| place.get(id).map(|k| (k as u32, r)))
            .collect();
        TableReaders::new(place, closure.len(), &by_place, anonymous)
    }

    /// Each closure id's readers come back in the order they were found,
    /// repeats kept; an id outside the closure has none.
    #[test]
    fn readers_by_closure_id() {
        let closure = [7, 3, 40, 5];
        let pairs = [(3, 10), (40, 11), (3, 12), (7, 13), (3, 10), (40, 14)];
        let readers = readers_of(&closure, &pairs, vec![5, 3, 5]);
        assert_eq!(readers.of(3), [10, 12, 10]);
        assert_eq!(readers.of(40), [11, 14]);
        assert_eq!(readers.of(7), [13]);
        assert!(readers.of(5).is_empty());
        assert!(readers.of(8).is_empty());
        assert_eq!(readers.anonymous, [3, 5]);
    }

    /// The claim `TableTracking` rests on: while no pin is removed, the table
    /// sweep decides alike whether functions' mentions of the closure are
    /// all known or only those of `tracked` are, over many random readers,
    /// removals and mentions.
    #[test]
    fn mentions_outside_the_watch_never_decide() {
        let mut below = crate::random::below(0x2545_f491_4f6c_dd1d);
        let mut next = |n: u32| below(u64::from(n)) as u32;
        // Closure ids 1..=6 (definition order; 6 is the variable, 3 a
        // predicate site), module-scope pins 10..=12, removable ids
        // 20..=22 (chain values, sites, function-local ids).
        let closure: Vec<u32> = (1..=6).collect();
        let variable = 6;
        let pin = |id: u32| (1..=12).contains(&id) && id != 3;
        let mut checked = 0;
        for _ in 0..20_000 {
            let (mut pairs, mut anonymous) = (Vec::new(), Vec::new());
            for &id in &closure[..5] {
                for _ in 0..next(3) {
                    let r = match next(3) {
                        0 => 1 + next(6),
                        1 => 10 + next(3),
                        _ => 20 + next(3),
                    };
                    pairs.push((id, r));
                }
                if next(8) == 0 {
                    anonymous.push(id);
                }
            }
            let readers = readers_of(&closure, &pairs, anonymous);
            let tt = TableTracking::new(&closure, &readers, variable, &pin);
            let removed: HashSet<u32> = (10..=12)
                .chain(20..=22)
                .chain([3])
                .filter(|_| next(2) == 0)
                .collect();
            if tt.pins.iter().any(|p| removed.contains(p)) {
                continue;
            }
            let mentions: HashSet<u32> = closure.iter().copied().filter(|_| next(2) == 0).collect();
            let tracked: HashSet<u32> = mentions
                .iter()
                .copied()
                .filter(|id| tt.tracked.contains(id))
                .collect();
            let bits = |set: &HashSet<u32>| {
                let mut b = IdBits::new(32, 32);
                b.extend(set.iter().copied());
                b
            };
            let (removed_bits, mentions_bits, tracked_bits) =
                (bits(&removed), bits(&mentions), bits(&tracked));
            let all =
                removable_table_ids(&closure, &readers, &removed_bits, &mentions_bits, variable);
            let seen =
                removable_table_ids(&closure, &readers, &removed_bits, &tracked_bits, variable);
            assert_eq!(
                all, seen,
                "{readers:?} tracked {:?} removed {removed:?}",
                tt.tracked
            );
            checked += 1;
        }
        assert!(checked > 10_000, "{checked}");
    }
}
