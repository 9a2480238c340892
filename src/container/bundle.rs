//! The uncompressed clang offload bundle: a table of entries (offset, size,
//! id) after the magic, each entry's bytes at its offset from the bundle's
//! start. All integers are little-endian u64.
//!
//! ```text
//!  0  "__CLANG_OFFLOAD_BUNDLE__"
//! 24  u64 number of entries N
//! 32  N × { u64 offset, u64 size, u64 id length L, L bytes of id }
//! ```

use std::ops::Range;

use super::{BUNDLE_MAGIC, Origin};
use crate::error::Result;

/// Bytes of one entry's fixed fields (offset, size, id length).
const ENTRY_FIELDS: usize = 24;

/// One entry of a bundle.
#[derive(Debug)]
pub(super) struct Entry {
    /// The entry id, e.g. `hip-spirv64-amd-amdhsa--amdgcnspirv` (invalid
    /// UTF-8 replaced).
    pub id: String,
    /// The entry's bytes, relative to the bundle's start.
    pub range: Range<usize>,
}

/// A parsed bundle header.
#[derive(Debug)]
pub(super) struct Bundle {
    /// The entries in table order.
    pub entries: Vec<Entry>,
    /// Where the bundle ends, relative to its start: past its header and its
    /// last entry's bytes.
    pub end: usize,
}

impl Bundle {
    /// Parses the bundle at the start of `data`; every entry must lie within
    /// `data`. `origin` places error offsets.
    pub(super) fn parse(data: &[u8], origin: Origin) -> Result<Bundle> {
        debug_assert!(data.starts_with(BUNDLE_MAGIC));
        let mut pos = BUNDLE_MAGIC.len();
        let count = read_u64(data, pos, origin, "the number of entries")?;
        pos += 8;
        // Each entry's fixed fields alone take 24 bytes: a count that cannot
        // fit is refused before anything is allocated for it.
        let room = (data.len() - pos) / ENTRY_FIELDS;
        if count > room as u64 {
            return Err(origin.error(
                BUNDLE_MAGIC.len(),
                format!(
                    "offload bundle claims {count} entries; its {} bytes have room for at most {room}",
                    data.len()
                ),
            ));
        }
        let mut entries = Vec::with_capacity(count as usize);
        let mut end = 0usize;
        for i in 0..count as usize {
            let at = pos;
            let offset = read_u64(data, pos, origin, "an entry's offset")?;
            let size = read_u64(data, pos + 8, origin, "an entry's size")?;
            let id_len = read_u64(data, pos + 16, origin, "an entry's id length")?;
            pos += ENTRY_FIELDS;
            let id_end = (pos as u64)
                .checked_add(id_len)
                .filter(|&e| e <= data.len() as u64)
                .ok_or_else(|| {
                    origin.error(
                        at + 16,
                        format!(
                            "offload bundle entry {i}: id length {id_len} runs past the end \
                             ({} bytes)",
                            data.len()
                        ),
                    )
                })? as usize;
            let id = String::from_utf8_lossy(&data[pos..id_end]).into_owned();
            pos = id_end;
            let stop = offset
                .checked_add(size)
                .filter(|&s| s <= data.len() as u64)
                .ok_or_else(|| {
                    origin.error(
                        at,
                        format!(
                            "offload bundle entry {i} ({id}): offset {offset} + size {size} \
                             runs past the end ({} bytes)",
                            data.len()
                        ),
                    )
                })? as usize;
            end = end.max(stop);
            entries.push(Entry {
                id,
                range: offset as usize..stop,
            });
        }
        Ok(Bundle {
            entries,
            end: end.max(pos),
        })
    }
}

/// Reads the little-endian u64 at `pos`, or says which field was cut off.
fn read_u64(data: &[u8], pos: usize, origin: Origin, what: &str) -> Result<u64> {
    data.get(pos..pos + 8)
        .and_then(|b| b.first_chunk::<8>())
        .map(|b| u64::from_le_bytes(*b))
        .ok_or_else(|| {
            origin.error(
                pos,
                format!(
                    "offload bundle truncated: {what} (8 bytes) is cut off at {} bytes",
                    data.len()
                ),
            )
        })
}
