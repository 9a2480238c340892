//! The one error type of the library.
//!
//! Every message names what went wrong and where: a byte offset into the
//! module, an instruction, an id, a function, a predicate, or a file and line
//! of the arch tables. The library never panics on input and never prints;
//! the CLI turns these into messages and exit codes.

use std::fmt;

/// Anything that can go wrong while reading a module, its predicate table,
/// the arch tables or a target, or while specializing.
///
/// `#[non_exhaustive]`: a later version may add variants, so a `match` needs
/// a catch-all arm. Messages carry no command-line hints; front ends add
/// their own.
///
/// ```compile_fail
/// use rspv_specialize::Error;
/// // Every variant of today, and no `_` arm: does not compile.
/// fn code(e: &Error) -> u8 {
///     match e {
///         Error::Binary { .. } | Error::Table { .. } | Error::ArchTable { .. } => 1,
///         Error::UnknownTarget { .. } | Error::BadTarget { .. } => 2,
///         Error::Unresolved(_) => 3,
///         Error::Structure { .. } | Error::Io { .. } => 4,
///     }
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The module bytes are not a SPIR-V binary, or one instruction in it is
    /// malformed, or a container holding modules (offload bundle, ELF file)
    /// is malformed. `offset` is the byte offset of the offending word or
    /// field in the input.
    Binary {
        /// Byte offset into the input.
        offset: usize,
        /// What is wrong there.
        message: String,
    },
    /// The predicate table `llvm.amdgcn.feature.predicate.ids` is malformed.
    Table {
        /// Byte offset of the instruction at fault (0 when not tied to one).
        offset: usize,
        /// What is wrong.
        message: String,
    },
    /// An arch-table file is malformed.
    ArchTable {
        /// File name (or `<embedded>/<name>`).
        file: String,
        /// 1-based line, when known.
        line: Option<usize>,
        /// What is wrong.
        message: String,
    },
    /// A target ID names a processor the tables do not know.
    UnknownTarget {
        /// The target ID as given.
        target: String,
        /// Known names closest to it.
        suggestions: Vec<String>,
    },
    /// A target ID is malformed or asks for something the processor lacks.
    BadTarget {
        /// The target ID as given.
        target: String,
        /// What is wrong.
        message: String,
    },
    /// Predicate chains reach uses that cannot be folded. Nothing is written.
    Unresolved(Vec<UnresolvedUse>),
    /// The module is well formed at the word level but its structure is not
    /// something the pass can rewrite safely (e.g. a branch target that is
    /// not a block of the function).
    Structure {
        /// Byte offset of the instruction at fault.
        offset: usize,
        /// Function the problem is in (`%id` or its name), if any.
        function: Option<String>,
        /// What is wrong.
        message: String,
    },
    /// An I/O error (CLI and directory loading only).
    Io {
        /// The path involved.
        path: String,
        /// The system's message.
        message: String,
    },
}

/// One use of a predicate-derived value that the pass cannot fold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnresolvedUse {
    /// The function (its `OpName`, or `%id`), or `module scope`.
    pub function: String,
    /// The block label (`%id`), if inside a function.
    pub block: Option<String>,
    /// The using instruction as disassembly-like text.
    pub instruction: String,
    /// Byte offset of the using instruction.
    pub offset: usize,
    /// The predicates behind the value: `(name, SpecId)`.
    pub predicates: Vec<(String, u32)>,
}

impl fmt::Display for UnresolvedUse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "in function {}", self.function)?;
        if let Some(b) = &self.block {
            write!(f, ", block {b}")?;
        }
        write!(f, " (byte {}): `{}` uses ", self.offset, self.instruction)?;
        let preds: Vec<String> = self
            .predicates
            .iter()
            .map(|(n, id)| format!("{n} (SpecId {id})"))
            .collect();
        write!(f, "{}", preds.join(", "))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Binary { offset, message } => write!(f, "byte {offset}: {message}"),
            Error::Table { offset, message } => {
                write!(f, "predicate table (byte {offset}): {message}")
            }
            Error::ArchTable {
                file,
                line,
                message,
            } => match line {
                Some(l) => write!(f, "arch table {file}:{l}: {message}"),
                None => write!(f, "arch table {file}: {message}"),
            },
            Error::UnknownTarget {
                target,
                suggestions,
            } => {
                write!(f, "unknown target `{target}`")?;
                if !suggestions.is_empty() {
                    write!(f, "; did you mean {}?", suggestions.join(", "))?;
                }
                Ok(())
            }
            Error::BadTarget { target, message } => write!(f, "target `{target}`: {message}"),
            Error::Unresolved(uses) => {
                write!(
                    f,
                    "{} unresolved use(s) of feature predicates; predicates may only decide \
                     branches and selects:",
                    uses.len()
                )?;
                for u in uses {
                    write!(f, "\n  {u}")?;
                }
                Ok(())
            }
            Error::Structure {
                offset,
                function,
                message,
            } => match function {
                Some(func) => write!(f, "function {func} (byte {offset}): {message}"),
                None => write!(f, "byte {offset}: {message}"),
            },
            Error::Io { path, message } => write!(f, "{path}: {message}"),
        }
    }
}

impl std::error::Error for Error {}

/// Shorthand for results of this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// Builds an [`Error::Binary`].
pub(crate) fn binary(offset: usize, message: impl Into<String>) -> Error {
    Error::Binary {
        offset,
        message: message.into(),
    }
}

/// Builds an [`Error::Table`].
pub(crate) fn table(offset: usize, message: impl Into<String>) -> Error {
    Error::Table {
        offset,
        message: message.into(),
    }
}
