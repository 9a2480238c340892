//! Analysis, once per module: what does not depend on the predicates'
//! values. First what module scope alone tells ([`ScopeFacts`], found
//! while the functions are parsed): the chain's shape (which ids make a
//! function need rewriting and which module-scope instructions read
//! them), the table's closure and which of it the functions decide. Then
//! one scan of every function's words, and the call graph's roots.

use crate::error::Result;
use crate::globals::{Globals, ModuleReads};
use crate::idbits::IdBits;
use crate::idset::{IdIndex, IdSet};
use crate::module::Module;
use crate::table::PredicateTable;

use super::context::ChainShape;
use super::{scan, sweep};

/// What does not depend on the predicates' values.
pub(super) struct Analysis {
    /// The predicate table.
    pub(super) table: PredicateTable,
    /// Every function's id, in module order.
    pub(super) function_ids: Vec<u32>,
    /// The table variable and the module-scope ids it uses, transitively
    /// (`sweep::table_closure`).
    pub(super) closure: Vec<u32>,
    /// Module-scope readers of the table's closure.
    pub(super) table_readers: sweep::TableReaders,
    /// The ids of `closure` whose mentions in functions can decide whether
    /// they go (`sweep::TableTracking`): the only ones the scan records.
    pub(super) tracked_table_ids: IdSet,
    /// Module-scope ids whose staying keeps the rest of `closure` whatever
    /// the functions mention (`sweep::TableTracking::pins`).
    pins: Vec<u32>,
    /// The predicate call sites, the ids that make a function need
    /// rewriting and the module-scope instructions that read them.
    pub(super) shape: ChainShape,
    /// What `scan` found in each function, in module order.
    pub(super) scan: scan::Scan,
    /// Index into `function_ids` of each function id.
    fact_of: IdIndex,
    /// True when no function id is defined twice: then a function's place
    /// ([`Analysis::place`]) is its index in the module.
    ids_unique: bool,
    /// Roots of the call graph (`sweep::liveness_roots`).
    pub(super) roots: Vec<u32>,
}

/// What module scope alone tells of a module with a predicate table: the
/// part of [`Analysis`] that needs none of the functions, so that a large
/// module's functions can be parsed meanwhile. Its fields become
/// [`Analysis`]'s of the same names.
pub(super) struct ScopeFacts {
    table: PredicateTable,
    shape: ChainShape,
    closure: Vec<u32>,
    table_readers: sweep::TableReaders,
    tracked_table_ids: IdSet,
    pins: Vec<u32>,
}

impl ScopeFacts {
    /// Reads the module scope of `m` (its functions need not be parsed),
    /// which has a predicate `table`; `reads` are what its module-level
    /// instructions read (dropped once used).
    pub(super) fn new(
        m: &Module<'_>,
        g: &Globals,
        reads: ModuleReads,
        table: PredicateTable,
    ) -> Result<ScopeFacts> {
        let n = m.words.len();
        let shape = ChainShape::find(m, g, &reads, &table)?;
        let closure = sweep::table_closure(m, g, &table);
        let table_readers = sweep::table_readers(&reads, n, &closure, table.variable);
        drop(reads);
        let tt = sweep::TableTracking::new(&closure, &table_readers, table.variable, &|id| {
            g.defs.contains(id) && !shape.rewrite_triggers().contains(id)
        });
        let tracked_table_ids = IdSet::new(tt.tracked.iter().copied(), n);
        Ok(ScopeFacts {
            table,
            shape,
            closure,
            table_readers,
            tracked_table_ids,
            pins: tt.pins,
        })
    }
}

impl Analysis {
    /// Completes the analysis of `m`, its functions parsed, from what its
    /// module scope told (`scope`).
    pub(super) fn new(m: &Module<'_>, g: &Globals, scope: ScopeFacts) -> Result<Analysis> {
        let n = m.words.len();
        let ScopeFacts {
            table,
            shape,
            closure,
            table_readers,
            tracked_table_ids,
            pins,
        } = scope;
        let function_ids: Vec<u32> = m.functions.iter().map(|f| f.id).collect();
        let interest = scan::Interest::new(
            shape.rewrite_triggers(),
            &function_ids,
            &tracked_table_ids,
            n,
        );
        let scan = scan::Scan::new(m, &interest)?;
        let fact_of = IdIndex::new(function_ids.iter().copied(), n);
        let ids_unique =
            (function_ids.iter().enumerate()).all(|(k, &id)| fact_of.get(id) == Some(k));
        let callees = |f: u32| fact_of.get(f).map_or(&[][..], |k| scan.callees(k));
        let entry_or_exported = g.entry_functions.iter().copied().chain(
            g.exported
                .iter()
                .copied()
                .filter(|&id| fact_of.get(id).is_some()),
        );
        let roots = sweep::liveness_roots(
            &function_ids,
            &fact_of,
            entry_or_exported,
            scan.fn_refs.iter().copied(),
            &callees,
        );
        Ok(Analysis {
            table,
            fact_of,
            ids_unique,
            roots,
            function_ids,
            closure,
            table_readers,
            tracked_table_ids,
            pins,
            shape,
            scan,
        })
    }

    /// The place of function id `f` in `function_ids` (its last place,
    /// when the module defines it twice).
    pub(super) fn place(&self, f: u32) -> Option<usize> {
        self.fact_of.get(f)
    }

    /// True when no function id is defined twice: then a function's place
    /// ([`Analysis::place`]) is its index in the module.
    pub(super) fn ids_unique(&self) -> bool {
        self.ids_unique
    }

    /// [`Analysis::place`] as an index.
    pub(super) fn index(&self) -> &IdIndex {
        &self.fact_of
    }

    /// The callees of function `f` in the input, in order.
    pub(super) fn callees(&self, f: u32) -> &[u32] {
        self.fact_of
            .get(f)
            .map_or(&[][..], |k| self.scan.callees(k))
    }

    /// The ids of `closure` that kept functions mention, for
    /// `sweep::removable_table_ids`. `kept(k)` tells whether the `k`th
    /// function of `m` stays; `rewritten(k)`, when it was rewritten, its
    /// new words' mentions of `tracked_table_ids`
    /// (`scan::tracked_mentions_in`); `words_of(k, out)` appends the words
    /// of function `k` as they are written (new or kept). Only mentions of
    /// `tracked_table_ids` can decide anything, unless a pin went: when
    /// `removed` (the ids removed before the table sweep) holds one, which
    /// only a module that defines an id twice can make happen, the
    /// mentions of the whole closure are gathered from the words instead,
    /// so the sweep decides as it would with every closure id tracked.
    pub(super) fn kept_mentions<'r>(
        &'r self,
        m: &Module<'_>,
        removed: &IdBits,
        kept: &dyn Fn(usize) -> bool,
        rewritten: &dyn Fn(usize) -> Option<&'r [u32]>,
        words_of: &dyn Fn(usize, &mut Vec<u32>),
    ) -> IdBits {
        let mut out = IdBits::new(m.bound(), m.words.len());
        let all_functions = 0..m.functions.len();
        if !self.pins.iter().any(|&p| removed.contains(p)) {
            let mentions = |k: usize| match kept(k) {
                true => rewritten(k).unwrap_or_else(|| self.scan.tracked_mentions(k)),
                false => &[],
            };
            if !self.ids_unique {
                for k in all_functions {
                    out.extend(mentions(k).iter().copied());
                }
                return out;
            }
            // Only a function rewritten (each id its own) or one whose
            // input mentions a tracked id can have any.
            let (rewritten, with_tracked) =
                (self.scan.to_rewrite(), self.scan.with_tracked_mentions());
            let some = rewritten.iter().chain(with_tracked).map(|&k| k as usize);
            // (Test and fuzz builds check that those are all.)
            if cfg!(any(debug_assertions, fuzzing)) {
                let sorted = |functions: &mut dyn Iterator<Item = usize>| {
                    let mut ids: Vec<u32> = functions.flat_map(mentions).copied().collect();
                    ids.sort_unstable();
                    ids.dedup();
                    ids
                };
                let (of_some, of_all) = (
                    sorted(&mut some.clone()),
                    sorted(&mut all_functions.clone()),
                );
                assert_eq!(of_some, of_all, "the mentions of the kept functions");
            }
            for k in some {
                out.extend(mentions(k).iter().copied());
            }
            return out;
        }
        let all = IdSet::new(self.closure.iter().copied(), m.words.len());
        let mut words = Vec::new();
        for k in all_functions.filter(|&k| kept(k)) {
            words.clear();
            words_of(k, &mut words);
            let ids = scan::tracked_mentions_in(&words, &all, true).unwrap_or_default();
            out.extend(ids);
        }
        out
    }
}
