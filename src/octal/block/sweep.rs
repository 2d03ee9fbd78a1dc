//! Settling the rare values below c, the least common value a heap's row misses: the
//! witness lists tried first, then the sweep over the pairs with a common small heap, in
//! chunks of [`SWEEP_CHUNK`] pairs between two checks of the values still missing, and
//! several runs of pairs (one per splitting digit, and per stretch of a) in turns of
//! [`SWEEP_TURN`] ([`sweep_runs`]).

use super::mark::Values;
use super::row::rare_below_met;
use super::split::Pos;
use super::stores::{self, Kind};
use super::{SWEEP_CHUNK, SWEEP_TURN};

/// Tries to find, for every rare value v < c that `row` misses (from `met` on), a pair
/// (a, m - a) that attains it among v's witnesses (see [`Split::witnesses`]), marking v
/// when one does. A pair counts when it is a split of m (1 <= a <= `p`) and reads only the
/// values known (m - a < `known`). True when every one was found; false at the first that
/// was not (the values found so far stay marked: each is attained).
///
/// [`Split::witnesses`]: super::split::Split::witnesses
#[inline]
pub(super) fn witness_rare<V: Values + ?Sized>(
    g: &V,
    (m, p, known): (usize, usize, usize),
    (row, common, c, met): (&mut [u8], &[u8], usize, usize),
    witnesses: &[Vec<Pos>],
) -> bool {
    for v in met..c {
        if row[v] != 0 || common[v] != 0 {
            continue;
        }
        let found = witnesses.get(v).is_some_and(|list| {
            list.iter().any(|e| {
                let a = e.at as usize;
                a <= p && a + known > m && g.at(m - a) == e.value as u16
            })
        });
        if !found {
            return false;
        }
        row[v] = 1;
    }
    true
}

/// A heap's row and what its sweep is after: the common flags, c, and the settled prefix.
type Goal<'r> = (&'r mut [u8], &'r [u8], usize, &'r mut usize);

/// Sweeps the pairs (a, m - a) with a common, a0 <= a <= p, marking their values in the row,
/// until every rare value below c is marked; returns the first a not swept (p + 1 when all
/// were). Below `list_end` the common small heaps come from `sweepers` (the pairs with a
/// rare small heap are the rare enumeration's); from it on, every a is read from g.
#[inline]
pub(super) fn sweep<V: Values + ?Sized>(
    g: &V,
    m: usize,
    a0: usize,
    p: usize,
    (row, common, c, met): Goal,
    sweepers: &[Pos],
    list_end: usize,
) -> usize {
    if a0 > p || rare_below_met(row, common, c, met) {
        return a0;
    }
    let lo = sweepers.partition_point(|e| (e.at as usize) < a0);
    let hi = sweepers.partition_point(|e| (e.at as usize) <= p.min(list_end.saturating_sub(1)));
    if lo < hi {
        for chunk in sweepers[lo..hi].chunks(SWEEP_CHUNK) {
            g.mark(row, m, chunk);
            stores::add(Kind::Sweep, chunk.len());
            if rare_below_met(row, common, c, met) {
                return chunk[chunk.len() - 1].at as usize + 1;
            }
        }
    }
    let mut a = a0.max(list_end);
    let wmask = row.len() - 1;
    while a <= p {
        let stop = (a + SWEEP_CHUNK - 1).min(p);
        for x in a..=stop {
            row[(g.at(x) ^ g.at(m - x)) as usize & wmask] = 1;
        }
        stores::add(Kind::Sweep, stop + 1 - a);
        a = stop + 1;
        if rare_below_met(row, common, c, met) {
            break;
        }
    }
    a
}

/// One run of split pairs a sweep walks: (a, m - a) for a = `next..=top`; `next` > `top`
/// once the run is done.
#[derive(Debug, Clone, Copy)]
pub(super) struct Run {
    pub(super) m: usize,
    pub(super) next: usize,
    pub(super) top: usize,
}

/// Sweeps `runs` (see [`sweep`]) round robin, [`SWEEP_TURN`] positions of a run a turn while
/// two or more are open, the last one open to its end, until every rare value below c is
/// marked; true then, false when every run is done first. Each run's `next` is left at the
/// first a it did not sweep.
///
/// Why turns: a rare value may be attained by the splits of one digit only (with splitting
/// digits of both parities, a + b = n - k has the parity of n - k, and a code's values can
/// follow the positions' parity), or only by the pairs of one stretch of a (the near pass's
/// pairs reading its own block). A run that cannot attain it would be swept to its end,
/// about m/2 pairs, before the run that attains it in a few hundred is reached (the cause of
/// `octal-block`'s slowness on .354 and .644, results/octal/block-several-splits.md). Taking
/// turns bounds that waste by the turn times the runs. With one run it is one [`sweep`].
///
/// Cost: the pairs swept, plus two binary searches of the sweep list per turn.
#[inline]
pub(super) fn sweep_runs<V: Values + ?Sized>(
    g: &V,
    runs: &mut [Run],
    (row, common, c, met): Goal,
    sweepers: &[Pos],
    list_end: usize,
) -> bool {
    loop {
        if rare_below_met(row, common, c, met) {
            return true;
        }
        let open = runs.iter().filter(|r| r.next <= r.top).count();
        if open == 0 {
            return false;
        }
        for run in runs.iter_mut().filter(|r| r.next <= r.top) {
            let end = if open == 1 {
                run.top
            } else {
                (run.next + SWEEP_TURN - 1).min(run.top)
            };
            let stop = sweep(
                g,
                run.m,
                run.next,
                end,
                (&mut *row, common, c, &mut *met),
                sweepers,
                list_end,
            );
            // sweep stops before `end` only once every rare value below c is marked (its
            // return past `end` may overshoot it: clamped, so no pair is skipped)
            run.next = stop.min(end + 1);
            if stop <= end {
                return true;
            }
        }
    }
}
