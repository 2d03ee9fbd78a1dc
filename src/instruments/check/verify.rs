//! The checks `nimsquare verify` runs on one case, as a library function ([`verify_with`]):
//! the published checkpoint, the naive controls at a small N, the judges at the requested N,
//! and for a finite move set the octal route.
//!
//! Algorithm: for the squares and three heaps, Project Euler 310's published checkpoint
//! L(29) = 1160 against every pair; at the largest N <= [`CHECKPOINT_MAX`] that brute force
//! affords, every back-end against the naive controls; at the requested N every back-end
//! against the judges the checker names; and for a finite move set the judge's table against
//! the octal stage's table of the subtraction code ([`super::octal_route`]).
//!
//! Cost: up to three checker runs (at 29, at the small checkpoint, at N) and one octal build.
//!
//! Invariant: a case no count back-end answers is an error, never a pass; every check names
//! what it compared against.

use super::octal_route::octal_route;
use super::{Case, Report};
use crate::base::error::{Error, Result};
use crate::count::{brute_multisets_affordable, MAX_HEAPS};

/// Project Euler 310's checkpoint for the squares and three heaps: L(29) = 1160.
const CHECKPOINT_29: (usize, u128) = (29, 1160);
/// The largest small checkpoint N (lowered until brute force affords it).
pub const CHECKPOINT_MAX: usize = 40;

/// One named check and whether it held.
pub struct Check {
    pub name: String,
    pub passed: bool,
    pub detail: String,
}

/// Everything `verify` found: the checks and the report at the requested N.
pub struct Verdict {
    pub checks: Vec<Check>,
    pub report: Report,
}

impl Verdict {
    pub fn passed(&self) -> bool {
        self.checks.iter().all(|c| c.passed)
    }
}

/// Runs every check of `verify` on `case` with the checker call given (`verify` passes one
/// over every registered back-end; a test one that includes a wrong back-end).
pub fn verify_with(case: &Case, run_check: impl Fn(&Case) -> Result<Report>) -> Result<Verdict> {
    let mut checks = Vec::new();
    if case.moves.is_squares() && case.heaps == 3 {
        let at = Case {
            limit: CHECKPOINT_29.0,
            ..case.clone()
        };
        checks.push(known_value(&run_check(&at)?, CHECKPOINT_29.1));
    }
    let small = (0..=CHECKPOINT_MAX.min(case.limit))
        .rev()
        .find(|&n| brute_multisets_affordable(n, case.heaps))
        .unwrap_or(0);
    if small < case.limit {
        checks.push(agreement(&run_check(&Case {
            limit: small,
            ..case.clone()
        })?));
    }
    let report = run_check(case)?;
    if report.pairs.is_empty() && report.disagreements.is_empty() {
        let reasons: Vec<String> = report.skipped.iter().map(|s| s.reason.clone()).collect();
        return Err(Error::Invalid(format!(
            "no count back-end answers for {} heaps at N = {} (1 to {MAX_HEAPS} heaps are counted): {}",
            case.heaps,
            case.limit,
            reasons.join("; ")
        )));
    }
    checks.push(agreement(&report));
    if let Some(route) = octal_route(&report.case, report.table_judge, &report.table) {
        checks.push(octal_agreement(&route));
    }
    Ok(Verdict { checks, report })
}

/// The judge's table equals the octal stage's table of the subtraction code (digit 3 at
/// each move): a second route through code the table stage does not share.
fn octal_agreement(route: &Report) -> Check {
    let moves = route.case.moves.up_to(usize::MAX);
    let code = crate::octal::Rules::subtraction(&moves).map_or_else(
        |_| "with digit 3 at each move".to_string(),
        |r| r.label().to_string(),
    );
    let name = format!(
        "the octal code {code} gives the table of '{}' at N = {}",
        route.table_judge, route.case.limit
    );
    match (route.disagreements.first(), route.skipped.first()) {
        (Some(d), _) => Check {
            name,
            passed: false,
            detail: d.to_string(),
        },
        (None, Some(s)) => Check {
            name,
            passed: true,
            detail: format!("skipped: {}", s.reason),
        },
        (None, None) => Check {
            name,
            passed: true,
            detail: format!("built by '{}'", crate::octal::reference().name),
        },
    }
}

/// Every pair of `report` gives the published `want`.
fn known_value(report: &Report, want: u128) -> Check {
    let wrong: Vec<String> = report
        .pairs
        .iter()
        .filter(|p| p.answer != want)
        .map(|p| format!("'{}+{}' gives {}", p.table, p.count, p.answer))
        .collect();
    let disagreement = report.disagreements.first();
    Check {
        name: format!("N = {} gives {want}", report.case.limit),
        passed: wrong.is_empty() && !report.pairs.is_empty() && disagreement.is_none(),
        detail: match (wrong.is_empty(), disagreement) {
            (false, _) => format!(
                "Project Euler 310's checkpoint is {want}, but {}",
                wrong.join(", ")
            ),
            (true, Some(d)) => format!("{} pairs give {want}, but {d}", report.pairs.len()),
            (true, None) => format!(
                "{} pairs, Project Euler 310's checkpoint",
                report.pairs.len()
            ),
        },
    }
}

/// Every answering pair of `report` agrees with the judges it names.
fn agreement(report: &Report) -> Check {
    let judges = match report.count_judge {
        Some((count, _)) => format!("'{}' and '{count}'", report.table_judge),
        None => format!("'{}'", report.table_judge),
    };
    Check {
        name: format!(
            "every back-end agrees with {judges} at N = {}",
            report.case.limit
        ),
        passed: report.passed(),
        detail: match report.disagreements.first() {
            Some(d) => format!("{d} ({} disagreements)", report.disagreements.len()),
            None => format!(
                "{} pairs, {} cold set(s), {} back-end(s) skipped",
                report.pairs.len(),
                report.cold_sets.len(),
                report.skipped.len()
            ),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::WRONG_AT_17;
    use super::*;
    use crate::base::moves::Moves;
    use crate::{count, table};

    #[test]
    fn a_wrong_back_end_fails_verify_and_is_named() {
        let case = Case {
            moves: Moves::Squares,
            limit: 60,
            heaps: 3,
        };
        let with_wrong = |c: &Case| {
            let tables = [table::find("stamped").unwrap(), &WRONG_AT_17];
            super::super::check(c, &tables, &[count::find("wht").unwrap()], &[])
        };
        let verdict = verify_with(&case, with_wrong).unwrap();
        assert!(!verdict.passed());
        let failed: Vec<&Check> = verdict.checks.iter().filter(|c| !c.passed).collect();
        // Every check reaching position 17 fails: L(29), the N = 40 control check and N = 60.
        assert_eq!(failed.len(), 3);
        assert!(
            failed.iter().all(|c| c.detail.contains("wrong-at-17")),
            "{:?}",
            failed[0].detail
        );
        assert!(verify_with(&case, super::super::everything)
            .unwrap()
            .passed());
    }
}
