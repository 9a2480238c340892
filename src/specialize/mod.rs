//! Specializing a module for one target: the library's main entry point.
//!
//! The passes, in order (each in its own file; `prepared.rs` runs them as
//! the named steps of `Prepared::run`: `resolve_values`,
//! `rewrite_functions`, `finish`):
//! 1. `analysis`, once per module: `context::ChainShape` finds the
//!    predicate call sites, the module-scope chain (`OpSpecConstantOp`
//!    logic over predicates) and the instructions that read them; `scan`
//!    makes one linear pass over all function words to find which functions
//!    read a predicate, and the call graph; `sweep` finds the table's
//!    closure and the call graph's roots.
//! 2. `context`: for one set of values, give every call site its value and
//!    fold the module-scope chain (over the values of `lattice`, which the
//!    function rewrite folds over too).
//! 3. `function`: rewrite each function a predicate reaches (fold, drop
//!    dead arms, repair phis and merges). A rewrite only reads the context:
//!    uses that take a boolean constant are recorded, and the driver fills
//!    them in module order, choosing each constant on first need
//!    (`context::Constants`, the one part of a context that changes).
//!    When there are enough of them (`ahead`), the other cores compute the
//!    rewrites ahead of their turn while the driver keeps them in order
//!    (and hands each job's rewrites back to its thread to be freed).
//!    Unresolved uses in surviving functions become messages
//!    (`unresolved`).
//! 4. `sweep`: remove functions only dead code called, the table and what
//!    only it used.
//! 5. `emit`: rewrite module-scope readers, then lay down the output as
//!    pieces (`output`): ranges of the input for everything unchanged,
//!    words of its own for the rest. The CLI streams the pieces to its
//!    file; `Specialized` gathers them into one buffer, or
//!    [`specialize_in_place`] lays them down in the input's own.
//!
//! From 8 MB up, `scan` runs in pieces on all cores, as the module's parse
//! (`crate::module`) does.
//!
//! `batch` specializes for many targets: targets that resolve every
//! predicate alike form a group; each function a predicate reaches is
//! decoded once and rewritten once per distinct view of the groups'
//! values, then each group is finished, on as many threads as pay
//! (`crate::parallel`). `report` sums what was done.
//!
//! A module without a predicate table comes back byte-identical.

mod ahead;
mod analysis;
mod batch;
mod context;
mod emit;
mod function;
mod lattice;
mod output;
mod prepared;
mod report;
mod rewrites;
mod scan;
mod sweep;
mod unresolved;
mod word_hits;

pub use output::Output;
pub use prepared::Prepared;
pub use report::{FunctionNames, Report};

use std::borrow::Cow;
use std::sync::Arc;

use crate::error::Result;
use crate::input::Input;
use crate::module::{Endian, bytes_from_words, check_start, extend_words};
use crate::target::Target;

/// Options of a specialization run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {}

/// The result of [`specialize`]: the module and what was done to it.
/// Targets that resolve every predicate alike share one module.
#[derive(Debug, Clone)]
pub struct Specialized {
    words: Words,
    endian: Endian,
    report: Report,
}

/// Where a [`Specialized`] module's words are.
#[derive(Debug, Clone)]
enum Words {
    /// A buffer of words of its own (shared by the targets of a batch that
    /// resolve alike).
    Own(Arc<Vec<u32>>),
    /// The caller's input buffer, the module laid down in it
    /// ([`specialize_in_place`]): its start aligned for words and its
    /// length a multiple of 4 (checked when it was made one).
    Input(Arc<Vec<u8>>),
}

impl Specialized {
    /// The module's words, host order.
    pub fn words(&self) -> &[u32] {
        match &self.words {
            Words::Own(words) => words,
            // (Checked when made: aligned, whole words.)
            Words::Input(bytes) => bytemuck::cast_slice(bytes),
        }
    }

    /// The module's bytes, in the input's byte order.
    pub fn bytes(&self) -> Vec<u8> {
        bytes_from_words(self.words(), self.endian)
    }

    /// [`Specialized::bytes`], without a copy when they are the buffer
    /// [`specialize_in_place`] laid the module down in and no clone of
    /// this `Specialized` shares it.
    pub fn into_bytes(self) -> Vec<u8> {
        match self.words {
            // (Laid down in place only in the host's byte order, the
            // input's.)
            Words::Input(bytes) => Arc::try_unwrap(bytes).unwrap_or_else(|shared| shared.to_vec()),
            Words::Own(words) => bytes_from_words(&words, self.endian),
        }
    }

    /// The byte order [`Specialized::bytes`] writes (the input's).
    pub fn endian(&self) -> Endian {
        self.endian
    }

    /// What was resolved and removed.
    pub fn report(&self) -> &Report {
        &self.report
    }
}

/// Specializes a module given as bytes (either byte order; the output keeps
/// it) for `target`. With the `containers` feature the bytes may also be an
/// offload bundle, compressed bundle or ELF file holding exactly one SPIR-V
/// module (several are an error listing them: choose with
/// [`crate::container::find_spirv`]).
///
/// ```
/// use rspv_specialize::{ArchTables, specialize::{specialize, Options}};
/// let tables = ArchTables::embedded();
/// let target = tables.target("gfx950").unwrap();
/// let input = std::fs::read("tests/golden/direct-branch/input.spv").unwrap();
/// let out = specialize(&input, &target, &Options::default()).unwrap();
/// assert!(out.report().table_removed);
/// assert!(out.bytes().len() < input.len());
/// ```
pub fn specialize(bytes: &[u8], target: &Target<'_>, options: &Options) -> Result<Specialized> {
    let input = Input::read(bytes)?;
    let (words, endian) = host_words(&input.bytes).map_err(|e| input.locate(e))?;
    // The analysis goes before the output is gathered into one buffer.
    let out =
        Prepared::specialize_once(&words, endian, target, options).map_err(|e| input.locate(e))?;
    Ok(gathered_after_analysis(out))
}

/// `out` gathered into a new buffer, once the analysis that made it is
/// dropped: the heap's free pages go back first ([`crate::heap`]).
fn gathered_after_analysis(out: Output<'_>) -> Specialized {
    crate::heap::release_free_memory(out.len_words());
    out.into_specialized()
}

/// [`specialize`] for a caller that gives up its input buffer: the module
/// is laid down in that buffer, where it was read from, and comes back in
/// it. There is no second module-sized buffer: the peak is about the
/// module and the analysis, not twice the module, and no fresh memory is
/// written (a fresh buffer's pages cost the kernel a fault and a zeroing
/// each). That takes raw SPIR-V in the host's byte order, the buffer
/// aligned for words (as an allocator gives a large one), and an output
/// whose every range of the input lies at or after its place in the
/// output (the usual case: specializing removes words and adds few, and
/// the pieces of the input are laid down front to back, each read before
/// anything is written over it). Otherwise (a container, the other byte
/// order, a module that grows early) the module is gathered into a new
/// buffer as [`specialize`] does. On an error the buffer is dropped,
/// unchanged.
///
/// ```
/// use rspv_specialize::{ArchTables, Options, specialize, specialize_in_place};
/// let tables = ArchTables::embedded();
/// let target = tables.target("gfx950").unwrap();
/// let input = std::fs::read("tests/golden/dispatch-chain/input.spv").unwrap();
/// let copied = specialize(&input, &target, &Options::default()).unwrap();
/// let in_place = specialize_in_place(input, &target, &Options::default()).unwrap();
/// assert_eq!(in_place.words(), copied.words());
/// ```
pub fn specialize_in_place(
    bytes: Vec<u8>,
    target: &Target<'_>,
    options: &Options,
) -> Result<Specialized> {
    let detached = {
        let input = Input::read(&bytes)?;
        let (words, endian) = host_words(&input.bytes).map_err(|e| input.locate(e))?;
        // (Only words read straight from all of `bytes` can be laid down
        // there: not a copy, nor a module found inside a container.)
        let in_bytes = std::ptr::eq(&*input.bytes, &bytes[..]) && matches!(words, Cow::Borrowed(_));
        let out = Prepared::specialize_once(&words, endian, target, options)
            .map_err(|e| input.locate(e))?;
        if !in_bytes {
            return Ok(gathered_after_analysis(out));
        }
        out.detach()
    };
    Ok(detached.lay_down_in(bytes))
}

/// A module's words in host order, with its byte order: the bytes
/// themselves when they are in the host's order and aligned for words (no
/// copy), else a copy. Errors name the byte offset.
fn host_words(bytes: &[u8]) -> Result<(Cow<'_, [u32]>, Endian)> {
    let endian = check_start(bytes, bytes.len())?;
    let host = match endian {
        Endian::Little => cfg!(target_endian = "little"),
        Endian::Big => cfg!(target_endian = "big"),
    };
    if host && let Ok(words) = bytemuck::try_cast_slice(bytes) {
        return Ok((Cow::Borrowed(words), endian));
    }
    let mut words = Vec::with_capacity(bytes.len() / 4);
    extend_words(&mut words, bytes, endian);
    Ok((Cow::Owned(words), endian))
}

/// Specializes a module given as host-order words for `target`; the output
/// is little-endian when turned into bytes.
///
/// ```
/// use rspv_specialize::{ArchTables, Options, specialize_words};
/// let bytes = std::fs::read("tests/golden/empty-has/input.spv").unwrap();
/// let (words, _) = rspv_specialize::module::words_from_bytes(&bytes).unwrap();
/// let tables = ArchTables::embedded();
/// let out = specialize_words(&words, &tables.target("gfx1201").unwrap(), &Options::default()).unwrap();
/// assert!(out.words().len() < words.len());
/// ```
pub fn specialize_words(
    words: &[u32],
    target: &Target<'_>,
    options: &Options,
) -> Result<Specialized> {
    let out = Prepared::specialize_once(words, Endian::Little, target, options)?;
    Ok(out.into_specialized())
}

/// Specializes one module for many targets: the module is parsed and
/// scanned once, targets that resolve every predicate alike share one
/// rewrite, and distinct rewrites run on all cores. The outer error is about
/// the module; each target has its own result. Containers are read as by
/// [`specialize`].
///
/// ```
/// use rspv_specialize::{ArchTables, Options, specialize_many};
/// let tables = ArchTables::embedded();
/// let targets: Vec<_> = tables.processor_names().map(|n| tables.target(n).unwrap()).collect();
/// let input = std::fs::read("tests/golden/dispatch-chain/input.spv").unwrap();
/// let outs = specialize_many(&input, &targets, &Options::default()).unwrap();
/// assert_eq!(outs.len(), targets.len());
/// assert!(outs.iter().all(|o| o.is_ok()));
/// ```
pub fn specialize_many(
    bytes: &[u8],
    targets: &[Target<'_>],
    options: &Options,
) -> Result<Vec<Result<Specialized>>> {
    let input = Input::read(bytes)?;
    let (words, endian) = host_words(&input.bytes).map_err(|e| input.locate(e))?;
    let results = Prepared::specialize_many_once(&words, endian, targets, options, &|_, _| {})
        .map_err(|e| input.locate(e))?;
    Ok(results
        .into_iter()
        .map(|r| r.map_err(|e| input.locate(e)))
        .collect())
}
