//! What a function rewrite produces ([`Rewritten`]) and the builder both
//! rewrites write it with ([`Writing`]): the function's new words as spans
//! of the input and of its own words, the callees it still calls, the ids
//! it removed, the uses it could not fold and what it did, for the report.

use std::ops::Range;

use crate::fastmap::Map as HashMap;
use crate::module::{Inst, push_inst};

use super::decode::cleared;

/// A use of a chain value the pass cannot fold, found in a live block.
#[derive(Debug, Clone)]
pub(crate) struct BadUse {
    /// Label of the block.
    pub block: u32,
    /// The using instruction.
    pub inst: Inst,
    /// The chain value it uses.
    pub value: u32,
}

/// A stretch of a rewritten function's words: words of the input, which
/// the rewrite left as they are, or words of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    /// Where the words start: in the module's words, or in
    /// [`Rewritten::own`].
    pub start: usize,
    /// How many words.
    pub len: usize,
    /// The words are in [`Rewritten::own`], not in the input.
    pub own: bool,
}

/// What rewriting one function produced. Its spans and word lists are
/// packed in one buffer (a batch holds a rewrite per function and set of
/// values, and each allocation is a `malloc` and a `free`); [`Writing`]
/// builds it.
#[derive(Debug, Clone)]
pub(crate) struct Rewritten {
    /// [`Rewritten::spans`], three words each ([`SPAN_WORDS`]), then
    /// [`Rewritten::own`], [`Rewritten::callees`],
    /// [`Rewritten::removed_ids`] and [`Rewritten::read_callees`].
    lists: Vec<u32>,
    /// Where the spans end in `lists`.
    spans_end: usize,
    /// Where [`Rewritten::own`] ends in `lists`.
    own_end: usize,
    /// Where [`Rewritten::callees`] ends in `lists`.
    callees_end: usize,
    /// Where [`Rewritten::removed_ids`] ends in `lists`.
    removed_end: usize,
    /// The quick read took the whole function: [`Rewritten::read_callees`]
    /// holds its calls.
    read: bool,
    /// Unresolved uses in live blocks.
    pub bad_uses: Vec<BadUse>,
    /// Conditional branches and switches made unconditional.
    pub branches_folded: usize,
    /// Selects replaced by their chosen operand.
    pub selects_folded: usize,
    /// Phis replaced by their one value.
    pub phis_folded: usize,
    /// Blocks removed.
    pub blocks_removed: usize,
    /// Positions in [`Rewritten::own`] that take the boolean constant of
    /// the given value (0 until then), in the order the rewrite needed
    /// them: the driver fills them, choosing each constant on its first
    /// need, so that the rewrite itself only reads the context.
    pub constant_uses: Vec<(usize, bool)>,
    /// Local chain values with their defining instruction, for messages
    /// (filled only when there are bad uses).
    pub chain_defs: HashMap<u32, Inst>,
}

/// The words of a [`Span`] in [`Rewritten`]'s buffer: its start, its
/// length and whether it is of the own words. (A span's start and length
/// fit in 32 bits: it lies in the module's words, which the parse keeps
/// below 2³², or in a rewrite's own words, no more than its function's.)
const SPAN_WORDS: usize = 3;

impl Rewritten {
    /// The function's new words (`OpFunction` … `OpFunctionEnd`), in
    /// order, as spans of the input and of [`Rewritten::own`]: the rewrite
    /// records what it keeps of the input as it writes, so nothing has to
    /// find it again by comparing words.
    pub(crate) fn spans(&self) -> impl ExactSizeIterator<Item = Span> + '_ {
        self.lists[..self.spans_end]
            .chunks_exact(SPAN_WORDS)
            .map(|w| Span {
                start: w[0] as usize,
                len: w[1] as usize,
                own: w[2] != 0,
            })
    }

    /// The words the rewrite wrote itself: the instructions it changed or
    /// made.
    pub(crate) fn own(&self) -> &[u32] {
        &self.lists[self.spans_end..self.own_end]
    }

    /// Callees of live `OpFunctionCall`s, in order.
    pub(crate) fn callees(&self) -> &[u32] {
        &self.lists[self.own_end..self.callees_end]
    }

    /// Result ids that no longer exist (deleted instructions, removed
    /// blocks), in no particular order.
    pub(crate) fn removed_ids(&self) -> &[u32] {
        &self.lists[self.callees_end..self.removed_end]
    }

    /// When the quick read took the whole function (whichever way it was
    /// then rewritten), the callee word of each `OpFunctionCall` of its
    /// blocks in the input, in order, function id or not: what the scan
    /// that stopped at the function's first trigger left out
    /// ([`Scan::stopping_early`](super::super::scan::Scan::stopping_early)).
    pub(crate) fn read_callees(&self) -> Option<&[u32]> {
        self.read.then(|| &self.lists[self.removed_end..])
    }

    /// This rewrite, with the callees of the quick read that took the
    /// function ([`Rewritten::read_callees`]) when the full rewrite made
    /// it.
    pub(super) fn with_read_callees(mut self, callees: &[u32]) -> Rewritten {
        self.lists.truncate(self.removed_end);
        self.lists.extend_from_slice(callees);
        self.read = true;
        self
    }
}

/// A [`Rewritten`] being written: its lists grow in the storage of an
/// [`Emitted`], which [`Writing::finish`] gives back.
#[derive(Debug, Default)]
pub(super) struct Writing<'r> {
    /// [`Rewritten::spans`], as they are kept ([`SPAN_WORDS`] each).
    pub(super) spans: Vec<[u32; SPAN_WORDS]>,
    /// [`Rewritten::own`].
    pub(super) own: Vec<u32>,
    /// [`Rewritten::callees`].
    pub(super) callees: Vec<u32>,
    /// [`Rewritten::bad_uses`].
    pub(super) bad_uses: Vec<BadUse>,
    /// [`Rewritten::removed_ids`].
    pub(super) removed_ids: Vec<u32>,
    /// [`Rewritten::read_callees`], when the quick read took the function.
    pub(super) read_callees: Option<&'r [u32]>,
    /// [`Rewritten::branches_folded`].
    pub(super) branches_folded: usize,
    /// [`Rewritten::selects_folded`].
    pub(super) selects_folded: usize,
    /// [`Rewritten::phis_folded`].
    pub(super) phis_folded: usize,
    /// [`Rewritten::blocks_removed`].
    pub(super) blocks_removed: usize,
    /// [`Rewritten::constant_uses`].
    pub(super) constant_uses: Vec<(usize, bool)>,
    /// [`Rewritten::chain_defs`].
    pub(super) chain_defs: HashMap<u32, Inst>,
}

impl Writing<'_> {
    /// An empty rewrite whose lists grow in `slot`'s storage (cleared).
    pub(super) fn new(slot: &mut Emitted) -> Self {
        Writing {
            spans: cleared(&mut slot.spans),
            own: cleared(&mut slot.own),
            callees: cleared(&mut slot.callees),
            removed_ids: cleared(&mut slot.removed_ids),
            ..Writing::default()
        }
    }

    /// The rewrite, its spans and lists copied into one buffer of exactly
    /// their size (so that rewrites kept for a while take no more memory
    /// than they fill), or into the storage of a rewrite given back to
    /// `slot` ([`Emitted::recycle`]), where there is one; the lists'
    /// storage goes back to `slot` for the next rewrite.
    pub(super) fn finish(self, slot: &mut Emitted) -> Rewritten {
        let spans = self.spans.as_flattened();
        let spans_end = spans.len();
        let read = self.read_callees.unwrap_or_default();
        let mut lists = match slot.spare.take() {
            Some(mut lists) => cleared(&mut lists),
            None => Vec::with_capacity(
                spans_end
                    + self.own.len()
                    + self.callees.len()
                    + self.removed_ids.len()
                    + read.len(),
            ),
        };
        lists.extend_from_slice(spans);
        lists.extend_from_slice(&self.own);
        let own_end = lists.len();
        lists.extend_from_slice(&self.callees);
        let callees_end = lists.len();
        lists.extend_from_slice(&self.removed_ids);
        let removed_end = lists.len();
        lists.extend_from_slice(read);
        let out = Rewritten {
            lists,
            spans_end,
            own_end,
            callees_end,
            removed_end,
            read: self.read_callees.is_some(),
            bad_uses: self.bad_uses,
            branches_folded: self.branches_folded,
            selects_folded: self.selects_folded,
            phis_folded: self.phis_folded,
            blocks_removed: self.blocks_removed,
            constant_uses: self.constant_uses,
            chain_defs: self.chain_defs,
        };
        (slot.spans, slot.own, slot.removed_ids, slot.callees) =
            (self.spans, self.own, self.removed_ids, self.callees);
        out
    }

    /// Appends the input's words `range` to the function.
    pub(super) fn take_input(&mut self, range: Range<usize>) {
        self.take(range.start, range.len(), false);
    }

    /// Appends the own words written since [`Writing::own`] held `start`
    /// words.
    pub(super) fn take_own(&mut self, start: usize) {
        self.take(start, self.own.len() - start, true);
    }

    /// Appends a new instruction of the rewrite's own.
    pub(super) fn write(&mut self, opcode: u16, operands: impl IntoIterator<Item = u32>) {
        let start = self.own.len();
        push_inst(&mut self.own, opcode, operands);
        self.take_own(start);
    }

    /// Appends a span, extending the last one where it continues it.
    pub(super) fn take(&mut self, start: usize, len: usize, own: bool) {
        if len == 0 {
            return;
        }
        // (Both fit in 32 bits: see [`SPAN_WORDS`].)
        let (start, len, own) = (start as u32, len as u32, u32::from(own));
        match self.spans.last_mut() {
            Some([at, n, kind]) if *kind == own && *at + *n == start => *n += len,
            _ => self.spans.push([start, len, own]),
        }
    }
}

/// The storage of a [`Writing`]'s lists, kept between rewrites.
#[derive(Default)]
pub(super) struct Emitted {
    spans: Vec<[u32; SPAN_WORDS]>,
    own: Vec<u32>,
    removed_ids: Vec<u32>,
    callees: Vec<u32>,
    /// The storage of a rewrite given back ([`Emitted::recycle`]), for
    /// the next [`Writing::finish`].
    spare: Option<Vec<u32>>,
}

impl Emitted {
    /// Takes back the storage of `r`, a rewrite no longer needed, for the
    /// next rewrite's lists: a caller that keeps one rewrite at a time
    /// then allocates none after the first.
    pub(super) fn recycle(&mut self, r: Rewritten) {
        self.spare = Some(r.lists);
    }
}
