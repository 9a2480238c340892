//! A growing set of ids: one bit per id below a limit, a hash set for the
//! rest.
//!
//! The sets of ids a run removes are filled as the run goes and asked
//! about for every module-scope instruction. Ids are small integers below
//! the module's bound, so a bit each is the cheapest form. The bits are
//! allocated zeroed, all at once, up to a limit tied to the module's size
//! (a hostile bound or id must not make us allocate gigabytes), so an
//! insertion never grows them; the pages of a large set cost memory only
//! once a bit on them is set. Ids past the limit go to a hash set.

use crate::fastmap::Set as HashSet;

/// A set of ids, dense below its limit.
#[derive(Debug, Clone, Default)]
pub(crate) struct IdBits {
    bits: Vec<u64>,
    /// Ids below this have a bit.
    limit: u32,
    /// Members at or past `limit`.
    far: HashSet<u32>,
}

impl IdBits {
    /// An empty set for a module of `module_words` words whose ids are
    /// below `bound`: bits for ids up to the smaller of `bound` and 32 per
    /// word (at most a word of bits per module word).
    pub(crate) fn new(bound: u32, module_words: usize) -> IdBits {
        let per_words = u32::try_from(module_words.saturating_mul(32)).unwrap_or(u32::MAX);
        let limit = bound.min(per_words);
        IdBits {
            // (Zeroed pages cost no memory until a bit on them is set.)
            bits: vec![0; (limit as usize).div_ceil(64)],
            limit,
            far: HashSet::default(),
        }
    }

    /// Adds `id`; true when it was not a member.
    #[inline]
    pub(crate) fn insert(&mut self, id: u32) -> bool {
        if id < self.limit {
            let k = id as usize / 64;
            let bit = 1 << (id % 64);
            let new = self.bits[k] & bit == 0;
            self.bits[k] |= bit;
            new
        } else {
            self.far.insert(id)
        }
    }

    /// True when `id` is a member.
    #[inline]
    pub(crate) fn contains(&self, id: u32) -> bool {
        if id < self.limit {
            self.bits
                .get(id as usize / 64)
                .is_some_and(|w| w & (1 << (id % 64)) != 0)
        } else {
            !self.far.is_empty() && self.far.contains(&id)
        }
    }
}

impl Extend<u32> for IdBits {
    fn extend<I: IntoIterator<Item = u32>>(&mut self, ids: I) {
        for id in ids {
            self.insert(id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::IdBits;

    #[test]
    fn ids_past_the_limit_are_members_too() {
        // Limit: min(bound 1000, 32 * 4 words) = 128.
        let mut s = IdBits::new(1000, 4);
        s.extend([0, 5, 127, 128, 999, u32::MAX]);
        assert!(!s.insert(5) && !s.insert(999) && s.insert(6) && s.insert(1));
        for id in [0, 5, 127, 128, 999, u32::MAX] {
            assert!(s.contains(id), "{id}");
        }
        for id in [2, 126, 129, 998, 1000, u32::MAX - 1] {
            assert!(!s.contains(id), "{id}");
        }
        assert_eq!(s.bits.len(), 2);
        assert_eq!(s.far.len(), 3);
    }
}
