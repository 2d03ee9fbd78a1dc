//! The census: every octal code of up to D digits after the point, its table up to N and
//! the period the theorem proves from it ([`super::period`]).
//!
//! Algorithm: list the codes 0.d1..dk and 4.d1..dk for k = 1..=D with dk != 0 (a code with
//! a trailing 0 is the shorter code, listed once under its own k; the all-zero code has no
//! move and is never listed), build each table with one back-end, and read its period,
//! largest value and verdict. The codes are independent, so they are shared out over the
//! thread pool; the rows come back in the order of the list.
//!
//! Cost: 2 * 7 * 8^(k-1) codes for each k (1022 for D = 3, 65 534 for D = 5), each a table
//! build and a period scan; with the control, O(N^2) per code with a splitting digit.
//!
//! Invariant: rows are in [`codes`] order, one per code, each with the N it was built for;
//! [`run_each`] reports every code it finishes exactly once. Which codes to run and on which
//! shard is [`super::census_plan`]; the durable rows file is
//! [`crate::run::longrun::censusfile`].

use super::period::{self, Verdict};
use super::{Builder, Rules};
use crate::base::error::{Error, Result};
use crate::registry::Entry;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The most digits after the point the census takes: 65 534 codes at D = 5. D = 6 would be
/// 524 286 codes, past what a census at a useful N finishes even on a cluster; a user after
/// a few longer codes runs `octal CODE` on each.
pub const MAX_DIGITS: usize = 5;

/// One code's result (serializable, so a census spread over processes can send it whole).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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

/// Where `label` (a census code as [`Rules::label`] prints it) stands in the order of
/// [`codes`], for any number of digits: (digits after the point, d0, the digits as a base-8
/// number). `None` for a label that is not such a code (no point, a digit past 7, a trailing
/// 0, `grundy`). Sorting rows by this key puts them in [`codes`] order whatever D was.
pub fn order_key(label: &str) -> Option<(usize, u8, u64)> {
    let (before, after) = label.split_once('.')?;
    let d0 = match before {
        "0" => 0,
        "4" => 4,
        _ => return None,
    };
    if after.is_empty() || after.len() > 21 || after.ends_with('0') {
        return None;
    }
    let mut number = 0u64;
    for c in after.chars() {
        number = number * 8 + u64::from(c.to_digit(8)?);
    }
    Some((after.len(), d0, number))
}

/// The row of `rules` with the table of `entry` up to `limit` (checked as
/// [`super::build`] checks it).
pub fn row(entry: &'static Entry<dyn Builder<Rules>>, rules: &Rules, limit: usize) -> Result<Row> {
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
    entry: &'static Entry<dyn Builder<Rules>>,
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

/// What [`run_each`] tells its caller, from any worker thread.
pub trait Watcher: Sync {
    /// Code `index` of the list is about to be built.
    fn started(&self, index: usize);
    /// Code `index` is done: its row. An error stops the run (no code starts after it) and
    /// is what [`run_each`] returns (a row that cannot be written is a failed run).
    fn finished(&self, index: usize, row: Row) -> Result<()>;
    /// Asked before each code starts: true stops the run there (a signal arrived); the codes
    /// in flight still finish and are reported.
    fn stop(&self) -> bool {
        false
    }
}

/// Builds the row of every code of `list` up to `limit` with `entry`, in the order given
/// (callers put the most expensive first, so the longest code never starts last), handed out
/// one at a time to as many workers as the thread pool has threads: a worker takes the next
/// code when it finishes one, so a slow code holds up one worker, never the others. Returns
/// the number of codes finished (all of `list` unless `watcher` stopped the run), or the first
/// error of a build or of [`Watcher::finished`].
pub fn run_each(
    entry: &'static Entry<dyn Builder<Rules>>,
    list: &[Rules],
    limit: usize,
    watcher: &dyn Watcher,
) -> Result<usize> {
    let next = AtomicUsize::new(0);
    let finished = AtomicUsize::new(0);
    // Set by the first failure, so no other worker starts a code after it.
    let failed = AtomicBool::new(false);
    let workers = rayon::current_num_threads().min(list.len()).max(1);
    (0..workers)
        .into_par_iter()
        .try_for_each(|_| -> Result<()> {
            loop {
                if failed.load(Ordering::Relaxed) || watcher.stop() {
                    return Ok(());
                }
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(rules) = list.get(index) else {
                    return Ok(());
                };
                watcher.started(index);
                let done = row(entry, rules, limit).and_then(|r| watcher.finished(index, r));
                if let Err(e) = done {
                    failed.store(true, Ordering::Relaxed);
                    return Err(e);
                }
                finished.fetch_add(1, Ordering::Relaxed);
            }
        })?;
    Ok(finished.into_inner())
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
        assert_eq!(codes(5).unwrap().len(), 2 * 7 * (1 + 8 + 64 + 512 + 4096));
        assert!(codes(0).is_err() && codes(6).is_err());
    }

    #[test]
    fn the_order_key_sorts_as_the_list_does() {
        let list = codes(3).unwrap();
        let keys: Vec<_> = list.iter().map(|r| order_key(r.label()).unwrap()).collect();
        assert!(keys.windows(2).all(|w| w[0] < w[1]));
        for bad in ["0.10", "1.2", "0.8", "grundy", "0.", ".7"] {
            assert_eq!(order_key(bad), None, "{bad}");
        }
    }
}
