//! What the from-bytes entry points ([`crate::specialize()`],
//! [`crate::specialize_many`], [`crate::inspect()`]) read: a bare SPIR-V
//! module or, with the `containers` feature, a container (offload bundle,
//! compressed bundle, ELF file) holding exactly one SPIR-V module. A
//! container holding several is an error listing them: pick one with
//! [`crate::container::find_spirv`]. Input that starts with no container's
//! magic is read as SPIR-V, with the errors it always had.

use std::borrow::Cow;

use crate::error::{Error, Result};

/// The module bytes of an input, and where in a container they were.
pub(crate) struct Input<'a> {
    /// The module's bytes.
    pub bytes: Cow<'a, [u8]>,
    /// Where the module was found, when the input was a container.
    location: Option<String>,
}

impl<'a> Input<'a> {
    /// The one module of `data`.
    #[cfg(feature = "containers")]
    pub(crate) fn read(data: &'a [u8]) -> Result<Input<'a>> {
        use crate::container::{Kind, detect, find_spirv};
        if !matches!(
            detect(data),
            Ok(Kind::Bundle | Kind::CompressedBundle | Kind::Elf)
        ) {
            return Ok(Input {
                bytes: Cow::Borrowed(data),
                location: None,
            });
        }
        let mut modules = find_spirv(data)?.modules;
        if modules.len() > 1 {
            let listed: Vec<String> = modules
                .iter()
                .enumerate()
                .map(|(k, m)| format!("module {k}: {}", m.location))
                .collect();
            return Err(crate::error::binary(
                0,
                format!(
                    "the input holds {} SPIR-V modules; pick one (container::find_spirv): {}",
                    modules.len(),
                    listed.join("; ")
                ),
            ));
        }
        let m = modules.remove(0);
        Ok(Input {
            bytes: m.bytes,
            location: Some(m.location.to_string()),
        })
    }

    /// The input itself (built without the `containers` feature).
    #[cfg(not(feature = "containers"))]
    pub(crate) fn read(data: &'a [u8]) -> Result<Input<'a>> {
        Ok(Input {
            bytes: Cow::Borrowed(data),
            location: None,
        })
    }

    /// `e`, saying which module of a container its byte offset is in.
    pub(crate) fn locate(&self, e: Error) -> Error {
        let Some(at) = &self.location else {
            return e;
        };
        let note =
            |message: String| format!("{message} (byte offsets within the SPIR-V module in {at})");
        match e {
            Error::Binary { offset, message } => Error::Binary {
                offset,
                message: note(message),
            },
            Error::Table { offset, message } => Error::Table {
                offset,
                message: note(message),
            },
            Error::Structure {
                offset,
                function,
                message,
            } => Error::Structure {
                offset,
                function,
                message: note(message),
            },
            other => other,
        }
    }
}
