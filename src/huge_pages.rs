//! Large fresh buffers on huge pages, where Linux has them free.
//!
//! A buffer the size of a module is written once, front to back, right
//! after it is allocated: every 4 KiB page of it costs a page fault, and
//! at 100 MB those faults (about 20,000) take as long as the pass itself.
//! Linux's transparent huge pages are often enabled only for memory that
//! asks for them (`/sys/kernel/mm/transparent_hugepage/enabled` set to
//! `madvise`, as on the machines measured in the README); [`advise`] asks,
//! for the buffer's whole huge pages (2 MiB on x86-64), before anything is
//! written to them. Used for the buffers a module is gathered or
//! serialized into. The advice changes no contents and no resident size
//! beyond rounding the last touched page up to a huge page.
//!
//! The catch: a fault in advised memory that finds no free huge page may
//! compact memory first (`transparent_hugepage/defrag` set to `madvise`,
//! the kernel's default), and compaction stalled runs for 0.5 s in an
//! earlier measurement here. So the advice is given only when the kernel's
//! free lists (`/proc/buddyinfo`) hold at least twice the buffer in free
//! blocks of a huge page or more: then the faults take free huge pages
//! and nothing needs compacting. Elsewhere (another system, no
//! `/proc`, less free memory), and for buffers under [`FROM_BYTES`], it
//! does nothing.
//!
//! Nor does it in a virtual machine whose memory balloon reports free
//! pages to the host (virtio's `VIRTIO_BALLOON_F_REPORTING`, as on the
//! Firecracker machines measured in the README). The guest hands its
//! free blocks of a huge page or more back to the host (Linux's
//! `page_reporting_order`, 9 there: 2 MiB), and the host takes their
//! memory away; a huge page is such a block, so faulting one in makes
//! the host find and zero memory for it again. Measured there, touching
//! a fresh 80 MiB buffer took 10–13 ms with huge pages in a loop, where
//! the blocks came straight back, but up to 232 ms for a process's first
//! (133–206 ms after 5 s idle), and 27–39 ms either way with 4 KiB pages
//! (which come from lists the guest does not report). The in-process
//! call on the 100 MB module, after 5 s idle, took 170–210 ms in its
//! first calls with the advice and 102–118 ms without.

/// The smallest buffer worth the look and the system call: 4 MiB.
const FROM_BYTES: usize = 4 << 20;

/// Asks the kernel to back `buf`'s allocation (its whole huge pages) with
/// huge pages, when it has them free (see the module doc). Call it on a
/// fresh buffer before writing to it: made with `Vec::with_capacity`, or
/// with `vec![0; n]` (zeroed pages of a fresh mapping, not yet touched).
/// Pages already touched stay small.
pub(crate) fn advise<T>(buf: &mut Vec<T>) {
    let bytes = buf.capacity() * std::mem::size_of::<T>();
    if bytes < FROM_BYTES {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        let Some(huge) = huge_page_bytes() else {
            return;
        };
        if free_pages_reported() {
            return;
        }
        let free = free_huge_bytes_now(huge);
        if let Some(range) = advised_range(buf.as_mut_ptr() as usize, bytes, huge, free) {
            // SAFETY: the range lies within `buf`'s allocation, which `buf`
            // owns and keeps alive through the call; MADV_HUGEPAGE only
            // changes how the kernel backs those pages, never their
            // contents, so no Rust reference's view of memory changes. A
            // failure (no THP support) leaves the small pages: ignored.
            unsafe {
                libc::madvise(
                    range.start as *mut libc::c_void,
                    range.len(),
                    libc::MADV_HUGEPAGE,
                );
            }
        }
    }
}

/// The addresses to advise for a buffer of `bytes` at `at`: its whole
/// pages of `huge` bytes (a power of two), when the buffer is of
/// [`FROM_BYTES`] or more and `free` (bytes free in huge blocks) is at
/// least twice its size; else none.
#[cfg(any(target_os = "linux", test))]
fn advised_range(
    at: usize,
    bytes: usize,
    huge: usize,
    free: usize,
) -> Option<std::ops::Range<usize>> {
    if bytes < FROM_BYTES || free / 2 < bytes {
        return None;
    }
    let start = at.checked_add(huge - 1)? & !(huge - 1);
    let end = at.checked_add(bytes)? & !(huge - 1);
    (start < end).then_some(start..end)
}

/// The size of a transparent huge page (`hpage_pmd_size`), if the kernel
/// has them: a power of two.
#[cfg(target_os = "linux")]
fn huge_page_bytes() -> Option<usize> {
    let text =
        std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size").ok()?;
    text.trim()
        .parse::<usize>()
        .ok()
        .filter(|n| n.is_power_of_two())
}

/// The bus directory of the virtio memory balloon's driver, one entry a
/// device.
#[cfg(target_os = "linux")]
const BALLOON_DEVICES: &str = "/sys/bus/virtio/drivers/virtio_balloon";

/// True when a virtio memory balloon reports free pages to the host (see
/// the module doc).
#[cfg(target_os = "linux")]
fn free_pages_reported() -> bool {
    let Ok(devices) = std::fs::read_dir(BALLOON_DEVICES) else {
        return false;
    };
    devices.flatten().any(|device| {
        std::fs::read_to_string(device.path().join("features"))
            .is_ok_and(|features| reports_free_pages(&features))
    })
}

/// Whether a virtio device's `features` (one `0` or `1` a feature bit,
/// bit 0 first) has a balloon's free page reporting, bit 5
/// (`VIRTIO_BALLOON_F_REPORTING`).
#[cfg(any(target_os = "linux", test))]
fn reports_free_pages(features: &str) -> bool {
    features.as_bytes().get(5) == Some(&b'1')
}

/// The memory free right now in blocks of `huge` bytes or more (0 when
/// `/proc/buddyinfo` cannot be read).
#[cfg(target_os = "linux")]
fn free_huge_bytes_now(huge: usize) -> usize {
    let Ok(buddyinfo) = std::fs::read_to_string("/proc/buddyinfo") else {
        return 0;
    };
    // SAFETY: sysconf has no preconditions.
    let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(0);
    free_huge_bytes(&buddyinfo, page, huge)
}

/// The free memory in blocks of `huge` bytes or more, from the text of
/// `/proc/buddyinfo` (per zone, the number of free blocks of 1, 2, 4, …
/// pages of `page` bytes). 0 when `page` is not a power of two below
/// `huge`.
#[cfg(any(target_os = "linux", test))]
fn free_huge_bytes(buddyinfo: &str, page: usize, huge: usize) -> usize {
    if !page.is_power_of_two() || page >= huge {
        return 0;
    }
    let first = (huge / page).trailing_zeros() as usize;
    buddyinfo
        .lines()
        .filter_map(|line| line.split_once("zone"))
        .flat_map(|(_, counts)| counts.split_whitespace().skip(1).enumerate())
        .filter(|&(order, _)| order >= first && order < usize::BITS as usize)
        .map(|(order, count)| {
            count
                .parse::<usize>()
                .unwrap_or(0)
                .saturating_mul(page << order)
        })
        .fold(0, usize::saturating_add)
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

    /// The THP mode selected in `transparent_hugepage/enabled`.
    fn mode() -> String {
        std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default()
    }

    #[test]
    fn a_big_buffer_becomes_eligible_for_huge_pages_and_keeps_its_contents() {
        let huge = super::huge_page_bytes();
        let free = huge.map_or(0, super::free_huge_bytes_now);
        let mut buf: Vec<u32> = Vec::with_capacity(8 << 20);
        let middle = buf.as_ptr() as usize + (16 << 20);
        super::advise(&mut buf);
        buf.extend(0..8 << 20);
        assert!(buf.iter().enumerate().all(|(i, &w)| w == i as u32));
        // Where the kernel offers huge pages at all and has plenty free
        // (four times the buffer: other tests allocate meanwhile), and no
        // balloon reports them to a host, the advised range must be
        // eligible for them.
        let mode = mode();
        if huge.is_some()
            && free >= 4 * (32 << 20)
            && !super::free_pages_reported()
            && (mode.contains("[always]") || mode.contains("[madvise]"))
        {
            assert_eq!(
                eligible(middle),
                Some(true),
                "THP mode {mode:?}, {free} bytes free in huge blocks"
            );
        }
    }
}

/// The decision and the reading of `/proc/buddyinfo`, on any system.
#[cfg(test)]
mod decision_tests {
    use super::{FROM_BYTES, advised_range, free_huge_bytes, reports_free_pages};

    const HUGE: usize = 2 << 20;

    #[test]
    fn only_whole_huge_pages_of_a_big_buffer_are_advised_when_enough_are_free() {
        let at = 3 * HUGE + 4096;
        let bytes = 8 * HUGE;
        let plenty = 2 * bytes;
        assert_eq!(
            advised_range(at, bytes, HUGE, plenty),
            Some(4 * HUGE..11 * HUGE)
        );
        assert_eq!(
            advised_range(4 * HUGE, bytes, HUGE, plenty),
            Some(4 * HUGE..12 * HUGE)
        );
        // Not enough free in huge blocks: the faults could wait for compaction.
        assert_eq!(advised_range(at, bytes, HUGE, plenty - 2), None);
        // Too small to be worth it.
        assert_eq!(advised_range(at, FROM_BYTES - 4, HUGE, usize::MAX), None);
        // No whole huge page inside, or an address that would wrap.
        assert_eq!(
            advised_range(HUGE + 4, 2 * HUGE + 8, HUGE, usize::MAX),
            Some(2 * HUGE..3 * HUGE)
        );
        assert_eq!(
            advised_range(HUGE + 4, FROM_BYTES, HUGE, usize::MAX),
            Some(2 * HUGE..3 * HUGE)
        );
        assert_eq!(
            advised_range(usize::MAX - HUGE, FROM_BYTES, HUGE, usize::MAX),
            None
        );
    }

    #[test]
    fn free_huge_blocks_are_summed_over_every_zone_from_the_huge_order_on() {
        let text = "Node 0, zone      DMA      0      0      0      0      0      0      0      0      1      1      3 \n\
                    Node 0, zone    DMA32     65     59     52     37     24     15      8     12     12     10    743 \n\
                    Node 0, zone   Normal  37861  36706  31526  22541  14966   8702   5129   2478   1054    583   3038 \n";
        // Orders 9 and 10 (2 and 4 MiB of 4 KiB pages).
        let want = (1 + 10 + 583) * HUGE + (3 + 743 + 3038) * 2 * HUGE;
        assert_eq!(free_huge_bytes(text, 4096, HUGE), want);
        // 64 KiB pages make 2 MiB order 5.
        let blocks_of_2_mib = (15 + 8702)
            + 2 * (8 + 5129)
            + 4 * (12 + 2478)
            + 8 * (1 + 12 + 1054)
            + 16 * (1 + 10 + 583)
            + 32 * (3 + 743 + 3038);
        assert_eq!(free_huge_bytes(text, 65536, HUGE), blocks_of_2_mib * HUGE);
        assert_eq!(free_huge_bytes(text, 3000, HUGE), 0);
        assert_eq!(free_huge_bytes("", 4096, HUGE), 0);
        assert_eq!(free_huge_bytes("Node 0, zone Normal x y", 4096, HUGE), 0);
    }

    #[test]
    fn a_balloon_reports_free_pages_by_its_feature_bit_5() {
        // (A Firecracker guest's balloon: statistics, deflate on OOM,
        // free page reporting; VIRTIO_F_VERSION_1 at bit 32.)
        let firecracker = "0110010000000000000000000000000010000000000000000000000000000000\n";
        assert!(reports_free_pages(firecracker));
        assert!(!reports_free_pages(
            "0110000000000000000000000000000010000000\n"
        ));
        assert!(!reports_free_pages("01100"));
        assert!(!reports_free_pages(""));
    }
}
