//! Sparse conditional constant propagation over one function: which blocks
//! and edges can run, and what each boolean (and selected) value is, given
//! the predicates' values.

use crate::error::{Error, Result};
use crate::operands::op;

use super::super::lattice::{Val, is_logic, meet_logic};
use super::decode::{Func, NO_BLOCK, is_tracked, structure};
use crate::specialize::context::Context;

/// "No block": an undecided terminator in [`Sccp::decided`].
pub(super) const NONE: usize = usize::MAX;

/// The propagation's state: lattice values, executable blocks and edges,
/// and the worklists.
pub(super) struct Sccp<'a, 'm> {
    pub(super) f: &'a Func<'m>,
    pub(super) ctx: &'a Context<'a>,
    /// The lattice value of each tracked id, at its defining noted
    /// instruction's index (`Top` until set; a set value is never `Top`).
    pub(super) lat: Vec<Val>,
    /// The ids whose lattice value was set, in the order first set.
    pub(super) lat_ids: Vec<u32>,
    pub(super) exec_block: Vec<bool>,
    /// Executable flag of each CFG edge, indexed like `Func::succ_list`.
    pub(super) exec_edge: Vec<bool>,
    block_wl: Vec<usize>,
    value_wl: Vec<u32>,
    /// Per block: the one successor a folded terminator keeps (by block),
    /// or [`NONE`].
    pub(super) decided: Vec<usize>,
    /// The function's name, for errors.
    pub(super) fname: &'a str,
}

/// The allocations of an [`Sccp`], kept between functions.
#[derive(Default)]
pub(super) struct Buffers {
    lat: Vec<Val>,
    lat_ids: Vec<u32>,
    exec_block: Vec<bool>,
    exec_edge: Vec<bool>,
    block_wl: Vec<usize>,
    value_wl: Vec<u32>,
    decided: Vec<usize>,
}

/// `slot`'s vector, taken out and set to `n` copies of `value`.
fn filled<T: Clone>(slot: &mut Vec<T>, n: usize, value: T) -> Vec<T> {
    let mut v = std::mem::take(slot);
    v.clear();
    v.resize(n, value);
    v
}

impl<'a, 'm> Sccp<'a, 'm> {
    /// The initial state for `f`, in `bufs`' storage: nothing executable,
    /// every value `Top`.
    pub(super) fn new(
        f: &'a Func<'m>,
        ctx: &'a Context<'a>,
        fname: &'a str,
        bufs: &mut Buffers,
    ) -> Self {
        let (n, noted) = (f.blocks.len(), f.noted.len());
        let mut s = Sccp {
            f,
            ctx,
            lat: filled(&mut bufs.lat, noted, Val::Top),
            lat_ids: filled(&mut bufs.lat_ids, 0, 0),
            exec_block: filled(&mut bufs.exec_block, n, false),
            exec_edge: filled(&mut bufs.exec_edge, f.succ_list.len(), false),
            block_wl: filled(&mut bufs.block_wl, 0, 0),
            value_wl: filled(&mut bufs.value_wl, 0, 0),
            decided: filled(&mut bufs.decided, n, NONE),
            fname,
        };
        // Room, once, for the lists of a typical run (a block is queued
        // once; a value is set at most twice, `Top` to known to `Varying`,
        // and only noted instructions have values), rather than growing
        // them step by step in the first function of a run.
        s.block_wl.reserve(n);
        s.lat_ids.reserve(noted);
        s.value_wl.reserve(2 * noted);
        s
    }

    /// Gives the storage back for the next function.
    pub(super) fn recycle(self, bufs: &mut Buffers) {
        *bufs = Buffers {
            lat: self.lat,
            lat_ids: self.lat_ids,
            exec_block: self.exec_block,
            exec_edge: self.exec_edge,
            block_wl: self.block_wl,
            value_wl: self.value_wl,
            decided: self.decided,
        };
    }

    /// The lattice value of an operand.
    #[inline(always)]
    fn value(&self, id: u32) -> Val {
        if let Some(d) = self.f.noted_def(id) {
            match self.lat[d] {
                Val::Varying => return Val::Same(id),
                Val::Top if is_tracked(self.f.noted[d].inst.opcode) => return Val::Top,
                Val::Top => {}
                other => return other,
            }
        }
        match self.ctx.global_val(id) {
            Some(v) => v,
            None => Val::Same(id),
        }
    }

    /// Propagates from the entry block to a fixpoint.
    pub(super) fn run(&mut self) -> Result<()> {
        self.exec_block[0] = true;
        self.block_wl.push(0);
        while !self.block_wl.is_empty() || !self.value_wl.is_empty() {
            while let Some(b) = self.block_wl.pop() {
                // Only the tracked instructions and the terminator have
                // anything to evaluate.
                let noted = self.f.block_noted(b);
                let end = noted.end;
                for k in noted {
                    if is_tracked(self.f.noted[k].inst.opcode) {
                        self.visit(k).map_err(|label| self.bad_parent(k, label))?;
                    } else if k + 1 == end {
                        self.visit_terminator(k);
                    }
                }
            }
            while let Some(id) = self.value_wl.pop() {
                for &u in self.f.users(id) {
                    let b = self.f.noted[u as usize].block;
                    if b != NO_BLOCK && self.exec_block[b] {
                        let k = u as usize;
                        self.visit(k).map_err(|label| self.bad_parent(k, label))?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Lowers `id`'s value to `new` (two different known values meet at
    /// `Varying`) and queues its users when it changed.
    #[inline(always)]
    fn set(&mut self, id: u32, new: Val) {
        // `id` is the result of the instruction being visited: defined here.
        let Some(d) = self.f.noted_def(id) else {
            return;
        };
        let old = self.lat[d];
        let new = match (old, new) {
            (_, Val::Top) => old,
            (Val::Top, n) => n,
            (o, n) if o == n => o,
            _ => Val::Varying,
        };
        if new != old {
            if old == Val::Top {
                self.lat_ids.push(id);
            }
            self.lat[d] = new;
            self.value_wl.push(id);
        }
    }

    /// True when some edge `from → to` is executable.
    fn executable(&self, from: usize, to: usize) -> bool {
        let edges = self.f.succ_start[from] as usize..self.f.succ_start[from + 1] as usize;
        (self.f.succ_list[edges.clone()].iter())
            .zip(&self.exec_edge[edges])
            .any(|(&s, &e)| s == to && e)
    }

    /// Makes the edge `from → to` executable, visiting what it newly reaches.
    #[inline(always)]
    fn mark_edge(&mut self, from: usize, to: usize) {
        let edges = self.f.succ_start[from] as usize..self.f.succ_start[from + 1] as usize;
        let mut new = false;
        for (&s, e) in (self.f.succ_list[edges.clone()].iter()).zip(&mut self.exec_edge[edges]) {
            if s == to && !*e {
                *e = true;
                new = true;
            }
        }
        if new {
            if self.exec_block[to] {
                // New incoming edge: phis of `to` must be re-evaluated.
                for k in self.f.block_noted(to) {
                    if self.f.noted[k].inst.opcode == op::Phi {
                        let _ = self.visit(k);
                    }
                }
            } else {
                self.exec_block[to] = true;
                self.block_wl.push(to);
            }
        }
    }

    /// The error for phi `i` naming `parent`, which is not a block of the
    /// function.
    #[cold]
    #[inline(never)]
    fn bad_parent(&self, i: usize, parent: u32) -> Error {
        structure(
            &self.f.noted[i].inst,
            self.fname,
            format!("OpPhi names %{parent}, which is not a block of this function"),
        )
    }

    /// Evaluates noted instruction `i` (a phi, logic op, select or
    /// terminator); `Err(parent)` for a phi naming `parent`, which is not a
    /// block of the function ([`Sccp::bad_parent`] makes the error).
    fn visit(&mut self, i: usize) -> std::result::Result<(), u32> {
        let inst = self.f.noted[i].inst;
        let w = self.f.inst_words(i);
        let b = self.f.noted[i].block;
        match inst.opcode {
            op::Phi if w.len() >= 3 => {
                let mut acc = Val::Top;
                let mut edges = 0;
                for pair in w[3..].chunks(2) {
                    let [v, parent] = pair else { continue };
                    let Some(&pb) = self.f.block_of_label.get(parent) else {
                        return Err(*parent);
                    };
                    if !self.executable(pb, b) {
                        continue;
                    }
                    edges += 1;
                    let val = self.value(*v);
                    acc = match (acc, val) {
                        (Val::Top, x) | (x, Val::Top) => x,
                        (x, y) if x == y => x,
                        _ => Val::Varying,
                    };
                }
                // A local value may stand in for the phi only on a single edge.
                if let Val::Same(x) = acc
                    && edges > 1
                    && self.f.def_of(x).is_some()
                {
                    acc = Val::Varying;
                }
                self.set(w[2], acc);
            }
            opc if is_logic(opc) && w.len() >= 4 => {
                let a = self.value(w[3]);
                let v = if opc == op::LogicalNot {
                    match a {
                        Val::Const(x) => Val::Const(!x),
                        Val::Top => Val::Top,
                        _ => Val::Varying,
                    }
                } else if w.len() >= 5 {
                    meet_logic(opc, a, self.value(w[4]))
                } else {
                    Val::Varying
                };
                self.set(w[2], v);
            }
            op::Select if w.len() >= 6 => {
                let v = match self.value(w[3]) {
                    Val::Const(true) => self.value(w[4]),
                    Val::Const(false) => self.value(w[5]),
                    Val::Top => Val::Top,
                    _ => Val::Varying,
                };
                self.set(w[2], v);
            }
            op::Branch | op::BranchConditional | op::Switch => self.visit_terminator(i),
            _ => {}
        }
        Ok(())
    }

    /// Evaluates terminator `i`: marks the edges it can take.
    fn visit_terminator(&mut self, i: usize) {
        let inst = self.f.noted[i].inst;
        let b = self.f.noted[i].block;
        match inst.opcode {
            op::Branch => {
                self.decided[b] = NONE;
                if let Some(&s) = self.f.successors(b).first() {
                    self.mark_edge(b, s);
                }
            }
            op::BranchConditional | op::Switch => {
                let w = self.f.inst_words(i);
                let f = self.f;
                let succ = f.successors(b);
                let chosen = match inst.opcode {
                    op::BranchConditional => match self.value(w[1]) {
                        Val::Const(true) => Some(Some(succ[0])),
                        Val::Const(false) => Some(Some(succ[1])),
                        Val::Top => Some(None),
                        _ => None,
                    },
                    op::Switch => self.switch_target(i, succ),
                    _ => None,
                };
                match chosen {
                    Some(Some(s)) => {
                        if succ.iter().any(|&x| x != s) {
                            self.decided[b] = s;
                        }
                        self.mark_edge(b, s);
                    }
                    Some(None) => {} // condition not known yet
                    None => {
                        self.decided[b] = NONE;
                        for &s in succ {
                            self.mark_edge(b, s);
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// For a switch on a value known to be a module-level integer constant:
    /// `Some(Some(target))`; on an unknown value `Some(None)`; else `None`.
    fn switch_target(&self, i: usize, succ: &[usize]) -> Option<Option<usize>> {
        let w = self.f.inst_words(i);
        let sel = match self.value(w[1]) {
            Val::Top => return Some(None),
            Val::Same(x) if x != w[1] => x,
            _ => return None,
        };
        let value = self.ctx.int_constant(sel)?;
        // succ[0] is the default, then one per case, in order.
        let lit = self
            .f
            .ids(i)
            .iter()
            .filter(|(p, _)| *p >= 3)
            .map(|(p, _)| *p as usize)
            .collect::<Vec<_>>();
        let mut prev = 3;
        for (k, &label_pos) in lit.iter().enumerate() {
            let lit_words = &w[prev..label_pos];
            let case = lit_words
                .iter()
                .rev()
                .fold(0u64, |acc, &x| (acc << 32) | x as u64);
            if case == value {
                return Some(Some(succ[k + 1]));
            }
            prev = label_pos + 1;
        }
        Some(Some(succ[0]))
    }
}
