//! The byte stores of the split options: the pairs (a, m - a) of a heap marked in its row,
//! one heap at a time ([`mark_partners`], read through [`Values`]: the far pass's finished
//! prefix or the near pass's [`View`]) or [`LANES`] heaps at once ([`mark_lanes`]). Each fast
//! form has a checked twin that the tests compare it with.

use super::split::Pos;
use super::stores::{self, Kind};
use super::LANES;

/// Sets `row[(e.value ^ g[m - e.at]) & (row.len() - 1)] = 1` for every entry e: each pair
/// (e.at, m - e.at) marks its value. Needs `row.len()` a power of two and `entries`
/// ascending with every `e.at <= m` and `m - e.at < g.len()` (asserted once, on the first
/// and last entries, which the ascending order makes the extremes). Its twin
/// [`mark_partners_checked`] indexes with bounds checks.
#[inline(always)]
pub fn mark_partners(row: &mut [u8], g: &[u16], m: usize, entries: &[Pos]) {
    let (Some(first), Some(last)) = (entries.first(), entries.last()) else {
        return;
    };
    assert!(
        row.len().is_power_of_two()
            && first.at <= last.at
            && last.at as usize <= m
            && m - (first.at as usize) < g.len()
    );
    debug_assert!(entries.windows(2).all(|w| w[0].at <= w[1].at));
    let wmask = row.len() - 1;
    for e in entries {
        // SAFETY: the entries ascend, so first.at <= e.at <= last.at <= m and
        // m - e.at <= m - first.at < g.len(), asserted above; the row index is masked
        // below row.len().
        unsafe {
            let v = e.value as usize ^ *g.get_unchecked(m - e.at as usize) as usize;
            *row.get_unchecked_mut(v & wmask) = 1;
        }
    }
}

/// [`mark_partners`] with every index checked: the twin the tests compare it with.
pub fn mark_partners_checked(row: &mut [u8], g: &[u16], m: usize, entries: &[Pos]) {
    let wmask = row.len() - 1;
    for e in entries {
        row[(e.value as usize ^ g[m - e.at as usize] as usize) & wmask] = 1;
    }
}

/// Read access to g for the passes: the finished prefix as a plain slice (the far pass),
/// or a block's view, the prefix and the block's values decided so far (the near pass).
pub(super) trait Values {
    /// g(i).
    fn at(&self, i: usize) -> u16;
    /// Marks the pairs (e.at, m - e.at) of `entries` (ascending, every e.at <= m).
    fn mark(&self, row: &mut [u8], m: usize, entries: &[Pos]);
}

impl Values for [u16] {
    #[inline(always)]
    fn at(&self, i: usize) -> u16 {
        self[i]
    }

    #[inline(always)]
    fn mark(&self, row: &mut [u8], m: usize, entries: &[Pos]) {
        mark_partners(row, self, m, entries);
    }
}

/// The near pass's view of g while the next block's far pass reads `head` = g[..n0]: the
/// block's values decided so far are `tail` = g[n0..n].
pub(super) struct View<'a> {
    pub(super) head: &'a [u16],
    pub(super) tail: &'a [u16],
}

impl Values for View<'_> {
    #[inline(always)]
    fn at(&self, i: usize) -> u16 {
        match i.checked_sub(self.head.len()) {
            None => self.head[i],
            Some(j) => self.tail[j],
        }
    }

    #[inline]
    fn mark(&self, row: &mut [u8], m: usize, entries: &[Pos]) {
        // The entries whose partner m - e.at lies in the block (e.at <= m - n0) read the tail
        // at (m - n0) - e.at; the others read the head.
        let n0 = self.head.len();
        let cut = entries.partition_point(|e| (e.at as usize) + n0 <= m);
        if cut > 0 {
            mark_partners(row, self.tail, m - n0, &entries[..cut]);
        }
        mark_partners(row, self.head, m, &entries[cut..]);
    }
}

/// Marks the pairs (r, m - r) for the entries r of `entries` with r < m, leaving out the
/// equal split r = m - r when `unequal` (Grundy's game).
#[inline(always)]
pub(super) fn mark_rare_pairs<V: Values + ?Sized>(
    row: &mut [u8],
    g: &V,
    m: usize,
    entries: &[Pos],
    unequal: bool,
) {
    let end = entries.partition_point(|e| (e.at as usize) < m);
    let entries = &entries[..end];
    stores::add(Kind::RarePairs, entries.len());
    if unequal && m.is_multiple_of(2) {
        let half = entries.partition_point(|e| (e.at as usize) < m / 2);
        g.mark(row, m, &entries[..half]);
        let skip = (entries.get(half).map(|e| e.at as usize) == Some(m / 2)) as usize;
        g.mark(row, m, &entries[half + skip..]);
    } else {
        g.mark(row, m, entries);
    }
}

/// For each entry e and lane j < [`LANES`]: `rows[j * width + ((e.value ^ g[m0 + j - e.at])
/// & (width - 1))] = 1`, the pair (e.at, m_j - e.at) of lane j marked in its row. Needs
/// `width` a power of two with `LANES * width <= 2^16` (the row indices are u16 lanes),
/// `rows.len() == LANES * width` (asserted), and for every entry `e.at <= m0` and
/// `m0 + LANES - 1 - e.at < g.len()` (the slicing checks it). The indices are computed eight
/// lanes a step (`wide::u16x8`), the stores one by one. Its twin [`mark_lanes_checked`]
/// does the same one lane at a time with every index checked.
#[inline]
pub fn mark_lanes(rows: &mut [u8], width: usize, g: &[u16], m0: usize, entries: &[Pos]) {
    use wide::u16x8;
    assert!(width.is_power_of_two() && LANES * width <= 1 << 16 && rows.len() == LANES * width);
    let wmask = u16x8::splat((width - 1) as u16);
    let offset: [u16x8; LANES / 8] =
        std::array::from_fn(|q| u16x8::new(std::array::from_fn(|j| ((8 * q + j) * width) as u16)));
    for e in entries {
        let partners = &g[m0 - e.at as usize..][..LANES];
        let value = u16x8::splat(e.value as u16);
        for q in 0..LANES / 8 {
            let p = u16x8::new(partners[8 * q..8 * q + 8].try_into().expect("8 lanes"));
            let i: [u64; 2] = bytemuck_u64(((p ^ value) & wmask) | offset[q]);
            // Four indices a 64-bit word, split by shifts (spread over the integer ports)
            // rather than extracted one by one from the vector (one shuffle port).
            for w in i {
                for k in 0..4 {
                    let i = (w >> (16 * k)) as u16 as usize;
                    // SAFETY: i = j * width + (v & (width - 1)) < LANES * width = rows.len()
                    // (asserted above).
                    unsafe { *rows.get_unchecked_mut(i) = 1 };
                }
            }
        }
    }
}

/// The eight u16 lanes of `v` as two little-endian 64-bit words (lanes 0-3, then 4-7).
#[inline(always)]
fn bytemuck_u64(v: wide::u16x8) -> [u64; 2] {
    let a = v.to_array();
    let word = |h: usize| {
        (a[h] as u64) | (a[h + 1] as u64) << 16 | (a[h + 2] as u64) << 32 | (a[h + 3] as u64) << 48
    };
    [word(0), word(4)]
}

/// [`mark_lanes`] one lane at a time with every index checked: the twin the tests compare
/// it with.
pub fn mark_lanes_checked(rows: &mut [u8], width: usize, g: &[u16], m0: usize, entries: &[Pos]) {
    for e in entries {
        for j in 0..LANES {
            let v = (e.value as usize ^ g[m0 + j - e.at as usize] as usize) & (width - 1);
            rows[j * width + v] = 1;
        }
    }
}
