//! Lossless word-level view of a SPIR-V module.
//!
//! The module is kept as its words plus a small index: the header, the
//! module-level instructions (everything before the first `OpFunction`) and
//! the word range of each function. Nothing is decoded beyond what a decision
//! needs, so instructions the pass does not touch are written back word for
//! word, unknown opcodes and module-level `OpExtInst` pass through (every
//! instruction states its own length), and a function no predicate reaches can
//! be copied as one word range. Both byte orders are read; [`Endian`] records
//! which one so the output keeps it.

use crate::error::{Result, binary};
use crate::operands::{Role, op, opname};

mod function_section;

/// The SPIR-V magic number, as read in the module's own byte order.
pub const MAGIC: u32 = 0x0723_0203;
/// Number of words in the module header.
pub const HEADER_WORDS: usize = 5;

/// Byte order of a module's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endian {
    /// Little-endian words (what every producer here writes).
    Little,
    /// Big-endian words.
    Big,
}

/// Checks what can be checked of a module from its length and first four
/// bytes, and tells its byte order. The magic number comes first, so a file
/// that is not SPIR-V at all (a README, an ELF object) is said to be "not
/// SPIR-V", not "of a bad length". Errors name the byte offset.
pub fn check_start(first: &[u8], len: usize) -> Result<Endian> {
    if len < 4 || first.len() < 4 {
        return Err(binary(
            0,
            format!("not SPIR-V: {len} byte(s), fewer than the 5-word header"),
        ));
    }
    let magic = [first[0], first[1], first[2], first[3]];
    let endian = if u32::from_le_bytes(magic) == MAGIC {
        Endian::Little
    } else if u32::from_be_bytes(magic) == MAGIC {
        Endian::Big
    } else {
        return Err(binary(
            0,
            format!(
                "not SPIR-V: bad magic number 0x{:08x} (expected 0x07230203 in either byte order)",
                u32::from_le_bytes(magic)
            ),
        ));
    };
    if !len.is_multiple_of(4) {
        return Err(binary(
            len - len % 4,
            format!("module length {len} bytes is not a multiple of 4"),
        ));
    }
    if len < HEADER_WORDS * 4 {
        return Err(binary(
            0,
            format!("module has {} words, fewer than the 5-word header", len / 4),
        ));
    }
    Ok(endian)
}

/// Converts 4-byte chunks to host words in the given byte order, appending
/// them to `words`; `bytes.len()` must be a multiple of 4.
pub fn extend_words(words: &mut Vec<u32>, bytes: &[u8], endian: Endian) {
    words.extend(bytes.chunks_exact(4).map(|c| {
        let b = [c[0], c[1], c[2], c[3]];
        match endian {
            Endian::Little => u32::from_le_bytes(b),
            Endian::Big => u32::from_be_bytes(b),
        }
    }));
}

/// Converts module bytes to host words, detecting the byte order from the
/// magic number. Errors name the byte offset.
pub fn words_from_bytes(bytes: &[u8]) -> Result<(Vec<u32>, Endian)> {
    let endian = check_start(bytes, bytes.len())?;
    let mut words = Vec::with_capacity(bytes.len() / 4);
    extend_words(&mut words, bytes, endian);
    Ok((words, endian))
}

/// Writes host words as bytes in the given byte order, a chunk at a time
/// (no second copy of the module).
pub fn write_words(
    out: &mut dyn std::io::Write,
    words: &[u32],
    endian: Endian,
) -> std::io::Result<()> {
    let mut buf = Vec::with_capacity(64 * 1024);
    for chunk in words.chunks(16 * 1024) {
        buf.clear();
        for &w in chunk {
            buf.extend_from_slice(&match endian {
                Endian::Little => w.to_le_bytes(),
                Endian::Big => w.to_be_bytes(),
            });
        }
        out.write_all(&buf)?;
    }
    Ok(())
}

/// Serializes host words in the given byte order.
pub fn bytes_from_words(words: &[u32], endian: Endian) -> Vec<u8> {
    let mut out = vec![0u8; words.len() * 4];
    crate::huge_pages::advise(&mut out);
    for (c, &w) in out.chunks_exact_mut(4).zip(words) {
        c.copy_from_slice(&match endian {
            Endian::Little => w.to_le_bytes(),
            Endian::Big => w.to_be_bytes(),
        });
    }
    out
}

/// One instruction: where it starts (word index into the module), its opcode
/// and its word count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Inst {
    /// Index of the instruction's first word in the module.
    pub at: usize,
    /// The opcode (low half of the first word).
    pub opcode: u16,
    /// Number of words, including the first.
    pub len: usize,
}

impl Inst {
    /// Byte offset of the instruction in the input.
    pub fn byte_offset(&self) -> usize {
        self.at * 4
    }

    /// Word index just past the instruction.
    pub fn end(&self) -> usize {
        self.at + self.len
    }
}

/// A function's word range and the instructions that frame it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionRange {
    /// Result id of the `OpFunction`.
    pub id: u32,
    /// Word index of the `OpFunction` instruction.
    pub start: usize,
    /// Word index just past the `OpFunctionEnd` instruction.
    pub end: usize,
}

/// A parsed module: the words, the header fields and the index.
#[derive(Debug, Clone)]
pub struct Module<'w> {
    /// All words, host order.
    pub words: &'w [u32],
    /// Where each module-level instruction starts (everything before the
    /// first function), in order: [`Module::global`].
    global_starts: Vec<u32>,
    /// Functions, in order.
    pub functions: Vec<FunctionRange>,
}

/// The first word of an instruction: its word count (this word included)
/// in the high half, its opcode in the low half.
#[inline]
pub const fn header_word(word_count: usize, opcode: u16) -> u32 {
    ((word_count as u32) << 16) | opcode as u32
}

/// Appends one instruction to `out`: the header word, then `operands`
/// (everything after the header). The one place the pass encodes an
/// instruction.
#[inline]
pub fn push_inst(out: &mut Vec<u32>, opcode: u16, operands: impl IntoIterator<Item = u32>) {
    let at = out.len();
    out.push(0);
    out.extend(operands);
    out[at] = header_word(out.len() - at, opcode);
}

/// Checks that `words` (host order) hold a whole 5-word header starting
/// with the SPIR-V magic number: what every reader of a module checks
/// first. Errors name byte offset 0.
pub(crate) fn check_header_start(words: &[u32]) -> Result<()> {
    if words.len() < HEADER_WORDS {
        return Err(binary(
            0,
            format!(
                "module has {} words, fewer than the 5-word header",
                words.len()
            ),
        ));
    }
    if words[0] != MAGIC {
        return Err(binary(0, format!("bad magic number 0x{:08x}", words[0])));
    }
    Ok(())
}

/// Reads the instruction starting at word `at`, checking its word count.
#[inline]
pub fn inst_at(words: &[u32], at: usize) -> Result<Inst> {
    let first = words[at];
    let len = (first >> 16) as usize;
    let opcode = (first & 0xffff) as u16;
    if len == 0 || at + len > words.len() {
        return Err(bad_word_count(words, at));
    }
    Ok(Inst { at, opcode, len })
}

/// Where each module-level instruction of `words` (a module whose header
/// was checked) starts: everything before the first function, each word
/// count checked. Reads ahead ([`crate::prefetch::ahead`]) when `AHEAD`.
fn module_level_starts<const AHEAD: bool>(words: &[u32]) -> Result<Vec<u32>> {
    let n = words.len();
    // Room for a small module's list at once (a module-level instruction
    // takes a word at least); a larger module's grows as it goes.
    let mut starts = Vec::with_capacity(n.min(RESERVED_STARTS));
    let mut at = HEADER_WORDS;
    while at < n {
        // (The header's fields read here, not through [`inst_at`]: its
        // result went through memory, a stall each step of a walk whose
        // every step waits on the word count before it.)
        let first = words[at];
        let (len, opcode) = ((first >> 16) as usize, first as u16);
        if len == 0 || len > n - at {
            return Err(bad_word_count(words, at));
        }
        if AHEAD {
            crate::prefetch::ahead(words, at);
        }
        match opcode {
            OP_FUNCTION => break,
            OP_FUNCTION_END => return Err(end_outside(Inst { at, opcode, len })),
            OP_LABEL => return Err(label_outside(Inst { at, opcode, len })),
            _ => starts.push(at as u32),
        }
        at += len;
    }
    Ok(starts)
}

/// The error for the instruction at word `at` whose word count is 0 or runs
/// past the end of `words` (out of line: the parse loop never takes it on
/// valid input).
#[cold]
#[inline(never)]
fn bad_word_count(words: &[u32], at: usize) -> crate::error::Error {
    let first = words[at];
    let len = (first >> 16) as usize;
    let opcode = (first & 0xffff) as u16;
    if len == 0 {
        return binary(
            at * 4,
            format!("instruction with opcode {opcode} has word count 0"),
        );
    }
    binary(
        at * 4,
        format!(
            "instruction with opcode {opcode} claims {len} words but only {} remain",
            words.len() - at
        ),
    )
}

/// The error for an `OpFunctionEnd` outside a function.
#[cold]
fn end_outside(inst: Inst) -> crate::error::Error {
    binary(inst.byte_offset(), "OpFunctionEnd outside a function")
}

/// The error for a function without an `OpFunctionEnd`.
#[cold]
fn no_function_end(start: usize, id: u32) -> crate::error::Error {
    binary(start * 4, format!("function %{id} has no OpFunctionEnd"))
}

/// The error for an `OpLabel` outside a function.
#[cold]
fn label_outside(inst: Inst) -> crate::error::Error {
    binary(inst.byte_offset(), "OpLabel outside a function")
}

/// Iterates over the instructions in `words[start..end]`, which must be
/// known to hold whole instructions (as every range of a parsed [`Module`]
/// does).
pub fn insts(words: &[u32], start: usize, end: usize) -> impl Iterator<Item = Inst> + '_ {
    let mut at = start;
    std::iter::from_fn(move || {
        if at >= end {
            return None;
        }
        let first = words[at];
        let inst = Inst {
            at,
            opcode: (first & 0xffff) as u16,
            len: (first >> 16) as usize,
        };
        at += inst.len.max(1);
        Some(inst)
    })
}

/// Gives back the spare capacity of a list kept for a whole run when
/// there is more than a page of it: a copy costs less than the memory
/// then, and more than it saves for a small module's lists. (Out of
/// line: inlined into `Module::parse`, it changed the code of the parse's
/// loop, 1 MB +0.1 M instructions.)
#[inline(never)]
pub(crate) fn shrink_spare<T>(list: &mut Vec<T>) {
    if (list.capacity() - list.len()) * std::mem::size_of::<T>() > 4096 {
        list.shrink_to_fit();
    }
}

const OP_FUNCTION: u16 = spirv::Op::Function as u16;
const OP_FUNCTION_END: u16 = spirv::Op::FunctionEnd as u16;
const OP_LABEL: u16 = spirv::Op::Label as u16;

/// The most entries [`Module::parse`] makes room for in each of its lists
/// before it has seen the module.
const RESERVED_STARTS: usize = 1 << 12;

impl<'w> Module<'w> {
    /// Indexes `words` (host order, header included). Checks the header and
    /// every instruction's word count; functions must be closed by
    /// `OpFunctionEnd` and not nested. A large module's functions are
    /// parsed in pieces on all cores, with the same result.
    pub fn parse(words: &'w [u32]) -> Result<Module<'w>> {
        let mut m = Module::parse_module_level(words)?;
        m.functions = m.parse_functions()?;
        Ok(m)
    }

    /// The first step of [`Module::parse`]: checks the header and indexes
    /// the module-level instructions. The module has no functions yet:
    /// [`Module::parse_functions`] gives them, to set in
    /// [`Module::functions`] (meanwhile, what reads only module scope can
    /// go on, on another core).
    pub(crate) fn parse_module_level(words: &'w [u32]) -> Result<Module<'w>> {
        check_header_start(words)?;
        if words[4] != 0 {
            return Err(binary(
                16,
                format!("header schema word is {} (must be 0)", words[4]),
            ));
        }
        let n = words.len();
        // (Word indices are kept in 32 bits: `Defs`, the scan's facts.)
        if u32::try_from(n).is_err() {
            return Err(binary(
                0,
                format!("module has {n} words, more than the 4,294,967,295 supported"),
            ));
        }
        let mut global_starts = if crate::prefetch::pays(n) {
            module_level_starts::<true>(words)?
        } else {
            module_level_starts::<false>(words)?
        };
        // (Kept for the whole run.)
        shrink_spare(&mut global_starts);
        Ok(Module {
            words,
            global_starts,
            functions: Vec::new(),
        })
    }

    /// The second step of [`Module::parse`]: the functions, which follow
    /// the module-level instructions.
    pub(crate) fn parse_functions(&self) -> Result<Vec<FunctionRange>> {
        let at = (self.global_starts.len().checked_sub(1))
            .map_or(HEADER_WORDS, |last| self.global(last).end());
        let mut functions = function_section::parse_functions(self.words, at)?;
        // (Kept for the whole run. The list of a module parsed in one
        // piece grew by doubling; one joined from pieces was made to its
        // size.)
        shrink_spare(&mut functions);
        Ok(functions)
    }

    /// The number of module-level instructions.
    pub fn global_count(&self) -> usize {
        self.global_starts.len()
    }

    /// The `k`th module-level instruction.
    #[inline]
    pub fn global(&self, k: usize) -> Inst {
        let at = self.global_starts[k] as usize;
        let first = self.words[at];
        Inst {
            at,
            opcode: (first & 0xffff) as u16,
            len: (first >> 16) as usize,
        }
    }

    /// The index of the module-level instruction that starts at word
    /// `at`, if one does.
    pub(crate) fn global_at(&self, at: usize) -> Option<usize> {
        let at = u32::try_from(at).ok()?;
        self.global_starts.binary_search(&at).ok()
    }

    /// The module-level instructions, in order.
    pub fn globals(&self) -> impl ExactSizeIterator<Item = Inst> + '_ {
        (0..self.global_starts.len()).map(|k| self.global(k))
    }

    /// The id bound from the header: every id is below it.
    pub fn bound(&self) -> u32 {
        self.words[3]
    }

    /// The words of one instruction.
    pub fn inst_words(&self, inst: Inst) -> &'w [u32] {
        &self.words[inst.at..inst.end()]
    }

    /// Reads an id at word index `at`, checking it against the bound.
    pub fn id_at(&self, at: usize) -> Result<u32> {
        let id = self.words[at];
        check_id(self.words, id, at)?;
        Ok(id)
    }
}

/// Checks `id` (read at word index `at`) is nonzero and below the header bound.
pub fn check_id(words: &[u32], id: u32, at: usize) -> Result<()> {
    if id == 0 || id >= words[3] {
        return Err(binary(
            at * 4,
            format!(
                "id {id} is out of range (the header's bound is {})",
                words[3]
            ),
        ));
    }
    Ok(())
}

/// True when word `pos` of an instruction with `opcode`, which the grammar
/// walker reports in `role`, must hold an id below the header's bound.
/// Words the walker cannot place, and the operands of an extended
/// instruction (their kinds depend on the instruction set: `OpenCL.std` and
/// `OpenCL.DebugInfo.100` take literals too), are not checked.
pub fn must_be_id(opcode: u16, pos: usize, role: Role) -> bool {
    let extended = matches!(opcode, op::ExtInst | op::ExtInstWithForwardRefsKHR);
    role != Role::MaybeId && !(extended && pos >= 5)
}

/// Checks that word `pos` of `inst` (an id, see [`must_be_id`]) is nonzero
/// and below the header's bound; the error names the word's byte offset,
/// the id, the bound and the instruction.
pub fn check_inst_id(words: &[u32], inst: Inst, pos: usize) -> Result<()> {
    let id = words[inst.at + pos];
    if id == 0 || id >= words[3] {
        return Err(binary(
            (inst.at + pos) * 4,
            format!(
                "id {id} is out of range (the header's bound is {}): word {pos} of {} at byte {}",
                words[3],
                opname(inst.opcode),
                inst.byte_offset()
            ),
        ));
    }
    Ok(())
}

/// Decodes a literal string starting at word index `at` inside an instruction
/// ending at word index `end`. Returns the string and the number of words it
/// takes. The string must end in a NUL byte before `end`.
pub fn literal_string(words: &[u32], at: usize, end: usize) -> Result<(String, usize)> {
    let n = literal_string_words(words, at, end).ok_or_else(|| {
        binary(
            at * 4,
            "literal string has no terminating NUL within its instruction",
        )
    })?;
    // Only the last word holds a NUL: the string's length is known before
    // a byte is copied.
    let last = words[at + n - 1].to_le_bytes();
    let tail = last.iter().position(|&b| b == 0).unwrap_or(4);
    let mut bytes = Vec::with_capacity((n - 1) * 4 + tail);
    for w in &words[at..at + n - 1] {
        bytes.extend_from_slice(&w.to_le_bytes());
    }
    bytes.extend_from_slice(&last[..tail]);
    let s = String::from_utf8(bytes)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    Ok((s, n))
}

/// The number of words of the literal string starting at word index `at`
/// inside an instruction ending at word index `end` (through the word with
/// its terminating NUL byte), or `None` when no word before `end` holds a
/// NUL. Reads no byte of the string into memory: the walkers that only
/// skip strings call this.
pub fn literal_string_words(words: &[u32], at: usize, end: usize) -> Option<usize> {
    // A word has a zero byte exactly when this expression is nonzero.
    let has_zero = |w: u32| w.wrapping_sub(0x0101_0101) & !w & 0x8080_8080 != 0;
    words
        .get(at..end)?
        .iter()
        .position(|&w| has_zero(w))
        .map(|k| k + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(bound: u32) -> Vec<u32> {
        vec![MAGIC, 0x0001_0600, 0xffff, bound, 0]
    }

    #[test]
    fn rejects_short_and_misaligned_input() {
        let magic = MAGIC.to_le_bytes();
        let e = words_from_bytes(&[magic.as_slice(), &[1, 2, 3]].concat()).unwrap_err();
        assert!(e.to_string().contains("not a multiple of 4"), "{e}");
        let e = words_from_bytes(&[magic.as_slice(), &[0; 12]].concat()).unwrap_err();
        assert!(
            e.to_string().contains("fewer than the 5-word header"),
            "{e}"
        );
    }

    #[test]
    fn not_spirv_is_said_before_any_length_complaint() {
        // A README (odd length), an ELF header, zeros, three bytes.
        for bytes in [
            b"# A README\n\nSome text.\n".as_slice(),
            b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x01\0",
            &[0; 20],
            &[1, 2, 3],
        ] {
            let e = words_from_bytes(bytes).unwrap_err().to_string();
            assert!(e.starts_with("byte 0: not SPIR-V: "), "{bytes:?}: {e}");
        }
    }

    #[test]
    fn detects_big_endian() {
        let words = header(3);
        let be = bytes_from_words(&words, Endian::Big);
        let (back, endian) = words_from_bytes(&be).unwrap();
        assert_eq!(endian, Endian::Big);
        assert_eq!(back, words);
        assert_eq!(bytes_from_words(&back, Endian::Big), be);
    }

    /// Module scope is indexed alike read ahead or not, and fails alike.
    #[test]
    fn module_level_starts_alike_read_ahead_or_not() {
        let mut w = header(10);
        for k in 0..300 {
            w.extend([(2 << 16) | u32::from(spirv::Op::Capability as u16), k]);
        }
        w.extend([(5 << 16) | u32::from(OP_FUNCTION), 1, 2, 0, 3]);
        let starts = module_level_starts::<false>(&w).unwrap();
        assert_eq!(starts.len(), 300);
        assert_eq!(module_level_starts::<true>(&w).unwrap(), starts);
        w[HEADER_WORDS + 2 * 150] = 0x0000_0011;
        let e = module_level_starts::<false>(&w).unwrap_err().to_string();
        assert!(e.contains("word count 0"), "{e}");
        let ahead = module_level_starts::<true>(&w).unwrap_err().to_string();
        assert_eq!(ahead, e);
    }

    #[test]
    fn rejects_zero_word_count_and_overrun() {
        let mut w = header(3);
        w.push(0x0000_0011); // opcode 17 (OpCapability), word count 0
        let e = Module::parse(&w).unwrap_err();
        assert_eq!(
            e.to_string(),
            "byte 20: instruction with opcode 17 has word count 0"
        );
        let mut w = header(3);
        w.push(0x0005_0011);
        let e = Module::parse(&w).unwrap_err();
        assert!(
            e.to_string().contains("claims 5 words but only 1 remain"),
            "{e}"
        );
    }

    #[test]
    fn rejects_nonzero_schema() {
        let mut w = header(3);
        w[4] = 7;
        let e = Module::parse(&w).unwrap_err();
        assert_eq!(
            e.to_string(),
            "byte 16: header schema word is 7 (must be 0)"
        );
    }

    #[test]
    fn literal_string_needs_nul() {
        let w = [u32::from_le_bytes(*b"abcd")];
        assert!(literal_string(&w, 0, 1).is_err());
        let w = [u32::from_le_bytes(*b"abcd"), 0];
        assert_eq!(literal_string(&w, 0, 2).unwrap(), ("abcd".to_string(), 2));
        for (word, n) in [(0u32, Some(1)), (0x0001_0101, Some(1)), (0x0101_0101, None)] {
            assert_eq!(literal_string_words(&[word], 0, 1), n, "{word:#x}");
        }
        assert_eq!(literal_string_words(&w, 0, 2), Some(2));
        assert_eq!(literal_string_words(&w, 0, 1), None);
        assert_eq!(literal_string_words(&w, 1, 5), None);
        let w = [u32::from_le_bytes(*b"ab\0\0")];
        assert_eq!(literal_string(&w, 0, 1).unwrap(), ("ab".to_string(), 1));
    }
}
