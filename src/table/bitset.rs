//! `bitset`: the mex as the lowest zero bit of a mask of option values, 64 positions a block.
//!
//! Algorithm: positions are processed in blocks of [`LANES`] consecutive n. Each position of
//! the block owns a mask of `words` 64-bit words; bit v of n's mask is set when some option
//! of n has value v. For every move s >= `LANES`, all options n - s of the block lie in
//! finished blocks, so the move contributes one contiguous read `g[n0 - s .. n0 - s + 64]`
//! OR-ed lane by lane into the masks (this is the dominant work and has no order
//! dependence). The moves s < `LANES` are then applied position by position in increasing n,
//! and g(n) is the lowest zero bit of n's mask.
//!
//! Cost: S(N) option steps, each one shift-and-OR into a mask, plus `words` word scans per
//! position for the mex. The mask widens as values grow (the max is 74 at N = 10^5, 168 at
//! 10^6, 376 at 10^7): `words` starts at max/64 + 1 for the values finished so far.
//!
//! Invariant: every option value read is below 64·`words`. Options in finished blocks are
//! at most the running max, which the width covers; a mex computed inside the block can
//! only be unrepresentable if the whole mask is full, and then the block is redone one word
//! wider.

use super::bits::{lowest_zero_bit, split_moves};
use super::TableBuilder;
use crate::moves::Moves;

/// Positions per block.
pub const LANES: usize = 64;

/// Lane-blocked bitset mex. See the module documentation.
pub struct Bitset;

impl TableBuilder for Bitset {
    fn fill(&self, moves: &Moves, g: &mut [u16], from: usize, max_before: u16) {
        let limit = g.len().saturating_sub(1);
        let moves = moves.up_to(limit);
        let (near, far) = split_moves(&moves, LANES);
        let mut max_so_far = max_before as usize;
        let mut masks: Vec<u64> = Vec::new();
        let mut n0 = from;
        while n0 < g.len() {
            let len = LANES.min(g.len() - n0);
            let mut words = max_so_far / 64 + 1;
            loop {
                match fill_block(g, &mut masks, n0, len, words, near, far) {
                    Some(block_max) => {
                        max_so_far = max_so_far.max(block_max);
                        break;
                    }
                    None => words += 1,
                }
            }
            n0 += len;
        }
    }

    fn scratch_bytes(&self, moves: &Moves, limit: usize, _threads: usize) -> u64 {
        // The move list, and a block's masks wide enough for every value (at most #moves).
        let m = moves.up_to(limit).len() as u64;
        8 * m + LANES as u64 * 8 * (m / 64 + 2)
    }
}

/// Computes g over `[n0, n0 + len)`, returning the block's max, or `None` when a mex did not
/// fit `words` words (the caller retries wider).
fn fill_block(
    g: &mut [u16],
    masks: &mut Vec<u64>,
    n0: usize,
    len: usize,
    words: usize,
    near: &[usize],
    far: &[usize],
) -> Option<usize> {
    masks.clear();
    masks.resize(LANES * words, 0);
    // Moves that reach only finished blocks: contiguous reads, any order.
    for &s in far {
        let n_end = n0 + len;
        if s >= n_end {
            break;
        }
        let first_lane = s.saturating_sub(n0);
        let src = &g[n0 + first_lane - s..n_end - s];
        for (j, &v) in (first_lane..len).zip(src) {
            let v = v as usize;
            masks[j * words + (v >> 6)] |= 1u64 << (v & 63);
        }
    }
    // Moves that may reach inside the block: in order of n.
    let mut block_max = 0usize;
    for j in 0..len {
        let n = n0 + j;
        let mask = &mut masks[j * words..(j + 1) * words];
        for &s in near.iter().take_while(|&&s| s <= n) {
            let v = g[n - s] as usize;
            mask[v >> 6] |= 1u64 << (v & 63);
        }
        let mex = lowest_zero_bit(mask)?;
        g[n] = mex as u16;
        block_max = block_max.max(mex);
    }
    Some(block_max)
}
