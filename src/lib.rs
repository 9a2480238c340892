//! rspv-specialize: specialize AMD-flavoured SPIR-V for one GPU.
//!
//! HIP code compiled for `amdgcnspirv` carries feature predicates
//! (`__builtin_amdgcn_processor_is`, `__builtin_amdgcn_is_invocable`) as
//! boolean specialization constants named in the table
//! `llvm.amdgcn.feature.predicate.ids`. This crate reads that table, gives
//! each predicate its value for a target GPU from the arch tables, and
//! rewrites the module so only the arms that GPU can run remain.
//!
//! Data flows one way, each stage in a module of its own:
//! [`module`] (lossless word view) → [`globals`] and [`table`] (the predicate
//! table) → [`target`] (values for one GPU) → the rewrite → bytes.

pub mod arch;
/// The C ABI (`include/rspv_specialize.h`): tables, specialize, buffers, errors.
pub mod capi;
#[cfg(feature = "containers")]
pub mod container;
mod disasm;
pub mod error;
mod fastmap;
pub mod feature_expr;
pub mod globals;
mod idset;
mod input;
pub mod inspect;
pub mod module;
pub mod operands;
pub mod specialize;
pub mod table;
pub mod target;

pub use arch::ArchTables;
pub use error::{Error, Result};
pub use inspect::{Inspection, Resolved, inspect, inspect_words};
pub use specialize::{
    Options, Prepared, Specialized, specialize, specialize_many, specialize_words,
};
pub use target::{Target, TargetOptions};
