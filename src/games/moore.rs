//! Bounded Moore's Nim with m = 1 ("bounded Moore's Nim": Moore's Nim where a move takes
//! exactly one counter from each of at most K heaps, studied through the count of odd heaps):
//! win/lose for every multiset of H heaps each <= M, and the parity census.
//!
//! # Rules
//!
//! A move chooses between 1 and K non-empty heaps and takes exactly one counter from each.
//! Normal play: a player who cannot move (every heap empty) loses.
//!
//! # Census
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
//! between them and are decided in parallel with rayon (small levels in sequence), reading
//! only lower totals.
//!
//! Followers without duplicates or re-sorting: the heaps sorted largest first fall into runs
//! of equal values; taking one counter from the last j heaps of a run of value v keeps the
//! order (the next heap is below v, so at most v - 1). So a follower is a choice of j_r per
//! run with 1 <= sum j_r <= K, and it is already sorted.
//!
//! Cost: C(M+H, H) positions, each with at most sum_{j=1..K} C(H, j) followers, each ranked
//! in O(H); [`MooreParams::bytes`] bytes. The parameters are capped by that work, not one by
//! one: at most [`MAX_POSITIONS`] positions and [`MAX_BYTES`] bytes, H at most [`MAX_HEAPS`].
//!
//! The control [`slow_losing`] decides positions from the rules alone over ordered tuples
//! with a memo, sharing no code with the census.

use crate::base::error::{Error, Result};
use rayon::prelude::*;
use std::collections::HashMap;

/// The most heaps accepted: the sorted-parity census keeps a table of 2^H words.
pub const MAX_HEAPS: usize = 16;
/// The most positions C(M + H, H) accepted, whatever H and M are.
pub const MAX_POSITIONS: u64 = 10_000_000;
/// The most memory a solve may take (heaps, outcome, level order and binomial table).
pub const MAX_BYTES: u64 = 1 << 30;

/// C(n, k) for k <= [`MAX_HEAPS`], or None once it exceeds `cap` (so huge M never overflows).
fn binomial_capped(n: u64, k: u64, cap: u64) -> Option<u64> {
    let mut c: u128 = 1;
    for i in 1..=k as u128 {
        c = c * (n as u128 - k as u128 + i) / i;
        if c > cap as u128 {
            return None;
        }
    }
    Some(c as u64)
}

/// Refuses `flag value` unless 1 <= value <= `most`: below, "must be at least 1 (`why_one`)";
/// above, "is above `above`" (which names the bound and says why it holds).
fn check_count(flag: &str, value: usize, why_one: &str, most: usize, above: &str) -> Result<()> {
    if value == 0 {
        return Err(Error::Invalid(format!(
            "{flag} must be at least 1 ({why_one})"
        )));
    }
    if value > most {
        return Err(Error::Invalid(format!("{flag} {value} is above {above}")));
    }
    Ok(())
}

/// Validated parameters: H heaps, each <= M, a move touching 1..=K heaps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MooreParams {
    heaps: usize,
    max: u32,
    width: usize,
}

impl MooreParams {
    /// Checks 1 <= H <= [`MAX_HEAPS`], 1 <= K <= H, and that the positions C(M + H, H) and the
    /// memory stay within [`MAX_POSITIONS`] and [`MAX_BYTES`]; refusals name the flag.
    pub fn new(heaps: usize, max: u32, width: usize) -> Result<MooreParams> {
        check_count(
            "--heaps",
            heaps,
            "a position needs a heap",
            MAX_HEAPS,
            &format!(
                "the supported maximum {MAX_HEAPS} (the parity census keeps a table of 2^H words)"
            ),
        )?;
        check_count(
            "--width",
            width,
            "a move takes a counter from at least one heap",
            heaps,
            &format!("--heaps {heaps} (a move touches at most every heap)"),
        )?;
        let params = MooreParams { heaps, max, width };
        let Some(positions) =
            binomial_capped(max as u64 + heaps as u64, heaps as u64, MAX_POSITIONS)
        else {
            return Err(Error::Invalid(format!(
                "--max {max} with --heaps {heaps} has more than {MAX_POSITIONS} positions \
                 (C(M + H, H)), the cap; lower --max or --heaps"
            )));
        };
        let bytes = params.bytes(positions);
        if bytes > MAX_BYTES {
            return Err(Error::Invalid(format!(
                "--max {max} with --heaps {heaps} would take {} MB for its {positions} positions, \
                 above the cap of {} MB; lower --max or --heaps",
                bytes >> 20,
                MAX_BYTES >> 20
            )));
        }
        Ok(params)
    }

    /// The memory of a solve with `positions` positions: per position H heaps (4 bytes each),
    /// the outcome and the level order; a level index per total; the binomial table.
    pub fn bytes(&self, positions: u64) -> u64 {
        let (h, m) = (self.heaps as u64, self.max as u64);
        positions * (4 * h + 1 + 4) + 4 * (h * m + 2) + 4 * (m + 1) * h
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

/// The colex ranking of multisets: column i (1..=H) holds C(x + i - 1, i) for x = 0..=M,
/// the term a heap of x contributes as the i-th smallest heap. Every entry is at most the
/// number of positions, so u32 suffices.
struct Binomials(Vec<Vec<u32>>);

impl Binomials {
    fn new(params: MooreParams) -> Binomials {
        let m = params.max as usize;
        let mut cols = vec![vec![1u32; m + 1]; params.heaps + 1];
        for i in 1..=params.heaps {
            // C(x + i - 1, i) = C(x + i - 2, i) + C(x + i - 2, i - 1), i.e. the running sum
            // of column i - 1 shifted: col_i[x] = col_i[x - 1] + col_{i-1}[x].
            cols[i][0] = 0;
            for x in 1..=m {
                cols[i][x] = cols[i][x - 1] + cols[i - 1][x];
            }
        }
        Binomials(cols)
    }

    /// The colex rank of the multiset `x` (sorted largest first): with a ascending,
    /// sum over i = 1..=h of C(a_i + i - 1, i).
    #[inline]
    fn rank(&self, x: &[u32]) -> usize {
        let h = x.len();
        let mut r = 0usize;
        for i in 1..=h {
            r += self.0[i][x[h - i] as usize] as usize;
        }
        r
    }
}

/// Win/lose for every position of one parameter set.
pub struct MooreSolution {
    params: MooreParams,
    /// The heaps of position r (sorted largest first) at r*H..(r+1)*H.
    heaps: Vec<u32>,
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
        self.losing.len()
    }

    /// Always false: there is at least the all-empty position.
    pub fn is_empty(&self) -> bool {
        self.losing.is_empty()
    }

    /// Every position (heaps sorted largest first) with whether it is lost.
    pub fn positions(&self) -> impl Iterator<Item = (&[u32], bool)> + '_ {
        self.heaps
            .chunks_exact(self.params.heaps)
            .zip(&self.losing)
            .map(|(x, &lost)| (x, lost))
    }

    /// Whether the position with these heaps (any order, H of them, each <= M) is lost;
    /// `None` when it is not a position of this parameter set.
    pub fn is_losing(&self, heaps: &[u32]) -> Option<bool> {
        if heaps.len() != self.params.heaps || heaps.iter().any(|&x| x > self.params.max) {
            return None;
        }
        let mut x = heaps.to_vec();
        x.sort_unstable_by(|p, q| q.cmp(p));
        Some(self.losing[Binomials::new(self.params).rank(&x)])
    }
}

/// Every multiset, sorted largest first, flat (H heaps per position), in colex-rank order.
fn enumerate(params: MooreParams, binom: &Binomials, count: usize) -> Vec<u32> {
    let h = params.heaps;
    let mut out = vec![0u32; count * h];
    fn fill(x: &mut [u32], i: usize, cap: u32, binom: &Binomials, out: &mut [u32]) {
        let h = x.len();
        if i == h {
            let r = binom.rank(x);
            out[r * h..(r + 1) * h].copy_from_slice(x);
            return;
        }
        for v in 0..=cap {
            x[i] = v;
            fill(x, i + 1, v, binom, out);
        }
    }
    fill(&mut vec![0u32; h], 0, params.max, binom, &mut out);
    out
}

/// True when some follower of `x` (sorted largest first) is lost, i.e. `x` is won.
/// `losing` must hold every position of lower total.
fn has_losing_follower(x: &[u32], width: usize, binom: &Binomials, losing: &[bool]) -> bool {
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
    let mut y = [0u32; MAX_HEAPS];
    y[..x.len()].copy_from_slice(x);
    fn search(
        y: &mut [u32],
        runs: &[(usize, usize)],
        budget: usize,
        used: usize,
        binom: &Binomials,
        losing: &[bool],
    ) -> bool {
        let Some((&(start, len), rest)) = runs.split_first() else {
            return used > 0 && losing[binom.rank(y)];
        };
        // Take one counter from the last j heaps of this run, j = 0..=min(len, budget).
        let mut found = search(y, rest, budget, used, binom, losing);
        let mut j = 0;
        while !found && j < len.min(budget) {
            j += 1;
            y[start + len - j] -= 1;
            found = search(y, rest, budget - j, used + j, binom, losing);
        }
        for k in 1..=j {
            y[start + len - k] += 1;
        }
        found
    }
    search(&mut y[..x.len()], &runs[..nruns], width, 0, binom, losing)
}

/// The position numbers ordered by total, and where each total starts in that order
/// (a counting sort: one flat array instead of a vector per total).
fn by_total(heaps: &[u32], h: usize, max_total: usize) -> (Vec<u32>, Vec<usize>) {
    let totals: Vec<usize> = heaps
        .chunks_exact(h)
        .map(|x| x.iter().map(|&v| v as usize).sum())
        .collect();
    let mut starts = vec![0usize; max_total + 2];
    for &t in &totals {
        starts[t + 1] += 1;
    }
    for t in 1..starts.len() {
        starts[t] += starts[t - 1];
    }
    let mut next = starts.clone();
    let mut order = vec![0u32; totals.len()];
    for (r, &t) in totals.iter().enumerate() {
        order[next[t]] = r as u32;
        next[t] += 1;
    }
    (order, starts)
}

/// Decides every position, level by level in increasing total, each large level in parallel.
pub fn solve(params: MooreParams) -> MooreSolution {
    let h = params.heaps;
    let binom = Binomials::new(params);
    let count = binomial_capped(params.max as u64 + h as u64, h as u64, u64::MAX)
        .expect("checked by MooreParams::new") as usize;
    let heaps = enumerate(params, &binom, count);
    let (order, starts) = by_total(&heaps, h, h * params.max as usize);
    let mut losing = vec![false; count];
    let decide = |r: u32, losing: &[bool]| {
        let x = &heaps[r as usize * h..(r as usize + 1) * h];
        !has_losing_follower(x, params.width, &binom, losing)
    };
    for level in starts.windows(2).map(|w| &order[w[0]..w[1]]) {
        let decided: Vec<bool> = if level.len() < 256 {
            level.iter().map(|&r| decide(r, &losing)).collect()
        } else {
            level
                .par_iter()
                .with_min_len(64)
                .map(|&r| decide(r, &losing))
                .collect()
        };
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

/// The census over one solution (see the module documentation).
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
pub fn parity_word(x: &[u32]) -> u32 {
    x.iter().fold(0u32, |w, &v| (w << 1) | (v & 1))
}

/// Formats a word as H binary digits, largest heap first.
pub fn word_string(word: u32, heaps: usize) -> String {
    format!("{word:0heaps$b}")
}

/// A basis of the GF(2) span of `words` (reduced, largest leading bit first).
fn basis(words: &[u32]) -> Vec<u32> {
    let mut basis: Vec<u32> = Vec::new();
    for &w in words {
        let reduced = basis.iter().fold(w, |r, &b| r.min(r ^ b));
        if reduced != 0 {
            basis.push(reduced);
            basis.sort_unstable_by(|p, q| q.cmp(p));
        }
    }
    basis
}

/// Whether a set of words contains 0 and is closed under xor: a set inside its span is the
/// whole span exactly when it has 2^rank distinct elements (no pairwise xor test, which
/// would be quadratic in the 2^16 words of 16 heaps).
pub fn is_subspace(words: &[u32]) -> bool {
    let set: std::collections::HashSet<u32> = words.iter().copied().collect();
    set.contains(&0) && set.len() as u64 == 1u64 << basis(words).len()
}

/// Every element of the GF(2) span of `words`, as a membership table of 2^`bits` entries.
fn span_table(words: &[u32], bits: usize) -> Vec<bool> {
    let basis = basis(words);
    let mut table = vec![false; 1 << bits];
    for combo in 0u32..(1 << basis.len()) {
        let w = (0..basis.len())
            .filter(|&i| combo >> i & 1 == 1)
            .fold(0, |acc, i| acc ^ basis[i]);
        table[w as usize] = true;
    }
    table
}

/// Counts the census over a solution.
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
    let lost_word = |w: usize| word[w].0 > 0 && word[w].1 == word[w].0;
    let subspace_within_occurring = (0..word.len())
        .filter(|&w| word[w].0 > 0)
        .all(|w| in_span[w] == lost_word(w));
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
pub fn slow_losing(heaps: &[u32], width: usize, memo: &mut HashMap<Vec<u32>, bool>) -> bool {
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
        let p = MooreParams::new(4, 6, 2).unwrap();
        let binom = Binomials::new(p);
        let all = enumerate(p, &binom, 210); // C(6 + 4, 4) = 210
        let mut ranks: Vec<usize> = all.chunks_exact(4).map(|x| binom.rank(x)).collect();
        ranks.sort_unstable();
        assert!(ranks.iter().enumerate().all(|(i, &r)| i == r));
        for x in all.chunks_exact(4) {
            assert!(x.windows(2).all(|w| w[0] >= w[1]), "{x:?} not sorted");
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
        assert!(is_subspace(&[0]));
        assert!(!is_subspace(&[0, 0b1, 0b10]));
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
