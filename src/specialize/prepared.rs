//! A module read and analysed once ([`Prepared`]), then specialized for one
//! target or many: the passes run here in order, and targets that resolve
//! every predicate alike share one rewrite.

use std::sync::Arc;

use crate::error::{Error, Result, UnresolvedUse};
use crate::fastmap::{Map as HashMap, Set as HashSet};
use crate::globals::Globals;
use crate::inspect::Resolved;
use crate::module::{Endian, Module};
use crate::table::{self, PredicateTable};
use crate::target::Target;

use super::analysis::Analysis;
use super::context::{self, Context};
use super::unresolved::describe;
use super::{Options, Report, Specialized, emit, function, scan, sweep};

/// A module read and analysed once, ready to be specialized for any number
/// of targets.
pub struct Prepared<'w> {
    words: &'w [u32],
    pub(super) endian: Endian,
    m: Module<'w>,
    g: Globals,
    pub(super) analysis: Option<Analysis>,
}

impl<'w> Prepared<'w> {
    /// Parses and scans `words` (host order); `endian` is the byte order
    /// [`Specialized::bytes`] will write.
    pub fn new(words: &'w [u32], endian: Endian) -> Result<Prepared<'w>> {
        let m = Module::parse(words)?;
        let g = Globals::scan(&m)?;
        let analysis = match table::read(&m, &g)? {
            None => None,
            Some(table) => Some(Analysis::new(&m, &g, table)?),
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
        super::batch::specialize_many(self, targets, options, progress)
    }

    /// The rewrite for one set of predicate values: the passes in order.
    pub(super) fn run(&self, a: &Analysis, predicates: &[Resolved]) -> Result<(Vec<u32>, Report)> {
        let (m, g, table) = (&self.m, &self.g, &a.table);
        let values: HashMap<u32, bool> = predicates.iter().map(|r| (r.spec_id, r.value)).collect();
        let mut report = Report {
            predicates: predicates.to_vec(),
            ..Report::default()
        };
        // Resolve: every predicate site's value and the module-scope chain.
        let mut ctx = Context::new(m, g, table, &values, &a.readers)?;
        // Fold and repair every function a predicate reaches.
        let mut rewrites = self.rewrite_functions(a, &mut ctx, &mut report)?;
        let dead = self.dead_functions(a, &rewrites);
        self.check_unresolved(a, &ctx, &rewrites, &dead)?;
        // Module scope: rewrite readers (choosing the last replacement
        // constants), then sweep what goes.
        let global_rewrites = emit::rewrite_globals(m, &mut ctx);
        if ctx.next_id < m.bound() {
            return Err(crate::error::binary(
                12,
                "no id left below 2^32 for a new constant",
            ));
        }
        let removed_ids = self.removed_ids(a, &ctx, &mut rewrites, &dead, &mut report);
        report.table_removed = true;
        let plan = emit::Plan {
            removed_ids: &removed_ids,
            removed_functions: &dead,
            rewritten: &rewrites.words,
            global_rewrites: &global_rewrites,
        };
        Ok((emit::emit(m, &ctx, &plan), report))
    }

    /// Rewrites, in module order, every function a predicate reaches,
    /// adding what each did to `report`.
    fn rewrite_functions(
        &self,
        a: &Analysis,
        ctx: &mut Context<'_>,
        report: &mut Report,
    ) -> Result<Rewrites> {
        let mut rewrites = Rewrites::default();
        for (k, f) in self.m.functions.iter().enumerate() {
            if !a.scan.touched(k) {
                continue;
            }
            let name = self.g.function_name(f.id);
            let mut r = function::rewrite(&self.m, ctx, f.start, f.end, &name)?;
            // Constants are chosen on first need, in module order.
            for &(at, b) in &r.constant_uses {
                r.words[at] = ctx.constant(b);
            }
            report.add_rewrite(name, &r);
            rewrites.removed_ids.extend(r.removed_ids.iter().copied());
            if !r.bad_uses.is_empty() {
                rewrites.bad.push((f.id, r.bad_uses, r.chain_defs));
            }
            rewrites.callees.insert(f.id, r.callees);
            rewrites
                .watched
                .insert(f.id, scan::watched_ids(&r.words, &a.watch, false)?);
            rewrites.words.insert(f.id, r.words);
        }
        Ok(rewrites)
    }

    /// Functions no root reaches once the rewrites have dropped dead calls.
    fn dead_functions(&self, a: &Analysis, rewrites: &Rewrites) -> HashSet<u32> {
        let callees = |f: u32| match rewrites.callees.get(&f) {
            Some(c) => c.as_slice(),
            None => a.callees(f),
        };
        sweep::dead_functions(&a.function_ids, &a.roots, &callees)
    }

    /// Fails the run if a predicate value is still used where it cannot be
    /// folded, at module scope or in a function that survives.
    fn check_unresolved(
        &self,
        a: &Analysis,
        ctx: &Context<'_>,
        rewrites: &Rewrites,
        dead: &HashSet<u32>,
    ) -> Result<()> {
        let (m, g, table) = (&self.m, &self.g, &a.table);
        let mut unresolved: Vec<UnresolvedUse> = Vec::new();
        for (inst, id) in &ctx.bad_uses {
            unresolved.push(describe(
                m,
                g,
                table,
                ctx,
                None,
                None,
                *inst,
                *id,
                &HashMap::default(),
            ));
        }
        for (fid, uses, defs) in rewrites.bad.iter().filter(|(f, _, _)| !dead.contains(f)) {
            for b in uses {
                unresolved.push(describe(
                    m,
                    g,
                    table,
                    ctx,
                    Some(*fid),
                    Some(b.block),
                    b.inst,
                    b.value,
                    defs,
                ));
            }
        }
        if unresolved.is_empty() {
            Ok(())
        } else {
            Err(Error::Unresolved(unresolved))
        }
    }

    /// Every id whose definition, names and decorations go: what the
    /// rewrites deleted, dead functions and what they define, predicate
    /// sites not reused as constants, folded module-scope chain values, and
    /// the table with what only it used. Names the dead functions in
    /// `report`.
    fn removed_ids(
        &self,
        a: &Analysis,
        ctx: &Context<'_>,
        rewrites: &mut Rewrites,
        dead: &HashSet<u32>,
        report: &mut Report,
    ) -> HashSet<u32> {
        let m = &self.m;
        let mut removed_ids = std::mem::take(&mut rewrites.removed_ids);
        for f in &m.functions {
            if dead.contains(&f.id) {
                report.functions_removed.push(self.g.function_name(f.id));
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
        report.functions_removed.sort();
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
        let kept = m
            .functions
            .iter()
            .enumerate()
            .filter(|(_, f)| !dead.contains(&f.id));
        let kept_mentions = a.kept_mentions(
            m,
            &removed_ids,
            kept.map(|(k, f)| {
                let words = rewrites.words.get(&f.id).map(Vec::as_slice);
                let watched = rewrites.watched.get(&f.id).map(Vec::as_slice);
                (k, words.zip(watched))
            }),
        );
        let table_ids = sweep::removable_table_ids(
            &a.closure,
            &a.table_readers,
            &removed_ids,
            &kept_mentions,
            a.table.variable,
        );
        removed_ids.extend(table_ids);
        removed_ids
    }
}

/// What the function rewrites of one run produced, by function id.
#[derive(Default)]
struct Rewrites {
    /// New words of each rewritten function.
    words: HashMap<u32, Vec<u32>>,
    /// Callees each rewritten function still calls.
    callees: HashMap<u32, Vec<u32>>,
    /// Table-closure ids each rewritten function still mentions.
    watched: HashMap<u32, Vec<u32>>,
    /// Result ids the rewrites deleted.
    removed_ids: HashSet<u32>,
    /// Unresolved uses, with the function's chain definitions for messages.
    bad: Vec<(
        u32,
        Vec<function::BadUse>,
        HashMap<u32, crate::module::Inst>,
    )>,
}

/// Values of every predicate for the target, in table order.
pub(super) fn resolve(table: &PredicateTable, target: &Target<'_>) -> Result<Vec<Resolved>> {
    let inspection = crate::inspect::Inspection {
        has_table: true,
        predicates: table.predicates.clone(),
    };
    inspection.resolve(target)
}
