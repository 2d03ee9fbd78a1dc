//! A sequence written as the values of an octal build in window mode stream past
//! ([`crate::run::window`]): the table is never whole in memory, so the terms are written
//! as they are found instead of read off a finished table ([`super::terms`]).
//!
//! Algorithm: `values` writes `n g(n)` for each value as it comes; `cold` writes `r n` for
//! each n with g(n) = 0, r its rank; `first` keeps the least position of each value (at
//! most 2^16 of them) and writes a(0..m) at the end, m + 1 the least value not seen. At
//! most K terms are written when `--terms K` is given.
//!
//! Cost: O(1) a value, O(V) at the end for `first`; memory O(V), whatever N.
//!
//! Invariant: the lines written for g(0..=N) are those [`super::write_bfile`] writes of
//! [`super::terms`] of the whole table (the tests hold them to it). Values come in position
//! order, so every term written is final when written, and a run stopped after g(0..done)
//! has written only true terms (for `first`, a(v) for every v before the first value not
//! yet seen).

use super::Kind;
use crate::base::error::{Error, Result};
use crate::octal::OctalPlan;
use crate::run::longrun::Signal;
use crate::run::window::plan::WindowPlan;
use crate::run::window::{build_octal, WindowOutcome};
use std::io::Write;
use std::time::Duration;

/// The b-file lines of one sequence, written as values come (see the module doc).
#[derive(Debug, Clone)]
pub struct TermWriter {
    kind: Kind,
    /// K, the most terms to write.
    most: u64,
    /// Terms written so far.
    written: u64,
    /// `first`: the least position of each value seen (u64::MAX: not yet).
    first: Vec<u64>,
}

/// What a window-mode sequence wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// Terms written.
    pub terms: u64,
    /// For `first`: the least value that does not occur up to N (m + 1).
    pub missing: Option<u64>,
    /// The signal that stopped the build after g(0..done), if one did.
    pub stopped: Option<(Signal, usize)>,
}

impl TermWriter {
    /// A writer of sequence `kind`, at most `most` terms (`None`: all).
    pub fn new(kind: Kind, most: Option<u64>) -> TermWriter {
        TermWriter {
            kind,
            most: most.unwrap_or(u64::MAX),
            written: 0,
            first: Vec::new(),
        }
    }

    /// Takes in g(from..from + values.len()), writing the terms they complete to `out`.
    pub fn push(
        &mut self,
        from: usize,
        values: &[u16],
        out: &mut dyn Write,
    ) -> std::io::Result<()> {
        match self.kind {
            Kind::Values => {
                for (i, &v) in values.iter().enumerate() {
                    if self.written >= self.most {
                        break;
                    }
                    writeln!(out, "{} {v}", from + i)?;
                    self.written += 1;
                }
            }
            Kind::Cold => {
                for (i, &v) in values.iter().enumerate() {
                    if v == 0 && self.written < self.most {
                        writeln!(out, "{} {}", self.written, from + i)?;
                        self.written += 1;
                    }
                }
            }
            Kind::First => {
                for (i, &v) in values.iter().enumerate() {
                    let v = v as usize;
                    if v >= self.first.len() {
                        self.first.resize(v + 1, u64::MAX);
                    }
                    if self.first[v] == u64::MAX {
                        self.first[v] = (from + i) as u64;
                    }
                }
            }
        }
        Ok(())
    }

    /// Writes what only the end decides (`first`'s terms) and says what was written.
    pub fn finish(mut self, out: &mut dyn Write) -> std::io::Result<Written> {
        let mut missing = None;
        if self.kind == Kind::First {
            let end = self
                .first
                .iter()
                .position(|&p| p == u64::MAX)
                .unwrap_or(self.first.len());
            missing = Some(end as u64);
            for (v, &at) in self.first[..end].iter().enumerate() {
                if self.written >= self.most {
                    break;
                }
                writeln!(out, "{v} {at}")?;
                self.written += 1;
            }
        }
        Ok(Written {
            terms: self.written,
            missing,
            stopped: None,
        })
    }
}

/// Builds the table `plan` decides in window mode as `window` decides it, writing sequence
/// `kind` (at most `most` terms) to `out` as the values come (`quiet`: no progress bar). A
/// signal stops the build between chunks: the terms of g(0..done) are written and
/// [`Written::stopped`] says so.
pub fn write_sequence(
    kind: Kind,
    most: Option<u64>,
    plan: &OctalPlan,
    window: &WindowPlan,
    quiet: bool,
    out: &mut dyn Write,
) -> Result<Written> {
    let mut writer = TermWriter::new(kind, most);
    let unwritten = |e: std::io::Error| Error::Invalid(format!("cannot write the terms: {e}"));
    let built = build_octal(
        plan,
        window,
        (quiet, None, Duration::MAX),
        None,
        &mut |from, values| writer.push(from, values, out).map_err(unwritten),
    )?;
    let mut written = writer.finish(out).map_err(unwritten)?;
    if let WindowOutcome::Interrupted { signal, done } = built.outcome {
        // only a signal stops a run without the test knob
        written.stopped = Some((signal.unwrap_or(Signal::Term), done));
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::super::{terms, write_bfile};
    use super::*;
    use crate::octal::Rules;
    use crate::run::window::plan::{decide, Ask, Mode};
    use crate::table::Table;

    fn whole_bfile(kind: Kind, table: &Table, most: Option<u64>) -> String {
        let mut seq = terms(kind, table);
        if let Some(k) = most {
            seq.terms.truncate(k as usize);
        }
        let mut out = Vec::new();
        write_bfile(&mut out, &seq.terms).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn streamed_terms_equal_the_whole_tables_in_any_chunking() {
        // Dawson's Kayles (0.07) never takes 6, so `first` ends before its largest value
        let mut rng = 0x9e37_79b9_u64;
        for code in ["0.07", "0.6", "4.7"] {
            let table =
                crate::octal::build("octal-sparse", &Rules::parse(code).unwrap(), 3000).unwrap();
            for kind in [Kind::Values, Kind::Cold, Kind::First] {
                for most in [None, Some(5), Some(1)] {
                    let mut writer = TermWriter::new(kind, most);
                    let mut out = Vec::new();
                    let mut from = 0;
                    while from < table.values().len() {
                        rng = rng
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                        let to = (from + 1 + (rng >> 33) as usize % 700).min(table.values().len());
                        writer
                            .push(from, &table.values()[from..to], &mut out)
                            .unwrap();
                        from = to;
                    }
                    let written = writer.finish(&mut out).unwrap();
                    let want = whole_bfile(kind, &table, most);
                    assert_eq!(
                        String::from_utf8(out).unwrap(),
                        want,
                        "{code} {kind:?} {most:?}"
                    );
                    assert_eq!(written.terms as usize, want.lines().count());
                }
            }
        }
    }

    #[test]
    fn a_window_mode_build_writes_the_whole_tables_sequence() {
        let rules = Rules::parse("0.6").unwrap();
        let ask = Ask {
            window: true,
            ..Ask::default()
        };
        let (plan, Mode::Window(window)) = decide(rules.clone(), None, 40_000, &ask).unwrap()
        else {
            panic!("window mode was asked")
        };
        let table = crate::octal::build("octal-sparse", &rules, 40_000).unwrap();
        for kind in [Kind::Values, Kind::Cold, Kind::First] {
            let mut out = Vec::new();
            let written = write_sequence(kind, None, &plan, &window, true, &mut out).unwrap();
            assert_eq!(written.stopped, None);
            assert_eq!(
                String::from_utf8(out).unwrap(),
                whole_bfile(kind, &table, None)
            );
        }
    }
}
