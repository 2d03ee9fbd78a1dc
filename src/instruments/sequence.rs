//! Sequences read off a finished table, in the form the OEIS publishes them: the Grundy
//! values g(0..=N) (OEIS A014586 for the squares), the cold positions in increasing order
//! (A030193; n is the rank, from 0), and the smallest position of each value (A297963).
//!
//! Cost: one pass over the table, O(N). Invariant of `first`: the sequence stops at the first
//! value that does not occur up to N. For a subtraction game that is m + 1, m the table's
//! largest value: every value below m occurs before m does (a position's options are earlier
//! positions and their values are all the values below its mex). For an octal game a split's
//! value is an xor of two positions' values, so a value below m need not occur at all
//! (Dawson's Kayles, 0.07, never takes 6).

use crate::table::Table;
use std::io::{self, Write};

/// Which sequence to read off a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// a(n) = g(n) for n <= N.
    Values,
    /// a(n) = the n-th cold position (g = 0), from a(0) = 0.
    Cold,
    /// a(v) = the smallest position with g = v, for v = 0..=m.
    First,
}

impl Kind {
    /// The name the command line takes.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Values => "values",
            Kind::Cold => "cold",
            Kind::First => "first",
        }
    }
}

/// The terms of one sequence, and for [`Kind::First`] the value that ends it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Terms {
    /// a(0), a(1), ...
    pub terms: Vec<u64>,
    /// For [`Kind::First`]: the smallest value that does not occur up to N (m + 1).
    pub missing: Option<u64>,
}

/// The sequence `kind` of `table`.
pub fn terms(kind: Kind, table: &Table) -> Terms {
    let values = table.values();
    match kind {
        Kind::Values => Terms {
            terms: values.iter().map(|&v| v as u64).collect(),
            missing: None,
        },
        Kind::Cold => Terms {
            terms: table
                .cold_positions()
                .into_iter()
                .map(|n| n as u64)
                .collect(),
            missing: None,
        },
        Kind::First => {
            let mut first = vec![u64::MAX; table.alphabet()];
            let mut found = 0;
            for (n, &v) in values.iter().enumerate() {
                let slot = &mut first[v as usize];
                if *slot == u64::MAX {
                    *slot = n as u64;
                    found += 1;
                    if found == first.len() {
                        break;
                    }
                }
            }
            let end = first
                .iter()
                .position(|&p| p == u64::MAX)
                .unwrap_or(first.len());
            first.truncate(end);
            Terms {
                missing: Some(end as u64),
                terms: first,
            }
        }
    }
}

/// Writes `terms` as an OEIS b-file: one line `n a(n)` per term, n from 0 (the offset of
/// A014586, A030193 and A297963).
pub fn write_bfile(out: &mut impl Write, terms: &[u64]) -> io::Result<()> {
    for (n, a) in terms.iter().enumerate() {
        writeln!(out, "{n} {a}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_sequences_of_a_small_table() {
        // g(0..=7) of {1, 3, 4} (period 0 1 0 1 2 3 2), worked by hand.
        let t = Table::from_values(vec![0, 1, 0, 1, 2, 3, 2, 0]);
        assert_eq!(terms(Kind::Values, &t).terms, [0, 1, 0, 1, 2, 3, 2, 0]);
        assert_eq!(terms(Kind::Cold, &t).terms, [0, 2, 7]);
        let first = terms(Kind::First, &t);
        assert_eq!(first.terms, [0, 1, 4, 5]);
        assert_eq!(first.missing, Some(4));
        let mut out = Vec::new();
        write_bfile(&mut out, &first.terms).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "0 0\n1 1\n2 4\n3 5\n");
    }
}
