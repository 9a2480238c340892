//! The function section's parse: every function's word range, in order,
//! once each instruction's word count and the functions' nesting are
//! checked. A large module's section is parsed in pieces on all cores,
//! each piece after the first from a guessed function start that the piece
//! before it must end on; the list, or the first error, is the same either
//! way.

use crate::error::{Error, Result, binary};
use crate::parallel::{self, internal, map_parallel};
use crate::prefetch;

use super::{
    FunctionRange, OP_FUNCTION, OP_FUNCTION_END, OP_LABEL, RESERVED_STARTS, bad_word_count,
    check_id, end_outside, inst_at, label_outside, no_function_end,
};

/// The word an `OpFunctionEnd` is.
const FUNCTION_END_WORD: u32 = (1 << 16) | OP_FUNCTION_END as u32;

/// Which half-word of a word in memory holds its high 16 bits, where an
/// instruction's first word has its word count: the second on a
/// little-endian host.
const COUNT_HALF: usize = cfg!(target_endian = "little") as usize;

/// The word an `OpFunction` is (its five words).
const FUNCTION_WORD: u32 = (5 << 16) | OP_FUNCTION as u32;

/// The functions of the section that starts at `from` (where module scope
/// ends), in order: parsed on the calling thread or, in a large module, in
/// pieces on all cores; the same list either way, or the same first error.
pub(super) fn parse_functions(words: &[u32], from: usize) -> Result<Vec<FunctionRange>> {
    let pieces = parallel::pieces(words.len(), usize::MAX);
    if pieces > 1 {
        return functions_in_pieces(words, from, pieces);
    }
    let functions = functions_from(words, from, words.len()).map(|(list, _)| list);
    // (Fuzz builds parse the small modules they make in pieces too, and
    // check that both ways agree.)
    if cfg!(fuzzing) {
        let other = functions_in_pieces(words, from, 3);
        parallel::assert_agree(&functions, &other, "the parse in pieces");
    }
    functions
}

/// [`parse_functions`] in up to `pieces` pieces, from [`piece_starts`]'
/// guesses: each piece is parsed from its start until a function ends at
/// or past the next one's, and the pieces are joined in order while each
/// piece ends where the next starts, which proves that start is a function's
/// (the words from a function's start parse one way only). Past a guess
/// that was wrong, the rest is parsed on from where the last good piece
/// ended; an error is the first in module order.
fn functions_in_pieces(words: &[u32], from: usize, pieces: usize) -> Result<Vec<FunctionRange>> {
    let starts = piece_starts(words, from, pieces);
    let ends: Vec<usize> = (starts[1..].iter().copied()).chain([words.len()]).collect();
    let parsed = map_parallel(starts.len(), |k| functions_from(words, starts[k], ends[k]));
    // The first piece's list, then the others' as they join it.
    let (mut functions, mut more) = (Vec::new(), Vec::with_capacity(parsed.len()));
    let mut at = from;
    for (k, piece) in parsed.into_iter().enumerate() {
        let (list, end) = if at == starts[k] {
            piece.ok_or_else(|| internal("internal error: a piece of the parse is missing"))??
        } else {
            // A wrong guess: parsed on from the last good piece's end.
            functions_from(words, at, words.len())?
        };
        at = end;
        if k == 0 {
            functions = list;
        } else {
            more.push(list);
        }
        if at == words.len() {
            break;
        }
    }
    // (Into the first list: grown in place, a large one is remapped, not
    // copied.)
    functions.reserve_exact(more.iter().map(Vec::len).sum());
    for list in more {
        functions.extend_from_slice(&list);
    }
    Ok(functions)
}

/// Where each of up to `pieces` pieces of about equal words of the
/// function section from `from` on starts: `from`, then, for each other
/// piece, the first word at or after its share that looks like a
/// function's start (an `OpFunction` right after an `OpFunctionEnd`), if
/// one comes before the next share's. A guess, which
/// [`functions_in_pieces`] confirms.
fn piece_starts(words: &[u32], from: usize, pieces: usize) -> Vec<usize> {
    let n = words.len();
    let share = |k: usize| from + (n - from) / pieces * k;
    let mut starts = vec![from];
    for k in 1..pieces {
        let (lo, hi) = (share(k).max(from + 1), share(k + 1).min(n));
        let found = (lo.max(starts[starts.len() - 1] + 1)..hi)
            .find(|&p| words[p] == FUNCTION_WORD && words[p - 1] == FUNCTION_END_WORD);
        starts.extend(found);
    }
    starts
}

/// The functions from `from` on (where a function starts, or the section
/// ends), until one ends at or past `until`, and where the last ends.
/// Checks every instruction's word count, and that functions are closed
/// by `OpFunctionEnd`, not nested, and have nothing between them.
fn functions_from(words: &[u32], from: usize, until: usize) -> Result<(Vec<FunctionRange>, usize)> {
    if prefetch::pays(words.len()) {
        walk_functions::<true>(words, from, until)
    } else {
        walk_functions::<false>(words, from, until)
    }
}

/// [`functions_from`], reading ahead ([`prefetch::ahead`]) when `AHEAD`.
fn walk_functions<const AHEAD: bool>(
    words: &[u32],
    from: usize,
    until: usize,
) -> Result<(Vec<FunctionRange>, usize)> {
    let n = words.len();
    // Room for a small section's list at once (a function takes six words
    // at least); a larger one's grows as it goes.
    let mut functions = Vec::with_capacity(((until - from) / 6).min(RESERVED_STARTS));
    // The words as half-words, each word count read as one of its own:
    // each step of the walk waits on the count before it, and a count
    // loaded as it is waits for no shift, a cycle of the step's few (the
    // walk took about 12% less time on the 40 KB benchmark module).
    let halves: &[u16] = bytemuck::cast_slice(words);
    let mut at = from;
    while at < until {
        // Between functions: only an OpFunction may come. (Its header is
        // read here, not through [`inst_at`], whose result goes through
        // memory.)
        let first = words[at];
        let len = (first >> 16) as usize;
        if first as u16 != OP_FUNCTION || len < 5 || len > n - at {
            return Err(not_a_function_start(words, at));
        }
        let id = words[at + 2];
        check_id(words, id, at + 2)?;
        let start = at;
        at += len;
        // Inside a function only its end matters (and an OpFunction,
        // an error): step over the other instructions once their word
        // count is checked. (A count that runs past the end shows as a
        // position past it, found again in [`overrun`]: the step itself
        // checks only for 0.)
        loop {
            if at >= n {
                return Err(overrun(words, start, id));
            }
            let len = halves[2 * at + COUNT_HALF] as usize;
            let first = words[at];
            if AHEAD {
                prefetch::ahead(words, at);
            }
            if len == 0 {
                return Err(bad_word_count(words, at));
            }
            let opcode = (first & 0xffff) as u16;
            if opcode.wrapping_sub(OP_FUNCTION) <= OP_FUNCTION_END - OP_FUNCTION {
                // OpFunction, OpFunctionParameter or OpFunctionEnd.
                if len > n - at {
                    return Err(bad_word_count(words, at));
                }
                if opcode == OP_FUNCTION_END {
                    break;
                }
                if opcode == OP_FUNCTION {
                    return Err(binary(
                        at * 4,
                        "OpFunction inside a function (missing OpFunctionEnd)",
                    ));
                }
            }
            at += len;
        }
        at += (words[at] >> 16) as usize;
        functions.push(FunctionRange { id, start, end: at });
    }
    Ok((functions, at))
}

/// The error for the instruction at word `at`, between functions, that
/// does not start one: a bad word count, another opcode, or an
/// `OpFunction` shorter than its five words.
#[cold]
#[inline(never)]
fn not_a_function_start(words: &[u32], at: usize) -> Error {
    let inst = match inst_at(words, at) {
        Ok(inst) => inst,
        Err(e) => return e,
    };
    match inst.opcode {
        OP_FUNCTION => binary(inst.byte_offset(), "OpFunction too short"),
        OP_FUNCTION_END => end_outside(inst),
        OP_LABEL => label_outside(inst),
        opcode => binary(
            inst.byte_offset(),
            format!("instruction with opcode {opcode} between functions"),
        ),
    }
}

/// The error for a function from word `start` (id `id`) whose walk went
/// to or past the end of `words`: the word count of the instruction that
/// runs past the end, found by walking the function again, or else its
/// missing `OpFunctionEnd`.
#[cold]
#[inline(never)]
fn overrun(words: &[u32], start: usize, id: u32) -> crate::error::Error {
    let mut at = start;
    while at < words.len() {
        match inst_at(words, at) {
            Ok(inst) => at = inst.end(),
            Err(e) => return e,
        }
    }
    no_function_end(start, id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::module::{HEADER_WORDS, MAGIC};

    fn header(bound: u32) -> Vec<u32> {
        vec![MAGIC, 0x0001_0600, 0xffff, bound, 0]
    }

    /// A module of `count` functions of uneven length, each of whose
    /// bodies starts with an `OpNop` of three words holding an
    /// `OpFunctionEnd` and an `OpFunction` (words the parse steps over),
    /// so that some guessed piece starts fall inside functions.
    fn uneven_functions(count: u32) -> Vec<u32> {
        let mut w = header(4 * count + 10);
        w.extend([(2 << 16) | spirv::Op::Capability as u32, 1]);
        for k in 0..count {
            let id = 4 * k + 5;
            w.extend([FUNCTION_WORD, 1, id, 0, 2]);
            w.extend([(2 << 16) | u32::from(OP_LABEL), id + 1]);
            w.extend([3 << 16, FUNCTION_END_WORD, FUNCTION_WORD]);
            for j in 0..k % 7 {
                w.extend([(4 << 16) | spirv::Op::IAdd as u32, 3, id + 2, j + 1]);
            }
            w.extend([(1 << 16) | spirv::Op::Return as u32, FUNCTION_END_WORD]);
        }
        w
    }

    #[test]
    fn functions_parsed_in_pieces_are_parsed_once_in_order() {
        let words = uneven_functions(200);
        let from = HEADER_WORDS + 2;
        let whole = functions_in_pieces(&words, from, 1).unwrap();
        assert_eq!(whole.len(), 200);
        let real: Vec<usize> = whole.iter().map(|f| f.start).collect();
        let (mut right, mut wrong) = (0, 0);
        for pieces in 2..=12 {
            assert_eq!(functions_in_pieces(&words, from, pieces).unwrap(), whole);
            for &start in &piece_starts(&words, from, pieces)[1..] {
                if real.contains(&start) {
                    right += 1;
                } else {
                    wrong += 1;
                }
            }
        }
        // Both kinds of guess were made: pieces joined, and parsed on past
        // a wrong start.
        assert!(right > 10 && wrong > 10, "{right} right, {wrong} wrong");
        // Read ahead or not (by size: not at this size), the same list.
        assert_eq!(
            walk_functions::<true>(&words, from, words.len()).unwrap().0,
            whole
        );
        // Errors: a word count of 0 in the 150th function, and its end
        // missing; a label's word count in the last function running past
        // the end; the same first error however many pieces.
        let overrun = (0xffff << 16) | u32::from(OP_LABEL);
        for (at, word, says) in [
            (real[150] + 10, 0, "word count 0"),
            (real[151] - 1, 1 << 16, "missing OpFunctionEnd"),
            (real[199] + 5, overrun, "claims 65535 words"),
        ] {
            let mut bad = words.clone();
            bad[at] = word;
            let first = functions_in_pieces(&bad, from, 1).unwrap_err().to_string();
            assert!(first.contains(says), "{first}");
            let ahead = walk_functions::<true>(&bad, from, bad.len()).unwrap_err();
            assert_eq!(ahead.to_string(), first, "read ahead");
            for pieces in 2..=12 {
                let e = functions_in_pieces(&bad, from, pieces).unwrap_err();
                assert_eq!(e.to_string(), first, "{pieces} pieces");
            }
        }
    }
}
