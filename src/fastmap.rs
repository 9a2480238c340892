//! Hash maps keyed by SPIR-V ids, with a fast non-cryptographic hasher.
//!
//! Ids are small integers chosen by the module's producer; std's SipHash
//! guards against adversarial keys at a cost that dominated profiles here.
//! The multiply-rotate hash below (FxHash's) spreads dense ids well; a
//! hostile module can at worst make lookups slower, never wrong.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// `HashMap` with [`IdHasher`].
pub(crate) type Map<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;
/// `HashSet` with [`IdHasher`].
pub(crate) type Set<K> = HashSet<K, BuildHasherDefault<IdHasher>>;

/// FxHash-style hasher for integer keys.
#[derive(Debug, Default, Clone, Copy)]
pub struct IdHasher(u64);

const K: u64 = 0x517c_c1b7_2722_0a95;

impl IdHasher {
    #[inline]
    fn add(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(K);
    }
}

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.add(b as u64);
        }
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}
