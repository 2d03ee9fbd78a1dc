//! The census: every octal code of up to D digits after the point, its table up to N and
//! the period the theorem proves from it ([`super::period`]).
//!
//! Algorithm: list the codes 0.d1..dk and 4.d1..dk for k = 1..=D with dk != 0 (a code with
//! a trailing 0 is the shorter code, listed once under its own k; the all-zero code has no
//! move and is never listed), build each table with one back-end, and read its period,
//! largest value and verdict. The codes are independent, so they are shared out over the
//! thread pool; the rows come back in the order of the list.
//!
//! Cost: 2 * 7 * 8^(k-1) codes for each k (1022 for D = 3), each a table build and a period
//! scan; with the control, O(N^2) per code with a splitting digit.
//!
//! Invariant: rows are in [`codes`] order, one per code, each with the N it was built for.

use super::period::{self, Verdict};
use super::{OctalBuilder, Rules};
use crate::base::error::{Error, Result};
use crate::registry::Entry;
use rayon::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The most digits after the point the census takes (1022 codes at D = 3; D = 4 would be
/// 8190, beyond what a census at a useful N finishes in minutes).
pub const MAX_DIGITS: usize = 3;

/// One code's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The code, as [`Rules::label`] prints it.
    pub code: String,
    /// The N its table reached.
    pub limit: usize,
    /// The period proved up to N, or open.
    pub verdict: Verdict,
    /// The largest g(n), n <= N.
    pub max_value: u16,
}

/// Every code of 1 to `digits` digits after the point with a non-zero last digit, first by
/// length, then d0 = 0 before d0 = 4, then the digits in increasing order. `digits` outside
/// 1..=[`MAX_DIGITS`] is refused.
pub fn codes(digits: usize) -> Result<Vec<Rules>> {
    if !(1..=MAX_DIGITS).contains(&digits) {
        return Err(Error::Invalid(format!(
            "the census takes 1 to {MAX_DIGITS} digits after the point, not {digits}"
        )));
    }
    let mut all = Vec::new();
    for k in 1..=digits {
        for d0 in [0u8, 4] {
            // the k digits as a number in base 8, last digit non-zero
            for index in 0..8usize.pow(k as u32) {
                if index % 8 == 0 {
                    continue;
                }
                let mut code = vec![d0];
                for place in (0..k).rev() {
                    code.push(((index >> (3 * place)) & 7) as u8);
                }
                all.push(Rules::from_digits(&code));
            }
        }
    }
    Ok(all)
}

/// The row of `rules` with the table of `entry` up to `limit` (checked as
/// [`super::build`] checks it).
pub fn row(entry: &'static Entry<dyn OctalBuilder>, rules: &Rules, limit: usize) -> Result<Row> {
    let table = super::build(entry.name, rules, limit as u64)?;
    Ok(Row {
        code: rules.label().to_string(),
        limit,
        verdict: period::find(rules, table.values()),
        max_value: table.max_value(),
    })
}

/// The census of every code of [`codes`]`(digits)` up to `limit` with `entry`; `progress`
/// is called with (codes done, codes in all) after each code, from any worker thread.
pub fn census(
    entry: &'static Entry<dyn OctalBuilder>,
    digits: usize,
    limit: usize,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Vec<Row>> {
    let all = codes(digits)?;
    let done = AtomicUsize::new(0);
    all.par_iter()
        .map(|rules| {
            let r = row(entry, rules, limit);
            progress(done.fetch_add(1, Ordering::Relaxed) + 1, all.len());
            r
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_codes_are_listed_once_each() {
        let two = codes(2).unwrap();
        // 7 one-digit and 56 two-digit codes, each with d0 = 0 and 4
        assert_eq!(two.len(), 2 * (7 + 56));
        let labels: Vec<&str> = two.iter().map(|r| r.label()).collect();
        assert_eq!(labels[..2], ["0.1", "0.2"]);
        assert_eq!(labels[7], "4.1");
        assert_eq!(labels[14], "0.01");
        assert!(labels.contains(&"0.07") && labels.contains(&"4.77"));
        let mut unique = labels.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), labels.len());
        assert_eq!(codes(3).unwrap().len(), 1022);
        assert!(codes(0).is_err() && codes(4).is_err());
    }
}
