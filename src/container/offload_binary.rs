//! `OffloadBinary` images (LLVM's `OffloadBinary.h`, magic `10 FF 10 AD`),
//! what clang's new offload driver puts in `.llvm.offloading`. Version 1,
//! the one clang-22 writes, is read (all integers little-endian):
//!
//! ```text
//! header: magic[4] u32 version u64 size u64 entry_offset u64 entry_size
//! entry:  u16 image_kind u16 offload_kind u32 flags u64 string_offset
//!         u64 string_count u64 image_offset u64 image_size
//! string: u64 key_offset u64 value_offset   (NUL-terminated, from the start)
//! ```
//!
//! For HIP's `amdgcnspirv` the image is LLVM IR (image kind 2), not SPIR-V:
//! the SPIR-V is made only at link time. An image of kind SPIR-V (6), or one
//! that starts with the SPIR-V magic, is returned as a module.

use std::borrow::Cow;

use super::{Embedded, Location, is_spirv};
use crate::error::{Result, binary};

const MAGIC: &[u8] = &[0x10, 0xff, 0x10, 0xad];
const HEADER: usize = 32;
const ENTRY: usize = 40;
const IMAGE_BITCODE: u16 = 2;
const IMAGE_SPIRV: u16 = 6;

/// Finds the SPIR-V images among the offload binaries filling `data` (the
/// bytes of section `name`, at input byte `base`).
pub(super) fn find<'a>(data: &'a [u8], base: usize, name: &str) -> Result<Vec<Embedded<'a>>> {
    let mut modules = Vec::new();
    let mut seen = Vec::new();
    let mut llvm_ir = false;
    let mut pos = 0;
    while pos < data.len() {
        if data[pos] == 0 {
            pos += 1;
            continue;
        }
        let at = base + pos;
        let bin = &data[pos..];
        let image = Image::parse(bin, at)?;
        let label = format!("{}-{}", image.triple, image.arch);
        if image.kind == IMAGE_SPIRV || is_spirv(image.bytes) {
            modules.push(Embedded {
                bytes: Cow::Borrowed(image.bytes),
                location: Location {
                    section: Some((name.to_string(), base)),
                    bundle_offset: Some(at),
                    entry: Some(label),
                    offset: at + image.offset,
                    compression: None,
                },
            });
        } else {
            llvm_ir |= image.kind == IMAGE_BITCODE && image.arch == "amdgcnspirv";
            seen.push(format!("{label} (image kind {})", image.kind));
        }
        pos += image.size;
    }
    if !modules.is_empty() {
        return Ok(modules);
    }
    if llvm_ir {
        return Err(binary(
            base,
            format!(
                "section {name} holds an LLVM IR image for amdgcnspirv, no SPIR-V (clang's new \
                 offload driver with -fgpu-rdc embeds IR; link the program, or build without \
                 -fgpu-rdc, to get a .hip_fatbin with SPIR-V)"
            ),
        ));
    }
    Err(binary(
        base,
        format!(
            "no SPIR-V found: section {name} holds {}",
            if seen.is_empty() {
                "no offload binary".to_string()
            } else {
                seen.join(", ")
            }
        ),
    ))
}

/// One offload binary's single image.
struct Image<'a> {
    kind: u16,
    triple: String,
    arch: String,
    bytes: &'a [u8],
    /// Offset of the image from the binary's start.
    offset: usize,
    /// Bytes the whole binary takes.
    size: usize,
}

impl<'a> Image<'a> {
    /// Parses the offload binary at the start of `bin` (input byte `at`).
    fn parse(bin: &'a [u8], at: usize) -> Result<Image<'a>> {
        let err = |pos: usize, msg: String| binary(at + pos, format!("offload binary: {msg}"));
        if !bin.starts_with(MAGIC) {
            return Err(err(0, "expected the magic 10 ff 10 ad".into()));
        }
        let u64_at = |pos: usize, what: &str| -> Result<u64> {
            bin.get(pos..pos + 8)
                .and_then(|b| b.first_chunk::<8>())
                .map(|b| u64::from_le_bytes(*b))
                .ok_or_else(|| {
                    err(
                        pos.min(bin.len()),
                        format!(
                            "truncated at {} bytes: {what} (bytes {pos}..{}) is cut off",
                            bin.len(),
                            pos + 8
                        ),
                    )
                })
        };
        let version = bin
            .get(4..8)
            .and_then(|b| b.first_chunk::<4>())
            .map(|b| u32::from_le_bytes(*b))
            .ok_or_else(|| err(bin.len().min(4), "truncated: its version is cut off".into()))?;
        if version != 1 {
            return Err(err(
                4,
                format!("version {version} is not read (version 1 is)"),
            ));
        }
        let size = u64_at(8, "size")?;
        if size < HEADER as u64 || size > bin.len() as u64 {
            return Err(err(
                8,
                format!("size {size} is outside {HEADER}..={} bytes", bin.len()),
            ));
        }
        let bin = &bin[..size as usize];
        let range = |offset: u64, len: u64, what: &str, field: usize| {
            offset
                .checked_add(len)
                .filter(|&e| e <= bin.len() as u64)
                .map(|e| offset as usize..e as usize)
                .ok_or_else(|| {
                    err(
                        field,
                        format!(
                            "{what} at {offset} ({len} bytes) runs past the binary's end ({} bytes)",
                            bin.len()
                        ),
                    )
                })
        };
        let entry = range(u64_at(16, "entry offset")?, ENTRY as u64, "the entry", 16)?.start;
        let u16_at = |pos: usize| u16::from_le_bytes([bin[pos], bin[pos + 1]]);
        let kind = u16_at(entry);
        let strings = u64_at(entry + 8, "string offset")?;
        let count = u64_at(entry + 16, "string count")?;
        let image = range(
            u64_at(entry + 24, "image offset")?,
            u64_at(entry + 32, "image size")?,
            "the image",
            entry + 24,
        )?;
        let table = range(
            strings,
            count.saturating_mul(16),
            "the string table",
            entry + 8,
        )?;
        let text = |offset: u64| -> String {
            let tail = bin.get(offset as usize..).unwrap_or_default();
            let end = tail.iter().position(|&b| b == 0).unwrap_or(tail.len());
            String::from_utf8_lossy(&tail[..end]).into_owned()
        };
        let (mut triple, mut arch) = (String::new(), String::new());
        for pair in bin[table].chunks_exact(16) {
            let key = u64::from_le_bytes(pair[..8].try_into().unwrap_or_default());
            let value = u64::from_le_bytes(pair[8..].try_into().unwrap_or_default());
            match text(key).as_str() {
                "triple" => triple = text(value),
                "arch" => arch = text(value),
                _ => {}
            }
        }
        Ok(Image {
            kind,
            triple,
            arch,
            bytes: &bin[image.clone()],
            offset: image.start,
            size: size as usize,
        })
    }
}
