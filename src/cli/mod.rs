//! The command line's pieces, one file per command plus shared I/O.

pub mod batch;
pub mod container;
pub mod inspect;
pub mod io;
pub mod specialize;
pub mod targets;
