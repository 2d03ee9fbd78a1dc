//! Microbenchmarks of the primitives the back-ends are made of, each returning nanoseconds
//! per op of the whole machine when T copies run at once.
//!
//! Method: a kernel does `reps` repetitions of its step and returns how many ops that was.
//! [`time_ns_per_op`] first doubles `reps` until one timing takes an eighth of the target,
//! scales it to the target (about 50 ms by default, [`Budget`]), then takes the median of a
//! few timings (the fastest, for a round of `roofline`). With T threads the T copies start
//! together behind a barrier, each on its own data (the span copies on one shared table at
//! different offsets, as the threads of `stamped-parallel` share one), and the rate is the
//! ops of all copies over the wall time.
//! Every result goes through [`std::hint::black_box`], and the scratch of the store kernel is
//! passed to it every repetition, so no step can be optimised away.
//!
//! What each kernel does, sized by [`Shape`] (the table's N, its lane stride, its moves):
//! - scatter: 32 lanes × G bytes (G the lane stride), 32 spans of a 1024-value L1-resident
//!   `u16` source scattered per repetition, exactly the loop of `SeenLanes::stamp_moves`;
//! - span: 64-byte loads from a table of N + 1 `u16` (2·(N+1) bytes, written first so its
//!   pages are real, on huge pages when big as the back-ends' tables are), at n0 - s for every far move 32 <= s <= n0, n0 advancing by 32 through
//!   the upper half of the table (where the option steps concentrate), each move's span
//!   prefetched `PREFETCH_AHEAD` moves ahead as the lane kernels do: the throughput of the level the table
//!   lives in, not its latency;
//! - stream: sequential `u64` reads over [`STREAM_BYTES`], each copy from its own offset;
//! - or-scan: one block of `bitset` per repetition, through its own far-move OR and
//!   lowest-zero kernels on the active `--isa` path: 64 lane masks of G/64 words, 16 spans
//!   of 64 values OR-ed in (a span's value j into lane j), every lane scanned for its lowest
//!   zero (every word op of the scalar code counted);
//! - mul-add: the sweep's dot product Σ P(x)·S(x xor h) over G `u32` counts, through the
//!   sweep's own kernel (`XorSweep::dot`) on the active `--isa` path.
//!
//! The two vector primitives follow `--isa`, as the back-ends they bound do; the scatter and
//! span kernels are byte stores and loads, the same on every path.

use super::{Primitive, Rates};
use crate::base::rng::SplitMix64;
use crate::kernels::lanes::prefetch_target;
use crate::kernels::prefetch;
use std::hint::black_box;
use std::sync::Barrier;
use std::time::{Duration, Instant};

/// Lanes of the stamp kernel (the lane block of `stamped-lanes`).
const LANES: usize = 32;

/// The stream buffer: four times the 32 MiB L3 of the development machines, so almost every
/// byte comes from memory.
pub const STREAM_BYTES: usize = 128 << 20;

/// The source values of the scatter and or-scan kernels (2 KiB, L1-resident).
const SOURCE: usize = 1024;

/// What the primitives are sized for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape {
    /// N: the span kernel reads a table of N + 1 values.
    pub limit: usize,
    /// G, the number of distinct values of the table (max value + 1).
    pub alphabet: usize,
    /// The moves <= N, ascending (the span kernel uses those >= 32, the far moves).
    pub moves: Vec<usize>,
}

impl Shape {
    /// The lane stride of `stamped-lanes` for this alphabet: the smallest power of two, at
    /// least 64, above max value + 32.
    pub fn stride(&self) -> usize {
        (self.alphabet + LANES).next_power_of_two().max(64)
    }
}

/// How long each timing runs and how many are taken.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    /// The target duration of one timing.
    pub target: Duration,
    /// Timings per primitive; the median is kept, or the fastest when `fastest`.
    pub runs: usize,
    /// Keep the fastest timing instead of the median.
    pub fastest: bool,
}

impl Budget {
    /// The `roofline` command's budget: 60 ms a timing, median of 3.
    pub const FULL: Budget = Budget {
        target: Duration::from_millis(60),
        runs: 3,
        fastest: false,
    };
    /// The `scale` budget, measured once per N: 15 ms a timing, median of 3.
    pub const QUICK: Budget = Budget {
        target: Duration::from_millis(15),
        runs: 3,
        fastest: false,
    };
    /// One round of the `roofline` command: the fastest of five 12 ms timings (the rounds
    /// are the repeats; the median is taken over them, [`super::rounds`]). The fastest,
    /// because a bound is what the machine can do and other jobs only slow a primitive: on
    /// a machine at load 9 one 60 ms timing of `scatter_store` ranged 0.28-0.97 ns within
    /// five rounds, the fastest of five 12 ms timings kept its median within 10% of the
    /// quiet figure (results/instruments/roofline-repeat.md).
    pub const ROUND: Budget = Budget {
        target: Duration::from_millis(12),
        runs: 5,
        fastest: true,
    };
}

/// Measures every primitive for `shape` on `threads` threads at once.
pub fn measure(shape: &Shape, threads: usize, budget: Budget) -> Rates {
    let threads = threads.max(1);
    let mut ns = [0.0; 5];
    for (i, p) in Primitive::ALL.into_iter().enumerate() {
        ns[i] = measure_one(p, shape, threads, budget);
    }
    Rates::new(threads, ns)
}

/// Measures the primitives in `which` for `shape` on `threads` threads at once; the others
/// are NaN (not measured), which [`super::bound`] ignores where the demand is zero. A round
/// of `roofline` measures only what the back-end's model uses.
pub fn measure_only(shape: &Shape, threads: usize, budget: Budget, which: &[Primitive]) -> Rates {
    let threads = threads.max(1);
    let mut ns = [f64::NAN; 5];
    for &p in which {
        ns[p.index()] = measure_one(p, shape, threads, budget);
    }
    Rates::new(threads, ns)
}

/// Nanoseconds per op of one primitive on `threads` threads at once.
pub fn measure_one(p: Primitive, shape: &Shape, threads: usize, budget: Budget) -> f64 {
    match p {
        Primitive::Scatter => {
            let stride = shape.stride();
            let sources: Vec<Vec<u16>> = (0..threads)
                .map(|t| source(t as u64, shape.alphabet))
                .collect();
            time_ns_per_op(threads, budget, &|t, reps| {
                scatter(stride, &sources[t], reps)
            })
        }
        Primitive::Span => {
            let table = span_table(shape.limit);
            let far = far_moves(&shape.moves, table.len());
            time_ns_per_op(threads, budget, &|t, reps| {
                span_loads(&table, &far, t, threads, reps)
            })
        }
        Primitive::Stream => {
            let buf: Vec<u64> = (0..(STREAM_BYTES / 8) as u64).collect();
            time_ns_per_op(threads, budget, &|t, reps| stream(&buf, t, threads, reps))
        }
        Primitive::OrScan => {
            let words = shape.alphabet.div_ceil(64).max(1);
            let sources: Vec<Vec<u16>> = (0..threads)
                .map(|t| source(t as u64, 64 * words - 1))
                .collect();
            time_ns_per_op(threads, budget, &|t, reps| {
                or_scan(words, &sources[t], reps)
            })
        }
        Primitive::MulAdd => {
            let len = shape.alphabet.max(1).next_multiple_of(4);
            time_ns_per_op(threads, budget, &|t, reps| mul_add(len, t as u64, reps))
        }
    }
}

/// Runs `kernel(thread, reps) -> ops` on `threads` threads at once, sized to the budget, and
/// returns the median over `budget.runs` timings of wall nanoseconds per op (ops summed over
/// the threads).
pub fn time_ns_per_op(
    threads: usize,
    budget: Budget,
    kernel: &(dyn Fn(usize, u64) -> u64 + Sync),
) -> f64 {
    let mut reps = 1u64;
    let mut secs = run_concurrently(threads, reps, kernel).0;
    // Double until a timing is long enough to scale from, then aim at the target.
    while secs < budget.target.as_secs_f64() / 8.0 && reps < 1 << 40 {
        reps *= 2;
        secs = run_concurrently(threads, reps, kernel).0;
    }
    let scale = budget.target.as_secs_f64() / secs.max(1e-9);
    reps = ((reps as f64 * scale) as u64).max(1);
    let mut samples: Vec<f64> = Vec::with_capacity(budget.runs.max(1));
    for _ in 0..budget.runs.max(1) {
        let (secs, ops) = run_concurrently(threads, reps, kernel);
        samples.push(secs * 1e9 / ops.max(1) as f64);
    }
    kept(&samples, budget.fastest)
}

/// The figure kept of a primitive's timings (ns per op): the fastest, or the median.
fn kept(samples: &[f64], fastest: bool) -> f64 {
    if fastest {
        samples.iter().copied().fold(f64::INFINITY, f64::min)
    } else {
        crate::base::stats::median(samples)
    }
}

/// One timing: `threads` copies of the kernel started together; (wall seconds, total ops).
///
/// The copies run on the threads of the rayon pool, the ones the parallel back-ends use,
/// whenever it has enough of them: starting fresh OS threads instead slowed the parallel
/// back-ends timed after them in the same process (`scale` measures the primitives between
/// its points; results/scaling/big-n.md, target 4).
fn run_concurrently(
    threads: usize,
    reps: u64,
    kernel: &(dyn Fn(usize, u64) -> u64 + Sync),
) -> (f64, u64) {
    if threads == 1 {
        let start = Instant::now();
        let ops = black_box(kernel(0, reps));
        return (start.elapsed().as_secs_f64(), ops);
    }
    if threads <= rayon::current_num_threads() {
        // Every pool thread runs the closure once; the first `threads` each time one copy
        // from the moment all of them are at the barrier.
        let barrier = Barrier::new(threads);
        let runs = rayon::broadcast(|ctx| {
            (ctx.index() < threads).then(|| {
                barrier.wait();
                let start = Instant::now();
                let ops = black_box(kernel(ctx.index(), reps));
                (start, Instant::now(), ops)
            })
        });
        let runs: Vec<_> = runs.into_iter().flatten().collect();
        let start = runs.iter().map(|r| r.0).min().expect("threads > 1 copies");
        let end = runs.iter().map(|r| r.1).max().expect("threads > 1 copies");
        return (
            end.duration_since(start).as_secs_f64(),
            runs.iter().map(|r| r.2).sum(),
        );
    }
    let barrier = Barrier::new(threads + 1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let barrier = &barrier;
                scope.spawn(move || {
                    barrier.wait();
                    black_box(kernel(t, reps))
                })
            })
            .collect();
        barrier.wait();
        let start = Instant::now();
        let ops: u64 = handles
            .into_iter()
            .map(|h| h.join().expect("a primitive kernel does not panic"))
            .sum();
        (start.elapsed().as_secs_f64(), ops)
    })
}

/// [`SOURCE`] pseudo-random values below `below` (at least 1), seeded by `seed`.
fn source(seed: u64, below: usize) -> Vec<u16> {
    let mut rng = SplitMix64(0x5eed ^ seed);
    (0..SOURCE)
        .map(|_| rng.below(below.max(1) as u64) as u16)
        .collect()
}

/// The scatter kernel at lane stride `stride` (a power of two, 64 to 131 072): dispatches to
/// the const-generic loop, as `stamped-lanes` does.
fn scatter(stride: usize, src: &[u16], reps: u64) -> u64 {
    match stride {
        64 => scatter_g::<64>(src, reps),
        128 => scatter_g::<128>(src, reps),
        256 => scatter_g::<256>(src, reps),
        512 => scatter_g::<512>(src, reps),
        1024 => scatter_g::<1024>(src, reps),
        2048 => scatter_g::<2048>(src, reps),
        4096 => scatter_g::<4096>(src, reps),
        8192 => scatter_g::<8192>(src, reps),
        16384 => scatter_g::<16384>(src, reps),
        32768 => scatter_g::<32768>(src, reps),
        65536 => scatter_g::<65536>(src, reps),
        _ => scatter_g::<131072>(src, reps),
    }
}

/// Per repetition a fresh stamp, then 32 spans of 32 values scattered into 32 lanes of G
/// bytes (`lane[v & (G-1)] = stamp`): 1024 byte stores.
fn scatter_g<const G: usize>(src: &[u16], reps: u64) -> u64 {
    let mut lanes: Vec<[u8; G]> = vec![[0u8; G]; LANES];
    let spans = src.len() / LANES;
    let mut stamp = 0u8;
    for _ in 0..reps {
        stamp = stamp.wrapping_add(1);
        for k in 0..spans {
            let span: &[u16; LANES] = src[k * LANES..(k + 1) * LANES]
                .try_into()
                .expect("LANES values");
            for (lane, &v) in lanes.iter_mut().zip(span) {
                lane[v as usize & (G - 1)] = stamp;
            }
        }
        black_box(lanes.as_mut_ptr());
    }
    black_box(&lanes);
    reps * (spans * LANES) as u64
}

/// A table of N + 1 values (at least 4096), every page written.
fn span_table(limit: usize) -> Vec<u16> {
    // On the same pages as the back-ends' tables (huge pages when big), so the loads see
    // the same TLB.
    let mut table = crate::kernels::huge_pages::zeroed((limit + 1).max(4096));
    for (i, v) in table.iter_mut().enumerate() {
        *v = (i % 509) as u16;
    }
    table
}

/// The far moves (>= 32) that the kernel's blocks can reach (every n0 lies in the upper half
/// of the table, below its last 64 values), or evenly spaced stand-ins when none is at most
/// half the table (the kernel needs at least one span per block).
fn far_moves(moves: &[usize], len: usize) -> Vec<usize> {
    let far: Vec<usize> = moves
        .iter()
        .copied()
        .filter(|&s| s >= LANES && s + 2 * LANES <= len)
        .collect();
    if far.first().is_some_and(|&s| s <= len / 2) {
        far
    } else {
        (1..=8).map(|k| k * LANES).collect()
    }
}

/// Copy `t` of `threads`: per repetition one lane block at n0 (from the upper half of the
/// table, each copy starting at its own offset, wrapping), one 64-byte span load at n0 - s
/// for each far move s <= n0, with the span of the move [`PREFETCH_AHEAD`](crate::kernels::lanes::PREFETCH_AHEAD) later prefetched
/// as `SeenLanes::stamp_moves` does. Returns the spans loaded.
fn span_loads(table: &[u16], far: &[usize], t: usize, threads: usize, reps: u64) -> u64 {
    let half = table.len() / 2;
    let blocks = (half - LANES) / LANES;
    let mut block = t * blocks / threads.max(1);
    let (mut acc, mut spans) = (0u16, 0u64);
    for _ in 0..reps {
        let n0 = half + block * LANES;
        for (i, &s) in far.iter().enumerate().take_while(|&(_, &s)| s <= n0) {
            // The lane kernels' own prefetch, so the loads reach the memory throughput they
            // get (without it one thread waits on each miss in turn).
            if let Some(at) = prefetch_target(far, i, n0) {
                prefetch::to_l1(table, at, LANES);
            }
            let span: &[u16; LANES] = table[n0 - s..n0 - s + LANES]
                .try_into()
                .expect("LANES values");
            acc ^= span.iter().fold(0u16, |a, &v| a ^ v);
            spans += 1;
        }
        block = (block + 1) % blocks;
    }
    black_box(acc);
    spans
}

/// Copy `t` of `threads`: `reps` passes over the whole buffer from offset t/threads of it,
/// summing the words. Returns the bytes read.
fn stream(buf: &[u64], t: usize, threads: usize, reps: u64) -> u64 {
    let split = t * buf.len() / threads.max(1);
    let (tail, head) = buf.split_at(split);
    let mut acc = 0u64;
    for _ in 0..reps {
        acc = head.iter().fold(acc, |a, &w| a.wrapping_add(w));
        acc = tail.iter().fold(acc, |a, &w| a.wrapping_add(w));
        black_box(acc);
    }
    reps * 8 * buf.len() as u64
}

/// Lanes of the or-scan kernel (the block of `bitset`).
const MASK_LANES: usize = 64;

/// How many times the or-scan block reads each of its 16 spans (256 moves a block).
const MOVE_REPEATS: usize = 16;

/// Per repetition one block of `bitset` through the back-end's own kernels on the active
/// `--isa` path: 64 lane masks of `words` words cleared, the 16 spans of 64 source values of
/// far moves 64, 128, ..., 1024 (each taken [`MOVE_REPEATS`] times) OR-ed in (`bitset`'s far-move OR: a span's value j into lane
/// j's mask, one word chosen by the value), and each lane scanned for its lowest zero.
/// Returns the word ops, counted as the scalar code does them (clears + ORs + words
/// scanned), so a vector path shows as fewer nanoseconds per op.
fn or_scan(words: usize, src: &[u16], reps: u64) -> u64 {
    use crate::kernels::masks::{
        far_or_on as bitset_far_or_on, lowest_zero_bit_on, LANES as BITSET_LANES,
    };
    debug_assert_eq!(src.len(), SOURCE);
    let isa = crate::base::isa::active();
    // Lane j of the block at n0 = SOURCE reads src[SOURCE + j - s]: every move's span lies
    // in `src`, as the far moves of a block lie in finished positions.
    // Each of the 16 spans is read MOVE_REPEATS times (ascending, as the kernel expects), so
    // a block has hundreds of moves like a real one and its set-up, clear and scan weigh as
    // little as they do in `bitset` (sqrt N moves a block).
    let far: Vec<usize> = (1..=SOURCE / MASK_LANES)
        .flat_map(|k| std::iter::repeat_n(k * MASK_LANES, MOVE_REPEATS))
        .collect();
    let (mut ops, mut acc) = (0u64, 0usize);
    let mut masks = vec![0u64; BITSET_LANES * words];
    for _ in 0..reps {
        masks.fill(0);
        bitset_far_or_on(isa, src, &mut masks, (SOURCE, BITSET_LANES, words), &far);
        let mut scanned = 0;
        for mask in masks.chunks_exact(words) {
            let mex = lowest_zero_bit_on(isa, mask).unwrap_or(64 * words);
            scanned += (mex / 64 + 1).min(words);
            acc = acc.wrapping_add(mex);
        }
        ops += (masks.len() + far.len() * MASK_LANES + scanned) as u64;
        black_box(&masks);
    }
    black_box(acc);
    ops
}

/// Per repetition the sweep's dot product Σ P(x)·S(x xor h) over `len` (a multiple of 4)
/// `u32` counts through the sweep's own kernel (`XorSweep::dot`, on the active `--isa`
/// path), h changing each repetition. Returns the multiply-adds.
fn mul_add(len: usize, seed: u64, reps: u64) -> u64 {
    let mut rng = SplitMix64(0xd07 ^ seed);
    let padded = len.next_power_of_two().max(4);
    let p: Vec<u64> = (0..len).map(|_| rng.below(1 << 20)).collect();
    let s: Vec<u64> = (0..padded).map(|_| rng.below(1 << 20)).collect();
    let sweep = crate::kernels::xor_dot::XorSweep::new(&p, &s);
    let mut total = 0u64;
    for r in 0..reps {
        let h = (r as usize * 4) % len.max(1);
        total = total.wrapping_add(sweep.dot(h));
    }
    black_box(total);
    reps * len as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernels_count_their_ops() {
        let src = source(1, 300);
        assert!(src.iter().all(|&v| v < 300));
        // 32 spans of 32 stores per repetition.
        assert_eq!(scatter(512, &src, 3), 3 * 1024);
        // A 4096-value table: half = 2048, far moves 32 and 64 are both <= every n0.
        let table = span_table(100);
        assert_eq!(table.len(), 4096);
        assert_eq!(span_loads(&table, &[32, 64], 0, 1, 5), 10);
        let buf = vec![1u64; 1000];
        assert_eq!(stream(&buf, 1, 2, 2), 2 * 8000);
        assert_eq!(mul_add(8, 0, 3), 24);
        // One word a lane: 64 clears, 16 spans read 16 times each of 64 ORs, then 64 lanes
        // scanned one word each.
        assert_eq!(or_scan(1, &source(2, 63), 2), 2 * (64 + 16 * 16 * 64 + 64));
    }

    #[test]
    fn far_moves_keep_the_moves_from_32_and_stand_in_when_there_are_none() {
        assert_eq!(far_moves(&[1, 4, 9, 16, 25, 36, 49], 4096), vec![36, 49]);
        // Moves past half the table are kept (blocks high enough reach them), not past its end.
        assert_eq!(far_moves(&[36, 3000, 4090], 4096), vec![36, 3000]);
        // Only moves beyond every block: stand-ins.
        assert_eq!(far_moves(&[3000], 4096)[0], 32);
        assert_eq!(far_moves(&[1, 3, 4], 4096).len(), 8);
    }

    #[test]
    fn stride_is_the_lane_stride_of_stamped_lanes() {
        let shape = |alphabet| Shape {
            limit: 10,
            alphabet,
            moves: vec![],
        };
        // max 168 (N = 10^6): 169 + 32 rounds up to 256; small alphabets get 64.
        assert_eq!(shape(169).stride(), 256);
        assert_eq!(shape(3).stride(), 64);
    }

    #[test]
    fn a_budget_keeps_the_median_or_the_fastest_timing() {
        let samples = [3.0, 1.5, 9.0, 2.0, 4.0];
        assert_eq!(kept(&samples, false), 3.0);
        assert_eq!(kept(&samples, true), 1.5);
    }

    /// The squares' shape at N = 5000 and a 200 µs budget of one run: primitives measured in
    /// well under a second.
    fn tiny() -> (Shape, Budget) {
        let shape = Shape {
            limit: 5000,
            alphabet: 40,
            moves: crate::base::moves::Moves::Squares.up_to(5000),
        };
        let budget = Budget {
            target: Duration::from_micros(200),
            runs: 1,
            fastest: false,
        };
        (shape, budget)
    }

    #[test]
    fn measure_only_measures_what_it_is_asked_and_leaves_the_rest_nan() {
        let (shape, budget) = tiny();
        let r = measure_only(&shape, 1, budget, &[Primitive::Scatter, Primitive::MulAdd]);
        assert_eq!(r.threads, 1);
        for p in Primitive::ALL {
            let ns = r.ns(p);
            if matches!(p, Primitive::Scatter | Primitive::MulAdd) {
                assert!(ns.is_finite() && ns > 0.0, "{p:?}: {ns}");
            } else {
                assert!(ns.is_nan(), "{p:?} was not asked for: {ns}");
            }
        }
    }

    #[test]
    fn measure_gives_a_finite_positive_rate_for_every_primitive() {
        let (shape, budget) = tiny();
        for p in Primitive::ALL {
            // The stream buffer is large; one primitive at a time keeps the test cheap.
            if p == Primitive::Stream {
                continue;
            }
            let ns = measure_one(p, &shape, 2, budget);
            assert!(ns.is_finite() && ns > 0.0, "{p:?}: {ns}");
        }
    }
}
