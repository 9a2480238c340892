//! The scan of one function's body: its words looked up all at once
//! ([`word_hits`]) or instruction by instruction, and each instruction
//! holding a word of interest decoded for what it says (a callee, a
//! function referenced otherwise, a tracked table id, a rewrite trigger).

use crate::error::Result;
use crate::idset::IdSet;
use crate::module::{FunctionRange, Module};
use crate::operands::{FlatIds, Role, flat_ids, for_each_id, op};
use crate::specialize::word_hits;

use super::interest::{FUNCTION, TRACKED, TRIGGER};
use super::{FunctionFacts, Interest, Scan, Stop};

impl Scan {
    /// Scans one function, appending its facts (`hits` is scratch), and
    /// stops at its first trigger when `STOP` and its words are looked up
    /// at once.
    pub(super) fn scan_function<const STOP: bool>(
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
    pub(super) fn scan_by_words<const STOP: bool>(
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
pub(super) const OP_LOAD: u16 = spirv::Op::Load as u16;
/// `OpStore`.
pub(super) const OP_STORE: u16 = spirv::Op::Store as u16;

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
pub(in crate::specialize) fn tracked_mentions_in(
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
}
