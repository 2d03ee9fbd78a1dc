//! A heap's byte row (one byte per value, 1 where some option attains it): its width, the
//! least common value it misses, and whether every rare value below that is marked.

/// The byte width of a block's rows when the largest value so far is `max_known`: the power
/// of two above it, so every option (an xor of two values) fits, and a mex is at most the
/// width (found as the row's length by [`least_common_missing`]). Half the width of rows that
/// held the mex too: on Officers 16 KiB for a group of lanes instead of 32 KiB, which leaves
/// the first-level cache room for the partners' windows.
#[inline]
pub(super) fn row_width(max_known: usize) -> usize {
    (max_known + 1).next_power_of_two().max(64)
}

/// The least value v with `common[v] == 1` and `row[v] == 0`, or the row's width when every
/// common value below it is marked (the mex is at most the width: see [`row_width`]).
#[inline]
pub(super) fn least_common_missing(row: &[u8], common: &[u8]) -> usize {
    for (w, (r, c)) in row.chunks_exact(8).zip(common.chunks_exact(8)).enumerate() {
        let r = u64::from_le_bytes(r.try_into().unwrap());
        let c = u64::from_le_bytes(c.try_into().unwrap());
        let miss = c & !r;
        if miss != 0 {
            return 8 * w + (miss.trailing_zeros() / 8) as usize;
        }
    }
    row.len()
}

/// True when every rare value v < c has `row[v] == 1`; `met` is how many values from 0 are
/// known to be settled (attained or common), and grows.
#[inline]
pub(super) fn rare_below_met(row: &[u8], common: &[u8], c: usize, met: &mut usize) -> bool {
    let mut w = *met / 8;
    while 8 * w < c {
        let r = u64::from_le_bytes(row[8 * w..8 * w + 8].try_into().unwrap());
        let k = u64::from_le_bytes(common[8 * w..8 * w + 8].try_into().unwrap());
        // bytes 0x01 where v is rare and unmarked
        let open = !(r | k) & 0x0101_0101_0101_0101;
        let below = c - 8 * w;
        let open = if below < 8 {
            open & ((1u64 << (8 * below)) - 1)
        } else {
            open
        };
        if open != 0 {
            *met = 8 * w + (open.trailing_zeros() / 8) as usize;
            return false;
        }
        w += 1;
    }
    *met = c;
    true
}
