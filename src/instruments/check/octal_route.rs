//! The second route to a finite subtraction game's table: as the octal game whose code has
//! digit 3 at each move ([`crate::octal::Rules::subtraction`]), built by the octal stage,
//! which shares no code with the table stage's back-ends.
//!
//! Algorithm: build the octal table of the code with the octal stage's reference
//! ([`crate::octal::reference`]) and compare it, position by position, with the table
//! judge's table through a [`Checker`]: the first differing position is the disagreement.
//!
//! Cost: one octal table build (O(N |S|) for a subtraction code) and one pass over N + 1
//! values.
//!
//! Invariant: a report is returned only for a finite move set; a route that cannot run (a
//! move past the octal code's digit limit, N past the back-end's affordable size) is a skip
//! with its reason, never a pass.

use super::{Case, Checker, Report};
use crate::base::moves::Moves;
use crate::octal::{self, Rules};
use crate::table::Table;

/// Checks the judge's table of `case` (`judge`, `table`) against the octal route, or None
/// when the moves are the squares (no finite code).
pub fn octal_route(case: &Case, judge: &'static str, table: &Table) -> Option<Report> {
    let Moves::List(list) = &case.moves else {
        return None;
    };
    let moves: Vec<usize> = list.iter().map(|&m| m as usize).collect();
    let entry = octal::reference();
    let mut checker = Checker::new(case.clone(), judge, table.clone());
    match Rules::subtraction(&moves) {
        Ok(rules) => compare(&mut checker, entry, &rules),
        Err(e) => checker.skip(entry.name, e.to_string()),
    }
    Some(checker.finish())
}

/// Builds the octal table of `rules` with `entry` and compares it with the checker's judge
/// table (a refusal, such as N past what `entry` affords, is recorded as a skip).
pub fn compare(
    checker: &mut Checker,
    entry: &'static crate::registry::Entry<dyn octal::Builder<octal::Rules>>,
    rules: &Rules,
) {
    let limit = checker.judge_table().limit();
    match octal::build(entry.name, rules, limit as u64) {
        Ok(t) => {
            checker.table(entry.name, &t);
        }
        Err(e) => checker.skip(entry.name, format!("octal code {rules}: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instruments::check::table_judge;

    fn case(moves: &[u64], limit: usize) -> (Case, Table) {
        let moves = Moves::list(moves.to_vec()).unwrap();
        let judge = table_judge(limit);
        let table = (judge.make)().build(&moves, limit).unwrap();
        let case = Case {
            moves,
            limit,
            heaps: 3,
        };
        (case, table)
    }

    #[test]
    fn subtraction_codes_give_the_table_stages_tables() {
        for moves in [&[1, 4, 9][..], &[2, 5, 7]] {
            let (case, table) = case(moves, 5000);
            let report = octal_route(&case, "judge", &table).unwrap();
            assert!(report.disagreements.is_empty(), "{moves:?}");
            assert!(report.skipped.is_empty(), "{moves:?}");
        }
        let squares = Case {
            moves: Moves::Squares,
            limit: 10,
            heaps: 3,
        };
        assert!(octal_route(&squares, "judge", &Table::from_values(vec![0; 11])).is_none());
    }

    #[test]
    fn a_different_code_is_refused_at_its_first_difference() {
        // {1, 4, 9} against {2, 4, 9}: a heap of 1 has the move to 0 in the first only, so
        // g(1) is 1 against 0.
        let (case, table) = case(&[1, 4, 9], 2000);
        let mut checker = Checker::new(case, "judge", table);
        let wrong = Rules::subtraction(&[2, 4, 9]).unwrap();
        compare(&mut checker, octal::find("octal-naive").unwrap(), &wrong);
        let report = checker.finish();
        assert_eq!(report.disagreements.len(), 1);
        assert!(matches!(
            report.disagreements[0],
            super::super::Disagreement::Table {
                at: 1,
                judge_value: 1,
                value: 0,
                ..
            }
        ));
        let text = report.disagreements[0].to_string();
        assert!(text.contains("octal-naive"), "{text}");
    }

    #[test]
    fn moves_past_the_digit_limit_are_a_skip() {
        let (case, table) = case(&[1, 5000], 100);
        let report = octal_route(&case, "judge", &table).unwrap();
        assert!(report.disagreements.is_empty());
        assert_eq!(report.skipped.len(), 1);
    }
}
