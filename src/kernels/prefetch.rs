//! Software prefetch of a span of table values: the cache lines a later load will read,
//! asked for ahead of it. The lane kernels prefetch each move's span [`lanes::PREFETCH_AHEAD`]
//! moves ahead into L1, the bitset's far-move groups the same move's span of the next block
//! into L2; with thousands of moves, each a separate stream, no hardware prefetcher follows.
//!
//! A prefetch is a hint: it never faults, never changes memory and never changes a result,
//! so only the lines it names can be tested ([`span_bytes`], against the lines the span
//! occupies); whether it pays is a measurement (results/quality/mutants.md).
//!
//! [`lanes::PREFETCH_AHEAD`]: crate::kernels::lanes::PREFETCH_AHEAD

/// Byte offsets from the first byte of a span of `values` `u16` values, one in each 64-byte
/// line of its 2·`values` bytes and its last byte: prefetching each names every line the
/// span touches, however it is aligned (consecutive offsets 64 apart lie in consecutive
/// lines, and the last byte names the last line). `values` must be at least 1. Offsets from
/// the span, not from the table, so that with `values` a constant the loop unrolls into a
/// fixed run of prefetches.
#[inline(always)]
pub fn span_bytes(values: usize) -> impl Iterator<Item = usize> {
    (0..2 * values).step_by(64).chain([2 * values - 1])
}

/// Prefetches the lines of `g[first .. first + values]` into every cache level (T0).
#[inline(always)]
pub fn to_l1(g: &[u16], first: usize, values: usize) {
    #[cfg(target_arch = "x86_64")]
    span_lines::<{ std::arch::x86_64::_MM_HINT_T0 }>(g, first, values);
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (g, first, values);
}

/// Prefetches the lines of `g[first .. first + values]` into L2 and outward (T1).
#[inline(always)]
pub fn to_l2(g: &[u16], first: usize, values: usize) {
    #[cfg(target_arch = "x86_64")]
    span_lines::<{ std::arch::x86_64::_MM_HINT_T1 }>(g, first, values);
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (g, first, values);
}

/// One prefetch with hint `HINT` for each offset of [`span_bytes`] from `g[first]`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn span_lines<const HINT: i32>(g: &[u16], first: usize, values: usize) {
    let p = g.as_ptr().wrapping_add(first) as *const i8;
    for b in span_bytes(values) {
        // SAFETY: a prefetch never faults and never changes memory, whatever the address;
        // `wrapping_add` keeps the pointer arithmetic itself defined.
        unsafe { std::arch::x86_64::_mm_prefetch::<HINT>(p.wrapping_add(b)) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 64-byte lines (numbered from a line-aligned origin) of the bytes at `at + b` for
    /// each offset b.
    fn lines(at: usize, bytes: impl Iterator<Item = usize>) -> Vec<usize> {
        let mut l: Vec<usize> = bytes.map(|b| (at + b) / 64).collect();
        l.sort_unstable();
        l.dedup();
        l
    }

    #[test]
    fn the_offsets_name_exactly_the_lines_of_the_span_at_every_alignment() {
        // `at` is the span's first byte modulo a line (a u16 table is 2-byte aligned).
        for at in (0..64).step_by(2) {
            for values in [1, 2, 16, 31, 32, 33, 63, 64, 65, 100, 128, 256] {
                let span = lines(at, 0..2 * values);
                let named = lines(at, span_bytes(values));
                assert_eq!(named, span, "{values} values from byte {at} of a line");
            }
        }
    }

    #[test]
    fn a_span_of_32_values_is_two_offsets_and_of_64_three() {
        // 64 bytes: the first and the last, in one line when aligned, two otherwise.
        assert_eq!(span_bytes(32).collect::<Vec<_>>(), [0, 63]);
        assert_eq!(lines(0, span_bytes(32)), [0]);
        assert_eq!(lines(2, span_bytes(32)), [0, 1]);
        // 128 bytes: three offsets, three lines unless aligned.
        assert_eq!(span_bytes(64).collect::<Vec<_>>(), [0, 64, 127]);
        assert_eq!(lines(6, span_bytes(64)), [0, 1, 2]);
    }

    #[test]
    fn a_prefetch_past_the_end_of_the_table_is_harmless() {
        let g = vec![1u16; 10];
        to_l1(&g, 1 << 40, 32);
        to_l2(&g, 1 << 40, 64);
        assert_eq!(g, vec![1u16; 10]);
    }
}
