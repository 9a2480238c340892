//! The quick rewrite: the common predicated function, rewritten without
//! the full decode.
//!
//! Most predicated functions are plain code around branches on predicates
//! (`if (__builtin_amdgcn_processor_is(…))`, llc's dispatch chains): no
//! merge instructions (kernels have no structured control flow), no switch
//! or select, phis where branches meet. For those, the rewrite folds each
//! branch on a predicate (or on boolean logic over predicates), drops the
//! blocks no longer reached, the logic instructions that became constants
//! and the phi pairs of edges that went (a phi left with one value goes,
//! and its readers read that value), and copies everything else as it is.
//! That needs a block table, the few logic instructions, phis and readers
//! of phis, and one look at each operand word; not the noted-instruction
//! model, use lists and lattice of the full rewrite
//! ([`super::rewrite_blocks`]), which cost about twice as much.
//!
//! The quick rewrite gives exactly what the full rewrite gives, or
//! declines ([`read_function`] or [`rewrite_read`] returns `None`) and
//! the caller takes the full one. It declines whatever it does not prove
//! the full rewrite treats as it does: merge instructions, switches,
//! selects; an operand word the full rewrite would replace or decode
//! otherwise (a predicate outside a logic instruction or a branch
//! condition, a logic result outside those, a word that is not an id in
//! range, a layout that is not flat); a phi reading a predicate, a logic
//! result, a phi or a constant; a logic result that folds to another id
//! or stays varying on a predicate; an order that would change; and every
//! structure error (the full rewrite reports those). The read maps the
//! function's results in a window guessed around its first result; a
//! result outside it makes the read start again in the exact window a walk
//! over the headers finds, and a word read before the logic instruction or
//! phi that defines it is refused at that definition. The read does not
//! depend on the predicates' values, so a batch reads a function once and
//! rewrites it for each set ([`rewrite_read`]). Builds with debug
//! assertions (the tests) and fuzz builds run the full rewrite too and
//! check that both agree (`super::check_quick`).
//!
//! The steps, each in a file of its own: [`read`](mod@read) (one pass
//! over the body: blocks, logic instructions, phis, calls, every operand
//! word checked), [`resolve`](mod@resolve) (branch targets to blocks, and
//! what each logic operand, branch condition and phi pair reads), then
//! for each set of values [`fold`] (logic values, the blocks reached,
//! each phi's plan) and [`emit`](mod@emit) (the rewrite's spans and own
//! words).

use crate::module::header_word;
use crate::operands::op;
use crate::specialize::context::Context;
use crate::specialize::lattice::Val;

use super::local_ids::{StampedMap, Window};
use super::{Emitted, Rewritten};

mod emit;
mod fold;
mod read;
mod resolve;

use emit::emit;
use fold::{check_live, evaluate, plan_phis, reach};
use read::{first_result, header_walk, own_header_stays, read};
use resolve::resolve;

/// "None": no block chosen, no target.
const NONE: u32 = u32::MAX;

/// What a local id is, in [`Buffers::ids`]' values: the kind in the low two
/// bits, an index above them.
const PLAIN: usize = 0;
const LABEL: usize = 1;
const LOGIC: usize = 2;
const PHI: usize = 3;

/// The largest function body, in words, read first with a window guessed
/// around its first result ([`Window::around`], two slots a word): a
/// larger one takes the exact window at once.
const GUESSED_UP_TO: usize = 1 << 16;

/// How a block ends.
#[derive(Clone, Copy)]
enum Exit {
    /// `OpBranch` to the block of label `t`.
    Branch,
    /// `OpBranchConditional` on `cond` to `t` or `e`.
    Conditional,
    /// `OpReturn`, `OpReturnValue` or `OpUnreachable`.
    Leave,
}

/// A block of the function.
#[derive(Clone, Copy)]
struct Block {
    label: u32,
    /// Word index of its `OpLabel`.
    label_at: usize,
    /// Word index of its terminator, and just past it (its end).
    term_at: usize,
    end: usize,
    exit: Exit,
    /// The branch condition (conditional exits), and what it reads.
    cond: u32,
    test: Source,
    /// Targets: labels after the read, blocks once resolved.
    t: u32,
    e: u32,
    /// The one target a folded branch keeps ([`NONE`]: not folded).
    decided: u32,
    /// Its callees in [`Buffers::callees`], its instructions' result ids
    /// (after the label's) in [`Buffers::results`] and its marks in
    /// [`Buffers::marks`]: where each begins and ends.
    callees: (u32, u32),
    results: (u32, u32),
    marks: (u32, u32),
}

/// A logic instruction (`OpLogical*`).
#[derive(Clone, Copy)]
struct Logic {
    at: usize,
    block: u32,
    opcode: u16,
    /// What its operands read (one for `OpLogicalNot`).
    reads: [Source; 2],
    value: Val,
}

/// What a logic operand or a branch condition reads, as far as the
/// predicates' values do not matter (found once, by [`resolve()`]).
#[derive(Clone, Copy)]
enum Source {
    /// The result of the logic instruction of this index, this id.
    Logic(usize, u32),
    /// A value no predicate decides: a module-scope constant, or the id
    /// itself (or varying, for a condition).
    Fixed(Val),
    /// The module-scope value of this id, which the predicates decide: a
    /// constant, or nothing the quick way takes.
    Decided(u32),
    /// Nothing the quick way takes (for a condition: in a live block).
    Refused,
}

/// What becomes of a phi of a live block.
#[derive(Clone, Copy, PartialEq, Eq)]
enum PhiPlan {
    /// Every edge stays: as it is.
    Keep,
    /// Some edges go: the pairs of the others, as the rewrite's own.
    Drop,
    /// One value is left (or one module-scope value on every edge): the
    /// phi goes and its uses read this id.
    Fold(u32),
}

/// A phi.
#[derive(Clone, Copy)]
struct Phi {
    at: usize,
    block: u32,
    /// Its pairs in [`Buffers::pairs`]: where they begin and end.
    pairs: (u32, u32),
    plan: PhiPlan,
}

/// A phi's pair, as far as the predicates' values do not matter (found
/// by [`resolve()`]).
#[derive(Clone, Copy)]
struct Pair {
    value: u32,
    /// The block of the parent ([`NONE`]: the parent is no block).
    from: u32,
    /// The value is a logic result, a phi, a predicate or a module-scope
    /// value the lattice knows: the quick way does not take it.
    refused: bool,
    /// The value is the function's own (defined in it, or its id).
    local: bool,
}

/// An instruction the emit looks at, in the order of the function.
#[derive(Clone, Copy)]
enum Mark {
    /// The logic instruction of this index.
    Logic(usize),
    /// The phi of this index.
    Phi(usize),
    /// An ordinary instruction or `OpReturnValue` reading a phi's result.
    Reader,
}

/// The quick rewrite's working storage, kept from function to function.
#[derive(Default)]
pub(super) struct Buffers {
    /// Each local result id: its kind and index ([`PLAIN`], …).
    ids: StampedMap,
    blocks: Vec<Block>,
    logic: Vec<Logic>,
    phis: Vec<Phi>,
    /// The pairs of every phi, phi after phi.
    pairs: Vec<Pair>,
    /// `(word index, block, what)` of the instructions the emit looks at.
    marks: Vec<(usize, u32, Mark)>,
    /// How many phis of live blocks fold ([`PhiPlan::Fold`]).
    folded_phis: usize,
    /// The callee of each call in a block, in order.
    callees: Vec<u32>,
    /// The result ids of the instructions of each block after its label,
    /// in order.
    results: Vec<u32>,
    /// True when the read stopped at a result outside the window.
    spilled: bool,
    /// The blocks whose branch condition is a logic result, with the
    /// logic instruction's index (found by [`resolve()`]).
    logic_tests: Vec<(u32, usize)>,
    live: Vec<bool>,
}

impl Buffers {
    /// The callee word of each `OpFunctionCall` of the blocks the last
    /// successful read read, in order.
    pub(super) fn callees(&self) -> &[u32] {
        &self.callees
    }

    /// Empties the lists [`read()`] fills and gives them room for a
    /// function of `words` words, about as much as such functions take
    /// (the first rewrite of a run then allocates each list once instead
    /// of doubling it from empty).
    fn clear_for(&mut self, words: usize) {
        self.blocks.clear();
        self.logic.clear();
        self.phis.clear();
        self.marks.clear();
        self.callees.clear();
        self.results.clear();
        self.spilled = false;
        self.blocks.reserve(words / 16);
        self.results.reserve(words / 4);
        self.callees.reserve(words / 32);
        self.marks.reserve(words / 16);
    }
}

/// Reads the function in `words[start..end]` into `bufs`: what does not
/// depend on the predicates' values (only on which ids they are, the same
/// in every [`Context`] of a module). `None` when the full rewrite must
/// take it whatever the values.
pub(super) fn read_function(
    words: &[u32],
    ctx: &Context<'_>,
    start: usize,
    end: usize,
    bufs: &mut Buffers,
) -> Option<()> {
    let bound = ctx.m.bound();
    let first = start + (words[start] >> 16).max(1) as usize;
    let end_at = end - 1;
    if words[end_at] != header_word(1, op::FunctionEnd) {
        return None;
    }
    // The window guessed around the first result costs nothing to find;
    // a result outside it sends the read back to the header walk's.
    let guess = first_result(words, first, end_at)
        .filter(|_| end_at - first <= GUESSED_UP_TO)
        .map(|id| Window::around(id, end_at - first));
    let exact = || header_walk(words, first, end_at);
    let window = guess.or_else(exact)?;
    if read(words, ctx, first, end_at, window, bound, bufs).is_none() {
        if !(bufs.spilled && guess.is_some()) {
            return None;
        }
        read(words, ctx, first, end_at, exact()?, bound, bufs)?;
    }
    own_header_stays(&words[start..first], ctx, &bufs.ids)?;
    resolve(words, ctx, start, bufs)
}

/// The rewrite for `ctx`'s values of the function [`read_function`] read
/// into `bufs` (it stays read: a batch rewrites it for each set of
/// values), or `None` when the full rewrite must do it.
pub(super) fn rewrite_read(
    words: &[u32],
    ctx: &Context<'_>,
    start: usize,
    end: usize,
    bufs: &mut Buffers,
    emitted: &mut Emitted,
) -> Option<Rewritten> {
    evaluate(ctx, bufs)?;
    reach(ctx, bufs)?;
    check_live(bufs)?;
    plan_phis(words, bufs)?;
    Some(emit(words, start, end, bufs, emitted))
}

/// The words of the instruction at word `at`.
fn instruction(words: &[u32], at: usize) -> &[u32] {
    &words[at..at + (words[at] >> 16) as usize]
}
