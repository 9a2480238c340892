//! The header walk before the read: the window of ids the function
//! defines (which sizes its dense maps, [`LocalMap`](super::super::local_ids::LocalMap))
//! and the results the lattice tracks, numbered before the read because a
//! phi may read a result defined further down.

use crate::operands::shapes;

use super::super::local_ids::Window;
use super::Func;
use super::read::op_infos;

impl<'m> Func<'m> {
    /// Walks the instruction headers: sizes the local maps for the window
    /// of the result ids the function defines (its own aside: it is
    /// numbered with the module's functions, far from its body's ids) and
    /// numbers the results of tracked instructions, listed in
    /// `tracked_ids`; returns the number of instructions.
    #[inline(never)]
    pub(super) fn find_window(&mut self, tracked_ids: &mut Vec<u32>) -> usize {
        let words = self.words;
        let (infos, shapes) = (op_infos(), shapes());
        let (mut lo, mut hi) = (u32::MAX, 0u32);
        tracked_ids.clear();
        // From past the `OpFunction` (the range starts with it).
        let (start, end) = (self.range.start, self.range.end);
        let mut at = start + (words[start] >> 16).max(1) as usize;
        let mut count = 1;
        while at < end {
            let head = words[at];
            let (len, opcode) = ((head >> 16) as usize, head as u16);
            count += 1;
            let (p, tracked) = match infos.get(opcode as usize) {
                Some(i) => (i.result as usize, i.tracked),
                None => (
                    shapes.get(opcode as usize).map_or(0, |s| s.result as usize),
                    false,
                ),
            };
            if p > 0 && p < len {
                let id = words[at + p];
                lo = lo.min(id);
                hi = hi.max(id);
                if tracked {
                    tracked_ids.push(id);
                }
            }
            at += len.max(1);
        }
        let window = Window::new(lo, hi, count);
        self.def.reset(window);
        self.block_of_label.reset(window);
        self.tracked.reset(window);
        for (t, &id) in tracked_ids.iter().enumerate() {
            self.tracked.insert(id, t);
        }
        count
    }
}
