//! A deterministic random number generator for the unit tests that make
//! many cases at random (xorshift64: the same cases on every run).

/// A generator from `seed` (not 0): each call gives a number below its
/// argument (not 0).
pub(crate) fn below(mut seed: u64) -> impl FnMut(u64) -> u64 {
    move |n| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    }
}
