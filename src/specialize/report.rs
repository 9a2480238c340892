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
    /// (`Arc`): the targets of one batch that resolve every predicate
    /// alike share one list, as they share the module's words.
    pub functions_rewritten: Arc<Vec<String>>,
    /// Functions (and imported declarations) removed: only dead code called
    /// them. Shared as [`Report::functions_rewritten`] is.
    pub functions_removed: Arc<Vec<String>>,
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
            writeln!(
                f,
                "removed functions: {}",
                self.functions_removed.join(", ")
            )?;
        }
        writeln!(f, "removed the predicate table")
    }
}
