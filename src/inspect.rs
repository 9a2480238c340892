//! Reading the predicate table without changing anything: what
//! `rspv-specialize inspect` prints and JIT loaders can query.

use crate::arch::ArchTables;
use crate::error::Result;
use crate::globals::Globals;
use crate::input::Input;
use crate::module::{Module, words_from_bytes};
use crate::table::{self, Predicate};
use crate::target::Target;

/// The predicate table of a module, as [`inspect`] reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inspection {
    /// True when the module has a predicate table.
    pub has_table: bool,
    /// The table's entries in table order (empty without a table).
    pub predicates: Vec<Predicate>,
}

/// One predicate's value for one target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The predicate's SpecId.
    pub spec_id: u32,
    /// The predicate's name.
    pub name: String,
    /// Its value for the target.
    pub value: bool,
    /// A note when the module names something the tables do not know.
    pub note: Option<String>,
}

/// One predicate as `inspect` shows it, whatever the target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Described {
    /// The table entry.
    pub predicate: Predicate,
    /// The builtins whose required-features expression is exactly this
    /// `has.` expression (none for `is.`).
    pub builtins: Vec<String>,
    /// A note that holds for every target: the module names a processor or
    /// feature the tables do not know.
    pub note: Option<String>,
}

impl Inspection {
    /// The predicates in SpecId order, each with its builtins and note.
    pub fn describe(&self, tables: &ArchTables) -> Vec<Described> {
        let mut preds = self.predicates.clone();
        preds.sort_by_key(|p| p.spec_id);
        // Notes depend only on the name (a processor or feature no table
        // knows), so any processor tells them.
        let any = (tables.processor_names().next()).and_then(|name| tables.target(name).ok());
        preds
            .into_iter()
            .map(|p| {
                let builtins = match p.name.strip_prefix("has.") {
                    Some(expr) => tables
                        .builtins_requiring(expr)
                        .map(|b| b.name.clone())
                        .collect(),
                    None => Vec::new(),
                };
                let note = any
                    .as_ref()
                    .and_then(|t| t.evaluate(&p.name).ok())
                    .and_then(|e| e.note);
                Described {
                    predicate: p,
                    builtins,
                    note,
                }
            })
            .collect()
    }

    /// The value of every predicate for `target`, in table order.
    pub fn resolve(&self, target: &Target<'_>) -> Result<Vec<Resolved>> {
        resolve_predicates(&self.predicates, target)
    }
}

/// The value of each of `predicates` for `target`, in their order.
pub(crate) fn resolve_predicates(
    predicates: &[Predicate],
    target: &Target<'_>,
) -> Result<Vec<Resolved>> {
    // (One allocation: collecting through `Result` would grow the list.)
    let mut resolved = Vec::with_capacity(predicates.len());
    for p in predicates {
        let e = target
            .evaluate(&p.name)
            .map_err(|m| crate::error::Error::Table {
                offset: 0,
                message: format!("predicate {} (SpecId {}): {m}", p.name, p.spec_id),
            })?;
        resolved.push(Resolved {
            spec_id: p.spec_id,
            name: p.name.clone(),
            value: e.value,
            note: e.note,
        });
    }
    Ok(resolved)
}

/// Reads the predicate table of a module given as bytes (either byte order;
/// with the `containers` feature, also a container holding one module, as
/// [`crate::specialize()`] reads it).
///
/// ```
/// let bytes = std::fs::read("tests/golden/direct-branch/input.spv").unwrap();
/// let table = rspv_specialize::inspect(&bytes).unwrap();
/// assert!(table.has_table);
/// assert!(!table.predicates.is_empty());
///
/// // A module without a table reads fine, with no predicates.
/// let bytes = std::fs::read("tests/golden/no-table/input.spv").unwrap();
/// let table = rspv_specialize::inspect(&bytes).unwrap();
/// assert!(!table.has_table && table.predicates.is_empty());
/// ```
pub fn inspect(bytes: &[u8]) -> Result<Inspection> {
    let input = Input::read(bytes)?;
    words_from_bytes(&input.bytes)
        .and_then(|(words, _)| inspect_words(&words))
        .map_err(|e| input.locate(e))
}

/// Reads the predicate table of a module given as host-order words.
///
/// ```
/// use rspv_specialize::{inspect_words, module::words_from_bytes};
/// let bytes = std::fs::read("tests/golden/dispatch-chain/input.spv").unwrap();
/// let (words, _endian) = words_from_bytes(&bytes).unwrap();
/// let table = inspect_words(&words).unwrap();
/// let names: Vec<&str> = table.predicates.iter().map(|p| p.name.as_str()).collect();
/// assert_eq!(
///     names,
///     [
///         "has.wmma-128b-insts,wavefrontsize32",
///         "has.mai-insts",
///         "has.wmma-256b-insts,wavefrontsize32",
///     ]
/// );
/// ```
pub fn inspect_words(words: &[u32]) -> Result<Inspection> {
    let m = Module::parse(words)?;
    let g = Globals::scan(&m)?;
    Ok(match table::read(&m, &g)? {
        Some(t) => Inspection {
            has_table: true,
            predicates: t.predicates,
        },
        None => Inspection {
            has_table: false,
            predicates: Vec::new(),
        },
    })
}
