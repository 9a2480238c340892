//! Blocks and their successors: a block opened at its label and closed
//! at the next (keeping the first structure error, reported once every id
//! is checked), and every branch target resolved to a block of the
//! function once the read is over.

use crate::error::{Error, Result};
use crate::module::Inst;
use crate::operands::op;

use super::read::{Deferred, ReadState};
use super::{Block, Func, NO_BLOCK, structure};

impl Func<'_> {
    /// Ends the block being read, if any, at word `at` and begins the
    /// block of the label `label` whose `OpLabel` there takes `len` words
    /// (the caller maps the label to it).
    #[inline]
    pub(super) fn open_block(&mut self, st: &mut ReadState, label: u32, at: usize, len: usize) {
        if st.block != NO_BLOCK {
            self.close(st, at);
        }
        let (n, c) = (self.noted.len() as u32, self.calls.len() as u32);
        st.block = self.blocks.len();
        st.last_was_terminator = false;
        st.early = None;
        self.blocks.push(Block {
            label,
            label_at: at,
            body: at + len,
            end: at + len,
            noted: (n, n),
            calls: (c, c),
        });
    }

    /// Ends the block `st` reads at word `at`, keeping the first
    /// structure error.
    pub(super) fn close(&mut self, st: &mut ReadState, at: usize) {
        let b = &mut self.blocks[st.block];
        b.end = at;
        st.block = NO_BLOCK;
        if st.deferred.is_some() {
            return;
        }
        if let Some(t) = st.early {
            let head = self.words[t];
            let inst = Inst {
                at: t,
                opcode: head as u16,
                len: (head >> 16) as usize,
            };
            st.deferred = Some(Deferred::EarlyTerminator(inst, b.label));
        } else if !st.last_was_terminator {
            let label = Inst {
                at: b.label_at,
                opcode: op::Label,
                len: b.body - b.label_at,
            };
            st.deferred = Some(Deferred::NoTerminator(label, b.label));
        }
    }

    /// Resolves every block's branch targets to blocks of the function.
    pub(super) fn link_successors(&mut self, fname: &str) -> Result<()> {
        for b in 0..self.blocks.len() {
            self.succ_start.push(self.succ_list.len() as u32);
            let t = self.terminator(b);
            let w = self.inst_words(t);
            let targets = match self.noted[t].inst.opcode {
                op::Branch => &w[1..2],
                op::BranchConditional => &w[2..4],
                op::Switch => {
                    // Every id after the selector is a target.
                    let (a, z) = self.noted[t].ids;
                    for j in a as usize..z as usize {
                        let p = self.id_list[j].0 as usize;
                        if p >= 2 {
                            self.link(t, w[p], fname)?;
                        }
                    }
                    continue;
                }
                _ => continue,
            };
            for &label in targets {
                self.link(t, label, fname)?;
            }
        }
        self.succ_start.push(self.succ_list.len() as u32);
        Ok(())
    }

    /// Adds the block labelled `label` to the successors, for terminator `t`.
    #[inline(always)]
    pub(super) fn link(&mut self, t: usize, label: u32, fname: &str) -> Result<()> {
        match self.block_of_label.get(&label) {
            Some(&s) => {
                self.succ_list.push(s);
                Ok(())
            }
            None => Err(self.not_a_block(t, label, fname)),
        }
    }

    /// The error for a branch target, `label` of terminator `t`, that is
    /// not a block of the function.
    #[cold]
    #[inline(never)]
    pub(super) fn not_a_block(&self, t: usize, label: u32, fname: &str) -> Error {
        structure(
            &self.noted[t].inst,
            fname,
            format!("branch target %{label} is not a block of this function"),
        )
    }
}
