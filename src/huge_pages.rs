//! Large fresh buffers on 2 MiB pages, where Linux gives them on request.
//!
//! A buffer the size of a module is written once, front to back, right
//! after it is allocated: every 4 KiB page of it costs a page fault, and
//! at 100 MB those faults (about 20,000) take as long as the pass itself.
//! Linux's transparent huge pages are often enabled only for memory that
//! asks for them (`/sys/kernel/mm/transparent_hugepage/enabled` set to
//! `madvise`, as on the machines measured in the README); [`advise`] asks,
//! for the buffer's whole 2 MiB pages, before anything is written to them.
//! Used for the buffers a module is gathered or serialized into. The advice changes no
//! contents and no resident size beyond rounding the last touched page up
//! to 2 MiB; where the kernel has no huge page to give, it falls back to
//! small ones. Elsewhere, and for buffers under [`FROM_BYTES`], it does
//! nothing.

/// The smallest buffer worth the system call: two huge pages.
const FROM_BYTES: usize = 4 << 20;

/// Asks the kernel to back `buf`'s allocation (its whole 2 MiB pages)
/// with huge pages. Call it on a fresh buffer before writing to it: made
/// with `Vec::with_capacity`, or with `vec![0; n]` (zeroed pages of a
/// fresh mapping, not yet touched). Pages already touched stay small.
pub(crate) fn advise<T>(buf: &mut Vec<T>) {
    let bytes = buf.capacity() * std::mem::size_of::<T>();
    if bytes < FROM_BYTES {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let at = buf.as_mut_ptr() as usize;
        let (start, end) = ((at + HUGE - 1) & !(HUGE - 1), (at + bytes) & !(HUGE - 1));
        if start < end {
            // SAFETY: [start, end) lies within `buf`'s allocation, which
            // `buf` owns and keeps alive through the call; MADV_HUGEPAGE
            // only changes how the kernel backs those pages, never their
            // contents, so no Rust reference's view of memory changes. A
            // failure (no THP support) leaves the small pages: ignored.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    /// The `THPeligible` flag of the mapping holding `addr`, from
    /// /proc/self/smaps.
    fn eligible(addr: usize) -> Option<bool> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut inside = false;
        for line in smaps.lines() {
            if let Some((range, _)) = line.split_once(' ')
                && let Some((lo, hi)) = range.split_once('-')
                && let (Ok(lo), Ok(hi)) =
                    (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
            {
                inside = (lo..hi).contains(&addr);
            } else if inside && let Some(flag) = line.strip_prefix("THPeligible:") {
                return Some(flag.trim() == "1");
            }
        }
        None
    }

    #[test]
    fn a_big_buffer_becomes_eligible_for_huge_pages_and_keeps_its_contents() {
        let mode = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
            .unwrap_or_default();
        let mut buf: Vec<u32> = Vec::with_capacity(8 << 20);
        let middle = buf.as_ptr() as usize + (16 << 20);
        super::advise(&mut buf);
        buf.extend(0..8 << 20);
        assert!(buf.iter().enumerate().all(|(i, &w)| w == i as u32));
        // Where the kernel offers huge pages at all ("always" or "madvise"
        // selected), the advised range must be eligible for them.
        if mode.contains("[always]") || mode.contains("[madvise]") {
            assert_eq!(eligible(middle), Some(true), "THP mode {mode:?}");
        }
    }

    #[test]
    fn a_small_buffer_is_left_alone() {
        let mode = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
            .unwrap_or_default();
        let mut big: Vec<u32> = Vec::with_capacity(8 << 20);
        let middle = big.as_ptr() as usize + (16 << 20);
        big.truncate(0);
        // Only with "madvise": under "always" every mapping is eligible.
        if mode.contains("[madvise]") {
            assert_eq!(eligible(middle), Some(false), "no advice, not eligible");
        }
        let mut small: Vec<u32> = Vec::with_capacity(1 << 10);
        super::advise(&mut small);
        small.push(1);
        assert_eq!(small, [1]);
    }
}
