//! What a specialization did, for people (`Display`) and tools (JSON via the
//! CLI).

use std::fmt;

use crate::inspect::Resolved;

/// What was resolved and removed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// The canonical target ID.
    pub target: String,
    /// Every predicate of the table with its value (empty without a table).
    pub predicates: Vec<Resolved>,
    /// Conditional branches and switches made unconditional.
    pub branches_folded: usize,
    /// Selects replaced by their chosen operand.
    pub selects_folded: usize,
    /// Phis replaced by their one value.
    pub phis_folded: usize,
    /// Blocks removed.
    pub blocks_removed: usize,
    /// Functions that were rewritten (a predicate reached them).
    pub functions_rewritten: Vec<String>,
    /// Functions (and imported declarations) removed: only dead code called them.
    pub functions_removed: Vec<String>,
    /// True when the predicate table was removed (false: the module had none).
    pub table_removed: bool,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.table_removed {
            return writeln!(f, "no predicate table: module unchanged");
        }
        writeln!(f, "target {}", self.target)?;
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
            writeln!(
                f,
                "removed functions: {}",
                self.functions_removed.join(", ")
            )?;
        }
        writeln!(f, "removed the predicate table")
    }
}
