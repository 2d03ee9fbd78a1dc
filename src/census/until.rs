//! The until-proved census's run of one code (`census --until-proved`): the table grows from
//! N = `--limit` by doubling until the period is proved, N reaches `--max-limit`, or the code
//! has used its `--budget` seconds.
//!
//! Algorithm: the doubling points are d_k = min(limit · 2^k, max_limit). The table of g(0..=N)
//! is carried from one point to the next and only extended ([`Builder::fill_kept`], which
//! keeps what the back-end needs between calls, as a long run's chunks do), never computed
//! again from 0. At each point the theorem of Guy and Smith is tried ([`period::find`]); the
//! first point where it proves a period ends the code (`proved`), as does reaching max_limit
//! (`limit`). A point is reached in [`CHUNKS`] chunks, with the budget and a stop request
//! checked between them, so a code overruns its budget by at most one chunk; a code stopped
//! by its budget ends at the last chunk built, with the period tried there (`budget`).
//!
//! Cost: the table's own cost at the N reached (each position built once), plus a period
//! scan at each point: O(N p) comparisons at worst for N = d_k, in practice a few per wrong p,
//! so about 2 N in all over the doublings.
//!
//! Invariant: the row's N is the length of the table minus one, and its verdict, largest
//! value and rare count are those of that table, so they are what `octal CODE --limit N`
//! reports; a run resumed from values g(0..=M) (a checkpoint) goes on from the first doubling
//! point above M and so visits the points an uninterrupted run visits.

use super::Row;
use crate::base::error::Result;
use crate::octal::method::period::{self, Verdict};
use crate::octal::method::rare_common::SplitSummary;
use crate::octal::{Builder, Kept, Rules};
use crate::registry::Entry;
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// The parts of a doubling step built between two checks of the budget and of a stop
/// request: 8 bounds a budget's overrun by an eighth of the step (for a quadratic code about
/// 3/8 of the time spent before it) at 8 calls of `fill_kept` a step.
pub const CHUNKS: usize = 8;

/// The fewest positions of a chunk: below this the calls' own cost (a pool, a split
/// recorded) would count.
pub const MIN_CHUNK: usize = 1 << 12;

/// How far the until-proved census takes each code: `--max-limit` and `--budget`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Until {
    /// The largest N a code reaches.
    pub max_limit: usize,
    /// The most seconds a code may use (its table and period checks), if bounded.
    pub budget: Option<f64>,
}

/// Why an until-proved code stopped growing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stop {
    /// The theorem proved its period.
    Proved,
    /// Its N reached `--max-limit`, no period proved.
    Limit,
    /// It used its `--budget` seconds, no period proved.
    Budget,
}

impl Stop {
    /// Its name in the rows (`proved`, `limit`, `budget`).
    pub fn name(self) -> &'static str {
        match self {
            Stop::Proved => "proved",
            Stop::Limit => "limit",
            Stop::Budget => "budget",
        }
    }
}

/// A code's table carried over from an earlier run (its checkpoint): g(0..values.len()) and
/// the seconds it had used, which count against its budget.
pub struct Carried {
    pub values: Vec<u16>,
    pub seconds: f64,
}

/// What the run of one code asks of its caller: the table it carries over from an earlier
/// run, and between chunks whether to stop and what to keep.
pub trait Hooks: Sync {
    /// The table `rules` carries over from an earlier run, if any.
    fn carried(&self, _rules: &Rules) -> Option<Carried> {
        None
    }
    /// True stops the code where it is (a signal): it is left to a resume.
    fn stop(&self) -> bool {
        false
    }
    /// Called at each doubling point not ending the code, and when it is stopped: g(0..=N)
    /// and the seconds used, for a resume to go on from (a caller without checkpoints does
    /// nothing).
    fn checkpoint(&self, _rules: &Rules, _values: &[u16], _seconds: f64) -> Result<()> {
        Ok(())
    }
}

/// Hooks that never stop and keep nothing: an MPI worker's, a census printed at the end.
pub struct NoHooks;
impl Hooks for NoHooks {}

/// The first doubling point above N = `top` (see the module doc).
pub fn next_point(limit: usize, until: Until, top: Option<usize>) -> usize {
    let mut d = limit.min(until.max_limit);
    while top.is_some_and(|top| d <= top) && d < until.max_limit {
        // (from N = 0 the next point is 1, not 0 again)
        d = d.saturating_mul(2).max(1).min(until.max_limit);
    }
    d
}

/// The row of `rules` grown with `entry`'s back-end from N = `limit` (or from `carried`) as
/// `until` says (see the module doc); `None` when `hooks` stopped it first.
pub fn grow(
    entry: &'static Entry<dyn Builder<Rules>>,
    rules: &Rules,
    limit: usize,
    until: Until,
    carried: Option<Carried>,
    hooks: &dyn Hooks,
) -> Result<Option<Row>> {
    let start = Instant::now();
    let builder = (entry.make)();
    let (mut g, before) = match carried {
        Some(c) => (c.values, c.seconds),
        None => (Vec::new(), 0.0),
    };
    let spent = || before + start.elapsed().as_secs_f64();
    let over = || until.budget.is_some_and(|b| spent() >= b);
    let mut kept: Kept = None;
    loop {
        let target = next_point(limit, until, g.len().checked_sub(1));
        let mut done = g.len();
        g.resize(target + 1, 0);
        // A back-end that recomputes its prefix at each call is called once a step.
        let chunk = if builder.resumable() {
            ((target + 1 - done) / CHUNKS).max(MIN_CHUNK)
        } else {
            usize::MAX
        };
        while done < g.len() {
            let to = done.saturating_add(chunk).min(g.len());
            builder.fill_kept(rules, &mut g[..to], done, &mut kept)?;
            done = to;
            if done == g.len() {
                break;
            }
            if hooks.stop() {
                // Stopped between two points: no verdict here (an uninterrupted run tries
                // none), the values kept for a resume.
                g.truncate(done);
                hooks.checkpoint(rules, &g, spent())?;
                return Ok(None);
            }
            if over() {
                g.truncate(done);
                break;
            }
        }
        let n = g.len() - 1;
        let verdict = period::find(rules, &g);
        let stop = match verdict {
            Verdict::Periodic(_) => Some(Stop::Proved),
            _ if n >= until.max_limit => Some(Stop::Limit),
            _ if over() => Some(Stop::Budget),
            // open, below the most and within the budget: on to the next point
            _ => None,
        };
        if let Some(stop) = stop {
            let split = SplitSummary::of(rules, &g);
            let max_value = g.iter().copied().max().unwrap_or(0);
            return Ok(Some(Row {
                code: rules.label().to_string(),
                limit: n,
                verdict,
                max_value,
                rare: split.mask.map(|_| split.rare),
                seconds: spent(),
                stop: Some(stop),
                error: None,
            }));
        }
        hooks.checkpoint(rules, &g, spent())?;
        if hooks.stop() {
            return Ok(None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_points_double_from_the_limit_and_end_at_the_most() {
        let until = Until {
            max_limit: 1000,
            budget: None,
        };
        let points: Vec<usize> = std::iter::successors(Some(next_point(100, until, None)), |&d| {
            (d < 1000).then(|| next_point(100, until, Some(d)))
        })
        .collect();
        assert_eq!(points, [100, 200, 400, 800, 1000]);
        // from a checkpoint between two points: the next point, as without it
        assert_eq!(next_point(100, until, Some(250)), 400);
        assert_eq!(next_point(100, until, Some(99)), 100);
        // --limit 0 doubles too: 0, 1, 2, 4, ...
        assert_eq!(next_point(0, until, Some(0)), 1);
        assert_eq!(next_point(0, until, Some(1)), 2);
    }

    #[test]
    fn a_grown_row_is_the_row_of_one_build_at_its_n() {
        let entry = crate::octal::find("octal-block").unwrap();
        let until = Until {
            max_limit: 1 << 14,
            budget: None,
        };
        // 0.07 (Dawson's Kayles): period 34 from 53, proved from N = 2·53 + 2·34 + 3 - 1 =
        // 176, so at the first point past it, 256; 0.6 (Officers) has no period proved here.
        for (code, reached, stop) in [("0.07", 256, Stop::Proved), ("0.6", 1 << 14, Stop::Limit)] {
            let rules = Rules::parse(code).unwrap();
            let row = grow(entry, &rules, 64, until, None, &NoHooks)
                .unwrap()
                .unwrap();
            assert_eq!((row.limit, row.stop), (reached, Some(stop)), "{code}");
            let one = super::super::row(entry, &rules, reached).unwrap();
            assert_eq!(
                (row.verdict, row.max_value, row.rare),
                (one.verdict, one.max_value, one.rare),
                "{code}"
            );
        }
    }
}

#[cfg(test)]
mod carried_forward {
    use super::*;
    use std::sync::Mutex;

    /// The (from, to) of every fill call of [`Recording`], in order.
    static CALLS: Mutex<Vec<(usize, usize)>> = Mutex::new(Vec::new());

    /// The reference back-end, recording what each call computes.
    struct Recording;

    impl Builder<Rules> for Recording {
        fn fill(&self, rules: &Rules, g: &mut [u16], from: usize) -> Result<()> {
            CALLS.lock().unwrap().push((from, g.len()));
            (crate::octal::reference().make)().fill(rules, g, from)
        }

        fn scratch_bytes(&self, _: &Rules, _: usize, _: usize) -> u64 {
            0
        }
    }

    static RECORDING: Entry<dyn Builder<Rules>> = Entry {
        make: || Box::new(Recording),
        ..crate::octal::sparse::ENTRY
    };

    #[test]
    fn every_position_is_computed_once_over_the_doublings() {
        let until = Until {
            max_limit: 100_000,
            budget: None,
        };
        // Officers: no period proved, so it grows to the most: 1000, 2000, ..., 64 000, 100 000.
        let rules = Rules::parse("0.6").unwrap();
        let row = grow(&RECORDING, &rules, 1000, until, None, &NoHooks)
            .unwrap()
            .unwrap();
        assert_eq!((row.limit, row.stop), (100_000, Some(Stop::Limit)));
        let calls = CALLS.lock().unwrap().clone();
        // Each call starts where the last ended: the calls tile 0..=N, no prefix twice.
        assert_eq!(calls[0].0, 0);
        assert!(calls.windows(2).all(|w| w[1].0 == w[0].1), "{calls:?}");
        assert_eq!(calls.last().unwrap().1, 100_001);
        // and the values are those of one build
        let one = super::super::row(&RECORDING, &rules, 100_000).unwrap();
        assert_eq!((row.max_value, row.rare), (one.max_value, one.rare));
    }
}
