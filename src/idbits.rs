//! A growing set of ids: one bit per id below a limit, a hash set for the
//! rest.
//!
//! The sets of ids a run removes are filled as the run goes and asked
//! about for every module-scope instruction. Ids are small integers below
//! the module's bound, so a bit each is the cheapest form. The bits go up
//! to a limit tied to the module's size (a hostile bound or id must not
//! make us allocate gigabytes); ids past it go to a hash set. Bits for the
//! ids a module of that size usually has (4 per word) are allocated
//! zeroed up front, so an insertion checks nothing but that its word is
//! there; only a module whose ids go past that grows them, on a cold path.

use crate::fastmap::Set as HashSet;

/// Ids per module word the bits cover from the start: a module's ids are
/// numbered about densely, one per result, and an instruction with a
/// result has at least two words.
const UP_FRONT_PER_WORD: usize = 4;

/// A set of ids, dense below its limit.
#[derive(Debug, Clone, Default)]
pub(crate) struct IdBits {
    /// One bit per id below `64 * bits.len()`, which never passes `limit`.
    bits: Vec<u64>,
    /// Ids below this (a multiple of 64) may have a bit.
    limit: usize,
    /// Members at or past `limit`.
    far: HashSet<u32>,
}

impl IdBits {
    /// An empty set for a module of `module_words` words whose ids are
    /// below `bound`: bits for ids up to the smaller of `bound` and 32 per
    /// word (at most a word of bits per module word), rounded up to a
    /// multiple of 64, the first [`UP_FRONT_PER_WORD`] per word of them
    /// allocated.
    pub(crate) fn new(bound: u32, module_words: usize) -> IdBits {
        let per_words = u32::try_from(module_words.saturating_mul(32)).unwrap_or(u32::MAX);
        let limit = (bound.min(per_words) as usize).div_ceil(64) * 64;
        let up_front = limit.min(module_words.saturating_mul(UP_FRONT_PER_WORD));
        IdBits {
            // (Zeroed pages cost no memory until a bit on them is set.)
            bits: crate::zeroed::vec(up_front.div_ceil(64)),
            limit,
            far: HashSet::default(),
        }
    }

    /// Adds `id`; true when it was not a member.
    #[inline]
    pub(crate) fn insert(&mut self, id: u32) -> bool {
        match self.bits.get_mut(id as usize / 64) {
            Some(w) => {
                let bit = 1 << (id % 64);
                let new = *w & bit == 0;
                *w |= bit;
                new
            }
            None => self.insert_past_bits(id),
        }
    }

    /// [`IdBits::insert`] of an id past the bits: they grow to it (at
    /// least doubling) while it is below the limit; past it, the hash set
    /// takes it.
    #[cold]
    fn insert_past_bits(&mut self, id: u32) -> bool {
        if id as usize >= self.limit {
            return self.far.insert(id);
        }
        let need = id as usize / 64 + 1;
        let len = need.max(2 * self.bits.len()).min(self.limit / 64);
        self.bits.resize(len, 0);
        self.insert(id)
    }

    /// True when `id` is a member.
    #[inline]
    pub(crate) fn contains(&self, id: u32) -> bool {
        match self.bits.get(id as usize / 64) {
            Some(w) => w & (1 << (id % 64)) != 0,
            None => id as usize >= self.limit && !self.far.is_empty() && self.far.contains(&id),
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

    #[test]
    fn bits_grow_past_the_up_front_ones_up_to_the_limit() {
        // Limit: min(bound 10,000, 32 * 100 words) = 3,200; up front: 4 *
        // 100 = 400 ids, in 7 words.
        let mut s = IdBits::new(10_000, 100);
        assert_eq!(s.bits.len(), 7);
        assert!(!s.contains(3_000) && !s.contains(5_000));
        s.extend([10, 3_000, 3_199, 3_200, 5_000]);
        assert_eq!(s.bits.len(), 50);
        for id in [10, 3_000, 3_199, 3_200, 5_000] {
            assert!(s.contains(id), "{id}");
        }
        for id in [11, 448, 2_999, 3_198, 3_201, 4_999] {
            assert!(!s.contains(id), "{id}");
        }
        assert_eq!(s.far.len(), 2);
        assert!(!s.insert(3_000) && !s.insert(5_000) && s.insert(3_198));
    }
}
