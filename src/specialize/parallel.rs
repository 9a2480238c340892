//! Work on all cores for a batch: [`in_parallel`] runs one job loop on as
//! many scoped threads as pay, [`map_parallel`] collects one result per
//! job in order, and [`map_parallel_with`] gives each thread's jobs one
//! state of their own (storage reused from job to job).
//!
//! `std::thread::scope` with an atomic job counter is all this needs: the
//! jobs are independent and coarse (whole functions, whole targets), so a
//! work-stealing pool (rayon) would add a dependency and nothing
//! measurable.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Runs `work` on as many threads as pay for `jobs` jobs, the calling
/// thread among them (alone for one job or one core). `work` takes jobs
/// until none is left.
pub(super) fn in_parallel(jobs: usize, work: impl Fn() + Sync) {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(jobs)
        .max(1);
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

/// Runs `job(i)` for every `i < jobs` on all cores, returning the results
/// in order (`None` only for a job lost to a bug).
pub(super) fn map_parallel<T: Send>(
    jobs: usize,
    job: impl Fn(usize) -> T + Sync,
) -> Vec<Option<T>> {
    map_parallel_with(jobs, || (), |_, i| job(i))
}

/// [`map_parallel`] with a state per thread: each thread makes one with
/// `state()` and runs its jobs as `job(&mut state, i)`.
pub(super) fn map_parallel_with<S, T: Send>(
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
