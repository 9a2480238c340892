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
//! [`module`] (lossless word view) → the module-level index and [`table`] (the predicate
//! table) → [`target`] (values for one GPU) → the rewrite → bytes.
//!
//! Rust programs depend on this crate with `default-features = false` (the
//! default `cli` feature is the command line's); the `json` feature adds
//! `json`, the JSON forms of reports and inspections. C programs use the
//! workspace's `capi` crate (`librspv_specialize`, `rspv_specialize.h`).

#![warn(missing_docs, unreachable_pub)]

pub mod arch;
#[cfg(feature = "containers")]
pub mod container;
pub mod disasm;
pub mod error;
mod fastmap;
pub mod feature_expr;
/// The benchmark modules' generator (`benches/common/gen.rs`), for unit
/// tests that need large modules.
#[cfg(test)]
#[path = "../benches/common/gen.rs"]
#[allow(unreachable_pub)]
mod generator;
mod globals;
mod heap;
mod huge_pages;
mod idbits;
mod idset;
mod input;
pub mod inspect;
#[cfg(feature = "json")]
pub mod json;
pub mod module;
mod operand_layouts;
pub mod operands;
mod parallel;
mod prefetch;
#[cfg(test)]
mod random;
pub mod specialize;
pub mod table;
pub mod target;
mod zeroed;

pub use arch::ArchTables;
pub use error::{Error, Result};
pub use inspect::{Described, Inspection, Resolved, inspect, inspect_words};
pub use specialize::{
    Options, Output, Prepared, Specialized, specialize, specialize_in_place, specialize_many,
    specialize_words,
};
pub use target::{Target, TargetOptions};

/// This library's version (`CARGO_PKG_VERSION`), e.g. `"0.1.0"`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
