//! Analysis, once per module: what does not depend on the predicates'
//! values. The chain's shape (which ids make a function need rewriting and
//! which module-scope instructions read them), the table's closure, one
//! scan of every function's words, and the call graph's roots.

use crate::error::Result;
use crate::fastmap::Map as HashMap;
use crate::globals::Globals;
use crate::idset::IdSet;
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
    /// `closure` as a set.
    pub(super) watch: IdSet,
    /// Module-scope instructions that mention predicates (`ChainShape::readers`).
    pub(super) readers: Vec<usize>,
    /// What `scan` found in each function, in module order.
    pub(super) facts: Vec<scan::FunctionFacts>,
    /// Index into `facts` of each function id.
    pub(super) fact_of: HashMap<u32, usize>,
    /// Roots of the call graph (`sweep::liveness_roots`).
    pub(super) roots: Vec<u32>,
}

impl Analysis {
    /// Analyses a module that has a predicate `table`.
    pub(super) fn new(m: &Module<'_>, g: &Globals, table: PredicateTable) -> Result<Analysis> {
        let n = m.words.len();
        let shape = ChainShape::find(m, g, &table)?;
        let function_ids: Vec<u32> = m.functions.iter().map(|f| f.id).collect();
        let functions = IdSet::new(function_ids.iter().copied(), n);
        let closure = sweep::table_closure(m, g, &table);
        let table_readers = sweep::table_readers(m, &closure, table.variable);
        let watch = IdSet::new(closure.iter().copied(), n);
        let readers = shape.readers;
        let interest = scan::Interest::new(shape.touch, functions.clone(), watch.clone(), n);
        let facts = m
            .functions
            .iter()
            .map(|f| scan::scan_function(m, f, &interest))
            .collect::<Result<Vec<_>>>()?;
        let fact_of: HashMap<u32, usize> = function_ids
            .iter()
            .enumerate()
            .map(|(k, &f)| (f, k))
            .collect();
        let callees = |f: u32| fact_of.get(&f).map_or(&[][..], |&k| &facts[k].callees);
        let entry_or_exported = g.entry_points.iter().map(|ep| m.words[ep.at + 2]).chain(
            g.exported
                .iter()
                .copied()
                .filter(|id| functions.contains(*id)),
        );
        let referenced = facts.iter().flat_map(|f| f.fn_refs.iter().copied());
        let roots = sweep::liveness_roots(&function_ids, entry_or_exported, referenced, &callees);
        Ok(Analysis {
            table,
            fact_of,
            roots,
            function_ids,
            closure,
            table_readers,
            watch,
            readers,
            facts,
        })
    }
}
