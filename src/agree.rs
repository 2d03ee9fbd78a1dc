//! Agreement: run every back-end on one input and refuse any that disagree.
//!
//! [`require_equal`] is the gate: `verify`, the tests and the bench matrix pass it the
//! answers of every back-end, and it names the first pair that differs.

use crate::count;
use crate::error::{Error, Result};
use crate::moves::Moves;
use crate::table::{self, Table};
use std::fmt::Debug;
use std::time::Instant;

/// Ok when every `(name, answer)` equals the first; otherwise an error naming the first
/// back-end whose answer differs from the first one's, and both answers.
pub fn require_equal<T: PartialEq + Debug>(what: &str, answers: &[(&str, T)]) -> Result<()> {
    let Some((first_name, first)) = answers.first() else {
        return Ok(());
    };
    for (name, answer) in &answers[1..] {
        if answer != first {
            return Err(Error::Disagreement(format!(
                "{what}: '{first_name}' gives {} but '{name}' gives {}",
                short(first),
                short(answer)
            )));
        }
    }
    Ok(())
}

/// A debug rendering cut to one readable line (tables are long).
fn short<T: Debug>(value: &T) -> String {
    let text = format!("{value:?}");
    if text.len() > 120 {
        format!(
            "{}…",
            &text[..text.char_indices().nth(117).map_or(0, |(i, _)| i)]
        )
    } else {
        text
    }
}

/// One (table back-end, count back-end) pair's answer and times.
#[derive(Debug, Clone)]
pub struct PairResult {
    pub table: &'static str,
    pub count: &'static str,
    pub answer: u128,
    pub table_seconds: f64,
    pub count_seconds: f64,
}

/// The first position where two tables differ, for a readable disagreement message.
fn first_difference(a: &Table, b: &Table) -> Option<(usize, u16, u16)> {
    a.values()
        .iter()
        .zip(b.values())
        .enumerate()
        .find(|(_, (x, y))| x != y)
        .map(|(n, (&x, &y))| (n, x, y))
}

/// Runs every table back-end and every count back-end on (moves, N, heaps). Returns the
/// reference table and one row per pair, or an error naming the first pair that disagrees
/// (table against table first, then answer against answer). A count back-end that refuses
/// the input is an error here; [`run_answering`] skips it instead.
pub fn run_all(moves: &Moves, limit: u64, heaps: usize) -> Result<(Table, Vec<PairResult>)> {
    let all = run_answering(moves, limit, heaps)?;
    if let Some((_, refusal)) = all.refused.into_iter().next() {
        return Err(refusal);
    }
    Ok((all.table, all.rows))
}

/// What [`run_answering`] found: the reference table, one row per (table, count) pair that
/// answered, and each count back-end that refused the input with its refusal.
#[derive(Debug, Clone)]
pub struct Answering {
    pub table: Table,
    pub rows: Vec<PairResult>,
    pub refused: Vec<(&'static str, Error)>,
}

/// Like [`run_all`], but a count back-end that refuses the input with
/// [`Error::Unsupported`] (for example a three-heap-only back-end asked for K != 3, or an
/// answer that overflows `u128`) is listed in `refused` rather than failing the run; every
/// back-end that does answer is still compared with the others. Any other error, and any
/// disagreement, is returned as an error.
pub fn run_answering(moves: &Moves, limit: u64, heaps: usize) -> Result<Answering> {
    let limit = table::check_limit(limit)?;
    // Every back-end's table is held at once.
    let needed = table::BACKENDS
        .iter()
        .map(|e| crate::memory::table_bytes(limit, e.name))
        .sum();
    crate::memory::check_fits(
        needed,
        crate::memory::available_bytes(),
        &format!("the tables of all back-ends for N = {limit}"),
    )?;
    let mut tables: Vec<(&'static str, Table, f64)> = Vec::new();
    for entry in table::BACKENDS {
        let start = Instant::now();
        let t = (entry.make)().build(moves, limit);
        tables.push((entry.name, t, start.elapsed().as_secs_f64()));
    }
    let (ref_name, reference, _) = &tables[0];
    for (name, t, _) in &tables[1..] {
        if let Some((n, x, y)) = first_difference(reference, t) {
            return Err(Error::Disagreement(format!(
                "table at N = {limit}: '{ref_name}' gives g({n}) = {x} but '{name}' gives {y}"
            )));
        }
    }
    let mut rows = Vec::new();
    let mut refused: Vec<(&'static str, Error)> = Vec::new();
    for (table_name, t, table_seconds) in &tables {
        for entry in count::BACKENDS {
            if refused.iter().any(|(name, _)| *name == entry.name) {
                continue;
            }
            let start = Instant::now();
            let answer = match (entry.make)().count(t, heaps) {
                Ok(answer) => answer,
                Err(e @ Error::Unsupported { .. }) => {
                    refused.push((entry.name, e));
                    continue;
                }
                Err(e) => return Err(e),
            };
            rows.push(PairResult {
                table: table_name,
                count: entry.name,
                answer,
                table_seconds: *table_seconds,
                count_seconds: start.elapsed().as_secs_f64(),
            });
        }
    }
    let labelled: Vec<(String, u128)> = rows
        .iter()
        .map(|r| (format!("{}+{}", r.table, r.count), r.answer))
        .collect();
    let refs: Vec<(&str, u128)> = labelled.iter().map(|(n, a)| (n.as_str(), *a)).collect();
    require_equal(&format!("count at N = {limit}"), &refs)?;
    Ok(Answering {
        table: tables.swap_remove(0).1,
        rows,
        refused,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gate_refuses_a_wrong_answer_and_names_it() {
        assert!(require_equal("x", &[("a", 1), ("b", 1), ("c", 1)]).is_ok());
        let err = require_equal("x", &[("a", 1), ("b", 1), ("c", 2)]).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("'a'") && msg.contains("'c'"), "{msg}");
    }
}
