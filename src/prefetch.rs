//! Reading ahead of a walk over a module's words.
//!
//! A walk from header to header is a chain of loads, each word found from
//! the one before it, so the processor cannot run ahead to the next cache
//! line while it waits for this one. On the machines we measure on (a
//! virtual machine whose hardware prefetchers do not follow such a walk),
//! a bare header walk over the 100 MB module took 56 ms on one core, and
//! 14 ms asking for the words 2 KiB ahead at every step. The hot walks ask
//! through [`ahead`]: the parse's tight walks over the headers only in a
//! module of [`pays`] size, each compiled twice (with and without the
//! requests), as below it the requests only cost (the 10 MB benchmark
//! module took 2% longer with them, the 30 MB one 7-16% less); the walks
//! over module scope, whose every step costs far more than a request,
//! always. (The scan's look-up of every word, sixteen independent loads
//! at a time, does not wait the same way: asking there saved nothing.)

/// How far ahead of a walk's position, in words, [`ahead`] asks for the
/// words (2 KiB: far enough to hide a miss to the last-level cache, near
/// enough that the line is still there when the walk arrives).
const AHEAD: usize = 512;

/// From this many words (16 MiB) on, a module's tight walks read ahead.
const FROM_WORDS: usize = 4 << 20;

/// True when the tight walks over a module of `words` words read ahead
/// (see the module doc). Always in fuzz builds, which make small modules
/// only, so that the walks that read ahead are the ones fuzzed.
pub(crate) fn pays(words: usize) -> bool {
    cfg!(fuzzing) || words >= FROM_WORDS
}

/// Asks the processor to fetch the cache line [`AHEAD`] words past
/// `words[at]` into its caches. A hint only: nothing is read, and no
/// address faults, past the end included. Nothing on other architectures.
#[inline(always)]
pub(crate) fn ahead(words: &[u32], at: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        let p = words.as_ptr().wrapping_add(at + AHEAD).cast::<i8>();
        // SAFETY: the intrinsic's one requirement is SSE, which every
        // x86-64 processor has; a prefetch reads nothing that the program
        // sees and cannot fault, whatever the address.
        unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (words, at);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request about words far past the end of a slice, or of an empty
    /// one, is only a hint: no fault, nothing changed.
    #[test]
    fn asking_past_the_end_reads_nothing() {
        let words = vec![7u32; 3];
        for at in [0, 2, 3, 1 << 20, usize::MAX / 8] {
            ahead(&words, at);
            ahead(&[], at);
        }
        assert_eq!(words, [7, 7, 7]);
        assert!(pays(FROM_WORDS) && !pays(FROM_WORDS - 1));
    }
}
