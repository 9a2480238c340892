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

use crate::module::header_word;
use crate::operands::{flat_ids, op};

use super::super::context::Context;
use super::super::lattice::{Val, is_logic, meet_logic};
use super::decode::{OpInfo, op_infos};
use super::local_ids::{Define, Slot, StampedMap, StampedSlots, Window};
use super::{Emitted, Rewritten, Writing};

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
/// predicates' values do not matter (found once, by [`resolve`]).
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
/// by [`resolve`]).
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
    /// logic instruction's index (found by [`resolve`]).
    logic_tests: Vec<(u32, usize)>,
    live: Vec<bool>,
}

impl Buffers {
    /// The callee word of each `OpFunctionCall` of the blocks the last
    /// successful read read, in order.
    pub(super) fn callees(&self) -> &[u32] {
        &self.callees
    }

    /// Empties the lists [`read`] fills and gives them room for a
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

/// The first result id of a function body at word `first` (a
/// parameter's or the first label's), if it starts with either.
fn first_result(words: &[u32], first: usize, end_at: usize) -> Option<u32> {
    match *words.get(first..end_at)? {
        [head, _, id, ..] if head == header_word(3, op::FunctionParameter) => Some(id),
        [head, id, ..] if head == header_word(2, op::Label) => Some(id),
        _ => None,
    }
}

/// Walks the headers from word `at` to `end`: the window of all result
/// ids ([`Window`]). `None` at an opcode [`op_infos`] does not describe
/// (the read does not take it).
#[inline(never)]
fn header_walk(words: &[u32], mut at: usize, end: usize) -> Option<Window> {
    let infos = op_infos();
    let (mut lo, mut hi) = (u32::MAX, 0u32);
    let mut count = 1;
    let body = words.get(..end)?;
    while let Some(&head) = body.get(at) {
        let len = (head >> 16) as usize;
        let p = infos.get(head as u16 as usize)?.result as usize;
        count += 1;
        if p > 0 && p < len {
            let id = *body.get(at + p)?;
            lo = lo.min(id);
            hi = hi.max(id);
        }
        at += len.max(1);
    }
    Some(Window::new(lo, hi, count))
}

/// Reads `x`, an operand word of an ordinary instruction or of
/// `OpReturnValue`, as a local id of the function's map `ids`: `None` for
/// a logic result or a word that does not [`stay`](Context::stays), true for a
/// phi's result. An id of the window with no value yet is marked read: a
/// logic instruction or phi defining it later is refused.
#[inline(always)]
fn read_word(ids: &mut StampedSlots<'_>, ctx: &Context<'_>, x: u32) -> Option<bool> {
    // (An id with a value was checked where it was defined.)
    match ids.view().slot(x) {
        Slot::Value(v) if v & 3 == LOGIC => None,
        Slot::Value(v) => Some(v & 3 == PHI),
        _ if !ctx.stays(x) => None,
        Slot::Empty => {
            ids.mark_read(x);
            Some(false)
        }
        Slot::Outside => Some(false),
    }
}

/// Reads the instructions in `words[at..end_at]` (`end_at`: the
/// `OpFunctionEnd`), their results mapped in `window`: the blocks, logic
/// instructions, phis and calls; checks each operand word is an id in
/// range that the full rewrite would leave alone. `None` at anything
/// else, and at a result outside the window (`bufs.spilled`).
#[inline(never)]
fn read(
    words: &[u32],
    ctx: &Context<'_>,
    mut at: usize,
    end_at: usize,
    window: Window,
    bound: u32,
    bufs: &mut Buffers,
) -> Option<()> {
    bufs.clear_for(end_at - at);
    bufs.ids.reset(window);
    let Buffers {
        ids,
        blocks,
        logic,
        phis,
        marks,
        callees,
        results,
        spilled,
        ..
    } = bufs;
    let mut r = Reading {
        ctx,
        bound,
        infos: op_infos(),
        ids: ids.slots_mut(),
        blocks,
        logic,
        phis,
        marks,
        callees,
        results,
        spilled,
        block: NONE,
        ended: true,
    };
    // (A cursor over the rest of the body: one bounds check a step.)
    let mut rest = words.get(at..end_at)?;
    while let Some(&head) = rest.first() {
        let (len, opcode) = ((head >> 16) as usize, head as u16);
        let (iw, tail) = rest.split_at_checked(len)?;
        rest = tail;
        if r.ended && opcode != op::Label && r.block != NONE {
            // Nothing but a label follows a terminator.
            return None;
        }
        match opcode {
            op::Label => r.label(at, iw)?,
            op::Branch | op::BranchConditional | op::Return | op::ReturnValue | op::Unreachable => {
                r.terminator(at, iw, opcode)?
            }
            op::Phi => r.phi(at, iw)?,
            o if is_logic(o) => r.logic(at, iw, opcode)?,
            _ => r.ordinary(at, iw, opcode)?,
        }
        at += len;
    }
    (r.ended && r.block != NONE).then_some(())
}

/// True when `x` is an id in range (below the module's `bound`).
#[inline(always)]
fn in_range(x: u32, bound: u32) -> bool {
    // (One comparison: 0 wraps to the largest word, which no bound
    // exceeds.)
    x.wrapping_sub(1) < bound.saturating_sub(1)
}

/// Where [`read`] is in a function, and the lists it fills (those of
/// [`Buffers`], each borrowed on its own, so that the map's parts stay in
/// registers while the lists are written): one step per kind of
/// instruction, each `None` at what the quick way does not take.
struct Reading<'a, 'c> {
    ctx: &'a Context<'c>,
    /// The module's id bound.
    bound: u32,
    infos: &'static [OpInfo],
    ids: StampedSlots<'a>,
    blocks: &'a mut Vec<Block>,
    logic: &'a mut Vec<Logic>,
    phis: &'a mut Vec<Phi>,
    marks: &'a mut Vec<(usize, u32, Mark)>,
    callees: &'a mut Vec<u32>,
    results: &'a mut Vec<u32>,
    spilled: &'a mut bool,
    /// The block being read ([`NONE`] before the first label: only
    /// ordinary instructions, the parameters, may come), and whether it
    /// has ended.
    block: u32,
    ended: bool,
}

impl Reading<'_, '_> {
    /// Gives `id` the value `value` in the map: `None` when it has one
    /// already, or is outside the window (then [`Buffers::spilled`]); and
    /// for a logic result or a phi's read before (an ordinary instruction
    /// read before the logic instruction or phi defining one of its
    /// words: the full rewrite may replace it).
    #[inline(always)]
    fn define(&mut self, id: u32, value: usize) -> Option<()> {
        match self.ids.define(id, value) {
            Define::New => Some(()),
            Define::AfterRead => (value & 3 < LOGIC).then_some(()),
            Define::Taken => None,
            Define::Outside => {
                *self.spilled = true;
                None
            }
        }
    }

    /// An `OpLabel` at word `at`: a block begins. (A label whose id a
    /// logic instruction defines too is refused at the second
    /// definition.)
    #[inline(always)]
    fn label(&mut self, at: usize, iw: &[u32]) -> Option<()> {
        let &[_, label] = iw else {
            return None;
        };
        if !self.ended || !self.ctx.stays(label) {
            return None;
        }
        self.define(label, (self.blocks.len() << 2) | LABEL)?;
        self.block = self.blocks.len() as u32;
        self.blocks.push(Block {
            label,
            label_at: at,
            term_at: 0,
            end: 0,
            exit: Exit::Leave,
            cond: 0,
            t: NONE,
            e: NONE,
            test: Source::Refused,
            decided: NONE,
            callees: (self.callees.len() as u32, 0),
            results: (self.results.len() as u32, 0),
            marks: (self.marks.len() as u32, 0),
        });
        self.ended = false;
        Some(())
    }

    /// A terminator (`opcode`) at word `at`: the block ends. (A branch
    /// target that is no label of the function, a logic result say, is
    /// refused by [`resolve`].)
    #[inline(always)]
    fn terminator(&mut self, at: usize, iw: &[u32], opcode: u16) -> Option<()> {
        let (ctx, bound, block) = (self.ctx, self.bound, self.block);
        let exit = match (opcode, iw) {
            (op::Branch, &[_, t]) if ctx.stays(t) => (Exit::Branch, 0, t, NONE),
            (op::BranchConditional, &[_, cond, t, e])
                if in_range(cond, bound) && t != e && ctx.stays(t) && ctx.stays(e) =>
            {
                (Exit::Conditional, cond, t, e)
            }
            (op::Return | op::Unreachable, &[_]) => (Exit::Leave, 0, NONE, NONE),
            (op::ReturnValue, &[_, value]) => {
                if read_word(&mut self.ids, ctx, value)? {
                    self.marks.push((at, block, Mark::Reader));
                }
                (Exit::Leave, 0, NONE, NONE)
            }
            _ => return None,
        };
        let (callees, results, marks) = (self.callees.len(), self.results.len(), self.marks.len());
        let blk = self.blocks.last_mut()?;
        (blk.exit, blk.cond, blk.t, blk.e, blk.term_at, blk.end) =
            (exit.0, exit.1, exit.2, exit.3, at, at + iw.len());
        blk.callees.1 = callees as u32;
        blk.results.1 = results as u32;
        blk.marks.1 = marks as u32;
        self.ended = true;
        Some(())
    }

    /// An `OpPhi` at word `at`: its words ids in range, none a predicate.
    #[inline(always)]
    fn phi(&mut self, at: usize, iw: &[u32]) -> Option<()> {
        let len = iw.len();
        let flat = len >= 3 && (len - 3).is_multiple_of(2);
        if self.block == NONE || !flat || !iw[1..].iter().all(|&x| self.ctx.stays(x)) {
            return None;
        }
        self.define(iw[2], self.phis.len() << 2 | PHI)?;
        self.marks
            .push((at, self.block, Mark::Phi(self.phis.len())));
        self.results.push(iw[2]);
        self.phis.push(Phi {
            at,
            block: self.block,
            pairs: (0, 0),
            plan: PhiPlan::Keep,
        });
        Some(())
    }

    /// A logic instruction (`opcode`) at word `at`: it may read
    /// predicates, never define one.
    #[inline(always)]
    fn logic(&mut self, at: usize, iw: &[u32], opcode: u16) -> Option<()> {
        let flat = self.infos.get(opcode as usize)?.flat_min as usize == iw.len();
        if self.block == NONE
            || !flat
            || !iw[3..].iter().all(|&x| in_range(x, self.bound))
            || !self.ctx.stays(iw[1])
            || !self.ctx.stays(iw[2])
        {
            return None;
        }
        self.define(iw[2], self.logic.len() << 2 | LOGIC)?;
        self.marks
            .push((at, self.block, Mark::Logic(self.logic.len())));
        self.results.push(iw[2]);
        self.logic.push(Logic {
            at,
            block: self.block,
            opcode,
            reads: [Source::Refused; 2],
            value: Val::Top,
        });
        Some(())
    }

    /// Any other instruction (`opcode`) at word `at`: copied as it is
    /// when every word after its first is an id in range the rewrite
    /// leaves alone (a reader of a phi is marked: the phi may fold).
    #[inline(always)]
    fn ordinary(&mut self, at: usize, iw: &[u32], opcode: u16) -> Option<()> {
        let info = self.infos.get(opcode as usize)?;
        let plain =
            info.plain && iw.len() >= info.flat_min as usize && (!info.exact || is_flat(iw));
        let result = match info.result {
            0 => 0,
            p => *iw.get(p as usize)?,
        };
        if !plain {
            return None;
        }
        // (Checked and defined first, so that its own word reads as a
        // local id. A result of 0, which no id is, does not stay.)
        if info.result != 0 {
            if !self.ctx.stays(result) {
                return None;
            }
            self.define(result, PLAIN)?;
        }
        // (Its result, just defined, reads as itself: passed over where it
        // follows its type, as in most instructions.)
        let (first, rest) = match (info.result, iw) {
            (2, [_, ty, _, rest @ ..]) => (Some(ty), rest),
            _ => (None, &iw[1..]),
        };
        let mut reads_phi = match first {
            Some(&ty) => read_word(&mut self.ids, self.ctx, ty)?,
            None => false,
        };
        for &x in rest {
            reads_phi |= read_word(&mut self.ids, self.ctx, x)?;
        }
        if reads_phi {
            // (Before the first label, the full rewrite would rewrite it
            // as part of the function's head.)
            if self.block == NONE {
                return None;
            }
            self.marks.push((at, self.block, Mark::Reader));
        }
        if self.block != NONE {
            if result != 0 {
                self.results.push(result);
            }
            if opcode == op::FunctionCall {
                self.callees.push(iw[3]);
            }
        }
        Some(())
    }
}

/// True when `iw`, of an opcode whose words must be looked at to know
/// ([`OpInfo::exact`](super::decode::OpInfo)), has a flat layout (out of
/// [`read`]'s loop: a load or store with a memory-access mask, a few a
/// function).
#[inline(never)]
fn is_flat(iw: &[u32]) -> bool {
    flat_ids(iw).is_some()
}

/// Checks the `OpFunction` (`header`) has its five words (the full
/// rewrite reads any more as ids it may replace) and reads ids in range
/// that the rewrite leaves alone, and that no instruction of the body
/// defines its id again.
#[inline(never)]
fn own_header_stays(header: &[u32], ctx: &Context<'_>, ids: &StampedMap) -> Option<()> {
    let [_, ty, id, _, fn_ty] = *header else {
        return None;
    };
    let kept = |x: u32| ctx.stays(x) && ids.get(x).is_none_or(|v| v & 3 < LOGIC);
    (kept(ty) && kept(id) && kept(fn_ty) && ids.get(id).is_none()).then_some(())
}

/// Resolves branch targets to blocks of the function, and finds what
/// each logic operand and branch condition reads ([`Source`]) and what
/// each phi pair is ([`Pair`]). `None` for a logic instruction that reads
/// a later logic result or a phi, as [`evaluate`] would find for any
/// values.
#[inline(never)]
fn resolve(words: &[u32], ctx: &Context<'_>, start: usize, bufs: &mut Buffers) -> Option<()> {
    let Buffers {
        ids,
        blocks,
        logic,
        phis,
        pairs,
        logic_tests,
        ..
    } = bufs;
    let block_of = |label: u32| match ids.get(label) {
        Some(v) if v & 3 == LABEL => Some((v >> 2) as u32),
        _ => None,
    };
    // Any id but a logic result or a phi, as the lattice reads it: a
    // module-scope value (even where a function redefines its id), else
    // itself (`unknown`).
    let other = |x: u32, unknown: Val| {
        if ctx.may_replace(x) {
            return Source::Decided(x);
        }
        Source::Fixed(ctx.fixed_val(x).unwrap_or(unknown))
    };
    logic_tests.clear();
    for (k, b) in blocks.iter_mut().enumerate() {
        if b.t != NONE {
            b.t = block_of(b.t)?;
        }
        if b.e != NONE {
            b.e = block_of(b.e)?;
        }
        if let Exit::Conditional = b.exit {
            b.test = match ids.get(b.cond).map(|v| (v & 3, v >> 2)) {
                Some((LOGIC, i)) => {
                    logic_tests.push((k as u32, i));
                    Source::Logic(i, b.cond)
                }
                Some((PHI, _)) => Source::Refused,
                _ => other(b.cond, Val::Varying),
            };
        }
    }
    let own_id = words[start + 2];
    pairs.clear();
    for phi in phis.iter_mut() {
        let w = instruction(words, phi.at);
        let first = pairs.len() as u32;
        for pair in w[3..].chunks(2) {
            let (value, parent) = (pair[0], pair[1]);
            let tracked = ids.get(value).is_some_and(|x| x & 3 >= LOGIC);
            pairs.push(Pair {
                value,
                from: block_of(parent).unwrap_or(NONE),
                refused: tracked || ctx.may_replace(value) || ctx.fixed_val(value).is_some(),
                local: value == own_id || ids.get(value).is_some(),
            });
        }
        phi.pairs = (first, pairs.len() as u32);
    }
    for j in 0..logic.len() {
        let w = &words[logic[j].at..];
        let operands = if logic[j].opcode == op::LogicalNot {
            1
        } else {
            2
        };
        for k in 0..operands {
            let x = w[3 + k];
            logic[j].reads[k] = match ids.get(x).map(|v| (v & 3, v >> 2)) {
                // (A later logic result, or a phi: never known here.)
                Some((LOGIC, i)) if i < j => Source::Logic(i, x),
                Some((LOGIC | PHI, _)) => return None,
                _ => other(x, Val::Same(x)),
            };
        }
    }
    Some(())
}

/// The value of every logic instruction, as the full rewrite's lattice
/// finds it where its operands' blocks run: a constant, or varying. `None`
/// for a logic result that folds to another id, or reads a predicate and
/// stays varying.
#[inline(never)]
fn evaluate(ctx: &Context<'_>, bufs: &mut Buffers) -> Option<()> {
    let logic = &mut bufs.logic;
    for j in 0..logic.len() {
        let Logic { opcode, reads, .. } = logic[j];
        let mut watched = false;
        let mut operand = |source: Source| -> Option<Val> {
            match source {
                // (A varying result stands for itself, as in the lattice.)
                Source::Logic(i, x) => match logic[i].value {
                    Val::Varying => Some(Val::Same(x)),
                    v => {
                        watched = true;
                        Some(v)
                    }
                },
                Source::Fixed(v) => Some(v),
                Source::Decided(x) => match ctx.global_val(x) {
                    Some(v @ Val::Const(_)) => {
                        watched = true;
                        Some(v)
                    }
                    _ => None,
                },
                Source::Refused => None,
            }
        };
        let a = operand(reads[0])?;
        let value = if opcode == op::LogicalNot {
            match a {
                Val::Const(x) => Val::Const(!x),
                _ => Val::Varying,
            }
        } else {
            meet_logic(opcode, a, operand(reads[1])?)
        };
        match value {
            Val::Const(_) => {}
            // Kept as it is only when it reads nothing the rewrite changes.
            Val::Varying if !watched => {}
            _ => return None,
        }
        logic[j].value = value;
    }
    Some(())
}

/// The value of a branch condition that reads `test`: a constant folds
/// it. `None` when the full rewrite would see anything but a constant or
/// a value it cannot know.
#[inline]
fn condition(ctx: &Context<'_>, logic: &[Logic], test: Source) -> Option<Val> {
    match test {
        Source::Logic(i, _) => Some(logic[i].value),
        Source::Fixed(v) => Some(v),
        Source::Decided(x) => match ctx.global_val(x) {
            Some(v @ Val::Const(_)) => Some(v),
            _ => None,
        },
        Source::Refused => None,
    }
}

/// Marks the blocks the entry reaches, folding each conditional branch on
/// a constant: the executable blocks of the full rewrite's propagation.
/// One pass in block order, as a block is reached only from an earlier
/// one when each live block follows its dominator in the input order (the
/// full rewrite then keeps that order). `None` at a block reached only
/// through a kept edge going back (the order would change) and at a
/// condition the full rewrite would not see as a constant or unknowable.
#[inline(never)]
fn reach(ctx: &Context<'_>, bufs: &mut Buffers) -> Option<()> {
    let Buffers {
        blocks,
        live,
        logic,
        ..
    } = bufs;
    live.clear();
    live.resize(blocks.len(), false);
    *live.first_mut()? = true;
    for (b, blk) in blocks.iter_mut().enumerate() {
        blk.decided = NONE;
        if !live[b] {
            continue;
        }
        let (t, e) = match blk.exit {
            Exit::Leave => continue,
            Exit::Branch => (blk.t, NONE),
            Exit::Conditional => match condition(ctx, logic, blk.test)? {
                Val::Const(c) => {
                    blk.decided = if c { blk.t } else { blk.e };
                    (blk.decided, NONE)
                }
                _ => (blk.t, blk.e),
            },
        };
        reach_edge(live, b, t)?;
        if e != NONE {
            reach_edge(live, b, e)?;
        }
    }
    Some(())
}

/// Marks block `t`, a target of live block `b`, live. (Blocks up to `b`
/// are settled: `None` when `t` is one of them not yet live, which a
/// later block could reach only going back.)
#[inline(always)]
fn reach_edge(live: &mut [bool], b: usize, t: u32) -> Option<()> {
    let t = t as usize;
    if t > b {
        *live.get_mut(t)? = true;
        Some(())
    } else {
        live.get(t).copied()?.then_some(())
    }
}

/// True when the edge `from → to` stays (as the full rewrite keeps edges).
fn kept_edge(bufs: &Buffers, from: usize, to: u32) -> bool {
    let b = &bufs.blocks[from];
    bufs.live[from]
        && match (b.decided, b.exit) {
            (NONE, Exit::Conditional) => b.t == to || b.e == to,
            (NONE, Exit::Branch) => b.t == to,
            (NONE, Exit::Leave) => false,
            (d, _) => d == to,
        }
}

/// Checks what only liveness tells: in a live block, a logic instruction
/// reads logic results of live blocks only, and a branch condition is
/// such a result (only the blocks whose condition is a logic result are
/// looked at: [`Buffers::logic_tests`]).
#[inline(never)]
fn check_live(bufs: &Buffers) -> Option<()> {
    let (logic, live) = (&bufs.logic, &bufs.live);
    let reads_dead = |source: Source| match source {
        Source::Logic(i, _) => !live[logic[i].block as usize],
        _ => false,
    };
    for l in logic {
        if live[l.block as usize] && l.reads.into_iter().any(reads_dead) {
            return None;
        }
    }
    for &(b, i) in &bufs.logic_tests {
        if live[b as usize] && !live[logic[i].block as usize] {
            return None;
        }
    }
    Some(())
}

/// Decides what becomes of each phi of a live block, as the full
/// rewrite's propagation and emit do: kept whole, its dead edges' pairs
/// dropped, or folded into the one value left (a value reached on several
/// edges only when it is not the function's own: [`PhiPlan`]). `None` for
/// a phi naming a parent that is no block, reading a logic result, a phi,
/// a constant or a value the rewrite changes on a kept edge ([`Pair`]),
/// or left with no edge; and for a reader of a folded phi without a flat
/// layout.
#[inline(never)]
fn plan_phis(words: &[u32], bufs: &mut Buffers) -> Option<()> {
    bufs.folded_phis = 0;
    for j in 0..bufs.phis.len() {
        let Phi { block, pairs, .. } = bufs.phis[j];
        bufs.phis[j].plan = PhiPlan::Keep;
        if !bufs.live[block as usize] {
            continue;
        }
        let pairs = &bufs.pairs[pairs.0 as usize..pairs.1 as usize];
        let (mut kept, mut first, mut local, mut same) = (0, 0, false, true);
        for p in pairs {
            if p.from == NONE {
                return None;
            }
            if !kept_edge(bufs, p.from as usize, block) {
                continue;
            }
            if p.refused {
                return None;
            }
            if kept == 0 {
                (first, local) = (p.value, p.local);
            }
            same &= p.value == first;
            kept += 1;
        }
        let plan = match kept {
            0 => return None,
            _ if same && (kept == 1 || !local) => {
                bufs.folded_phis += 1;
                PhiPlan::Fold(first)
            }
            k if k == pairs.len() => PhiPlan::Keep,
            _ => PhiPlan::Drop,
        };
        bufs.phis[j].plan = plan;
    }
    if bufs.folded_phis == 0 {
        return Some(());
    }
    for &(at, block, mark) in &bufs.marks {
        if matches!(mark, Mark::Reader) && bufs.live[block as usize] {
            let iw = instruction(words, at);
            if iw.iter().any(|&x| folded(bufs, x).is_some()) && flat_ids(iw).is_none() {
                return None;
            }
        }
    }
    Some(())
}

/// The id that replaces `x` when it is a folded phi's result.
#[inline]
fn folded(bufs: &Buffers, x: u32) -> Option<u32> {
    match bufs.ids.get(x) {
        Some(v) if v & 3 == PHI => match bufs.phis[v >> 2].plan {
            PhiPlan::Fold(id) => Some(id),
            _ => None,
        },
        _ => None,
    }
}

/// Writes the rewrite: the live blocks as they are, but for each folded
/// branch (an `OpBranch` of the rewrite's own) and each logic instruction
/// that became a constant (gone); and the ids of what went. The blocks
/// lie one after the other from the first label to the `OpFunctionEnd`
/// (the read saw nothing but a label follow a terminator), so the input
/// and the callees are taken in runs broken only where something goes or
/// changes: a block that goes, a folded branch, a marked instruction that
/// changes.
#[inline(never)]
fn emit(
    words: &[u32],
    start: usize,
    end: usize,
    bufs: &Buffers,
    emitted: &mut Emitted,
) -> Rewritten {
    let mut out = Writing {
        read_callees: Some(&bufs.callees),
        ..Writing::new(emitted)
    };
    let blocks = &bufs.blocks;
    // (The last block ends at the `OpFunctionEnd`.)
    debug_assert_eq!(blocks.last().map(|b| b.end), Some(end - 1));
    // Room for what the read bounds (the storage is kept from function to
    // function, so only a run's first rewrite grows it): a span or two and
    // a folded branch a block, its calls, the labels and results of dead
    // blocks.
    out.spans.reserve(2 * blocks.len() + 2);
    out.own.reserve(2 * blocks.len());
    out.callees.reserve(bufs.callees.len());
    out.removed_ids.reserve(blocks.len() + bufs.results.len());
    let range = |(from, to): (u32, u32)| from as usize..to as usize;
    // Where the input not yet taken starts, and the callees not yet taken.
    let (mut run, mut callees_from) = (start, 0);
    for (blk, &live) in blocks.iter().zip(&bufs.live) {
        if !live {
            out.take_input(run..blk.label_at);
            run = blk.end;
            let (first, past) = (blk.callees.0 as usize, blk.callees.1 as usize);
            // (A few ids at a time: pushed, not copied by `memcpy`.)
            for &callee in &bufs.callees[callees_from..first] {
                out.callees.push(callee);
            }
            callees_from = past;
            out.blocks_removed += 1;
            out.removed_ids.push(blk.label);
            for &id in &bufs.results[range(blk.results)] {
                out.removed_ids.push(id);
            }
            continue;
        }
        // (Most blocks have no marks.)
        let marks = if blk.marks.0 < blk.marks.1 {
            &bufs.marks[range(blk.marks)]
        } else {
            &[]
        };
        for &(at, block, mark) in marks {
            if changes(words, at, mark, bufs) {
                let iw = instruction(words, at);
                out.take_input(run..at);
                write_change(iw, mark, block, bufs, &mut out);
                run = at + iw.len();
            }
        }
        if blk.decided != NONE {
            out.take_input(run..blk.term_at);
            let own = out.own.len();
            out.own.extend([
                header_word(2, op::Branch),
                blocks[blk.decided as usize].label,
            ]);
            out.take_own(own);
            out.branches_folded += 1;
            run = blk.end;
        }
    }
    out.take_input(run..end);
    out.callees.extend_from_slice(&bufs.callees[callees_from..]);
    out.finish(emitted)
}

/// True when the emit changes the marked instruction `iw` of a live
/// block: a logic result that became a constant, a phi that loses pairs
/// or goes, a reader of a phi that goes. (The instruction is at word
/// `at`; only a reader's words are looked at, when a phi folds.)
fn changes(words: &[u32], at: usize, mark: Mark, bufs: &Buffers) -> bool {
    match mark {
        Mark::Logic(j) => matches!(bufs.logic[j].value, Val::Const(_)),
        Mark::Phi(j) => bufs.phis[j].plan != PhiPlan::Keep,
        Mark::Reader => {
            bufs.folded_phis > 0 && {
                let iw = instruction(words, at);
                read_positions(iw).any(|p| folded(bufs, iw[p]).is_some())
            }
        }
    }
}

/// The words of the instruction at word `at`.
fn instruction(words: &[u32], at: usize) -> &[u32] {
    &words[at..at + (words[at] >> 16) as usize]
}

/// The words of `iw` that the full rewrite reads as ids and may replace:
/// a flat layout's uses (none without a flat layout).
fn read_positions(iw: &[u32]) -> impl Iterator<Item = usize> {
    flat_ids(iw)
        .map(|flat| (flat.first_use..flat.checked_end).chain(flat.maybe_from..iw.len()))
        .into_iter()
        .flatten()
}

/// Writes what becomes of the marked instruction `iw` of live block
/// `block` when it [`changes`]: nothing and its result's id gone, its
/// phi pairs of kept edges, or its words reading each folded phi's value
/// (where the full rewrite reads ids: a flat layout's uses).
fn write_change(iw: &[u32], mark: Mark, block: u32, bufs: &Buffers, out: &mut Writing) {
    match mark {
        Mark::Logic(_) => out.removed_ids.push(iw[2]),
        Mark::Phi(j) => {
            if let PhiPlan::Fold(_) = bufs.phis[j].plan {
                out.removed_ids.push(iw[2]);
                out.phis_folded += 1;
                return;
            }
            let start = out.own.len();
            out.own.extend_from_slice(&iw[..3]);
            for pair in iw[3..].chunks(2) {
                let from = bufs.ids.get(pair[1]).map_or(0, |p| p >> 2);
                if kept_edge(bufs, from, block) {
                    out.own.extend_from_slice(pair);
                }
            }
            out.own[start] = header_word(out.own.len() - start, op::Phi);
            out.take_own(start);
        }
        Mark::Reader => {
            let start = out.own.len();
            out.own.extend_from_slice(iw);
            for p in read_positions(iw) {
                if let Some(id) = folded(bufs, iw[p]) {
                    out.own[start + p] = id;
                }
            }
            out.take_own(start);
        }
    }
}
