//! Specializing one module for many targets: targets are grouped by their
//! predicate values (one rewrite per distinct set); each function a
//! predicate reaches is decoded once for all the groups, and rewritten once
//! for all groups that look alike to it; then each group's output is
//! finished. Both phases run on as many threads as pay; each target gets
//! its group's words with its own report.

use std::borrow::Cow;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::error::Result;
use crate::idset::IdSet;
use crate::inspect::Resolved;
use crate::module::FunctionRange;
use crate::target::Target;

use super::analysis::{Analysis, Rests};
use super::context::{Context, Replacement};
use super::function::{self, Rewritten};
use super::lattice::Val;
use super::prepared::{Prepared, resolve};
use super::rewrites::RewriteSource;
use super::word_hits;
use super::{Options, Report, Specialized, Words};
use crate::parallel::{internal, map_parallel, map_parallel_with};

/// One distinct rewrite's result, shared by the targets of its group
/// (its words behind an `Arc`).
type GroupOutput = Result<(Words, Report)>;

/// A group's context and report begun.
type GroupWork<'c> = Result<(Context<'c>, Report)>;

/// One function's rewrites: each distinct one once, and which of them each
/// group takes. The groups borrow them, so a rewrite that several groups
/// share is neither copied nor reference-counted.
#[derive(Default)]
struct FunctionRewrites {
    /// The distinct rewrites, in the order the groups first needed them.
    made: Vec<Result<Rewritten>>,
    /// By group: its rewrite in `made` (`None`: the group failed before
    /// the rewrites).
    of_group: Vec<Option<usize>>,
}

/// The rewrites a batch keeps for one group ([`RewriteSource`]).
struct GroupRewrites<'b> {
    /// The functions rewritten, by index in the module, in order.
    predicated: &'b [u32],
    /// Their rewrites for all groups, in the same order.
    by_function: &'b [Option<FunctionRewrites>],
    /// The group.
    group: usize,
    /// Where in `predicated` the next function asked for is (they are
    /// asked for in module order).
    next: usize,
}

impl RewriteSource for GroupRewrites<'_> {
    fn rewrite(
        &mut self,
        k: usize,
        _: &FunctionRange,
        _: &Context<'_>,
        _: &str,
    ) -> Result<Cow<'_, Rewritten>> {
        let row = match self.predicated.get(self.next) {
            Some(&p) if p as usize == k => Some(self.next),
            _ => self.predicated.binary_search(&(k as u32)).ok(),
        };
        self.next = row.map_or(self.next, |r| r + 1);
        (row.and_then(|r| self.by_function[r].as_ref()))
            .and_then(|rewrites| rewrites.of(self.group))
            .unwrap_or_else(|| Err(internal("internal error: a function rewrite is missing")))
    }

    fn completes_rests(&self) -> bool {
        true
    }
}

impl FunctionRewrites {
    /// Group `g`'s rewrite (`None`: it has none).
    fn of(&self, g: usize) -> Option<Result<Cow<'_, Rewritten>>> {
        let made = &self.made[(*self.of_group.get(g)?)?];
        Some(made.as_ref().map(Cow::Borrowed).map_err(Clone::clone))
    }
}

/// [`Prepared::specialize_many_with_progress`]: one result per target, in
/// order; `progress(done, total)` is called from a worker thread each time
/// one group's output is finished.
pub(super) fn specialize_many(
    prepared: &Prepared<'_>,
    targets: &[Target<'_>],
    options: &Options,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Vec<Result<Specialized>> {
    let Some(a) = &prepared.analysis else {
        return targets
            .iter()
            .map(|t| prepared.specialize(t, options))
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
    let mut outputs = group_outputs(prepared, a, &groups, progress);
    // The last target of a group takes its output; the others copy it (the
    // report's function names are the target's own).
    let mut uses = vec![0usize; groups.len()];
    for g in group_of.iter().flatten() {
        uses[*g] += 1;
    }
    targets
        .iter()
        .zip(resolved)
        .zip(group_of)
        .map(|((t, r), g)| {
            let predicates = r?;
            let output = g.and_then(|g| {
                uses[g] -= 1;
                match uses[g] {
                    0 => outputs[g].take(),
                    _ => outputs[g].clone(),
                }
            });
            let group = output.unwrap_or_else(|| {
                Err(internal(
                    "internal error: the rewrite for this target did not finish",
                ))
            });
            let (words, mut report) = group?;
            report.predicates = predicates;
            report.describe_target(t);
            Ok(Specialized {
                words,
                endian: prepared.endian,
                report,
            })
        })
        .collect()
}

/// Each group's output (`None`: lost to a bug).
fn group_outputs(
    prepared: &Prepared<'_>,
    a: &Analysis,
    groups: &[(Vec<bool>, Vec<Resolved>)],
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Vec<Option<GroupOutput>> {
    let begun: Vec<Result<(Context<'_>, Report)>> = groups
        .iter()
        .map(|(_, preds)| prepared.resolve_values(a, preds.clone()))
        .collect();
    let contexts: Vec<Option<&Context<'_>>> = begun
        .iter()
        .map(|b| b.as_ref().ok().map(|(c, _)| c))
        .collect();
    let predicated = a.scan.to_rewrite();
    // The report's names of the rewritten functions, one list for all.
    let names = prepared.rewritten_names(a);
    // Phase 1, by function: decode once, rewrite once per distinct view.
    let varying = (contexts.iter().flatten().next())
        .map(|c| VaryingIds::new(c.varying(), prepared.m.words.len()));
    // (Each thread's scratch storage serves all its functions.)
    let by_function = map_parallel_with(
        predicated.len(),
        PhaseOneScratch::default,
        // (`names` holds one name for each of `predicated`, in order.)
        |scratch, i| {
            rewrite_for_all(
                prepared,
                predicated[i] as usize,
                names.get(i).unwrap_or_default(),
                &contexts,
                varying.as_ref(),
                scratch,
            )
        },
    );
    // Phase 2, by group: constants, sweep (going on from the walk all
    // groups share, from the rests of the functions the scan stopped in,
    // completed once), output (the entry points laid down once for all).
    let rests = complete_rests(prepared, a, predicated, &by_function);
    let fixed = rests.as_ref().ok().map(|r| prepared.fixed_reach(a, r));
    let entry_points = prepared.entry_points(a);
    let work: Vec<Mutex<Option<GroupWork<'_>>>> =
        begun.into_iter().map(|w| Mutex::new(Some(w))).collect();
    let finished = AtomicUsize::new(0);
    map_parallel(groups.len(), |i| {
        let begun = work[i].lock().ok().and_then(|mut w| w.take())?;
        // A panic would be a bug; keep it from taking the other targets
        // down with it.
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let (mut ctx, mut report) = begun?;
            let fixed = match (&rests, &fixed) {
                (Ok(_), Some(fixed)) => fixed,
                (Err(e), _) => return Err(e.clone()),
                _ => return Err(internal("internal error: the shared walk is missing")),
            };
            let mut constants = std::mem::take(&mut ctx.constants);
            let rewrites = prepared.rewrite_functions(
                a,
                &ctx,
                &names,
                &mut constants,
                &mut report,
                &mut GroupRewrites {
                    predicated,
                    by_function: &by_function,
                    group: i,
                    next: 0,
                },
            )?;
            ctx.constants = constants;
            prepared.finish(a, ctx, rewrites, report, Some(fixed), entry_points.as_ref())
        }))
        .unwrap_or_else(|_| Err(internal("internal error: the rewrite panicked")))
        .map(|out| {
            let mut s = out.into_specialized();
            // (Each target's report takes its own predicates: none to copy.)
            s.report.predicates = Vec::new();
            (s.words, s.report)
        });
        let k = finished.fetch_add(1, Ordering::Relaxed);
        progress(k + 1, groups.len());
        Some(r)
    })
    .into_iter()
    .map(Option::flatten)
    .collect()
}

/// The input's calls after the scan's stops ([`Analysis::complete`]), from
/// the reads of phase 1 (`by_function`, by place in `predicated`): once for
/// all groups. Fails with the scan's error in a rest.
fn complete_rests(
    prepared: &Prepared<'_>,
    a: &Analysis,
    predicated: &[u32],
    by_function: &[Option<FunctionRewrites>],
) -> Result<Rests> {
    let mut rests = Rests::for_stops(a);
    let mut stops = a.scan.stops().iter().peekable();
    for (&k, rewrites) in predicated.iter().zip(by_function) {
        let Some(stop) = stops.next_if(|s| s.function == k) else {
            continue;
        };
        // (Every rewrite the quick read made carries the read's calls.)
        let made = rewrites.iter().flat_map(|r| r.made.iter());
        let read = made.filter_map(|r| r.as_ref().ok()?.read_callees()).next();
        a.complete(&prepared.m, stop, read, &mut rests)?;
    }
    Ok(rests)
}

/// Function `k`'s rewrite (its name `name`, for messages) for every group
/// whose context is there (with `scratch` as storage): read or decoded
/// once, rewritten once per distinct view of the contexts
/// ([`Context::view`] of the ids of its words in `varying`, what
/// [`Context::varying`] gives for any of them).
fn rewrite_for_all(
    prepared: &Prepared<'_>,
    k: usize,
    name: &str,
    contexts: &[Option<&Context<'_>>],
    varying: Option<&VaryingIds<'_>>,
    scratch: &mut PhaseOneScratch,
) -> FunctionRewrites {
    let PhaseOneScratch {
        function: scratch,
        ids,
        hits,
        views,
    } = scratch;
    let (m, f) = (&prepared.m, &prepared.m.functions[k]);
    let (Some(first), Some(varying)) = (contexts.iter().flatten().next(), varying) else {
        return FunctionRewrites::default();
    };
    // A panic would be a bug; it fails only the groups it happens in.
    let guard = |work: &mut dyn FnMut() -> Result<Rewritten>| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(work))
            .unwrap_or_else(|_| Err(internal("internal error: the rewrite panicked")))
    };
    // Read once the quick way if it takes the function; decoded once, when
    // a set of values first needs the full rewrite.
    let quick = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        function::read_quick(m, first, f.start, f.end, scratch)
    }))
    .unwrap_or(false);
    let mut decoded: Option<Result<function::Func<'_>>> = None;
    ids.clear();
    varying.find(&m.words[f.start..f.end], ids, hits);
    ids.sort_unstable();
    ids.dedup();
    views.clear();
    let mut made = Vec::new();
    let of_group = contexts
        .iter()
        .map(|c| {
            let ctx = (*c)?;
            let at = views.len();
            ctx.view(ids, views);
            let (seen, view) = views.split_at(at);
            let met = match ids.len() {
                0 => (!made.is_empty()).then_some(0),
                n => seen.chunks_exact(n).position(|v| v == view),
            };
            if met.is_some() {
                views.truncate(at);
                return met;
            }
            let r = guard(&mut || {
                if quick
                    && let Some(r) =
                        function::rewrite_read_quick(m, ctx, f.start, f.end, name, scratch)
                {
                    return Ok(r);
                }
                let func = decoded.get_or_insert_with(|| {
                    function::decode(m, first, f.start, f.end, name, scratch)
                });
                function::rewrite_decoded(func.as_ref().map_err(Clone::clone)?, ctx, name, scratch)
            });
            made.push(r);
            Some(made.len() - 1)
        })
        .collect();
    FunctionRewrites { made, of_group }
}

/// Storage a thread of phase 1 ([`rewrite_for_all`]) reuses from function
/// to function.
#[derive(Default)]
struct PhaseOneScratch {
    function: function::Scratch,
    /// The ids of the function's words in [`Context::varying`], sorted.
    ids: Vec<u32>,
    /// Where they are among the words ([`VaryingIds::find`]'s scratch).
    hits: Vec<u32>,
    /// The views met so far, back to back (`ids.len()` entries each).
    views: Vec<(Option<Val>, Option<Replacement>)>,
}

/// [`Context::varying`], to find among a function's words: as a byte
/// table for [`word_hits::find`] (sixteen words a step) where one serves,
/// else as the set.
struct VaryingIds<'c> {
    set: &'c IdSet,
    /// A byte for each id up to the set's largest (1: a member), and four
    /// 0 bytes past it.
    table: Option<Vec<u8>>,
}

impl<'c> VaryingIds<'c> {
    /// `set`, with a table when the host can look words up in one and
    /// its largest id is not far beyond a module of `module_words` words
    /// (a hostile bound must not make us allocate gigabytes).
    fn new(set: &'c IdSet, module_words: usize) -> VaryingIds<'c> {
        let table = set
            .largest()
            .map(|max| max as usize + 5)
            .filter(|&len| len <= module_words.max(1 << 16) && word_hits::available(len))
            .map(|len| {
                let mut table = crate::zeroed::vec(len);
                for x in set.iter() {
                    table[x as usize] = 1;
                }
                table
            });
        VaryingIds { set, table }
    }

    /// Appends the words of `words` in the set to `out`, in order
    /// (`hits` is scratch).
    fn find(&self, words: &[u32], out: &mut Vec<u32>, hits: &mut Vec<u32>) {
        match &self.table {
            Some(table) => {
                hits.clear();
                word_hits::find(table, words, hits);
                out.extend(hits.iter().map(|&k| words[k as usize]));
            }
            None => out.extend(words.iter().copied().filter(|&w| self.set.contains(w))),
        }
    }
}
