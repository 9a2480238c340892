//! Zeroed vectors, allocated the way that costs least for their size.
//!
//! `vec![0; n]` asks the allocator for zeroed memory (`calloc`). glibc's
//! `calloc` serves no request from its per-thread cache, so a small one
//! costs about as much as a large one (about 140 to 380 instructions a
//! call in a small module's run here, counted with callgrind, where a
//! `malloc` the cache serves costs a few tens); such a run makes a dozen
//! or more. Small vectors are
//! therefore allocated, then cleared; large ones keep `calloc`, whose
//! fresh pages come zeroed and cost no memory until written.

/// The largest size in bytes served by allocating then clearing: glibc's
/// per-thread cache holds chunks up to 1,032 bytes.
const CLEARED_UP_TO: usize = 1024;

/// `n` copies of `T::default()`: zeroes, for the integer and `bool` types
/// it is used for.
#[inline]
pub(crate) fn vec<T: Copy + Default>(n: usize) -> Vec<T> {
    if n.saturating_mul(size_of::<T>()) <= CLEARED_UP_TO {
        let mut v = Vec::with_capacity(n);
        v.resize(n, T::default());
        v
    } else {
        vec![T::default(); n]
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn zeroes_on_both_sides_of_the_threshold() {
        for n in [0, 1, 127, 128, 129, 255, 256, 257, 1024, 1025, 5000] {
            let words: Vec<u32> = super::vec(n);
            assert_eq!(words.len(), n);
            assert!(words.iter().all(|&w| w == 0), "{n} words");
            let flags: Vec<bool> = super::vec(n);
            assert_eq!(flags.len(), n);
            assert!(flags.iter().all(|&f| !f), "{n} flags");
            let bits: Vec<u64> = super::vec(n);
            assert_eq!(bits.len(), n);
            assert!(bits.iter().all(|&b| b == 0), "{n} bit words");
        }
    }
}
