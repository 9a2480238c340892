//! The specialized module as pieces, in order: ranges of the input words
//! (everything the pass did not change, copied by nobody) and words of its
//! own (the header, changed module-scope instructions, new constants, and
//! the words of rewritten functions that differ from the input). A
//! rewritten function is kept as an edit list against the input
//! ([`Pieces::add_function`]): the stretches the rewrite kept are input
//! ranges, so only the words it changed or made are held.
//! A writer streams the pieces to a file without ever holding the whole
//! output; [`Output::to_words`] makes the one `Vec` that [`Specialized`]
//! keeps for library users (a large module's in two parts, on two cores:
//! the copy into fresh pages, each a fault, took a quarter of an
//! in-process run at 100 MB), and [`Detached::lay_down_in`] lays the
//! pieces down in the input's own buffer instead
//! ([`super::specialize_in_place`]).

use std::borrow::Cow;
use std::mem::MaybeUninit;
use std::ops::Range;
use std::sync::Arc;

use crate::module::Endian;
use crate::parallel;

use super::function::Span;
use super::{Report, Specialized, Words};

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
fn lay_down(list: &mut Vec<Piece>, kind: Kind, mut range: Range<usize>) {
    if let Some(last) = list.last_mut()
        && last.kind() == kind
        && last.start() + last.len() == range.start
        && !range.is_empty()
    {
        let n = range.len().min(MAX_LEN - last.len());
        *last = Piece::new(kind, last.start(), last.len() + n);
        range.start += n;
    }
    push_pieces(list, kind, range);
}

/// Appends `kind` pieces for `range` to `list` without merging: as many as
/// it takes (a piece holds at most [`MAX_LEN`] words).
fn push_pieces(list: &mut Vec<Piece>, kind: Kind, mut range: Range<usize>) {
    while !range.is_empty() {
        let n = range.len().min(MAX_LEN);
        list.push(Piece::new(kind, range.start, n));
        range.start += n;
    }
}

/// The output's words as pieces being laid down in order: adjacent input
/// ranges (and adjacent own ranges) merge, so an untouched run of
/// functions is one piece.
#[derive(Debug, Default, Clone, PartialEq)]
pub(super) struct Pieces {
    /// Words the pass made; the pieces refer to ranges of them.
    own: Vec<u32>,
    /// The rewritten functions' edit lists, one after the other.
    edits: Vec<Piece>,
    /// The output in order.
    pieces: Vec<Piece>,
    /// How many words the pieces laid down hold.
    len: usize,
}

/// How many used-up edit-list pieces [`Output::into_specialized`] lets
/// gather before it gives their memory back (512 KiB).
const RELEASE: usize = 1 << 16;

/// From this many own words (4 MiB) on, [`Output::into_specialized`]
/// gathers the module inside the new buffer, without holding the own
/// words beside it ([`Output::gather_in_place`]: on the 100 MB benchmark
/// module they are 1.39 M words, 5.6 MB, which the in-process memory
/// target has no room for); below, it copies the pieces in order into a
/// buffer it need not zero first, which was 12% faster on the 10 MB
/// module (0.14 M own words) and holds at most 4 MiB more.
const GATHER_IN_PLACE: usize = 1 << 20;

impl Pieces {
    /// No pieces yet; room for `own` own words, `edits` pieces of edit
    /// lists and `pieces` pieces of the output.
    pub(super) fn with_capacity(own: usize, edits: usize, pieces: usize) -> Pieces {
        Pieces {
            own: Vec::with_capacity(own),
            edits: Vec::with_capacity(edits),
            pieces: Vec::with_capacity(pieces),
            len: 0,
        }
    }

    /// The buffer of new words, to append to; [`Pieces::own_since`] then
    /// lays down what was appended.
    pub(super) fn own(&mut self) -> &mut Vec<u32> {
        &mut self.own
    }

    /// Lays down `input[range]`.
    pub(super) fn input(&mut self, range: Range<usize>) {
        self.len += range.len();
        lay_down(&mut self.pieces, Kind::Input, range);
    }

    /// Lays down the words appended to the buffer since its length was
    /// `start`.
    pub(super) fn own_since(&mut self, start: usize) {
        let end = self.own.len();
        self.len += end - start;
        lay_down(&mut self.pieces, Kind::Own, start..end);
    }

    /// Lays down everything `next` laid down after what this laid down:
    /// its own words and edit lists are appended to this one's.
    pub(super) fn append(&mut self, next: Pieces) {
        let base = self.own.len();
        self.own.extend_from_slice(&next.own);
        self.len += next.len;
        let own = |p: Piece| match p.kind() {
            Kind::Own => Piece::new(Kind::Own, base + p.start(), p.len()),
            _ => p,
        };
        for p in next.pieces {
            match p.kind() {
                Kind::Edits => {
                    let start = self.edits.len();
                    (self.edits).extend(next.edits[p.range()].iter().map(|&e| own(e)));
                    self.pieces.push(Piece::new(Kind::Edits, start, p.len()));
                }
                kind => lay_down(&mut self.pieces, kind, own(p).range()),
            }
        }
    }

    /// Lays down the rewritten function whose edit list is `edits` (as
    /// [`Pieces::add_function`] returned it).
    pub(super) fn function(&mut self, edits: Range<usize>) {
        if edits.is_empty() {
            return;
        }
        self.len += self.edits[edits.clone()]
            .iter()
            .map(|p| p.len())
            .sum::<usize>();
        // Edit lists are never merged: each is its own piece.
        self.pieces
            .push(Piece::new(Kind::Edits, edits.start, edits.len()));
    }

    /// Keeps the rewritten function whose words are `spans` (of the input
    /// and of `own`, the rewrite's own words with their constants) as an
    /// edit list, not yet laid down; returns where the list is, for
    /// [`Pieces::function`] and [`Pieces::function_words`]. Its own words
    /// are copied, all at once (a rewrite writes each of them for one span
    /// of its own, in order: test and fuzz builds check that its own
    /// spans take them so); its input spans stay ranges of the input.
    pub(super) fn add_function(
        &mut self,
        spans: impl IntoIterator<Item = Span>,
        own: &[u32],
    ) -> Range<usize> {
        let start = self.edits.len();
        let base = self.own.len();
        self.own.extend_from_slice(own);
        // (Where the next own span should start.)
        let mut next_own = 0;
        // (The rewrite merged its adjacent spans, and the list never
        // extends the one before it, which may be laid down elsewhere or
        // not at all: nothing to merge.)
        for span in spans {
            let range = span.start..span.start + span.len;
            if span.own {
                if cfg!(any(debug_assertions, fuzzing)) {
                    assert_eq!(
                        range.start, next_own,
                        "own spans take the own words in order"
                    );
                    next_own = range.end;
                }
                push_pieces(
                    &mut self.edits,
                    Kind::Own,
                    base + range.start..base + range.end,
                );
            } else {
                push_pieces(&mut self.edits, Kind::Input, range);
            }
        }
        if cfg!(any(debug_assertions, fuzzing)) {
            assert_eq!(next_own, own.len(), "own spans take all the own words");
        }
        start..self.edits.len()
    }

    /// The words of the rewritten function whose edit list is `edits`,
    /// appended to `out`.
    pub(super) fn function_words(&self, input: &[u32], edits: Range<usize>, out: &mut Vec<u32>) {
        let edits = &self.edits[edits];
        // (Room at once: a function's pieces are many, and grown by
        // doubling `out` took a reallocation every few.)
        out.reserve(edits.iter().map(|p| p.len()).sum());
        for p in edits {
            out.extend_from_slice(slice(input, &self.own, *p));
        }
    }

    /// The finished output over `input`.
    pub(super) fn finish(self, input: &[u32], endian: Endian, report: Report) -> Output<'_> {
        Output {
            input,
            parts: Detached {
                own: self.own,
                edits: self.edits,
                pieces: self.pieces,
                len: self.len,
                endian,
                report,
            },
        }
    }
}

/// The input and own pieces `top` stands for: itself, or the edit list
/// (in `edits`) it lays down.
fn opened<'a>(edits: &'a [Piece], top: &'a Piece) -> &'a [Piece] {
    match top.kind() {
        Kind::Edits => &edits[top.range()],
        _ => std::slice::from_ref(top),
    }
}

/// Copies `src` to the start of `dst`, words not yet written, and returns
/// the rest of `dst` (as `<[MaybeUninit<u32>]>::write_copy_of_slice` would,
/// which the crate's oldest supported Rust, 1.88, lacks).
fn write_words<'a>(dst: &'a mut [MaybeUninit<u32>], src: &[u32]) -> &'a mut [MaybeUninit<u32>] {
    let (head, rest) = dst.split_at_mut(src.len());
    // SAFETY: `head` holds exactly `src.len()` words, and a `&mut` borrow
    // cannot overlap the `&` borrow `src`; `MaybeUninit<u32>` has the
    // layout of `u32`.
    unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), head.as_mut_ptr().cast(), src.len()) };
    rest
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
    /// Everything else: the pieces and what they need besides the input.
    parts: Detached,
}

impl<'w> Output<'w> {
    /// The module's words, host order, in pieces to be concatenated.
    pub fn chunks(&self) -> impl Iterator<Item = &[u32]> + '_ {
        self.parts
            .flat_pieces()
            .map(|p| slice(self.input, &self.parts.own, p))
    }

    /// How many words of its own the output holds (the rest are ranges
    /// of the input).
    #[cfg(test)]
    pub(super) fn own_len(&self) -> usize {
        self.parts.own.len()
    }

    /// The module's length in words.
    pub fn len_words(&self) -> usize {
        debug_assert_eq!(
            self.parts.len,
            self.chunks().map(<[u32]>::len).sum::<usize>()
        );
        self.parts.len
    }

    /// The module's words in one buffer of exactly their size.
    pub fn to_words(&self) -> Vec<u32> {
        self.parts.gather(self.input)
    }

    /// The output without its borrow of the input words, to be laid down
    /// in the buffer that holds them ([`Detached::lay_down_in`]).
    pub(super) fn detach(self) -> Detached {
        self.parts
    }

    /// The byte order the module is written in (the input's).
    pub fn endian(&self) -> Endian {
        self.parts.endian
    }

    /// What was resolved and removed.
    pub fn report(&self) -> &Report {
        &self.parts.report
    }

    /// The report, to complete.
    pub(super) fn report_mut(&mut self) -> &mut Report {
        &mut self.parts.report
    }

    /// The module in one buffer, with its report.
    pub fn into_specialized(mut self) -> Specialized {
        let words = Words::Own(Arc::new(self.take_words()));
        self.parts.specialized(words)
    }

    /// The module's words in one buffer of exactly their size: the
    /// pieces copied in order into a buffer that need not be zeroed first,
    /// or, from [`GATHER_IN_PLACE`] own words on,
    /// [`Output::gather_in_place`].
    fn take_words(&mut self) -> Vec<u32> {
        // (Fuzzing gathers both ways, each in two parts where it can, and
        // checks that they agree with the pieces concatenated.)
        if cfg!(fuzzing) {
            let pieces: Vec<u32> = self.chunks().flatten().copied().collect();
            let in_order = self.to_words();
            let in_place = self.gather_in_place();
            assert!(in_place == in_order, "the two gathers differ");
            assert!(in_place == pieces, "the gathers differ from the pieces");
            return in_place;
        }
        if self.parts.own.len() >= GATHER_IN_PLACE {
            return self.gather_in_place();
        }
        self.to_words()
    }

    /// The module's words in one buffer of exactly their size, made
    /// without holding the own buffer beside the whole module: the own
    /// pieces' words are first copied, in output order, to the start of
    /// the new buffer (zeroed pages the kernel has not yet given, so the
    /// rest costs nothing until written) and the own buffer is freed; then
    /// the pieces are written back to front, own ones moved from that
    /// head. A large module is made in two parts ([`Detached::halves`]),
    /// each its own pieces' own words at its head and written back to
    /// front on a thread of its own; in one part, the edit lists are freed
    /// as they are used up (when they are laid down in the order they
    /// were made, as the driver does).
    ///
    /// Nothing is overwritten before it is read: when a piece is written
    /// to `[d, d + n)` of its part, the own words not yet moved lie in
    /// `[0, head)` of it and belong to it and the pieces before it, which
    /// fill `[0, d + n)`; the pieces before it hold at most `d` of them,
    /// so an input piece's place is past `head`, and an own piece's
    /// source, the last `n` of them, ends at or before its place's end
    /// (moved with `copy_within`). Leaves the output empty.
    fn gather_in_place(&mut self) -> Vec<u32> {
        let len = self.len_words();
        let mut words = vec![0u32; len];
        crate::huge_pages::advise(&mut words);
        let parts = &mut self.parts;
        // (In two parts on two threads, each its own pieces' own words at
        // its head, when the module is large enough.)
        let (k, mid) = parts.halves().unwrap_or((parts.pieces.len(), len));
        let mut heads = [0, mid];
        for (head, tops) in heads
            .iter_mut()
            .zip([&parts.pieces[..k], &parts.pieces[k..]])
        {
            let opened = tops.iter().flat_map(|top| opened(&parts.edits, top));
            for p in opened.filter(|p| p.kind() == Kind::Own) {
                words[*head..*head + p.len()].copy_from_slice(&parts.own[p.range()]);
                *head += p.len();
            }
        }
        parts.own = Vec::new();
        let pieces = std::mem::take(&mut parts.pieces);
        if k < pieces.len() {
            let (front, back) = words.split_at_mut(mid);
            let (edits, input) = (&parts.edits[..], self.input);
            let lay = |part: &mut [u32], mut head: usize, tops: &[Piece]| {
                let mut at = part.len();
                for top in tops.iter().rev() {
                    at = lay_back(part, at, &mut head, opened(edits, top), input);
                }
            };
            parallel::both(
                || lay(front, heads[0], &pieces[..k]),
                || lay(back, heads[1] - mid, &pieces[k..]),
            );
            return words;
        }
        // In one part, the edit lists freed as they are used up (when they
        // are laid down in the order they were made, as the driver does).
        let in_order = (pieces.iter())
            .filter(|p| p.kind() == Kind::Edits)
            .map(|p| p.range())
            .is_sorted_by(|a, b| a.end <= b.start);
        let (mut at, mut head) = (len, heads[0]);
        for top in pieces.iter().rev() {
            at = lay_back(
                &mut words,
                at,
                &mut head,
                opened(&parts.edits, top),
                self.input,
            );
            if in_order && top.kind() == Kind::Edits {
                parts.edits.truncate(top.start());
                if parts.edits.capacity() - parts.edits.len() >= RELEASE {
                    parts.edits.shrink_to_fit();
                }
            }
        }
        words
    }
}

/// Lays `pieces` down back to front in `words`, ending at word `at`, the
/// own pieces' words moved from those not yet moved, `words[..*head]`
/// (see [`Output::gather_in_place`]); returns where they begin.
fn lay_back(
    words: &mut [u32],
    mut at: usize,
    head: &mut usize,
    pieces: &[Piece],
    input: &[u32],
) -> usize {
    for p in pieces.iter().rev() {
        let n = p.len();
        at -= n;
        match p.kind() {
            Kind::Own => {
                *head -= n;
                words.copy_within(*head..*head + n, at);
            }
            _ => words[at..at + n].copy_from_slice(&input[p.range()]),
        }
    }
    at
}

/// An output but the input words it borrows: what an [`Output`] holds
/// beside them. [`Output::detach`] gives it up to be laid down in the
/// buffer that holds those words ([`super::specialize_in_place`]).
#[derive(Debug)]
pub(super) struct Detached {
    own: Vec<u32>,
    edits: Vec<Piece>,
    pieces: Vec<Piece>,
    /// The module's length in words.
    len: usize,
    endian: Endian,
    report: Report,
}

impl Detached {
    /// The module laid down in `buf`, the buffer whose bytes were the
    /// input words the output was made from: in place when it can be done
    /// front to back ([`Detached::fits_in`]), the buffer then cut to the
    /// module's length; otherwise gathered from `buf` into a new buffer,
    /// as [`Output::into_specialized`] does.
    pub(super) fn lay_down_in(self, mut buf: Vec<u8>) -> Specialized {
        let laid = match bytemuck::try_cast_slice_mut::<u8, u32>(&mut buf) {
            Ok(words) if self.fits_in(words.len()) => {
                self.lay_down(words);
                true
            }
            _ => false,
        };
        if laid {
            buf.truncate(self.len * 4);
            // (Gives back the pages past the module; a move off word
            // alignment, never seen, would make it a copy below.)
            buf.shrink_to_fit();
            if bytemuck::try_cast_slice::<u8, u32>(&buf).is_ok() {
                return self.specialized(Words::Input(Arc::new(buf)));
            }
            let words: Vec<u32> = bytemuck::pod_collect_to_vec(&buf);
            return self.specialized(Words::Own(Arc::new(words)));
        }
        let input: Cow<'_, [u32]> = match bytemuck::try_cast_slice(&buf) {
            Ok(words) => Cow::Borrowed(words),
            Err(_) => Cow::Owned(bytemuck::pod_collect_to_vec(&buf)),
        };
        let words = self.gather(&input);
        self.specialized(Words::Own(Arc::new(words)))
    }

    /// The module's words, its pieces over `input`, in one buffer of
    /// exactly their size.
    fn gather(&self, input: &[u32]) -> Vec<u32> {
        let mut words = Vec::with_capacity(self.len);
        crate::huge_pages::advise(&mut words);
        let free = &mut words.spare_capacity_mut()[..self.len];
        match self.halves() {
            Some((k, mid)) => {
                let (front, back) = free.split_at_mut(mid);
                parallel::both(
                    || self.fill(input, &self.pieces[..k], front),
                    || self.fill(input, &self.pieces[k..], back),
                );
            }
            None => self.fill(input, &self.pieces, free),
        }
        // SAFETY: `fill` wrote every one of the `self.len` words (it
        // panics otherwise).
        unsafe { words.set_len(self.len) };
        words
    }

    /// Writes the words of `tops` (top pieces) over `input` into `out`,
    /// which they fill exactly.
    fn fill(&self, input: &[u32], tops: &[Piece], mut out: &mut [MaybeUninit<u32>]) {
        // (Loops, not `flat_pieces`: a flattening iterator costs more a
        // piece.)
        for top in tops {
            for &p in opened(&self.edits, top) {
                out = write_words(out, slice(input, &self.own, p));
            }
        }
        assert!(out.is_empty(), "the pieces fill the module's words");
    }

    /// Where the module splits in two parts of about equal words between
    /// top pieces, to be gathered on two threads: the first top piece of
    /// the second part and the word it starts at. `None` on one core and
    /// for a module below [`parallel::pieces`]' size, where a thread costs
    /// more than it saves (fuzz builds split every module they can). (A
    /// top piece holds at most a megaword, or one function's edit list.)
    fn halves(&self) -> Option<(usize, usize)> {
        if parallel::pieces(self.len, 2) < 2 && !cfg!(fuzzing) {
            return None;
        }
        let mut at = 0;
        for (k, top) in self.pieces.iter().enumerate() {
            if at >= self.len / 2 {
                return Some((k, at));
            }
            at += opened(&self.edits, top)
                .iter()
                .map(|p| p.len())
                .sum::<usize>();
        }
        None
    }

    /// The input and own pieces in order (edit lists opened).
    fn flat_pieces(&self) -> impl Iterator<Item = Piece> + '_ {
        self.pieces
            .iter()
            .flat_map(|p| opened(&self.edits, p))
            .copied()
    }

    /// True when the module fits in `n` words and every input piece starts
    /// at or after its place in the output. Then laying the pieces down
    /// front to back reads each input piece before anything is written
    /// over it: what is written before piece `j` ends at its place, at or
    /// before its start.
    fn fits_in(&self, n: usize) -> bool {
        if self.len > n {
            return false;
        }
        let mut at = 0;
        self.flat_pieces().all(|p| {
            let behind = p.kind() == Kind::Input && p.start() < at;
            at += p.len();
            !behind
        })
    }

    /// Lays the pieces down front to back in `words`, which holds the
    /// input ([`Detached::fits_in`] must be true).
    fn lay_down(&self, words: &mut [u32]) {
        let mut at = 0;
        for top in &self.pieces {
            for p in opened(&self.edits, top) {
                let n = p.len();
                match p.kind() {
                    Kind::Input => words.copy_within(p.range(), at),
                    _ => words[at..at + n].copy_from_slice(&self.own[p.range()]),
                }
                at += n;
            }
        }
    }

    /// The result, its words in `words`.
    fn specialized(self, words: Words) -> Specialized {
        Specialized {
            words,
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
        assert_eq!(out.parts.pieces.len(), 4);
        let chunks: Vec<&[u32]> = out.chunks().collect();
        assert_eq!(chunks, [&[10, 11, 12][..], &[1, 2, 3], &[14, 15], &[4]]);
        assert_eq!(out.len_words(), 9);
        assert_eq!(out.to_words(), [10, 11, 12, 1, 2, 3, 14, 15, 4]);
        assert_eq!(both_ways(out), [10, 11, 12, 1, 2, 3, 14, 15, 4]);
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
            p.len += own.len();
            lay_down(&mut p.pieces, Kind::Own, own);
            p.input(input);
        }
        let out = p.finish(&input, Endian::Little, Report::default());
        let expected = [6, 7, 10, 1, 2, 3, 1, 2, 3, 12, 3, 4, 5, 6];
        assert_eq!(out.to_words(), expected);
        assert_eq!(both_ways(out), expected);
        // Edit lists laid down in the order they were made (freed as
        // they are used up), and out of it, one twice (kept to the end).
        let module: Vec<u32> = (100..140).collect();
        let f1: Vec<u32> = [&module[0..6], &[1, 2], &module[8..12]].concat();
        let f2: Vec<u32> = [&[3][..], &module[20..30], &[4, 5]].concat();
        for order in [[0, 1, 1], [1, 0, 0], [0, 1, 0]] {
            let mut p = Pieces::default();
            let lists = [
                p.add_function(
                    spans(&[(false, 0..6), (true, 0..2), (false, 8..12)]),
                    &[1, 2],
                ),
                p.add_function(
                    spans(&[(true, 0..1), (false, 20..30), (true, 1..3)]),
                    &[3, 4, 5],
                ),
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
            assert_eq!(both_ways(out), expected);
        }
        // Nothing of its own: the input's words.
        let mut p = Pieces::default();
        p.input(0..3);
        let out = p.finish(&input, Endian::Little, Report::default());
        assert_eq!(both_ways(out), input);
    }

    /// A module large enough to be gathered in two parts on two threads
    /// ([`Detached::halves`]), input runs, edit lists and own words
    /// falling in both: the chunks concatenated, gathered in order, in
    /// place in a new buffer and in the input's buffer.
    #[test]
    fn a_large_module_is_gathered_in_two_parts_as_in_one() {
        let n = 3 << 20;
        let module: Vec<u32> = (0..n as u32)
            .map(|x| x.wrapping_mul(2_654_435_761))
            .collect();
        let mut p = Pieces::default();
        let (mut at, mut k) = (0, 0u32);
        while at + 200_000 < n {
            let run = 1000 + (k as usize * 7919) % 150_000;
            p.input(at..at + run);
            at += run;
            let kept = [
                (false, at..at + 500),
                (true, 0..2),
                (false, at + 600..at + 1000),
            ];
            let list = p.add_function(spans(&kept), &[k, !k]);
            p.function(list);
            at += 1000;
            let start = p.own().len();
            p.own().extend([k; 3]);
            p.own_since(start);
            k += 1;
        }
        p.input(at..n);
        let out = p.finish(&module, Endian::Little, Report::default());
        assert!(
            crate::parallel::workers(2) < 2 || out.parts.halves().is_some(),
            "gathered in one part"
        );
        let expected: Vec<u32> = out.chunks().flatten().copied().collect();
        assert_eq!(out.to_words(), expected);
        assert_eq!(both_ways(out), expected);
    }

    /// The one buffer as [`Output::into_specialized`] makes it, after
    /// checking that [`Output::gather_in_place`] and
    /// [`Detached::lay_down_in`] (in a copy of the input's bytes) make
    /// the same.
    fn both_ways(out: Output<'_>) -> Vec<u32> {
        let in_place = copy_of(&out).gather_in_place();
        let input_bytes: Vec<u8> = bytemuck::cast_slice(out.input).to_vec();
        let laid = copy_of(&out).detach().lay_down_in(input_bytes);
        let words = out.into_specialized().words().to_vec();
        assert_eq!(in_place, words);
        assert_eq!(laid.words(), words);
        words
    }

    /// A copy of `out` (its report left out).
    fn copy_of<'w>(out: &Output<'w>) -> Output<'w> {
        let p = &out.parts;
        Output {
            input: out.input,
            parts: Detached {
                own: p.own.clone(),
                edits: p.edits.clone(),
                pieces: p.pieces.clone(),
                len: p.len,
                endian: p.endian,
                report: Report::default(),
            },
        }
    }

    /// In the input's buffer, the module is laid down where every input
    /// piece starts at or after its place in the output; where one would
    /// be written over before it is read, it is gathered into a new
    /// buffer. Both give the module.
    #[test]
    fn laid_down_in_the_input_only_when_front_to_back_is_safe() {
        let input: Vec<u32> = (10..30).collect();
        let laid = |build: &dyn Fn(&mut Pieces)| {
            let mut p = Pieces::default();
            build(&mut p);
            let out = p.finish(&input, Endian::Little, Report::default());
            let want = out.to_words();
            let s = out
                .detach()
                .lay_down_in(bytemuck::cast_slice(&input).to_vec());
            assert_eq!(s.words(), want);
            matches!(s.words, Words::Input(_))
        };
        // Own words first, shorter than what they replace; input pieces
        // moving down, one overlapping its own place.
        assert!(laid(&|p| {
            p.own().extend([1, 2]);
            p.own_since(0);
            p.input(3..8);
            p.input(9..10);
            p.own().push(3);
            p.own_since(2);
            p.input(12..20);
        }));
        // Nothing removed: every piece in its place.
        assert!(laid(&|p| p.input(0..20)));
        // Own words that push an input piece past its start: the piece
        // would be written over before it is read.
        assert!(!laid(&|p| {
            p.own().extend([1, 2, 3]);
            p.own_since(0);
            p.input(1..20);
        }));
        // A module longer than the buffer.
        assert!(!laid(&|p| {
            p.input(0..20);
            p.own().push(4);
            p.own_since(0);
        }));
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

    /// Spans of (own, range) pairs.
    fn spans(parts: &[(bool, Range<usize>)]) -> Vec<Span> {
        parts
            .iter()
            .map(|(own, r)| Span {
                start: r.start,
                len: r.len(),
                own: *own,
            })
            .collect()
    }

    #[test]
    fn an_edit_list_never_extends_the_one_before_it() {
        // Two functions side by side in the input: the first's list ends
        // with an input range that the second's first run continues, and
        // with own words that the second's first own words follow. Each
        // list must spell only its own function, whatever is laid down.
        // (Each function's own words are its own: the second's follow the
        // first's in the buffer.)
        let input: Vec<u32> = (10..30).collect();
        for (s1, s2, own1, own2) in [
            ((false, 0..10), (false, 10..20), &[][..], &[][..]),
            (
                (true, 0..1),
                (true, 0..1),
                &[1 << 16 | 99][..],
                &[1 << 16 | 98][..],
            ),
        ] {
            let words = |(own_words, r): &(bool, Range<usize>), own: &[u32]| {
                (if *own_words { own } else { &input[..] })[r.clone()].to_vec()
            };
            let (f1, f2) = (words(&s1, own1), words(&s2, own2));
            let mut p = Pieces::default();
            let first = p.add_function(spans(&[s1]), own1);
            let second = p.add_function(spans(&[s2]), own2);
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
    fn edit_lists_spell_their_spans_and_hold_only_own_words() {
        // Random functions as spans of a random input and own words: the
        // list spells them in order, holds only the own spans' words, and
        // is written in its place between input ranges.
        let mut below = crate::random::below(0x2545_f491_4f6c_dd1d);
        let mut next = move |n: usize| below(n as u64) as usize;
        let input: Vec<u32> = (1000..1100).collect();
        for _ in 0..300 {
            // (Own spans take the own words in order, as a rewrite writes
            // them: each span the words after the last.)
            let mut own = Vec::new();
            let mut parts = Vec::new();
            for _ in 0..next(12) {
                if next(2) == 0 {
                    let start = own.len();
                    own.extend((0..next(5) as u32).map(|k| 500 + start as u32 + k));
                    parts.push((true, start..own.len()));
                } else {
                    let start = next(input.len());
                    parts.push((false, start..start + next(input.len() - start + 1)));
                }
            }
            let expected: Vec<u32> = parts
                .iter()
                .flat_map(|(o, r)| (if *o { &own } else { &input })[r.clone()].to_vec())
                .collect();
            let mut p = Pieces::default();
            p.own().extend([1, 2, 3]); // module-scope words before
            let edits = p.add_function(spans(&parts), &own);
            let mut words = Vec::new();
            p.function_words(&input, edits.clone(), &mut words);
            assert_eq!(words, expected);
            let held: usize = parts.iter().filter(|(o, _)| *o).map(|(_, r)| r.len()).sum();
            assert_eq!(p.own.len(), 3 + held);
            p.input(0..2);
            p.function(edits);
            p.input(2..3);
            let out = p.finish(&input, Endian::Little, Report::default());
            let expected = [&input[..2], &expected, &input[2..3]].concat();
            assert_eq!(out.to_words(), expected);
            assert_eq!(both_ways(out), expected);
        }
    }
}
