//! Bounded Moore's Nim with m = 1 (seed `004_4dbc46da170626d6.txt`, "The count of odd
//! heaps"): win/lose for every multiset of H heaps each <= M, and the parity census.
//!
//! # Rules
//!
//! A move chooses between 1 and K non-empty heaps and takes exactly one counter from each.
//! Normal play: a player who cannot move (every heap empty) loses.
//!
//! # Census (what seed 004 measures)
//!
//! - positions and losing positions;
//! - the parity classes: for each count c of odd heaps, its positions, its losses, and whether
//!   it is settled (all lost or none);
//! - the sorted-parity word: the heaps sorted largest first, their parities read as an H-bit
//!   word (first heap = most significant bit). The census says whether the word decides the
//!   outcome (no word has both a won and a lost position), which words are lost, and whether
//!   the lost words form a linear subspace of GF(2)^H (contain 0, closed under xor). With a
//!   small M not every word occurs (sorted largest first, 0101... needs large heaps), so
//!   the census also says whether the lost words are exactly the occurring words of their
//!   span, the weaker statement a small census can support.
//!
//! # Algorithm
//!
//! A position is a multiset, stored as its heaps sorted largest first and numbered by the
//! colex rank of the combination c_i = a_i + i - 1 (a ascending), so the C(M+H, H) positions
//! are numbered 0..C(M+H, H) without gaps. Every move lowers the total by 1..K, so positions
//! are decided level by level in increasing total; the positions of one total have no moves
//! between them and are decided in parallel with rayon, reading only lower totals.
//!
//! Followers without duplicates or re-sorting: the heaps sorted largest first fall into runs
//! of equal values; taking one counter from the last j heaps of a run of value v keeps the
//! order (the next heap is below v, so at most v - 1). So a follower is a choice of j_r per
//! run with 1 <= sum j_r <= K, and it is already sorted.
//!
//! Cost: C(M+H, H) positions (490 314 at H = 8, M = 15), each with at most
//! sum_{j=1..K} C(H, j) followers, each ranked in O(H); one byte per position.
//!
//! The control [`slow_losing`] decides positions from the rules alone over ordered tuples
//! with a memo, sharing no code with the census.

use crate::error::{Error, Result};
use rayon::prelude::*;
use std::collections::HashMap;

/// The most heaps accepted (the sorted-parity word is a byte).
pub const MAX_HEAPS: usize = 8;
/// The largest heap size accepted (C(15 + 8, 8) = 490 314 positions at the most heaps).
pub const MAX_HEAP_SIZE: u32 = 15;

/// Validated parameters: H heaps, each <= M, a move touching 1..=K heaps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MooreParams {
    heaps: usize,
    max: u32,
    width: usize,
}

impl MooreParams {
    /// Checks 1 <= H <= [`MAX_HEAPS`], M <= [`MAX_HEAP_SIZE`], 1 <= K <= H.
    pub fn new(heaps: usize, max: u32, width: usize) -> Result<MooreParams> {
        if heaps == 0 {
            return Err(Error::Invalid(
                "--heaps must be at least 1 (a position needs a heap)".into(),
            ));
        }
        if heaps > MAX_HEAPS {
            return Err(Error::Invalid(format!(
                "--heaps {heaps} is above the supported maximum {MAX_HEAPS} (the sorted-parity word is a byte)"
            )));
        }
        if max > MAX_HEAP_SIZE {
            return Err(Error::Invalid(format!(
                "--max {max} is above the supported maximum {MAX_HEAP_SIZE} (C(M+H, H) positions: 490314 at H = 8, M = 15)"
            )));
        }
        if width == 0 {
            return Err(Error::Invalid(
                "--width must be at least 1 (a move takes a counter from at least one heap)".into(),
            ));
        }
        if width > heaps {
            return Err(Error::Invalid(format!(
                "--width {width} is above --heaps {heaps} (a move touches at most every heap)"
            )));
        }
        Ok(MooreParams { heaps, max, width })
    }

    /// H, the number of heaps.
    pub fn heaps(&self) -> usize {
        self.heaps
    }

    /// M, the largest heap size.
    pub fn max(&self) -> u32 {
        self.max
    }

    /// K, the most heaps a move touches.
    pub fn width(&self) -> usize {
        self.width
    }
}

/// A position: heap sizes sorted largest first (only the first H entries are used).
type Heaps = [u8; MAX_HEAPS];

/// Binomial coefficients C(n, k) for n <= MAX_HEAP_SIZE + MAX_HEAPS, k <= MAX_HEAPS.
struct Binomials([[u64; MAX_HEAPS + 1]; MAX_HEAP_SIZE as usize + MAX_HEAPS + 1]);

impl Binomials {
    fn new() -> Binomials {
        let mut t = [[0u64; MAX_HEAPS + 1]; MAX_HEAP_SIZE as usize + MAX_HEAPS + 1];
        for n in 0..t.len() {
            t[n][0] = 1;
            for k in 1..=MAX_HEAPS.min(n) {
                t[n][k] = t[n - 1][k - 1] + if k < n { t[n - 1][k] } else { 0 };
            }
        }
        Binomials(t)
    }

    fn get(&self, n: usize, k: usize) -> u64 {
        self.0[n][k]
    }

    /// The colex rank of the multiset `x[..h]` (sorted largest first): with a ascending,
    /// sum over i = 1..=h of C(a_i + i - 1, i).
    #[inline]
    fn rank(&self, x: &[u8]) -> usize {
        let h = x.len();
        let mut r = 0u64;
        for i in 1..=h {
            r += self.get(x[h - i] as usize + i - 1, i);
        }
        r as usize
    }
}

/// Win/lose for every position of one parameter set.
pub struct MooreSolution {
    params: MooreParams,
    /// Position number (colex rank) -> heaps sorted largest first.
    heaps: Vec<Heaps>,
    /// Position number -> lost for the player to move.
    losing: Vec<bool>,
}

impl MooreSolution {
    /// The parameters solved.
    pub fn params(&self) -> MooreParams {
        self.params
    }

    /// The number of positions, C(M + H, H).
    pub fn len(&self) -> usize {
        self.heaps.len()
    }

    /// Always false: there is at least the all-empty position.
    pub fn is_empty(&self) -> bool {
        self.heaps.is_empty()
    }

    /// Every position (heaps sorted largest first) with whether it is lost.
    pub fn positions(&self) -> impl Iterator<Item = (&[u8], bool)> + '_ {
        let h = self.params.heaps;
        self.heaps
            .iter()
            .zip(&self.losing)
            .map(move |(x, &lost)| (&x[..h], lost))
    }

    /// Whether the position with these heaps (any order, H of them, each <= M) is lost;
    /// `None` when it is not a position of this parameter set.
    pub fn is_losing(&self, heaps: &[u8]) -> Option<bool> {
        if heaps.len() != self.params.heaps || heaps.iter().any(|&x| x as u32 > self.params.max) {
            return None;
        }
        let mut x = heaps.to_vec();
        x.sort_unstable_by(|p, q| q.cmp(p));
        Some(self.losing[Binomials::new().rank(&x)])
    }
}

/// Every multiset, sorted largest first, in colex-rank order.
fn enumerate(params: MooreParams, binom: &Binomials) -> Vec<Heaps> {
    let h = params.heaps;
    let count = binom.get(params.max as usize + h, h) as usize;
    let mut out = vec![[0u8; MAX_HEAPS]; count];
    fn fill(
        x: &mut Heaps,
        i: usize,
        h: usize,
        cap: u8,
        binom: &Binomials,
        out: &mut [Heaps],
        seen: &mut usize,
    ) {
        if i == h {
            out[binom.rank(&x[..h])] = *x;
            *seen += 1;
            return;
        }
        for v in 0..=cap {
            x[i] = v;
            fill(x, i + 1, h, v, binom, out, seen);
        }
    }
    let mut seen = 0;
    fill(
        &mut [0u8; MAX_HEAPS],
        0,
        h,
        params.max as u8,
        binom,
        &mut out,
        &mut seen,
    );
    debug_assert_eq!(seen, count);
    out
}

/// True when some follower of `x` (sorted largest first) is lost, i.e. `x` is won.
/// `losing` must hold every position of lower total.
fn has_losing_follower(x: &[u8], width: usize, binom: &Binomials, losing: &[bool]) -> bool {
    // Runs of equal non-zero values: (start, length).
    let mut runs = [(0usize, 0usize); MAX_HEAPS];
    let mut nruns = 0;
    let mut i = 0;
    while i < x.len() && x[i] > 0 {
        let mut j = i + 1;
        while j < x.len() && x[j] == x[i] {
            j += 1;
        }
        runs[nruns] = (i, j - i);
        nruns += 1;
        i = j;
    }
    let mut y: Heaps = [0; MAX_HEAPS];
    y[..x.len()].copy_from_slice(x);
    fn search(
        y: &mut Heaps,
        h: usize,
        runs: &[(usize, usize)],
        budget: usize,
        used: usize,
        binom: &Binomials,
        losing: &[bool],
    ) -> bool {
        let Some((&(start, len), rest)) = runs.split_first() else {
            return used > 0 && losing[binom.rank(&y[..h])];
        };
        // Take one counter from the last j heaps of this run, j = 0..=min(len, budget).
        let mut found = search(y, h, rest, budget, used, binom, losing);
        let mut j = 0;
        while !found && j < len.min(budget) {
            j += 1;
            y[start + len - j] -= 1;
            found = search(y, h, rest, budget - j, used + j, binom, losing);
        }
        for k in 1..=j {
            y[start + len - k] += 1;
        }
        found
    }
    search(&mut y, x.len(), &runs[..nruns], width, 0, binom, losing)
}

/// Decides every position, level by level in increasing total, each level in parallel.
pub fn solve(params: MooreParams) -> MooreSolution {
    let binom = Binomials::new();
    let h = params.heaps;
    let heaps = enumerate(params, &binom);
    let max_total = h * params.max as usize;
    let mut levels: Vec<Vec<u32>> = vec![Vec::new(); max_total + 1];
    for (r, x) in heaps.iter().enumerate() {
        let total: usize = x[..h].iter().map(|&v| v as usize).sum();
        levels[total].push(r as u32);
    }
    let mut losing = vec![false; heaps.len()];
    for level in &levels {
        let decided: Vec<bool> = level
            .par_iter()
            .with_min_len(64)
            .map(|&r| !has_losing_follower(&heaps[r as usize][..h], params.width, &binom, &losing))
            .collect();
        for (&r, lost) in level.iter().zip(decided) {
            losing[r as usize] = lost;
        }
    }
    MooreSolution {
        params,
        heaps,
        losing,
    }
}

/// One parity class: the positions with `odd` odd heaps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParityClass {
    pub odd: usize,
    pub positions: u64,
    pub losing: u64,
    /// All lost or none.
    pub settled: bool,
}

/// The census of seed 004 over one solution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Census {
    pub positions: u64,
    pub losing: u64,
    /// The non-empty classes, by odd count ascending.
    pub classes: Vec<ParityClass>,
    /// No sorted-parity word has both a won and a lost position.
    pub sorted_parity_decides: bool,
    /// The words (bit H-1 = largest heap) all of whose positions are lost, ascending.
    pub losing_words: Vec<u32>,
    /// The words having both won and lost positions, ascending.
    pub mixed_words: Vec<u32>,
    /// `losing_words` contains 0 and is closed under xor.
    pub subspace: bool,
    /// How many words occur (have at least one position).
    pub words_occurring: usize,
    /// The occurring words inside the span of `losing_words` are exactly `losing_words`.
    pub subspace_within_occurring: bool,
}

/// The sorted-parity word of heaps sorted largest first: bit H-1-i is the parity of heap i.
pub fn parity_word(x: &[u8]) -> u32 {
    x.iter().fold(0u32, |w, &v| (w << 1) | (v as u32 & 1))
}

/// Formats a word as H binary digits, largest heap first.
pub fn word_string(word: u32, heaps: usize) -> String {
    format!("{word:0heaps$b}")
}

/// Whether a set of words contains 0 and is closed under xor.
pub fn is_subspace(words: &[u32]) -> bool {
    let set: std::collections::HashSet<u32> = words.iter().copied().collect();
    set.contains(&0)
        && words
            .iter()
            .all(|&p| words.iter().all(|&q| set.contains(&(p ^ q))))
}

/// Every element of the GF(2) span of `words`, as a membership table of 2^`bits` entries.
fn span_table(words: &[u32], bits: usize) -> Vec<bool> {
    let mut basis: Vec<u32> = Vec::new();
    for &w in words {
        let reduced = basis.iter().fold(w, |r, &b| r.min(r ^ b));
        if reduced != 0 {
            basis.push(reduced);
            basis.sort_unstable_by(|p, q| q.cmp(p));
        }
    }
    let mut table = vec![false; 1 << bits];
    for combo in 0u32..(1 << basis.len()) {
        let w = (0..basis.len())
            .filter(|&i| combo >> i & 1 == 1)
            .fold(0, |acc, i| acc ^ basis[i]);
        table[w as usize] = true;
    }
    table
}

/// Counts the census of seed 004 over a solution.
pub fn census(solution: &MooreSolution) -> Census {
    let h = solution.params.heaps;
    let mut class = vec![(0u64, 0u64); h + 1];
    let mut word = vec![(0u64, 0u64); 1 << h];
    let (mut positions, mut losing) = (0u64, 0u64);
    for (x, lost) in solution.positions() {
        let odd = x.iter().filter(|&&v| v % 2 == 1).count();
        let w = parity_word(x) as usize;
        positions += 1;
        class[odd].0 += 1;
        word[w].0 += 1;
        if lost {
            losing += 1;
            class[odd].1 += 1;
            word[w].1 += 1;
        }
    }
    let classes = class
        .iter()
        .enumerate()
        .filter(|(_, &(n, _))| n > 0)
        .map(|(odd, &(n, l))| ParityClass {
            odd,
            positions: n,
            losing: l,
            settled: l == 0 || l == n,
        })
        .collect();
    let losing_words: Vec<u32> = (0..word.len())
        .filter(|&w| word[w].0 > 0 && word[w].1 == word[w].0)
        .map(|w| w as u32)
        .collect();
    let mixed_words: Vec<u32> = (0..word.len())
        .filter(|&w| word[w].1 > 0 && word[w].1 < word[w].0)
        .map(|w| w as u32)
        .collect();
    let in_span = span_table(&losing_words, h);
    let words_occurring = word.iter().filter(|&&(n, _)| n > 0).count();
    let subspace_within_occurring = (0..word.len())
        .filter(|&w| word[w].0 > 0)
        .all(|w| in_span[w] == losing_words.contains(&(w as u32)));
    Census {
        words_occurring,
        subspace_within_occurring,
        positions,
        losing,
        classes,
        sorted_parity_decides: mixed_words.is_empty(),
        subspace: is_subspace(&losing_words),
        losing_words,
        mixed_words,
    }
}

/// The control: whether the position `heaps` (any order) is lost, from the rules alone.
///
/// A depth-first search over ordered tuples with a memo: try every non-empty set of at most
/// `width` non-empty heaps (as a bit mask), take one counter from each, and call the position
/// lost when no follower is lost. No sorting, ranking or run structure; exponential in the
/// number of heaps and meant for small H and M.
pub fn slow_losing(heaps: &[u8], width: usize, memo: &mut HashMap<Vec<u8>, bool>) -> bool {
    if let Some(&lost) = memo.get(heaps) {
        return lost;
    }
    let n = heaps.len();
    let mut lost = true;
    for mask in 1u32..(1 << n) {
        let chosen: Vec<usize> = (0..n).filter(|&i| mask >> i & 1 == 1).collect();
        if chosen.len() > width || chosen.iter().any(|&i| heaps[i] == 0) {
            continue;
        }
        let mut next = heaps.to_vec();
        for &i in &chosen {
            next[i] -= 1;
        }
        if slow_losing(&next, width, memo) {
            lost = false;
            break;
        }
    }
    memo.insert(heaps.to_vec(), lost);
    lost
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_number_the_multisets_without_gaps() {
        let binom = Binomials::new();
        let p = MooreParams::new(4, 6, 2).unwrap();
        let all = enumerate(p, &binom);
        assert_eq!(all.len() as u64, binom.get(10, 4)); // C(6 + 4, 4) = 210
        assert_eq!(all.len(), 210);
        let mut ranks: Vec<usize> = all.iter().map(|x| binom.rank(&x[..4])).collect();
        ranks.sort_unstable();
        assert!(ranks.iter().enumerate().all(|(i, &r)| i == r));
        for x in &all {
            assert!(x[..4].windows(2).all(|w| w[0] >= w[1]), "{x:?} not sorted");
        }
    }

    #[test]
    fn parity_word_reads_largest_heap_first() {
        assert_eq!(parity_word(&[3, 2, 1]), 0b101);
        assert_eq!(word_string(0b101, 5), "00101");
    }

    #[test]
    fn subspace_test() {
        assert!(is_subspace(&[0, 0b11, 0b101, 0b110]));
        assert!(!is_subspace(&[0, 0b11, 0b101]));
        assert!(!is_subspace(&[0b11]));
    }

    #[test]
    fn span_table_spans() {
        let t = span_table(&[0b011, 0b110, 0b101], 3);
        let members: Vec<usize> = (0..8).filter(|&w| t[w]).collect();
        assert_eq!(members, vec![0b000, 0b011, 0b101, 0b110]);
        let t = span_table(&[], 2);
        assert_eq!(t, vec![true, false, false, false]);
    }
}
