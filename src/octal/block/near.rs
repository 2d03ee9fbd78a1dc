//! The near pass (step 2 of [`super`]'s module doc): the heaps of a block in order, each
//! marking the options its far pass left out and settling its mex.

use super::far::{Left, Rows};
use super::mark::{mark_rare_pairs, Values, View};
use super::row::{least_common_missing, rare_below_met};
use super::split::{Pos, Split};
use super::stores::{self, Kind};
use super::sweep::{sweep_runs, Run};
use super::Rules;

/// A block whose far pass is done and whose near pass is not: heaps n0..end, its far pass
/// having read g[..known] and the rare list's first `first_new_rare` entries (those below
/// `known`), its rows `width` bytes wide.
#[derive(Debug, Clone, Copy)]
pub(super) struct Pending {
    pub(super) n0: usize,
    pub(super) end: usize,
    pub(super) known: usize,
    pub(super) first_new_rare: usize,
    pub(super) width: usize,
}

/// The near pass of block `p` in order, writing its values into `block` = g[p.n0..p.end]
/// (`head` = g[..p.n0] final). Returns the first heap not decided: `p.end`, or earlier when
/// a value reached the row width.
pub(super) fn near_block(
    rules: &Rules,
    split: &Split,
    head: &[u16],
    block: &mut [u16],
    p: Pending,
    rows: &mut Rows,
) -> usize {
    debug_assert!(p.known <= p.n0 && head.len() == p.n0);
    let width = p.width;
    let digits = rules.split().len().max(1);
    // the rare positions from p.known on: those merged since the far pass, then this block's
    let mut new_rare: Vec<Pos> = split.rare[p.first_new_rare..].to_vec();
    let old = &split.rare[..p.first_new_rare];
    let mut runs = Vec::new();
    for i in 0..p.end - p.n0 {
        let n = p.n0 + i;
        let view = View {
            head,
            tail: &block[..i],
        };
        let v = near(
            rules,
            &view,
            n,
            &mut rows.bytes[i * width..(i + 1) * width],
            &rows.left[i * digits..(i + 1) * digits],
            split,
            (old, &new_rare),
            &mut runs,
        );
        block[i] = v;
        if split.mask.rare(v as u32, n) {
            // a position past u32::MAX is left out: the fill stops with an error after this
            // block ([`Split::check_positions`]), so what it changes is never reported
            if let Ok(at) = u32::try_from(n) {
                new_rare.push(Pos {
                    at,
                    value: v as u32,
                });
            }
        }
        if v as usize >= width {
            return n + 1;
        }
    }
    p.end
}

/// The near pass of heap n (g[..n] final in `g`): marks the options the far pass left out
/// (see [`Left`]): the rare entries `old` outside the far pass's share, every one of `new`
/// (the rare positions from the far pass's `known` on), then settles the mex (see the
/// module doc). `runs` is scratch.
#[allow(clippy::too_many_arguments)]
fn near<V: Values + ?Sized>(
    rules: &Rules,
    g: &V,
    n: usize,
    row: &mut [u8],
    left: &[Left],
    split: &Split,
    (old, new): (&[Pos], &[Pos]),
    runs: &mut Vec<Run>,
) -> u16 {
    stores::add(Kind::Heaps, 1);
    let wmask = row.len() - 1;
    let unequal = rules.unequal();
    // The options of [`Rules::each_option`], split between the far pass and this one by
    // what they read (the split loops keep per-digit state, so they walk every digit); the
    // tests hold the tables against the control's.
    if rules.removes_whole(n) {
        row[0] = 1;
    }
    for h in rules.one_heap_left(n) {
        row[g.at(h) as usize & wmask] = 1;
    }
    for (d, &k) in rules.split().iter().enumerate() {
        if n < k + 2 {
            continue;
        }
        let m = n - k;
        let l = left[d];
        mark_rare_pairs(row, g, m, &old[..l.rare_lo], unequal);
        mark_rare_pairs(row, g, m, &old[l.rare_hi..], unequal);
        mark_rare_pairs(row, g, m, new, unequal);
    }
    let common = &split.common[n & 1][..row.len()];
    let c = least_common_missing(row, common);
    let mut met = 0;
    if !rare_below_met(row, common, c, &mut met) {
        // The pairs the far pass did not sweep, per digit the first ones (which read the
        // block, at most two blocks of them) and those from where it stopped, every run
        // taking turns: the value the far pass could not find is often among the first
        // pairs, or another digit's, and a run swept to its end first costs m/2 pairs (the
        // sweep list stands for the positions below the far pass's known prefix at least).
        runs.clear();
        for (d, m, p) in rules.splits_by_digit(n) {
            let l = left[d];
            runs.push(Run {
                m,
                next: 1,
                top: l.near_top.min(p),
            });
            runs.push(Run {
                m,
                next: l.swept.max(1),
                top: p,
            });
        }
        sweep_runs(
            g,
            runs,
            (row, common, c, &mut met),
            &split.sweepers,
            split.list_end(),
        );
    }
    // the least unmarked value (c when every rare value below it is marked)
    row[..c].iter().position(|&b| b == 0).unwrap_or(c) as u16
}
