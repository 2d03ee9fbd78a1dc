//! Amalgamation Nim with restriction: exact Grundy values of three-heap positions by
//! exhaustive search, checked against the closed Grundy formula
//! G = x1 xor x2 xor x3 xor delta(X) of "Amalgamation Nim with restriction" (Manabe,
//! arXiv:2411.14488; equation numbers below are the paper's).
//!
//! # Rules (the paper's Definitions 4 and 5)
//!
//! A move either reduces one heap by any positive amount, or merges two heaps that each hold
//! at least two stones: heaps x_i, x_j >= 2 become x_i + x_j and 0. Normal play.
//!
//! # The closed formula (the paper's eq. (4))
//!
//! Write x_i = 2u_i + e_i. Heaps i and j are joined in the compatibility graph H_X when
//! u_i > 0, u_j > 0 and u_i & u_j = 0 (eq. (2)); delta(X) = 1 when H_X has one or two edges,
//! 0 when it has none or three (eq. (3)); then G(X) = x1 xor x2 xor x3 xor delta(X) (eq. (4)).
//! [`formula_4`] is that formula; [`compare`] takes the formula as a parameter so that a wrong
//! one (for instance [`nim_sum`], which drops delta) is seen to fail.
//!
//! # Algorithm
//!
//! Merged heaps can exceed the box bound B, so the search covers every sorted triple
//! a <= b <= c with total a + b + c <= 3B, a set closed under moves (no move adds stones) that
//! contains everything reachable from the box. The game is symmetric, so only sorted triples
//! are stored.
//!
//! Order: a reduction lowers the total; a merge keeps the total and lowers the number of
//! non-empty heaps (the paper's rank, eq. (7)). So the triples are processed by total s
//! ascending, and within one total in three sub-levels: (0,0,s); then (0,b,c) with b >= 1
//! (their merges lead to (0,0,s)); then (a,b,c) with a >= 1 (their merges lead to (0,b,c)).
//! The positions of one sub-level have no moves between them, so each sub-level is computed
//! in parallel with rayon, reading only finished entries.
//!
//! Layout (the key invariant): triples are numbered by total, then by a, then by b, so every
//! sub-level is one contiguous slice of the table and every follower of a position lies
//! strictly before the slice that holds the position. The parallel step splits the table
//! there: finished entries are shared read-only, the current slice is written.
//!
//! Mex: a position with total s has at most s + 3 options, so its value is at most s + 3;
//! follower values are marked in a fixed bitset of [`MEX_BITS`] bits (larger values cannot
//! be the mex and are skipped), and the mex is the lowest clear bit.
//!
//! Cost: about (3B)^3/36 sorted triples, each with s + 3 options, so about (3B)^4/48 option
//! look-ups in total, and 2 bytes per triple. At B = 64 the search holds 207 537 triples; at
//! B = [`MAX_HEAP`] it holds 12 755 649 (25 MB).

use crate::base::error::{Error, Result};
use rayon::prelude::*;

/// The largest box bound B accepted: the search then covers totals up to 768, which is
/// 12 755 649 sorted triples and 25 MB of values.
pub const MAX_HEAP: u32 = 256;

/// Width of the mex scratch bitset: larger than the number of options of any position the
/// search visits (at most 3 * MAX_HEAP + 3).
pub const MEX_BITS: usize = 1024;
const MEX_WORDS: usize = MEX_BITS / 64;
const _: () = assert!(3 * MAX_HEAP as usize + 3 < MEX_BITS);

/// A numbering of the sorted triples a <= b <= c with a + b + c <= `max_total`: by total,
/// then a, then b.
#[derive(Debug, Clone)]
struct TripleIndex {
    max_total: u32,
    /// `row_start[total_start[s] + a]` is the number of the triple (a, a, s - 2a); one extra
    /// entry per total closes its last row.
    row_start: Vec<usize>,
    /// Where total s's rows begin in `row_start`.
    total_start: Vec<usize>,
}

impl TripleIndex {
    fn new(max_total: u32) -> TripleIndex {
        let mut row_start = Vec::new();
        let mut total_start = Vec::with_capacity(max_total as usize + 1);
        let mut next = 0usize;
        for s in 0..=max_total {
            total_start.push(row_start.len());
            for a in 0..=s / 3 {
                row_start.push(next);
                // b runs from a to floor((s - a) / 2), so that b <= c = s - a - b.
                next += ((s - a) / 2 - a + 1) as usize;
            }
            row_start.push(next);
        }
        total_start.push(row_start.len());
        TripleIndex {
            max_total,
            row_start,
            total_start,
        }
    }

    /// The number of triples.
    fn len(&self) -> usize {
        *self.row_start.last().expect("total 0 always has a row")
    }

    /// The rows of total s: entry a is the number of (a, a, s - 2a), the last entry is the
    /// first number of total s + 1.
    fn rows(&self, s: u32) -> &[usize] {
        let s = s as usize;
        &self.row_start[self.total_start[s]..self.total_start[s + 1]]
    }

    /// The number of the sorted triple a <= b <= c.
    #[inline]
    fn index(&self, a: u32, b: u32, c: u32) -> usize {
        debug_assert!(a <= b && b <= c && a + b + c <= self.max_total);
        let s = (a + b + c) as usize;
        self.row_start[self.total_start[s] + a as usize] + (b - a) as usize
    }

    /// The sorted triple numbered `i` within total s.
    fn triple(&self, s: u32, i: usize) -> (u32, u32, u32) {
        let rows = self.rows(s);
        let a = rows.partition_point(|&start| start <= i) - 1;
        let b = a + (i - rows[a]);
        (a as u32, b as u32, s - a as u32 - b as u32)
    }
}

/// Sorts three heap sizes ascending.
#[inline]
fn sort3(mut x: u32, mut y: u32, mut z: u32) -> (u32, u32, u32) {
    if x > y {
        std::mem::swap(&mut x, &mut y);
    }
    if y > z {
        std::mem::swap(&mut y, &mut z);
    }
    if x > y {
        std::mem::swap(&mut x, &mut y);
    }
    (x, y, z)
}

/// The exact Grundy values of every sorted triple with total at most 3B, found by search.
#[derive(Debug, Clone)]
pub struct AmalgamationTable {
    max_heap: u32,
    index: TripleIndex,
    values: Vec<u16>,
}

impl AmalgamationTable {
    /// The box bound B.
    pub fn max_heap(&self) -> u32 {
        self.max_heap
    }

    /// The largest total searched, 3B.
    pub fn max_total(&self) -> u32 {
        self.index.max_total
    }

    /// The number of sorted triples searched (every triple with total <= 3B).
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Always false: the table holds at least (0, 0, 0).
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The Grundy value of the position with heaps x, y, z (any order), or `None` when its
    /// total is above 3B.
    pub fn value(&self, x: u32, y: u32, z: u32) -> Option<u32> {
        let (a, b, c) = sort3(x, y, z);
        if (a as u64) + (b as u64) + (c as u64) > self.index.max_total as u64 {
            return None;
        }
        Some(self.values[self.index.index(a, b, c)] as u32)
    }

    /// Every searched sorted triple with its Grundy value, by total, then a, then b.
    pub fn positions(&self) -> impl Iterator<Item = ((u32, u32, u32), u32)> + '_ {
        (0..=self.index.max_total).flat_map(move |s| {
            let rows = self.index.rows(s);
            (rows[0]..rows[rows.len() - 1])
                .map(move |i| (self.index.triple(s, i), self.values[i] as u32))
        })
    }
}

/// The Grundy value of the sorted triple (a, b, c) as the mex of its followers' values,
/// read from `done` (every follower's number is below `done.len()`).
fn grundy(index: &TripleIndex, done: &[u16], a: u32, b: u32, c: u32) -> u16 {
    let mut seen = [0u64; MEX_WORDS];
    let mut mark = |x: u32, y: u32, z: u32| {
        let v = done[index.index(x, y, z)] as usize;
        if v < MEX_BITS {
            seen[v / 64] |= 1u64 << (v % 64);
        }
    };
    // Reductions: (a', b, c) stays sorted; b' and c' may move below a or b.
    for a2 in 0..a {
        mark(a2, b, c);
    }
    for b2 in 0..b {
        let (x, y, z) = if b2 < a { (b2, a, c) } else { (a, b2, c) };
        mark(x, y, z);
    }
    for c2 in 0..c {
        let (x, y, z) = sort3(a, b, c2);
        mark(x, y, z);
    }
    // Merges of two heaps that each hold at least 2: (0, other, merged), sorted.
    if a >= 2 {
        mark(0, c.min(a + b), c.max(a + b));
        mark(0, b.min(a + c), b.max(a + c));
    }
    if b >= 2 {
        mark(0, a.min(b + c), a.max(b + c));
    }
    let word = seen
        .iter()
        .position(|&w| w != u64::MAX)
        .expect("a position has fewer options than the scratch width");
    (word * 64 + seen[word].trailing_ones() as usize) as u16
}

/// About how many sorted triples the search for box bound `b` holds: those with total at
/// most 3B, about (3B)^3/36.
pub fn positions_for(max_heap: u32) -> u64 {
    let s = 3 * max_heap as u64 + 3;
    s * s * s / 36
}

/// Refuses a box bound above [`MAX_HEAP`], naming the size it would take: the mex scratch
/// and the value type are sized for totals up to 3 * [`MAX_HEAP`].
pub fn check_max_heap(max_heap: u32) -> Result<u32> {
    if max_heap > MAX_HEAP {
        return Err(Error::Invalid(format!(
            "--max {max_heap} would search about {} positions (every total up to 3B), above the \
             cap of {} at --max {MAX_HEAP}; lower --max",
            positions_for(max_heap),
            positions_for(MAX_HEAP)
        )));
    }
    Ok(max_heap)
}

/// Exhaustive search: the Grundy value of every sorted triple with total <= 3B, in
/// parallel by total and non-empty-heap count (see the module documentation).
pub fn solve(max_heap: u32) -> Result<AmalgamationTable> {
    let max_heap = check_max_heap(max_heap)?;
    let index = TripleIndex::new(3 * max_heap);
    let mut values = vec![0u16; index.len()];
    for s in 0..=index.max_total {
        let rows = index.rows(s);
        let (first, end) = (rows[0], rows[rows.len() - 1]);
        // Sub-levels: (0,0,s); (0,b,c) with b >= 1; (a,b,c) with a >= 1.
        let zero_row_end = rows[1];
        for (lo, hi) in [
            (first, first + 1),
            (first + 1, zero_row_end),
            (zero_row_end, end),
        ] {
            if lo >= hi {
                continue;
            }
            let (done, rest) = values.split_at_mut(lo);
            let done: &[u16] = done;
            let index = &index;
            rest[..hi - lo]
                .par_iter_mut()
                .with_min_len(16)
                .enumerate()
                .for_each(|(k, v)| {
                    let (a, b, c) = index.triple(s, lo + k);
                    *v = grundy(index, done, a, b, c);
                });
        }
    }
    Ok(AmalgamationTable {
        max_heap,
        index,
        values,
    })
}

/// The number of edges of the compatibility graph H_X (the paper's eq. (2)): pairs i < j
/// with u_i > 0, u_j > 0 and u_i & u_j = 0, where u = x / 2.
pub fn edge_count(x1: u32, x2: u32, x3: u32) -> u32 {
    let u = [x1 >> 1, x2 >> 1, x3 >> 1];
    let edge = |i: usize, j: usize| (u[i] > 0 && u[j] > 0 && u[i] & u[j] == 0) as u32;
    edge(0, 1) + edge(0, 2) + edge(1, 2)
}

/// delta(X) (the paper's eq. (3)): 1 when H_X has one or two edges, 0 when none or three.
pub fn delta(x1: u32, x2: u32, x3: u32) -> u32 {
    matches!(edge_count(x1, x2, x3), 1 | 2) as u32
}

/// The closed Grundy formula (the paper's eq. (4)): G(X) = x1 xor x2 xor x3 xor delta(X).
pub fn formula_4(x1: u32, x2: u32, x3: u32) -> u32 {
    x1 ^ x2 ^ x3 ^ delta(x1, x2, x3)
}

/// The ordinary nim-sum, i.e. the closed formula without delta: deliberately wrong for this game
/// (it ignores merges), kept to show that [`compare`] notices a wrong formula.
pub fn nim_sum(x1: u32, x2: u32, x3: u32) -> u32 {
    x1 ^ x2 ^ x3
}

/// One position where the searched value and a formula differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mismatch {
    /// The sorted triple.
    pub position: (u32, u32, u32),
    /// Its Grundy value by exhaustive search.
    pub searched: u32,
    /// The formula's value.
    pub formula: u32,
}

/// The outcome of comparing a formula with every searched position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comparison {
    /// Positions compared (every searched sorted triple).
    pub checked: u64,
    /// How many differ.
    pub mismatch_count: u64,
    /// The first differing positions in table order (total, then a, then b), at most the
    /// number asked for.
    pub first_mismatches: Vec<Mismatch>,
}

/// Compares `formula` with the searched value of every position in `table`, keeping the
/// first `keep` mismatches in full.
pub fn compare<F>(table: &AmalgamationTable, formula: F, keep: usize) -> Comparison
where
    F: Fn(u32, u32, u32) -> u32,
{
    let mut out = Comparison {
        checked: 0,
        mismatch_count: 0,
        first_mismatches: Vec::new(),
    };
    for ((a, b, c), searched) in table.positions() {
        out.checked += 1;
        let predicted = formula(a, b, c);
        if predicted != searched {
            out.mismatch_count += 1;
            if out.first_mismatches.len() < keep {
                out.first_mismatches.push(Mismatch {
                    position: (a, b, c),
                    searched,
                    formula: predicted,
                });
            }
        }
    }
    out
}

/// One run of `nimsquare games amalgamation`: the search up to the box bound, a formula
/// compared with it, and the exit status the command returns.
#[derive(Debug, Clone)]
pub struct Check {
    pub table: AmalgamationTable,
    pub comparison: Comparison,
    pub summary: Summary,
    /// Seconds spent searching and comparing.
    pub search_seconds: f64,
    pub compare_seconds: f64,
}

impl Check {
    /// True when the formula agrees with the search on every position.
    pub fn passed(&self) -> bool {
        self.comparison.mismatch_count == 0
    }
}

/// Searches every position for the box bound `max_heap` and compares `formula` with it,
/// keeping the first `keep` mismatches. The CLI runs this with [`formula_4`] and exits with
/// status 1 when [`Check::passed`] is false; a wrong formula goes through the same path.
pub fn check<F>(max_heap: u32, formula: F, keep: usize) -> Result<Check>
where
    F: Fn(u32, u32, u32) -> u32,
{
    let start = std::time::Instant::now();
    let table = solve(max_heap)?;
    let search_seconds = start.elapsed().as_secs_f64();
    let start = std::time::Instant::now();
    let comparison = compare(&table, formula, keep);
    let compare_seconds = start.elapsed().as_secs_f64();
    Ok(Check {
        summary: summarize(&table),
        table,
        comparison,
        search_seconds,
        compare_seconds,
    })
}

/// Summary of the search for reporting: the positions inside the box (every heap <= B) and
/// the largest values, inside the box and over the whole search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// Sorted triples with every heap <= B.
    pub box_positions: u64,
    /// The largest value over the box, and the first sorted triple (table order) holding it.
    pub box_max_value: u32,
    pub box_max_at: (u32, u32, u32),
    /// The largest value over every searched position, and where it first occurs.
    pub max_value: u32,
    pub max_at: (u32, u32, u32),
}

/// Summarises a table (see [`Summary`]).
pub fn summarize(table: &AmalgamationTable) -> Summary {
    let mut s = Summary {
        box_positions: 0,
        box_max_value: 0,
        box_max_at: (0, 0, 0),
        max_value: 0,
        max_at: (0, 0, 0),
    };
    for (p, v) in table.positions() {
        if v > s.max_value {
            s.max_value = v;
            s.max_at = p;
        }
        if p.2 <= table.max_heap {
            s.box_positions += 1;
            if v > s.box_max_value {
                s.box_max_value = v;
                s.box_max_at = p;
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_numbers_every_sorted_triple_once_in_order() {
        let index = TripleIndex::new(20);
        let mut expected = 0usize;
        for s in 0..=20u32 {
            for a in 0..=s {
                for b in a..=s {
                    if a + b > s || b > s - a - b {
                        continue;
                    }
                    let c = s - a - b;
                    assert_eq!(index.index(a, b, c), expected, "({a},{b},{c})");
                    assert_eq!(index.triple(s, expected), (a, b, c));
                    expected += 1;
                }
            }
        }
        assert_eq!(index.len(), expected);
    }

    #[test]
    fn sort3_sorts_every_order() {
        for (x, y, z) in [
            (3, 1, 2),
            (1, 2, 3),
            (2, 3, 1),
            (3, 2, 1),
            (1, 3, 2),
            (2, 1, 3),
        ] {
            assert_eq!(sort3(x, y, z), (1, 2, 3));
        }
        assert_eq!(sort3(2, 0, 2), (0, 2, 2));
    }

    #[test]
    fn edge_count_reads_half_heaps() {
        // u = (1, 2, 4): every pair is disjoint, three edges.
        assert_eq!(edge_count(2, 4, 8), 3);
        // u = (1, 1, 1): every pair overlaps.
        assert_eq!(edge_count(2, 3, 2), 0);
        // A heap of 0 or 1 has u = 0 and no edges.
        assert_eq!(edge_count(1, 4, 0), 0);
    }
}
