//! `stamped-lanes`: the stamped mex, run L = 32 positions at a time with one `seen`
//! byte array per position, so every option step is one load and one byte store.
//!
//! Algorithm: positions are processed in lane blocks of L consecutive n (see
//! [`crate::kernels::lanes`]). Each position of the block owns a `seen` array of G bytes (G a power of
//! two); recording an option of value v writes the block's stamp into `seen[v]`. For every
//! move s >= L, the options n - s of the whole block lie in finished blocks, so the move is
//! one contiguous read `g[n0 - s .. n0 - s + L]` scattered into the L arrays (the dominant
//! work, no order dependence, no read-modify-write, no shifts), with the span of the move
//! 16 moves ahead prefetched. The moves s < L are then applied position by position in
//! increasing n, and g(n) is the first unstamped byte of n's array (found 8, 32 or 64 bytes
//! a step on the portable, AVX2 or AVX-512 path, see [`crate::kernels::lanes`]). While every value is
//! below [`SCALAR_BELOW_MAX`] the loop runs on the scalar path whatever `--isa` says: the mex
//! is then a few bytes in, and the byte walk is cheaper than a wide compare (and than the
//! AVX-compiled loop around it).
//!
//! Cost: S(N) option steps of one 2-byte load and one 1-byte store each, plus about
//! g(n)/8 word compares per position for the mex; memory O(N) for the table and L·G bytes
//! of scratch (16 KiB at N = 10^7, where G = 512, so it stays in L1 beside the streamed
//! table reads; 64 lanes, 32 KiB, would not).
//!
//! Invariant: every value written is below G. All options of a block have values at most the
//! running max m, and a mex is at most one more than its largest option, so the L new values
//! are at most m + L; the stride is the smallest power of two above m + L, and is doubled
//! (the block loop re-dispatched) as soon as the running max makes that false.

use super::{fill_from_prefix_max, table_io};
use crate::base::error::Result;
use crate::base::isa::{self, Isa};
use crate::base::moves::Moves;
use crate::cost::{Model, Primitive};
use crate::grundy::{Builder, Kept};
use crate::kernels::lanes::{
    self, lane_scratch_bytes, with_stride, LaneKernel, SeenLanes, WithLanes, LANES,
};
use crate::kernels::{split_moves, Family};
use crate::registry::{Entry, Role};

/// The registry entry of `stamped-lanes`.
pub const ENTRY: Entry<dyn Builder<Moves>> = Entry {
    name: "stamped-lanes",
    description: "stamped mex 32 positions at a time, one byte array each: a load and a byte store per option",
    cost: "O(S(N)) byte stores, 32*G bytes of scratch",
    role: Role::Fast,
    model: Model {
        summary: "per option step 1 byte store into a lane's stamp array and 1/32 span load; per position g(n)/8+1 word compares for the mex",
        parallel: false,
        demand: |w| {
            table_io(w)
                .with(Primitive::Scatter, w.steps)
                .with(Primitive::Span, w.steps / 32.0)
                .with(Primitive::OrScan, w.positions() * (w.mean_value / 8.0 + 1.0))
        },
    },
    kernels: &[Family::Lanes],
    make: || Box::new(StampedLanes),
};

/// Lane-blocked stamped mex. See the module documentation.
pub struct StampedLanes;

impl Builder<Moves> for StampedLanes {
    fn fill(&self, moves: &Moves, g: &mut [u16], from: usize) -> Result<()> {
        self.fill_kept(moves, g, from, &mut None)
    }

    fn fill_kept(&self, moves: &Moves, g: &mut [u16], from: usize, kept: &mut Kept) -> Result<()> {
        fill_from_prefix_max(moves, g, from, kept, |moves, g, max| {
            fill_on(isa::active(), SCALAR_BELOW_MAX, moves, g, from, max)
        })
    }

    fn scratch_bytes(&self, moves: &Moves, limit: usize, _threads: usize) -> u64 {
        8 * moves.up_to(limit).len() as u64 + lane_scratch_bytes(moves, limit)
    }
}

/// The running max below which the block loop takes the scalar path on every `--isa`: the
/// measured crossover (N ~ 1.2·10^4 for the squares; results/scaling/big-n.md, target 4), below
/// which the scalar loop beats the AVX-512 one and above which it loses.
pub const SCALAR_BELOW_MAX: usize = 36;

/// Fills `g` from `from` (values before it final, largest `max`) with the moves up to N
/// (`moves`, ascending): on the scalar path while the running max is below `scalar_below`,
/// then on `path`, re-dispatching on the stride as the max grows.
fn fill_on(
    path: Isa,
    scalar_below: usize,
    moves: &[usize],
    g: &mut [u16],
    from: usize,
    mut max: usize,
) {
    let (near, far) = split_moves(moves, LANES);
    let mut n0 = from;
    while n0 < g.len() {
        let stride = lanes::block_stride(max);
        let (path, until) = if max < scalar_below {
            (Isa::Scalar, scalar_below)
        } else {
            (path, usize::MAX)
        };
        let (next, next_max) = with_stride!(stride, G => {
            let blocks = Blocks::<G> { g: &mut *g, n0, max, until, near, far };
            lanes::dispatch(path, blocks)
        });
        // A stride above max + L always runs at least one block, so a run without progress
        // is a bug (a stride too small for the values) that would loop here forever: fail
        // instead. One compare per stride change, outside the block loop.
        assert!(
            next > n0,
            "stamped-lanes made no progress at n = {n0}: lane stride {stride} for a max of {max}"
        );
        (n0, max) = (next, next_max);
    }
}

/// The block loop with stride `G` as a visitor of [`lanes::dispatch`] (the path read once
/// per fill): on the AVX paths the whole block loop is compiled with those features, so the
/// per-position mex scan inlines into it instead of being a call.
struct Blocks<'a, const G: usize> {
    g: &'a mut [u16],
    n0: usize,
    max: usize,
    until: usize,
    near: &'a [usize],
    far: &'a [usize],
}

impl<const G: usize> WithLanes for Blocks<'_, G> {
    type Out = (usize, usize);

    #[inline(always)]
    fn run<K: LaneKernel>(self) -> (usize, usize) {
        run::<G, K>(self.g, self.n0, self.max, self.until, self.near, self.far)
    }
}

/// Fills lane blocks from `n0` with the lane kernels `K`, while the stride `G` still holds
/// every value a block can produce and the running max is below `until`; returns the next
/// block start and the running max.
#[inline(always)]
fn run<const G: usize, K: LaneKernel>(
    g: &mut [u16],
    mut n0: usize,
    mut max: usize,
    until: usize,
    near: &[usize],
    far: &[usize],
) -> (usize, usize) {
    let limit = g.len() - 1;
    let mut seen = SeenLanes::<G, K>::new();
    while n0 <= limit && max + LANES < G && max < until {
        let len = LANES.min(limit + 1 - n0);
        seen.next_block();
        // Every far move s >= L reads below n0 for all L lanes (lanes past the limit read
        // finished values too and are simply not used).
        seen.stamp_moves(g, n0, far);
        for j in 0..len {
            let n = n0 + j;
            seen.stamp_position(g, n, j, near);
            let mex = seen.mex(j);
            g[n] = mex as u16;
            max = max.max(mex);
        }
        n0 += len;
    }
    (n0, max)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The block loop from position 0 with the mex scan of `path` throughout (no scalar
    /// start), so the vector scans run at the small N the tests afford.
    fn from_zero_on(path: Isa, moves: &Moves, limit: usize) -> Vec<u16> {
        let mut g = vec![0u16; limit + 1];
        fill_on(path, 0, &moves.up_to(limit), &mut g, 0, 0);
        g
    }

    #[test]
    fn every_path_from_zero_and_the_scalar_start_build_the_reference_table() {
        // {1..=150}: g(n) = n mod 151, so the running max crosses SCALAR_BELOW_MAX early and
        // the stride doubles twice.
        // For the squares the max is 42 at 2·10^4.
        let cases = [
            (Moves::Squares, 20_000),
            (Moves::list((1..=150).collect()).unwrap(), 3000),
        ];
        for (moves, limit) in cases {
            let want = crate::table::build("stamped", &moves, limit as u64).unwrap();
            assert!(want.max_value() as usize >= SCALAR_BELOW_MAX, "{moves:?}");
            for path in Isa::supported_all() {
                assert_eq!(
                    from_zero_on(path, &moves, limit),
                    want.values(),
                    "{path} on {moves:?}"
                );
            }
            assert_eq!(
                StampedLanes.build(&moves, limit).unwrap(),
                want,
                "{moves:?}"
            );
        }
    }

    /// The stride's limit, at its edge: with the running max at G − L a block could end on
    /// the value G, which a stride of G bytes per lane cannot hold, so `run` must hand back
    /// before it (for a new stride); one less, and the block runs. Here the prefix is
    /// 0, 1, …, m and the moves are 1..=64, so every position sees all values before it and
    /// the block would write m + 1, …, m + 32 (the last one G when m = G − L).
    #[test]
    fn the_block_loop_hands_back_before_a_block_could_write_the_stride() {
        const G: usize = 64;
        let moves: Vec<usize> = (1..=64).collect();
        let (near, far) = split_moves(&moves, LANES);
        for m in [G - LANES - 1, G - LANES] {
            let mut g: Vec<u16> = (0..=m as u16).collect();
            g.resize(m + 1 + 2 * LANES, 0);
            let n0 = m + 1;
            let (next, max) = run::<G, lanes::Portable>(&mut g, n0, m, usize::MAX, near, far);
            if m + LANES < G {
                assert_eq!((next, max), (n0 + LANES, m + LANES), "max {m}: one block");
                let want: Vec<u16> = (0..(n0 + LANES) as u16).collect();
                assert_eq!(&g[..n0 + LANES], &want[..], "max {m}");
            } else {
                assert_eq!((next, max), (n0, m), "max {m}: no block under stride {G}");
                assert!(g[n0..].iter().all(|&v| v == 0), "max {m}: nothing written");
            }
        }
    }

    /// The scalar start's end: `run` hands back (for the vector path) as soon as the running
    /// max reaches `until`, and runs while it is below. Same prefix and moves as above.
    #[test]
    fn the_block_loop_hands_back_when_the_running_max_reaches_until() {
        const G: usize = 128;
        let moves: Vec<usize> = (1..=64).collect();
        let (near, far) = split_moves(&moves, LANES);
        let m = 20;
        for until in [m, m + 1] {
            let mut g: Vec<u16> = (0..=m as u16).collect();
            g.resize(m + 1 + 2 * LANES, 0);
            let n0 = m + 1;
            let got = run::<G, lanes::Scalar>(&mut g, n0, m, until, near, far);
            // Below `until` one block runs and lifts the max to m + L, past `until`.
            let want = if until > m {
                (n0 + LANES, m + LANES)
            } else {
                (n0, m)
            };
            assert_eq!(got, want, "until {until}");
        }
    }
}
