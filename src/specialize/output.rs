//! The specialized module as pieces, in order: ranges of the input words
//! (everything the pass did not change, copied by nobody) and words of its
//! own (the header, changed module-scope instructions, new constants, and
//! the words of rewritten functions that differ from the input). A
//! rewritten function is kept as an edit list against its input range
//! ([`Pieces::add_function`]): the runs of its new words that equal the
//! input's become input ranges, so only what the rewrite changed is held.
//! A writer streams the pieces to a file without ever holding the whole
//! output; [`Output::to_words`] makes the one `Vec` that [`Specialized`]
//! keeps for library users.

use std::ops::Range;

use crate::module::{Endian, header_word};
use crate::operands::op;

use super::{Report, Specialized};

/// Where one piece's words are, packed in 8 bytes (a module has many:
/// about 20 per rewritten function): its kind, the start of its range and
/// its length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Piece(u64);

/// What a [`Piece`]'s range is a range of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `input[range]`.
    Input = 0,
    /// `own[range]`.
    Own = 1,
    /// `edits[range]`: a rewritten function's edit list, pieces of the
    /// two kinds above.
    Edits = 2,
}

/// Bits of a piece's length; a longer range is laid down as several
/// pieces.
const LEN_BITS: u32 = 20;
/// The longest range one piece holds (1 M words).
const MAX_LEN: usize = (1 << LEN_BITS) - 1;
/// Bits of a piece's start: 2^42 words (16 TiB) is beyond any module or
/// buffer in memory.
const START_BITS: u32 = 42;

impl Piece {
    fn new(kind: Kind, start: usize, len: usize) -> Piece {
        debug_assert!(len <= MAX_LEN && start < 1 << START_BITS);
        Piece(
            ((kind as u64) << (START_BITS + LEN_BITS)) | ((start as u64) << LEN_BITS) | len as u64,
        )
    }

    fn kind(self) -> Kind {
        match self.0 >> (START_BITS + LEN_BITS) {
            0 => Kind::Input,
            1 => Kind::Own,
            _ => Kind::Edits,
        }
    }

    fn start(self) -> usize {
        ((self.0 >> LEN_BITS) & ((1 << START_BITS) - 1)) as usize
    }

    fn len(self) -> usize {
        (self.0 & MAX_LEN as u64) as usize
    }

    fn range(self) -> Range<usize> {
        self.start()..self.start() + self.len()
    }
}

/// Appends `kind` pieces for `range` to `list`, merging with the last
/// piece when it is of that kind and ends where `range` starts.
fn lay_down(list: &mut Vec<Piece>, kind: Kind, range: Range<usize>) {
    lay_down_after(list, 0, kind, range);
}

/// [`lay_down`], merging only into pieces at or after `floor`: an edit
/// list starts at its own first piece and never extends the list before
/// it, which may be laid down elsewhere (or not at all).
fn lay_down_after(list: &mut Vec<Piece>, floor: usize, kind: Kind, mut range: Range<usize>) {
    if list.len() > floor
        && let Some(last) = list.last_mut()
        && last.kind() == kind
        && last.start() + last.len() == range.start
        && !range.is_empty()
    {
        let n = range.len().min(MAX_LEN - last.len());
        *last = Piece::new(kind, last.start(), last.len() + n);
        range.start += n;
    }
    while !range.is_empty() {
        let n = range.len().min(MAX_LEN);
        list.push(Piece::new(kind, range.start, n));
        range.start += n;
    }
}

/// The output's words as pieces being laid down in order: adjacent input
/// ranges (and adjacent own ranges) merge, so an untouched run of
/// functions is one piece.
#[derive(Debug, Default)]
pub(super) struct Pieces {
    /// Words the pass made; the pieces refer to ranges of them.
    own: Vec<u32>,
    /// The rewritten functions' edit lists, one after the other.
    edits: Vec<Piece>,
    /// The output in order.
    pieces: Vec<Piece>,
    /// Scratch of [`Pieces::add_function`]: the input function's labels
    /// with their positions, by label.
    labels: Vec<(u32, usize)>,
}

/// How many used-up edit-list pieces [`Output::into_specialized`] lets
/// gather before it gives their memory back (512 KiB).
const RELEASE: usize = 1 << 16;

/// The first word of an `OpLabel`.
const LABEL: u32 = header_word(2, op::Label);

/// How many input instructions [`Pieces::add_function`] looks past for
/// the next new instruction when they differ at an instruction's start
/// (instructions the rewrite deleted).
const LOOKAHEAD: usize = 8;

impl Pieces {
    /// No pieces yet; room for `own` own words and `edits` pieces of edit
    /// lists.
    pub(super) fn with_capacity(own: usize, edits: usize) -> Pieces {
        Pieces {
            own: Vec::with_capacity(own),
            edits: Vec::with_capacity(edits),
            ..Pieces::default()
        }
    }

    /// The buffer of new words, to append to; [`Pieces::own_since`] then
    /// lays down what was appended.
    pub(super) fn own(&mut self) -> &mut Vec<u32> {
        &mut self.own
    }

    /// Lays down `input[range]`.
    pub(super) fn input(&mut self, range: Range<usize>) {
        lay_down(&mut self.pieces, Kind::Input, range);
    }

    /// Lays down the words appended to the buffer since its length was
    /// `start`.
    pub(super) fn own_since(&mut self, start: usize) {
        let end = self.own.len();
        lay_down(&mut self.pieces, Kind::Own, start..end);
    }

    /// Lays down the rewritten function whose edit list is `edits` (as
    /// [`Pieces::add_function`] returned it).
    pub(super) fn function(&mut self, edits: Range<usize>) {
        if edits.is_empty() {
            return;
        }
        // Edit lists are never merged: each is its own piece.
        self.pieces
            .push(Piece::new(Kind::Edits, edits.start, edits.len()));
    }

    /// Keeps the new words `new` of the function at `old` in `input` as
    /// an edit list, not yet laid down; returns where the list is, for
    /// [`Pieces::function`] and [`Pieces::function_words`].
    ///
    /// Runs of words equal to the input's become input ranges, the others
    /// own words, so the list always spells `new` exactly; how well it
    /// finds the runs only decides its size. The rewrite keeps
    /// instructions in order within a block, changes some operands (the
    /// words around them still match), changes or deletes some
    /// instructions, and drops or reorders blocks: after a difference at
    /// an instruction's start, the next few input instructions are tried
    /// (deleted ones), then a new block's label is found among the
    /// input's. Linear in the function's size.
    pub(super) fn add_function(
        &mut self,
        input: &[u32],
        old: Range<usize>,
        new: &[u32],
    ) -> Range<usize> {
        let start = self.edits.len();
        let src = &input[..old.end];
        let len = |w: &[u32], at: usize| ((w[at] >> 16).max(1) as usize).min(w.len() - at);
        let mut labels_ready = false;
        // `c` in the input and `i` in `new` are where the next words are
        // compared; `inst` is the start of `new`'s instruction holding `i`.
        let (mut c, mut i, mut inst) = (old.start, 0, 0);
        while i < new.len() {
            let run = common_prefix(&new[i..], &src[c.min(src.len())..]);
            if run > 0 {
                lay_down_after(&mut self.edits, start, Kind::Input, c..c + run);
                i += run;
                c += run;
                continue;
            }
            while inst + len(new, inst) <= i {
                inst += len(new, inst);
            }
            if i > inst && new[inst] == LABEL && self.retract(i - inst) {
                // A label with another id: another block, not a changed
                // operand; its start is looked for below.
                c -= i - inst;
                i = inst;
            }
            if i > inst {
                // Inside an instruction whose start matched: an operand
                // changed; the words after it may match again.
                self.push_own(start, &new[i..i + 1]);
                i += 1;
                c += 1;
                continue;
            }
            // At an instruction's start: one the rewrite changed (a
            // terminator made unconditional, a phi with fewer pairs), one
            // it deleted, or a block it dropped or moved.
            let n = len(new, i);
            let this = &new[i..i + n];
            let opcode = |w: u32| (w & 0xffff) as u16;
            let here = src.get(c).map_or(0, |&w| opcode(w));
            if this[0] != LABEL
                && c < src.len()
                && (here == opcode(this[0])
                    || (opcode(this[0]) == op::Branch
                        && matches!(here, op::BranchConditional | op::Switch)))
            {
                // Changed: the input's instruction goes.
                c += len(src, c);
                self.push_own(start, this);
                i += n;
                continue;
            }
            // The first word alone rules out most places.
            let matches =
                |at: usize| src.get(at) == Some(&this[0]) && src.get(at..at + n) == Some(this);
            let mut found = None;
            let mut at = c;
            for _ in 0..LOOKAHEAD {
                if at >= src.len() {
                    break;
                }
                at += len(src, at);
                if matches(at) {
                    found = Some(at);
                    break;
                }
            }
            if found.is_none() && this[0] == LABEL && n == 2 {
                if !labels_ready {
                    self.find_labels(src, old.start);
                    labels_ready = true;
                }
                found = self
                    .labels
                    .binary_search_by_key(&this[1], |&(id, _)| id)
                    .ok()
                    .map(|k| self.labels[k].1)
                    .filter(|&at| matches(at));
            }
            match found {
                Some(at) => {
                    lay_down_after(&mut self.edits, start, Kind::Input, at..at + n);
                    c = at + n;
                }
                None => self.push_own(start, this),
            }
            i += n;
        }
        start..self.edits.len()
    }

    /// Fills [`Pieces::labels`] with the labels of `src[from..]` (one
    /// function).
    fn find_labels(&mut self, src: &[u32], from: usize) {
        self.labels.clear();
        let mut at = from;
        while at < src.len() {
            let n = (src[at] >> 16).max(1) as usize;
            if src[at] == LABEL && at + 1 < src.len() {
                self.labels.push((src[at + 1], at));
            }
            at += n;
        }
        // The first of a label defined twice.
        self.labels.sort_by_key(|&(id, _)| id);
    }

    /// Takes the last `n` words of the edit list being made back out of
    /// it, if they are the end of an input range; false if not.
    fn retract(&mut self, n: usize) -> bool {
        match self.edits.last_mut() {
            Some(last) if last.kind() == Kind::Input && last.len() >= n => {
                if last.len() == n {
                    self.edits.pop();
                } else {
                    *last = Piece::new(Kind::Input, last.start(), last.len() - n);
                }
                true
            }
            _ => false,
        }
    }

    /// Appends `words` to the own buffer as part of the edit list being
    /// made, which begins at `list` in [`Pieces::edits`].
    fn push_own(&mut self, list: usize, words: &[u32]) {
        let start = self.own.len();
        self.own.extend_from_slice(words);
        lay_down_after(&mut self.edits, list, Kind::Own, start..self.own.len());
    }

    /// The words of the rewritten function whose edit list is `edits`,
    /// appended to `out`.
    pub(super) fn function_words(&self, input: &[u32], edits: Range<usize>, out: &mut Vec<u32>) {
        for p in &self.edits[edits] {
            out.extend_from_slice(slice(input, &self.own, *p));
        }
    }

    /// The finished output over `input`.
    pub(super) fn finish(self, input: &[u32], endian: Endian, report: Report) -> Output<'_> {
        Output {
            input,
            own: self.own,
            edits: self.edits,
            pieces: self.pieces,
            endian,
            report,
        }
    }
}

/// How many words `a` and `b` have in common at their start; eight at a
/// time while they can.
fn common_prefix(a: &[u32], b: &[u32]) -> usize {
    let n = a.len().min(b.len());
    let mut k = 0;
    while k + 8 <= n && a[k..k + 8] == b[k..k + 8] {
        k += 8;
    }
    while k < n && a[k] == b[k] {
        k += 1;
    }
    k
}

/// The words of an input or own piece.
fn slice<'a>(input: &'a [u32], own: &'a [u32], p: Piece) -> &'a [u32] {
    match p.kind() {
        Kind::Input => &input[p.range()],
        Kind::Own => &own[p.range()],
        Kind::Edits => &[],
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
    edits: Vec<Piece>,
    pieces: Vec<Piece>,
    endian: Endian,
    report: Report,
}

impl<'w> Output<'w> {
    /// The module's words, host order, in pieces to be concatenated.
    pub fn chunks(&self) -> impl Iterator<Item = &[u32]> + '_ {
        self.flat_pieces().map(|p| slice(self.input, &self.own, p))
    }

    /// The module's length in words.
    pub fn len_words(&self) -> usize {
        self.chunks().map(<[u32]>::len).sum()
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
    pub fn into_specialized(mut self) -> Specialized {
        Specialized {
            words: std::sync::Arc::new(self.take_words()),
            endian: self.endian,
            report: self.report,
        }
    }

    /// The module's words in one buffer of exactly their size, made
    /// without holding the own buffer beside the whole module: the own
    /// pieces' words are first copied, in output order, to the start of
    /// the new buffer (zeroed pages the kernel has not yet given, so the
    /// rest costs nothing until written) and the own buffer is freed; then
    /// the pieces are written back to front, own ones moved from that
    /// head, and the edit lists are freed as they are used up (when they
    /// are laid down in the order they were made, as the driver does).
    ///
    /// Nothing is overwritten before it is read: when a piece is written
    /// to `[d, d + n)`, the own words not yet moved lie in `[0, head)` and
    /// belong to it and the pieces before it, which fill `[0, d + n)`; the
    /// pieces before it hold at most `d` of them, so an input piece's
    /// place is past `head`, and an own piece's source, the last `n` of
    /// them, ends at or before its place's end (moved with `copy_within`).
    /// Leaves the output empty.
    fn take_words(&mut self) -> Vec<u32> {
        let len = self.len_words();
        let mut words = vec![0u32; len];
        let mut head = 0;
        for p in self.flat_pieces().filter(|p| p.kind() == Kind::Own) {
            words[head..head + p.len()].copy_from_slice(&self.own[p.range()]);
            head += p.len();
        }
        self.own = Vec::new();
        let in_order = self
            .pieces
            .iter()
            .filter(|p| p.kind() == Kind::Edits)
            .map(|p| p.range())
            .is_sorted_by(|a, b| a.end <= b.start);
        let pieces = std::mem::take(&mut self.pieces);
        let mut at = len;
        for top in pieces.iter().rev() {
            let list = match top.kind() {
                Kind::Edits => &self.edits[top.range()],
                _ => std::slice::from_ref(top),
            };
            for p in list.iter().rev() {
                let n = p.len();
                at -= n;
                match p.kind() {
                    Kind::Own => {
                        head -= n;
                        words.copy_within(head..head + n, at);
                    }
                    _ => words[at..at + n].copy_from_slice(&self.input[p.range()]),
                }
            }
            if in_order && top.kind() == Kind::Edits {
                self.edits.truncate(top.start());
                if self.edits.capacity() - self.edits.len() >= RELEASE {
                    self.edits.shrink_to_fit();
                }
            }
        }
        words
    }

    /// The input and own pieces in order (edit lists opened).
    fn flat_pieces(&self) -> impl Iterator<Item = Piece> + '_ {
        self.pieces
            .iter()
            .flat_map(|p| match p.kind() {
                Kind::Edits => &self.edits[p.range()],
                _ => std::slice::from_ref(p),
            })
            .copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adjacent_pieces_merge_and_gather_in_order() {
        let input = [10, 11, 12, 13, 14, 15];
        let mut p = Pieces::default();
        p.input(0..2);
        p.input(2..3); // merges with 0..2
        p.own().extend([1, 2]);
        p.own_since(0);
        p.own().push(3);
        p.own_since(2); // merges with the own words before
        p.input(3..3); // empty: nothing
        p.input(4..6);
        let start = p.own().len();
        p.own().push(4);
        p.own_since(start);
        let out = p.finish(&input, Endian::Little, Report::default());
        assert_eq!(out.pieces.len(), 4);
        let chunks: Vec<&[u32]> = out.chunks().collect();
        assert_eq!(chunks, [&[10, 11, 12][..], &[1, 2, 3], &[14, 15], &[4]]);
        assert_eq!(out.len_words(), 9);
        assert_eq!(out.to_words(), [10, 11, 12, 1, 2, 3, 14, 15, 4]);
        assert_eq!(
            out.into_specialized().words(),
            [10, 11, 12, 1, 2, 3, 14, 15, 4]
        );
    }

    #[test]
    fn the_one_buffer_is_gathered_whatever_the_order_of_own_words() {
        // Own words laid down out of their order in the buffer, one range
        // twice, overlapping ranges, and more own words than the input:
        // the one buffer is the chunks concatenated.
        let input = [10, 11, 12];
        let mut p = Pieces::default();
        p.own().extend([1, 2, 3, 4, 5, 6, 7]);
        for (own, input) in [(5..7, 0..1), (0..3, 1..1), (0..3, 2..3), (2..6, 3..3)] {
            lay_down(&mut p.pieces, Kind::Own, own);
            p.input(input);
        }
        let out = p.finish(&input, Endian::Little, Report::default());
        let expected = [6, 7, 10, 1, 2, 3, 1, 2, 3, 12, 3, 4, 5, 6];
        assert_eq!(out.to_words(), expected);
        assert_eq!(out.into_specialized().words(), expected);
        // Edit lists laid down in the order they were made (freed as
        // they are used up), and out of it, one twice (kept to the end).
        let module: Vec<u32> = (100..140).collect();
        let f1: Vec<u32> = [&module[0..6], &[1, 2], &module[8..12]].concat();
        let f2: Vec<u32> = [&[3][..], &module[20..30], &[4, 5]].concat();
        for order in [[0, 1, 1], [1, 0, 0], [0, 1, 0]] {
            let mut p = Pieces::default();
            let lists = [
                p.add_function(&module, 0..12, &f1),
                p.add_function(&module, 20..30, &f2),
            ];
            let mut expected = Vec::new();
            for (k, &f) in order.iter().enumerate() {
                p.input(30 + k..31 + k);
                expected.push(module[30 + k]);
                p.function(lists[f].clone());
                expected.extend_from_slice([&f1, &f2][f]);
            }
            let out = p.finish(&module, Endian::Little, Report::default());
            assert_eq!(out.to_words(), expected);
            assert_eq!(out.into_specialized().words(), expected);
        }
        // Nothing of its own: the input's words.
        let mut p = Pieces::default();
        p.input(0..3);
        let out = p.finish(&input, Endian::Little, Report::default());
        assert_eq!(out.into_specialized().words(), input);
    }

    #[test]
    fn a_piece_packs_its_kind_start_and_length() {
        for (kind, start, len) in [
            (Kind::Input, 0, 0),
            (Kind::Own, 12_345, MAX_LEN),
            (Kind::Edits, (1 << START_BITS) - 1, 7),
        ] {
            let p = Piece::new(kind, start, len);
            assert_eq!((p.kind(), p.start(), p.len()), (kind, start, len));
        }
        // A range longer than a piece holds is laid down as several.
        let mut list = Vec::new();
        lay_down(&mut list, Kind::Input, 5..5 + 2 * MAX_LEN + 3);
        let ranges: Vec<Range<usize>> = list.iter().map(|p| p.range()).collect();
        assert_eq!(
            ranges,
            [
                5..5 + MAX_LEN,
                5 + MAX_LEN..5 + 2 * MAX_LEN,
                5 + 2 * MAX_LEN..5 + 2 * MAX_LEN + 3
            ]
        );
        // One that continues a full piece starts a new one.
        lay_down(
            &mut list,
            Kind::Input,
            5 + 2 * MAX_LEN + 3..5 + 2 * MAX_LEN + 4,
        );
        assert_eq!(list.len(), 3);
        assert_eq!(list[2].len(), 4);
    }

    /// An instruction's words: header, then operands.
    fn inst(opcode: u16, operands: &[u32]) -> Vec<u32> {
        let mut w = vec![header_word(operands.len() + 1, opcode)];
        w.extend_from_slice(operands);
        w
    }

    /// A block: its label, `body` instructions (`OpLogicalAnd`s defining ids
    /// from `label + 1`), then `OpBranch %next`.
    fn block(label: u32, body: u32, next: u32) -> Vec<Vec<u32>> {
        let mut b = vec![inst(op::Label, &[label])];
        for k in 1..=body {
            b.push(inst(op::LogicalAnd, &[7, label + k, label, label]));
        }
        b.push(inst(op::Branch, &[next]));
        b
    }

    /// Lays down `new` against `input[old]` and checks that the edit list
    /// spells it, and that the words it took from the input are at least
    /// `from_input`; returns the number of own words it holds.
    fn round_trip(input: &[u32], old: Range<usize>, new: &[u32], from_input: usize) -> usize {
        let mut p = Pieces::default();
        p.own().extend([1, 2, 3]); // module-scope words before
        let edits = p.add_function(input, old, new);
        let mut words = Vec::new();
        p.function_words(input, edits.clone(), &mut words);
        assert_eq!(words, new);
        let taken: usize = p.edits[edits.clone()]
            .iter()
            .filter(|e| e.kind() == Kind::Input)
            .map(|e| e.len())
            .sum();
        assert!(taken >= from_input, "{taken} < {from_input}");
        // Laid down between input ranges, it is written in its place.
        p.input(0..2);
        p.function(edits);
        p.input(2..3);
        let out = p.finish(input, Endian::Little, Report::default());
        let mut expected = input[..2].to_vec();
        expected.extend_from_slice(new);
        expected.push(input[2]);
        assert_eq!(out.to_words(), expected);
        assert_eq!(out.len_words(), expected.len());
        assert_eq!(out.into_specialized().words(), expected);
        new.len() - taken
    }

    #[test]
    fn an_edit_list_never_extends_the_one_before_it() {
        // Two functions side by side in the input: the first's list ends
        // with an input range that the second's first run continues, and
        // with own words that the second's first own words follow. Each
        // list must spell only its own function, whatever is laid down.
        let input: Vec<u32> = (10..30).collect();
        for (f1, f2) in [
            (input[0..10].to_vec(), input[10..20].to_vec()),
            (vec![1 << 16 | 99], vec![1 << 16 | 98]),
        ] {
            let mut p = Pieces::default();
            let first = p.add_function(&input, 0..10, &f1);
            let second = p.add_function(&input, 10..20, &f2);
            for (edits, words) in [(first.clone(), &f1), (second.clone(), &f2)] {
                let mut got = Vec::new();
                p.function_words(&input, edits, &mut got);
                assert_eq!(&got, words);
            }
            // The first function removed, the second kept.
            p.function(second);
            let out = p.finish(&input, Endian::Little, Report::default());
            assert_eq!(out.to_words(), f2);
        }
    }

    #[test]
    fn edit_lists_take_unchanged_runs_from_the_input() {
        // A function: its head, then blocks 100 (-> 200), 200, 300, 400.
        let head = [
            inst(op::Function, &[7, 50, 0, 8]),
            inst(op::FunctionParameter, &[7, 51]),
        ];
        let blocks = [
            block(100, 3, 200),
            block(200, 4, 300),
            block(300, 2, 400),
            block(400, 5, 100),
        ];
        let end = inst(op::FunctionEnd, &[]);
        let assemble = |blocks: &[&Vec<Vec<u32>>]| -> Vec<u32> {
            let mut w: Vec<u32> = head.concat();
            for b in blocks {
                w.extend(b.concat());
            }
            w.extend_from_slice(&end);
            w
        };
        let f = assemble(&[&blocks[0], &blocks[1], &blocks[2], &blocks[3]]);
        // Other words around the function in the input.
        let mut input = vec![9, 9, 9];
        input.extend_from_slice(&f);
        input.extend([9, 9]);
        let old = 3..3 + f.len();

        // Unchanged: all from the input, no own word.
        assert_eq!(round_trip(&input, old.clone(), &f, f.len()), 0);

        // An operand changed: one own word.
        let mut changed = f.clone();
        let at = head.concat().len() + 2 + 3; // %101's first operand
        changed[at] = 77;
        assert_eq!(round_trip(&input, old.clone(), &changed, f.len() - 1), 1);

        // Instructions deleted (two in a row, at a block's start and end),
        // a block dropped, and a terminator replaced by a shorter one.
        let mut b0 = blocks[0].clone();
        b0.remove(1);
        b0.remove(1);
        let mut b1 = blocks[1].clone();
        b1.remove(4);
        *b1.last_mut().unwrap() = inst(op::Return, &[]);
        let new = assemble(&[&b0, &b1, &blocks[3]]);
        // The OpReturn is new; so is the one word in which %103 differs
        // from the deleted %101 it is compared with first (same shape:
        // taken for a changed operand).
        let own = round_trip(&input, old.clone(), &new, new.len() - 2);
        assert_eq!(own, 2);

        // Blocks moved: found by their labels, wherever they are.
        let new = assemble(&[&blocks[3], &blocks[1], &blocks[0], &blocks[2]]);
        assert_eq!(round_trip(&input, old.clone(), &new, new.len()), 0);

        // Grown: a phi longer than the instruction it replaces, and a new
        // block; more words than the input's function.
        let mut b2 = blocks[2].clone();
        b2.insert(1, inst(op::Phi, &[7, 301, 1, 100, 2, 200, 3, 400]));
        let extra = block(500, 6, 100);
        let new = assemble(&[&blocks[0], &b2, &extra, &blocks[1], &blocks[3], &blocks[2]]);
        assert!(new.len() > f.len());
        // At most the new words are own (some words of the new block
        // equal the input's: those are taken too).
        let added = extra.concat().len() + 9;
        let own = round_trip(&input, old.clone(), &new, new.len() - added);
        assert!(own <= added);

        // Words that are not instructions (a header claiming more words
        // than there are, zero word counts) still come out exactly.
        let new = vec![0, 0, (9 << 16) | 5, 1, 2];
        round_trip(&input, old.clone(), &new, 0);
        let new = [&f[..], &[0xffff_0000][..]].concat();
        round_trip(&input, old, &new, f.len());
    }

    #[test]
    fn edit_lists_spell_any_new_words() {
        // Random functions against random edits of them: whatever is
        // found or not, the list spells the new words exactly.
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move |n: u32| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % u64::from(n)) as u32
        };
        for _ in 0..300 {
            let mut f = Vec::new();
            for _ in 0..next(40) {
                match next(4) {
                    0 => f.extend(inst(op::Label, &[next(20)])),
                    1 => f.push(next(3) << 16 | next(300)),
                    _ => f.extend(inst(
                        op::LogicalAnd,
                        &[next(5), next(50), next(50), next(50)],
                    )),
                }
            }
            let mut new = f.clone();
            for _ in 0..next(6) {
                let at = next(new.len() as u32 + 1) as usize;
                match next(3) {
                    0 if at < new.len() => {
                        new.remove(at);
                    }
                    1 => new.insert(at, next(1 << 20)),
                    _ if at < new.len() => new[at] = next(1 << 20),
                    _ => {}
                }
            }
            let input = [&[1, 2, 3][..], &f, &[4, 5]].concat();
            round_trip(&input, 3..3 + f.len(), &new, 0);
        }
    }
}
