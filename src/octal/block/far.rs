//! The far pass (step 1 of [`super`]'s module doc): for every heap of a block, the options
//! that read only the values final when the pass began, the heaps claimed a group at a time
//! by whichever thread is free, a group of [`LANES`] heaps at once by the lane kernels.

use super::mark::{mark_lanes, mark_rare_pairs};
use super::row::{least_common_missing, rare_below_met};
use super::split::{Pos, Split};
use super::stores::{self, Kind};
use super::sweep::{sweep, sweep_runs, witness_rare, Run};
use super::{Rules, FAR_SWEEP, LANES, LANE_SWEEP_CHUNK, LANE_SWEEP_MIN};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// What the far pass left to the near pass, per heap and splitting digit: the rare entries
/// it marked, `rare[rare_lo..rare_hi]` of the block's start list, and the pairs: it swept
/// the common a from `near_top + 1` up to (not including) `swept`, so the near pass sweeps
/// `1..=near_top` and, if still needed, from `swept` on.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Left {
    pub(super) rare_lo: usize,
    pub(super) rare_hi: usize,
    pub(super) near_top: usize,
    pub(super) swept: usize,
}

/// A block's byte rows and what its far pass left to the near pass.
#[derive(Default)]
pub(super) struct Rows {
    pub(super) bytes: Vec<u8>,
    pub(super) left: Vec<Left>,
}

/// A far pass's groups of [`LANES`] heaps, each claimed by whichever thread is free next
/// (one atomic counter), so a thread that finishes its near pass takes the groups left
/// rather than waiting for a split of them: the threads end within one group of each other.
pub(super) struct FarGroups<'a> {
    far: Far<'a>,
    first: usize,
    /// Each group's rows and leftovers, locked only by the thread that claimed it.
    groups: Vec<Mutex<(&'a mut [u8], &'a mut [Left])>>,
    next: AtomicUsize,
}

impl<'a> FarGroups<'a> {
    /// The far pass of heaps first..end, reading g[..known] = `known` and the lists as they
    /// stand (every entry below `known`), into `rows`: sized and split into groups, none
    /// done yet.
    pub(super) fn new(
        rules: &'a Rules,
        split: &'a Split,
        known: &'a [u16],
        first: usize,
        end: usize,
        width: usize,
        rows: &'a mut Rows,
    ) -> FarGroups<'a> {
        let heaps = end - first;
        let digits = rules.split().len().max(1);
        // the rows are cleared by the thread that fills them (Far::heaps), not here in one go
        rows.bytes.resize(heaps * width, 0);
        rows.left.clear();
        rows.left.resize(heaps * digits, Left::default());
        let groups = rows
            .bytes
            .chunks_mut(LANES * width)
            .zip(rows.left.chunks_mut(LANES * digits))
            .map(Mutex::new)
            .collect();
        let far = Far {
            rules,
            g: known,
            rare: &split.rare,
            sweepers: &split.sweepers,
            list_end: split.list_end(),
            common: [&split.common[0][..width], &split.common[1][..width]],
            witnesses: &split.witnesses,
            width,
            digits,
        };
        FarGroups {
            far,
            first,
            groups,
            next: AtomicUsize::new(0),
        }
    }

    /// Claims and does groups until none is left.
    pub(super) fn work(&self) {
        loop {
            let t = self.next.fetch_add(1, Ordering::Relaxed);
            let Some(group) = self.groups.get(t) else {
                return;
            };
            let mut group = group
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            let (bytes, left) = &mut *group;
            self.far.heaps(self.first + t * LANES, bytes, left);
        }
    }
}

/// The far pass's shared, read-only view: g[..n0] and the lists at the block's start.
struct Far<'a> {
    rules: &'a Rules,
    g: &'a [u16],
    rare: &'a [Pos],
    sweepers: &'a [Pos],
    list_end: usize,
    /// The common flags for heaps of each parity.
    common: [&'a [u8]; 2],
    witnesses: &'a [Vec<Pos>],
    width: usize,
    digits: usize,
}

impl Far<'_> {
    /// The far pass of the heaps first.. whose rows and leftovers these are: whole groups of
    /// [`LANES`] heaps by the lane kernels (one splitting digit), the others one at a time.
    fn heaps(&self, first: usize, rows: &mut [u8], left: &mut [Left]) {
        rows.fill(0);
        let (width, digits) = (self.width, self.digits);
        let lanes_fit = self.rules.split().len() == 1 && LANES * width <= 1 << 16;
        let mut i = 0;
        let count = rows.len() / width;
        let mut runs = Vec::new();
        while i < count {
            if lanes_fit && i + LANES <= count {
                self.lanes(
                    first + i,
                    &mut rows[i * width..(i + LANES) * width],
                    &mut left[i..i + LANES],
                );
                i += LANES;
            } else {
                self.one(
                    first + i,
                    &mut rows[i * width..(i + 1) * width],
                    &mut left[i * digits..(i + 1) * digits],
                    &mut runs,
                );
                i += 1;
            }
        }
    }

    /// Marks in `row` the options of heap n that read only g[..n0] (see the module doc) and
    /// records, per splitting digit, what it left to the near pass. `runs` is scratch.
    #[inline]
    fn one(&self, n: usize, row: &mut [u8], left: &mut [Left], runs: &mut Vec<Run>) {
        let n0 = self.g.len();
        let rules = self.rules;
        for (d, &k) in rules.split().iter().enumerate() {
            if n < k + 2 {
                left[d] = Left {
                    swept: 1,
                    ..Left::default()
                };
                continue;
            }
            let m = n - k;
            // the rare r < m with m - r < n0: r > m - n0
            let lo = self.rare.partition_point(|e| (e.at as usize) + n0 <= m);
            let hi = self.rare.partition_point(|e| (e.at as usize) < m).max(lo);
            mark_rare_pairs(row, self.g, m, &self.rare[lo..hi], rules.unequal());
            left[d] = Left {
                rare_lo: lo,
                rare_hi: hi,
                near_top: m.saturating_sub(n0),
                swept: 0,
            };
        }
        // the sweep of the pairs with m - a < n0 (a > m - n0), for the rare values below c,
        // the digits taking turns (a digit's splits may never attain a value another's do)
        let common = self.common[n & 1];
        let c = least_common_missing(row, common);
        let mut met = 0;
        // with several digits, one turn of each (FAR_SWEEP) before the near pass takes over
        let budget = if rules.split().len() > 1 {
            FAR_SWEEP
        } else {
            usize::MAX
        };
        runs.clear();
        runs.extend(rules.splits_by_digit(n).map(|(d, m, p)| Run {
            m,
            next: left[d].near_top + 1,
            top: p.min(left[d].near_top.saturating_add(budget)),
        }));
        sweep_runs(
            self.g,
            runs,
            (row, common, c, &mut met),
            self.sweepers,
            self.list_end,
        );
        for ((d, _, _), run) in rules.splits_by_digit(n).zip(runs.iter()) {
            left[d].swept = run.next;
        }
    }

    /// The far pass of the [`LANES`] heaps first.. of a game with one splitting digit k:
    /// heap first + j splits m_j = m_0 + j tokens, so for a rare r the partners g(m_j - r)
    /// are one run, and so are those of a swept pair (a, m_j - a). The lanes share the rare
    /// entries with m_last - r < n0 <= ... and r < m_0, and the pairs a > m_last - n0; each
    /// lane's others are its near pass's. Where equal splits are forbidden (Grundy's game)
    /// the few rare r with m_0 <= 2r <= m_last are marked lane by lane, skipping the lane
    /// 2r - m_0 they would split equally; every swept a is at most split_pairs(m_0), below
    /// half of every lane's heap, so the sweep never meets an equal split.
    fn lanes(&self, first: usize, rows: &mut [u8], left: &mut [Left]) {
        let n0 = self.g.len();
        let width = self.width;
        let k = self.rules.split()[0];
        if first < k + 2 {
            let mut runs = Vec::new();
            for (j, (row, left)) in rows.chunks_mut(width).zip(left.iter_mut()).enumerate() {
                self.one(first + j, row, std::slice::from_mut(left), &mut runs);
            }
            return;
        }
        let m0 = first - k;
        let m_last = m0 + LANES - 1;
        let lo = self
            .rare
            .partition_point(|e| (e.at as usize) + n0 <= m_last);
        let hi = self.rare.partition_point(|e| (e.at as usize) < m0).max(lo);
        if self.rules.unequal() {
            // The entries r with m0 <= 2r <= m_last split some lane's heap into equal halves
            // (lane 2r - m0), which this game forbids: those lanes are marked one by one.
            let zone_lo = lo + self.rare[lo..hi].partition_point(|e| 2 * (e.at as usize) < m0);
            let zone_hi =
                zone_lo + self.rare[zone_lo..hi].partition_point(|e| 2 * (e.at as usize) <= m_last);
            mark_lanes(rows, width, self.g, m0, &self.rare[lo..zone_lo]);
            mark_lanes(rows, width, self.g, m0, &self.rare[zone_hi..hi]);
            let lane_entries = (zone_lo - lo) + (hi - zone_hi) + (zone_hi - zone_lo);
            stores::add(Kind::LaneRare, lane_entries * LANES);
            for (j, row) in rows.chunks_mut(width).enumerate() {
                let m = m0 + j;
                for e in &self.rare[zone_lo..zone_hi] {
                    if 2 * e.at as usize != m {
                        row[(e.value as usize ^ self.g[m - e.at as usize] as usize)
                            & (width - 1)] = 1;
                    }
                }
            }
        } else {
            mark_lanes(rows, width, self.g, m0, &self.rare[lo..hi]);
            stores::add(Kind::LaneRare, (hi - lo) * LANES);
        }
        // The sweep of the common a > m_last - n0 (where every lane's partner is below n0):
        // all lanes together while at least LANE_SWEEP_MIN of them still miss a rare value
        // below their c, then each open lane on its own from where the lanes stopped.
        let a0 = (m_last + 1).saturating_sub(n0).max(1);
        let p0 = self.rules.split_pairs(m0);
        let mut c = [0usize; LANES];
        let mut met = [0usize; LANES];
        let mut open = 0u64;
        for (j, row) in rows.chunks(width).enumerate() {
            let common = self.common[(first + j) & 1];
            c[j] = least_common_missing(row, common);
            if !rare_below_met(row, common, c[j], &mut met[j]) {
                open |= 1 << j;
            }
        }
        let mut next = a0;
        if open.count_ones() as usize >= LANE_SWEEP_MIN && a0 <= p0 {
            let from = self.sweepers.partition_point(|e| (e.at as usize) < a0);
            let to = self
                .sweepers
                .partition_point(|e| (e.at as usize) <= p0)
                .max(from);
            // every common a below the list's end up to p0 swept, unless stopped earlier
            next = a0.max((p0 + 1).min(self.list_end));
            for chunk in self.sweepers[from..to].chunks(LANE_SWEEP_CHUNK) {
                mark_lanes(rows, width, self.g, m0, chunk);
                stores::add(Kind::LaneSweep, chunk.len() * LANES);
                stores::add(
                    Kind::LaneSweepOpen,
                    chunk.len() * open.count_ones() as usize,
                );
                let mut still = open;
                while still != 0 {
                    let j = still.trailing_zeros() as usize;
                    still &= still - 1;
                    let row = &rows[j * width..(j + 1) * width];
                    if rare_below_met(row, self.common[(first + j) & 1], c[j], &mut met[j]) {
                        open &= !(1 << j);
                    }
                }
                if (open.count_ones() as usize) < LANE_SWEEP_MIN {
                    next = chunk[chunk.len() - 1].at as usize + 1;
                    break;
                }
            }
        }
        for (j, (row, l)) in rows.chunks_mut(width).zip(left.iter_mut()).enumerate() {
            let m = m0 + j;
            let swept = if open & (1 << j) != 0
                && !witness_rare(
                    self.g,
                    (m, self.rules.split_pairs(m), n0),
                    (row, self.common[(first + j) & 1], c[j], met[j]),
                    self.witnesses,
                ) {
                sweep(
                    self.g,
                    m,
                    next,
                    self.rules.split_pairs(m),
                    (row, self.common[(first + j) & 1], c[j], &mut met[j]),
                    self.sweepers,
                    self.list_end,
                )
            } else {
                next
            };
            *l = Left {
                rare_lo: lo,
                rare_hi: hi,
                near_top: a0 - 1,
                swept,
            };
        }
    }
}
