//! What a specialization did, for people (`Display`) and tools (JSON, with
//! the `json` feature: [`crate::json::report`]).

use std::fmt;
use std::sync::Arc;

use crate::inspect::Resolved;
use crate::target::Target;

/// What was resolved and removed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// The target ID as given (`tahiti`).
    pub target: String,
    /// The canonical target ID it resolved to (`gfx600`; modifiers kept,
    /// `gfx90a:xnack+`).
    pub target_id: String,
    /// The processor it resolved to (`gfx600`).
    pub processor: String,
    /// The wavefront size the predicates were resolved for: 32 or 64.
    pub wavefront_size: u32,
    /// Every predicate of the table with its value, in SpecId order (empty
    /// without a table).
    pub predicates: Vec<Resolved>,
    /// Conditional branches and switches made unconditional.
    pub branches_folded: usize,
    /// Selects replaced by their chosen operand.
    pub selects_folded: usize,
    /// Phis replaced by their one value.
    pub phis_folded: usize,
    /// Blocks removed.
    pub blocks_removed: usize,
    /// Functions that were rewritten (a predicate reached them). Shared
    /// (`Arc`): the targets of one batch share one list, as those that
    /// resolve every predicate alike share the module's words.
    pub functions_rewritten: Arc<FunctionNames>,
    /// Functions (and imported declarations) removed: only dead code called
    /// them; sorted. Shared as [`Report::functions_rewritten`] is.
    pub functions_removed: Arc<FunctionNames>,
    /// True when the predicate table was removed (false: the module had none).
    pub table_removed: bool,
}

impl Report {
    /// Records which target the report is for and puts the predicates in
    /// SpecId order.
    pub(crate) fn describe_target(&mut self, target: &Target<'_>) {
        self.target = target.given().to_string();
        self.target_id = target.id().to_string();
        self.processor = target.processor_name().to_string();
        self.wavefront_size = target.wavefront_size();
        self.predicates.sort_by_key(|p| p.spec_id);
    }

    /// Adds the counts of one function's rewrite.
    pub(crate) fn add_rewrite(&mut self, r: &super::function::Rewritten) {
        self.branches_folded += r.branches_folded;
        self.selects_folded += r.selects_folded;
        self.phis_folded += r.phis_folded;
        self.blocks_removed += r.blocks_removed;
    }

    /// `tahiti (processor gfx600, wave64)`: the target as given, the
    /// processor it resolved to and the wave size, as `inspect` names them.
    pub fn target_line(&self) -> String {
        format!(
            "{} (processor {}, wave{})",
            self.target, self.processor, self.wavefront_size
        )
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.table_removed {
            return writeln!(
                f,
                "target {}: no predicate table: module unchanged",
                self.target_line()
            );
        }
        writeln!(f, "target {}", self.target_line())?;
        for p in &self.predicates {
            write!(f, "  SpecId {:>3}  {:<5}  {}", p.spec_id, p.value, p.name)?;
            if let Some(n) = &p.note {
                write!(f, "  ({n})")?;
            }
            writeln!(f)?;
        }
        writeln!(
            f,
            "folded {} branch(es), {} select(s), {} phi(s); removed {} block(s)",
            self.branches_folded, self.selects_folded, self.phis_folded, self.blocks_removed
        )?;
        if !self.functions_removed.is_empty() {
            write!(f, "removed functions: ")?;
            for (k, name) in self.functions_removed.iter().enumerate() {
                let sep = if k == 0 { "" } else { ", " };
                write!(f, "{sep}{name}")?;
            }
            writeln!(f)?;
        }
        writeln!(f, "removed the predicate table")
    }
}

/// Function names as a report lists them, in order, kept in one buffer (a
/// run over a large module names thousands of functions: one `String`
/// each was an allocation each).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct FunctionNames {
    /// The names, one after the other.
    text: String,
    /// Where each name ends in `text`.
    ends: Vec<usize>,
}

impl FunctionNames {
    /// An empty list with room for `names` names of `bytes` bytes in all.
    pub(crate) fn with_capacity(names: usize, bytes: usize) -> FunctionNames {
        FunctionNames {
            text: String::with_capacity(bytes),
            ends: Vec::with_capacity(names),
        }
    }

    /// Appends the name `write` appends to the buffer.
    pub(crate) fn push_with(&mut self, write: impl FnOnce(&mut String)) {
        write(&mut self.text);
        self.ends.push(self.text.len());
    }

    /// Puts the names in sorted order.
    pub(crate) fn sort(&mut self) {
        if self.iter().is_sorted() {
            return;
        }
        let mut names: Vec<&str> = self.iter().collect();
        names.sort_unstable();
        let mut sorted = FunctionNames::with_capacity(names.len(), self.text.len());
        for name in names {
            sorted.push_with(|text| text.push_str(name));
        }
        *self = sorted;
    }

    /// How many names.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The `k`th name.
    pub fn get(&self, k: usize) -> Option<&str> {
        let end = *self.ends.get(k)?;
        let start = k.checked_sub(1).map_or(0, |j| self.ends[j]);
        self.text.get(start..end)
    }

    /// The names, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        (0..self.len()).map(|k| self.get(k).unwrap_or_default())
    }
}

impl fmt::Debug for FunctionNames {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names in one buffer read back as they were pushed (the empty name
    /// too), sort, and print as a list.
    #[test]
    fn names_in_one_buffer() {
        let mut names = FunctionNames::with_capacity(3, 0);
        for name in ["main", "", "%12"] {
            names.push_with(|t| t.push_str(name));
        }
        assert_eq!(names.len(), 3);
        assert_eq!(names.iter().collect::<Vec<_>>(), ["main", "", "%12"]);
        assert_eq!(names.get(3), None);
        assert_eq!(format!("{names:?}"), r#"["main", "", "%12"]"#);
        names.sort();
        assert_eq!(names.iter().collect::<Vec<_>>(), ["", "%12", "main"]);
        assert!(FunctionNames::default().is_empty());
    }
}
