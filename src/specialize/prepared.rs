//! A module read and analysed once ([`Prepared`]), then specialized for one
//! target or many: the passes run here in order, and targets that resolve
//! every predicate alike share one rewrite.

use crate::error::{Error, Result, UnresolvedUse};
use crate::fastmap::Map as HashMap;
use crate::globals::Globals;
use crate::idbits::IdBits;
use crate::inspect::Resolved;
use crate::module::{Endian, Module};
use crate::table::{self, PredicateTable};
use crate::target::Target;

use std::borrow::Cow;
use std::sync::Arc;

use super::ahead::{self, Ahead, Split};
use super::analysis::{Analysis, Rests, ScopeFacts};
use super::context::{Constants, Context};
use super::lattice::Val;
use super::output::{Output, Pieces};
use super::rewrites::{Kept, OneByOne, RewriteSource, Rewrites};
use super::sweep::FixedReach;
use super::unresolved::describe;
use super::{FunctionNames, Options, Report, Specialized, emit, function, sweep};
use crate::parallel::{self, internal};

/// A module read and analysed once, ready to be specialized for any number
/// of targets.
pub struct Prepared<'w> {
    words: &'w [u32],
    pub(super) endian: Endian,
    pub(super) m: Module<'w>,
    pub(super) g: Globals<'w>,
    pub(super) analysis: Option<Analysis>,
}

impl<'w> Prepared<'w> {
    /// Parses and scans `words` (host order); `endian` is the byte order
    /// [`Specialized::bytes`] will write.
    pub fn new(words: &'w [u32], endian: Endian) -> Result<Prepared<'w>> {
        Prepared::new_with(words, endian, Prepared::together(words), false)
    }

    /// [`Prepared::new`] then [`Prepared::specialize_output`], for a
    /// module specialized for one target only: the same output and the
    /// same first error, for less work. (The scan of each function to
    /// rewrite stops at its first trigger: the rewrite reads the whole
    /// function anyway, and its read tells the rest's calls. An error of
    /// the analysis in a rest the scan passed over is found when the run
    /// fails, and given first.) [`crate::specialize()`] and the CLI's runs
    /// for one target take this way.
    pub fn specialize_once(
        words: &'w [u32],
        endian: Endian,
        target: &Target<'_>,
        options: &Options,
    ) -> Result<Output<'w>> {
        let p = Prepared::new_with(words, endian, Prepared::together(words), true)?;
        p.specialize_output(target, options).map_err(|e| {
            let whole = p.analysis.as_ref().and_then(|a| a.whole_scan_error(&p.m));
            whole.unwrap_or(e)
        })
    }

    /// [`Prepared::new`] then [`Prepared::specialize_many_with_progress`],
    /// for a module specialized for these targets only: the same results,
    /// and the same error where [`Prepared::new`] fails, for less work (as
    /// [`Prepared::specialize_once`]: an error of the analysis in a rest
    /// the scan passed over is found when a target fails, and given
    /// instead of the results). [`crate::specialize_many`] and the CLI's
    /// batches take this way.
    pub fn specialize_many_once(
        words: &'w [u32],
        endian: Endian,
        targets: &[Target<'_>],
        options: &Options,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<Vec<Result<Specialized>>> {
        let p = Prepared::new_with(words, endian, Prepared::together(words), true)?;
        let results = p.specialize_many_with_progress(targets, options, progress);
        if results.iter().any(Result::is_err)
            && let Some(e) = p.analysis.as_ref().and_then(|a| a.whole_scan_error(&p.m))
        {
            return Err(e);
        }
        Ok(results)
    }

    /// True when the functions are parsed while module scope is read
    /// ([`Prepared::new_with`]): a large module (and, in fuzz builds,
    /// every module).
    fn together(words: &[u32]) -> bool {
        parallel::pieces(words.len(), usize::MAX) > 1 || cfg!(fuzzing)
    }

    /// [`Prepared::new`], parsing the functions while module scope is read
    /// when `together` (as for a large module: neither needs the other;
    /// the parse's error goes first, as when it comes first), and stopping
    /// the scan of each function at its first trigger when `stop_early`
    /// ([`Prepared::specialize_once`]).
    pub(super) fn new_with(
        words: &'w [u32],
        endian: Endian,
        together: bool,
        stop_early: bool,
    ) -> Result<Prepared<'w>> {
        let mut m = Module::parse_module_level(words)?;
        let (functions, scope) =
            parallel::join(together, || m.parse_functions(), || read_module_scope(&m));
        m.functions = functions.ok_or_else(|| internal("internal error: the parse was lost"))??;
        let (g, scope) = scope?;
        let analysis = match scope {
            None => None,
            Some(scope) => Some(Analysis::new(&m, &g, scope, stop_early)?),
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

    /// Specializes for one target, the module in one buffer.
    pub fn specialize(&self, target: &Target<'_>, options: &Options) -> Result<Specialized> {
        self.specialize_output(target, options)
            .map(Output::into_specialized)
    }

    /// Specializes for one target, the module as pieces: ranges of the
    /// input and words of its own, to be written out without a copy of the
    /// whole module ([`Output::chunks`]).
    pub fn specialize_output(&self, target: &Target<'_>, _options: &Options) -> Result<Output<'w>> {
        let mut out = match &self.analysis {
            None => {
                let mut pieces = Pieces::default();
                pieces.input(0..self.words.len());
                pieces.finish(self.words, self.endian, Report::default())
            }
            Some(a) => self.run(a, resolve(&a.table, target)?)?,
        };
        out.report_mut().describe_target(target);
        Ok(out)
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
    pub(super) fn run(&self, a: &Analysis, predicates: Vec<Resolved>) -> Result<Output<'w>> {
        self.run_with(a, predicates, ahead::PAYS)
    }

    /// [`Prepared::run`], the function rewrites computed ahead on other
    /// threads as `split` says ([`Ahead`]).
    pub(super) fn run_with(
        &self,
        a: &Analysis,
        predicates: Vec<Resolved>,
        split: Split,
    ) -> Result<Output<'w>> {
        // Resolve: every predicate site's value and the module-scope chain.
        let (mut ctx, mut report) = self.resolve_values(a, predicates)?;
        // Fold and repair every function a predicate reaches, choosing the
        // constants the rewrites need (the context is only read meanwhile).
        let m = &self.m;
        let mut constants = std::mem::take(&mut ctx.constants);
        let names = self.rewritten_names(a);
        let rewrite_functions = &mut |source: &mut dyn RewriteSource| {
            self.rewrite_functions(a, &ctx, &names, &mut constants, &mut report, source)
        };
        let rewrites = match Ahead::new(m, &self.g, a, split) {
            // Computed ahead on the other cores, taken in order here.
            Some(ahead) => ahead.run(&ctx, rewrite_functions)?,
            None => rewrite_functions(&mut OneByOne {
                m,
                scratch: function::Scratch::default(),
                last: None,
            })?,
        };
        ctx.constants = constants;
        self.finish(a, ctx, rewrites, report, None, None)
    }

    /// The context of one set of predicate values, in table order (every
    /// predicate site's value and the module-scope chain folded), and the
    /// report begun.
    pub(super) fn resolve_values<'p>(
        &'p self,
        a: &'p Analysis,
        predicates: Vec<Resolved>,
    ) -> Result<(Context<'p>, Report)> {
        let ctx = Context::new(&self.m, &self.g, &a.table, &predicates, &a.shape)?;
        let report = Report {
            predicates,
            ..Report::default()
        };
        Ok((ctx, report))
    }

    /// The passes after the function rewrites: the sweep of dead
    /// functions, the check for unresolved uses, the module-scope rewrite,
    /// the removed ids, and the output laid down. A batch gives what it
    /// found once for all its groups: the walk the dead-function sweep
    /// goes on from (`fixed`) and the entry points (`entry_points`).
    pub(super) fn finish(
        &self,
        a: &Analysis,
        mut ctx: Context<'_>,
        mut rewrites: Rewrites,
        mut report: Report,
        fixed: Option<&FixedReach>,
        entry_points: Option<&emit::EntryPoints>,
    ) -> Result<Output<'w>> {
        let m = &self.m;
        let dead = self.dead_functions(a, &rewrites, fixed);
        let is_dead = |id: u32| a.place(id).is_some_and(|k| dead[k]);
        self.check_unresolved(a, &ctx, &rewrites, &is_dead)?;
        // Module scope: rewrite readers (choosing the last replacement
        // constants), then sweep what goes.
        let global_rewrites = emit::rewrite_globals(m, &mut ctx);
        if ctx.constants.next_id < m.bound() {
            return Err(crate::error::binary(
                12,
                "no id left below 2^32 for a new constant",
            ));
        }
        let removed_ids = self.removed_ids(a, &ctx, &mut rewrites, &is_dead, &mut report);
        report.table_removed = true;
        let mut pieces = std::mem::take(&mut rewrites.pieces);
        let fate = |k: usize| {
            // (The function's place, looked up once for both questions.)
            let place = a.place(m.functions[k].id);
            match place.and_then(|k| rewrites.at(k)) {
                _ if place.is_some_and(|k| dead[k]) => emit::Fate::Removed,
                Some(d) => emit::Fate::Rewritten(d.edits.clone()),
                None => emit::Fate::Kept,
            }
        };
        let plan = emit::Plan {
            removed_ids: &removed_ids,
            fate: &fate,
            // (With every function id defined once, a function's place is
            // its index in the module.)
            changed: a.ids_unique().then(|| emit::Changed {
                rewritten: a.scan.to_rewrite(),
                dead: &dead,
            }),
            global_rewrites: &global_rewrites,
            entry_points,
        };
        emit::emit(m, &ctx, &plan, &mut pieces);
        Ok(pieces.finish(self.words, self.endian, report))
    }

    /// Rewrites, in module order, every function a predicate reaches
    /// (`source` makes or finds each rewrite; `names`:
    /// [`Prepared::rewritten_names`]), choosing its
    /// constants (`constants`, taken out of `ctx` meanwhile) and adding
    /// what it did to `report`.
    pub(super) fn rewrite_functions(
        &self,
        a: &Analysis,
        ctx: &Context<'_>,
        names: &Arc<FunctionNames>,
        constants: &mut Constants,
        report: &mut Report,
        source: &mut dyn RewriteSource,
    ) -> Result<Rewrites> {
        let to_rewrite = a.scan.to_rewrite();
        if names.len() != to_rewrite.len() {
            return Err(internal("internal error: a function name is missing"));
        }
        // (Where the scan stopped in a function, the rest's calls come from
        // its rewrite, unless the source completed them before: a batch.)
        let stops = match source.completes_rests() {
            true => &[][..],
            false => a.scan.stops(),
        };
        let pieces = {
            let (module_scope, rewritten) = self.own_words_bound(a);
            // (Room for the pieces of a small module, in one allocation: a
            // few runs of module scope, and each rewritten function between
            // two runs of the input.)
            let runs = 2 * to_rewrite.len() + 64;
            Pieces::with_capacity(module_scope + rewritten, rewritten, runs)
        };
        // (Rewrites only drop calls.)
        let callees = (to_rewrite.iter())
            .map(|&k| a.scan.callees(k as usize).len())
            .sum();
        let rests = match stops.is_empty() {
            true => Rests::default(),
            false => Rests::for_stops(a),
        };
        let removed_ids = IdBits::new(self.m.bound(), self.words.len());
        let places = a.function_ids.len();
        let mut rewrites = Rewrites::new(
            pieces,
            to_rewrite.len(),
            callees,
            places,
            removed_ids,
            rests,
        );
        let mut stops = stops.iter().peekable();
        // One rewrite's own words with their constants, and scratch for
        // the scan of its words.
        let (mut own, mut words) = (Vec::new(), Vec::new());
        for (&k, name) in to_rewrite.iter().zip(names.iter()) {
            let (k, f) = (k as usize, &self.m.functions[k as usize]);
            let r = source.rewrite(k, f, ctx, name)?;
            if let Some(stop) = stops.next_if(|s| s.function as usize == k) {
                a.complete(&self.m, stop, r.read_callees(), &mut rewrites.rests)?;
            }
            // Constants are chosen on first need, in module order (most
            // rewrites have none: their own words are kept as they are).
            let with_constants = !r.constant_uses.is_empty();
            if with_constants {
                own.clear();
                own.extend_from_slice(r.own());
                for &(at, b) in &r.constant_uses {
                    own[at] = constants.choose(ctx, b);
                }
            }
            report.add_rewrite(&r);
            let kept = Kept {
                id: f.id,
                has_tracked_word: a.scan.has_tracked_word(k),
            };
            let own = with_constants.then_some(&own[..]);
            rewrites.keep(a, kept, r, own, self.words, &mut words)?;
        }
        report.functions_rewritten = Arc::clone(names);
        Ok(rewrites)
    }

    /// The names of the functions a predicate reaches, in module order:
    /// the report's [`Report::functions_rewritten`] of every rewrite of the
    /// module, made once (the targets of a batch share it).
    pub(super) fn rewritten_names(&self, a: &Analysis) -> Arc<FunctionNames> {
        let m = &self.m;
        // (Reserved: a list grown by doubling leaves its old copies' pages
        // behind, about 0.8 MB at 100 MB.)
        let to_rewrite = a.scan.to_rewrite();
        // (Room for names of up to 16 bytes, most of them: `%12345`.)
        let mut names = FunctionNames::with_capacity(to_rewrite.len(), 16 * to_rewrite.len());
        for &k in to_rewrite {
            names.push_with(|text| self.g.write_function_name(m.functions[k as usize].id, text));
        }
        Arc::new(names)
    }

    /// The words of the module scope and of the functions to rewrite, as
    /// they are in the input: about as many own words and edit-list pieces
    /// (each at least a word) as the output will hold at most. Reserved up
    /// front, those buffers are never moved as they grow (a move leaves
    /// the old copy's pages to the allocator); pages not written cost no
    /// memory.
    fn own_words_bound(&self, a: &Analysis) -> (usize, usize) {
        let m = &self.m;
        let module_scope = m.functions.first().map_or(self.words.len(), |f| f.start);
        let rewritten: usize = (a.scan.to_rewrite().iter())
            .map(|&k| &m.functions[k as usize])
            .map(|f| f.end - f.start)
            .sum();
        (module_scope, rewritten)
    }

    /// Functions no root reaches once the rewrites have dropped dead
    /// calls, by place in `a.function_ids` ([`Analysis::place`]); with
    /// `fixed` ([`Prepared::fixed_reach`]), the walk goes on from there.
    fn dead_functions(
        &self,
        a: &Analysis,
        rewrites: &Rewrites,
        fixed: Option<&FixedReach>,
    ) -> Vec<bool> {
        let callees = |k: usize| match rewrites.at(k) {
            Some(d) => rewrites.callees(d),
            None => a.scan.callees(k),
        };
        // (A walk going on from `fixed` needs no roots.)
        let roots = match fixed {
            Some(_) => Cow::Borrowed(&[][..]),
            None => a.roots(&self.g, &rewrites.rests),
        };
        sweep::dead_functions(&a.function_ids, a.index(), &roots, &callees, fixed)
    }

    /// The part of the dead-function walk that does not depend on the
    /// predicates' values: from the roots through the input's call graph,
    /// stopping at every function a predicate reaches (those
    /// [`Prepared::rewrite_functions`] rewrites, whose calls may go). A
    /// batch walks it once and each group goes on from it; `rests`: the
    /// input's calls after the scan's stops, completed.
    pub(super) fn fixed_reach(&self, a: &Analysis, rests: &Rests) -> FixedReach {
        let mut rewritten = crate::zeroed::vec(a.function_ids.len());
        for &k in a.scan.to_rewrite() {
            if let Some(place) = a.place(self.m.functions[k as usize].id) {
                rewritten[place] = true;
            }
        }
        let input = |k: usize| a.scan.callees(k);
        let roots = a.roots(&self.g, rests);
        FixedReach::new(&a.function_ids, a.index(), &roots, &rewritten, &input)
    }

    /// The entry points laid down once for all groups of a batch
    /// ([`emit::EntryPoints`]), when there are enough to pay.
    pub(super) fn entry_points(&self, a: &Analysis) -> Option<emit::EntryPoints> {
        emit::EntryPoints::new(&self.m, &self.g, &a.closure, &a.shape.sites)
    }

    /// Fails the run if a predicate value is still used where it cannot be
    /// folded, at module scope or in a function that survives.
    fn check_unresolved(
        &self,
        a: &Analysis,
        ctx: &Context<'_>,
        rewrites: &Rewrites,
        is_dead: &dyn Fn(u32) -> bool,
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
        for (fid, uses, defs) in rewrites.bad.iter().filter(|(f, _, _)| !is_dead(*f)) {
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
        is_dead: &dyn Fn(u32) -> bool,
        report: &mut Report,
    ) -> IdBits {
        let m = &self.m;
        let mut removed_ids = std::mem::take(&mut rewrites.removed_ids);
        // (Room at once for a few names, the most modules have.)
        let mut functions_removed = FunctionNames::with_capacity(16, 512);
        for f in &m.functions {
            if is_dead(f.id) {
                functions_removed.push_with(|text| self.g.write_function_name(f.id, text));
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
        functions_removed.sort();
        report.functions_removed = Arc::new(functions_removed);
        for site in ctx.site_value.ids() {
            if ctx.constants.repurposed(site).is_none() {
                removed_ids.insert(site);
            }
        }
        for (&id, v) in &ctx.module_chain {
            if matches!(v, Val::Const(_) | Val::Same(_)) {
                removed_ids.insert(id);
            }
        }
        let kept_mentions = a.kept_mentions(
            m,
            &removed_ids,
            &|k| !is_dead(m.functions[k].id),
            &|k| (rewrites.of(a, m.functions[k].id)).map(|d| rewrites.tracked(d)),
            &|k, out| match rewrites.of(a, m.functions[k].id) {
                Some(d) => rewrites
                    .pieces
                    .function_words(m.words, d.edits.clone(), out),
                None => {
                    let f = &m.functions[k];
                    out.extend_from_slice(&m.words[f.start..f.end]);
                }
            },
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
/// Values of every predicate for the target, in table order.
pub(super) fn resolve(table: &PredicateTable, target: &Target<'_>) -> Result<Vec<Resolved>> {
    crate::inspect::resolve_predicates(&table.predicates, target)
}

/// What the module scope of `m` alone tells (its functions need not be
/// parsed): its index and, when it has a predicate table, the table's
/// facts ([`ScopeFacts`]).
fn read_module_scope<'w>(m: &Module<'w>) -> Result<(Globals<'w>, Option<ScopeFacts>)> {
    let (g, reads) = Globals::scan_with_reads(m)?;
    let scope = match table::read(m, &g)? {
        None => None,
        Some(table) => Some(ScopeFacts::new(m, &g, reads, table)?),
    };
    Ok((g, scope))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ArchTables;
    use crate::operands::op;

    /// The words of a golden input (little-endian).
    fn golden_words(name: &str) -> Vec<u32> {
        let path = format!(
            "{}/tests/golden/{name}/input.spv",
            env!("CARGO_MANIFEST_DIR")
        );
        let bytes = std::fs::read(path).unwrap();
        bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    #[test]
    fn an_output_holds_only_the_words_the_pass_changed() {
        // dispatch-chain: one kernel that reads every predicate, most of
        // the module. Its output holds as words of its own only the header,
        // the changed module-scope instructions, the new constants and the
        // kernel's changed instructions (folded branches, phis): the rest
        // are ranges of the input. Byte-identical outputs (the differential
        // test) cannot tell a rewrite that copies everything.
        let words = golden_words("dispatch-chain");
        let p = Prepared::new(&words, Endian::Little).unwrap();
        let tables = ArchTables::embedded();
        for t in ["gfx950", "gfx1100", "gfx900"] {
            let target = tables.target(t).unwrap();
            let out = p.specialize_output(&target, &Options::default()).unwrap();
            let (own, total) = (out.own_len(), out.len_words());
            assert!(own * 10 < total, "{t}: {own} own words of {total}");
        }
    }

    #[test]
    fn module_scope_read_while_the_functions_are_parsed_gives_the_same() {
        // A module over the size from which the two go on together, as
        // it is and broken: in module scope (a predicate's SpecId on an id
        // out of range, or on no boolean spec constant), in a function (an
        // instruction of no words), and in both (the function's error, as
        // when the parse comes first).
        let words = crate::generator::generate_bytes(9 << 20, 10, true);
        let words: Vec<u32> = bytemuck::pod_collect_to_vec(&words);
        assert!(parallel::pieces(words.len(), usize::MAX) > 1);
        let m = Module::parse(&words).unwrap();
        let g = Globals::scan_with_reads(&m).unwrap().0;
        let spec_id = g.spec_ids[0].byte_offset() / 4;
        assert_eq!(words[spec_id] & 0xffff, u32::from(op::Decorate));
        let (f, bound) = (&m.functions[m.functions.len() / 2], m.bound());
        let body = f.start + (words[f.start] >> 16) as usize;
        let broken = |edits: &[(usize, u32)]| {
            let mut w = words.clone();
            for &(at, word) in edits {
                w[at] = word;
            }
            w
        };
        let in_scope = [(spec_id + 1, bound + 5)];
        let not_bool = [(spec_id + 1, 1)];
        let in_function = [(body, words[body] & 0xffff)];
        let target = ArchTables::embedded().target("gfx950").unwrap();
        let run = |w: &[u32], together: bool| {
            Prepared::new_with(w, Endian::Little, together, false)
                .and_then(|p| p.specialize(&target, &Options::default()))
                .map(|s| s.words().to_vec())
                .map_err(|e| e.to_string())
        };
        let cases = [
            broken(&[]),
            broken(&in_scope),
            broken(&not_bool),
            broken(&in_function),
            broken(&[in_scope[0], in_function[0]]),
            broken(&[not_bool[0], in_function[0]]),
        ];
        for (k, w) in cases.iter().enumerate() {
            let (apart, together) = (run(w, false), run(w, true));
            let errors = (apart.as_ref().err(), together.as_ref().err());
            assert_eq!(apart.is_ok(), k == 0, "case {k}: {:?}", errors.0);
            assert!(apart == together, "case {k}: {errors:?}");
        }
        let function_error = run(&cases[3], false);
        assert_eq!(run(&cases[4], true), function_error);
        assert_eq!(run(&cases[5], true), function_error);
    }

    /// How many of the functions to rewrite in `words` take the quick way
    /// for `target`, and how many there are.
    fn quick_ways(words: &[u32], target: &str) -> (usize, usize) {
        let p = Prepared::new(words, Endian::Little).unwrap();
        let a = p.analysis.as_ref().unwrap();
        let target = ArchTables::embedded().target(target).unwrap();
        let (ctx, _) = p
            .resolve_values(a, resolve(&a.table, &target).unwrap())
            .unwrap();
        let todo: Vec<_> = (a.scan.to_rewrite().iter())
            .map(|&k| &p.m.functions[k as usize])
            .collect();
        let quick = todo
            .iter()
            .filter(|f| function::takes_quick_way(&p.m, &ctx, f.start, f.end))
            .count();
        (quick, todo.len())
    }

    /// The only function of `words` to rewrite: its words' range.
    fn the_function_to_rewrite(words: &[u32]) -> std::ops::Range<usize> {
        let p = Prepared::new(words, Endian::Little).unwrap();
        let a = p.analysis.as_ref().unwrap();
        let [k] = a.scan.to_rewrite() else {
            panic!("not one function to rewrite");
        };
        let f = &p.m.functions[*k as usize];
        f.start..f.end
    }

    #[test]
    fn a_function_numbered_away_from_its_first_result_takes_the_quick_way() {
        // dispatch-chain's kernel with its first parameter (the centre of
        // the window the read guesses) renumbered past every other id: its
        // other results fall outside the guessed window, and the read
        // starts again in the exact one.
        let words = golden_words("dispatch-chain");
        let f = the_function_to_rewrite(&words);
        let param = f.start + (words[f.start] >> 16) as usize;
        assert_eq!(words[param] & 0xffff, u32::from(op::FunctionParameter));
        let (old, new) = (words[param + 2], words[3] + 300);
        let mut moved = words.clone();
        moved[3] = new + 1;
        for w in &mut moved[5..] {
            if *w == old {
                *w = new;
            }
        }
        let tables = ArchTables::embedded();
        for t in ["gfx950", "gfx1100", "gfx900"] {
            assert_eq!(quick_ways(&moved, t), (1, 1), "{t}");
            // (Debug builds check the quick rewrite against the full one.)
            let p = Prepared::new(&moved, Endian::Little).unwrap();
            p.specialize(&tables.target(t).unwrap(), &Options::default())
                .unwrap();
        }
    }

    #[test]
    fn a_phi_read_before_its_definition_is_left_to_the_full_rewrite() {
        // dispatch-chain's kernel with `OpCopyObject` of its join phi's
        // result in the entry block, before the phi (invalid: the phi does
        // not dominate it). The quick read meets the phi's id before its
        // definition and declines at the end.
        let words = golden_words("dispatch-chain");
        let f = the_function_to_rewrite(&words);
        let first = |opcode: u16| {
            crate::module::insts(&words, f.start, f.end)
                .find(|i| i.opcode == opcode)
                .unwrap()
                .at
        };
        let (label, phi) = (first(op::Label), first(op::Phi));
        let copy = [
            crate::module::header_word(4, spirv::Op::CopyObject as u16),
            words[phi + 1],
            words[3],
            words[phi + 2],
        ];
        let mut w = words.clone();
        w[3] += 1;
        w.splice(label + 2..label + 2, copy);
        for t in ["gfx950", "gfx1100", "gfx900"] {
            assert_eq!(quick_ways(&w, t), (0, 1), "{t}");
        }
    }

    #[test]
    fn the_common_shapes_take_the_quick_way() {
        // llc-22's dispatch chain (a join phi folds to one value), and the
        // benchmark's kernels (branches on predicates and on `OpLogicalNotEqual`
        // of them around calls, a loop with phis that keep every edge). What
        // the quick way gives is checked against the full rewrite in every
        // debug build (`function::rewrite`); this checks it is taken.
        let chain = golden_words("dispatch-chain");
        let generated = crate::generator::generate(4, 1, true);
        for t in ["gfx950", "gfx1100", "gfx900"] {
            assert_eq!(quick_ways(&chain, t), (1, 1), "dispatch-chain, {t}");
            let (quick, all) = quick_ways(&generated, t);
            assert!(all > 0 && quick == all, "generated, {t}: {quick} of {all}");
        }
        // Structured control flow (merge instructions) is the full
        // rewrite's: declined.
        let (quick, all) = quick_ways(&golden_words("structured-glsl"), "gfx950");
        assert!(all > 0 && quick == 0, "structured-glsl: {quick} of {all}");
    }
}
