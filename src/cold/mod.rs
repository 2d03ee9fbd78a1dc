//! The cold positions (Grundy value 0) of one heap, without the rest of the table.
//!
//! A position n is cold exactly when no n - s (s a move, s <= n) is cold. Deciding only this
//! bit needs far less work than the full table: the sieve ([`Sieve`]) spends about one mark
//! per (cold position, move) pair, #cold · sqrt(N) for the squares where #cold grows like
//! N^0.7, instead of the table's N^1.5 option steps (Eppstein, "Faster Evaluation of
//! Subtraction Games", FUN 2018, arXiv:1804.06515).
//!
//! Every back-end implements [`ColdFinder`] and returns the same [`ColdSet`]; the registry
//! [`BACKENDS`] lists them, and [`Naive`] (`naive-cold`) is the control the fast one is
//! checked against (`tests/cold.rs`).
//!
//! Type limits: positions are below 2^32 (N <= 2^32 - 1, as for [`crate::table::MAX_LIMIT`]),
//! so a cold position fits `u32`; counts are `u64`.

pub mod naive;
pub mod sieve;

pub use naive::Naive;
pub use sieve::{Sieve, DEFAULT_WINDOW};

use crate::base::moves::Moves;
use crate::registry::Entry;
use crate::table::Table;

/// The cold positions among 0..=N, one bit per position.
///
/// Invariant: bit n of `bits` (word n / 64, bit n % 64) is set exactly when n <= `limit` is
/// cold; the bits past `limit` in the last word are zero (so derived equality is set
/// equality), and `count` is the number of set bits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColdSet {
    bits: Vec<u64>,
    limit: usize,
    count: u64,
}

impl ColdSet {
    /// The empty set over 0..=`limit` (no position marked cold yet).
    pub(crate) fn empty(limit: usize) -> ColdSet {
        ColdSet {
            bits: vec![0; limit / 64 + 1],
            limit,
            count: 0,
        }
    }

    /// Marks `n` (<= limit) cold. Each position must be inserted at most once.
    pub(crate) fn insert(&mut self, n: usize) {
        debug_assert!(n <= self.limit && !self.contains(n));
        self.bits[n / 64] |= 1 << (n % 64);
        self.count += 1;
    }

    /// The zero set of a Grundy table: the positions with g = 0.
    pub fn from_table(table: &Table) -> ColdSet {
        let mut set = ColdSet::empty(table.limit());
        for (n, &v) in table.values().iter().enumerate() {
            if v == 0 {
                set.insert(n);
            }
        }
        set
    }

    /// N, the largest position the set covers.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// The number of cold positions in 0..=N.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// True when `n` is cold (false for `n` > N).
    pub fn contains(&self, n: usize) -> bool {
        n <= self.limit && self.bits[n / 64] >> (n % 64) & 1 == 1
    }

    /// The cold positions, ascending.
    pub fn positions(&self) -> impl Iterator<Item = usize> + '_ {
        self.bits.iter().enumerate().flat_map(|(w, &word)| {
            let mut rest = word;
            std::iter::from_fn(move || {
                (rest != 0).then(|| {
                    let bit = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    w * 64 + bit
                })
            })
        })
    }

    /// The first position where the two sets differ. A position covered by only one of them
    /// counts as a difference, so sets over different limits differ at the latest at
    /// min(limit) + 1.
    pub fn first_difference(&self, other: &ColdSet) -> Option<usize> {
        let shared = self.limit.min(other.limit);
        let within = self
            .bits
            .iter()
            .zip(&other.bits)
            .enumerate()
            .find(|(_, (a, b))| a != b)
            .map(|(w, (a, b))| w * 64 + (a ^ b).trailing_zeros() as usize)
            .filter(|&n| n <= shared);
        within.or((self.limit != other.limit).then_some(shared + 1))
    }

    /// The sieve's unit of work for this set: the marks c + s it places, one for every cold
    /// c and every move s with c + s <= N.
    pub fn marks(&self, moves: &Moves) -> u128 {
        let moves = moves.up_to(self.limit);
        self.positions()
            .map(|c| moves.partition_point(|&s| s <= self.limit - c) as u128)
            .sum()
    }

    /// Bytes of memory the set holds (the bit vector and the struct).
    pub fn bytes(&self) -> u64 {
        (self.bits.capacity() * 8 + std::mem::size_of::<ColdSet>()) as u64
    }
}

/// A cold-set back-end: turns (moves, N) into a [`ColdSet`].
pub trait ColdFinder: Send + Sync {
    /// The cold positions among 0..=`limit`. `limit` must be below 2^32
    /// (from a [`crate::base::limit::Limit`]).
    fn cold(&self, moves: &Moves, limit: usize) -> ColdSet;

    /// An estimate of the memory this back-end needs beyond the N-bit output, in bytes, when
    /// run with `threads` threads.
    fn scratch_bytes(&self, moves: &Moves, limit: usize, threads: usize) -> u64;

    /// The largest N this back-end affords, if it is limited (the naive control is
    /// O(N · #moves)); callers skip it beyond, saying so.
    fn affordable_limit(&self) -> Option<usize> {
        None
    }
}

/// Every cold-set back-end (each file declares its own entry): the sieve (the stage's
/// reference) and its control.
pub static BACKENDS: &[Entry<dyn ColdFinder>] = &[sieve::ENTRY, naive::ENTRY];

crate::registry::stage!("cold", dyn ColdFinder, BACKENDS, reference);

#[cfg(test)]
mod tests {
    use super::*;

    fn set_of(limit: usize, cold: &[usize]) -> ColdSet {
        let mut set = ColdSet::empty(limit);
        cold.iter().for_each(|&n| set.insert(n));
        set
    }

    #[test]
    fn positions_and_contains() {
        let set = set_of(200, &[0, 63, 64, 130, 200]);
        assert_eq!(set.positions().collect::<Vec<_>>(), [0, 63, 64, 130, 200]);
        assert_eq!((set.count(), set.limit()), (5, 200));
        assert!(set.contains(64) && !set.contains(65) && !set.contains(201));
    }

    #[test]
    fn first_difference_finds_the_earliest() {
        let a = set_of(200, &[0, 70, 150]);
        assert_eq!(a.first_difference(&a.clone()), None);
        assert_eq!(a.first_difference(&set_of(200, &[0, 70, 151])), Some(150));
        assert_eq!(a.first_difference(&set_of(200, &[0, 69, 150])), Some(69));
        assert_eq!(a.first_difference(&set_of(210, &[0, 70, 150])), Some(201));
        assert_eq!(
            set_of(5, &[0]).first_difference(&set_of(6, &[0, 6])),
            Some(6)
        );
    }

    #[test]
    fn from_table_is_the_zero_set() {
        let table = Table::from_values(vec![0, 1, 0, 1, 2, 0]);
        assert_eq!(ColdSet::from_table(&table), set_of(5, &[0, 2, 5]));
    }

    /// The sieve's marks for the cold positions of the squares up to 22, counted by hand: each
    /// cold c marks c + s for the squares s <= 22 - c (4, 4, 4, 3, 3, 3, 2, 2, 1, 0 of them).
    #[test]
    fn marks_count_one_for_every_cold_position_and_move_that_stays_within_the_limit() {
        let set = set_of(22, &[0, 2, 5, 7, 10, 12, 15, 17, 20, 22]);
        assert_eq!(set.marks(&Moves::Squares), 26);
        assert_eq!(set_of(22, &[]).marks(&Moves::Squares), 0);
    }

    #[test]
    fn find_knows_both() {
        assert!(find("sieve").is_ok() && find("naive-cold").is_ok());
        assert!(find("nope").is_err());
    }

    #[test]
    fn the_reference_is_the_sieve() {
        assert_eq!(reference().name, "sieve");
    }
}
