//! Which words of an instruction are ids, from the SPIR-V grammar.
//!
//! The pass must find every use of a predicate-derived value, every call and
//! every reference to the ids it removes, and rewrite uses of ids it replaces.
//! That needs the id positions of arbitrary instructions, which this module
//! reads off rspirv's copy of the core grammar: most through the layouts
//! build.rs read off it into tables (`src/operand_layouts.rs`), the rest
//! by walking the grammar's operands. Operand kinds whose layout
//! depends on other operands are handled here: literal strings, the
//! parameters of `ImageOperands`, `MemoryAccess`, `LoopControl` and
//! `TensorAddressingOperands`, `OpSwitch` literals (whose width is the
//! selector's), and the embedded opcode of `OpSpecConstantOp`.
//!
//! Where the layout cannot be known (an opcode newer than the grammar, or a
//! parameterised operand this module does not model) the remaining words are
//! reported as [`Role::MaybeId`], so callers can stay on the safe side.

use rspirv::grammar::{INSTRUCTION_TABLE, Instruction, OperandKind, OperandQuantifier};
use spirv::Op;

use crate::error::{Result, binary};
use crate::operand_layouts::{Entry, Layout, LayoutTail, Simple, Tail};

/// What an id-bearing word of an instruction is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The result type.
    ResultType,
    /// The result id.
    Result,
    /// An id the instruction reads.
    Use,
    /// A word whose meaning this module cannot tell: it may be an id.
    MaybeId,
}

// The tables build.rs read off the grammar (build/grammar.rs): `OPCODES`,
// `ENTRIES`, `GRAMMAR_LEN` and `LAYOUTS`.
include!(concat!(env!("OUT_DIR"), "/grammar_tables.rs"));

/// Opcode → what the walker knows of it.
#[inline]
fn entry(opcode: u16) -> Option<&'static Entry> {
    ENTRIES.get(opcode as usize)?.as_ref()
}

/// The [`Layout`] of an opcode without a [`Simple`] one, if one fits it.
fn layout_of(e: &Entry) -> Option<Layout> {
    *LAYOUTS.get(e.slot as usize)?
}

/// Reports the ids of `words` by their [`Layout`]; `false` (nothing
/// reported) when the instruction does not fit it, for the walker to read.
#[inline]
fn for_each_id_by_layout(words: &[u32], l: Layout, f: &mut impl FnMut(usize, Role)) -> bool {
    let head = l.has_type as usize + l.has_result as usize;
    let fixed_end = 1 + head + l.fixed as usize;
    let len = words.len();
    if len < fixed_end {
        return false;
    }
    // The tail's ids read and where its words that may be ids start,
    // checked before anything is reported.
    let (uses, maybe_from) = match l.tail {
        LayoutTail::Nothing => (0..0, fixed_end),
        LayoutTail::Ids => (fixed_end..len, len),
        LayoutTail::Literals => (0..0, len),
        LayoutTail::OptionalId if len > fixed_end => (fixed_end..fixed_end + 1, fixed_end + 1),
        LayoutTail::OptionalLiteral if len > fixed_end => (0..0, fixed_end + 1),
        LayoutTail::OptionalId | LayoutTail::OptionalLiteral => (0..0, len),
        LayoutTail::String | LayoutTail::StringThenIds => {
            let Some(n) = crate::module::literal_string_words(words, fixed_end, len) else {
                return false;
            };
            match l.tail {
                LayoutTail::String => (0..0, fixed_end + n),
                _ => (fixed_end + n..len, len),
            }
        }
        LayoutTail::Mode { .. } if len == fixed_end => return false,
        LayoutTail::Mode { ids: true } => (fixed_end + 1..len, len),
        LayoutTail::Mode { ids: false } => (0..0, len),
    };
    if l.has_type {
        f(1, Role::ResultType);
    }
    if l.has_result {
        f(head, Role::Result);
    }
    let mut ids = l.fixed_ids;
    while ids != 0 {
        f(1 + head + ids.trailing_zeros() as usize, Role::Use);
        ids &= ids - 1;
    }
    uses.for_each(|i| f(i, Role::Use));
    (maybe_from..len).for_each(|i| f(i, Role::MaybeId));
    true
}

/// The core grammar's entry for an opcode, if it has one.
pub(crate) fn grammar(opcode: u16) -> Option<&'static Instruction<'static>> {
    INSTRUCTION_TABLE.iter().nth(entry(opcode)?.slot as usize)
}

/// The name of an opcode (`OpLoad`), or `Op<number>` when unknown.
pub fn opname(opcode: u16) -> String {
    match grammar(opcode) {
        Some(g) => format!("Op{}", g.opname),
        None => format!("Op<{opcode}>"),
    }
}

/// Word index of the result id of an instruction with this opcode, if it
/// has one (2 when a result type comes first, else 1).
#[inline]
pub fn result_pos(opcode: u16) -> Option<usize> {
    match entry(opcode)?.result_pos {
        0 => None,
        p => Some(p as usize),
    }
}

/// Where the ids of an instruction are, for the common layouts that need no
/// walking: see [`flat_ids`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlatIds {
    /// Word index of the result id (0: none). A result type, if any, is
    /// word 1.
    pub result: usize,
    /// Words `1..checked_end` are all ids: the result type, the result and
    /// the ids read ([`Role::ResultType`], [`Role::Result`], [`Role::Use`]).
    pub checked_end: usize,
    /// Words `first_use..checked_end` are the ids read.
    pub first_use: usize,
    /// Words `maybe_from..` may be ids ([`Role::MaybeId`]); the words
    /// between `checked_end` and `maybe_from` are literals.
    pub maybe_from: usize,
}

/// The id layout of the instruction `words` when it is one of the simple
/// ones (fixed ids, then ids, id pairs, nothing, or a memory-access mask
/// without id parameters), exactly as [`for_each_id`] would report it;
/// `None` when [`for_each_id`] must walk it (other layouts, or words it
/// would reject as too few).
#[inline(always)]
pub fn flat_ids(words: &[u32]) -> Option<FlatIds> {
    let opcode = (words[0] & 0xffff) as u16;
    let s = entry(opcode)?.simple?;
    let head = s.has_type as usize + s.has_result as usize;
    let first_use = 1 + head;
    let fixed_end = first_use + s.fixed as usize;
    let len = words.len();
    if len < fixed_end {
        return None;
    }
    let result = if s.has_result { head } else { 0 };
    let flat = |checked_end, maybe_from| {
        Some(FlatIds {
            result,
            checked_end,
            first_use,
            maybe_from,
        })
    };
    match s.tail {
        Tail::Nothing => flat(fixed_end, fixed_end),
        Tail::Ids => flat(len, len),
        Tail::IdPairs if (len - fixed_end).is_multiple_of(2) => flat(len, len),
        Tail::IdPairs => None,
        Tail::Literals => flat(fixed_end, len),
        Tail::MemoryAccess if len == fixed_end => flat(len, len),
        Tail::MemoryAccess => {
            // A mask whose operands hold no id: `Aligned`'s literal at most.
            use spirv::MemoryAccess as M;
            let mask = M::from_bits_retain(words[fixed_end]);
            let plain = M::VOLATILE | M::ALIGNED | M::NONTEMPORAL | M::NON_PRIVATE_POINTER;
            let maybe_from = fixed_end + 1 + mask.contains(M::ALIGNED) as usize;
            (plain.contains(mask) && maybe_from <= len).then_some(FlatIds {
                result,
                checked_end: fixed_end,
                first_use,
                maybe_from,
            })
        }
    }
}

/// What the per-function decode needs of an opcode to pass over an
/// instruction without decoding it (see [`shapes`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Shape {
    /// Word index of the result id (0: none), as [`result_pos`].
    pub result: u8,
    /// The fewest words of a [`flat_ids`] layout, when the opcode has one
    /// whose words `1..` may all be ids (0: no such layout). With at least
    /// this many words the layout is flat; with [`Shape::exact`], only
    /// when [`flat_ids`] says so.
    pub flat_min: u8,
    /// True when the words must be looked at to know that the layout is
    /// flat (`OpPhi`'s pairs, a memory-access mask).
    pub exact: bool,
    /// [`is_annotation`]: the opcode names another id in word 1.
    pub annotation: bool,
}

/// [`Shape`] of every opcode, indexed by opcode (an opcode past the end
/// has none): one look-up per instruction for a scan that passes over
/// most of them.
pub fn shapes() -> &'static [Shape] {
    &SHAPES
}

/// [`Shape`] of every opcode, from [`ENTRIES`], computed as the library
/// is compiled.
static SHAPES: [Shape; OPCODES] = {
    let mut t = [Shape {
        result: 0,
        flat_min: 0,
        exact: false,
        annotation: false,
    }; OPCODES];
    let mut opcode = 0;
    while opcode < OPCODES {
        if let Some(e) = &ENTRIES[opcode] {
            let (flat_min, exact) = match e.simple {
                Some(s) => {
                    let fixed_end =
                        1 + s.has_type as usize + s.has_result as usize + s.fixed as usize;
                    (
                        if fixed_end <= u8::MAX as usize {
                            fixed_end as u8
                        } else {
                            0
                        },
                        matches!(s.tail, Tail::IdPairs | Tail::MemoryAccess),
                    )
                }
                None => (0, false),
            };
            t[opcode] = Shape {
                result: e.result_pos,
                flat_min,
                exact,
                annotation: false,
            };
        }
        t[opcode].annotation = is_annotation(opcode as u16);
        opcode += 1;
    }
    t
};

/// Calls `f(word_index_within_inst, role)` for every id-bearing word of the
/// instruction `words` (its first word included in the slice).
/// `switch_literal_words(selector)` tells how many words each `OpSwitch` case
/// literal takes (1 or 2), from the selector's type. `at` is the
/// instruction's byte offset, for errors.
pub fn for_each_id(
    words: &[u32],
    at: usize,
    switch_literal_words: &dyn Fn(u32) -> usize,
    mut f: impl FnMut(usize, Role),
) -> Result<()> {
    let opcode = (words[0] & 0xffff) as u16;
    let Some(e) = entry(opcode) else {
        (1..words.len()).for_each(|i| f(i, Role::MaybeId));
        return Ok(());
    };
    if let Some(s) = e.simple {
        let head = s.has_type as usize + s.has_result as usize;
        let fixed_end = 1 + head + s.fixed as usize;
        let too_short = || {
            binary(
                at,
                format!(
                    "{} has too few operands ({} words)",
                    opname(opcode),
                    words.len()
                ),
            )
        };
        if words.len() < fixed_end {
            return Err(too_short());
        }
        if s.has_type {
            f(1, Role::ResultType);
        }
        if s.has_result {
            f(head, Role::Result);
        }
        (1 + head..fixed_end).for_each(|i| f(i, Role::Use));
        match s.tail {
            Tail::Nothing => (fixed_end..words.len()).for_each(|i| f(i, Role::MaybeId)),
            Tail::Ids => (fixed_end..words.len()).for_each(|i| f(i, Role::Use)),
            Tail::IdPairs => {
                // As the walker: every word of the pairs is reported, then
                // a pair missing its second id is too short.
                (fixed_end..words.len()).for_each(|i| f(i, Role::Use));
                if (words.len() - fixed_end) % 2 == 1 {
                    return Err(too_short());
                }
            }
            Tail::Literals => {}
            Tail::MemoryAccess if fixed_end < words.len() => {
                let mut w = Walker {
                    words,
                    pos: fixed_end,
                    at,
                    opcode,
                    switch_literal_words,
                    f: &mut f,
                };
                w.memory_access()?;
                (w.pos..words.len()).for_each(|i| (w.f)(i, Role::MaybeId));
            }
            Tail::MemoryAccess => {}
        }
        return Ok(());
    }
    if let Some(l) = layout_of(e)
        && for_each_id_by_layout(words, l, &mut f)
    {
        return Ok(());
    }
    let Some(g) = INSTRUCTION_TABLE.iter().nth(e.slot as usize) else {
        (1..words.len()).for_each(|i| f(i, Role::MaybeId));
        return Ok(());
    };
    let mut w = Walker {
        words,
        pos: 1,
        at,
        opcode,
        switch_literal_words,
        f: &mut f,
    };
    w.operands(g.operands)?;
    if w.pos < words.len() {
        // Extra words the grammar does not describe: be conservative.
        (w.pos..words.len()).for_each(|i| (w.f)(i, Role::MaybeId));
    }
    Ok(())
}

struct Walker<'a, 'f> {
    words: &'a [u32],
    pos: usize,
    at: usize,
    opcode: u16,
    switch_literal_words: &'a dyn Fn(u32) -> usize,
    f: &'f mut dyn FnMut(usize, Role),
}

impl Walker<'_, '_> {
    fn remaining(&self) -> usize {
        self.words.len() - self.pos
    }

    fn too_short(&self) -> crate::error::Error {
        binary(
            self.at,
            format!(
                "{} has too few operands ({} words)",
                opname(self.opcode),
                self.words.len()
            ),
        )
    }

    fn id(&mut self, role: Role) -> Result<()> {
        if self.remaining() == 0 {
            return Err(self.too_short());
        }
        (self.f)(self.pos, role);
        self.pos += 1;
        Ok(())
    }

    fn skip(&mut self, n: usize) -> Result<()> {
        if self.remaining() < n {
            return Err(self.too_short());
        }
        self.pos += n;
        Ok(())
    }

    fn rest_maybe(&mut self) {
        while self.pos < self.words.len() {
            (self.f)(self.pos, Role::MaybeId);
            self.pos += 1;
        }
    }

    fn operands(&mut self, ops: &[rspirv::grammar::LogicalOperand]) -> Result<()> {
        for op in ops {
            match op.quantifier {
                OperandQuantifier::One => self.operand(op.kind)?,
                OperandQuantifier::ZeroOrOne => {
                    if self.remaining() > 0 {
                        self.operand(op.kind)?;
                    }
                }
                OperandQuantifier::ZeroOrMore => {
                    while self.remaining() > 0 {
                        self.operand(op.kind)?;
                    }
                }
            }
        }
        Ok(())
    }

    fn operand(&mut self, kind: OperandKind) -> Result<()> {
        use OperandKind as K;
        match kind {
            K::IdResultType => self.id(Role::ResultType),
            K::IdResult => self.id(Role::Result),
            K::IdRef | K::IdMemorySemantics | K::IdScope => self.id(Role::Use),
            K::LiteralString => {
                let end = self.words.len();
                let n = crate::module::literal_string_words(self.words, self.pos, end).ok_or_else(
                    || {
                        binary(
                            self.at + self.pos * 4,
                            format!(
                                "{}: literal string has no terminating NUL within its instruction",
                                opname(self.opcode)
                            ),
                        )
                    },
                )?;
                self.pos += n;
                Ok(())
            }
            K::LiteralContextDependentNumber => {
                // Only the last operand of OpConstant / OpSpecConstant.
                self.pos = self.words.len();
                Ok(())
            }
            K::LiteralSpecConstantOpInteger => {
                if self.remaining() == 0 {
                    return Err(self.too_short());
                }
                let inner = (self.words[self.pos] & 0xffff) as u16;
                self.pos += 1;
                match grammar(inner) {
                    Some(g) => self.operands(&operands_after_result(g)),
                    None => {
                        self.rest_maybe();
                        Ok(())
                    }
                }
            }
            K::PairLiteralIntegerIdRef => {
                // OpSwitch: the literal is as wide as the selector (word 1).
                let n = (self.switch_literal_words)(self.words[1]);
                self.skip(n)?;
                self.id(Role::Use)
            }
            K::PairIdRefLiteralInteger => {
                self.id(Role::Use)?;
                self.skip(1)
            }
            K::PairIdRefIdRef => {
                self.id(Role::Use)?;
                self.id(Role::Use)
            }
            K::ImageOperands => self.image_operands(),
            K::MemoryAccess => self.memory_access(),
            K::TensorAddressingOperands => {
                let mask = self.mask()?;
                let ids = (mask & 1 != 0) as usize + (mask & 2 != 0) as usize;
                (0..ids).try_for_each(|_| self.id(Role::Use))
            }
            K::LoopControl
            | K::Decoration
            | K::ExecutionMode
            | K::RawAccessChainOperands
            | K::FPFastMathMode
            | K::SelectionControl
            | K::FunctionControl
            | K::CooperativeMatrixOperands
            | K::MatrixMultiplyAccumulateOperands => {
                // Literal parameters only (or none); they end the instruction
                // whenever they occur in the grammar. The exceptions are
                // `OpExecutionModeId` and `OpDecorateId`, whose mode or
                // decoration parameters are all ids (`LocalSizeId %x %y %z`,
                // `AlignmentId %a`): they are uses like any other.
                self.skip(1)?;
                if matches!(kind, K::LoopControl | K::Decoration | K::ExecutionMode) {
                    let ids = matches!(
                        (kind, self.opcode),
                        (K::ExecutionMode, op::ExecutionModeId) | (K::Decoration, op::DecorateId)
                    );
                    while self.pos < self.words.len() {
                        if ids {
                            (self.f)(self.pos, Role::Use);
                        }
                        self.pos += 1;
                    }
                }
                Ok(())
            }
            K::TensorOperands => {
                self.rest_maybe();
                Ok(())
            }
            _ => self.skip(1),
        }
    }

    fn mask(&mut self) -> Result<u32> {
        if self.remaining() == 0 {
            return Err(self.too_short());
        }
        let m = self.words[self.pos];
        self.pos += 1;
        Ok(m)
    }

    fn image_operands(&mut self) -> Result<()> {
        let mask = self.mask()?;
        let m = spirv::ImageOperands::from_bits_retain(mask);
        use spirv::ImageOperands as I;
        let mut ids = 0;
        for (flag, n) in [
            (I::BIAS, 1),
            (I::LOD, 1),
            (I::GRAD, 2),
            (I::CONST_OFFSET, 1),
            (I::OFFSET, 1),
            (I::CONST_OFFSETS, 1),
            (I::SAMPLE, 1),
            (I::MIN_LOD, 1),
            (I::MAKE_TEXEL_AVAILABLE, 1),
            (I::MAKE_TEXEL_VISIBLE, 1),
            (I::OFFSETS, 1),
        ] {
            if m.contains(flag) {
                ids += n;
            }
        }
        (0..ids).try_for_each(|_| self.id(Role::Use))
    }

    fn memory_access(&mut self) -> Result<()> {
        let mask = self.mask()?;
        let m = spirv::MemoryAccess::from_bits_retain(mask);
        use spirv::MemoryAccess as M;
        if m.contains(M::ALIGNED) {
            self.skip(1)?;
        }
        for flag in [
            M::MAKE_POINTER_AVAILABLE,
            M::MAKE_POINTER_VISIBLE,
            M::ALIAS_SCOPE_INTEL_MASK,
            M::NO_ALIAS_INTEL_MASK,
        ] {
            if m.contains(flag) {
                self.id(Role::Use)?;
            }
        }
        Ok(())
    }
}

/// Debug names and annotations whose words after the first operand are all
/// literals: they read no value, and go with the id they name in word 1.
pub const fn names_an_id(opcode: u16) -> bool {
    matches!(
        opcode,
        op::Name
            | op::MemberName
            | op::Decorate
            | op::MemberDecorate
            | op::DecorateString
            | op::MemberDecorateString
    )
}

/// Every debug and annotation instruction that names another id in word 1:
/// [`names_an_id`]'s and `OpDecorateId` (whose later operands are ids).
pub const fn is_annotation(opcode: u16) -> bool {
    names_an_id(opcode) || opcode == op::DecorateId
}

/// Opcodes the pass inspects, as `u16` for matching on instruction words.
#[allow(non_upper_case_globals)]
pub mod op {
    use super::Op;
    macro_rules! ops {
        ($($name:ident),*) => { $(
            #[doc = concat!("`Op", stringify!($name), "`")]
            pub const $name: u16 = Op::$name as u16;
        )* };
    }
    ops!(
        Name,
        MemberName,
        Decorate,
        MemberDecorate,
        DecorateId,
        DecorateString,
        MemberDecorateString,
        GroupDecorate,
        GroupMemberDecorate,
        DecorationGroup,
        EntryPoint,
        ExtInst,
        ExtInstWithForwardRefsKHR,
        ExecutionMode,
        ExecutionModeId,
        ExtInstImport,
        TypeBool,
        TypeInt,
        TypeFloat,
        TypeArray,
        TypePointer,
        Constant,
        ConstantNull,
        ConstantTrue,
        ConstantFalse,
        ConstantComposite,
        SpecConstantTrue,
        SpecConstantFalse,
        SpecConstantOp,
        Variable,
        Function,
        FunctionEnd,
        FunctionParameter,
        FunctionCall,
        Label,
        Branch,
        BranchConditional,
        Switch,
        Return,
        ReturnValue,
        Kill,
        Unreachable,
        TerminateInvocation,
        IgnoreIntersectionKHR,
        TerminateRayKHR,
        EmitMeshTasksEXT,
        Phi,
        SelectionMerge,
        LoopMerge,
        LogicalNot,
        LogicalAnd,
        LogicalOr,
        LogicalEqual,
        LogicalNotEqual,
        Select,
        Line,
        NoLine,
        Undef
    );
}

/// The operands of `g` after its result type and result id: what follows
/// the inner opcode of an `OpSpecConstantOp`.
pub(crate) fn operands_after_result(g: &Instruction) -> Vec<rspirv::grammar::LogicalOperand> {
    g.operands
        .iter()
        .filter(|o| !matches!(o.kind, OperandKind::IdResultType | OperandKind::IdResult))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(words: &[u32]) -> Vec<(usize, Role)> {
        let mut v = Vec::new();
        for_each_id(words, 0, &|_| 1, &mut |i, r| v.push((i, r))).unwrap();
        v
    }

    /// The roles [`FlatIds`] describes for an instruction of `len` words.
    fn flat_roles(f: FlatIds, len: usize) -> Vec<(usize, Role)> {
        let role = |i: usize| match i {
            1 if f.result == 2 => Role::ResultType,
            i if i == f.result => Role::Result,
            _ => Role::Use,
        };
        (1..f.checked_end)
            .map(|i| (i, role(i)))
            .chain((f.maybe_from..len).map(|i| (i, Role::MaybeId)))
            .collect()
    }

    #[test]
    fn flat_ids_agree_with_for_each_id() {
        use spirv::MemoryAccess as M;
        let masks = [
            0,
            M::ALIGNED.bits(),
            (M::VOLATILE | M::NONTEMPORAL).bits(),
            (M::ALIGNED | M::NON_PRIVATE_POINTER).bits(),
            (M::ALIGNED | M::MAKE_POINTER_AVAILABLE).bits(),
            M::NO_ALIAS_INTEL_MASK.bits(),
        ];
        let mut flat = 0;
        for inst in INSTRUCTION_TABLE.iter() {
            for len in 1..9usize {
                for k in 0..len {
                    for &mask in &masks {
                        let mut words = vec![7u32; len];
                        words[0] = crate::module::header_word(len, inst.opcode as u16);
                        if k > 0 {
                            words[k] = mask;
                        }
                        let Some(f) = flat_ids(&words) else { continue };
                        flat += 1;
                        let mut v = Vec::new();
                        let fast = for_each_id(&words, 0, &|_| 1, &mut |i, r| v.push((i, r)));
                        assert!(fast.is_ok(), "{words:?}: flat but rejected");
                        assert_eq!(v, flat_roles(f, len), "{words:?}");
                        assert_eq!(walked(&words), Ok(v), "{words:?}");
                    }
                }
            }
        }
        assert!(flat > 1000, "only {flat} flat layouts tried");
    }

    /// `for_each_id`'s reports and result against the walker's alone, for
    /// every opcode with a [`Layout`], at lengths 1 to 8, with words that
    /// hold a NUL byte at several places (strings end there) or none.
    #[test]
    fn layouts_agree_with_the_walker() {
        let fills = [7u32, 0x4141_4141, 0, 0x0041_4141, 17];
        let mut by_layout = 0;
        for inst in INSTRUCTION_TABLE.iter() {
            let Some(e) = entry(inst.opcode as u16).filter(|e| e.simple.is_none()) else {
                continue;
            };
            let Some(l) = layout_of(e) else {
                continue;
            };
            for len in 1..9usize {
                for &fill in &fills {
                    for k in 0..len {
                        let mut words = vec![fill; len];
                        words[0] = crate::module::header_word(len, inst.opcode as u16);
                        if k > 0 {
                            words[k] = 0;
                        }
                        let mut v = Vec::new();
                        by_layout +=
                            for_each_id_by_layout(&words, l, &mut |i, r| v.push((i, r))) as usize;
                        let mut all = Vec::new();
                        let r = for_each_id(&words, 0, &|_| 1, &mut |i, r| all.push((i, r)))
                            .map_err(|e| e.to_string());
                        assert_eq!((r, all), walked_exactly(&words), "{words:?}");
                    }
                }
            }
        }
        assert!(by_layout > 1000, "only {by_layout} layouts read");
    }

    /// What `for_each_id` reports and returns through the walker alone.
    #[allow(clippy::type_complexity)]
    fn walked_exactly(words: &[u32]) -> (std::result::Result<(), String>, Vec<(usize, Role)>) {
        let mut v = Vec::new();
        let opcode = (words[0] & 0xffff) as u16;
        let mut f = |i, r| v.push((i, r));
        let mut w = Walker {
            words,
            pos: 1,
            at: 0,
            opcode,
            switch_literal_words: &|_| 1,
            f: &mut f,
        };
        let r = w.operands(grammar(opcode).unwrap().operands);
        let end = w.pos;
        if r.is_ok() {
            (end..words.len()).for_each(|i| f(i, Role::MaybeId));
        }
        (r.map_err(|e| e.to_string()), v)
    }

    #[test]
    fn shapes_agree_with_flat_ids() {
        let shapes = shapes();
        let mut passed = 0;
        for inst in INSTRUCTION_TABLE.iter() {
            let shape = shapes[inst.opcode as usize];
            assert_eq!(
                shape.result as usize,
                result_pos(inst.opcode as u16).unwrap_or(0)
            );
            assert_eq!(shape.annotation, is_annotation(inst.opcode as u16));
            for len in 1..9usize {
                let mut words = vec![7u32; len];
                words[0] = crate::module::header_word(len, inst.opcode as u16);
                let flat = flat_ids(&words);
                let by_shape = shape.flat_min > 0 && len >= shape.flat_min as usize;
                if shape.exact {
                    assert!(by_shape || flat.is_none(), "{words:?}");
                } else {
                    assert_eq!(by_shape, flat.is_some(), "{words:?}");
                }
                if let Some(f) = flat {
                    assert_eq!(f.result, shape.result as usize, "{words:?}");
                    passed += 1;
                }
            }
        }
        assert!(passed > 1000, "only {passed} flat layouts tried");
    }

    /// `for_each_id` through the grammar walker only (no [`Simple`] layout).
    fn walked(words: &[u32]) -> std::result::Result<Vec<(usize, Role)>, String> {
        let (r, v) = walked_exactly(words);
        r.map(|()| v)
    }

    #[test]
    fn simple_layouts_agree_with_the_walker() {
        let head = |op: Op, n: usize| crate::module::header_word(n, op as u16);
        let cases: Vec<Vec<u32>> = vec![
            vec![head(Op::Load, 4), 1, 2, 3],
            vec![head(Op::Load, 6), 1, 2, 3, 2, 4],
            vec![head(Op::Load, 7), 1, 2, 3, 2 | 8, 4, 9],
            vec![head(Op::Load, 8), 1, 2, 3, 2, 4, 5, 6],
            vec![head(Op::Store, 3), 1, 2],
            vec![head(Op::Store, 5), 1, 2, 8, 7],
            vec![head(Op::Phi, 7), 1, 2, 3, 4, 5, 6],
            vec![head(Op::Phi, 3), 1, 2],
            vec![head(Op::FunctionCall, 6), 1, 2, 3, 4, 5],
            vec![head(Op::IAdd, 6), 1, 2, 3, 4, 5],
        ];
        for words in &cases {
            assert_eq!(Ok(ids(words)), walked(words), "{words:?}");
        }
        // Too short alike: a phi pair without its block, an aligned load
        // without its alignment, a store without its value.
        for words in [
            vec![head(Op::Phi, 6), 1, 2, 3, 4, 5],
            vec![head(Op::Load, 5), 1, 2, 3, 2],
            vec![head(Op::Store, 2), 1],
        ] {
            let fast = for_each_id(&words, 0, &|_| 1, |_, _| {}).map_err(|e| e.to_string());
            assert!(fast.is_err(), "{words:?}");
            assert_eq!(fast.err(), walked(&words).err(), "{words:?}");
        }
    }

    #[test]
    fn load_with_aligned_memory_access() {
        // %3 = OpLoad %1 %2 Aligned 4
        let w = [(6 << 16) | Op::Load as u32, 1, 3, 2, 2, 4];
        assert_eq!(
            ids(&w),
            vec![(1, Role::ResultType), (2, Role::Result), (3, Role::Use)]
        );
    }

    #[test]
    fn switch_uses_selector_width() {
        // OpSwitch %sel %default 7 %a 9 %b, 64-bit selector: literals are 2 words
        let w = [(9 << 16) | Op::Switch as u32, 5, 6, 7, 0, 10, 9, 0, 11];
        let mut v = Vec::new();
        for_each_id(&w, 0, &|_| 2, &mut |i, r| v.push((i, r))).unwrap();
        assert_eq!(
            v,
            vec![
                (1, Role::Use),
                (2, Role::Use),
                (5, Role::Use),
                (8, Role::Use)
            ]
        );
    }

    #[test]
    fn spec_constant_op_decodes_inner_opcode() {
        // %3 = OpSpecConstantOp %bool LogicalNot %2
        let w = [
            (5 << 16) | Op::SpecConstantOp as u32,
            1,
            3,
            Op::LogicalNot as u32,
            2,
        ];
        assert_eq!(
            ids(&w),
            vec![(1, Role::ResultType), (2, Role::Result), (4, Role::Use)]
        );
    }

    #[test]
    fn execution_mode_id_and_decorate_id_parameters_are_ids() {
        // OpExecutionModeId %4 LocalSizeId %7 %8 %9
        let w = [(6 << 16) | Op::ExecutionModeId as u32, 4, 38, 7, 8, 9];
        assert_eq!(
            ids(&w),
            vec![
                (1, Role::Use),
                (3, Role::Use),
                (4, Role::Use),
                (5, Role::Use)
            ]
        );
        // OpDecorateId %5 AlignmentId %6
        let w = [(4 << 16) | Op::DecorateId as u32, 5, 46, 6];
        assert_eq!(ids(&w), vec![(1, Role::Use), (3, Role::Use)]);
        // OpExecutionMode %4 LocalSize 64 1 1 and OpDecorate %5 Alignment 16:
        // literals, not ids.
        let w = [(6 << 16) | Op::ExecutionMode as u32, 4, 17, 64, 1, 1];
        assert_eq!(ids(&w), vec![(1, Role::Use)]);
        let w = [(4 << 16) | Op::Decorate as u32, 5, 44, 16];
        assert_eq!(ids(&w), vec![(1, Role::Use)]);
    }

    #[test]
    fn unknown_opcode_words_may_be_ids() {
        let w = [(3 << 16) | 0xfff0, 4, 5];
        assert_eq!(ids(&w), vec![(1, Role::MaybeId), (2, Role::MaybeId)]);
    }

    #[test]
    fn truncated_operand_list_is_an_error() {
        // OpLoad with only a result type
        let w = [(2 << 16) | Op::Load as u32, 1];
        let e = for_each_id(&w, 40, &|_| 1, &mut |_, _| {}).unwrap_err();
        assert_eq!(
            e.to_string(),
            "byte 40: OpLoad has too few operands (2 words)"
        );
    }
}
