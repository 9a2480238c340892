//! The function rewrites of one run computed ahead of their turn, on the
//! other cores.
//!
//! [`Prepared::rewrite_functions`](super::prepared::Prepared::rewrite_functions)
//! keeps each rewrite in module order on the calling thread (the constants
//! a rewrite needs are chosen on first need, so that order is the
//! output's), but a rewrite only reads the context. So while it keeps one
//! rewrite, the other cores compute the next ones ([`parallel::ahead`]:
//! jobs of tens of functions, each thread with its own scratch, at most
//! two jobs a thread waiting), and when the next one is not ready the
//! calling thread computes a job itself. Errors come out in module order,
//! as before: a rewrite that failed is handed out, in its turn, as its
//! error. A job's rewrites, once kept, go back to the thread that made
//! them to be freed there: freeing another thread's memory takes that
//! thread's allocator lock, and on the 100 MB module the two threads then
//! waited on each other for about a tenth of the CLI's run.
//!
//! Below [`PAYS`]' words of functions to rewrite, or on one core,
//! [`Ahead::new`] declines and the run rewrites on the calling thread
//! alone: a thread costs more than it saves there.

use std::borrow::Cow;

use crate::error::Result;
use crate::globals::Globals;
use crate::module::{FunctionRange, Module};

use super::analysis::Analysis;
use super::context::Context;
use super::function::{self, Rewritten, Scratch};
use super::rewrites::RewriteSource;
use crate::parallel::{self, internal, workers};

/// How [`Ahead`] splits the work: whether it pays and into what jobs.
#[derive(Debug, Clone, Copy)]
pub(super) struct Split {
    /// The fewest words of functions to rewrite for which rewriting ahead
    /// on other threads pays.
    pub min_words: usize,
    /// About how many words of functions one job rewrites: a job is a run
    /// of consecutive functions.
    pub job_words: usize,
}

/// The split that pays, measured on 2 cores (the median time of an
/// in-process `specialize` of the generated "calls" modules, 6 rounds of
/// 31 runs each way, interleaved): jobs of about 4,096 words (tens of
/// functions), so that handing a job from thread to thread (a few locks,
/// at times a wake-up) is small beside its work; from 262,144 words of
/// functions to rewrite on (a 4 MB module of the benchmark's kind: 8.1 ms
/// on one thread, 6.1 ms ahead; at 1 and 2 MB, 70,000 and 140,000 words,
/// no gain, and the 40 KB module of the latency benchmark, 7,600 words,
/// took 200 µs ahead against 120 µs: starting and joining a thread and
/// handing jobs over cost about what they save).
pub(super) const PAYS: Split = Split {
    min_words: 1 << 18,
    job_words: 1 << 12,
};

/// The functions of one run to rewrite ahead (see the module doc).
pub(super) struct Ahead<'p, 'w> {
    m: &'p Module<'w>,
    g: &'p Globals<'w>,
    /// The functions to rewrite, by index in the module, in order
    /// ([`Scan::to_rewrite`](super::scan::Scan::to_rewrite)).
    todo: &'p [u32],
    /// Where each job's functions start in `todo`, and, last, its length.
    jobs: Vec<usize>,
}

/// One function's rewrite.
type Rewrite = Result<Rewritten>;

impl<'p, 'w> Ahead<'p, 'w> {
    /// The functions `a` says need a rewrite, in jobs as `split` says, if
    /// that pays.
    pub(super) fn new(
        m: &'p Module<'w>,
        g: &'p Globals<'w>,
        a: &'p Analysis,
        split: Split,
    ) -> Option<Self> {
        let size = |k: usize| m.functions[k].end - m.functions[k].start;
        let todo = a.scan.to_rewrite();
        // (Nothing allocated when it does not pay: a small module, or one
        // core.)
        let words = todo.iter().map(|&k| size(k as usize)).sum::<usize>();
        if words < split.min_words || workers(2) < 2 {
            return None;
        }
        let mut jobs = vec![0];
        let mut words = 0;
        for (i, &k) in todo.iter().enumerate() {
            if words >= split.job_words {
                jobs.push(i);
                words = 0;
            }
            words += size(k as usize);
        }
        jobs.push(todo.len());
        (jobs.len() > 2).then_some(Ahead { m, g, todo, jobs })
    }

    /// Runs `body` while the rewrites under `ctx` are computed ahead;
    /// `body` takes them in module order from the [`RewriteSource`] it is
    /// given (asked for the `k`th function, `k` its index in the module).
    pub(super) fn run<R>(
        self,
        ctx: &Context<'_>,
        body: &mut dyn FnMut(&mut dyn RewriteSource) -> R,
    ) -> R {
        let (m, g, todo, jobs) = (self.m, self.g, self.todo, &self.jobs);
        let job = |scratch: &mut Scratch, j: usize| -> Vec<Rewrite> {
            todo[jobs[j]..jobs[j + 1]]
                .iter()
                .map(|&k| {
                    let f = &m.functions[k as usize];
                    let name = g.function_name(f.id);
                    function::rewrite(m, ctx, f.start, f.end, &name, scratch)
                })
                .collect()
        };
        parallel::ahead(jobs.len() - 1, &Scratch::default, &job, |ahead| {
            body(&mut InTurn {
                ahead,
                todo,
                jobs,
                turn: 0,
                job: Vec::new(),
                next_job: 0,
            })
        })
    }
}

/// The rewrites computed ahead, handed out in module order.
struct InTurn<'a, 'b> {
    ahead: &'a mut parallel::Ahead<'b, Scratch, Vec<Rewrite>>,
    /// [`Ahead::todo`].
    todo: &'a [u32],
    /// [`Ahead::jobs`].
    jobs: &'a [usize],
    /// The place in `todo` of the function asked for next.
    turn: usize,
    /// The rewrites of the job being handed out.
    job: Vec<Rewrite>,
    /// The job taken next.
    next_job: usize,
}

impl RewriteSource for InTurn<'_, '_> {
    fn rewrite(
        &mut self,
        k: usize,
        _: &FunctionRange,
        _: &Context<'_>,
        _: &str,
    ) -> Result<Cow<'_, Rewritten>> {
        // Asked in module order: the turn's function, or a bug.
        if self.todo.get(self.turn).map(|&t| t as usize) != Some(k) {
            return Err(internal("internal error: a function rewrite is missing"));
        }
        let (turn, job) = (self.turn, self.next_job);
        self.turn += 1;
        if job < self.jobs.len() && turn == self.jobs[job] {
            // The job's first function: the last job's rewrites, all kept,
            // go back to the thread that made them.
            if let Some(last) = job.checked_sub(1) {
                let used = std::mem::take(&mut self.job);
                self.ahead.give_back(last, used);
            }
            self.job = self.ahead.take(job).unwrap_or_default();
            self.next_job += 1;
        }
        let start = self.jobs[self.next_job - 1];
        match self.job.get(turn - start) {
            Some(Ok(r)) => Ok(Cow::Borrowed(r)),
            Some(Err(e)) => Err(e.clone()),
            None => Err(internal("internal error: a function rewrite is missing")),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::{Ahead, Split};
    use crate::arch::ArchTables;
    use crate::error::Result;
    use crate::generator::generate;
    use crate::module::words_from_bytes;
    use crate::specialize::Output;
    use crate::specialize::prepared::{Prepared, resolve};

    /// Every file under `dir` (recursively) whose name ends with one of
    /// `suffixes`.
    fn files(dir: &Path, suffixes: &[&str], out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("a test directory") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                files(&path, suffixes, out);
            } else if suffixes.iter().any(|s| path.to_string_lossy().ends_with(s)) {
                out.push(path);
            }
        }
    }

    /// The test modules (every `.spv` under `tests/`, the saved fuzz
    /// inputs) and generated ones with many predicated kernels, as words.
    fn modules() -> Vec<(String, Vec<u32>)> {
        let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
        let mut paths = Vec::new();
        files(&tests, &[".spv", ".bin"], &mut paths);
        paths.sort();
        let mut out: Vec<(String, Vec<u32>)> = paths
            .iter()
            .filter_map(|p| {
                let bytes = std::fs::read(p).ok()?;
                let (words, _) = words_from_bytes(&bytes).ok()?;
                Some((p.display().to_string(), words))
            })
            .collect();
        for (kernels, every, calls) in [(100, 1, true), (100, 3, false), (40, 7, true)] {
            let name = format!("generated: {kernels} kernels, every {every}, calls {calls}");
            out.push((name, generate(kernels, every, calls)));
        }
        // Rewrites that fail: the first in module order is the error.
        let mut broken = generate(60, 1, true);
        for nth in [700, 400] {
            branch_to_a_non_block(&mut broken, nth);
            out.push((format!("generated, branch {nth} broken"), broken.clone()));
        }
        out
    }

    /// Makes the `nth` `OpBranch` of the module branch to id 1 (the
    /// generator's `OpExtInstImport`, not a block).
    fn branch_to_a_non_block(words: &mut [u32], nth: usize) {
        let (mut at, mut seen) = (5, 0);
        while at < words.len() {
            if words[at] == (2 << 16) | spirv::Op::Branch as u32 {
                if seen == nth {
                    words[at + 1] = 1;
                    return;
                }
                seen += 1;
            }
            at += (words[at] >> 16) as usize;
        }
        panic!("the module has only {seen} branches");
    }

    /// One function per job, for any number of words: the most hand-overs.
    const EVERY_FUNCTION: Split = Split {
        min_words: 0,
        job_words: 1,
    };

    /// No rewriting ahead.
    const ONE_THREAD: Split = Split {
        min_words: usize::MAX,
        job_words: 1,
    };

    /// Panics unless the run `got` gave what the run `want` gave (the
    /// same words and report, or the same error); `what` names the case.
    fn assert_same_run(what: &str, got: &Result<Output<'_>>, want: &Result<Output<'_>>) {
        match (got, want) {
            (Ok(got), Ok(want)) => {
                assert_eq!(got.to_words(), want.to_words(), "{what}");
                assert_eq!(got.report(), want.report(), "{what}");
            }
            (Err(got), Err(want)) => assert_eq!(got.to_string(), want.to_string(), "{what}"),
            (got, want) => panic!(
                "{what}: {:?}, one thread {:?}",
                got.as_ref().err(),
                want.as_ref().err()
            ),
        }
    }

    #[test]
    fn rewriting_ahead_gives_what_one_thread_gives() {
        let tables = ArchTables::embedded();
        let targets: Vec<_> = (tables.processor_names())
            .map(|name| tables.target(name).expect("a known target"))
            .collect();
        let (mut compared, mut ahead, mut failed, mut stops) = (0, 0, 0, 0);
        for (name, words) in modules() {
            let Ok(p) = Prepared::new(&words, crate::module::Endian::Little) else {
                continue;
            };
            let Some(a) = &p.analysis else { continue };
            // (And with the scan stopped at each function's first trigger,
            // the rests' calls taken from the rewrites ahead or not.)
            let stopped = Prepared::new_with(&words, crate::module::Endian::Little, false, true)
                .expect("the stopped scan fails where the whole one did not");
            let Some(sa) = &stopped.analysis else {
                panic!("{name}: the stopped scan lost the table");
            };
            stops += sa.scan.stops().len();
            for t in &targets {
                let Ok(predicates) = resolve(&a.table, t) else {
                    continue;
                };
                ahead += usize::from(Ahead::new(&p.m, &p.g, a, EVERY_FUNCTION).is_some());
                let one = p.run_with(a, predicates.clone(), ONE_THREAD);
                let runs = [
                    ("ahead", p.run_with(a, predicates.clone(), EVERY_FUNCTION)),
                    (
                        "stopped",
                        stopped.run_with(sa, predicates.clone(), ONE_THREAD),
                    ),
                    (
                        "stopped, ahead",
                        stopped.run_with(sa, predicates, EVERY_FUNCTION),
                    ),
                ];
                for (how, run) in &runs {
                    assert_same_run(&format!("{name}, {}, {how}", t.given()), run, &one);
                }
                failed += usize::from(one.is_err());
                compared += 1;
            }
        }
        assert!(
            compared > 1000,
            "only {compared} module-target pairs compared"
        );
        assert!(failed > 100, "only {failed} pairs failed");
        // (Where the host looks words up sixteen at a time.)
        if super::super::word_hits::available(1 << 16) {
            assert!(stops > 200, "the scan stopped in only {stops} functions");
        }
        // On one core nothing is rewritten ahead (nothing to compare it to).
        if super::workers(2) > 1 {
            assert!(ahead > 300, "rewritten ahead for only {ahead} pairs");
        }
    }
}
