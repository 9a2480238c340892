//! SPIR-V assembly text: of a whole module ([`disassemble`], for
//! `--emit spvasm` and the golden files), and of one instruction for error
//! messages.
//!
//! [`disassemble`] prints exactly what `spirv-dis --raw-id --no-indent
//! --no-header` of SPIRV-Tools 2025.5 prints, after a header comment with
//! the module's own version, generator and bound. It reads every module the
//! tool reads, including module-scope `OpExtInst` (debug info), and is
//! driven by the same grammar as the pass ([`crate::operands`]: rspirv's
//! tables) for the operand layouts, plus enumerant names and parameters,
//! and the few opcode names that differ, generated from SPIRV-Tools
//! 2025.5's grammar (rspirv's is slightly newer and renames a few; see
//! `names`). Numbers print by their type (see `number`); extended
//! instructions by name for the sets SPIRV-Tools names (see `ext_inst`).
//!
//! An instruction the grammar cannot describe (an unknown opcode, an
//! unknown enumerant or mask bit, a constant of a non-numeric type, a word
//! count that does not match its operands, an instruction set SPIRV-Tools
//! does not know) prints as its raw words, `!0x…` each, followed by a
//! comment saying why: `spirv-as` turns that line back into the same words,
//! and nothing is guessed. (`spirv-as` reads raw words after an instruction
//! whose optional operands are absent as those operands, so such an
//! instruction prints raw too when the next one does.) Text that would not
//! assemble back to the same words is not printed either: a literal string
//! that is not UTF-8 or not padded with zeros, a literal narrower than 32
//! bits whose high bits are not its sign or zeros.

mod ext_inst;
mod names;
mod number;

use rspirv::grammar::{Instruction, LogicalOperand, OperandKind as K, OperandQuantifier as Q};

use crate::error::Result;
use crate::fastmap::Map;
use crate::globals::Globals;
use crate::module::{HEADER_WORDS, check_header_start, inst_at, literal_string};
use crate::operands::{Role, for_each_id, grammar, op, operands_after_result, opname};
use ext_inst::ExtSet;
use names::Enumerant;
use number::FloatFormat;

/// The module `words` (host byte order, header included) as SPIR-V
/// assembly text: a header comment (`; SPIR-V`, `; Version: 1.6`,
/// `; Generator: …`, `; Bound: N`, `; Schema: 0`), then one line per
/// instruction, ids as `%N`. Errors only when the header or an
/// instruction's word count is malformed, naming the byte offset.
pub fn disassemble(words: &[u32]) -> Result<String> {
    check_header_start(words)?;
    let mut out = header(words);
    let mut context = Context::default();
    // `spirv-as` reads raw words after an instruction that could take more
    // operands as those operands, so such an instruction prints raw when
    // the next one prints raw. A run of them waits for the first
    // instruction that is not one.
    let mut open_run: Vec<(&[u32], String)> = Vec::new();
    let mut at = HEADER_WORDS;
    while at < words.len() {
        let inst = inst_at(words, at)?;
        let inst_words = &words[at..inst.end()];
        let decoded = context.decode(inst_words);
        context.learn(inst_words);
        match decoded {
            Ok(Decoded { text, open: true }) => open_run.push((inst_words, text)),
            Ok(Decoded { text, open: false }) => {
                for (_, text) in open_run.drain(..) {
                    push_line(&mut out, &text);
                }
                push_line(&mut out, &text);
            }
            Err(why) => {
                for (words, text) in open_run.drain(..) {
                    let why =
                        format!("{text} (raw: spirv-as would read the next words as its operands)");
                    push_line(&mut out, &raw(words, &why));
                }
                push_line(&mut out, &raw(inst_words, &why));
            }
        }
        at = inst.end();
    }
    for (_, text) in open_run {
        push_line(&mut out, &text);
    }
    Ok(out)
}

fn push_line(out: &mut String, line: &str) {
    out.push_str(line);
    out.push('\n');
}

/// An instruction as its words (`!0x…`, which `spirv-as` copies as they
/// are) and a comment, kept on one line (a string in it may hold line
/// breaks).
fn raw(words: &[u32], comment: &str) -> String {
    let words: Vec<String> = words.iter().map(|w| format!("!0x{w:08x}")).collect();
    let comment = comment.replace('\n', "\\n").replace('\r', "\\r");
    format!("{} ; {comment}", words.join(" "))
}

/// The header comment, as spirv-dis writes it but with the module's own
/// fields.
fn header(words: &[u32]) -> String {
    let (version, generator) = (words[1], words[2]);
    let tool = generator >> 16;
    let tool_name = match names::GENERATORS.iter().find(|(id, _)| *id == tool) {
        Some((_, name)) => name.to_string(),
        None => format!("Unknown({tool})"),
    };
    format!(
        "; SPIR-V\n; Version: {}.{}\n; Generator: {tool_name}; {}\n; Bound: {}\n; Schema: {}\n",
        (version >> 16) & 0xff,
        (version >> 8) & 0xff,
        generator & 0xffff,
        words[3],
        words[4]
    )
}

/// An instruction decoded as text, or why it cannot be.
type Decoding = std::result::Result<Decoded, String>;

/// An instruction decoded as text.
struct Decoded {
    text: String,
    /// True when it ends where optional operands could follow: `spirv-as`
    /// would take the raw words of a next line as its operands.
    open: bool,
}

/// A numeric type: what a literal of that type looks like.
#[derive(Clone, Copy)]
enum Numeric {
    Int {
        width: u32,
        signed: bool,
    },
    /// `format` is `None` for a width/encoding pair SPIR-V does not define.
    Float {
        width: u32,
        format: Option<FloatFormat>,
    },
}

/// What the instructions so far tell about the ones that follow: numeric
/// types (for constants and `OpSwitch` literals), the type of every value
/// (for `OpSwitch` selectors) and the imported instruction sets.
#[derive(Default)]
struct Context {
    numeric: Map<u32, Numeric>,
    type_of: Map<u32, u32>,
    ext_sets: Map<u32, ExtSet>,
}

impl Context {
    /// One instruction as text, or why its words cannot be decoded.
    fn decode(&self, words: &[u32]) -> Decoding {
        let opcode = (words[0] & 0xffff) as u16;
        let g = grammar(opcode).ok_or_else(|| format!("unknown opcode {opcode}"))?;
        if opcode == op::ExtInstImport
            && let Ok((name, _)) = literal_string(words, 2, words.len())
            && let ExtSet::Unknown = ExtSet::named(&name)
        {
            // spirv-as refuses to import a set it does not know.
            return Err(format!(
                "OpExtInstImport: SPIRV-Tools does not know the set {name:?}"
            ));
        }
        let mut line = Line {
            words,
            pos: 1,
            result: None,
            text: String::new(),
            open: false,
            context: self,
        };
        line.operands(g.operands)
            .map_err(|why| format!("Op{}: {why}", name_of(g)))?;
        if line.pos < words.len() {
            return Err(format!(
                "Op{}: {} more than its operands take",
                name_of(g),
                words_count(words.len() - line.pos)
            ));
        }
        let text = match line.result {
            Some(r) => format!("%{r} = Op{}{}", name_of(g), line.text),
            None => format!("Op{}{}", name_of(g), line.text),
        };
        Ok(Decoded {
            text,
            open: line.open,
        })
    }

    /// Records what instruction `words` tells about later ones.
    fn learn(&mut self, words: &[u32]) {
        let opcode = (words[0] & 0xffff) as u16;
        match (opcode, words) {
            (op::TypeInt, [_, id, width, signedness, ..]) => {
                let (width, signed) = (*width, *signedness != 0);
                self.numeric.insert(*id, Numeric::Int { width, signed });
            }
            (op::TypeFloat, [_, id, width, encoding @ ..]) => {
                let format = float_format(*width, encoding.first().copied());
                let width = *width;
                self.numeric.insert(*id, Numeric::Float { width, format });
            }
            (op::ExtInstImport, [_, id, ..]) => {
                let set = match literal_string(words, 2, words.len()) {
                    Ok((name, _)) => ExtSet::named(&name),
                    Err(_) => ExtSet::Unknown,
                };
                self.ext_sets.insert(*id, set);
            }
            _ => {}
        }
        if let Some(g) = grammar(opcode)
            && let [a, b, ..] = g.operands
            && a.kind == K::IdResultType
            && b.kind == K::IdResult
            && words.len() >= 3
        {
            self.type_of.insert(words[2], words[1]);
        }
    }
}

/// True when `word`, a literal of a `width`-bit type (1 to 31), has its
/// high bits as SPIR-V requires: a copy of the sign bit for signed
/// integers, zeros otherwise.
fn fills_word_as_spirv_says(word: u32, numeric: Numeric, width: u32) -> bool {
    let signed = matches!(numeric, Numeric::Int { signed: true, .. });
    let shift = 32 - width;
    if signed {
        ((word << shift) as i32 >> shift) as u32 == word
    } else {
        word >> width == 0
    }
}

/// The name SPIRV-Tools 2025.5 gives an instruction, without `Op`.
fn name_of(g: &'static Instruction<'static>) -> &'static str {
    let opcode = g.opcode as u16;
    match names::OPCODE_RENAMES.iter().find(|(op, _)| *op == opcode) {
        Some((_, name)) => name,
        None => g.opname,
    }
}

/// `n word(s)`.
fn words_count(n: usize) -> String {
    if n == 1 {
        "1 word".to_string()
    } else {
        format!("{n} words")
    }
}

/// The float format of `OpTypeFloat width [encoding]`, if SPIR-V defines it.
fn float_format(width: u32, encoding: Option<u32>) -> Option<FloatFormat> {
    use spirv::FPEncoding as E;
    const BF16: u32 = E::BFloat16KHR as u32;
    const E4M3: u32 = E::Float8E4M3EXT as u32;
    const E5M2: u32 = E::Float8E5M2EXT as u32;
    Some(match (width, encoding) {
        (16, None) => FloatFormat::HALF,
        (32, None) => FloatFormat::SINGLE,
        (64, None) => FloatFormat::DOUBLE,
        (16, Some(BF16)) => FloatFormat::BFLOAT16,
        (8, Some(E4M3)) => FloatFormat::E4M3,
        (8, Some(E5M2)) => FloatFormat::E5M2,
        _ => return None,
    })
}

/// Why an instruction cannot be decoded (without its opcode name).
type Why = std::result::Result<(), String>;

/// The operands of one instruction being turned into text.
struct Line<'a> {
    words: &'a [u32],
    /// The next word to decode.
    pos: usize,
    /// The result id, printed before the opcode.
    result: Option<u32>,
    /// The operands so far, each preceded by a space.
    text: String,
    /// See [`Decoded::open`].
    open: bool,
    context: &'a Context,
}

impl Line<'_> {
    fn remaining(&self) -> usize {
        self.words.len() - self.pos
    }

    fn word(&mut self) -> std::result::Result<u32, String> {
        let w = *self.words.get(self.pos).ok_or("too few operands")?;
        self.pos += 1;
        Ok(w)
    }

    fn push(&mut self, operand: &str) {
        self.text.push(' ');
        self.text.push_str(operand);
    }

    fn operands(&mut self, ops: &[LogicalOperand]) -> Why {
        for op in ops {
            match op.quantifier {
                Q::One => self.operand(op.kind)?,
                Q::ZeroOrOne if self.remaining() > 0 => self.operand(op.kind)?,
                Q::ZeroOrMore => {
                    while self.remaining() > 0 {
                        self.operand(op.kind)?;
                    }
                    self.open = true;
                }
                Q::ZeroOrOne => self.open = true,
            }
        }
        Ok(())
    }

    fn operand(&mut self, kind: K) -> Why {
        match kind {
            K::IdResult => self.result = Some(self.word()?),
            K::IdResultType | K::IdRef | K::IdScope | K::IdMemorySemantics => self.id()?,
            K::LiteralInteger => {
                let w = self.word()?;
                self.push(&w.to_string());
            }
            K::LiteralFloat => {
                let w = self.word()?;
                self.push(&number::float(w.into(), FloatFormat::SINGLE));
            }
            K::LiteralString => self.string()?,
            // The value of OpConstant / OpSpecConstant: typed by the result type.
            K::LiteralContextDependentNumber => self.typed_literal(self.words[1])?,
            K::LiteralExtInstInteger => self.ext_inst()?,
            K::LiteralSpecConstantOpInteger => self.spec_constant_op()?,
            K::PairLiteralIntegerIdRef => {
                // OpSwitch: the literal is typed by the selector's type.
                let selector = self.words[1];
                let ty = *self
                    .context
                    .type_of
                    .get(&selector)
                    .ok_or_else(|| format!("the type of selector %{selector} is not known"))?;
                self.typed_literal(ty)?;
                self.id()?;
            }
            K::PairIdRefLiteralInteger => {
                self.id()?;
                self.operand(K::LiteralInteger)?;
            }
            K::PairIdRefIdRef => {
                self.id()?;
                self.id()?;
            }
            _ => match names::enumerants(kind) {
                Some((table, false)) => self.value_enum(kind, table)?,
                Some((table, true)) => self.mask(kind, table)?,
                None => return Err(format!("operand kind {kind:?} is not modelled")),
            },
        }
        Ok(())
    }

    fn id(&mut self) -> Why {
        let w = self.word()?;
        self.push(&format!("%{w}"));
        Ok(())
    }

    /// A literal string, quoted, with `"` and `\` escaped by `\`. One that
    /// text cannot give back word for word (not UTF-8, or not padded with
    /// zeros after its NUL) cannot be decoded.
    fn string(&mut self) -> Why {
        let mut bytes = Vec::new();
        loop {
            let word = self
                .word()
                .map_err(|_| "literal string has no terminating NUL")?
                .to_le_bytes();
            if let Some(nul) = word.iter().position(|&b| b == 0) {
                if word[nul..].iter().any(|&b| b != 0) {
                    return Err("literal string is not padded with zeros after its NUL".into());
                }
                bytes.extend_from_slice(&word[..nul]);
                break;
            }
            bytes.extend_from_slice(&word);
        }
        let s = std::str::from_utf8(&bytes).map_err(|_| "literal string is not UTF-8")?;
        let mut quoted = String::with_capacity(s.len() + 2);
        quoted.push('"');
        for c in s.chars() {
            if c == '"' || c == '\\' {
                quoted.push('\\');
            }
            quoted.push(c);
        }
        quoted.push('"');
        self.push(&quoted);
        Ok(())
    }

    /// A number literal of type `ty`: one word, or two for 64 bits.
    fn typed_literal(&mut self, ty: u32) -> Why {
        let numeric = *self
            .context
            .numeric
            .get(&ty)
            .ok_or_else(|| format!("%{ty} is not a numeric type"))?;
        let width = match numeric {
            Numeric::Int { width, .. } | Numeric::Float { width, .. } => width,
        };
        if !(1..=64).contains(&width) {
            return Err(format!("%{ty} is {width} bits wide (1 to 64 are read)"));
        }
        let low = self.word()?;
        if width < 32 && !fills_word_as_spirv_says(low, numeric, width) {
            return Err(format!(
                "literal 0x{low:08x} does not extend a {width}-bit value to 32 bits \
                 as SPIR-V requires"
            ));
        }
        let value = if width > 32 {
            u64::from(low) | (u64::from(self.word()?) << 32)
        } else {
            u64::from(low)
        };
        let text = match numeric {
            Numeric::Int { signed, .. } if width > 32 => number::int64(value, signed),
            Numeric::Int { signed, .. } => number::int32(low, signed),
            Numeric::Float {
                format: Some(f), ..
            } => number::float(value, f),
            Numeric::Float { format: None, .. } => {
                return Err(format!("%{ty} is a float type SPIR-V does not define"));
            }
        };
        self.push(&text);
        Ok(())
    }

    /// The instruction number of `OpExtInst` (the set is the operand before
    /// it) and the operands that set's grammar gives it: every word left.
    fn ext_inst(&mut self) -> Why {
        let set = self.words[self.pos - 1];
        let number = self.word()?;
        match self.context.ext_sets.get(&set) {
            Some(ExtSet::Known(table)) => {
                let inst = table.lookup_opcode(number).ok_or_else(|| {
                    format!("the set imported as %{set} has no instruction {number}")
                })?;
                self.push(inst.opname);
                self.operands(inst.operands)?;
                if self.remaining() > 0 {
                    return Err(format!(
                        "{} has {} more than its operands take",
                        inst.opname,
                        words_count(self.remaining())
                    ));
                }
            }
            Some(ExtSet::NonSemantic) => {
                self.push(&number.to_string());
                while self.remaining() > 0 {
                    self.id()?;
                }
                self.open = true;
            }
            Some(ExtSet::Unknown) => {
                return Err(format!("the set imported as %{set} is unknown"));
            }
            None => return Err(format!("%{set} is not an OpExtInstImport")),
        }
        Ok(())
    }

    /// The opcode of `OpSpecConstantOp` (printed without `Op`) and its
    /// operands, less the result type and id.
    fn spec_constant_op(&mut self) -> Why {
        let inner = self.word()?;
        let g = u16::try_from(inner)
            .ok()
            .filter(|&o| o != op::SpecConstantOp)
            .and_then(grammar)
            .ok_or_else(|| format!("{inner} is not an opcode OpSpecConstantOp takes"))?;
        self.push(name_of(g));
        self.operands(&operands_after_result(g))
    }

    /// An enumerant by name, then its parameters.
    fn value_enum(&mut self, kind: K, table: &'static [Enumerant]) -> Why {
        let w = self.word()?;
        let e = table
            .iter()
            .find(|e| e.value == w)
            .ok_or_else(|| format!("unknown {kind:?} {w}"))?;
        self.push(e.name);
        self.operands(e.params)
    }

    /// A bit mask as `A|B` (low bit first; the name of 0, usually `None`,
    /// when no bit is set), then the parameters of each set bit in the same
    /// order.
    fn mask(&mut self, kind: K, table: &'static [Enumerant]) -> Why {
        let w = self.word()?;
        let named = |value: u32| table.iter().find(|e| e.value == value);
        if w == 0 {
            let name = named(0).map_or("", |e| e.name);
            self.push(name);
            return Ok(());
        }
        let bits: Vec<&Enumerant> = (0..32)
            .map(|b| 1u32 << b)
            .filter(|m| w & m != 0)
            .map(|m| named(m).ok_or_else(|| format!("{kind:?} has an unknown bit 0x{m:x}")))
            .collect::<std::result::Result<_, _>>()?;
        let text: Vec<&str> = bits.iter().map(|e| e.name).collect();
        self.push(&text.join("|"));
        bits.iter().try_for_each(|e| self.operands(e.params))
    }
}

/// One instruction as text, for error messages: `%5 = OpStore %3 %4 ...`.
/// Ids print as `%N` (or `%name` when the module names them); other operand
/// words print as numbers. `words` includes the first word.
pub(crate) fn text(words: &[u32], g: &Globals) -> String {
    let opcode = (words[0] & 0xffff) as u16;
    let mut roles = vec![None; words.len()];
    let _ = for_each_id(words, 0, &|_| 1, &mut |pos, role| roles[pos] = Some(role));
    let id = |x: u32| match g.name(x) {
        Some(n) if !n.is_empty() => format!("%{n}"),
        _ => format!("%{x}"),
    };
    let mut out = String::new();
    if let Some(pos) = roles.iter().position(|r| *r == Some(Role::Result)) {
        out.push_str(&format!("{} = ", id(words[pos])));
    }
    out.push_str(&opname(opcode));
    for (pos, &w) in words.iter().enumerate().skip(1) {
        match roles[pos] {
            Some(Role::Result) => {}
            Some(_) => out.push_str(&format!(" {}", id(w))),
            None => out.push_str(&format!(" {w}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::module::MAGIC;

    /// `OpCapability Shader`.
    const CAPABILITY_SHADER: [u32; 2] = [(2 << 16) | 17, 1];

    fn module(bound: u32, insts: &[&[u32]]) -> Vec<u32> {
        let mut words = vec![MAGIC, 0x0001_0300, (99 << 16) | 7, bound, 0];
        insts.iter().for_each(|i| words.extend_from_slice(i));
        words
    }

    fn body(words: &[u32]) -> Vec<String> {
        let text = disassemble(words).unwrap();
        text.lines().skip(5).map(str::to_string).collect()
    }

    #[test]
    fn header_shows_the_modules_own_fields() {
        let text = disassemble(&module(10, &[])).unwrap();
        assert_eq!(
            text,
            "; SPIR-V\n; Version: 1.3\n; Generator: Unknown(99); 7\n; Bound: 10\n; Schema: 0\n"
        );
    }

    #[test]
    fn masks_print_low_bit_first_then_their_parameters() {
        // %3 = OpLoad %1 %2 Volatile|Aligned 4, then with no bit set.
        let load = [(6 << 16) | 61, 1, 3, 2, 3, 4];
        let store = [(4 << 16) | 62, 2, 3, 0];
        assert_eq!(
            body(&module(4, &[&load, &store])),
            ["%3 = OpLoad %1 %2 Volatile|Aligned 4", "OpStore %2 %3 None"]
        );
    }

    #[test]
    fn undecodable_instructions_print_raw_with_the_reason() {
        let unknown = [(3 << 16) | 0xfff, 1, 2];
        // OpDecorate %1 <9999>
        let decorate = [(3 << 16) | 71, 1, 9999];
        assert_eq!(
            body(&module(2, &[&CAPABILITY_SHADER, &unknown, &decorate])),
            [
                "OpCapability Shader",
                "!0x00030fff !0x00000001 !0x00000002 ; unknown opcode 4095",
                "!0x00030047 !0x00000001 !0x0000270f ; OpDecorate: unknown Decoration 9999",
            ]
        );
    }

    #[test]
    fn instructions_open_to_more_operands_print_raw_before_a_raw_one() {
        // OpEntryPoint GLCompute %1 "main" (its interface list may follow),
        // OpSource Unknown 0 (its file and source may follow).
        let entry = [(5 << 16) | 15, 5, 1, u32::from_le_bytes(*b"main"), 0];
        let source = [(3 << 16) | 3, 0, 0];
        let unknown = [(1 << 16) | 0xfff];
        let lines = body(&module(2, &[&entry, &source, &unknown]));
        assert_eq!(
            lines,
            [
                "!0x0005000f !0x00000005 !0x00000001 !0x6e69616d !0x00000000 ; \
                 OpEntryPoint GLCompute %1 \"main\" (raw: spirv-as would read the next words \
                 as its operands)",
                "!0x00030003 !0x00000000 !0x00000000 ; OpSource Unknown 0 (raw: spirv-as would \
                 read the next words as its operands)",
                "!0x00010fff ; unknown opcode 4095",
            ]
        );
        // Without a raw instruction after them, they print as text; a
        // closed instruction between stops the run.
        assert_eq!(
            body(&module(2, &[&entry, &source, &CAPABILITY_SHADER, &unknown]))[..3],
            [
                "OpEntryPoint GLCompute %1 \"main\"",
                "OpSource Unknown 0",
                "OpCapability Shader"
            ]
        );
    }

    #[test]
    fn a_raw_line_stays_one_line() {
        // OpEntryPoint GLCompute %1 "a\nb", then an unknown opcode.
        let entry = [(4 << 16) | 15, 5, 1, u32::from_le_bytes(*b"a\nb\0")];
        let unknown = [(1 << 16) | 0xfff];
        let lines = body(&module(2, &[&entry, &unknown]));
        assert_eq!(lines.len(), 2);
        assert!(lines[0].ends_with("OpEntryPoint GLCompute %1 \"a\\nb\" (raw: spirv-as would read the next words as its operands)"), "{}", lines[0]);
    }

    #[test]
    fn literals_of_unreadable_widths_print_raw() {
        // %2 = OpTypeInt 0 0, %3 = OpConstant %2 0; %4 = OpTypeInt 1 1,
        // %5 = OpConstant %4 -1 (0xffffffff, a 1-bit signed value).
        let lines = body(&module(
            6,
            &[
                &[(4 << 16) | 21, 2, 0, 0],
                &[(4 << 16) | 43, 2, 3, 0],
                &[(4 << 16) | 21, 4, 1, 1],
                &[(4 << 16) | 43, 4, 5, u32::MAX],
            ],
        ));
        assert_eq!(
            lines[1],
            "!0x0004002b !0x00000002 !0x00000003 !0x00000000 ; OpConstant: %2 is 0 bits wide \
             (1 to 64 are read)"
        );
        assert_eq!(lines[3], "%5 = OpConstant %4 -1");
    }

    #[test]
    fn text_that_would_not_assemble_to_the_same_words_prints_raw() {
        // OpName %1 "a" with garbage after the NUL; OpName %1 "\xff".
        let padded = [(3 << 16) | 5, 1, 0x0800_0061];
        let not_utf8 = [(3 << 16) | 5, 1, 0xff];
        // %3 = OpConstant %1 0x1ff for an 8-bit unsigned %1.
        let u8_type = [(4 << 16) | 21, 1, 8, 0];
        let constant = [(4 << 16) | 43, 1, 3, 0x1ff];
        let lines = body(&module(4, &[&padded, &not_utf8, &u8_type, &constant]));
        assert_eq!(
            lines[0],
            "!0x00030005 !0x00000001 !0x08000061 ; OpName: literal string is not padded with \
             zeros after its NUL"
        );
        assert_eq!(
            lines[1],
            "!0x00030005 !0x00000001 !0x000000ff ; OpName: literal string is not UTF-8"
        );
        assert_eq!(
            lines[3],
            "!0x0004002b !0x00000001 !0x00000003 !0x000001ff ; OpConstant: literal 0x000001ff \
             does not extend a 8-bit value to 32 bits as SPIR-V requires"
        );
    }

    #[test]
    fn a_malformed_word_count_is_an_error_naming_its_offset() {
        let e = disassemble(&module(2, &[&[(3 << 16) | 17, 1]])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "byte 20: instruction with opcode 17 claims 3 words but only 2 remain"
        );
        assert!(disassemble(&[MAGIC, 0, 0]).is_err());
    }
}
