//! Finding the SPIR-V modules inside what a HIP build ships.
//!
//! A HIP build for `amdgcnspirv` does not leave a bare `.spv` behind: the
//! module sits in a clang offload bundle (`__CLANG_OFFLOAD_BUNDLE__`),
//! possibly compressed (`CCOB`, zstd or zlib), inside the `.hip_fatbin`
//! section of a host object; linking concatenates one bundle per translation
//! unit into the executable's or shared library's `.hip_fatbin`. This module
//! recognizes each of these by content (never by file name) and returns
//! every SPIR-V module found, in file order, with where it was found.
//!
//! Nothing is copied unless it has to be: a module in an uncompressed bundle
//! is a slice of the input ([`Cow::Borrowed`]); one in a compressed bundle is
//! decompressed into memory of its own. Every bad container gets an
//! [`Error::Binary`] naming the byte offset and what is wrong there; sizes
//! read from headers are checked against the input before anything is
//! allocated, and decompression stops at [`Limits::max_decompressed`].
//!
//! The layouts are those of clang's `OffloadBundler.cpp` and LLVM's
//! `OffloadBinary.h`; `tests/data/containers/` holds real containers made
//! with clang-22 and clang-offload-bundler, checked against both tools.

mod bundle;
mod compressed;
mod elf;
mod offload_binary;

use std::borrow::Cow;
use std::fmt;

use crate::error::{Error, Result, binary};
use crate::module::MAGIC;

pub use compressed::Method;

/// What kind of input the modules came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A bare SPIR-V module (either byte order).
    Spirv,
    /// An uncompressed clang offload bundle.
    Bundle,
    /// A compressed clang offload bundle (`CCOB`).
    CompressedBundle,
    /// An ELF relocatable object, executable or shared library.
    Elf,
}

impl Kind {
    /// A short name for messages and reports (`spirv`, `bundle`,
    /// `compressed-bundle`, `elf`).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Spirv => "spirv",
            Kind::Bundle => "bundle",
            Kind::CompressedBundle => "compressed-bundle",
            Kind::Elf => "elf",
        }
    }
}

/// How a compressed bundle holding a module was compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compression {
    /// The compression method.
    pub method: Method,
    /// The `CCOB` format version (1, 2 or 3).
    pub version: u16,
    /// Bytes the compressed bundle takes in the input, header included.
    pub compressed_size: usize,
}

/// Where a module was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The ELF section holding the bundle and the section's byte offset in
    /// the input, for ELF inputs.
    pub section: Option<(String, usize)>,
    /// Byte offset in the input of the bundle (compressed or not) holding
    /// the module; `None` for a bare module.
    pub bundle_offset: Option<usize>,
    /// The bundle entry id (e.g. `hip-spirv64-amd-amdhsa--amdgcnspirv`).
    pub entry: Option<String>,
    /// Byte offset of the module: in the input when the bundle is not
    /// compressed, in the decompressed bundle when it is.
    pub offset: usize,
    /// How the bundle was compressed, if it was.
    pub compression: Option<Compression>,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(bundle) = self.bundle_offset else {
            return write!(f, "the whole input");
        };
        if let Some((name, at)) = &self.section {
            write!(f, "section {name} (byte {at}), ")?;
        }
        match &self.compression {
            Some(c) => write!(
                f,
                "{} bundle (CCOB v{}, {} bytes) at byte {bundle}",
                c.method.name(),
                c.version,
                c.compressed_size
            )?,
            None => write!(f, "bundle at byte {bundle}")?,
        }
        if let Some(entry) = &self.entry {
            write!(f, ", entry {entry}")?;
        }
        match self.compression {
            Some(_) => write!(f, ", decompressed byte {}", self.offset),
            None => write!(f, ", byte {}", self.offset),
        }
    }
}

/// One SPIR-V module found in an input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Embedded<'a> {
    /// The module's bytes: a slice of the input unless it was compressed.
    /// Not checked beyond its magic number; it may sit at any alignment.
    pub bytes: Cow<'a, [u8]>,
    /// Where it was found.
    pub location: Location,
}

/// Every SPIR-V module of an input, in the order they appear in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found<'a> {
    /// What the input was.
    pub kind: Kind,
    /// The modules; never empty (no module is an error).
    pub modules: Vec<Embedded<'a>>,
}

/// Resource limits of [`find_spirv_with`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Largest decompressed bundle accepted, in bytes. A compressed bundle
    /// claiming more is refused before anything is decompressed; one whose
    /// data inflates past it is stopped there.
    pub max_decompressed: usize,
}

impl Default for Limits {
    /// 1 GiB per decompressed bundle: more than any one translation unit's
    /// device code, less than a hostile header can make us allocate.
    fn default() -> Self {
        Limits {
            max_decompressed: 1 << 30,
        }
    }
}

/// Magic bytes of an uncompressed offload bundle.
pub(crate) const BUNDLE_MAGIC: &[u8] = b"__CLANG_OFFLOAD_BUNDLE__";
/// Magic bytes of a compressed offload bundle.
pub(crate) const CCOB_MAGIC: &[u8] = b"CCOB";
/// Magic bytes of an ELF file.
const ELF_MAGIC: &[u8] = b"\x7fELF";

/// Finds every SPIR-V module in `data`, which may be a bare module, an
/// offload bundle, a compressed bundle or an ELF file, with the default
/// [`Limits`].
///
/// ```
/// use rspv_specialize::container::{find_spirv, Kind};
/// let data = std::fs::read("tests/data/containers/dispatch.hipfb").unwrap();
/// let found = find_spirv(&data).unwrap();
/// assert_eq!(found.kind, Kind::Bundle);
/// let raw = std::fs::read("tests/golden/dispatch-chain/input.spv").unwrap();
/// assert_eq!(&*found.modules[0].bytes, &raw[..]);
/// ```
pub fn find_spirv(data: &[u8]) -> Result<Found<'_>> {
    find_spirv_with(data, &Limits::default())
}

/// [`find_spirv`] with explicit [`Limits`].
pub fn find_spirv_with<'a>(data: &'a [u8], limits: &Limits) -> Result<Found<'a>> {
    let kind = detect(data)?;
    let modules = match kind {
        Kind::Spirv => vec![Embedded {
            bytes: Cow::Borrowed(data),
            location: Location {
                section: None,
                bundle_offset: None,
                entry: None,
                offset: 0,
                compression: None,
            },
        }],
        Kind::Bundle | Kind::CompressedBundle => {
            let mut walk = Walk::new(limits, None);
            walk.bundles(data, 0)?;
            walk.finish("the input")?
        }
        Kind::Elf => elf::find(data, limits)?,
    };
    Ok(Found { kind, modules })
}

/// Tells what `data` is from its first bytes (at most 24).
pub fn detect(data: &[u8]) -> Result<Kind> {
    if data.starts_with(BUNDLE_MAGIC) {
        return Ok(Kind::Bundle);
    }
    if data.starts_with(CCOB_MAGIC) {
        return Ok(Kind::CompressedBundle);
    }
    if data.starts_with(ELF_MAGIC) {
        return Ok(Kind::Elf);
    }
    let Some(magic) = data.first_chunk::<4>() else {
        return Err(binary(
            0,
            format!(
                "not SPIR-V: {} byte(s), too short for SPIR-V or any container",
                data.len()
            ),
        ));
    };
    if u32::from_le_bytes(*magic) == MAGIC || u32::from_be_bytes(*magic) == MAGIC {
        return Ok(Kind::Spirv);
    }
    Err(binary(
        0,
        format!(
            "not SPIR-V: bad magic number 0x{:08x} (expected 0x07230203 in either byte \
             order); not an offload bundle, compressed offload bundle (CCOB) or ELF file either",
            u32::from_le_bytes(*magic)
        ),
    ))
}

/// Whether `bytes` start with the SPIR-V magic number in either byte order.
fn is_spirv(bytes: &[u8]) -> bool {
    bytes
        .first_chunk::<4>()
        .is_some_and(|m| u32::from_le_bytes(*m) == MAGIC || u32::from_be_bytes(*m) == MAGIC)
}

/// Whether a bundle entry id names the SPIR-V device code of a HIP build:
/// triple `spirv64-amd-amdhsa-*` and target `amdgcnspirv`, whatever the
/// offload kind (`hip`, `hipv4`) and environment (empty or `unknown`).
/// Ids are `<kind>-<arch>-<vendor>-<os>-<env>[-<target id>]`, as clang
/// splits them.
pub fn is_spirv_entry(id: &str) -> bool {
    let parts: Vec<&str> = id.splitn(6, '-').collect();
    let [_kind, arch, vendor, os, _env, target] = parts[..] else {
        return false;
    };
    arch.starts_with("spirv64")
        && vendor == "amd"
        && os == "amdhsa"
        && target.split(':').next() == Some("amdgcnspirv")
}

/// Where the bytes being read came from, to give errors an input offset.
#[derive(Debug, Clone, Copy)]
enum Origin {
    /// A slice of the input starting at this byte offset.
    Input(usize),
    /// A buffer decompressed from the compressed bundle at this input byte.
    Decompressed(usize),
}

impl Origin {
    /// An error about byte `at` of the current buffer.
    fn error(self, at: usize, message: impl fmt::Display) -> Error {
        match self {
            Origin::Input(base) => binary(base + at, message.to_string()),
            Origin::Decompressed(ccob) => binary(
                ccob,
                format!("in the compressed bundle's decompressed data, byte {at}: {message}"),
            ),
        }
    }
}

/// A walk over consecutive bundles, collecting SPIR-V modules and, for the
/// "no SPIR-V" message, the entries of bundles that had none.
struct Walk<'l, 'a> {
    limits: &'l Limits,
    section: Option<(String, usize)>,
    modules: Vec<Embedded<'a>>,
    /// `(bundle offset, its entry ids)` of each bundle without SPIR-V.
    without_spirv: Vec<(usize, Vec<String>)>,
}

impl<'l, 'a> Walk<'l, 'a> {
    fn new(limits: &'l Limits, section: Option<(String, usize)>) -> Self {
        Walk {
            limits,
            section,
            modules: Vec::new(),
            without_spirv: Vec::new(),
        }
    }

    /// Reads the bundles that fill `data` (the input's bytes from `base`):
    /// each an uncompressed or compressed bundle, separated by zero padding
    /// (a linker aligns each translation unit's bundle to 4096 bytes).
    /// A compressed bundle ends at its `total_size`, an uncompressed one at
    /// its last entry.
    fn bundles(&mut self, data: &'a [u8], base: usize) -> Result<()> {
        let mut pos = 0;
        while pos < data.len() {
            if data[pos] == 0 {
                pos += 1;
                continue;
            }
            let rest = &data[pos..];
            let at = base + pos;
            let len = if rest.starts_with(BUNDLE_MAGIC) {
                let b = bundle::Bundle::parse(rest, Origin::Input(at))?;
                self.take(&b, at, None, |range| Cow::Borrowed(&rest[range]))?;
                b.end
            } else if rest.starts_with(CCOB_MAGIC) {
                let c = compressed::Compressed::parse(rest, at)?;
                let inflated = c.decompress(at, self.limits)?;
                let b = bundle::Bundle::parse(&inflated, Origin::Decompressed(at))?;
                let compression = Compression {
                    method: c.method,
                    version: c.version,
                    compressed_size: c.total_size,
                };
                self.take(&b, at, Some(compression), |range| {
                    Cow::Owned(inflated[range].to_vec())
                })?;
                c.total_size
            } else {
                let shown: Vec<String> = rest.iter().take(8).map(|b| format!("{b:02x}")).collect();
                return Err(binary(
                    at,
                    format!(
                        "expected an offload bundle (__CLANG_OFFLOAD_BUNDLE__ or CCOB){}, found {}",
                        if pos > 0 {
                            " after the previous one"
                        } else {
                            ""
                        },
                        shown.join(" ")
                    ),
                ));
            };
            pos += len;
        }
        Ok(())
    }

    /// Records the SPIR-V entries of bundle `b` (at input byte `at`);
    /// `bytes` gives an entry's bytes from its range in the bundle.
    fn take(
        &mut self,
        b: &bundle::Bundle,
        at: usize,
        compression: Option<Compression>,
        bytes: impl Fn(std::ops::Range<usize>) -> Cow<'a, [u8]>,
    ) -> Result<()> {
        let origin = match compression {
            Some(_) => Origin::Decompressed(at),
            None => Origin::Input(at),
        };
        let mut any = false;
        for e in b.entries.iter().filter(|e| is_spirv_entry(&e.id)) {
            let module = bytes(e.range.clone());
            if !is_spirv(&module) {
                let head: Vec<String> = module.iter().take(4).map(|b| format!("{b:02x}")).collect();
                return Err(origin.error(
                    e.range.start,
                    format!(
                        "bundle entry {} holds {} bytes that are not SPIR-V (they start {})",
                        e.id,
                        module.len(),
                        if head.is_empty() {
                            "with nothing".to_string()
                        } else {
                            head.join(" ")
                        }
                    ),
                ));
            }
            any = true;
            self.modules.push(Embedded {
                bytes: module,
                location: Location {
                    section: self.section.clone(),
                    bundle_offset: Some(at),
                    entry: Some(e.id.clone()),
                    offset: match compression {
                        Some(_) => e.range.start,
                        None => at + e.range.start,
                    },
                    compression,
                },
            });
        }
        if !any {
            let ids = b.entries.iter().map(|e| e.id.clone()).collect();
            self.without_spirv.push((at, ids));
        }
        Ok(())
    }

    /// The modules found, or the "no SPIR-V" error naming what each bundle
    /// held instead. `what` names the place searched.
    fn finish(self, what: &str) -> Result<Vec<Embedded<'a>>> {
        if !self.modules.is_empty() {
            return Ok(self.modules);
        }
        let Some((first, _)) = self.without_spirv.first() else {
            return Err(binary(
                0,
                format!("no SPIR-V found: {what} holds no bundle"),
            ));
        };
        let listed: Vec<String> = self
            .without_spirv
            .iter()
            .map(|(at, ids)| {
                if ids.is_empty() {
                    format!("bundle at byte {at} has no entries")
                } else {
                    format!("bundle at byte {at} has {}", ids.join(", "))
                }
            })
            .collect();
        Err(binary(
            *first,
            format!(
                "no SPIR-V found: no bundle entry for amdgcnspirv \
                 (spirv64-amd-amdhsa--amdgcnspirv) in {what}; {}",
                listed.join("; ")
            ),
        ))
    }
}
