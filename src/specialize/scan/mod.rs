//! One pass over every function's words, before anything is rewritten.
//!
//! For each function it records whether it reads a predicate (then it must be
//! rewritten), which functions it calls, which functions it references other
//! than by calling them (function pointers: those stay), and which of the
//! predicate table's constants and types it mentions. Each operand word
//! costs one table look-up (its class: rewrite trigger, function, tracked
//! table id or none), instruction by instruction; or, where no header can
//! equal an id of interest and the host has AVX2, every word of a body is
//! looked up at once ([`word_hits`](super::word_hits)) and the headers
//! are walked only up to each word found. Only an instruction with a
//! function or tracked word among the ids it reads is decoded, so an
//! untouched function costs one linear scan.
//! A run for one target may stop the scan of a function at its first
//! trigger ([`Scan::stopping_early`]): the function is rewritten, and the
//! rewrite's read tells the rest's callees; what it cannot tell, the scan
//! of the rest does then ([`Scan::rest_of`]).
//! The facts of all functions live in a few shared vectors (a module may
//! hold 200,000 functions). From 8 MB up, the functions are scanned in
//! consecutive pieces on all cores and the pieces' lists joined in order.
//!
//! [`interest`] classifies the ids looked for ([`Interest`]); [`body`]
//! scans one function's body and decodes the instructions it finds.

use crate::error::Result;
use crate::module::{FunctionRange, Module};
use crate::parallel;

mod body;
mod interest;

pub(super) use body::tracked_mentions_in;
pub(super) use interest::Interest;
use interest::TRACKED;

/// The most words of functions whose callees [`Scan::of`] reserves room
/// for at once.
const SMALL_BODIES: usize = 1 << 16;

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
}

#[cfg(test)]
mod tests {
    use super::body::{OP_LOAD, OP_STORE};
    use super::*;
    use crate::idset::IdSet;
    use crate::operands::op;
    use crate::specialize::word_hits;

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
