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
    /// Members of the `watch` set it reads as ids (or in words the grammar
    /// cannot place).
    pub watched: Vec<u32>,
}

/// The ids a scan looks for, as three sets plus their union (one bit test
/// per word in the common case of no hit).
pub struct Interest {
    /// Ids that make a function need rewriting.
    pub touch: IdSet,
    /// All function ids.
    pub functions: IdSet,
    /// Ids whose mentions are recorded.
    pub watch: IdSet,
    any: IdSet,
}

impl Interest {
    /// Builds the sets; `module_words` bounds their bit vectors.
    pub fn new(touch: IdSet, functions: IdSet, watch: IdSet, module_words: usize) -> Interest {
        let any = IdSet::new(
            touch.iter().chain(functions.iter()).chain(watch.iter()),
            module_words,
        );
        Interest {
            touch,
            functions,
            watch,
            any,
        }
    }
}

/// Scans one function.
pub fn scan_function(
    m: &Module<'_>,
    f: &FunctionRange,
    interest: &Interest,
) -> Result<FunctionFacts> {
    let mut facts = FunctionFacts::default();
    let w = m.words;
    for inst in insts(w, f.start, f.end) {
        let words = &w[inst.at..inst.end()];
        // Most instructions hold none of the ids of interest: one bit test
        // per word and on to the next. A call always records its callee.
        if inst.opcode != op::FunctionCall && !interest.any.any_in(words.get(1..).unwrap_or(&[])) {
            continue;
        }
        let callee_pos = (inst.opcode == op::FunctionCall && words.len() >= 4).then_some(3);
        if let Some(p) = callee_pos {
            facts.callees.push(words[p]);
        }
        let own = (inst.opcode == op::Function).then_some(2);
        let (mut fn_hit, mut watch_hit) = (false, false);
        for (k, &x) in words.iter().enumerate().skip(1) {
            if !interest.any.contains(x) {
                continue;
            }
            facts.touched |= interest.touch.contains(x);
            watch_hit |= interest.watch.contains(x);
            fn_hit |= Some(k) != callee_pos && Some(k) != own && interest.functions.contains(x);
        }
        if fn_hit || watch_hit {
            // Decode precisely: a hit may be a literal (`Aligned 32`), not
            // an id operand.
            for_each_read(words, inst.byte_offset(), |pos, role| {
                let x = words[pos];
                let reads = matches!(role, Role::Use | Role::MaybeId);
                if reads && Some(pos) != callee_pos && interest.functions.contains(x) {
                    facts.fn_refs.push(x);
                }
                // (Sorted and deduplicated at the end; a repeat of the last
                // one, as a type used by a run of instructions, is skipped.)
                if (reads || role == Role::ResultType)
                    && interest.watch.contains(x)
                    && facts.watched.last() != Some(&x)
                {
                    facts.watched.push(x);
                }
            })?;
        }
    }
    facts.watched.sort_unstable();
    facts.watched.dedup();
    Ok(facts)
}

/// The members of `watch` that the instructions in `words` (whole
/// instructions, e.g. a rewritten function) read as ids, sorted. Only an
/// instruction with a word in `watch` is decoded.
pub fn watched_ids(words: &[u32], watch: &IdSet) -> Result<Vec<u32>> {
    let mut out = Vec::new();
    for inst in insts(words, 0, words.len()) {
        let iw = &words[inst.at..inst.end()];
        if !watch.any_in(&iw[1..]) {
            continue;
        }
        for_each_read(iw, inst.byte_offset(), |pos, role| {
            if role != Role::Result && watch.contains(iw[pos]) {
                out.push(iw[pos]);
            }
        })?;
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// [`for_each_id`] for the scan, which does not know the types of local
/// values: an `OpSwitch`'s case literals are as wide as its selector's
/// type, so only its selector is reported (its other ids are labels, neither
/// functions nor table ids).
fn for_each_read(words: &[u32], at: usize, mut f: impl FnMut(usize, Role)) -> Result<()> {
    if (words[0] & 0xffff) as u16 == op::Switch {
        if words.len() > 1 {
            f(1, Role::Use);
        }
        return Ok(());
    }
    for_each_id(words, at, &|_| 1, f)
}
