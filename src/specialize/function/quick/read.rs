//! The read of a predicated function: one pass over its body that
//! records the blocks, logic instructions, phis and calls, and checks
//! every other operand word is an id in range the full rewrite leaves
//! alone. It depends on which ids the predicates are, not on their
//! values, so a batch reads a function once.

use crate::module::header_word;
use crate::operands::{flat_ids, op};
use crate::specialize::context::Context;
use crate::specialize::function::decode::{OpInfo, op_infos};
use crate::specialize::function::local_ids::{Define, Slot, StampedMap, StampedSlots, Window};
use crate::specialize::lattice::{Val, is_logic};

use super::{
    Block, Buffers, Exit, LABEL, LOGIC, Logic, Mark, NONE, PHI, PLAIN, Phi, PhiPlan, Source,
};

/// The first result id of a function body at word `first` (a
/// parameter's or the first label's), if it starts with either.
pub(super) fn first_result(words: &[u32], first: usize, end_at: usize) -> Option<u32> {
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
pub(super) fn header_walk(words: &[u32], mut at: usize, end: usize) -> Option<Window> {
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
pub(super) fn read(
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
    /// refused by [`resolve()`](super::resolve()).)
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
/// ([`OpInfo::exact`]), has a flat layout (out of [`read`]'s loop: a load
/// or store with a memory-access mask, a few a function).
///
/// [`OpInfo::exact`]: crate::specialize::function::decode::OpInfo
#[inline(never)]
fn is_flat(iw: &[u32]) -> bool {
    flat_ids(iw).is_some()
}

/// Checks the `OpFunction` (`header`) has its five words (the full
/// rewrite reads any more as ids it may replace) and reads ids in range
/// that the rewrite leaves alone, and that no instruction of the body
/// defines its id again.
#[inline(never)]
pub(super) fn own_header_stays(header: &[u32], ctx: &Context<'_>, ids: &StampedMap) -> Option<()> {
    let [_, ty, id, _, fn_ty] = *header else {
        return None;
    };
    let kept = |x: u32| ctx.stays(x) && ids.get(x).is_none_or(|v| v & 3 < LOGIC);
    (kept(ty) && kept(id) && kept(fn_ty) && ids.get(id).is_none()).then_some(())
}
