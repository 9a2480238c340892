//! The function rewrites of one run: where each comes from (made on the
//! spot, computed ahead on other threads, or kept by a batch for the
//! groups that share it: [`RewriteSource`]) and what they produced, kept
//! in module order for the sweep and the emit ([`Rewrites`]).

use std::borrow::Cow;

use crate::error::Result;
use crate::fastmap::Map as HashMap;
use crate::idbits::IdBits;
use crate::module::{FunctionRange, Module};

use super::analysis::{Analysis, Rests};
use super::context::Context;
use super::output::Pieces;
use super::{function, scan};

/// Where [`Prepared::rewrite_functions`] gets each function's rewrite:
/// made on the spot ([`OneByOne`]), computed ahead on other threads
/// ([`Ahead`]), or kept by a batch for the groups that share it.
///
/// [`Prepared::rewrite_functions`]: super::prepared::Prepared::rewrite_functions
/// [`Ahead`]: super::ahead::Ahead
pub(super) trait RewriteSource {
    /// The rewrite of the `k`th function of the module, `f` (named
    /// `name`), under `ctx`: owned, or borrowed from the source until the
    /// next is asked for.
    fn rewrite(
        &mut self,
        k: usize,
        f: &FunctionRange,
        ctx: &Context<'_>,
        name: &str,
    ) -> Result<Cow<'_, function::Rewritten>>;

    /// True when the rests of the functions the scan stopped in were
    /// completed before the rewrites ([`Analysis::complete`]), as a batch
    /// does once for all its groups; else
    /// [`Prepared::rewrite_functions`] completes each from its rewrite.
    ///
    /// [`Prepared::rewrite_functions`]: super::prepared::Prepared::rewrite_functions
    fn completes_rests(&self) -> bool {
        false
    }
}

/// Rewrites made on the calling thread as they are asked for, all in one
/// scratch, each lent until the next is asked for (its storage then
/// serves the next: no allocation a rewrite after the first).
pub(super) struct OneByOne<'p, 'w> {
    pub(super) m: &'p Module<'w>,
    pub(super) scratch: function::Scratch,
    pub(super) last: Option<function::Rewritten>,
}

impl RewriteSource for OneByOne<'_, '_> {
    fn rewrite(
        &mut self,
        _: usize,
        f: &FunctionRange,
        ctx: &Context<'_>,
        name: &str,
    ) -> Result<Cow<'_, function::Rewritten>> {
        if let Some(done) = self.last.take() {
            self.scratch.recycle(done);
        }
        let r = function::rewrite(self.m, ctx, f.start, f.end, name, &mut self.scratch)?;
        Ok(Cow::Borrowed(self.last.insert(r)))
    }
}

/// What the function rewrites of one run produced.
pub(super) struct Rewrites {
    /// The new words of every rewritten function, as edit lists against
    /// the input, one after the other.
    pub(super) pieces: Pieces,
    /// Each rewritten function, in module order.
    done: Vec<Done>,
    /// The callees, then the tracked mentions, of each rewritten
    /// function, one after the other ([`Done::ids`]).
    ids: Vec<u32>,
    /// By place of a function id ([`Analysis::place`]): the index in
    /// `done` of the last rewrite of a function of that id, or [`NONE`].
    by_place: Vec<u32>,
    /// Result ids the rewrites deleted.
    pub(super) removed_ids: IdBits,
    /// The input's calls after the stops of the scan
    /// ([`Analysis::complete`]), for the roots.
    pub(super) rests: Rests,
    /// Unresolved uses, with the function's chain definitions for messages.
    pub(super) bad: Vec<(
        u32,
        Vec<function::BadUse>,
        HashMap<u32, crate::module::Inst>,
    )>,
}

/// No rewrite in [`Rewrites::by_place`].
const NONE: u32 = u32::MAX;

/// One function's rewrite.
pub(super) struct Done {
    /// Where its edit list is in [`Rewrites::pieces`].
    pub(super) edits: std::ops::Range<usize>,
    /// Where its ids are in [`Rewrites::ids`]: the callees it still calls,
    /// then the table-closure ids it still mentions.
    ids: std::ops::Range<usize>,
    /// How many of `ids` are callees.
    callees: usize,
}

/// The function a rewrite is of, as [`Rewrites::keep`] needs it.
pub(super) struct Kept {
    /// Its id.
    pub(super) id: u32,
    /// [`Scan::has_tracked_word`](scan::Scan::has_tracked_word) of it.
    pub(super) has_tracked_word: bool,
}

impl Rewrites {
    /// Room for the rewrites of `functions` functions: their edit lists
    /// in `pieces`, their callees (`callees` at most: rewrites only drop
    /// calls), an index by place of `places` function ids; `removed_ids`
    /// and `rests` to fill.
    pub(super) fn new(
        pieces: Pieces,
        functions: usize,
        callees: usize,
        places: usize,
        removed_ids: IdBits,
        rests: Rests,
    ) -> Rewrites {
        Rewrites {
            pieces,
            done: Vec::with_capacity(functions),
            ids: Vec::with_capacity(callees),
            by_place: vec![NONE; places],
            removed_ids,
            rests,
            bad: Vec::new(),
        }
    }

    /// Keeps the rewrite `r` of function `f`, whose own words with their
    /// constants are `own` (`None`: [`function::Rewritten::own`], when it
    /// takes no constants; `input`: the module's words): its edit list,
    /// the ids it deleted, the callees it still calls and the tracked table
    /// ids it still mentions (`words` is scratch for their scan), and the
    /// uses it could not fold.
    pub(super) fn keep(
        &mut self,
        a: &Analysis,
        f: Kept,
        r: Cow<'_, function::Rewritten>,
        own: Option<&[u32]>,
        input: &[u32],
        words: &mut Vec<u32>,
    ) -> Result<()> {
        let own = own.unwrap_or(r.own());
        let edits = self.pieces.add_function(r.spans(), own);
        self.removed_ids.extend(r.removed_ids().iter().copied());
        let ids_start = self.ids.len();
        self.ids.extend_from_slice(r.callees());
        let callees = r.callees().len();
        // What the rewrite kept of the input are whole instructions of the
        // function: when none of its words is in the tracked set, only its
        // own words could bring one (most functions: no copy, no scan).
        if f.has_tracked_word || a.tracked_table_ids.any_in(own) {
            // Scanned in one piece: a walk per span costs more than the copy.
            words.clear();
            self.pieces.function_words(input, edits.clone(), words);
            let tracked = scan::tracked_mentions_in(words, &a.tracked_table_ids, false)?;
            self.ids.extend_from_slice(&tracked);
        }
        let id = f.id;
        if !r.bad_uses.is_empty() {
            // A rewrite a batch keeps for its groups is copied from (its
            // chain definitions only when a message needs them).
            let (bad, defs) = match r {
                Cow::Owned(r) => (r.bad_uses, r.chain_defs),
                Cow::Borrowed(r) => (r.bad_uses.clone(), r.chain_defs.clone()),
            };
            self.bad.push((id, bad, defs));
        }
        // By id: a later function of the same id takes its place.
        if let Some(place) = a.place(id) {
            self.by_place[place] = self.done.len() as u32;
        }
        self.done.push(Done {
            edits,
            ids: ids_start..self.ids.len(),
            callees,
        });
        Ok(())
    }

    /// The rewrite of the function with id `f`, if it was rewritten (the
    /// last one of that id, when the module defines it twice).
    pub(super) fn of(&self, a: &Analysis, f: u32) -> Option<&Done> {
        self.at(a.place(f)?)
    }

    /// The rewrite of the function at `place` ([`Analysis::place`]), if
    /// it was rewritten.
    pub(super) fn at(&self, place: usize) -> Option<&Done> {
        let k = *self.by_place.get(place)?;
        self.done.get(k as usize)
    }

    /// The callees rewrite `d` still calls.
    pub(super) fn callees(&self, d: &Done) -> &[u32] {
        &self.ids[d.ids.start..d.ids.start + d.callees]
    }

    /// The table-closure ids rewrite `d` still mentions.
    pub(super) fn tracked(&self, d: &Done) -> &[u32] {
        &self.ids[d.ids.start + d.callees..d.ids.end]
    }
}
