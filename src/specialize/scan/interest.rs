//! The ids a scan looks for, and each one's class: one look-up a word.

use crate::idset::IdSet;

use crate::specialize::word_hits;

/// Class bit: the id makes a function need rewriting.
pub(super) const TRIGGER: u8 = 1;
/// Class bit: the id is a function's.
pub(super) const FUNCTION: u8 = 2;
/// Class bit: the id's mentions are recorded.
pub(super) const TRACKED: u8 = 4;

/// The ids a scan looks for: each id's class bits, one lookup per word.
#[derive(Clone)]
pub(in crate::specialize) struct Interest {
    /// True when a body's words are looked up all at once
    /// ([`word_hits`]): the host can, and no id of interest reaches 65,536,
    /// so that no header (`len << 16 | opcode`) can equal one. Otherwise
    /// the scan walks instruction by instruction, looking up only the
    /// operand words (in a module numbering its functions first and
    /// holding more than 65,536 of them, nearly every header would equal
    /// a function id).
    pub(super) by_words: bool,
    /// Class of every id up to the largest member, when that is not much
    /// larger than the module (a hostile bound must not make us allocate
    /// gigabytes).
    pub(super) dense: Vec<u8>,
    /// Otherwise `(id, class)`, sorted by id.
    pub(super) sparse: Vec<(u32, u8)>,
}

impl Interest {
    /// Builds the classes of `triggers` (ids that make a function need
    /// rewriting), `functions` (every function id) and `tracked` (ids whose
    /// mentions are recorded); `module_words` bounds the table.
    pub(in crate::specialize) fn new(
        triggers: &IdSet,
        functions: &[u32],
        tracked: &IdSet,
        module_words: usize,
    ) -> Interest {
        let members = || {
            triggers
                .iter()
                .map(|x| (x, TRIGGER))
                .chain(functions.iter().map(|&x| (x, FUNCTION)))
                .chain(tracked.iter().map(|x| (x, TRACKED)))
        };
        let max = members().map(|(x, _)| x as usize).max().unwrap_or(0);
        if max <= module_words.saturating_mul(8).max(1 << 16) {
            // (Four more entries, 0, that ids beyond the largest read.)
            let mut dense = crate::zeroed::vec(max + 5);
            for (x, c) in members() {
                dense[x as usize] |= c;
            }
            Interest {
                by_words: max < 1 << 16 && word_hits::available(dense.len()),
                dense,
                sparse: Vec::new(),
            }
        } else {
            let mut sparse: Vec<(u32, u8)> = members().collect();
            sparse.sort_unstable();
            sparse.dedup_by(|b, a| {
                let same = a.0 == b.0;
                if same {
                    a.1 |= b.1;
                }
                same
            });
            Interest {
                by_words: false,
                dense: Vec::new(),
                sparse,
            }
        }
    }

    /// True when `x` is a function's id.
    #[inline(always)]
    pub(in crate::specialize) fn is_function(&self, x: u32) -> bool {
        self.class(x) & FUNCTION != 0
    }

    /// The class bits of `x` (0 when it is of no interest).
    #[inline(always)]
    pub(super) fn class(&self, x: u32) -> u8 {
        match self.dense.get(x as usize) {
            Some(&c) => c,
            None if self.sparse.is_empty() => 0,
            None => self.sparse_class(x),
        }
    }

    /// [`Interest::class`] of a module with a hostile bound.
    fn sparse_class(&self, x: u32) -> u8 {
        self.sparse
            .binary_search_by_key(&x, |&(id, _)| id)
            .map_or(0, |k| self.sparse[k].1)
    }

    /// The class bits of all of `words`, or'ed.
    #[inline]
    pub(super) fn any(&self, words: &[u32]) -> u8 {
        words.iter().fold(0, |a, &x| a | self.class(x))
    }

    /// [`Interest::any`] for the operand words of one instruction: most
    /// have one to four, looked at without a loop.
    #[inline(always)]
    pub(super) fn any_short(&self, words: &[u32]) -> u8 {
        let c = |x: &u32| self.class(*x);
        match words {
            [] => 0,
            [a] => c(a),
            [a, b] => c(a) | c(b),
            [a, b, d] => c(a) | c(b) | c(d),
            [a, b, d, e] => c(a) | c(b) | c(d) | c(e),
            _ => self.any(words),
        }
    }

    /// The next instruction of `body` (whole instructions whose word
    /// counts the parse checked), from the one at `from` on, with an
    /// operand word of interest: its start, its end and the class bits of
    /// its operand words. The headers are passed over: a header can equal
    /// an id of interest (`len << 16 | opcode` is below the bound of any
    /// module over 65,536 ids), and in a large module most would.
    #[inline(always)]
    pub(super) fn next_hit(&self, body: &[u32], from: usize) -> Option<(usize, usize, u8)> {
        let mut rest = body.get(from..)?;
        while let Some((&header, operands)) = rest.split_first() {
            // (The parse checked every word count: nonzero and in range.)
            let operands = operands.get(..((header >> 16) as usize).wrapping_sub(1))?;
            let hit = self.any_short(operands);
            if hit != 0 {
                let at = body.len() - rest.len();
                return Some((at, at + 1 + operands.len(), hit));
            }
            rest = &rest[1 + operands.len()..];
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The dense table and the sorted list (a module whose ids are far
    /// beyond its size) classify alike and find the same words.
    #[test]
    fn dense_and_sparse_classes_agree() {
        let triggers = IdSet::new([5, 70], 0);
        let tracked = IdSet::new([70, 300], 0);
        let functions = [3, 300];
        let dense = Interest::new(&triggers, &functions, &tracked, 100);
        let far = [3, 300, 1 << 30];
        let sparse = Interest::new(&triggers, &far, &tracked, 100);
        assert!(!dense.dense.is_empty() && sparse.dense.is_empty());
        for (x, c) in [
            (0, 0),
            (3, FUNCTION),
            (5, TRIGGER),
            (70, TRIGGER | TRACKED),
            (300, FUNCTION | TRACKED),
            (301, 0),
            (u32::MAX, 0),
        ] {
            assert_eq!(dense.class(x), c, "{x}");
            assert_eq!(sparse.class(x), c, "{x}");
        }
        assert_eq!(sparse.class(1 << 30), FUNCTION);
        let words: Vec<u32> = (0..150u32)
            .map(|k| [1, 2, u32::MAX, 4, 9, 3, 1, 5, 2, 300, 70][(k * k % 23 % 11) as usize])
            .collect();
        for from in 0..words.len() {
            for to in from..(from + 9).min(words.len()) {
                let part = &words[from..to];
                let want = part.iter().fold(0, |a, &x| a | dense.class(x));
                assert_eq!(dense.any(part), want, "{from}..{to}");
                assert_eq!(sparse.any(part), want, "{from}..{to}");
                assert_eq!(dense.any_short(part), want, "{from}..{to}");
                assert_eq!(sparse.any_short(part), want, "{from}..{to}");
            }
        }
    }
}
