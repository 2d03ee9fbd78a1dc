//! What a finished table of an octal game says, read off it in one place: its largest value
//! and where that first occurs, the period the theorem of Guy and Smith proves from it
//! ([`super::method::period`]), its rare/common split ([`SplitSummary`]), and on request its
//! value histogram at each power of two ([`super::method::histogram`]). What `octal` reports,
//! whatever the back-end that built the table.
//!
//! Cost: a few passes over the table, O(N), and the period's proof (see its module).
//!
//! Invariant: every field is a function of the rules and the values alone, so two tables
//! that are equal have equal summaries.

use super::method::histogram::{self, Histogram};
use super::method::period::{self, Verdict};
use super::method::rare_common::SplitSummary;
use super::Rules;
use crate::grundy::Table;

/// The summary of one finished table (see the module doc).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// The largest value.
    pub max_value: u16,
    /// The least n with g(n) = `max_value`.
    pub max_value_first_at: usize,
    /// The period proved from the table, or why there is none; None when it was not
    /// searched (window mode keeps no whole table to search).
    pub verdict: Option<Verdict>,
    /// The mask that leaves the positions sparse, if one does, and its rare positions.
    pub split: SplitSummary,
    /// The histogram of g(0..L) for L = 1, 2, 4, ... and L = N + 1, when asked for.
    pub histogram: Option<Vec<Histogram>>,
}

impl Summary {
    /// The summary of `table`, the table of `rules`, with the histogram when `histogram`.
    pub fn of(rules: &Rules, table: &Table, histogram: bool) -> Summary {
        let values = table.values();
        Summary {
            max_value: table.max_value(),
            max_value_first_at: table.max_value_first_at(),
            verdict: Some(period::find(rules, values)),
            split: SplitSummary::of(rules, values),
            histogram: histogram.then(|| histogram::at_powers_of_two(values)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dawsons_kayles_summary_reads_its_table() {
        // 0.07 up to 20: 0 0 1 1 2 0 3 1 1 0 3 3 2 2 4 0 5 2 2 3 3 (OEIS A002187), whose
        // largest value 5 first occurs at n = 16.
        let rules = Rules::parse("0.07").unwrap();
        let g = vec![
            0u16, 0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 0, 5, 2, 2, 3, 3,
        ];
        assert_eq!(g, crate::octal::control_values("0.07", 20));
        let table = Table::from_values(g.clone());
        let s = Summary::of(&rules, &table, true);
        assert_eq!((s.max_value, s.max_value_first_at), (5, 16));
        assert_eq!(s.verdict, Some(period::find(&rules, &g)));
        assert_eq!(s.split, SplitSummary::of(&rules, &g));
        let rows = s.histogram.expect("asked for");
        assert_eq!(rows.last().map(|h| h.below), Some(21));
        assert_eq!(Summary::of(&rules, &table, false).histogram, None);
    }
}
