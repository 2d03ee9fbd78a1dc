//! Big tables on 2 MiB pages.
//!
//! Every far move of the lane kernels reads a span from anywhere below the current block, so
//! past a few MB nearly every span load also misses the TLB (with 4 KiB pages its few
//! thousand entries cover some 16 MiB). Transparent huge pages are in `madvise` mode on the machines this
//! runs on, so the table asks for them: `madvise(MADV_HUGEPAGE)` on its buffer before its
//! pages are first touched. The advice is a hint: where the kernel has no huge pages, or on
//! systems other than Linux, nothing changes, and the values never depend on it. Cost: one
//! `madvise` call per table, before its first touch. What it gains is measured in
//! results/scaling/big-n.md.
//!
//! Invariant: the advice only ever covers whole pages inside the table's own buffer, so it
//! cannot change a value.

/// Tables of at least this many bytes are advised onto huge pages (N >= 4 194 304): below
/// it the TLB covers most of the table, and a table is only a few huge pages.
pub const HUGE_PAGES_FROM_BYTES: usize = 8 << 20;

/// A table of `len` zeros, advised onto huge pages when it is big.
pub fn zeroed(len: usize) -> Vec<u16> {
    // Large zeroed allocations come straight from mmap, untouched, so the advice still
    // decides the page size of every page.
    let mut g = vec![0u16; len];
    advise(&mut g);
    g
}

/// Advises the whole buffer of `g` (its capacity) onto huge pages when it is big; pages not
/// yet touched (the spare capacity a caller is about to fill) are then faulted in as huge
/// pages. Returns whether the advice was given and accepted.
pub fn advise(g: &mut Vec<u16>) -> bool {
    let bytes = g.capacity() * std::mem::size_of::<u16>();
    if bytes < HUGE_PAGES_FROM_BYTES {
        return false;
    }
    advise_range(g.as_mut_ptr() as usize, bytes)
}

/// `madvise(MADV_HUGEPAGE)` on the whole 4 KiB pages inside `[start, start + bytes)`.
#[cfg(target_os = "linux")]
fn advise_range(start: usize, bytes: usize) -> bool {
    const PAGE: usize = 4096;
    let first = start.next_multiple_of(PAGE);
    let end = (start + bytes) & !(PAGE - 1);
    if end <= first {
        return false;
    }
    // SAFETY: [first, end) lies inside one live allocation of the caller's (a Vec's buffer,
    // borrowed mutably for the call); MADV_HUGEPAGE only changes how the kernel backs those
    // pages, never their contents, and an error (no THP support) is returned, not raised.
    let rc = unsafe { libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE) };
    rc == 0
}

#[cfg(not(target_os = "linux"))]
fn advise_range(_start: usize, _bytes: usize) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_tables_are_left_alone_and_big_ones_stay_zero_and_whole() {
        let mut small = vec![0u16; 1000];
        assert!(!advise(&mut small));
        let len = HUGE_PAGES_FROM_BYTES / 2 + 12_345;
        let g = zeroed(len);
        assert_eq!(g.len(), len);
        assert!(g.iter().all(|&v| v == 0));
    }

    #[test]
    fn advice_keeps_the_values_and_the_spare_capacity_fills_normally() {
        let mut g: Vec<u16> = (0..1000).map(|i| i as u16).collect();
        g.reserve_exact(HUGE_PAGES_FROM_BYTES);
        // A Linux kernel with transparent huge pages (as on the CI machines) accepts it.
        let advised = advise(&mut g);
        if std::path::Path::new("/sys/kernel/mm/transparent_hugepage/enabled").exists() {
            assert!(advised);
        }
        assert!(g.iter().enumerate().all(|(i, &v)| v == i as u16));
        g.resize(1000 + HUGE_PAGES_FROM_BYTES / 2, 7);
        assert!(g[1000..].iter().all(|&v| v == 7));
        assert_eq!(g[999], 999);
    }

    /// The `VmFlags` of the mapping holding `address` in /proc/self/smaps (`hg`: advised
    /// onto huge pages), or None where the file cannot be read.
    fn vm_flags_at(address: usize) -> Option<String> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut inside = false;
        for line in smaps.lines() {
            let head = line.split_whitespace().next().unwrap_or_default();
            if let Some((lo, hi)) = head.split_once('-') {
                if let (Ok(lo), Ok(hi)) =
                    (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
                {
                    inside = lo <= address && address < hi;
                    continue;
                }
            }
            if inside {
                if let Some(flags) = line.strip_prefix("VmFlags:") {
                    return Some(flags.trim().to_string());
                }
            }
        }
        None
    }

    fn thp() -> bool {
        std::path::Path::new("/sys/kernel/mm/transparent_hugepage/enabled").exists()
    }

    #[test]
    fn the_advice_starts_at_exactly_the_threshold_and_covers_the_whole_buffer() {
        if !thp() {
            return;
        }
        // 2 bytes short of the threshold: not advised, though it spans many whole pages
        let mut below: Vec<u16> = Vec::with_capacity(HUGE_PAGES_FROM_BYTES / 2 - 1);
        assert!(below.capacity() * 2 < HUGE_PAGES_FROM_BYTES);
        assert!(!advise(&mut below));
        // exactly the threshold: advised, and the mappings of its first and last whole
        // pages both carry the huge-page flag
        let mut at: Vec<u16> = Vec::with_capacity(HUGE_PAGES_FROM_BYTES / 2);
        assert_eq!(at.capacity() * 2, HUGE_PAGES_FROM_BYTES);
        assert!(advise(&mut at));
        let start = at.as_ptr() as usize;
        let first = start.next_multiple_of(4096);
        let last = ((start + HUGE_PAGES_FROM_BYTES) & !4095) - 4096;
        for address in [first, last] {
            let flags = vm_flags_at(address).expect("/proc/self/smaps lists the buffer");
            assert!(
                flags.split_whitespace().any(|f| f == "hg"),
                "page at {address:#x} (buffer {start:#x}): VmFlags {flags}"
            );
        }
    }
}
