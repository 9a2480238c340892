//! One pass over every function's words, before anything is rewritten.
//!
//! For each function it records whether it reads a predicate (then it must be
//! rewritten), which functions it calls, which functions it references other
//! than by calling them (function pointers: those stay), and which of the
//! predicate table's constants and types it mentions. Membership tests are
//! bit tests on raw words; only a word that hits is decoded with the grammar,
//! so an untouched function costs one linear scan.

use crate::error::Result;
use crate::idset::IdSet;
use crate::module::{FunctionRange, Module, insts};
use crate::operands::{Role, for_each_id, op};

/// What the scan learned about one function.
#[derive(Debug, Default, Clone)]
pub struct FunctionFacts {
    /// True when the function reads a predicate or a value folded from one.
    pub touched: bool,
    /// Callees of its `OpFunctionCall`s.
    pub callees: Vec<u32>,
    /// Functions it references other than as a callee.
    pub fn_refs: Vec<u32>,
    /// Members of the `watch` set its words mention (conservatively).
    pub watched: Vec<u32>,
}

/// Scans one function. `touch`: ids that make it need rewriting; `functions`:
/// all function ids; `watch`: ids whose mentions are recorded.
pub fn scan_function(
    m: &Module<'_>,
    f: &FunctionRange,
    touch: &IdSet,
    functions: &IdSet,
    watch: &IdSet,
) -> Result<FunctionFacts> {
    let mut facts = FunctionFacts::default();
    let w = m.words;
    for inst in insts(w, f.start, f.end) {
        let words = &w[inst.at..inst.end()];
        let callee_pos = (inst.opcode == op::FunctionCall && words.len() >= 4).then_some(3);
        if let Some(p) = callee_pos {
            facts.callees.push(words[p]);
        }
        let operands = &words[1..];
        if !facts.touched && touch.any_in(operands) {
            facts.touched = true;
        }
        if !watch.is_empty() {
            facts
                .watched
                .extend(operands.iter().copied().filter(|x| watch.contains(*x)));
        }
        let own = if inst.opcode == op::Function { Some(2) } else { None };
        let hit = operands
            .iter()
            .enumerate()
            .any(|(k, x)| Some(k + 1) != callee_pos && Some(k + 1) != own && functions.contains(*x));
        if hit {
            // Decode precisely: is it really an id operand?
            for_each_id(words, inst.byte_offset(), &|_| 1, &mut |pos, role| {
                if matches!(role, Role::Use | Role::MaybeId)
                    && Some(pos) != callee_pos
                    && functions.contains(words[pos])
                {
                    facts.fn_refs.push(words[pos]);
                }
            })?;
        }
    }
    facts.watched.sort_unstable();
    facts.watched.dedup();
    Ok(facts)
}
