//! The compressed offload bundle (`CCOB`, clang's `--offload-compress`): a
//! header, then a zstd frame or zlib stream that inflates to an
//! uncompressed bundle. All integers little-endian.
//!
//! ```text
//! v3: "CCOB" u16 version u16 method u64 total_size u64 uncompressed_size u64 hash
//! v2: "CCOB" u16 version u16 method u32 total_size u32 uncompressed_size u64 hash
//! v1: "CCOB" u16 version u16 method u32 uncompressed_size u64 hash
//! ```
//!
//! `total_size` counts the whole compressed bundle, header included (v1 has
//! none: its stream runs to the end of the data). `hash` is the first eight
//! bytes of the MD5 of the uncompressed bundle, read as a little-endian u64;
//! clang only checks it when asked to be verbose, we always do.

use std::io::Read;

use md5::{Digest, Md5};

use super::{CCOB_MAGIC, Limits};
use crate::error::{Result, binary};

/// A compression method of a `CCOB` bundle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// zlib (method 0).
    Zlib,
    /// zstd (method 1; clang's default).
    Zstd,
}

impl Method {
    /// `zlib` or `zstd`.
    pub fn name(self) -> &'static str {
        match self {
            Method::Zlib => "zlib",
            Method::Zstd => "zstd",
        }
    }
}

/// A parsed `CCOB` header and its compressed stream.
#[derive(Debug)]
pub(super) struct Compressed<'a> {
    pub version: u16,
    pub method: Method,
    /// Bytes of the whole compressed bundle, header included.
    pub total_size: usize,
    uncompressed_size: u64,
    hash: u64,
    /// The compressed stream.
    stream: &'a [u8],
    /// Byte offset of the stream from the bundle's start (its header size).
    stream_at: usize,
}

impl<'a> Compressed<'a> {
    /// Parses the compressed bundle at the start of `data` (input byte
    /// `at`), which must hold all of it.
    pub(super) fn parse(data: &'a [u8], at: usize) -> Result<Compressed<'a>> {
        debug_assert!(data.starts_with(CCOB_MAGIC));
        let field = |pos: usize, len: usize, what: &str| -> Result<u64> {
            let bytes = data.get(pos..pos + len).ok_or_else(|| {
                binary(
                    at + pos.min(data.len()),
                    format!(
                        "compressed bundle truncated at {} bytes: its {what} (bytes {pos}..{}) is cut off",
                        data.len(),
                        pos + len
                    ),
                )
            })?;
            let mut le = [0u8; 8];
            le[..len].copy_from_slice(bytes);
            Ok(u64::from_le_bytes(le))
        };
        let version = field(4, 2, "format version")? as u16;
        let (header, total, uncompressed_size, hash) = match version {
            1 => (
                20,
                None,
                field(8, 4, "uncompressed size")?,
                field(12, 8, "hash")?,
            ),
            2 => (
                24,
                Some(field(8, 4, "total size")?),
                field(12, 4, "uncompressed size")?,
                field(16, 8, "hash")?,
            ),
            3 => (
                32,
                Some(field(8, 8, "total size")?),
                field(16, 8, "uncompressed size")?,
                field(24, 8, "hash")?,
            ),
            v => {
                return Err(binary(
                    at + 4,
                    format!("compressed bundle: unknown format version {v} (1, 2 and 3 are known)"),
                ));
            }
        };
        let method = match field(6, 2, "compression method")? {
            0 => Method::Zlib,
            1 => Method::Zstd,
            m => {
                return Err(binary(
                    at + 6,
                    format!(
                        "compressed bundle: unknown compression method {m} (0 is zlib, 1 is zstd)"
                    ),
                ));
            }
        };
        let total_size = match total {
            None => data.len(),
            Some(t) if t < header as u64 || t > data.len() as u64 => {
                return Err(binary(
                    at + 8,
                    format!(
                        "compressed bundle: total size {t} is {} (the header takes {header} bytes, \
                         {} bytes are left in the data)",
                        if t < header as u64 {
                            "smaller than its header"
                        } else {
                            "past the end of the data"
                        },
                        data.len()
                    ),
                ));
            }
            Some(t) => t as usize,
        };
        Ok(Compressed {
            version,
            method,
            total_size,
            uncompressed_size,
            hash,
            stream: &data[header..total_size],
            stream_at: header,
        })
    }

    /// Decompresses the stream, checking the size and the hash the header
    /// claims; `at` is the bundle's input offset, for errors. Nothing larger
    /// than `limits.max_decompressed` is allocated, whatever the header says.
    pub(super) fn decompress(&self, at: usize, limits: &Limits) -> Result<Vec<u8>> {
        let claim = self.uncompressed_size;
        if claim > limits.max_decompressed as u64 {
            return Err(binary(
                at,
                format!(
                    "compressed bundle claims {claim} bytes uncompressed, more than the limit of {} bytes",
                    limits.max_decompressed
                ),
            ));
        }
        let stream_err = |e: &dyn std::fmt::Display| {
            binary(
                at + self.stream_at,
                format!(
                    "compressed bundle: corrupt {} data: {e}",
                    self.method.name()
                ),
            )
        };
        // Read at most one byte past the claim: enough to tell it was wrong.
        let cap = claim + 1;
        let mut out = Vec::with_capacity(claim.min(1 << 24) as usize);
        let mut stream = self.stream;
        let read = match self.method {
            Method::Zstd => ruzstd::decoding::StreamingDecoder::new(&mut stream)
                .map_err(|e| stream_err(&e))
                .and_then(|d| {
                    d.take(cap)
                        .read_to_end(&mut out)
                        .map_err(|e| stream_err(&e))
                }),
            Method::Zlib => flate2::read::ZlibDecoder::new(&mut stream)
                .take(cap)
                .read_to_end(&mut out)
                .map_err(|e| stream_err(&e)),
        };
        read?;
        if out.len() as u64 != claim {
            return Err(binary(
                at,
                format!(
                    "compressed bundle: its data decompresses to {} bytes, the header claims {claim}",
                    if out.len() as u64 > claim {
                        format!("more than {claim}")
                    } else {
                        out.len().to_string()
                    }
                ),
            ));
        }
        let digest = Md5::digest(&out);
        let mut low = [0u8; 8];
        low.copy_from_slice(&digest[..8]);
        let actual = u64::from_le_bytes(low);
        if actual != self.hash {
            return Err(binary(
                at,
                format!(
                    "compressed bundle: hash mismatch: the header says 0x{:016x}, the decompressed \
                     bundle's MD5 gives 0x{actual:016x}",
                    self.hash
                ),
            ));
        }
        Ok(out)
    }
}
