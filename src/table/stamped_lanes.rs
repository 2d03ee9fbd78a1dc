//! `stamped-lanes`: the stamped mex, run L = 32 positions at a time with one `seen`
//! byte array per position, so every option step is one load and one byte store.
//!
//! Algorithm: positions are processed in lane blocks of L consecutive n (see
//! [`super::lanes`]). Each position of the block owns a `seen` array of G bytes (G a power of
//! two); recording an option of value v writes the block's stamp into `seen[v]`. For every
//! move s >= L, the options n - s of the whole block lie in finished blocks, so the move is
//! one contiguous read `g[n0 - s .. n0 - s + L]` scattered into the L arrays (the dominant
//! work, no order dependence, no read-modify-write, no shifts), with the span of the move
//! 16 moves ahead prefetched. The moves s < L are then applied position by position in
//! increasing n, and g(n) is the first unstamped byte of n's array (found 8, 32 or 64 bytes
//! a step on the portable, AVX2 or AVX-512 path, see [`super::lanes`]). While every value is
//! below [`SCALAR_BELOW_MAX`] the loop runs on the scalar path whatever `--isa` says: the mex
//! is then a few bytes in, and the byte walk is cheaper than a wide compare (and than the
//! AVX-compiled loop around it).
//!
//! Cost: S(N) option steps of one 2-byte load and one 1-byte store each, plus about
//! g(n)/8 word compares per position for the mex; memory O(N) for the table and L·G bytes
//! of scratch (16 KiB at N = 10^7, where G = 512, so it stays in L1 beside the streamed
//! table reads; 64 lanes, 32 KiB, measured slower there).
//!
//! Invariant: every value written is below G. All options of a block have values at most the
//! running max m, and a mex is at most one more than its largest option, so the L new values
//! are at most m + L; the stride is the smallest power of two above m + L, and is doubled
//! (the block loop re-dispatched) as soon as the running max makes that false.

use super::bits::split_moves;
use super::lanes::{lane_scratch_bytes, stride_for, with_stride, SeenLanes, LANES};
use super::TableBuilder;
use crate::base::isa::{self, Isa};
use crate::base::moves::Moves;

/// Lane-blocked stamped mex. See the module documentation.
pub struct StampedLanes;

impl TableBuilder for StampedLanes {
    fn fill(&self, moves: &Moves, g: &mut [u16], from: usize, max_before: u16) {
        let moves = moves.up_to(g.len().saturating_sub(1));
        fill_on(
            isa::active(),
            SCALAR_BELOW_MAX,
            &moves,
            g,
            from,
            max_before as usize,
        );
    }

    fn scratch_bytes(&self, moves: &Moves, limit: usize, _threads: usize) -> u64 {
        8 * moves.up_to(limit).len() as u64 + lane_scratch_bytes(moves, limit)
    }

    /// The mex scan and (stamped-parallel) the bit packing follow `--isa` ([`super::lanes`]).
    fn vector_kernels(&self) -> bool {
        true
    }
}

/// The running max below which the block loop takes the scalar path on every `--isa`: the
/// measured crossover (N ~ 1.2·10^4 for the squares; results/big-n.md, target 4), below
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
        let stride = stride_for(max + LANES);
        let (path, until) = if max < scalar_below {
            (Isa::Scalar, scalar_below)
        } else {
            (path, usize::MAX)
        };
        (n0, max) = with_stride!(stride, G => run_on::<G>(path, g, n0, max, until, near, far));
    }
}

/// [`run`] compiled for the vector path `path` (read once per fill): on the AVX paths the
/// whole block loop is compiled with those features, so the per-position mex scan inlines
/// into it instead of being a call through the dispatch (a call per position measured a few
/// per cent of the run at N = 10^5).
fn run_on<const G: usize>(
    path: Isa,
    g: &mut [u16],
    n0: usize,
    max: usize,
    until: usize,
    near: &[usize],
    far: &[usize],
) -> (usize, usize) {
    match path {
        // SAFETY: `path` is `isa::active()`, which `isa::force` only sets to a path the CPU
        // has, so it has AVX2 and BMI1 ...
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { x86::run_avx2::<G>(g, n0, max, until, near, far) },
        // ... or AVX-512 F/BW with AVX2 and BMI1.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => unsafe { x86::run_avx512::<G>(g, n0, max, until, near, far) },
        _ => run::<G>(path, g, n0, max, until, near, far),
    }
}

/// The block loop compiled with the AVX features, one function per path.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::run;
    use crate::base::isa::Isa;

    /// [`run`] with AVX2 and BMI1 enabled.
    ///
    /// # Safety
    /// The CPU must have AVX2 and BMI1.
    #[target_feature(enable = "avx2,bmi1")]
    pub(super) unsafe fn run_avx2<const G: usize>(
        g: &mut [u16],
        n0: usize,
        max: usize,
        until: usize,
        near: &[usize],
        far: &[usize],
    ) -> (usize, usize) {
        run::<G>(Isa::Avx2, g, n0, max, until, near, far)
    }

    /// [`run`] with AVX-512 F/BW, AVX2 and BMI1 enabled.
    ///
    /// # Safety
    /// The CPU must have AVX-512 F and BW, AVX2 and BMI1.
    #[target_feature(enable = "avx512f,avx512bw,avx2,bmi1")]
    pub(super) unsafe fn run_avx512<const G: usize>(
        g: &mut [u16],
        n0: usize,
        max: usize,
        until: usize,
        near: &[usize],
        far: &[usize],
    ) -> (usize, usize) {
        run::<G>(Isa::Avx512, g, n0, max, until, near, far)
    }
}

/// Fills lane blocks from `n0` with the mex scan of `path`, while the stride `G` still holds
/// every value a block can produce and the running max is below `until`; returns the next
/// block start and the running max.
#[inline(always)]
fn run<const G: usize>(
    path: Isa,
    g: &mut [u16],
    mut n0: usize,
    mut max: usize,
    until: usize,
    near: &[usize],
    far: &[usize],
) -> (usize, usize) {
    let limit = g.len() - 1;
    let mut seen = SeenLanes::<G>::on(path);
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
            assert_eq!(StampedLanes.build(&moves, limit), want, "{moves:?}");
        }
    }
}
