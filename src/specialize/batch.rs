//! Specializing one module for many targets: targets are grouped by their
//! predicate values (one rewrite per distinct set), and the rewrites of the
//! groups run on as many threads as pay; each target then gets its group's
//! words with its own report.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::error::{Error, Result};
use crate::inspect::Resolved;
use crate::target::Target;

use super::prepared::{Prepared, resolve};
use super::{Options, Report, Specialized};

/// One distinct rewrite's result, shared by the targets of its group.
type GroupOutput = Result<(Arc<Vec<u32>>, Report)>;

/// [`Prepared::specialize_many_with_progress`]: one result per target, in
/// order; `progress(done, total)` is called from a worker thread each time
/// one group's rewrite finishes.
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
    // One rewrite per group, on as many threads as pay.
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(groups.len())
        .max(1);
    let next = AtomicUsize::new(0);
    let finished = AtomicUsize::new(0);
    let outputs: Vec<Mutex<Option<GroupOutput>>> =
        (0..groups.len()).map(|_| Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= groups.len() {
                        break;
                    }
                    // A panic would be a bug; keep it from taking the
                    // other targets down with it.
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        prepared.run(a, &groups[i].1)
                    }))
                    .unwrap_or_else(|_| {
                        Err(Error::Structure {
                            offset: 0,
                            function: None,
                            message: "internal error: the rewrite panicked".to_string(),
                        })
                    })
                    .map(|out| {
                        let s = out.into_specialized();
                        (s.words, s.report)
                    });
                    if let Ok(mut slot) = outputs[i].lock() {
                        *slot = Some(r);
                    }
                    let k = finished.fetch_add(1, Ordering::Relaxed);
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
                endian: prepared.endian,
                report,
            })
        })
        .collect()
}
