//! A set of ids built for fast membership tests while scanning words.
//!
//! Scans over every word of a function ask "is this word one of the ids I
//! care about?" millions of times, so membership must be a bit test. The bit
//! vector only spans up to the largest member, and falls back to a sorted
//! vector when that would be much larger than the module (a hostile bound
//! must not make us allocate gigabytes).

/// Membership set of ids.
#[derive(Debug, Clone)]
pub(crate) struct IdSet {
    bits: Vec<u64>,
    sorted: Vec<u32>,
    dense: bool,
    empty: bool,
    /// The smallest member (0 when empty).
    min: u32,
    /// The largest member (0 when empty).
    max: u32,
}

impl Default for IdSet {
    /// The empty set (as `IdSet::new([], 0)`, without allocating).
    fn default() -> IdSet {
        IdSet {
            bits: Vec::new(),
            sorted: Vec::new(),
            dense: true,
            empty: true,
            min: 0,
            max: 0,
        }
    }
}

impl IdSet {
    /// Builds the set; `module_words` bounds the size of the bit vector.
    /// The ids are gone over twice (their span, then the bits), so that a
    /// dense set allocates its bits and nothing else.
    pub(crate) fn new<I>(ids: I, module_words: usize) -> IdSet
    where
        I: IntoIterator<Item = u32>,
        I::IntoIter: Clone,
    {
        let ids = ids.into_iter();
        let (mut min, mut max, mut empty) = (u32::MAX, 0, true);
        for id in ids.clone() {
            (min, max, empty) = (min.min(id), max.max(id), false);
        }
        if empty {
            min = 0;
        }
        let max = max as usize;
        if max / 8 <= module_words.saturating_mul(4).max(1 << 16) {
            let mut bits = crate::zeroed::vec(max / 64 + 1);
            for id in ids {
                bits[id as usize / 64] |= 1 << (id % 64);
            }
            IdSet {
                bits,
                sorted: Vec::new(),
                dense: true,
                empty,
                min,
                max: max as u32,
            }
        } else {
            let mut sorted: Vec<u32> = ids.collect();
            sorted.sort_unstable();
            sorted.dedup();
            IdSet {
                bits: Vec::new(),
                sorted,
                dense: false,
                empty,
                min,
                max: max as u32,
            }
        }
    }

    /// True when `id` is a member.
    #[inline]
    pub(crate) fn contains(&self, id: u32) -> bool {
        // Most ids asked about are outside the members' span: one
        // comparison says so. (An empty set's span is 0..=0: 0 goes on to
        // the bits, which hold nothing.)
        if id.wrapping_sub(self.min) > self.max - self.min {
            return false;
        }
        if self.dense {
            self.bits
                .get(id as usize / 64)
                .is_some_and(|w| w & (1 << (id % 64)) != 0)
        } else {
            self.sorted.binary_search(&id).is_ok()
        }
    }

    /// The members, ascending.
    pub(crate) fn iter(&self) -> impl Iterator<Item = u32> + Clone + '_ {
        // Each set bit by its trailing zeros: no look at the clear ones.
        let dense = self.bits.iter().enumerate().flat_map(|(k, &w)| {
            let mut rest = w;
            std::iter::from_fn(move || {
                let b = (rest != 0).then(|| rest.trailing_zeros())?;
                rest &= rest - 1;
                Some((k * 64) as u32 + b)
            })
        });
        dense.chain(self.sorted.iter().copied())
    }

    /// The largest member, if any.
    pub(crate) fn largest(&self) -> Option<u32> {
        (!self.empty).then_some(self.max)
    }

    /// True when the set has no members.
    pub(crate) fn is_empty(&self) -> bool {
        self.empty
    }

    /// The first of `words` that is a member, if any. Eight words at a
    /// time are first compared with the members' range, without a branch
    /// per word: most words of a function are no member and outside it.
    pub(crate) fn position_in(&self, words: &[u32]) -> Option<usize> {
        if self.empty {
            return None;
        }
        let (min, span) = (self.min, self.max - self.min);
        let mut chunks = words.chunks_exact(8);
        let mut base = 0;
        for chunk in &mut chunks {
            let near = chunk
                .iter()
                .fold(false, |a, &x| a | (x.wrapping_sub(min) <= span));
            if near && let Some(k) = chunk.iter().position(|&x| self.contains(x)) {
                return Some(base + k);
            }
            base += 8;
        }
        let rest = chunks.remainder().iter().position(|&x| self.contains(x));
        rest.map(|k| base + k)
    }

    /// True when any of `words` is a member.
    #[inline]
    pub(crate) fn any_in(&self, words: &[u32]) -> bool {
        if self.dense {
            let bits = &self.bits[..];
            words.iter().any(|&w| {
                bits.get(w as usize / 64)
                    .is_some_and(|b| b & (1 << (w % 64)) != 0)
            })
        } else {
            !self.is_empty() && words.iter().any(|&w| self.contains(w))
        }
    }
}

/// A map from ids to indices (e.g. each function's place in module order),
/// dense when the largest id is not much larger than the module.
#[derive(Debug, Clone)]
pub(crate) struct IdIndex {
    /// Index + 1 of every id up to the largest (0: none).
    dense: Vec<u32>,
    /// Otherwise `(id, index)`, sorted by id.
    sparse: Vec<(u32, usize)>,
}

impl IdIndex {
    /// Maps the `k`th id `ids` yields to `k` (the last `k` when an id
    /// repeats, as collecting the pairs into a map does; the ids are gone
    /// over twice); `module_words` bounds the dense table.
    pub(crate) fn new<I>(ids: I, module_words: usize) -> IdIndex
    where
        I: IntoIterator<Item = u32>,
        I::IntoIter: Clone,
    {
        let ids = ids.into_iter();
        let (max, count) = ids
            .clone()
            .fold((0, 0), |(max, count), id| (id.max(max), count + 1));
        let max = max as usize;
        if max <= module_words.saturating_mul(4).max(1 << 16) && count < u32::MAX as usize {
            let mut dense = crate::zeroed::vec(max + 1);
            for (k, id) in ids.enumerate() {
                dense[id as usize] = k as u32 + 1;
            }
            IdIndex {
                dense,
                sparse: Vec::new(),
            }
        } else {
            let mut sparse: Vec<(u32, usize)> = ids.enumerate().map(|(k, id)| (id, k)).collect();
            // Each id's last place first, then kept alone.
            sparse.sort_unstable_by_key(|&(id, k)| (id, std::cmp::Reverse(k)));
            sparse.dedup_by_key(|p| p.0);
            IdIndex {
                dense: Vec::new(),
                sparse,
            }
        }
    }

    /// The index of `id`, if it has one.
    #[inline]
    pub(crate) fn get(&self, id: u32) -> Option<usize> {
        match self.dense.get(id as usize) {
            Some(&k) => (k as usize).checked_sub(1),
            // (Past a dense table's end: no search.)
            None if self.sparse.is_empty() => None,
            None => self
                .sparse
                .binary_search_by_key(&id, |p| p.0)
                .ok()
                .map(|k| self.sparse[k].1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{IdIndex, IdSet};

    #[test]
    fn id_index_dense_and_sparse_agree() {
        let ids = [7, 3, 7, 100];
        let sparse_ids = [7, 3, 7, 100, u32::MAX - 1];
        let dense = IdIndex::new(ids, 10);
        let sparse = IdIndex::new(sparse_ids, 10);
        for (id, k) in [
            (7, Some(2)),
            (3, Some(1)),
            (100, Some(3)),
            (0, None),
            (8, None),
        ] {
            assert_eq!(dense.get(id), k, "{id}");
            assert_eq!(sparse.get(id), k, "{id}");
        }
        assert_eq!(dense.get(u32::MAX - 1), None);
        assert_eq!(sparse.get(u32::MAX - 1), Some(4));
        assert!(!sparse.sparse.is_empty() && sparse.dense.is_empty());
    }

    #[test]
    fn dense_and_sparse_agree() {
        let ids = [3, 64, 65, 1000];
        let dense = IdSet::new(ids, 1000);
        let sparse = IdSet::new(ids.iter().copied().chain([u32::MAX - 1]), 10);
        for id in [0, 3, 4, 63, 64, 65, 999, 1000, 1001, u32::MAX] {
            assert_eq!(dense.contains(id), ids.contains(&id), "{id}");
            assert_eq!(sparse.contains(id), ids.contains(&id), "{id}");
        }
        assert!(sparse.contains(u32::MAX - 1));
        assert_eq!(dense.largest(), Some(1000));
        assert_eq!(sparse.largest(), Some(u32::MAX - 1));
        assert_eq!(IdSet::default().largest(), None);
        assert_eq!(IdSet::new([], 10).largest(), None);
        // The first member of every stretch of words, as a search finds it.
        let words: Vec<u32> = (0..40u32).map(|k| k * k * 7 % 1100).collect();
        for set in [&dense, &sparse, &IdSet::default()] {
            for from in 0..words.len() {
                let part = &words[from..];
                let want = part.iter().position(|&x| set.contains(x));
                assert_eq!(set.position_in(part), want, "{from}");
            }
        }
        assert_eq!(dense.iter().collect::<Vec<_>>(), ids);
        assert!(IdSet::default().is_empty() && !dense.is_empty());
    }
}
