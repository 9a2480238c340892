//! The module-wide sweep after the per-function rewrite.
//!
//! 1. **Dead functions.** Liveness from roots, then sweep (as walrus' gc):
//!    roots are entry points, `Export`-linked functions, functions referenced
//!    other than by a call, and functions nothing called in the input (for
//!    recursion: nothing outside it); the pass did not kill those, so they
//!    stay. Liveness walks the rewritten call graph from the roots, so what
//!    only a dead arm called goes, even when the arm is in a root nothing
//!    called. A function reached before the rewrite but not after it is
//!    removed, whether it has a body or is an imported declaration.
//! 2. **The table.** The table variable goes, then each constant and type
//!    that only it (transitively) used, latest definition first.
//!
//! The first is in [`functions`], the second in [`table`].

mod functions;
mod table;

pub(super) use functions::{FixedReach, dead_functions, liveness_roots};
pub(super) use table::{
    TableReaders, TableTracking, removable_table_ids, table_closure, table_readers,
};
