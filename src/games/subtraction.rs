//! Subtraction games on one heap ("subtraction games with a period": the Grundy sequence of
//! a finite subtraction set is eventually periodic): the Grundy sequence of any subtraction
//! set, its cold positions, and the preperiod and period of the sequence for a finite set.
//!
//! Algorithm (periodicity). Let s_max be the largest move of a finite set. For n >= s_max
//! every move is available, so g(n) = mex{g(n-s) : s in the set} is a function of the
//! window of the s_max values g(n-s_max), …, g(n-1) alone. Write W(m) for the window
//! g(m), …, g(m+s_max-1). Then W(m+1) is a function of W(m) for every m >= 0, and if
//! W(m) = W(m+p) for some p > 0, induction gives g(n) = g(n+p) for every n >= m. The
//! windows form a deterministic sequence over a finite alphabet, so they eventually repeat;
//! the *first* repetition, W(j) = W(m) with j smallest, gives the least preperiod m and
//! the least period p = j - m of the window sequence, and hence of g itself (g is periodic
//! from n0 with period q exactly when the windows are). Values are at most the number of
//! moves, so there are finitely many windows, but possibly very many: the search stops at a
//! stated bound and says so rather than guessing.
//!
//! Cost: the table up to the point of repetition (doubling the computed length, so at most
//! twice the work of the final length L: O(L · moves)), plus O(L) for a rolling hash of the
//! windows, each hash hit confirmed by comparing the s_max values (O(s_max) per hit).
//!
//! Invariant: a reported period is a proven one — the two windows were compared value by
//! value; a hash match alone never reports a period.

use crate::base::error::{Error, Result};
use crate::base::moves::Moves;
use crate::table::{self, Table};
use std::collections::HashMap;

/// At most how many values of g the report lists (the JSON field `values`: g(0..=limit), cut at 64).
pub const VALUES_SHOWN: usize = 64;

/// The default bound on how far the period search computes g.
pub const DEFAULT_PERIOD_SEARCH: usize = 1 << 20;

/// The largest bound accepted for the period search: the window index takes about 16 to 32
/// bytes per position, so 10^7 positions stay under about 320 MB.
pub const MAX_PERIOD_SEARCH: usize = 10_000_000;

/// A proven eventual period of the Grundy sequence of a finite subtraction set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Periodicity {
    /// The least m with g(n) = g(n + period) for every n >= m.
    pub preperiod: usize,
    /// The least p > 0 with that property.
    pub period: usize,
    /// The window length s_max: W(preperiod) and W(preperiod + period) agree on this many
    /// consecutive values, which is what proves the period.
    pub window: usize,
    /// How far g was computed to find the repetition.
    pub computed_up_to: usize,
}

/// What the period search found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PeriodSearch {
    /// A repeated window: the sequence is periodic from there on.
    Found(Periodicity),
    /// No window of `window` values repeated among the windows starting at
    /// 0..=`searched_up_to` - `window`.
    NotFound {
        window: usize,
        searched_up_to: usize,
    },
    /// The set is infinite (the squares): periodicity detection applies to finite sets.
    InfiniteSet,
}

/// The report of `nimsquare games subtraction`.
#[derive(Debug, Clone)]
pub struct Analysis {
    /// The subtraction set.
    pub moves: Moves,
    /// N: cold positions are listed up to here.
    pub limit: usize,
    /// g(0), …, g(min(limit, 63)): the values up to the limit, at most the first 64.
    pub values: Vec<u16>,
    /// The cold positions (g = 0) up to N, ascending.
    pub cold: Vec<usize>,
    /// The largest value of g up to N.
    pub max_value: u16,
    /// Preperiod and period, or why there is none.
    pub period: PeriodSearch,
}

/// The first repeated window of length `window` in `values`, as (m, j) with W(m) = W(j),
/// j smallest and m < j; `None` if no window starting at 0..=len-window repeats.
///
/// A polynomial rolling hash (wrapping, mod 2^64) finds candidates; every candidate is
/// confirmed by comparing the values, so a hash collision cannot report a repeat.
pub fn first_repeated_window(values: &[u16], window: usize) -> Option<(usize, usize)> {
    // An odd base, so multiplication by it is invertible mod 2^64.
    first_repeated_window_hashed(values, window, 0x100_0000_01B3)
}

/// [`first_repeated_window`] with the hash base as a parameter, so a test can force
/// collisions (base 1 hashes a window to the sum of its values).
fn first_repeated_window_hashed(
    values: &[u16],
    window: usize,
    base: u64,
) -> Option<(usize, usize)> {
    assert!(window >= 1, "a window holds at least one value");
    if values.len() < window {
        return None;
    }
    let top = (1..window).fold(1u64, |acc, _| acc.wrapping_mul(base)); // base^(window-1)
    let digit = |v: u16| u64::from(v) + 1;
    let mut hash = values[..window].iter().fold(0u64, |acc, &v| {
        acc.wrapping_mul(base).wrapping_add(digit(v))
    });
    // The first window start of each hash; later starts whose window differs from it (hash
    // collisions, astronomically rare) go to `collided`, so no window is ever forgotten.
    let mut first: HashMap<u64, u32> = HashMap::new();
    let mut collided: HashMap<u64, Vec<u32>> = HashMap::new();
    let same = |m: usize, j: usize| values[m..m + window] == values[j..j + window];
    for j in 0..=values.len() - window {
        if j > 0 {
            hash = hash
                .wrapping_sub(digit(values[j - 1]).wrapping_mul(top))
                .wrapping_mul(base)
                .wrapping_add(digit(values[j + window - 1]));
        }
        let j32 = u32::try_from(j).expect("window starts fit u32 (N < 2^32)");
        match first.get(&hash) {
            None => {
                first.insert(hash, j32);
            }
            Some(&m) if same(m as usize, j) => return Some((m as usize, j)),
            Some(_) => {
                let others = collided.entry(hash).or_default();
                if let Some(&m) = others.iter().find(|&&m| same(m as usize, j)) {
                    return Some((m as usize, j));
                }
                others.push(j32);
            }
        }
    }
    None
}

/// The preperiod and period of g for a finite subtraction set, computing g up to at most
/// `search_max`, or `NotFound` with the bound reached (at once when `search_max` is
/// below 2·s_max, too short to hold two windows).
pub fn find_period(moves: &Moves, search_max: usize) -> Result<PeriodSearch> {
    if search_max > MAX_PERIOD_SEARCH {
        return Err(Error::Invalid(format!(
            "a period search up to {search_max} is above the maximum {MAX_PERIOD_SEARCH} (the window index needs about 32 bytes per position)"
        )));
    }
    let Moves::List(list) = moves else {
        return Ok(PeriodSearch::InfiniteSet);
    };
    let window = *list.last().expect("a list of moves is never empty");
    let window = usize::try_from(window)
        .ok()
        .filter(|&w| w as u64 <= table::MAX_LIMIT)
        .ok_or_else(|| {
            Error::Invalid(format!(
                "the largest move {window} is above the supported maximum {}",
                table::MAX_LIMIT
            ))
        })?;
    let mut length = (8 * window).max(4096).min(search_max);
    loop {
        let t = table::build(table::reference().name, moves, length as u64)?;
        if let Some((m, j)) = first_repeated_window(t.values(), window) {
            return Ok(PeriodSearch::Found(Periodicity {
                preperiod: m,
                period: j - m,
                window,
                computed_up_to: length,
            }));
        }
        if length >= search_max {
            return Ok(PeriodSearch::NotFound {
                window,
                searched_up_to: length,
            });
        }
        length = (2 * length).min(search_max);
    }
}

/// Values, cold positions up to `limit`, and the period search (bounded by `search_max`).
pub fn analyse(moves: &Moves, limit: usize, search_max: usize) -> Result<Analysis> {
    let t: Table = table::build(table::reference().name, moves, limit as u64)?;
    let up_to_limit = &t.values()[..=limit];
    Ok(Analysis {
        moves: moves.clone(),
        limit,
        values: t.values()[..=limit.min(VALUES_SHOWN - 1)].to_vec(),
        cold: (0..=limit).filter(|&n| up_to_limit[n] == 0).collect(),
        max_value: up_to_limit.iter().copied().max().unwrap_or(0),
        period: find_period(moves, search_max)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_repeat_of_windows() {
        // 0 1 0 1 2 | 0 1 0 1 2 ... with window 2: W(0) = (0,1) recurs first at W(2).
        let v = [0u16, 1, 0, 1, 2, 0, 1, 0, 1, 2];
        assert_eq!(first_repeated_window(&v, 2), Some((0, 2)));
        assert_eq!(first_repeated_window(&v, 5), Some((0, 5)));
        assert_eq!(first_repeated_window(&v, 6), None);
        assert_eq!(first_repeated_window(&[7, 8, 9], 1), None);
        assert_eq!(first_repeated_window(&[3, 4, 5, 4], 1), Some((1, 3)));
    }

    /// The definition: the least j with W(j) equal to some earlier W(m), by comparing every
    /// pair of windows.
    fn first_repeat_by_pairs(values: &[u16], window: usize) -> Option<(usize, usize)> {
        let starts = (values.len() + 1).saturating_sub(window);
        (0..starts).find_map(|j| {
            (0..j)
                .find(|&m| values[m..m + window] == values[j..j + window])
                .map(|m| (m, j))
        })
    }

    #[test]
    fn collisions_never_hide_or_fake_a_repeat() {
        let mut rng = crate::base::rng::SplitMix64(0x853C_49E6_748F_EA9B);
        for _ in 0..300 {
            let len = rng.below(60) as usize;
            let alphabet = rng.range(2, 4);
            let window = rng.range(1, 6) as usize;
            let values: Vec<u16> = (0..len).map(|_| rng.below(alphabet) as u16).collect();
            let want = first_repeat_by_pairs(&values, window);
            assert_eq!(first_repeated_window(&values, window), want, "{values:?}");
            // Base 1: the hash is the sum of the window, so distinct windows collide often.
            assert_eq!(
                first_repeated_window_hashed(&values, window, 1),
                want,
                "{values:?}"
            );
        }
    }
}
