//! One pass over every function's words, before anything is rewritten.
//!
//! For each function it records whether it reads a predicate (then it must be
//! rewritten), which functions it calls, which functions it references other
//! than by calling them (function pointers: those stay), and which of the
//! predicate table's constants and types it mentions. Each operand word
//! costs one table look-up (its class: rewrite trigger, function, tracked
//! table id or none), instruction by instruction; or, where no header can
//! equal an id of interest and the host has AVX2, every word of a body is
//! looked up at once ([`word_hits`]) and the headers are walked only up to
//! each word found. Only an instruction with a function or tracked word
//! among the ids it reads is decoded, so an untouched function costs one
//! linear scan.
//! A run for one target may stop the scan of a function at its first
//! trigger ([`Scan::stopping_early`]): the function is rewritten, and the
//! rewrite's read tells the rest's callees; what it cannot tell, the scan
//! of the rest does then ([`Scan::rest_of`]).
//! The facts of all functions live in a few shared vectors (a module may
//! hold 200,000 functions). From 8 MB up, the functions are scanned in
//! consecutive pieces on all cores and the pieces' lists joined in order.

use crate::error::Result;
use crate::idset::IdSet;
use crate::module::{FunctionRange, Module};
use crate::operands::{FlatIds, Role, flat_ids, for_each_id, op};
use crate::parallel;

use super::word_hits;

/// The most words of functions whose callees [`Scan::of`] reserves room
/// for at once.
const SMALL_BODIES: usize = 1 << 16;

/// Class bit: the id makes a function need rewriting.
const TRIGGER: u8 = 1;
/// Class bit: the id is a function's.
const FUNCTION: u8 = 2;
/// Class bit: the id's mentions are recorded.
const TRACKED: u8 = 4;

/// The ids a scan looks for: each id's class bits, one lookup per word.
#[derive(Clone)]
pub(super) struct Interest {
    /// True when a body's words are looked up all at once
    /// ([`word_hits`]): the host can, and no id of interest reaches 65,536,
    /// so that no header (`len << 16 | opcode`) can equal one. Otherwise
    /// the scan walks instruction by instruction, looking up only the
    /// operand words (in a module numbering its functions first and
    /// holding more than 65,536 of them, nearly every header would equal
    /// a function id).
    by_words: bool,
    /// Class of every id up to the largest member, when that is not much
    /// larger than the module (a hostile bound must not make us allocate
    /// gigabytes).
    dense: Vec<u8>,
    /// Otherwise `(id, class)`, sorted by id.
    sparse: Vec<(u32, u8)>,
}

impl Interest {
    /// Builds the classes of `triggers` (ids that make a function need
    /// rewriting), `functions` (every function id) and `tracked` (ids whose
    /// mentions are recorded); `module_words` bounds the table.
    pub(super) fn new(
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
    pub(super) fn is_function(&self, x: u32) -> bool {
        self.class(x) & FUNCTION != 0
    }

    /// The class bits of `x` (0 when it is of no interest).
    #[inline(always)]
    fn class(&self, x: u32) -> u8 {
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
    fn any(&self, words: &[u32]) -> u8 {
        words.iter().fold(0, |a, &x| a | self.class(x))
    }

    /// [`Interest::any`] for the operand words of one instruction: most
    /// have one to four, looked at without a loop.
    #[inline(always)]
    fn any_short(&self, words: &[u32]) -> u8 {
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
    fn next_hit(&self, body: &[u32], from: usize) -> Option<(usize, usize, u8)> {
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

/// Where each of `pieces` runs of consecutive functions of about equal
/// words starts, and, last, the end of the last: `pieces + 1` indices
/// into `functions`.
fn piece_bounds(functions: &[FunctionRange], pieces: usize) -> Vec<usize> {
    let total: usize = functions.iter().map(|f| f.end - f.start).sum();
    let mut bounds = Vec::with_capacity(pieces + 1);
    bounds.push(0);
    let mut words = 0;
    for (k, f) in functions.iter().enumerate() {
        if bounds.len() < pieces && words >= total / pieces * bounds.len() {
            bounds.push(k);
        }
        words += f.end - f.start;
    }
    while bounds.len() <= pieces {
        bounds.push(functions.len());
    }
    bounds
}

/// What the scan learned about one function; its lists are ranges of
/// [`Scan`]'s shared vectors (12 bytes a function: the lists' lengths fit
/// in 32 bits, as the module's words do).
#[derive(Debug, Clone, Copy, PartialEq)]
struct FunctionFacts {
    /// End of its callees in [`Scan::callees`] (they start where the
    /// previous function's end).
    callees_end: u32,
    /// End of its tracked table ids in [`Scan::tracked`].
    tracked_end: u32,
    /// True when a word of the function after an instruction's first is in
    /// the tracked set (read as an id or not).
    has_tracked_word: bool,
}

/// Where the scan of a function stopped: at the end of the instruction
/// holding its first rewrite trigger, when the scan was asked to stop
/// there ([`Scan::stopping_early`]). The rewrite reads the rest anyway;
/// what the scan would have found in it, the rewrite's read tells
/// ([`Scan::rest_of`] finds it where the read cannot).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Stop {
    /// The function, by index in the module.
    pub function: u32,
    /// The module word where the rest begins.
    pub rest_at: u32,
    /// How many words of the rest are function ids: as many as its calls
    /// of functions when the rest references no function otherwise, and
    /// no literal equals a function's id.
    pub rest_functions: u32,
}

/// What the scan learned about every function, in module order.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Scan {
    facts: Vec<FunctionFacts>,
    /// The functions that read a predicate or a value folded from one (and
    /// so need a rewrite), by index in the module, in order. (Function
    /// indices fit in 32 bits, as word indices do.)
    to_rewrite: Vec<u32>,
    /// The functions whose tracked table ids ([`Scan::tracked`]) are not
    /// none, by index in the module, in order.
    with_tracked: Vec<u32>,
    /// Callees of every `OpFunctionCall`, function after function.
    callees: Vec<u32>,
    /// Members of the tracked set each function reads as ids (or in words
    /// the grammar cannot place), sorted within each function.
    tracked: Vec<u32>,
    /// Functions referenced other than as a callee, by any function.
    pub fn_refs: Vec<u32>,
    /// The functions whose scan stopped at their first trigger, in order:
    /// their callees, function references and tracked table ids are
    /// those before [`Stop::rest_at`] (whether a word is in the tracked
    /// set, [`Scan::has_tracked_word`], is told for all their words).
    stops: Vec<Stop>,
}

impl Scan {
    /// Scans the functions of `m`, in order or, in a large module, in
    /// consecutive pieces of about equal words on all cores, joined in
    /// order: the same facts either way, and the first error in module
    /// order.
    pub(super) fn new(m: &Module<'_>, interest: &Interest) -> Result<Scan> {
        let pieces = parallel::pieces(m.words.len(), m.functions.len());
        let scan = Scan::in_pieces(m, interest, pieces, false);
        // (Fuzz builds scan the small modules they make in pieces too,
        // and check that both ways agree.)
        if cfg!(fuzzing) && pieces == 1 {
            parallel::assert_agree(
                &scan,
                &Scan::in_pieces(m, interest, 3, false),
                "the scan in pieces",
            );
        }
        // (And with every body walked instruction by instruction.)
        if cfg!(fuzzing) && interest.by_words {
            let walk = Interest {
                by_words: false,
                ..interest.clone()
            };
            let walked = Scan::in_pieces(m, &walk, pieces, false);
            parallel::assert_agree(&scan, &walked, "the scan by words");
        }
        scan
    }

    /// [`Scan::new`], except that the scan of a function stops at the
    /// end of the instruction holding its first rewrite trigger, where
    /// the interest is looked up by words ([`Interest::by_words`]): the
    /// rest's callees, function references and tracked table ids are
    /// left out, and the rest is described by a [`Stop`]. The first
    /// error is [`Scan::new`]'s: an error in a rest can only be found by
    /// reading it ([`Scan::rest_of`]). Builds with debug assertions and
    /// fuzz builds check the stopped scan against the whole one.
    pub(super) fn stopping_early(m: &Module<'_>, interest: &Interest) -> Result<Scan> {
        let pieces = parallel::pieces(m.words.len(), m.functions.len());
        let scan = match Scan::in_pieces(m, interest, pieces, interest.by_words) {
            Ok(scan) => scan,
            // (The whole scan's first error may come before this one, in
            // a rest the stopped scan passed over.)
            Err(e) => return Err(Scan::new(m, interest).err().unwrap_or(e)),
        };
        #[cfg(any(debug_assertions, fuzzing))]
        scan.check_stops(m, interest);
        Ok(scan)
    }

    /// Checks that this stopped scan, its rests read by [`Scan::rest_of`],
    /// tells what the whole scan tells.
    #[cfg(any(debug_assertions, fuzzing, test))]
    fn check_stops(&self, m: &Module<'_>, interest: &Interest) {
        let whole = match Scan::new(m, interest) {
            Ok(whole) => whole,
            Err(e) => {
                // (Then the error is in a rest: the first rest's in order.)
                let first = self
                    .stops
                    .iter()
                    .find_map(|s| Scan::rest_of(m, interest, s).err());
                let first = first.expect("the whole scan fails where the stopped one did not");
                assert_eq!(
                    first.to_string(),
                    e.to_string(),
                    "the first error, in a rest"
                );
                return;
            }
        };
        assert_eq!(
            self.to_rewrite, whole.to_rewrite,
            "the functions to rewrite"
        );
        let mut fn_refs = self.fn_refs.clone();
        let mut stops = self.stops.iter().peekable();
        for k in 0..whole.facts.len() {
            let tracked_word = (self.has_tracked_word(k), whole.has_tracked_word(k));
            assert_eq!(
                tracked_word.0, tracked_word.1,
                "function {k}'s tracked words"
            );
            let Some(stop) = stops.next_if(|s| s.function as usize == k) else {
                assert_eq!(self.callees(k), whole.callees(k), "function {k}'s callees");
                assert_eq!(self.tracked_mentions(k), whole.tracked_mentions(k));
                continue;
            };
            let rest = Scan::rest_of(m, interest, stop).expect("a rest the whole scan read");
            let callees = [self.callees(k), rest.callees(0)].concat();
            assert_eq!(
                callees,
                whole.callees(k),
                "function {k}'s callees, with its rest"
            );
            fn_refs.extend_from_slice(&rest.fn_refs);
        }
        let sorted = |mut ids: Vec<u32>| {
            ids.sort_unstable();
            ids
        };
        assert_eq!(
            sorted(fn_refs),
            sorted(whole.fn_refs.clone()),
            "the function references"
        );
    }

    /// What the scan of the rest of a function it stopped in ([`Stop`])
    /// would have found: its callees in order ([`Scan::callees`] of
    /// function 0) and the functions it references ([`Scan::fn_refs`]),
    /// or the scan's error in it.
    pub(super) fn rest_of(m: &Module<'_>, interest: &Interest, stop: &Stop) -> Result<Scan> {
        let mut rest = Scan::with_room(1);
        let end = m.functions[stop.function as usize].end;
        let from = stop.rest_at as usize;
        let mut hits = Vec::new();
        // (The function needs a rewrite: a word that is a trigger and
        // nothing else is passed over, as in the whole scan.)
        let (any, _) =
            rest.scan_by_words::<false>(&m.words[from..end], from * 4, interest, &mut hits, true)?;
        rest.facts.push(FunctionFacts {
            callees_end: rest.callees.len() as u32,
            tracked_end: rest.tracked.len() as u32,
            has_tracked_word: any & TRACKED != 0,
        });
        Ok(rest)
    }

    /// The functions whose scan stopped at their first trigger, in
    /// order (none but from [`Scan::stopping_early`]).
    pub(super) fn stops(&self) -> &[Stop] {
        &self.stops
    }

    /// [`Scan::new`] in `pieces` pieces (in order on the calling thread
    /// for one), stopping each function's scan at its first trigger when
    /// `stop` ([`Scan::stopping_early`]).
    fn in_pieces(m: &Module<'_>, interest: &Interest, pieces: usize, stop: bool) -> Result<Scan> {
        let functions = &m.functions[..];
        if pieces < 2 {
            return Scan::of(m, functions, interest, functions.len(), stop);
        }
        let bounds = piece_bounds(functions, pieces);
        // (The first piece has room for every function's facts: the
        // others are appended to it.)
        let room = |k: usize| if k == 0 { functions.len() } else { 0 };
        let mut scans = parallel::map_parallel(pieces, |k| {
            Scan::of(
                m,
                &functions[bounds[k]..bounds[k + 1]],
                interest,
                room(k),
                stop,
            )
        })
        .into_iter();
        let lost = || parallel::internal("internal error: a scan was lost");
        let mut all = scans.next().flatten().ok_or_else(lost)??;
        for scan in scans {
            all.append(scan.ok_or_else(lost)??);
        }
        Ok(all)
    }

    /// An empty scan with room for `functions` functions' facts.
    fn with_room(functions: usize) -> Scan {
        Scan {
            facts: Vec::with_capacity(functions),
            // (Room for every function of a small module.)
            to_rewrite: Vec::with_capacity(functions.min(1 << 10)),
            with_tracked: Vec::new(),
            callees: Vec::new(),
            tracked: Vec::new(),
            fn_refs: Vec::new(),
            stops: Vec::new(),
        }
    }

    /// Scans `functions` (consecutive functions of `m`) in order, with
    /// room for `room` functions' facts, stopping at each function's
    /// first trigger when `stop`.
    fn of(
        m: &Module<'_>,
        functions: &[FunctionRange],
        interest: &Interest,
        room: usize,
        stop: bool,
    ) -> Result<Scan> {
        let mut s = Scan::with_room(room.max(functions.len()));
        // (Room for the calls of a small module's functions, about one in
        // sixteen of their words at most in the modules measured. A larger
        // module's list grows from empty: where it starts moves the peak
        // of a 100 MB run, by 1.2 MB when it started at 4,096.)
        let words =
            functions.last().map_or(0, |l| l.end) - functions.first().map_or(0, |f| f.start);
        if words <= SMALL_BODIES {
            s.callees.reserve(words / 16);
        }
        let mut hits = Vec::with_capacity(256);
        if stop {
            // (As for the functions to rewrite, room for a small module's.)
            s.stops.reserve(functions.len().min(1 << 10));
        }
        // (Each way its own loop, so that the scan that never stops is the
        // same code as before stops were.)
        if stop {
            for f in functions {
                s.scan_function::<true>(m, f, interest, &mut hits)?;
            }
        } else {
            for f in functions {
                s.scan_function::<false>(m, f, interest, &mut hits)?;
            }
        }
        Ok(s)
    }

    /// Appends `next`, the scan of the functions that follow this scan's.
    fn append(&mut self, next: Scan) {
        let (callees, tracked) = (self.callees.len() as u32, self.tracked.len() as u32);
        let functions = self.facts.len() as u32;
        (self.to_rewrite).extend(next.to_rewrite.iter().map(|k| k + functions));
        (self.with_tracked).extend(next.with_tracked.iter().map(|k| k + functions));
        self.facts.extend(next.facts.iter().map(|f| FunctionFacts {
            callees_end: f.callees_end + callees,
            tracked_end: f.tracked_end + tracked,
            ..*f
        }));
        self.callees.extend_from_slice(&next.callees);
        self.tracked.extend_from_slice(&next.tracked);
        self.fn_refs.extend_from_slice(&next.fn_refs);
        (self.stops).extend(next.stops.iter().map(|s| Stop {
            function: s.function + functions,
            ..*s
        }));
    }

    /// The functions that need a rewrite (they read a predicate or a value
    /// folded from one), by index in the module, in order.
    pub(super) fn to_rewrite(&self) -> &[u32] {
        &self.to_rewrite
    }

    /// False when no word of the `k`th function after an instruction's
    /// first is in the tracked set: then no whole instructions taken from
    /// it mention a tracked id, or make [`tracked_mentions_in`] decode
    /// anything.
    pub(super) fn has_tracked_word(&self, k: usize) -> bool {
        self.facts[k].has_tracked_word
    }

    /// The callees of every function, one list after another (those of a
    /// function the scan stopped in up to its stop).
    pub(super) fn all_callees(&self) -> &[u32] {
        &self.callees
    }

    /// The callees of the `k`th function's calls, in order.
    pub(super) fn callees(&self, k: usize) -> &[u32] {
        let start = k.checked_sub(1).map_or(0, |p| self.facts[p].callees_end);
        &self.callees[start as usize..self.facts[k].callees_end as usize]
    }

    /// The functions whose [`Scan::tracked_mentions`] are not none, by
    /// index in the module, in order.
    pub(super) fn with_tracked_mentions(&self) -> &[u32] {
        &self.with_tracked
    }

    /// The tracked table ids the `k`th function reads, sorted.
    pub(super) fn tracked_mentions(&self, k: usize) -> &[u32] {
        let start = k.checked_sub(1).map_or(0, |p| self.facts[p].tracked_end);
        &self.tracked[start as usize..self.facts[k].tracked_end as usize]
    }

    /// Scans one function, appending its facts (`hits` is scratch), and
    /// stops at its first trigger when `STOP` and its words are looked up
    /// at once.
    fn scan_function<const STOP: bool>(
        &mut self,
        m: &Module<'_>,
        f: &FunctionRange,
        interest: &Interest,
        hits: &mut Vec<u32>,
    ) -> Result<()> {
        let w = m.words;
        let mut needs_rewrite = false;
        let tracked_start = self.tracked.len();
        // A call is found by its callee, a function id (a call of anything
        // else cannot change which functions live).
        let body = &w[f.start..f.end];
        // The OpFunction first, looked at directly: its own id, always of
        // interest, would cost a search, and when it is the only word of
        // interest there is nothing to record. (The parse checked it has
        // at least 5 words.)
        let first = (body[0] >> 16) as usize;
        let others = interest.class(body[1]) | interest.any_short(&body[3..first]);
        let own = interest.class(body[2]);
        let hit = if others == 0 && own == FUNCTION {
            0
        } else {
            others | own
        };
        let mut any = hit;
        if hit != 0 {
            needs_rewrite |= self.settle_out_of_line(&body[..first], f.start * 4, hit, interest)?;
        }
        // Then the rest, at its byte offset.
        let (ops, offset) = (&body[first..], (f.start + first) * 4);
        let (hits, rewrite) = if interest.by_words && ops.len() >= 16 {
            self.scan_by_words::<STOP>(ops, offset, interest, hits, false)?
        } else {
            self.scan_by_instructions(ops, offset, interest)?
        };
        any |= hits;
        needs_rewrite |= rewrite;
        let mine = &mut self.tracked[tracked_start..];
        if mine.len() > 1 {
            mine.sort_unstable();
            let mut kept = 1;
            for k in 1..mine.len() {
                if mine[k] != mine[kept - 1] {
                    mine[kept] = mine[k];
                    kept += 1;
                }
            }
            self.tracked.truncate(tracked_start + kept);
        }
        if needs_rewrite {
            self.to_rewrite.push(self.facts.len() as u32);
        }
        if self.tracked.len() > tracked_start {
            self.with_tracked.push(self.facts.len() as u32);
        }
        // (Each list holds at most a word of the module per entry.)
        self.facts.push(FunctionFacts {
            callees_end: self.callees.len() as u32,
            tracked_end: self.tracked.len() as u32,
            has_tracked_word: any & TRACKED != 0,
        });
        Ok(())
    }

    /// Scans `ops`, whole instructions at byte offset `offset` (the parse
    /// checked every word count: nonzero and in range), all their words
    /// looked up at once ([`word_hits`]; no header can equal an id of
    /// interest), then only the instructions holding a word of interest
    /// found, by walking the headers up to each, and looked at; once a
    /// trigger has been found, a word that is a trigger and nothing else
    /// is passed over (it can tell nothing more). Returns
    /// the class bits of their operand words and whether one reads a
    /// rewrite trigger. `hits` is scratch. `rewriting`: the function is
    /// known to need a rewrite already (the rest of a stopped scan). With
    /// `STOP`, the scan stops after the instruction holding the first
    /// trigger, recording a [`Stop`] for the function whose facts come
    /// next; the class bits returned are still those of every word.
    #[inline(always)]
    fn scan_by_words<const STOP: bool>(
        &mut self,
        ops: &[u32],
        offset: usize,
        interest: &Interest,
        hits: &mut Vec<u32>,
        rewriting: bool,
    ) -> Result<(u8, bool)> {
        let (mut any, mut needs_rewrite) = (0, rewriting);
        hits.clear();
        word_hits::find(&interest.dense, ops, hits);
        let (mut at, mut k) = (0, 0);
        while let Some(&p) = hits.get(k) {
            let p = p as usize;
            let Some(&x) = ops.get(p) else {
                break;
            };
            // (The class bits of its words of interest: most hold one.)
            let mut hit = interest.class(x);
            k += 1;
            // Once the function is known to need a rewrite, a word that is
            // a trigger and nothing else tells nothing more (a trigger is
            // neither a function nor tracked): its instruction is not
            // looked for. (Its other words of interest, if any, are found
            // as their own hits.)
            if needs_rewrite && hit == TRIGGER {
                continue;
            }
            let (start, len) = instruction_holding(ops, at, p);
            let end = start + len;
            let Some(inst) = ops.get(start..end) else {
                break;
            };
            let single = hits.get(k).is_none_or(|&q| q as usize >= end);
            while let Some(&q) = hits.get(k).filter(|&&q| (q as usize) < end) {
                hit |= interest.class(ops[q as usize]);
                k += 1;
            }
            any |= hit;
            if !(single && hit == FUNCTION && self.settled_by_its_place(inst, p - start)) {
                needs_rewrite |=
                    self.settle_out_of_line(inst, offset + start * 4, hit, interest)?;
            }
            at = end;
            if STOP && needs_rewrite {
                any |= self.stop_before(ops, end, offset, &hits[k..], interest);
                break;
            }
        }
        Ok((any, needs_rewrite))
    }

    /// Records the [`Stop`] of the function whose facts come next, its
    /// rest at `ops[end..]` (`ops` at byte offset `offset`), whose words
    /// of interest are at `rest_hits`: returns their class bits.
    #[inline(never)]
    fn stop_before(
        &mut self,
        ops: &[u32],
        end: usize,
        offset: usize,
        rest_hits: &[u32],
        interest: &Interest,
    ) -> u8 {
        let (mut any, mut functions) = (0, 0);
        for &q in rest_hits {
            let class = ops.get(q as usize).map_or(0, |&x| interest.class(x));
            any |= class;
            functions += u32::from(class & FUNCTION != 0);
        }
        self.stops.push(Stop {
            function: self.facts.len() as u32,
            rest_at: (offset / 4 + end) as u32,
            rest_functions: functions,
        });
        any
    }

    /// [`Scan::scan_by_words`] instruction by instruction, looking up the
    /// operand words only.
    #[inline(always)]
    fn scan_by_instructions(
        &mut self,
        ops: &[u32],
        offset: usize,
        interest: &Interest,
    ) -> Result<(u8, bool)> {
        let (mut any, mut needs_rewrite) = (0, false);
        let mut next = interest.next_hit(ops, 0);
        while let Some((at, end, hit)) = next {
            any |= hit;
            needs_rewrite |= self.settle(&ops[at..end], offset + at * 4, hit, interest)?;
            next = interest.next_hit(ops, end);
        }
        Ok((any, needs_rewrite))
    }

    /// Records what `inst`, an instruction at byte offset `at` whose
    /// operand words' class bits are `hit` (not 0), says; true when it
    /// reads a rewrite trigger.
    #[inline(always)]
    fn settle(&mut self, inst: &[u32], at: usize, hit: u8, interest: &Interest) -> Result<bool> {
        if self.settled_as_plain_call(inst, hit, interest) {
            return Ok(false);
        }
        Ok(self.scan_hit(inst, at, hit, interest)? & TRIGGER != 0)
    }

    /// [`Scan::settle`] out of line, for the loops over the functions and
    /// over the words found ([`Scan::scan_by_words`]), so that they keep
    /// their state in registers (an `OpFunction` rarely needs settling;
    /// the hits settled by their place, most of them, need no call).
    #[inline(never)]
    fn settle_out_of_line(
        &mut self,
        inst: &[u32],
        at: usize,
        hit: u8,
        interest: &Interest,
    ) -> Result<bool> {
        self.settle(inst, at, hit, interest)
    }

    /// Settles `inst` when its one word of interest, a function id, is at
    /// `pos` where [`Scan::settle`] would find nothing to look up: a
    /// call's callee (recorded), or the `Aligned` literal of a load or
    /// store (the most frequent hits of all in a module with a function
    /// whose id is 4). False when [`Scan::settle`] must look.
    #[inline(always)]
    fn settled_by_its_place(&mut self, inst: &[u32], pos: usize) -> bool {
        // (`Aligned` alone, then its literal, last.)
        let aligned_last = |mask_at: usize| {
            pos == mask_at + 1 && inst.len() == mask_at + 2 && inst[mask_at] == ALIGNED_ONLY
        };
        match (inst[0] & 0xffff) as u16 {
            op::FunctionCall if pos == 3 => {
                self.callees.push(inst[3]);
                true
            }
            OP_LOAD => aligned_last(4),
            OP_STORE => aligned_last(3),
            _ => false,
        }
    }

    /// Settles the hit `inst` (operand words' class bits `hit`) when it is
    /// a call whose only word of interest is its callee, a function id:
    /// the callee is recorded, as [`Scan::scan_hit`] would, without its
    /// look-ups (calls are among the most frequent hits). False when
    /// [`Scan::scan_hit`] must look.
    #[inline(always)]
    fn settled_as_plain_call(&mut self, inst: &[u32], hit: u8, interest: &Interest) -> bool {
        let plain = hit == FUNCTION
            && inst[0] & 0xffff == u32::from(op::FunctionCall)
            && inst.len() >= 4
            && interest.class(inst[3]) & FUNCTION != 0
            && interest.any(&inst[4..]) == 0;
        if plain {
            self.callees.push(inst[3]);
        }
        plain
    }

    /// Records what one instruction with a word of interest says: its
    /// callee if it is a call of a function id (a call of anything else
    /// records none, so that an instruction whose only words of interest
    /// are triggers records nothing: [`Scan::scan_by_words`] passes over
    /// those once it knows a rewrite is needed), and, decoded precisely,
    /// the functions it references and the tracked table ids it reads.
    /// `hit` is the class bits of its words after the first; returns them.
    #[inline(always)]
    fn scan_hit(&mut self, words: &[u32], at: usize, hit: u8, interest: &Interest) -> Result<u8> {
        let opcode = (words[0] & 0xffff) as u16;
        let callee_pos = (opcode == op::FunctionCall && words.len() >= 4).then_some(3);
        if let Some(p) = callee_pos
            && interest.class(words[p]) & FUNCTION != 0
        {
            self.callees.push(words[p]);
        }
        if hit & TRACKED == 0 {
            if hit & FUNCTION == 0 {
                return Ok(hit);
            }
            // Only a function id read (other than as the callee, or a
            // function's own id) is recorded: with a flat layout the
            // words read are known without decoding (a load's or store's
            // `Aligned 4` is not one).
            let reads = if callee_pos.is_some() {
                // A call's words after its callee are all arguments.
                interest.any(&words[4..])
            } else if opcode == op::Function && words.len() > 2 {
                interest.any(&words[1..2]) | interest.any(&words[3..])
            } else if let Some(flat) = (opcode != op::Switch)
                .then(|| flat_ids_of(opcode, words))
                .flatten()
            {
                let uses = words.get(flat.first_use..flat.checked_end).unwrap_or(&[]);
                interest.any(uses) | interest.any(&words[flat.maybe_from..])
            } else {
                FUNCTION
            };
            if reads & FUNCTION == 0 {
                return Ok(hit);
            }
        }
        // Decode precisely: a hit may be a literal (`Aligned 32`), not an
        // id operand.
        let tracked_start = self.tracked.len();
        for_each_read(words, at, |pos, role| {
            let x = words[pos];
            let class = interest.class(x);
            if class == 0 {
                return;
            }
            let reads = matches!(role, Role::Use | Role::MaybeId);
            if reads && Some(pos) != callee_pos && class & FUNCTION != 0 {
                self.fn_refs.push(x);
            }
            // (Sorted and deduplicated at the function's end; a repeat of
            // the last one is skipped here.)
            if role != Role::Result
                && class & TRACKED != 0
                && (self.tracked.len() == tracked_start || self.tracked.last() != Some(&x))
            {
                self.tracked.push(x);
            }
        })?;
        Ok(hit)
    }
}

/// The start and word count of the instruction of `ops` that holds word
/// `p`, found by walking the headers from the instruction at `at` (at or
/// before `p`). A count of 0, which the parse rules out, is stepped over
/// as 1. (The walk looks only at the words from `at` to `p`, so that each
/// step is one comparison.)
#[inline(always)]
fn instruction_holding(ops: &[u32], at: usize, p: usize) -> (usize, usize) {
    let Some(span) = ops.get(at..=p) else {
        return (at, 1);
    };
    let (mut k, mut len) = (0, 1);
    while let Some(&head) = span.get(k) {
        len = ((head >> 16) as usize).max(1);
        if k + len >= span.len() {
            break;
        }
        k += len;
    }
    (at + k, len)
}

/// A memory-access mask of `Aligned` alone.
const ALIGNED_ONLY: u32 = spirv::MemoryAccess::ALIGNED.bits();

/// `OpLoad`.
const OP_LOAD: u16 = spirv::Op::Load as u16;
/// `OpStore`.
const OP_STORE: u16 = spirv::Op::Store as u16;

/// [`flat_ids`] of `words`, an instruction of `opcode`; a load's or
/// store's read without the grammar look-up (they are most of the hits of
/// a module with a function whose id is 4: their `Aligned 4`).
#[inline]
fn flat_ids_of(opcode: u16, words: &[u32]) -> Option<FlatIds> {
    // (Result, first id read, end of the fixed ids: type, result and
    // pointer, or pointer and object; then a memory-access mask.)
    let (result, first_use, fixed_end) = match opcode {
        OP_LOAD => (2, 3, 4),
        OP_STORE => (0, 1, 3),
        _ => return flat_ids(words),
    };
    let len = words.len();
    let flat = |checked_end, maybe_from| FlatIds {
        result,
        checked_end,
        first_use,
        maybe_from,
    };
    if len <= fixed_end {
        return (len == fixed_end).then(|| flat(len, len));
    }
    // A mask whose operands hold no id: `Aligned`'s literal at most.
    use spirv::MemoryAccess as M;
    let mask = M::from_bits_retain(words[fixed_end]);
    let plain = M::VOLATILE | M::ALIGNED | M::NONTEMPORAL | M::NON_PRIVATE_POINTER;
    let maybe_from = fixed_end + 1 + mask.contains(M::ALIGNED) as usize;
    (plain.contains(mask) && maybe_from <= len).then(|| flat(fixed_end, maybe_from))
}

/// The members of `tracked` that the instructions in `words` (whole
/// instructions, e.g. a rewritten function) read as ids, sorted. Only an
/// instruction with a word in `tracked` is decoded; an instruction the
/// grammar cannot read gives what it read before the error when
/// `partial_on_error` is set, else the error.
pub(super) fn tracked_mentions_in(
    words: &[u32],
    tracked: &IdSet,
    partial_on_error: bool,
) -> Result<Vec<u32>> {
    let mut out = Vec::new();
    if tracked.is_empty() {
        return Ok(out);
    }
    // One membership test per word; instruction boundaries are walked
    // only up to a word in `tracked`, from the end of the last instruction
    // that held one.
    let len = |at: usize| (words[at] >> 16).max(1) as usize;
    let mut start = 0;
    while let Some(p) = tracked.position_in(&words[start..]) {
        let k = start + p;
        let mut at = start;
        let mut end = (at + len(at)).min(words.len());
        while end <= k {
            at = end;
            end = (at + len(at)).min(words.len());
        }
        let iw = &words[at..end];
        if iw.len() > 1 && tracked.any_in(&iw[1..]) {
            let read = for_each_read(iw, at * 4, |pos, role| {
                if role != Role::Result && tracked.contains(iw[pos]) {
                    out.push(iw[pos]);
                }
            });
            if !partial_on_error {
                read?;
            }
        }
        start = end;
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// [`for_each_id`] for the scan, which does not know the types of local
/// values: an `OpSwitch`'s case literals are as wide as its selector's
/// type, so only its selector is reported (its other ids are labels, neither
/// functions nor table ids). A flat layout ([`flat_ids`]: nearly every
/// instruction, loads and stores with `Aligned 4` among them) is read
/// without walking the grammar.
fn for_each_read(words: &[u32], at: usize, mut f: impl FnMut(usize, Role)) -> Result<()> {
    let opcode = (words[0] & 0xffff) as u16;
    if opcode == op::Switch {
        if words.len() > 1 {
            f(1, Role::Use);
        }
        return Ok(());
    }
    if let Some(flat) = flat_ids(words) {
        for pos in 1..flat.checked_end {
            let role = if pos == flat.result {
                Role::Result
            } else if pos < flat.first_use {
                Role::ResultType
            } else {
                Role::Use
            };
            f(pos, role);
        }
        (flat.maybe_from..words.len()).for_each(|pos| f(pos, Role::MaybeId));
        return Ok(());
    }
    for_each_id(words, at, &|_| 1, f)
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

    /// Loads and stores read without the grammar give what [`flat_ids`]
    /// gives, whatever their length and memory-access mask.
    #[test]
    fn loads_and_stores_read_as_flat_ids_reads_them() {
        let masks = [0, 1, 2, 3, 4, 6, 8, 0x10, 0x20, 0x22, 0x40, 0xffff_ffff];
        for opcode in [OP_LOAD, OP_STORE, op::FunctionCall, op::Switch] {
            for len in 1..9 {
                for mask in masks {
                    let mut words = vec![crate::module::header_word(len, opcode)];
                    words.extend((1..len as u32).map(|k| 100 + k));
                    let fixed_end = if opcode == OP_LOAD { 4 } else { 3 };
                    if len > fixed_end {
                        words[fixed_end] = mask;
                    }
                    assert_eq!(
                        flat_ids_of(opcode, &words),
                        flat_ids(&words),
                        "{opcode} {words:?}"
                    );
                }
            }
        }
    }

    /// An instruction whose first word equals a function id (any module
    /// over 65,536 ids has such ones) is no reference to it; a later word
    /// of interest is still found, in the instruction that holds it.
    #[test]
    fn headers_equal_to_an_id_are_passed_over() {
        use crate::module::{MAGIC, header_word};
        let load = header_word(4, spirv::Op::Load as u16);
        let f = load;
        let mut w = vec![MAGIC, 0x0001_0000, 0, 300_000, 0];
        w.extend([header_word(5, op::Function), 1, f, 0, 2]);
        w.extend([header_word(2, op::Label), 10]);
        w.extend([load, 1, 11, 12]);
        w.extend([header_word(4, op::FunctionCall), 1, 13, f]);
        let ret = header_word(1, spirv::Op::Return as u16);
        w.extend([ret, header_word(1, op::FunctionEnd)]);
        let m = Module::parse(&w).unwrap();
        let none = IdSet::default();
        // (A dense class table, then the sorted list.)
        for module_words in [1 << 20, w.len()] {
            let interest = Interest::new(&none, &[f], &none, module_words);
            assert_eq!(interest.dense.is_empty(), module_words == w.len());
            let s = Scan::new(&m, &interest).unwrap();
            assert_eq!(s.callees(0), [f]);
            assert!(
                s.fn_refs.is_empty()
                    && s.to_rewrite().is_empty()
                    && s.tracked_mentions(0).is_empty()
                    && s.with_tracked_mentions().is_empty()
            );
        }
    }

    /// Scanned in pieces (on threads), the functions give exactly the
    /// facts of the scan in order, and the first error in module order.
    #[test]
    fn pieces_join_into_the_scan_in_order() {
        use crate::module::{MAGIC, header_word};
        let (tracked_id, trigger) = (2, 3);
        let functions: Vec<u32> = (0..9).map(|k| 100 + k).collect();
        let mut w = vec![MAGIC, 0x0001_0000, 0, 1000, 0];
        for (k, &f) in functions.iter().enumerate() {
            w.extend([header_word(5, op::Function), 1, f, 0, 2]);
            w.extend([header_word(2, op::Label), 200 + 10 * f]);
            // Calls of the previous two functions, a function's id stored
            // (a reference), a load of the tracked id, a trigger read.
            for callee in functions[k.saturating_sub(2)..k].iter().copied() {
                w.extend([header_word(4, op::FunctionCall), 1, 201 + 10 * f, callee]);
            }
            if k % 3 == 1 {
                w.extend([header_word(3, OP_STORE), tracked_id, functions[0]]);
            }
            if k % 2 == 0 {
                w.extend([header_word(4, OP_LOAD), 1, 202 + 10 * f, tracked_id]);
            }
            if k % 4 == 3 {
                w.extend([header_word(4, OP_LOAD), 1, 203 + 10 * f, trigger]);
            }
            let ret = header_word(1, spirv::Op::Return as u16);
            w.extend([ret, header_word(1, op::FunctionEnd)]);
        }
        let m = Module::parse(&w).unwrap();
        let interest = Interest::new(
            &IdSet::new([trigger], 0),
            &functions,
            &IdSet::new([tracked_id], 0),
            w.len(),
        );
        let whole = Scan::in_pieces(&m, &interest, 1, false).unwrap();
        assert_eq!(whole.facts.len(), functions.len());
        assert!(!whole.callees.is_empty() && !whole.tracked.is_empty());
        assert!(!whole.fn_refs.is_empty());
        // (The lists of functions by index: those reading the trigger, and
        // those whose tracked mentions are not none: every one here, by its
        // type, id 2.)
        let indices = |keep: &dyn Fn(usize) -> bool| {
            (0..9)
                .filter(|&k| keep(k))
                .map(|k| k as u32)
                .collect::<Vec<_>>()
        };
        assert_eq!(whole.to_rewrite(), indices(&|k| k % 4 == 3));
        assert_eq!(
            whole.with_tracked_mentions(),
            indices(&|k| !whole.tracked_mentions(k).is_empty())
        );
        for pieces in 2..=12 {
            assert_eq!(
                Scan::in_pieces(&m, &interest, pieces, false).unwrap(),
                whole,
                "{pieces}"
            );
        }
        // Stopped at each function's first trigger, the same in pieces
        // (the stops' function indices follow the join), and the rests
        // read afterwards tell what the whole scan tells.
        let stopped = Scan::in_pieces(&m, &interest, 1, true).unwrap();
        if interest.by_words {
            assert_eq!(stopped.stops().len(), whole.to_rewrite().len());
        }
        stopped.check_stops(&m, &interest);
        for pieces in 2..=12 {
            let scan = Scan::in_pieces(&m, &interest, pieces, true).unwrap();
            assert_eq!(scan, stopped, "stopped, {pieces}");
        }
        // Two functions with an `OpIAdd` too short for its operands,
        // naming a function (put in from the back, so that the places
        // stay right): the first one's error, whatever the pieces.
        let too_short = header_word(2, spirv::Op::IAdd as u16);
        let mut bad = w.clone();
        for f in [functions[7], functions[2]] {
            let at = m.functions[(f - 100) as usize].start + 5;
            bad.splice(at..at, [too_short, f]);
        }
        let bad_m = Module::parse(&bad).unwrap();
        let first = Scan::in_pieces(&bad_m, &interest, 1, false)
            .unwrap_err()
            .to_string();
        for pieces in 2..=12 {
            let e = Scan::in_pieces(&bad_m, &interest, pieces, false).unwrap_err();
            assert_eq!(e.to_string(), first, "{pieces}");
        }
        // (And the scan that stops at triggers gives the same first error.)
        let e = Scan::stopping_early(&bad_m, &interest).unwrap_err();
        assert_eq!(e.to_string(), first, "stopping early");
    }

    /// An `OpFunction` is settled without decoding only when its own id
    /// is its one word of interest: a function type equal to a function
    /// id is a reference to it, an own id that is a trigger makes the
    /// function need rewriting, and a load whose only such word is its
    /// `Aligned 4` records nothing.
    #[test]
    fn function_headers_and_aligned_literals_are_read_exactly() {
        use crate::module::{MAGIC, header_word};
        let (f, g, trigger) = (4, 5, 6);
        let mut w = vec![MAGIC, 0x0001_0000, 0, 100, 0];
        // %4 = OpFunction %1 None %5 (its type word names function %5).
        w.extend([header_word(5, op::Function), 1, f, 0, g]);
        w.extend([header_word(2, op::Label), 10]);
        w.extend([header_word(6, OP_LOAD), 1, 11, 12, 2, f]);
        w.extend([header_word(5, OP_STORE), 12, 11, 2, f]);
        let ret = header_word(1, spirv::Op::Return as u16);
        w.extend([ret, header_word(1, op::FunctionEnd)]);
        // %5 = OpFunction %1 None %2: nothing of interest but itself.
        w.extend([header_word(5, op::Function), 1, g, 0, 2]);
        w.extend([header_word(1, op::FunctionEnd)]);
        // %6, a trigger as well as a function: it needs rewriting.
        w.extend([header_word(5, op::Function), 1, trigger, 0, 2]);
        w.extend([header_word(1, op::FunctionEnd)]);
        let m = Module::parse(&w).unwrap();
        let triggers = IdSet::new([trigger], 0);
        let none = IdSet::default();
        for module_words in [1 << 20, w.len()] {
            let interest = Interest::new(&triggers, &[f, g, trigger], &none, module_words);
            let s = Scan::new(&m, &interest).unwrap();
            assert_eq!(s.fn_refs, [g]);
            assert_eq!(s.to_rewrite(), [2]);
            assert!((0..3).all(|k| s.callees(k).is_empty()));
        }
    }

    /// Both ways of scanning a body, every word looked up at once or
    /// instruction by instruction, give the same facts: on generated
    /// modules, and on long bodies whose words of interest sit at every
    /// place (a call's callee and arguments, a function id stored, loaded
    /// from or stored to, the `Aligned` literal of loads and stores with
    /// other masks, a trigger read, a tracked id) and at every distance
    /// from a 16-word boundary.
    #[test]
    fn by_words_and_by_instructions_agree() {
        use crate::module::{MAGIC, header_word};
        let both = |m: &Module<'_>, interest: &Interest| {
            let walk = Interest {
                by_words: false,
                ..interest.clone()
            };
            let (a, b) = (
                Scan::in_pieces(m, interest, 1, false),
                Scan::in_pieces(m, &walk, 1, false),
            );
            assert_eq!(a.unwrap(), b.unwrap());
        };
        for (bytes, every, calls) in [(40_000, 1, true), (300_000, 10, true), (300_000, 10, false)]
        {
            let words: Vec<u32> = bytemuck::pod_collect_to_vec(&crate::generator::generate_bytes(
                bytes, every, calls,
            ));
            let m = Module::parse(&words).unwrap();
            let g = crate::globals::Globals::scan_with_reads(&m).unwrap().0;
            let triggers = IdSet::new(g.spec_ids.iter().map(|d| d.target), words.len());
            let tracked = IdSet::new(g.bool_type, words.len());
            let functions: Vec<u32> = m.functions.iter().map(|f| f.id).collect();
            let interest = Interest::new(&triggers, &functions, &tracked, words.len());
            assert_eq!(
                interest.by_words,
                word_hits::available(interest.dense.len())
            );
            both(&m, &interest);
        }
        let (f, trigger, tracked) = (4, 6, 7);
        let mut w = vec![MAGIC, 0x0001_0000, 0, 1000, 0];
        for pad in 0..20u32 {
            w.extend([header_word(5, op::Function), 1, 100 + pad, 0, 2]);
            w.extend([header_word(2, op::Label), 300 + pad]);
            for k in 0..pad {
                w.extend([header_word(4, spirv::Op::IAdd as u16), 1, 400 + k, 2]);
            }
            w.extend([header_word(6, OP_LOAD), 1, 11, 12, 2, f]);
            w.extend([header_word(6, OP_LOAD), 1, 11, 12, 3, f]);
            w.extend([header_word(6, OP_LOAD), 1, 11, 12, 2, trigger]);
            w.extend([header_word(5, OP_STORE), 12, 11, 2, f]);
            w.extend([header_word(5, OP_STORE), 12, f, 2, 8]);
            w.extend([header_word(4, op::FunctionCall), 1, 13, f]);
            w.extend([header_word(5, op::FunctionCall), 1, 13, 100, f]);
            w.extend([header_word(5, op::FunctionCall), 1, 13, 9, f]);
            w.extend([header_word(6, OP_LOAD), 1, 11, f, 2, 12]);
            w.extend([header_word(5, OP_STORE), f, 11, 2, 16]);
            w.extend([header_word(4, OP_LOAD), 1, 14, tracked]);
            w.extend([header_word(4, OP_LOAD), 1, 15, trigger]);
            // (A trigger before a function id in one instruction, once
            // the function is known to need a rewrite.)
            w.extend([header_word(5, OP_STORE), trigger, f, 2, 8]);
            w.extend([header_word(6, op::FunctionCall), 1, 13, f, trigger, f]);
            w.extend([header_word(6, OP_LOAD), 1, 11, trigger, 2, f]);
            // (Calls of an id that is no function, with a trigger: as the
            // fuzzer made them. Such a callee is not recorded either way.)
            w.extend([header_word(5, op::FunctionCall), 1, 13, 999, trigger]);
            w.extend([header_word(4, op::FunctionCall), trigger, f, 999]);
            let ret = header_word(1, spirv::Op::Return as u16);
            w.extend([ret, header_word(1, op::FunctionEnd)]);
        }
        let m = Module::parse(&w).unwrap();
        let functions: Vec<u32> = (0..20).map(|k| 100 + k).chain([f]).collect();
        let interest = Interest::new(
            &IdSet::new([trigger], 0),
            &functions,
            &IdSet::new([tracked], 0),
            w.len(),
        );
        both(&m, &interest);
    }
}
