//! The module's `OpName` and linkage name strings, kept as places in the
//! module's words and decoded only when asked for.

use std::borrow::Cow;

use crate::error::{Result, binary};
use crate::module::literal_string_words;

use super::sort_keeping_last;

/// A literal string of the module: where it starts and its length in
/// bytes, its terminating NUL left out (8 bytes; the string is decoded
/// only when asked for).
#[derive(Debug, Clone, Copy)]
pub(super) struct StringAt {
    /// Index of the string's first word in the module.
    at: u32,
    /// The number of bytes before the NUL.
    len: u32,
}

impl StringAt {
    /// The literal string starting at word index `at` of an instruction
    /// ending at word index `end` (as
    /// [`literal_string`](crate::module::literal_string), the error
    /// included), and the number of words it takes. (The parse checked
    /// that every word index fits in 32 bits.)
    pub(super) fn find(words: &[u32], at: usize, end: usize) -> Result<(StringAt, usize)> {
        let n = literal_string_words(words, at, end).ok_or_else(|| {
            binary(
                at * 4,
                "literal string has no terminating NUL within its instruction",
            )
        })?;
        Ok((StringAt::new(at, &words[at..at + n]), n))
    }

    /// The string at word index `at` of the module, made of `words`, the
    /// last of which holds its NUL (the string's first zero byte, its
    /// octets packed low byte first).
    pub(super) fn new(at: usize, words: &[u32]) -> StringAt {
        let last = words[words.len() - 1];
        let tail = (0..4)
            .position(|k| (last >> (8 * k)) as u8 == 0)
            .unwrap_or(4);
        StringAt {
            at: at as u32,
            len: ((words.len() - 1) * 4 + tail) as u32,
        }
    }
}

/// The module's `OpName` and linkage name strings, where they are in the
/// module's words: decoded only when one is asked for (most never are).
#[derive(Debug, Default)]
pub(super) struct Strings<'w> {
    /// The module's words.
    pub(super) words: &'w [u32],
    /// `(target id, its string)` of each `OpName`: in module order while
    /// scanning, then by id, one per id (the last).
    pub(super) names: Vec<(u32, StringAt)>,
    /// `(id, its string)` of each `LinkageAttributes` decoration, in
    /// module order.
    pub(super) linkage_names: Vec<(u32, StringAt)>,
    /// Index into `linkage_names` of each id's first, by id (filled by
    /// [`Strings::finish`]).
    pub(super) linkage_by_id: Vec<u32>,
}

impl<'w> Strings<'w> {
    /// The bytes of `s`. On a little-endian host they are read in place.
    pub(super) fn bytes(&self, s: StringAt) -> Cow<'w, [u8]> {
        let (at, len) = (s.at as usize, s.len as usize);
        let raw = &self.words[at..at + len / 4 + 1];
        if cfg!(target_endian = "little") {
            Cow::Borrowed(&bytemuck::cast_slice(raw)[..len])
        } else {
            Cow::Owned(raw.iter().flat_map(|w| w.to_le_bytes()).take(len).collect())
        }
    }

    /// `s` decoded (UTF-8, any bytes that are not replaced by U+FFFD).
    /// (The strict check first: it is several times faster on the valid
    /// strings nearly all are.)
    pub(super) fn text(&self, s: StringAt) -> Cow<'w, str> {
        match self.bytes(s) {
            Cow::Borrowed(b) => match std::str::from_utf8(b) {
                Ok(text) => Cow::Borrowed(text),
                Err(_) => String::from_utf8_lossy(b),
            },
            Cow::Owned(b) => Cow::Owned(String::from_utf8_lossy(&b).into_owned()),
        }
    }

    /// Sorts the names by id, keeping each id's last, and indexes the
    /// linkage names by id, each id's first.
    pub(super) fn finish(&mut self) {
        let ids = &self.linkage_names;
        self.linkage_by_id = (0..ids.len() as u32).collect();
        // A stable sort keeps an id's linkage names in module order.
        self.linkage_by_id.sort_by_key(|&k| ids[k as usize].0);
        self.linkage_by_id
            .dedup_by_key(|k| self.linkage_names[*k as usize].0);
        sort_keeping_last(&mut self.names);
    }

    /// The `OpName` of `id`.
    pub(super) fn name(&self, id: u32) -> Option<Cow<'w, str>> {
        let k = self.names.binary_search_by_key(&id, |(t, _)| *t).ok()?;
        Some(self.text(self.names[k].1))
    }

    /// The first linkage name of `id`.
    pub(super) fn linkage_name(&self, id: u32) -> Option<Cow<'w, str>> {
        let list = &self.linkage_names;
        let k = self
            .linkage_by_id
            .binary_search_by_key(&id, |&k| list[k as usize].0)
            .ok()?;
        Some(self.text(list[self.linkage_by_id[k] as usize].1))
    }
}
