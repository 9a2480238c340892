//! Freed memory handed back to the kernel before a module-sized buffer is
//! made.
//!
//! [`crate::specialize::specialize`] drops its analysis before it gathers
//! the returned module, so that the two are never held at once. But glibc
//! keeps most of what the analysis freed: its blocks were carved from the
//! heap below blocks still in use, and glibc returns only the heap's top to
//! the kernel, so the freed pages stay resident, while the module-sized
//! buffer is mapped afresh beside them. On the 100 MB benchmark module
//! that left about 8 MB resident for nothing at the peak (the caller's
//! input, the returned module and what the run still held: 193 MB against
//! the in-process target of 2× the module, 195 MB). `malloc_trim` gives
//! those free pages back (`MADV_DONTNEED`) and keeps the heap's blocks as
//! they are: 185 MB. It walks every free block, 0.3 ms at 100 MB and
//! about 50 µs whatever the module below 10 MB, so it runs only for
//! modules of at least [`FROM_WORDS`] words, where that is under 0.5% of a
//! run. The price: the next large call in the process faults that memory
//! in again (about 5% of a 100 MB call repeated in one process), where it
//! would have reused it; without the trim, such repeated calls also let
//! the heap's holes grow (216–220 MB after six calls, 187 MB with it).
//! Other C libraries and allocators are left alone.

/// The smallest gathered module worth the trim: 8 Mi words (32 MiB).
const FROM_WORDS: usize = 8 << 20;

/// Hands the heap's free pages back to the kernel, before a buffer of
/// `words` words is made (nothing below [`FROM_WORDS`], and nothing but
/// with glibc on Linux).
pub(crate) fn release_free_memory(words: usize) {
    if words < FROM_WORDS {
        return;
    }
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory of glibc's heaps; it
    // takes each arena's lock and changes no block in use.
    unsafe {
        libc::malloc_trim(0);
    }
}
