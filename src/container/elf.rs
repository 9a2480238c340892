//! ELF host objects, executables and shared libraries: the bundles sit in
//! section `.hip_fatbin` (one per translation unit after linking, each
//! 4096-aligned). Objects built with clang's new offload driver and
//! `-fgpu-rdc` carry `.llvm.offloading` instead, whose amdgcnspirv image is
//! LLVM IR, not SPIR-V: that gets an error saying so.

use object::{Object, ObjectSection};

use super::{Embedded, Limits, Walk, offload_binary};
use crate::error::{Result, binary};

/// The section clang puts HIP offload bundles in.
const FATBIN: &str = ".hip_fatbin";
/// The section of clang's new offload driver (`OffloadBinary` images).
const OFFLOADING: &str = ".llvm.offloading";

/// Finds the SPIR-V modules of the ELF file `data`.
pub(super) fn find<'a>(data: &'a [u8], limits: &Limits) -> Result<Vec<Embedded<'a>>> {
    let file = object::File::parse(data).map_err(|e| {
        binary(
            0,
            format!(
                "not SPIR-V: bad magic number 0x464c457f (an ELF file, which could not be \
                     read: {e})"
            ),
        )
    })?;
    if let Some((bytes, at)) = section(&file, FATBIN, data.len())? {
        let mut walk = Walk::new(limits, Some((FATBIN.to_string(), at)));
        walk.bundles(bytes, at)?;
        return walk.finish(&format!("section {FATBIN} (byte {at})"));
    }
    if let Some((bytes, at)) = section(&file, OFFLOADING, data.len())? {
        return offload_binary::find(bytes, at, OFFLOADING);
    }
    Err(binary(
        0,
        format!(
            "not SPIR-V: an ELF file with no {FATBIN} section (nor {OFFLOADING}), so no SPIR-V found"
        ),
    ))
}

/// The bytes and input offset of the section `name`, if there is one, in
/// a file of `len` bytes.
fn section<'a>(
    file: &object::File<'a>,
    name: &str,
    len: usize,
) -> Result<Option<(&'a [u8], usize)>> {
    let Some(s) = file.section_by_name(name) else {
        return Ok(None);
    };
    let Some((at, size)) = s.file_range() else {
        return Err(binary(
            0,
            format!("section {name} has no bytes in the file (SHT_NOBITS)"),
        ));
    };
    // Named at the ELF header (byte 0): the section's offset itself may lie
    // past the end of the file.
    let bytes = s.data().map_err(|e| {
        binary(
            0,
            format!("section {name} (offset {at}, {size} bytes) could not be read: {e}"),
        )
    })?;
    // An empty section reads as no bytes wherever its offset points; an
    // offset past the end would then name bytes the input does not have.
    match usize::try_from(at) {
        Ok(at) if at <= len => Ok(Some((bytes, at))),
        _ => Err(binary(
            0,
            format!(
                "section {name} (offset {at}, {size} bytes) lies past the end of the file ({len} bytes)"
            ),
        )),
    }
}
