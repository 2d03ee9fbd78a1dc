//! The regression check of the bench matrix: two sets of results (two `matrix.csv` /
//! `matrix.json` files, or two criterion baselines) compared benchmark by benchmark, with a
//! verdict a script can gate on. What `bench-check` runs (`src/bin/bench-check.rs`).
//!
//! Criterion's own "regressed / improved" verdict compares against the previous run with a
//! test on the means and never changes the exit status; on a shared machine the same build
//! moves by ±17% between runs at p = 0.00. Here a benchmark is **regressed** only when even
//! the most favourable reading of both medians' intervals is slower than the threshold:
//! `new_lo / old_hi > fail_above`, the lower end of the same conservative ratio interval as
//! [`super::matrix_report`]'s. It is **improved** when `new_hi / old_lo < 1 / fail_above`,
//! and **same** otherwise.

use super::matrix_report::Row;
use crate::base::error::{Error, Result};
use serde::Serialize;

/// How one benchmark moved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Regressed,
    Improved,
    Same,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Regressed => "regressed",
            Verdict::Improved => "improved",
            Verdict::Same => "same",
        }
    }
}

/// One benchmark in both sets: the two medians with their intervals and new / old.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    pub id: String,
    pub old_ns: f64,
    pub old_lo_ns: f64,
    pub old_hi_ns: f64,
    pub new_ns: f64,
    pub new_lo_ns: f64,
    pub new_hi_ns: f64,
    /// new / old at the medians, and its conservative interval.
    pub ratio: f64,
    pub ratio_lo: f64,
    pub ratio_hi: f64,
    pub verdict: Verdict,
}

/// The comparison of two sets.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    pub fail_above: f64,
    /// The benchmarks in both sets, in the new set's order.
    pub changes: Vec<Change>,
    /// Ids only in the old set (not run this time) and only in the new one.
    pub only_old: Vec<String>,
    pub only_new: Vec<String>,
}

impl Comparison {
    /// How many benchmarks have `verdict`.
    pub fn count(&self, verdict: Verdict) -> usize {
        self.changes.iter().filter(|c| c.verdict == verdict).count()
    }

    /// True when nothing regressed: what the exit status says.
    pub fn passed(&self) -> bool {
        self.count(Verdict::Regressed) == 0
    }

    /// `key=value` lines: one `compare` per benchmark, one `only` per id in one set alone,
    /// and a last `check` line with the counts.
    pub fn lines(&self) -> String {
        let mut out = String::new();
        for c in &self.changes {
            out.push_str(&format!(
                "compare id={} old_ns={:.1} old_lo_ns={:.1} old_hi_ns={:.1} new_ns={:.1} new_lo_ns={:.1} new_hi_ns={:.1} ratio={:.4} ratio_lo={:.4} ratio_hi={:.4} verdict={}\n",
                c.id, c.old_ns, c.old_lo_ns, c.old_hi_ns, c.new_ns, c.new_lo_ns, c.new_hi_ns,
                c.ratio, c.ratio_lo, c.ratio_hi, c.verdict.name()
            ));
        }
        for (set, ids) in [("old", &self.only_old), ("new", &self.only_new)] {
            for id in ids {
                out.push_str(&format!("only set={set} id={id}\n"));
            }
        }
        out.push_str(&format!(
            "check compared={} regressed={} improved={} same={} only_old={} only_new={} fail_above={} result={}\n",
            self.changes.len(),
            self.count(Verdict::Regressed),
            self.count(Verdict::Improved),
            self.count(Verdict::Same),
            self.only_old.len(),
            self.only_new.len(),
            self.fail_above,
            if self.passed() { "pass" } else { "fail" }
        ));
        out
    }
}

/// Compares `new` against `old` benchmark by benchmark (matched by id). Refuses a threshold
/// that is not a finite number above 1, and two sets with no benchmark in common (nothing
/// checked must not read as a pass). Cost: O(old·new).
pub fn compare(old: &[Row], new: &[Row], fail_above: f64) -> Result<Comparison> {
    if !(fail_above.is_finite() && fail_above > 1.0) {
        return Err(Error::Invalid(format!(
            "--fail-above must be a ratio above 1 (1.10 fails at 10% slower), not {fail_above}"
        )));
    }
    let mut changes = Vec::new();
    let mut only_new = Vec::new();
    for n in new {
        let id = n.id();
        let Some(o) = old.iter().find(|o| o.id() == id) else {
            only_new.push(id);
            continue;
        };
        let ratio = n.median_ns / o.median_ns;
        let ratio_lo = n.median_lo_ns / o.median_hi_ns;
        let ratio_hi = n.median_hi_ns / o.median_lo_ns;
        let verdict = if ratio_lo > fail_above {
            Verdict::Regressed
        } else if ratio_hi < 1.0 / fail_above {
            Verdict::Improved
        } else {
            Verdict::Same
        };
        changes.push(Change {
            id,
            old_ns: o.median_ns,
            old_lo_ns: o.median_lo_ns,
            old_hi_ns: o.median_hi_ns,
            new_ns: n.median_ns,
            new_lo_ns: n.median_lo_ns,
            new_hi_ns: n.median_hi_ns,
            ratio,
            ratio_lo,
            ratio_hi,
            verdict,
        });
    }
    let only_old = old
        .iter()
        .map(Row::id)
        .filter(|id| !new.iter().any(|n| n.id() == *id))
        .collect();
    if changes.is_empty() {
        return Err(Error::Invalid(
            "the two sets have no benchmark in common; compare runs of the same filter".into(),
        ));
    }
    Ok(Comparison {
        fail_above,
        changes,
        only_old,
        only_new,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(backend: &str, m: (f64, f64, f64)) -> Row {
        Row::new("table", backend, 1000, m, 0.95, None)
    }

    #[test]
    fn a_slowdown_fails_only_beyond_both_intervals() {
        let old = [
            row("a", (100.0, 98.0, 102.0)),
            row("b", (100.0, 98.0, 102.0)),
        ];
        // a: 20% slower, intervals far apart; b: 20% slower at the median, but its interval
        // reaches back to 105, within 1.10 of old's 102.
        let new = [
            row("a", (120.0, 118.0, 122.0)),
            row("b", (120.0, 105.0, 140.0)),
        ];
        let c = compare(&old, &new, 1.10).unwrap();
        assert_eq!(c.changes[0].verdict, Verdict::Regressed);
        assert_eq!(c.changes[1].verdict, Verdict::Same);
        assert!(!c.passed());
        assert_eq!(c.changes[0].ratio_lo, 118.0 / 102.0);
        let faster = [row("a", (80.0, 79.0, 81.0))];
        let c = compare(&old, &faster, 1.10).unwrap();
        assert_eq!(c.changes[0].verdict, Verdict::Improved);
        assert!(c.passed());
        assert_eq!(c.only_old, ["table/b/1000"]);
        assert!(c.lines().ends_with("result=pass\n"), "{}", c.lines());
    }

    #[test]
    fn bad_thresholds_and_disjoint_sets_are_refused() {
        let a = [row("a", (1.0, 1.0, 1.0))];
        let b = [row("b", (1.0, 1.0, 1.0))];
        for t in [1.0, 0.9, f64::NAN, f64::INFINITY] {
            assert!(compare(&a, &a, t).is_err(), "{t}");
        }
        let e = compare(&a, &b, 1.1).unwrap_err().to_string();
        assert!(e.contains("no benchmark in common"), "{e}");
    }
}
