//! The specialized module as pieces, in order: ranges of the input words
//! (everything the pass did not change, copied by nobody) and words of its
//! own (the header, changed module-scope instructions, new constants,
//! rewritten functions). A writer streams the pieces to a file without ever
//! holding the whole output; [`Output::to_words`] makes the one `Vec` that
//! [`Specialized`] keeps for library users.

use std::ops::Range;

use crate::module::Endian;

use super::{Report, Specialized};

/// Where one piece's words are.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    /// `input[range]`.
    Input(Range<usize>),
    /// `own[range]`.
    Own(Range<usize>),
}

/// The output's words as pieces being laid down in order: adjacent input
/// ranges (and adjacent own ranges) merge, so an untouched run of
/// functions is one piece.
#[derive(Debug, Default)]
pub(super) struct Pieces {
    /// Words the pass made; the pieces refer to ranges of them.
    own: Vec<u32>,
    pieces: Vec<Piece>,
}

impl Pieces {
    /// Starts with `own` as the buffer of new words (pieces may refer to
    /// its ranges later, through [`Pieces::own_range`]).
    pub(super) fn with_own(own: Vec<u32>) -> Pieces {
        Pieces {
            own,
            pieces: Vec::new(),
        }
    }

    /// The buffer of new words, to append to; [`Pieces::own_since`] then
    /// lays down what was appended.
    pub(super) fn own(&mut self) -> &mut Vec<u32> {
        &mut self.own
    }

    /// Lays down `input[range]`.
    pub(super) fn input(&mut self, range: Range<usize>) {
        if range.is_empty() {
            return;
        }
        match self.pieces.last_mut() {
            Some(Piece::Input(last)) if last.end == range.start => last.end = range.end,
            _ => self.pieces.push(Piece::Input(range)),
        }
    }

    /// Lays down `own[range]` (words already in the buffer).
    pub(super) fn own_range(&mut self, range: Range<usize>) {
        if range.is_empty() {
            return;
        }
        match self.pieces.last_mut() {
            Some(Piece::Own(last)) if last.end == range.start => last.end = range.end,
            _ => self.pieces.push(Piece::Own(range)),
        }
    }

    /// Lays down the words appended to the buffer since its length was
    /// `start`.
    pub(super) fn own_since(&mut self, start: usize) {
        let end = self.own.len();
        self.own_range(start..end);
    }

    /// The finished output over `input`.
    pub(super) fn finish(self, input: &[u32], endian: Endian, report: Report) -> Output<'_> {
        Output {
            input,
            own: self.own,
            pieces: self.pieces,
            endian,
            report,
        }
    }
}

/// A specialized module as [`crate::Prepared::specialize_output`] returns
/// it: pieces of the input and of its own, not yet one buffer. Stream it
/// with [`Output::chunks`] (a file needs no copy of the module), or make
/// it a [`Specialized`] with [`Output::into_specialized`].
#[derive(Debug)]
pub struct Output<'w> {
    input: &'w [u32],
    own: Vec<u32>,
    pieces: Vec<Piece>,
    endian: Endian,
    report: Report,
}

impl<'w> Output<'w> {
    /// The module's words, host order, in pieces to be concatenated.
    pub fn chunks(&self) -> impl Iterator<Item = &[u32]> + '_ {
        self.pieces.iter().map(|p| match p {
            Piece::Input(r) => &self.input[r.clone()],
            Piece::Own(r) => &self.own[r.clone()],
        })
    }

    /// The module's length in words.
    pub fn len_words(&self) -> usize {
        self.pieces
            .iter()
            .map(|p| match p {
                Piece::Input(r) | Piece::Own(r) => r.len(),
            })
            .sum()
    }

    /// The module's words in one buffer of exactly their size.
    pub fn to_words(&self) -> Vec<u32> {
        let mut words = Vec::with_capacity(self.len_words());
        for chunk in self.chunks() {
            words.extend_from_slice(chunk);
        }
        words
    }

    /// The byte order the module is written in (the input's).
    pub fn endian(&self) -> Endian {
        self.endian
    }

    /// What was resolved and removed.
    pub fn report(&self) -> &Report {
        &self.report
    }

    /// The report, to complete.
    pub(super) fn report_mut(&mut self) -> &mut Report {
        &mut self.report
    }

    /// The module in one buffer, with its report.
    pub fn into_specialized(self) -> Specialized {
        Specialized {
            words: std::sync::Arc::new(self.to_words()),
            endian: self.endian,
            report: self.report,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adjacent_pieces_merge_and_gather_in_order() {
        let input = [10, 11, 12, 13, 14, 15];
        let mut p = Pieces::with_own(vec![1, 2]);
        p.input(0..2);
        p.input(2..3); // merges with 0..2
        p.own_range(0..1);
        p.own_range(1..2); // merges with 0..1
        p.input(3..3); // empty: nothing
        p.input(4..6);
        let start = p.own().len();
        p.own().push(3);
        p.own_since(start);
        let out = p.finish(&input, Endian::Little, Report::default());
        assert_eq!(out.pieces.len(), 4);
        let chunks: Vec<&[u32]> = out.chunks().collect();
        assert_eq!(chunks, [&[10, 11, 12][..], &[1, 2], &[14, 15], &[3]]);
        assert_eq!(out.len_words(), 8);
        assert_eq!(out.to_words(), [10, 11, 12, 1, 2, 14, 15, 3]);
        assert_eq!(
            out.into_specialized().words(),
            [10, 11, 12, 1, 2, 14, 15, 3]
        );
    }
}
