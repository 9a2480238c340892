//! Analysis, once per module: what does not depend on the predicates'
//! values. First what module scope alone tells ([`ScopeFacts`], found
//! while the functions are parsed): the chain's shape (which ids make a
//! function need rewriting and which module-scope instructions read
//! them), the table's closure and which of it the functions decide. Then
//! one scan of every function's words, and the call graph's roots.
//!
//! A run for one target ([`Prepared::specialize_once`](super::Prepared))
//! stops the scan of each function at its first trigger: the rewrite
//! reads the whole function anyway, and its read tells the rest's callees
//! ([`Analysis::complete`]). The roots then wait for the rewrites
//! ([`Analysis::roots`]).

use std::borrow::Cow;

use crate::error::Result;
use crate::globals::{Globals, ModuleReads};
use crate::idbits::IdBits;
use crate::idset::{IdIndex, IdSet};
use crate::module::Module;
use crate::table::PredicateTable;

use super::context::ChainShape;
use super::scan::Stop;
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
    /// Roots of the call graph (`sweep::liveness_roots`), unless the
    /// scan stopped in a function: then [`Analysis::roots`] finds them
    /// once the rewrites have read the rests.
    roots: Option<Vec<u32>>,
    /// The ids the scan looked for, kept where it stopped in some function
    /// (at most 64 KB then: it looked them up by words), to tell the
    /// functions among a read's callees and to scan a rest the read does
    /// not tell ([`Analysis::complete`]).
    interest: Option<scan::Interest>,
}

/// The callees and function references of the rests of the functions
/// whose scan stopped ([`Stop`]), completed run by run as each function is
/// rewritten ([`Analysis::complete`]).
#[derive(Default)]
pub(super) struct Rests {
    /// By function index in the module: where its callees start and end
    /// in `callees`, once its rest was completed (`(0, 0)` until then).
    spans: Vec<(u32, u32)>,
    /// Each function's callees in the input, before its stop and after.
    callees: Vec<u32>,
    /// The functions the rests reference other than as a callee.
    fn_refs: Vec<u32>,
}

impl Rests {
    /// Room for the rests of `a`'s stops: a span for each function, and
    /// the callees of every stopped function whose read tells its rest.
    pub(super) fn for_stops(a: &Analysis) -> Rests {
        let stops = a.scan.stops();
        if stops.is_empty() {
            return Rests::default();
        }
        let callees = stops
            .iter()
            .map(|s| a.scan.callees(s.function as usize).len() + s.rest_functions as usize);
        Rests {
            spans: crate::zeroed::vec(a.function_ids.len()),
            callees: Vec::with_capacity(callees.sum()),
            fn_refs: Vec::new(),
        }
    }

    /// The callees in the input of the `k`th function of the module, if
    /// its rest was completed (and it has any).
    #[inline]
    fn callees(&self, k: usize) -> Option<&[u32]> {
        match self.spans.get(k) {
            Some(&(start, end)) if end > start => Some(&self.callees[start as usize..end as usize]),
            _ => None,
        }
    }

    /// Ends the `k`th function's callees (pushed to `callees` from
    /// `start` on) and adds the functions its rest references (`fn_refs`).
    fn close(&mut self, k: usize, start: usize, fn_refs: &[u32]) {
        if let Some(span) = self.spans.get_mut(k) {
            *span = (start as u32, self.callees.len() as u32);
        }
        self.fn_refs.extend_from_slice(fn_refs);
    }
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
    /// module scope told (`scope`); the scan stops at each function's first
    /// trigger when `stop_early` allows it and every function id is
    /// defined once.
    pub(super) fn new(
        m: &Module<'_>,
        g: &Globals,
        scope: ScopeFacts,
        stop_early: bool,
    ) -> Result<Analysis> {
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
        let fact_of = IdIndex::new(function_ids.iter().copied(), n);
        let ids_unique =
            (function_ids.iter().enumerate()).all(|(k, &id)| fact_of.get(id) == Some(k));
        let scan = match stop_early && ids_unique {
            true => scan::Scan::stopping_early(m, &interest)?,
            false => scan::Scan::new(m, &interest)?,
        };
        let stopped = !scan.stops().is_empty();
        let mut a = Analysis {
            table,
            fact_of,
            ids_unique,
            roots: None,
            interest: None,
            function_ids,
            closure,
            table_readers,
            tracked_table_ids,
            pins,
            shape,
            scan,
        };
        match stopped {
            true => a.interest = Some(interest),
            false => {
                let scan = &a.scan;
                let callees = |k: usize| scan.callees(k);
                a.roots = Some(a.roots_from(g, &callees, &[], &[]));
            }
        }
        Ok(a)
    }

    /// The call graph's roots (`sweep::liveness_roots`), from the input's
    /// calls: the scan's, and those of the rests the run read (`rests`,
    /// complete once every function to rewrite was rewritten).
    pub(super) fn roots(&self, g: &Globals, rests: &Rests) -> Cow<'_, [u32]> {
        match &self.roots {
            Some(roots) => Cow::Borrowed(roots),
            None => Cow::Owned(self.find_roots(g, rests)),
        }
    }

    /// [`Analysis::roots`], found from the input's calls with the rests'.
    fn find_roots(&self, g: &Globals, rests: &Rests) -> Vec<u32> {
        let callees = |k: usize| rests.callees(k).unwrap_or_else(|| self.scan.callees(k));
        self.roots_from(g, &callees, &rests.callees, &rests.fn_refs)
    }

    /// The call graph's roots, each function's callees in the input
    /// being `callees`, the input's calls the scan's and `rest_calls`
    /// (those of the rests: a callee the scan saw before a stop is there
    /// again, which changes nothing), and the functions referenced other
    /// than by a call the scan's and `fn_refs`.
    fn roots_from<'c>(
        &self,
        g: &Globals,
        callees: &dyn Fn(usize) -> &'c [u32],
        rest_calls: &[u32],
        fn_refs: &[u32],
    ) -> Vec<u32> {
        let fact_of = &self.fact_of;
        let entry_or_exported = g.entry_functions.iter().copied().chain(
            g.exported
                .iter()
                .copied()
                .filter(|&id| fact_of.get(id).is_some()),
        );
        let fn_refs = self.scan.fn_refs.iter().chain(fn_refs).copied();
        sweep::liveness_roots(
            &self.function_ids,
            fact_of,
            &[self.scan.all_callees(), rest_calls],
            entry_or_exported,
            fn_refs,
            callees,
        )
    }

    /// Completes in `rests` the callees and function references of the
    /// function at `stop` from its rewrite's read (`read_callees`: the
    /// callee word of each call of its blocks, when the read took the
    /// whole function:
    /// [`Rewritten::read_callees`](super::function::Rewritten::read_callees)),
    /// or, where that cannot tell them, by scanning the rest. The read
    /// tells them when the rest's words that are function ids
    /// ([`Stop::rest_functions`]) are as many as the read's calls of
    /// functions after the stop: then each is a callee, and the rest
    /// references no function otherwise. (Its tracked table ids, the
    /// scan's other record, matter only for a function kept as it is; the
    /// scan's `has_tracked_word` counted the rest's. And the scan finds no
    /// error in instructions the read took: each has a flat layout, which
    /// the scan reads without the grammar.) Fails with the scan's error in
    /// a rest the read does not tell.
    pub(super) fn complete(
        &self,
        m: &Module<'_>,
        stop: &Stop,
        read_callees: Option<&[u32]>,
        rests: &mut Rests,
    ) -> Result<()> {
        let k = stop.function as usize;
        let before = self.scan.callees(k);
        let interest = self.interest()?;
        if let Some(read) = read_callees {
            // (The calls of functions, as the scan records them; the first
            // are those before the stop, which it recorded.)
            let start = rests.callees.len();
            let functions = read.iter().copied().filter(|&c| interest.is_function(c));
            rests.callees.extend(functions);
            if rests.callees.len() - start == before.len() + stop.rest_functions as usize {
                rests.close(k, start, &[]);
                #[cfg(any(debug_assertions, fuzzing))]
                self.check_read_rest(m, stop, rests);
                return Ok(());
            }
            rests.callees.truncate(start);
        }
        let rest = scan::Scan::rest_of(m, interest, stop)?;
        let start = rests.callees.len();
        rests.callees.extend_from_slice(before);
        rests.callees.extend_from_slice(rest.callees(0));
        rests.close(k, start, &rest.fn_refs);
        Ok(())
    }

    /// Checks that the rest [`Analysis::complete`] took from the read of
    /// the function at `stop` is what the scan of it finds: tests and fuzz
    /// builds.
    #[cfg(any(debug_assertions, fuzzing))]
    fn check_read_rest(&self, m: &Module<'_>, stop: &Stop, rests: &Rests) {
        let k = stop.function as usize;
        let interest = self.interest().expect("a stopped scan's interest");
        let scanned = scan::Scan::rest_of(m, interest, stop).expect("a rest the read took");
        let callees = [self.scan.callees(k), scanned.callees(0)].concat();
        // (As the roots take them: none completed is the scan's, empty.)
        let completed = rests.callees(k).unwrap_or(self.scan.callees(k));
        assert_eq!(completed, &callees[..], "the callees, read and scanned");
        assert!(
            scanned.fn_refs.is_empty(),
            "a rest the read took references a function"
        );
    }

    /// The ids the scan looked for, where it stopped in some function.
    fn interest(&self) -> Result<&scan::Interest> {
        self.interest.as_ref().ok_or_else(|| {
            crate::parallel::internal("internal error: a stopped scan without its interest")
        })
    }

    /// The first error of the whole scan ([`scan::Scan::new`]), when the
    /// scan stopped in some function: a run for one target gives it before
    /// any of its own, as the analysis would have.
    pub(super) fn whole_scan_error(&self, m: &Module<'_>) -> Option<crate::error::Error> {
        scan::Scan::new(m, self.interest.as_ref()?).err()
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
