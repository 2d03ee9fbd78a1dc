//! `bitset`: the mex as the lowest zero bit of a mask of option values, 64 positions a block.
//!
//! Algorithm: positions are processed in blocks of [`LANES`] = 64 consecutive n. Each position of
//! the block owns a mask of `words` 64-bit words; bit v of n's mask is set when some option
//! of n has value v. For every move s >= `LANES`, all options n - s of the block lie in
//! finished blocks, so the move contributes one contiguous read `g[n0 - s .. n0 - s + 64]`
//! OR-ed lane by lane into the masks (this is the dominant work and has no order
//! dependence). The moves s < `LANES` are then applied position by position in increasing n,
//! and g(n) is the lowest zero bit of n's mask.
//!
//! Cost: S(N) option steps, each one shift-and-OR into a mask, plus `words` word scans per
//! position for the mex. The mask widens as values grow (for the squares the max is 74 at
//! N = 10^5, 168 at 10^6, 376 at 10^7): `words` starts at max/64 + 1 for the values
//! finished so far.
//!
//! Invariant: every option value read is below 64·`words`. Options in finished blocks are
//! at most the running max, which the width covers; a mex computed inside the block can
//! only be unrepresentable if the whole mask is full, and then the block is redone one word
//! wider.
//!
//! Paths (`--isa`, read once per `fill`): the far-move OR and the mex scan are the two
//! mask kernels ([`MaskKernel`], [`crate::kernels::masks`]): `portable` is the u64 code
//! above, `scalar` its twin, `avx2` and `avx512` vector versions. The block loop is handed
//! to [`masks::dispatch`] as a visitor (`Fill`), so it is monomorphised per path and
//! compiled with the path's target features, and nothing in the inner loops dispatches.
//!
//! Its cost model has no store primitive: the OR into a mask word is priced as a word op
//! (`or_scan_word`), so the writes Callgrind counts (the mask words and the table) stand
//! beside a prediction of zero stores.

use super::{fill_from_prefix_max, mask_mex_demand};
use crate::base::error::Result;
use crate::base::isa::{self, Isa};
use crate::base::moves::Moves;
use crate::cost::Model;
use crate::grundy::{Builder, Kept};
use crate::kernels::masks::{self, MaskKernel, WithMasks, LANES};
use crate::kernels::{split_moves, Family};
use crate::registry::{Entry, Role};

/// The registry entry of `bitset`.
pub const ENTRY: Entry<dyn Builder<Moves>> = Entry {
    name: "bitset",
    description: "OR option values into a bit mask per position, 64 positions per block; mex = lowest zero bit",
    cost: "O(S(N) * ceil(G/64)) word ops",
    role: Role::Fast,
    model: Model {
        summary: "per option step 1 shift-and-OR into a mask word and 1/32 span load; per position ceil(G/64) words cleared and g(n)/64+1 words scanned for the mex",
        parallel: false,
        demand: mask_mex_demand,
    },
    kernels: &[Family::Masks],
    make: || Box::new(Bitset),
};

/// Lane-blocked bitset mex. See the module documentation.
pub struct Bitset;

impl Builder<Moves> for Bitset {
    fn fill(&self, moves: &Moves, g: &mut [u16], from: usize) -> Result<()> {
        self.fill_kept(moves, g, from, &mut None)
    }

    fn fill_kept(&self, moves: &Moves, g: &mut [u16], from: usize, kept: &mut Kept) -> Result<()> {
        fill_from_prefix_max(moves, g, from, kept, |moves, g, max| {
            fill_on(isa::active(), moves, g, from, max)
        })
    }

    fn scratch_bytes(&self, moves: &Moves, limit: usize, _threads: usize) -> u64 {
        // The move list, and a block's masks wide enough for every value (at most #moves).
        let m = moves.up_to(limit).len() as u64;
        8 * m + LANES as u64 * 8 * (m / 64 + 2)
    }
}

/// The running max below which the AVX-512 path runs the AVX2 kernels: while every mask is
/// one word the AVX2 block loop is the faster, from two words on (N ~ 6·10^4 for the
/// squares) the AVX-512 one (results/scaling/big-n.md, target 4).
pub const AVX2_BELOW_MAX: usize = 64;

/// `fill` on the path `isa` with the moves up to N (`moves`, ascending). `isa` must be
/// supported by this CPU ([`isa::force`] guarantees it for [`isa::active`]). The AVX-512
/// path starts on the AVX2 kernels while the running max is below [`AVX2_BELOW_MAX`].
fn fill_on(isa: Isa, moves: &[usize], g: &mut [u16], from: usize, max_before: usize) {
    let (mut from, mut max_before) = (from, max_before);
    if isa == Isa::Avx512 {
        (from, max_before) = masks::dispatch(
            Isa::Avx2,
            Fill {
                moves,
                g: &mut *g,
                from,
                max_before,
                until: AVX2_BELOW_MAX,
            },
        );
    }
    let until = usize::MAX;
    masks::dispatch(
        isa,
        Fill {
            moves,
            g,
            from,
            max_before,
            until,
        },
    );
}

/// The block loop as a visitor of [`masks::dispatch`]: fills blocks of `g` from `from`
/// (values before it final, largest `max_before`) while the running max is below `until`;
/// returns where it stopped and the running max.
struct Fill<'a> {
    moves: &'a [usize],
    g: &'a mut [u16],
    from: usize,
    max_before: usize,
    until: usize,
}

impl WithMasks for Fill<'_> {
    type Out = (usize, usize);

    #[inline(always)]
    fn run<K: MaskKernel>(self) -> (usize, usize) {
        fill_with::<K>(self.moves, self.g, self.from, self.max_before, self.until)
    }
}

/// The block loop, generic over the path's kernels; inlined into each path's wrapper so it
/// is compiled with that path's target features. Fills blocks from `from` while the running
/// max is below `until`; returns where it stopped and the running max.
#[inline(always)]
fn fill_with<K: MaskKernel>(
    moves: &[usize],
    g: &mut [u16],
    from: usize,
    max_before: usize,
    until: usize,
) -> (usize, usize) {
    let (near, far) = split_moves(moves, LANES);
    let mut max_so_far = max_before;
    let mut masks: Vec<u64> = Vec::new();
    let mut n0 = from;
    while n0 < g.len() && max_so_far < until {
        let len = LANES.min(g.len() - n0);
        let mut words = max_so_far / 64 + 1;
        loop {
            match fill_block::<K>(g, &mut masks, n0, len, words, near, far) {
                Some(block_max) => {
                    max_so_far = max_so_far.max(block_max);
                    break;
                }
                None => {
                    // A mex is at most the number of moves, at most 65535, so 1024 words
                    // hold it: a mex that does not fit them is a bug that would widen
                    // here forever. Fail instead (only when a block widens, which is rare).
                    assert!(
                        words < 1024,
                        "bitset: no mex fits {words} mask words at n = {n0}"
                    );
                    words += 1
                }
            }
        }
        n0 += len;
    }
    (n0, max_so_far)
}

/// Computes g over `[n0, n0 + len)`, returning the block's max, or `None` when a mex did not
/// fit `words` words (the caller retries wider).
#[inline(always)]
fn fill_block<K: MaskKernel>(
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
    K::far_or(g, masks, n0, len, words, far);
    // Moves that may reach inside the block: in order of n.
    let mut block_max = 0usize;
    for j in 0..len {
        let n = n0 + j;
        let mask = &mut masks[j * words..(j + 1) * words];
        for &s in near.iter().take_while(|&&s| s <= n) {
            let v = g[n - s] as usize;
            mask[v >> 6] |= 1u64 << (v & 63);
        }
        let mex = K::mex(mask)?;
        g[n] = mex as u16;
        block_max = block_max.max(mex);
    }
    Some(block_max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::for_each_path_against_scalar;

    #[test]
    fn every_path_builds_the_same_table_as_the_scalar_twin() {
        let _guard = isa::TEST_LOCK.lock().unwrap_or_else(|p| p.into_inner());
        // {1..=150} drives the mask from 1 to 3 words mid-run (g(n) = n mod 151).
        for moves in [Moves::Squares, Moves::list((1..=150).collect()).unwrap()] {
            let want = for_each_path_against_scalar(&format!("{moves:?}"), |path| {
                isa::with(path, || Bitset.build(&moves, 3000).unwrap()).unwrap()
            });
            assert!(want.max_value() >= 10);
            // The AVX-512 path starts on the AVX2 kernels (below AVX2_BELOW_MAX) and hands
            // over mid-run; its own kernels from position 0 give the same table.
            if Isa::Avx512.supported() {
                let listed = moves.up_to(3000);
                let mut g = vec![0u16; 3001];
                let (end, max) = masks::dispatch(
                    Isa::Avx512,
                    Fill {
                        moves: &listed,
                        g: &mut g,
                        from: 0,
                        max_before: 0,
                        until: usize::MAX,
                    },
                );
                assert_eq!((end, max), (3001, want.max_value() as usize));
                assert_eq!(g, want.values(), "avx512 from 0 on {moves:?}");
            }
        }
    }

    #[test]
    fn fill_stops_at_the_first_block_whose_max_reaches_until() {
        let moves = Moves::Squares.up_to(5000);
        // The reference back-end, `stamped`, shares no kernel with this one.
        let want = crate::table::build("stamped", &Moves::Squares, 5000)
            .unwrap()
            .values()
            .to_vec();
        let mut g = vec![0u16; 5001];
        let (n0, max) = fill_with::<masks::Portable>(&moves, &mut g, 0, 0, 20);
        // It stopped at a block boundary, right after the block that reached 20 ...
        assert!(n0 % LANES == 0 && max >= 20, "{n0} {max}");
        let before: u16 = *want[..n0 - LANES].iter().max().unwrap();
        assert!((before as usize) < 20 && *want[..n0].iter().max().unwrap() as usize == max);
        assert_eq!(g[..n0], want[..n0]);
        // ... and continuing from there finishes the same table.
        fill_with::<masks::Portable>(&moves, &mut g, n0, max, usize::MAX);
        assert_eq!(g, want);
    }
}
