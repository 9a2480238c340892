//! The forms of an instruction's operands that the operand walker
//! ([`crate::operands`]) reads without consulting the grammar. build.rs
//! finds them for every instruction of rspirv's core grammar
//! (`build/grammar.rs`, which compiles this file too) and writes them as
//! static tables that `operands` includes, so that no run builds them:
//! building them took about a fifth of a command-line run on a small
//! module.

/// What the walker knows of an opcode of the core grammar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    /// The opcode's [`Simple`] layout, when it has one.
    pub(crate) simple: Option<Simple>,
    /// Word index of the result id (0: none).
    pub(crate) result_pos: u8,
    /// Its place in rspirv's grammar table (`INSTRUCTION_TABLE`), where
    /// the walker finds its operands and the tables its [`Layout`].
    pub(crate) slot: u16,
}

/// An instruction layout read without walking the grammar: an optional
/// result type and result, `fixed` id operands, then a [`Tail`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Simple {
    pub(crate) has_type: bool,
    pub(crate) has_result: bool,
    pub(crate) fixed: u8,
    pub(crate) tail: Tail,
}

/// What may follow a [`Simple`] layout's fixed ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tail {
    /// Nothing (extra words are reported as maybe ids).
    Nothing,
    /// Any number of ids (`OpFunctionCall` arguments).
    Ids,
    /// Any number of id pairs (`OpPhi`): an odd count is too short.
    IdPairs,
    /// Any number of literal words (`OpBranchConditional`'s weights,
    /// `OpCompositeExtract`'s indices).
    Literals,
    /// An optional memory-access mask with its parameters (`OpLoad`,
    /// `OpStore`).
    MemoryAccess,
}

/// An instruction layout read without walking the grammar, for the
/// opcodes without a [`Simple`] one: an optional result type and result,
/// `fixed` one-word operands (ids or literals), then a [`LayoutTail`].
/// The walker reads the words exactly as its grammar walk would, and
/// leaves to that walk every instruction too short for its fixed words
/// or otherwise malformed, so reports and errors stay the walk's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    pub(crate) has_type: bool,
    pub(crate) has_result: bool,
    /// One-word operands after the result.
    pub(crate) fixed: u8,
    /// Bit `i` set: fixed operand `i` is an id read; clear: a literal.
    pub(crate) fixed_ids: u32,
    pub(crate) tail: LayoutTail,
}

/// What may follow a [`Layout`]'s fixed operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LayoutTail {
    /// Nothing (extra words are reported as maybe ids).
    Nothing,
    /// Any number of ids.
    Ids,
    /// Literal words to the end (`OpConstant`'s value, `OpDecorate`-like
    /// literal lists).
    Literals,
    /// An optional id, then nothing (`OpVariable`'s initializer).
    OptionalId,
    /// An optional one-word literal, then nothing.
    OptionalLiteral,
    /// A literal string, then nothing (`OpName`, `OpExtInstImport`).
    String,
    /// A literal string, then ids (`OpEntryPoint`'s interface).
    StringThenIds,
    /// A decoration, execution mode or loop control word whose parameters
    /// run to the end: ids for `OpDecorateId` and `OpExecutionModeId`,
    /// literals otherwise.
    Mode {
        /// The parameters are ids.
        ids: bool,
    },
}
