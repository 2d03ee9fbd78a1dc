//! The fill: the blocks pipelined (the near pass of one block beside the far pass of the
//! next), the mask chosen at the end of the prefix and at each doubling, and the candidate
//! search wherever no mask fits (see [`super`]'s module doc).

use super::far::{FarGroups, Rows};
use super::near::{near_block, Pending};
use super::row::row_width;
use super::split::Split;
use super::{OctalBlock, Rules, State, LANES, MAX_WIDTH, SPARSE_FRACTION};
use crate::base::error::Result;
use crate::kernels::spin_pool::SpinPool;

impl OctalBlock {
    /// Fills g[from..], `candidates(g, from)` filling a prefix slice by the candidate search.
    ///
    /// The blocks are pipelined: the near pass of a block runs beside the far pass of the
    /// next (`pool.join`), which reads only what was final when the first began, g[..n0]
    /// of the first block, and the rare and sweep lists as they stood then. A change of
    /// mask (at the end of the prefix and at each doubling) or of row width (a value that
    /// reached the width) first drains the pipeline.
    #[inline(always)]
    pub(super) fn fill_with(
        &self,
        rules: &Rules,
        g: &mut [u16],
        from: usize,
        kept: Option<State>,
        candidates: impl Fn(&mut [u16], usize) -> Result<()>,
        pool: &SpinPool,
    ) -> Result<State> {
        let len = g.len();
        // the first position not yet in a far pass
        let mut n = from;
        let State {
            mut split,
            mut max_known,
            mut next_choice,
        } = kept.unwrap_or_else(|| {
            let mut split = Split::new();
            for (n, &v) in g[..from].iter().enumerate() {
                split.record(n, v);
            }
            State {
                split,
                max_known: g[..from].iter().copied().max().unwrap_or(0) as usize,
                // The next n at which the mask is (re)chosen: the end of the prefix, then
                // each doubling; a fill resumed past the prefix without what the last chunk
                // kept chooses at once, from the finished values.
                next_choice: self.prefix.max(1).max(from),
            }
        });
        let mut rows = [Rows::default(), Rows::default()];
        let mut pending: Option<Pending> = None;
        loop {
            let Some(p) = pending.take() else {
                if n >= len {
                    break;
                }
                if n >= next_choice {
                    self.choose_mask(rules, &mut split, &g[..n]);
                    split.check_positions()?;
                    next_choice = 2 * n;
                }
                let width = row_width(max_known);
                if width > MAX_WIDTH && split.mask.splits() {
                    split.drop_mask();
                }
                if !split.mask.splits() || width > MAX_WIDTH {
                    // No sparse split (or values too large for a byte row): the candidate
                    // search up to the next choice.
                    let end = next_choice.min(len).max(n + 1);
                    candidates(&mut g[..end], n)?;
                    for (m, &v) in g.iter().enumerate().take(end).skip(n) {
                        split.record(m, v);
                        max_known = max_known.max(v as usize);
                    }
                    split.check_positions()?;
                    n = end;
                    continue;
                }
                let end = (n + self.block).min(len).min(next_choice.max(n + 1));
                let groups = FarGroups::new(rules, &split, &g[..n], n, end, width, &mut rows[0]);
                pool.join(|| groups.work(), || groups.work());
                drop(groups);
                pending = Some(Pending {
                    n0: n,
                    end,
                    known: n,
                    first_new_rare: split.rare.len(),
                    width,
                });
                n = end;
                continue;
            };
            // The near pass of p, and beside it the far pass of the next block when one may
            // start now (same mask, inside the table).
            let next_end = (p.end + self.block)
                .min(len)
                .min(next_choice.max(p.end + 1));
            // (on one thread the far pass waits for the near one and reads one block more)
            let overlap = p.end < len && p.end < next_choice && pool.workers() > 0;
            let [mine, theirs] = &mut rows;
            let (head, rest) = g.split_at_mut(p.n0);
            let block = &mut rest[..p.end - p.n0];
            let first_new_rare = split.rare.len();
            let (done, next) = if overlap {
                let head: &[u16] = head;
                let groups = FarGroups::new(rules, &split, head, p.end, next_end, p.width, theirs);
                let done = pool.join(
                    || {
                        let done = near_block(rules, &split, head, block, p, mine);
                        groups.work();
                        done
                    },
                    || groups.work(),
                );
                drop(groups);
                let next = Pending {
                    n0: p.end,
                    end: next_end,
                    known: p.n0,
                    first_new_rare,
                    width: p.width,
                };
                (done, Some(next))
            } else {
                (near_block(rules, &split, head, block, p, mine), None)
            };
            for (m, &v) in g.iter().enumerate().take(done).skip(p.n0) {
                split.record(m, v);
                max_known = max_known.max(v as usize);
            }
            split.check_positions()?;
            if !self.always_mask && split.rare.len() * SPARSE_FRACTION > split.recorded {
                // the rare positions outgrew the sparse share: choose again once the
                // pipeline has drained (its far pass is at most one block ahead), which
                // bounds the rare list by the share and two blocks
                next_choice = next_choice.min(p.end);
            }
            if done < p.end || max_known >= p.width {
                // a value reached the row width (the block's last heap, too): the next
                // block's far pass, made for that width, is void
                pending = None;
                n = done;
            } else {
                pending = next;
                n = if next.is_some() { next_end } else { p.end };
                rows.swap(0, 1);
            }
        }
        Ok(State {
            split,
            max_known,
            next_choice,
        })
    }

    /// Takes the best mask of the kinds `rules` admits ([`Histogram::best_mask`]) when it
    /// leaves the positions sparse (or always, with `always_mask`) and fewer rare than the
    /// current one, and the values fit a row; drops the one in use when none does: the rare
    /// list then never holds more than the sparse share of the positions and two blocks, and
    /// never beside the candidate search's mirror (see `scratch_bytes`).
    ///
    /// [`Histogram::best_mask`]: crate::octal::method::rare_common::Histogram::best_mask
    pub(super) fn choose_mask(&self, rules: &Rules, split: &mut Split, g: &[u16]) {
        // the largest value from the histogram when it counts all of g (the fill's case: a
        // scan would read the whole table, which a window-mode run keeps on disk)
        let top = if split.recorded == g.len() {
            split.histogram.values().saturating_sub(1)
        } else {
            g.iter().copied().max().unwrap_or(0) as usize
        };
        if row_width(top) > MAX_WIDTH {
            // values too large for a byte row: the candidate search from here on
            split.drop_mask();
            return;
        }
        let (best, count) = split.histogram.best_mask(rules.split_parity());
        let positions = g.len().saturating_sub(1);
        let sparse = self.always_mask || count * SPARSE_FRACTION <= positions;
        if sparse && (!split.mask.splits() || count < split.histogram.rare_count(split.mask)) {
            split.take_mask(best, g);
        } else if !sparse && split.mask.splits() {
            // no mask leaves the positions sparse any more: the candidate search from here
            // on, and the lists' memory given back (see `scratch_bytes`)
            split.drop_mask();
        }
        if split.mask.splits() {
            // the far pass reads the splits (a, m - a) with m - a below the block before its
            // own: a past two blocks and a group
            split.list_witnesses(2 * self.block + 2 * LANES);
        }
    }
}
