//! The words of interest in a function's body, sixteen at a time.
//!
//! The scan ([`super::scan`]) classes every operand word of every function
//! with one look-up in a byte table indexed by id, walking a body
//! instruction by instruction to pass over the headers: about 13
//! instructions a word of the 10 MB benchmark module, of which the
//! look-ups are the lesser part. Where no header can equal an id of interest (every
//! such id below 65,536; a header is `len << 16 | opcode`) and the host
//! has AVX2 (detected at run time), every word of a body is looked up
//! instead, as one lane of a gather, sixteen words in about 25
//! instructions, and the scan walks the headers only up to each word
//! found. (Counted instructions flatter a gather, one instruction for
//! eight loads: in time, the analysis of the 10 MB module,
//! `Prepared::new` on one core, took about 6% less.) Elsewhere the scan walks
//! instruction by instruction, as before: looking up the words one by one
//! would cost more (4% more instructions on the 10 MB module), and in a
//! module that numbers more than 65,536 functions first nearly every
//! header would equal a function id.

/// True when [`find`] can look up words in a table of `table_len` bytes:
/// the host has AVX2 (x86-64 only) and the table fits a gather's 31-bit
/// offsets.
pub(super) fn available(table_len: usize) -> bool {
    #[cfg(target_arch = "x86_64")]
    return table_len < 1 << 31 && std::arch::is_x86_feature_detected!("avx2");
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = table_len;
        false
    }
}

/// Appends to `out` the index of every word of `words` whose class in
/// `table` is not 0, in order. `table` holds each id's class and ends in
/// four 0 bytes, which every id from `table.len() - 4` on reads. Sixteen
/// words at a time where [`available`] says so and there are 16 words or
/// more, else one by one (the scan walks instructions then instead: that
/// costs less than looking up every word one by one).
#[inline]
pub(super) fn find(table: &[u8], words: &[u32], out: &mut Vec<u32>) {
    #[cfg(target_arch = "x86_64")]
    if words.len() >= 16 && table.len() >= 4 && available(table.len()) {
        // (Fuzz builds check it against the words looked up one by one.)
        #[cfg(fuzzing)]
        let from = out.len();
        // SAFETY: AVX2 is there, `table` ends in four 0 bytes and is
        // indexed by 31 bits, `words` holds 16 words.
        unsafe { find_avx2(table, words, out) };
        #[cfg(fuzzing)]
        assert_eq!(
            out[from..],
            one_by_one(table, words),
            "words of interest by 16"
        );
        return;
    }
    out.extend(one_by_one(table, words));
}

/// The index of every word of `words` whose class in `table` is not 0.
fn one_by_one(table: &[u8], words: &[u32]) -> Vec<u32> {
    let class = |x: u32| table.get(x as usize).copied().unwrap_or(0);
    (0..words.len() as u32)
        .filter(|&k| class(words[k as usize]) != 0)
        .collect()
}

/// [`find`] sixteen words at a time, for 16 words or more: each word,
/// clamped to the table's first trailing 0, gathers its class.
///
/// # Safety
///
/// The host has AVX2, `table` ends in four 0 bytes and is shorter than
/// 2³¹ bytes, and `words` holds 16 words at least.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn find_avx2(table: &[u8], words: &[u32], out: &mut Vec<u32>) {
    use std::arch::x86_64::*;
    let last = _mm256_set1_epi32((table.len() - 4) as i32);
    let low_byte = _mm256_set1_epi32(0xff);
    let zero = _mm256_setzero_si256();
    // A bit for each of the 16 words from `w` on whose class is not 0.
    let lanes = |w: *const u32| -> u32 {
        let mut hit = 0;
        for half in 0..2 {
            // SAFETY: the caller passes 16 words from `w` on; the gather
            // reads four bytes at each clamped index, the last four at
            // most.
            let none = unsafe {
                let ids = _mm256_loadu_si256(w.add(8 * half).cast());
                let at = _mm256_min_epu32(ids, last);
                let got = _mm256_i32gather_epi32::<1>(table.as_ptr().cast(), at);
                _mm256_cmpeq_epi32(_mm256_and_si256(got, low_byte), zero)
            };
            let hits = !_mm256_movemask_ps(_mm256_castsi256_ps(none)) as u32 & 0xff;
            hit |= hits << (8 * half);
        }
        hit
    };
    let n = words.len();
    // Runs of up to 256 words, each with room for all of them found
    // reserved first, so that the loop over the run calls nothing (and
    // keeps its constants in registers) and writes the words found into
    // that room.
    let mut from = 0;
    while from + 16 <= n {
        let run = ((n - from) / 16).min(16);
        out.reserve(16 * run);
        let room = &mut out.spare_capacity_mut()[..16 * run];
        let mut found = 0;
        for k in 0..run {
            let at = from + 16 * k;
            // SAFETY: `at + 16 <= n`.
            let mut hit = lanes(unsafe { words.as_ptr().add(at) });
            while hit != 0 {
                room[found].write(at as u32 + hit.trailing_zeros());
                found += 1;
                hit &= hit - 1;
            }
        }
        // SAFETY: the first `found` words of the room were written.
        unsafe { out.set_len(out.len() + found) };
        from += 16 * run;
    }
    if from < n {
        // The last sixteen words again, those already seen masked off.
        let seen = from - (n - 16);
        // SAFETY: `words` holds 16 words at least.
        let mut hit = lanes(unsafe { words.as_ptr().add(n - 16) }) >> seen << seen;
        while hit != 0 {
            out.push((n - 16) as u32 + hit.trailing_zeros());
            hit &= hit - 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every length from 0 to 80 words and a few past 256, and words
    /// below, at and beyond the table's end (`u32::MAX` and ids whose
    /// 32-bit offset would be negative among them): the words found are
    /// those whose class is not 0, in order, both ways.
    #[test]
    fn found_by_sixteen_as_one_by_one() {
        let mut table = vec![0u8; 300 + 4];
        for id in [0usize, 1, 4, 17, 64, 65, 255, 256, 299] {
            table[id] = 1 << (id % 3);
        }
        let pool = [
            0,
            1,
            2,
            4,
            5,
            17,
            64,
            65,
            255,
            256,
            299,
            300,
            303,
            304,
            1 << 31,
            u32::MAX,
        ];
        // (And past 256 words, more than one run of sixteens.)
        for n in (0..80usize).chain([255, 256, 257, 511, 600]) {
            for seed in 0..8usize {
                let words: Vec<u32> = (0..n)
                    .map(|k| pool[(k * 7 + seed * 13 + k * k) % pool.len()])
                    .collect();
                let want: Vec<u32> = (0..n as u32)
                    .filter(|&k| {
                        let x = words[k as usize] as usize;
                        x < 300 && table[x] != 0
                    })
                    .collect();
                let mut found = vec![7];
                find(&table, &words, &mut found);
                assert_eq!(found[1..], want, "{n} words, seed {seed}");
                assert_eq!(one_by_one(&table, &words), want, "{n} words, seed {seed}");
            }
        }
    }
}
