//! `sieve`: Eppstein's win/lose sieve, windowed so its marks stay in the cache.
//!
//! Algorithm: n is cold exactly when no earlier cold position c has n = c + s for a move s.
//! So walk n upward; n is cold when nothing marked it, and each cold c marks c + s hot for
//! every move s. Done over one N-byte array the marks scatter across gigabytes (a cache and
//! TLB miss for nearly every mark), so the positions are taken in windows of W bytes (one byte a
//! position), like a segmented sieve of Eratosthenes. Every cold position
//! keeps a cursor: the index k of its next move and the target c + s_k of that move, the
//! first mark not yet placed. For each window:
//!
//! 1. far marks: every cursor places its marks below the window's end and advances. The
//!    cursors are dealt round-robin into `parts` (one per thread), each part marking into its
//!    own window-sized byte array, in parallel with rayon. Private arrays rather than one
//!    shared array because each core has its own L2: a shared window would bounce its cache
//!    lines between the cores on every store.
//! 2. merge: the parts' arrays are OR-ed into the first one.
//! 3. decide, in order: a position not marked is cold; it goes into the output, marks its
//!    followers inside the window, and its cursor joins a part.
//!
//! Key invariant: when a window's positions are decided, every mark from every cold position
//! below the window has been placed (step 1), and step 3 adds the marks from the cold
//! positions inside the window before it reaches them; so "unmarked" means "cold". Between
//! windows, every cursor's target is at or past the next window's start, and cursors whose
//! target is past N are dropped.
//!
//! Cost: one byte store per (cold c, move s) with c + s <= N, about #cold · sqrt(N) for the
//! squares (#cold ~ N^0.7), plus one cursor check per (window, cold) and O(N) scanning.
//! Memory: the N-bit output, `parts` windows of W bytes, and 16 bytes per live cursor.
//!
//! Bytes rather than bits: a mark is a plain store, which never waits for its cache line,
//! where a bit needs the word loaded first. One bit a position (8 times the positions per
//! window) was tried and cost more CPU time (the figures are in `results/sequences/sieve.md`).
//!
//! Type limits: N < 2^32; targets are `u64`, so c + s cannot overflow; move indices are `u32`
//! (at most 65 536 squares below 2^32, at most 65 535 listed moves).

use super::{ColdFinder, ColdSet};
use crate::base::moves::Moves;
use crate::cost::Model;
use crate::kernels::Family;
use crate::registry::{Entry, Role};
use rayon::prelude::*;

/// The registry entry of `sieve`, the stage's reference.
pub const ENTRY: Entry<dyn ColdFinder> = Entry {
    name: "sieve",
    description: "Eppstein's win/lose sieve in L2-sized windows: every cold c marks c + s hot; far marks split across threads",
    cost: "O(#cold * #moves + (N / W) * #cold), #cold ~ N^0.7 for the squares",
    role: Role::Reference,
    model: Model::NOT_MODELLED,
    kernels: &[Family::Sieve],
    make: || Box::new(Sieve::default()),
};

/// The default window: 512 KiB (2^19 positions), half of this CPU's 1 MiB L2 per core,
/// leaving room for the cursors streamed through it. The fastest of 256 KiB, 512 KiB and
/// 1 MiB at N = 10^9 (`results/sequences/sieve.md`): smaller windows visit every cursor more often,
/// larger ones spill out of L2.
pub const DEFAULT_WINDOW: usize = 512 * 1024;

/// The windowed sieve. See the module documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sieve {
    window: usize,
    parts: usize,
}

impl Default for Sieve {
    /// The tuned window, one part per rayon thread.
    fn default() -> Sieve {
        Sieve::with_window(DEFAULT_WINDOW)
    }
}

impl Sieve {
    /// A sieve with windows of `bytes` bytes (at least 1), one position a byte, one part per
    /// rayon thread. Small windows exist for the tests, which force many windows at small N.
    pub fn with_window(bytes: usize) -> Sieve {
        Sieve {
            window: bytes.max(1),
            parts: 0,
        }
    }

    /// The same sieve with the far marks dealt into `parts` parts (at least 1) regardless of
    /// the thread count, so the tests exercise the split and merge on any machine.
    pub fn with_parts(self, parts: usize) -> Sieve {
        Sieve {
            parts: parts.max(1),
            ..self
        }
    }

    /// The number of parts a run uses: the fixed count, or one per rayon thread.
    fn part_count(&self) -> usize {
        match self.parts {
            0 => rayon::current_num_threads().max(1),
            fixed => fixed,
        }
    }
}

/// The next mark of one cold position: `target` = c + s_k, the first not yet placed.
#[derive(Debug, Clone, Copy)]
struct Cursor {
    target: u64,
    k: u32,
}

/// The moves as gaps between consecutive moves, so a cursor advances with one addition.
trait Steps: Sync {
    /// s_0, the smallest move.
    fn first(&self) -> u64;
    /// s_{k+1} - s_k; past the last move, a gap large enough to leave every limit behind.
    fn gap(&self, k: u32) -> u64;
}

/// The squares: s_k = (k + 1)^2, so the gap is 2k + 3 and there is no last move.
struct SquareSteps;

impl Steps for SquareSteps {
    fn first(&self) -> u64 {
        1
    }

    #[inline(always)]
    fn gap(&self, k: u32) -> u64 {
        2 * k as u64 + 3
    }
}

/// A finite list, gaps precomputed; after the last move the gap is [`PAST_EVERY_LIMIT`].
struct ListSteps {
    first: u64,
    gaps: Vec<u64>,
}

/// Added to a target below 2^32 it passes every limit (< 2^32) without overflowing u64.
const PAST_EVERY_LIMIT: u64 = 1 << 40;

impl ListSteps {
    fn new(moves: &[u64]) -> ListSteps {
        // Clamped so that a move past every limit cannot overflow a target either.
        let gap = |w: &[u64]| (w[1] - w[0]).min(PAST_EVERY_LIMIT);
        let mut gaps: Vec<u64> = moves.windows(2).map(gap).collect();
        gaps.push(PAST_EVERY_LIMIT);
        ListSteps {
            first: moves[0].min(PAST_EVERY_LIMIT),
            gaps,
        }
    }
}

impl Steps for ListSteps {
    fn first(&self) -> u64 {
        self.first
    }

    #[inline(always)]
    fn gap(&self, k: u32) -> u64 {
        self.gaps[k as usize]
    }
}

/// Places every mark of `cursor` below `end` into `marks` (whose byte 0 is position `base`)
/// and advances it. The cursor's target must be at least `base`.
#[inline(always)]
fn place<S: Steps>(marks: &mut [u8], base: u64, end: u64, cursor: &mut Cursor, steps: &S) {
    let (mut target, mut k) = (cursor.target, cursor.k);
    while target < end {
        marks[(target - base) as usize] = 1;
        target += steps.gap(k);
        k += 1;
    }
    *cursor = Cursor { target, k };
}

/// One thread's share: its cursors and its private window of marks.
struct Part {
    cursors: Vec<Cursor>,
    marks: Vec<u8>,
}

impl Part {
    /// Step 1 for this part: every far mark below `end`, then drops the cursors past `limit`.
    fn mark_far<S: Steps>(&mut self, base: u64, end: u64, limit: u64, steps: &S) {
        let marks = &mut self.marks;
        self.cursors.retain_mut(|cursor| {
            place(marks, base, end, cursor, steps);
            cursor.target <= limit
        });
    }
}

/// The state of one run: the output so far, the parts, and whose turn it is for a cursor.
struct Run<'s, S> {
    steps: &'s S,
    limit: u64,
    set: ColdSet,
    parts: Vec<Part>,
    next_part: usize,
}

impl<S: Steps> Run<'_, S> {
    /// Steps 1 to 3 for the window [base, end).
    fn window(&mut self, base: u64, end: u64) {
        let (steps, limit) = (self.steps, self.limit);
        if self.parts.len() == 1 {
            self.parts[0].mark_far(base, end, limit, steps);
        } else {
            self.parts
                .par_iter_mut()
                .for_each(|part| part.mark_far(base, end, limit, steps));
        }
        self.merge((end - base) as usize);
        self.decide(base, end);
    }

    /// Step 2: ORs the first `len` marks of every part into the first part's and clears
    /// them.
    fn merge(&mut self, len: usize) {
        let (first, rest) = self.parts.split_first_mut().expect("at least one part");
        for part in rest {
            for (into, from) in first.marks[..len].iter_mut().zip(&mut part.marks[..len]) {
                *into |= std::mem::take(from);
            }
        }
    }

    /// Step 3: decides the window's positions in order, then clears the merged marks.
    fn decide(&mut self, base: u64, end: u64) {
        let len = (end - base) as usize;
        let mut marks = std::mem::take(&mut self.parts[0].marks);
        let mut from = 0;
        while let Some(offset) = marks[from..len].iter().position(|&m| m == 0) {
            let cold = base + (from + offset) as u64;
            self.add_cold(&mut marks, base, end, cold);
            from += offset + 1;
        }
        marks[..len].fill(0);
        self.parts[0].marks = marks;
    }

    /// Records `cold`, marks its followers in the window, and hands its cursor to a part.
    fn add_cold(&mut self, marks: &mut [u8], base: u64, end: u64, cold: u64) {
        self.set.insert(cold as usize);
        let mut cursor = Cursor {
            target: cold + self.steps.first(),
            k: 0,
        };
        place(marks, base, end, &mut cursor, self.steps);
        if cursor.target <= self.limit {
            self.parts[self.next_part].cursors.push(cursor);
            self.next_part = (self.next_part + 1) % self.parts.len();
        }
    }
}

/// Runs the sieve over 0..=`limit` with the given steps, window (bytes) and part count.
fn sieve<S: Steps>(steps: &S, limit: usize, window: usize, parts: usize) -> ColdSet {
    let window = window.min(limit + 1);
    let parts = (0..parts)
        .map(|_| Part {
            cursors: Vec::new(),
            marks: vec![0; window],
        })
        .collect();
    let mut run = Run {
        steps,
        limit: limit as u64,
        set: ColdSet::empty(limit),
        parts,
        next_part: 0,
    };
    let total = limit as u64 + 1;
    for base in (0..total).step_by(window) {
        run.window(base, total.min(base + window as u64));
    }
    run.set
}

/// An upper estimate of the cold positions whose cursors are live at once: for the squares
/// about 0.88 · N^0.7 (fitted to Eppstein's counts at 10^5 and 10^8), taken as N^0.7; for a
/// list, at most the positions within the largest move plus one window.
fn live_cursors(moves: &Moves, limit: usize, window: usize) -> u64 {
    let n = limit as u64 + 1;
    match moves {
        Moves::Squares => (n as f64).powf(0.7) as u64 + 64,
        Moves::List(list) => n.min(list[list.len() - 1].saturating_add(window as u64)),
    }
}

impl ColdFinder for Sieve {
    fn cold(&self, moves: &Moves, limit: usize) -> ColdSet {
        assert!(limit as u64 <= u32::MAX as u64, "the sieve needs N < 2^32");
        match moves {
            Moves::Squares => sieve(&SquareSteps, limit, self.window, self.part_count()),
            Moves::List(list) => {
                sieve(&ListSteps::new(list), limit, self.window, self.part_count())
            }
        }
    }

    fn scratch_bytes(&self, moves: &Moves, limit: usize, threads: usize) -> u64 {
        let window = self.window.min(limit + 1) as u64;
        let parts = if self.parts == 0 { threads } else { self.parts };
        // Cursors are 16 bytes and a growing Vec may hold twice what it uses.
        let cursors = 2 * 16 * live_cursors(moves, limit, self.window);
        parts.max(1) as u64 * window + cursors
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cold::Naive;

    #[test]
    fn square_gaps_are_consecutive_square_differences() {
        let mut s = SquareSteps.first();
        for k in 0..1000u32 {
            assert_eq!(s, (k as u64 + 1).pow(2));
            s += SquareSteps.gap(k);
        }
    }

    #[test]
    fn list_gaps_then_far_past() {
        let steps = ListSteps::new(&[2, 5, 11]);
        assert_eq!((steps.first(), steps.gap(0), steps.gap(1)), (2, 3, 6));
        assert!(11 + steps.gap(2) > u32::MAX as u64);
        let huge = ListSteps::new(&[3, u64::MAX]);
        assert_eq!((huge.first(), huge.gap(0)), (3, PAST_EVERY_LIMIT));
    }

    #[test]
    fn place_near_two_to_the_32_does_not_overflow() {
        // The last window below 2^32 and the last square cursor: one mark, then past 2^32.
        let (base, end) = (u32::MAX as u64 - 127, u32::MAX as u64 + 1);
        let k = 65_534; // s_k = 65 535^2
        let mut cursor = Cursor {
            target: base + 27,
            k,
        };
        let mut marks = [0u8; 128];
        place(&mut marks, base, end, &mut cursor, &SquareSteps);
        assert_eq!(marks.iter().position(|&m| m == 1), Some(27));
        assert_eq!(marks.iter().filter(|&&m| m == 1).count(), 1);
        assert_eq!(cursor.target, base + 27 + 2 * k as u64 + 3);
        assert_eq!(cursor.k, k + 1);
        // A list's last move sends the cursor far past every limit, still without overflow.
        let steps = ListSteps::new(&[1, 5]);
        let mut cursor = Cursor {
            target: end - 1,
            k: 1,
        };
        place(&mut marks, base, end, &mut cursor, &steps);
        assert_eq!(marks[127], 1);
        assert_eq!(cursor.target, end - 1 + PAST_EVERY_LIMIT);
    }

    #[test]
    fn tiny_limits_and_windows() {
        for limit in 0..40 {
            let expected = Naive.cold(&Moves::Squares, limit);
            for window in [1, 2, 3, 5, 64] {
                for parts in [1, 2, 3] {
                    let sieve = Sieve::with_window(window).with_parts(parts);
                    assert_eq!(sieve.cold(&Moves::Squares, limit), expected);
                }
            }
        }
    }

    #[test]
    fn moves_larger_than_the_limit() {
        let moves = Moves::List(vec![7, 100]);
        let set = Sieve::with_window(3).cold(&moves, 20);
        // Only 7 is a move <= 20: cold iff n mod 14 < 7.
        let expected: Vec<usize> = (0..=20).filter(|n| n % 14 < 7).collect();
        assert_eq!(set.positions().collect::<Vec<_>>(), expected);
    }

    #[test]
    fn scratch_grows_with_window_and_parts() {
        let small = Sieve::with_window(1024).scratch_bytes(&Moves::Squares, 1 << 20, 1);
        let wide = Sieve::with_window(4096).scratch_bytes(&Moves::Squares, 1 << 20, 2);
        // Same cursors (the squares' estimate does not depend on the window), two windows.
        assert!(small >= 1024);
        assert_eq!(wide - small, 2 * 4096 - 1024);
    }

    #[test]
    fn scratch_is_the_windows_plus_two_cursor_vectors() {
        // By hand: a list's live cursors are min(N + 1, largest move + window), the squares'
        // N^0.7 + 64 (10^4^0.7 = 10^2.8 = 630.96, 10^6^0.7 = 10^4.2 = 15 848.9); 32 bytes a
        // cursor; one window per part, a window never longer than N + 1 positions.
        let list = Moves::List(vec![1, 5]);
        let s = Sieve::with_window(64);
        assert_eq!(s.scratch_bytes(&list, 1000, 2), 2 * 64 + 32 * 69);
        let three = Sieve::with_window(64).with_parts(3);
        assert_eq!(three.scratch_bytes(&list, 10, 1), 3 * 11 + 32 * 11);
        let squares = Sieve::with_window(1024).scratch_bytes(&Moves::Squares, 9999, 1);
        assert_eq!(squares, 1024 + 32 * (630 + 64));
        // The default window is 512 KiB (DEFAULT_WINDOW's documented, measured choice).
        let default = Sieve::default().scratch_bytes(&Moves::Squares, 999_999, 1);
        assert_eq!(default, 512 * 1024 + 32 * (15_848 + 64));
    }

    #[test]
    fn parts_are_the_fixed_count_or_one_per_thread() {
        assert_eq!(Sieve::with_window(8).with_parts(3).part_count(), 3);
        assert_eq!(Sieve::with_window(8).with_parts(0).part_count(), 1);
        let threads = rayon::current_num_threads();
        assert_eq!(Sieve::with_window(8).part_count(), threads);
    }

    #[test]
    fn cursors_are_dealt_round_robin() {
        // Subtract-a-square has 21 cold positions below 100 (the seeds' list); each still
        // has a mark in 100..=200 (squares are at most 29 apart there), so after the window
        // [0, 100) all 21 cursors are live, dealt 7 to each of three parts.
        let parts = (0..3)
            .map(|_| Part {
                cursors: Vec::new(),
                marks: vec![0; 100],
            })
            .collect();
        let mut run = Run {
            steps: &SquareSteps,
            limit: 200,
            set: ColdSet::empty(200),
            parts,
            next_part: 0,
        };
        run.window(0, 100);
        assert_eq!(run.set.count(), 21);
        let dealt: Vec<usize> = run.parts.iter().map(|p| p.cursors.len()).collect();
        assert_eq!(dealt, [7, 7, 7]);
    }
}
