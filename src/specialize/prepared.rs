//! A module read and analysed once ([`Prepared`]), then specialized for one
//! target or many: the passes run here in order, and targets that resolve
//! every predicate alike share one rewrite.

use std::sync::Arc;

use crate::error::{Error, Result, UnresolvedUse};
use crate::fastmap::{Map as HashMap, Set as HashSet};
use crate::globals::Globals;
use crate::idset::IdSet;
use crate::inspect::Resolved;
use crate::module::{Endian, Module};
use crate::table::{self, PredicateTable};
use crate::target::Target;

use super::context::{self, Context};
use super::unresolved::describe;
use super::{Options, Report, Specialized, emit, function, scan, sweep};

/// A module read and analysed once, ready to be specialized for any number
/// of targets.
pub struct Prepared<'w> {
    words: &'w [u32],
    endian: Endian,
    m: Module<'w>,
    g: Globals,
    analysis: Option<Analysis>,
}

/// One distinct rewrite's result, shared by the targets of its group.
type GroupOutput = Result<(Arc<Vec<u32>>, Report)>;

/// What does not depend on the predicates' values.
struct Analysis {
    table: PredicateTable,
    function_ids: Vec<u32>,
    closure: Vec<u32>,
    /// Module-scope readers of the table's closure.
    table_readers: sweep::TableReaders,
    watch: IdSet,
    /// Module-scope instructions that mention predicates (`Context::readers`).
    readers: Vec<usize>,
    facts: Vec<scan::FunctionFacts>,
    /// Index into `facts` of each function id.
    fact_of: HashMap<u32, usize>,
    /// Roots of the call graph (`sweep::liveness_roots`).
    roots: Vec<u32>,
}

impl<'w> Prepared<'w> {
    /// Parses and scans `words` (host order); `endian` is the byte order
    /// [`Specialized::bytes`] will write.
    pub fn new(words: &'w [u32], endian: Endian) -> Result<Prepared<'w>> {
        let m = Module::parse(words)?;
        let g = Globals::scan(&m)?;
        let analysis = match table::read(&m, &g)? {
            None => None,
            Some(table) => {
                let n = words.len();
                let all_false: HashMap<u32, bool> = table
                    .predicates
                    .iter()
                    .map(|p| (p.spec_id, false))
                    .collect();
                let first = Context::new(&m, &g, &table, &all_false, None)?;
                let function_ids: Vec<u32> = m.functions.iter().map(|f| f.id).collect();
                let functions = IdSet::new(function_ids.iter().copied(), n);
                let closure = sweep::table_closure(&m, &g, &table);
                let table_readers = sweep::table_readers(&m, &closure, table.variable);
                let watch = IdSet::new(closure.iter().copied(), n);
                let readers = first.readers;
                let interest =
                    scan::Interest::new(first.touch, functions.clone(), watch.clone(), n);
                let facts = m
                    .functions
                    .iter()
                    .map(|f| scan::scan_function(&m, f, &interest))
                    .collect::<Result<Vec<_>>>()?;
                let fact_of: HashMap<u32, usize> = function_ids
                    .iter()
                    .enumerate()
                    .map(|(k, &f)| (f, k))
                    .collect();
                let callees = |f: u32| fact_of.get(&f).map_or(&[][..], |&k| &facts[k].callees);
                let entry_or_exported = g.entry_points.iter().map(|ep| words[ep.at + 2]).chain(
                    g.exported
                        .iter()
                        .copied()
                        .filter(|id| functions.contains(*id)),
                );
                let referenced = facts.iter().flat_map(|f| f.fn_refs.iter().copied());
                let roots =
                    sweep::liveness_roots(&function_ids, entry_or_exported, referenced, &callees);
                Some(Analysis {
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
        };
        Ok(Prepared {
            words,
            endian,
            m,
            g,
            analysis,
        })
    }

    /// The predicate table, if the module has one.
    pub fn table(&self) -> Option<&PredicateTable> {
        self.analysis.as_ref().map(|a| &a.table)
    }

    /// Specializes for one target.
    pub fn specialize(&self, target: &Target<'_>, _options: &Options) -> Result<Specialized> {
        let Some(a) = &self.analysis else {
            let mut report = Report::default();
            report.describe_target(target);
            return Ok(Specialized {
                words: Arc::new(self.words.to_vec()),
                endian: self.endian,
                report,
            });
        };
        let predicates = resolve(&a.table, target)?;
        let (words, mut report) = self.run(a, &predicates)?;
        report.describe_target(target);
        Ok(Specialized {
            words: Arc::new(words),
            endian: self.endian,
            report,
        })
    }

    /// Specializes for every target, sharing the work of targets that
    /// resolve every predicate alike and using the cores for the rest.
    pub fn specialize_many(
        &self,
        targets: &[Target<'_>],
        options: &Options,
    ) -> Vec<Result<Specialized>> {
        self.specialize_many_with_progress(targets, options, &|_, _| {})
    }

    /// [`Prepared::specialize_many`], calling `progress(done, total)` from a
    /// worker thread each time one distinct rewrite finishes (`total` is
    /// the number of distinct predicate-value sets among the targets).
    pub fn specialize_many_with_progress(
        &self,
        targets: &[Target<'_>],
        options: &Options,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Vec<Result<Specialized>> {
        let Some(a) = &self.analysis else {
            return targets
                .iter()
                .map(|t| self.specialize(t, options))
                .collect();
        };
        // Group targets by their predicate values.
        let resolved: Vec<Result<Vec<Resolved>>> =
            targets.iter().map(|t| resolve(&a.table, t)).collect();
        let mut groups: Vec<(Vec<bool>, Vec<Resolved>)> = Vec::new();
        let mut group_of: Vec<Option<usize>> = Vec::with_capacity(targets.len());
        for r in &resolved {
            group_of.push(r.as_ref().ok().map(|preds| {
                let key: Vec<bool> = preds.iter().map(|p| p.value).collect();
                match groups.iter().position(|(k, _)| *k == key) {
                    Some(i) => i,
                    None => {
                        groups.push((key, preds.clone()));
                        groups.len() - 1
                    }
                }
            }));
        }
        // One rewrite per group, on as many threads as pay.
        let workers = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(groups.len())
            .max(1);
        let next = std::sync::atomic::AtomicUsize::new(0);
        let finished = std::sync::atomic::AtomicUsize::new(0);
        let outputs: Vec<std::sync::Mutex<Option<GroupOutput>>> = (0..groups.len())
            .map(|_| std::sync::Mutex::new(None))
            .collect();
        std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(|| {
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        if i >= groups.len() {
                            break;
                        }
                        // A panic would be a bug; keep it from taking the
                        // other targets down with it.
                        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            self.run(a, &groups[i].1)
                        }))
                        .unwrap_or_else(|_| {
                            Err(Error::Structure {
                                offset: 0,
                                function: None,
                                message: "internal error: the rewrite panicked".to_string(),
                            })
                        })
                        .map(|(w, rep)| (Arc::new(w), rep));
                        if let Ok(mut slot) = outputs[i].lock() {
                            *slot = Some(r);
                        }
                        let k = finished.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        progress(k + 1, groups.len());
                    }
                });
            }
        });
        let outputs: Vec<Option<GroupOutput>> = outputs
            .into_iter()
            .map(|m| m.into_inner().ok().flatten())
            .collect();
        targets
            .iter()
            .zip(resolved)
            .zip(group_of)
            .map(|((t, r), g)| {
                let predicates = r?;
                let group = g.and_then(|g| outputs[g].clone()).unwrap_or_else(|| {
                    Err(Error::Structure {
                        offset: 0,
                        function: None,
                        message: "internal error: the rewrite for this target did not finish"
                            .to_string(),
                    })
                });
                let (words, mut report) = group?;
                report.predicates = predicates;
                report.describe_target(t);
                Ok(Specialized {
                    words,
                    endian: self.endian,
                    report,
                })
            })
            .collect()
    }

    /// The rewrite for one set of predicate values.
    fn run(&self, a: &Analysis, predicates: &[Resolved]) -> Result<(Vec<u32>, Report)> {
        let (m, g, table) = (&self.m, &self.g, &a.table);
        let values: HashMap<u32, bool> = predicates.iter().map(|r| (r.spec_id, r.value)).collect();
        let mut report = Report {
            predicates: predicates.to_vec(),
            ..Report::default()
        };
        let mut ctx = Context::new(m, g, table, &values, Some(&a.readers))?;
        let watch = &a.watch;

        // Rewrite what predicates reach.
        let mut after: HashMap<u32, Vec<u32>> = HashMap::default();
        let mut rewritten: HashMap<u32, Vec<u32>> = HashMap::default();
        let mut kept_mentions_by_fn: HashMap<u32, Vec<u32>> = HashMap::default();
        let mut removed_ids: HashSet<u32> = HashSet::default();
        let mut bad: Vec<(
            u32,
            Vec<function::BadUse>,
            HashMap<u32, crate::module::Inst>,
        )> = Vec::new();
        for (f, facts) in m.functions.iter().zip(&a.facts) {
            if facts.touched {
                let name = g.function_name(f.id);
                let r = function::rewrite(m, &mut ctx, f.start, f.end, &name)?;
                report.branches_folded += r.branches_folded;
                report.selects_folded += r.selects_folded;
                report.phis_folded += r.phis_folded;
                report.blocks_removed += r.blocks_removed;
                report.functions_rewritten.push(name);
                removed_ids.extend(r.removed_ids.iter().copied());
                if !r.bad_uses.is_empty() {
                    bad.push((f.id, r.bad_uses, r.chain_defs));
                }
                after.insert(f.id, r.callees);
                kept_mentions_by_fn.insert(f.id, scan::watched_ids(&r.words, watch)?);
                rewritten.insert(f.id, r.words);
            }
        }
        let callees = |f: u32| match after.get(&f) {
            Some(c) => c.as_slice(),
            None => a.fact_of.get(&f).map_or(&[][..], |&k| &a.facts[k].callees),
        };
        let dead = sweep::dead_functions(&a.function_ids, &a.roots, &callees);

        // Unresolved uses in what survives fail the run.
        let mut unresolved: Vec<UnresolvedUse> = Vec::new();
        for (inst, id) in &ctx.bad_uses {
            unresolved.push(describe(
                m,
                g,
                table,
                &ctx,
                None,
                None,
                *inst,
                *id,
                &HashMap::default(),
            ));
        }
        for (fid, uses, defs) in bad.iter().filter(|(f, _, _)| !dead.contains(f)) {
            for b in uses {
                unresolved.push(describe(
                    m,
                    g,
                    table,
                    &ctx,
                    Some(*fid),
                    Some(b.block),
                    b.inst,
                    b.value,
                    defs,
                ));
            }
        }
        if !unresolved.is_empty() {
            return Err(Error::Unresolved(unresolved));
        }

        // Module scope: rewrite readers, then decide what goes.
        let global_rewrites = emit::rewrite_globals(m, &mut ctx);
        if ctx.next_id < m.bound() {
            return Err(crate::error::binary(
                12,
                "no id left below 2^32 for a new constant",
            ));
        }
        for f in &m.functions {
            if dead.contains(&f.id) {
                report.functions_removed.push(g.function_name(f.id));
                removed_ids.insert(f.id);
                for inst in crate::module::insts(m.words, f.start, f.end) {
                    if let Some(p) = crate::operands::result_pos(inst.opcode)
                        && let Some(&id) = m.words.get(inst.at + p)
                    {
                        removed_ids.insert(id);
                    }
                }
            }
        }
        for &site in ctx.site_value.keys() {
            if !ctx.repurposed.contains_key(&site) {
                removed_ids.insert(site);
            }
        }
        for (&id, v) in &ctx.module_chain {
            if matches!(v, context::Val::Const(_) | context::Val::Same(_)) {
                removed_ids.insert(id);
            }
        }
        let mut kept_mentions: HashSet<u32> = HashSet::default();
        for (f, facts) in m.functions.iter().zip(&a.facts) {
            if dead.contains(&f.id) {
                continue;
            }
            match kept_mentions_by_fn.get(&f.id) {
                Some(v) => kept_mentions.extend(v.iter().copied()),
                None => kept_mentions.extend(facts.watched.iter().copied()),
            }
        }
        let table_ids = sweep::removable_table_ids(
            &a.closure,
            &a.table_readers,
            &removed_ids,
            &kept_mentions,
            table.variable,
        );
        removed_ids.extend(table_ids);
        report.table_removed = true;
        report.functions_removed.sort();

        let plan = emit::Plan {
            removed_ids: &removed_ids,
            removed_functions: &dead,
            rewritten: &rewritten,
            global_rewrites: &global_rewrites,
        };
        Ok((emit::emit(m, &ctx, &plan), report))
    }
}

/// Values of every predicate for the target, in table order.
fn resolve(table: &PredicateTable, target: &Target<'_>) -> Result<Vec<Resolved>> {
    let inspection = crate::inspect::Inspection {
        has_table: true,
        predicates: table.predicates.clone(),
    };
    inspection.resolve(target)
}
