//! Work on all cores. For a batch: [`in_parallel`] runs one job loop on
//! as many scoped threads as pay, [`map_parallel`] collects one result per
//! job in order, and [`map_parallel_with`] gives each thread's jobs one
//! state of their own (storage reused from job to job). For one target:
//! [`ahead`] computes jobs on other threads ahead of their turn while the
//! calling thread takes the results in order. For two passes that need
//! not wait for each other: [`join`]; for two halves of one: [`both`].
//!
//! `std::thread::scope` with an atomic job counter (or, for [`ahead`], a
//! mutex and two condition variables) is all this needs: the jobs are
//! independent and coarse (whole functions, runs of functions, whole
//! targets), so a work-stealing pool (rayon) would add a dependency and
//! nothing measurable.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

use crate::error::Error;

/// How many threads [`in_parallel`] runs `jobs` jobs on: one per core, at
/// most one per job, at least one.
pub(crate) fn workers(jobs: usize) -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(jobs)
        .max(1)
}

/// Runs `work` on as many threads as pay for `jobs` jobs, the calling
/// thread among them (alone for one job or one core). `work` takes jobs
/// until none is left.
pub(crate) fn in_parallel(jobs: usize, work: impl Fn() + Sync) {
    let workers = workers(jobs);
    if workers == 1 {
        work();
        return;
    }
    // The calling thread is one of the workers. Each spawned worker is
    // joined explicitly: a join returns once the thread has exited, so
    // everything std and glibc allocated for it (its handle, its boxed
    // closure, thread-local destructor records) is freed before this
    // returns; the scope's own wait only sees the closures finish. A
    // worker that panicked (a bug: jobs guard themselves) leaves its job's
    // result unset, which `map_parallel` reports as `None`.
    std::thread::scope(|s| {
        let spawned: Vec<_> = (1..workers).map(|_| s.spawn(&work)).collect();
        work();
        for worker in spawned {
            let _ = worker.join();
        }
    });
}

/// Runs `a` on a thread of its own while the calling thread runs `b`,
/// when `together` and there are two cores; else `a`, then `b`, on the
/// calling thread. Both results (`a`'s `None` only when it was lost to a
/// bug: its thread panicked). The thread is joined (as [`in_parallel`]'s
/// are) before this returns.
pub(crate) fn join<A: Send, B>(
    together: bool,
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B,
) -> (Option<A>, B) {
    if !together || workers(2) < 2 {
        return (Some(a()), b());
    }
    std::thread::scope(|s| {
        let spawned = s.spawn(a);
        let b = b();
        (spawned.join().ok(), b)
    })
}

/// [`join`] for two halves of one job with no result of their own: `a`
/// on a thread of its own while the calling thread runs `b` (on one core,
/// `a` then `b`). A panic in `a` (a bug) panics the calling thread too,
/// once `b` is done, as it would have without the thread.
pub(crate) fn both(a: impl FnOnce() + Send, b: impl FnOnce()) {
    let (a, ()) = join(true, a, b);
    assert!(a.is_some(), "the other half of the job panicked");
}

/// Runs `job(i)` for every `i < jobs` on all cores, returning the results
/// in order (`None` only for a job lost to a bug).
pub(crate) fn map_parallel<T: Send>(
    jobs: usize,
    job: impl Fn(usize) -> T + Sync,
) -> Vec<Option<T>> {
    map_parallel_with(jobs, || (), |_, i| job(i))
}

/// [`map_parallel`] with a state per thread: each thread makes one with
/// `state()` and runs its jobs as `job(&mut state, i)`.
pub(crate) fn map_parallel_with<S, T: Send>(
    jobs: usize,
    state: impl Fn() -> S + Sync,
    job: impl Fn(&mut S, usize) -> T + Sync,
) -> Vec<Option<T>> {
    let slots: Vec<Mutex<Option<T>>> = (0..jobs).map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    in_parallel(jobs, || {
        let mut state = state();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= jobs {
                break;
            }
            let r = job(&mut state, i);
            if let Ok(mut slot) = slots[i].lock() {
                *slot = Some(r);
            }
        }
    });
    slots
        .into_iter()
        .map(|s| s.into_inner().ok().flatten())
        .collect()
}

/// The fewest module words for which a pass over every function (the
/// parse, the function scan) runs in pieces on all cores: 2 Mi words (8
/// MB). Measured on 2 cores, medians of interleaved runs of the CLI: the
/// scan at 100 MB 221.1 → 212.7 ms (31 runs), at 10 MB nothing; the parse
/// 199.1 → 193.0 ms and 26.7 → 24.9 ms (15 runs); from fewer words,
/// in-process calls repeated in one process got slower (a thread a call).
/// Each piece's thread adds about 1.3 MB to the peak at 100 MB.
const PIECES_FROM_WORDS: usize = 2 << 20;

/// The most pieces such a pass runs in, one per core.
const MOST_PIECES: usize = 4;

/// How many pieces a pass over a module of `module_words` words runs in,
/// when it has `items` things to split (functions): one below
/// [`PIECES_FROM_WORDS`], else one per core, at most [`MOST_PIECES`].
pub(crate) fn pieces(module_words: usize, items: usize) -> usize {
    if module_words >= PIECES_FROM_WORDS {
        workers(MOST_PIECES.min(items))
    } else {
        1
    }
}

/// Panics unless two ways of making a pass (in one piece and in several,
/// say) came to the same result or the same error: the fuzz builds' check
/// of a pass made two ways, named `what` ("the scan in pieces").
pub(crate) fn assert_agree<T: PartialEq + std::fmt::Debug>(
    one: &crate::error::Result<T>,
    other: &crate::error::Result<T>,
    what: &str,
) {
    match (one, other) {
        (Ok(a), Ok(b)) => assert!(a == b, "{what} differs"),
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{what}"),
        _ => panic!("{what} differs: {one:?} against {other:?}"),
    }
}

/// The error for a job lost to a bug of ours (its thread panicked), not to
/// the input.
pub(crate) fn internal(message: &str) -> Error {
    Error::Structure {
        offset: 0,
        function: None,
        message: message.to_string(),
    }
}

/// The most threads [`ahead`] runs on, the calling thread among them:
/// the calling thread's own share (keeping each result in order) bounds
/// the gain, and each thread costs memory (its scratch, its allocator
/// arena, its jobs' results: about 0.7 MB for the second thread on a
/// 100 MB module, measured).
const AHEAD_THREADS: usize = 4;

/// Runs `body` while other cores (up to [`AHEAD_THREADS`] threads in all)
/// compute `job(&mut state, i)` for `i < jobs` ahead of their turn;
/// `body` takes the results in order through [`Ahead::take`], which
/// computes a job on the calling thread itself when none of the others
/// has its result ready. At most two jobs a thread are started and not
/// yet taken. A result handed back once used ([`Ahead::give_back`]) is
/// dropped by the thread that computed it. Once `body` returns (or
/// unwinds), the other threads stop and are joined (explicitly, as
/// [`in_parallel`]'s are) before this returns.
///
/// This is the single-target run's pipeline: the driver must keep the
/// function rewrites in module order on one thread, but each rewrite only
/// reads what they share. A job that panics (a bug: jobs guard
/// themselves) comes out as `None`. Waits are on condition variables
/// signalled only when someone waits, so a job costs a few uncontended
/// locks, not a system call.
pub(crate) fn ahead<S, T: Send, R>(
    jobs: usize,
    state: &(dyn Fn() -> S + Sync),
    job: &(dyn Fn(&mut S, usize) -> T + Sync),
    body: impl FnOnce(&mut Ahead<'_, S, T>) -> R,
) -> R {
    let threads = workers(jobs).min(AHEAD_THREADS);
    let shared = Shared {
        board: Mutex::new(Board {
            next: 0,
            turn: 0,
            results: (0..(2 * threads).min(jobs).max(1)).map(|_| None).collect(),
            given_back: (0..threads).map(|_| Some(Vec::new())).collect(),
            helpers_waiting: 0,
            awaited: None,
            stop: false,
        }),
        window_moved: Condvar::new(),
        result_ready: Condvar::new(),
    };
    std::thread::scope(|s| {
        let shared = &shared;
        let spawned: Vec<_> = (1..threads)
            .map(|me| s.spawn(move || shared.help(me, jobs, state, job)))
            .collect();
        // Stops the helpers however `body` ends.
        let stop = StopOnDrop(shared);
        let mut ahead = Ahead {
            shared,
            jobs,
            turn: 0,
            state: state(),
            job,
            taken_by: Vec::new(),
        };
        let r = body(&mut ahead);
        drop(stop);
        for helper in spawned {
            let _ = helper.join();
        }
        r
    })
}

/// What [`ahead`]'s threads share.
struct Shared<T> {
    board: Mutex<Board<T>>,
    /// Signalled when the turn moves while helpers wait for it.
    window_moved: Condvar,
    /// Signalled when the awaited result is stored.
    result_ready: Condvar,
}

/// The jobs' progress.
struct Board<T> {
    /// The next job nobody has started.
    next: usize,
    /// The job whose result is taken next.
    turn: usize,
    /// The results of the window of jobs `turn..turn + results.len()`
    /// once done, until taken: job `i`'s [`Done`] at `i % results.len()`
    /// (a slot is free again once its job is taken, before the window
    /// reaches the next job that uses it).
    results: Vec<Option<Done<T>>>,
    /// By helper (index 1 on; 0 is the calling thread's, unused): the
    /// results it computed that were handed back, for it to drop; `None`
    /// once it has stopped.
    given_back: Vec<Option<Vec<T>>>,
    /// Helpers waiting for the turn to move.
    helpers_waiting: usize,
    /// The job the calling thread waits for, if it waits.
    awaited: Option<usize>,
    /// Set when `body` is over: helpers start nothing more.
    stop: bool,
}

/// A job's result on the board.
struct Done<T> {
    /// The job.
    job: usize,
    /// The helper that computed it (`None`: the calling thread).
    by: Option<usize>,
    /// The result (`None`: lost to a panic).
    result: Option<T>,
}

impl<T> Shared<T> {
    /// The board, even if a thread panicked holding it (none does: jobs
    /// run outside the lock).
    fn lock(&self) -> std::sync::MutexGuard<'_, Board<T>> {
        self.board.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Helper `me`'s loop: drop the results handed back to it, and start
    /// the next job while it is within the window. (Memory is freed on
    /// the thread that allocated it: freeing another thread's blocks takes
    /// that thread's allocator lock, and the two threads then wait on each
    /// other.)
    fn help<S>(
        &self,
        me: usize,
        jobs: usize,
        state: &dyn Fn() -> S,
        job: &dyn Fn(&mut S, usize) -> T,
    ) {
        let mut state = state();
        let mut spent = Vec::new();
        let mut b = self.lock();
        loop {
            if let Some(mine) = b.given_back[me].as_mut().filter(|v| !v.is_empty()) {
                std::mem::swap(mine, &mut spent);
                drop(b);
                spent.clear();
                b = self.lock();
                continue;
            }
            if b.stop || b.next >= jobs {
                // (What is handed back from now on is dropped where it is.)
                let left = b.given_back[me].take();
                drop(b);
                drop(left);
                return;
            }
            if b.next >= b.turn + b.results.len() {
                b.helpers_waiting += 1;
                b = self.window_moved.wait(b).unwrap_or_else(|e| e.into_inner());
                b.helpers_waiting -= 1;
                continue;
            }
            let i = b.next;
            b.next += 1;
            drop(b);
            let result = guarded(&mut state, i, job);
            b = self.lock();
            let slot = i % b.results.len();
            b.results[slot] = Some(Done {
                job: i,
                by: Some(me),
                result,
            });
            if b.awaited == Some(i) {
                self.result_ready.notify_one();
            }
        }
    }
}

/// Runs `job(state, i)`, `None` if it panics.
fn guarded<S, T>(state: &mut S, i: usize, job: &dyn Fn(&mut S, usize) -> T) -> Option<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(state, i))).ok()
}

/// Stops [`ahead`]'s helpers when dropped.
struct StopOnDrop<'a, T>(&'a Shared<T>);

impl<T> Drop for StopOnDrop<'_, T> {
    fn drop(&mut self) {
        let mut b = self.0.lock();
        b.stop = true;
        self.0.window_moved.notify_all();
    }
}

/// The calling thread's side of [`ahead`].
pub(crate) struct Ahead<'a, S, T> {
    shared: &'a Shared<T>,
    jobs: usize,
    /// The job to take next.
    turn: usize,
    state: S,
    job: &'a (dyn Fn(&mut S, usize) -> T + Sync),
    /// By job taken, in order: the helper that computed it (`None`: the
    /// calling thread).
    taken_by: Vec<Option<usize>>,
}

impl<S, T> Ahead<'_, S, T> {
    /// Job `i`'s result: `None` when it was lost to a panic, or when `i`
    /// is not the job after the one taken last (from 0 on) or no job.
    pub(crate) fn take(&mut self, i: usize) -> Option<T> {
        if i != self.turn || i >= self.jobs {
            return None;
        }
        self.turn += 1;
        let shared = self.shared;
        let mut b = shared.lock();
        b.turn = i;
        if b.helpers_waiting > 0 {
            shared.window_moved.notify_all();
        }
        loop {
            let slot = i % b.results.len();
            if let Some(done) = b.results[slot].take_if(|d| d.job == i) {
                self.taken_by.push(done.by);
                return done.result;
            }
            if b.next < self.jobs && b.next < i + b.results.len() && !b.stop {
                // Nothing ready: do a job here rather than wait.
                let j = b.next;
                b.next += 1;
                drop(b);
                let result = guarded(&mut self.state, j, self.job);
                b = shared.lock();
                let slot = j % b.results.len();
                b.results[slot] = Some(Done {
                    job: j,
                    by: None,
                    result,
                });
                continue;
            }
            b.awaited = Some(i);
            b = shared
                .result_ready
                .wait(b)
                .unwrap_or_else(|e| e.into_inner());
            b.awaited = None;
        }
    }

    /// Hands back job `i`'s result, taken and used, to be dropped by the
    /// helper that computed it (see [`Shared::help`]); the calling
    /// thread's own, or one whose helper has stopped, is dropped here.
    pub(crate) fn give_back(&mut self, i: usize, used: T) {
        if let Some(by) = self.taken_by.get(i).copied().flatten() {
            let mut b = self.shared.lock();
            if let Some(list) = &mut b.given_back[by] {
                list.push(used);
                return;
            }
        }
        drop(used);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::thread::{self, ThreadId};
    use std::time::Duration;

    use super::{ahead, workers};

    /// A job of uneven length (so that threads finish out of order).
    fn job(calls: &mut usize, i: usize) -> usize {
        *calls += 1;
        let spin = (i * 7919) % 13 * 1000;
        (0..spin).fold(i, |a, x| std::hint::black_box(a ^ x)) ^ (0..spin).fold(0, |a, x| a ^ x)
    }

    #[test]
    fn ahead_hands_out_every_result_in_order() {
        for jobs in [0, 1, 2, 3, 7, 64, 500] {
            let got = ahead(jobs, &|| 0usize, &job, |a| {
                (0..jobs).map(|i| a.take(i)).collect::<Vec<_>>()
            });
            let want: Vec<Option<usize>> = (0..jobs).map(Some).collect();
            assert_eq!(got, want, "{jobs} jobs");
        }
    }

    #[test]
    fn a_panicking_job_is_lost_alone() {
        let job = |_: &mut (), i: usize| {
            assert!(i != 5, "job 5 fails");
            i
        };
        let got = ahead(20, &|| (), &job, |a| {
            (0..20).map(|i| a.take(i)).collect::<Vec<_>>()
        });
        for (i, r) in got.into_iter().enumerate() {
            assert_eq!(r, (i != 5).then_some(i), "job {i}");
        }
    }

    #[test]
    fn taking_out_of_turn_gives_nothing_and_stopping_early_returns() {
        let r = ahead(1000, &|| 0usize, &job, |a| {
            let first = a.take(0);
            let skipped = a.take(2);
            let again = a.take(0);
            let second = a.take(1);
            let beyond = a.take(1000);
            (first, skipped, again, second, beyond)
        });
        assert_eq!(r, (Some(0), None, None, Some(1), None));
    }

    /// A result that records, when dropped, the thread that made it and
    /// the thread that drops it.
    struct Made<'a> {
        by: ThreadId,
        drops: &'a Mutex<Vec<(ThreadId, ThreadId)>>,
    }

    impl Drop for Made<'_> {
        fn drop(&mut self) {
            let pair = (self.by, thread::current().id());
            self.drops.lock().expect("the drops").push(pair);
        }
    }

    #[test]
    fn results_handed_back_are_dropped_by_their_maker() {
        let drops = Mutex::new(Vec::new());
        let jobs = 300;
        // (Jobs long enough for the helpers to take their share.)
        let made = |_: &mut (), _: usize| {
            thread::sleep(Duration::from_micros(100));
            Made {
                by: thread::current().id(),
                drops: &drops,
            }
        };
        let caller = thread::current().id();
        ahead(jobs, &|| (), &made, |a| {
            for i in 0..jobs {
                let r = a.take(i).expect("every job's result");
                a.give_back(i, r);
            }
        });
        let drops = drops.into_inner().expect("the drops");
        assert_eq!(drops.len(), jobs, "every result dropped once");
        let mut by_helpers = 0;
        for &(by, on) in &drops {
            // A helper's result goes back to it while it runs; the
            // calling thread drops its own, and those whose helper has
            // stopped.
            assert!(on == by || on == caller, "dropped by another helper");
            by_helpers += usize::from(by != caller && on == by);
        }
        if workers(2) > 1 {
            assert!(by_helpers > 0, "no helper dropped its own results");
        }
    }
}
