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
//!
//! [`Search`] finds a table holding K terms: N doubled from [`DEFAULT_LIMIT`] up to
//! [`SEARCH_LIMIT`], stopped early when a proved period (an octal game's, a finite
//! subtraction set's) shows that the sequence has no further term; [`BFile`] is what
//! `sequence` prints of it. [`window`] writes a sequence as an octal build in window mode
//! makes its values, for a table that is never whole in memory.

pub mod window;

use crate::base::error::Result;
use crate::base::limit::Limit;
use crate::base::moves::Moves;
use crate::octal::method::period::{self, Verdict};
use crate::octal::Rules;
use crate::run::longrun::Signal;
use crate::run::report::Report;
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

/// What `sequence` prints: the terms as a b-file ([`write_bfile`]), or with `--json` one
/// object naming the sequence and the N its table reached.
pub struct BFile<'a> {
    pub kind: Kind,
    /// N of the table the terms were read from.
    pub limit: usize,
    pub terms: &'a [u64],
}

impl Report for BFile<'_> {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        let mut out = io::BufWriter::new(out);
        write_bfile(&mut out, self.terms)?;
        out.flush()
    }

    fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "sequence": self.kind.name(),
            "limit": self.limit,
            "terms": self.terms,
        })
    }
}

/// The N a search for K terms starts from, and the N of a table when nothing gives one.
pub const DEFAULT_LIMIT: u64 = 100_000;

/// The largest N the search for K terms goes to when N is not fixed: g(0..=10^8) of the
/// squares takes minutes, and a sequence whose next term lies past it (or never comes, where
/// no period proves so) should not run for hours unasked.
pub const SEARCH_LIMIT: u64 = 100_000_000;

/// The game whose table a sequence is read from, for the period that can end it.
#[derive(Debug, Clone, Copy)]
pub enum Game<'a> {
    /// An octal game: periods by the theorem of Guy and Smith.
    Octal(&'a Rules),
    /// A subtraction game: a finite set's period by a repeated window.
    Subtraction(&'a Moves),
}

/// Why a sequence ends where it does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum End {
    /// At N: a larger table may hold more terms.
    Limit,
    /// For good: a proved period shows no later term exists (the reason, one sentence).
    Never(String),
}

/// A table for the search, or the signal that stopped its build.
pub enum Built {
    Table(Table),
    Interrupted { signal: Signal, building: usize },
}

/// What [`Search::run`] found.
pub enum Found {
    /// The table the sequence was read from, the sequence, and why it ends there.
    Table { table: Table, seq: Terms, end: End },
    /// A signal stopped the build of g(0..=`building`); `before` is the last table the search
    /// finished, with its sequence.
    Interrupted {
        signal: Signal,
        building: usize,
        before: Option<(Table, Terms)>,
    },
}

/// One search for a sequence's terms (see the module doc).
#[derive(Debug, Clone, Copy)]
pub struct Search<'a> {
    pub kind: Kind,
    pub game: Game<'a>,
    /// K, the terms asked for (`--terms`), if any.
    pub terms: Option<u64>,
    /// N when given (`--limit`).
    pub limit: Option<Limit>,
    /// True when N is fixed (`--limit`, or a loaded table): no search beyond it.
    pub fixed: bool,
}

impl Search<'_> {
    /// The table and its sequence: for the given N (`table_for(None)` choosing one when
    /// there is none), or, with K terms asked for and N not fixed, for an N that holds K
    /// terms: doubled from [`DEFAULT_LIMIT`] up to [`SEARCH_LIMIT`], a line on stderr for
    /// each doubling, and stopped early when a proved period shows the sequence has no
    /// further term. `table_for` builds or reads the table of an N.
    pub fn run(&self, mut table_for: impl FnMut(Option<Limit>) -> Result<Built>) -> Result<Found> {
        let mut limit = match (self.terms, self.kind, self.fixed) {
            (Some(k), Kind::Values, false) => Some(Limit::new(k - 1)?),
            _ => self.limit,
        };
        let mut before = None;
        loop {
            let table = match table_for(limit)? {
                Built::Table(table) => table,
                Built::Interrupted { signal, building } => {
                    return Ok(Found::Interrupted {
                        signal,
                        building,
                        before,
                    })
                }
            };
            let seq = terms(self.kind, &table);
            let n = table.limit() as u64;
            let short = self.terms.is_some_and(|k| (seq.terms.len() as u64) < k);
            if self.fixed || !short || n >= SEARCH_LIMIT {
                return Ok(Found::Table {
                    table,
                    seq,
                    end: End::Limit,
                });
            }
            if let Some(why) = never_more(self.kind, self.game, &table, &seq) {
                return Ok(Found::Table {
                    table,
                    seq,
                    end: End::Never(why),
                });
            }
            let next = n.saturating_mul(2).clamp(DEFAULT_LIMIT, SEARCH_LIMIT);
            eprintln!(
                "{}: {} of {} terms up to N = {n}; searching up to N = {next}",
                self.kind.name(),
                seq.terms.len(),
                self.terms.unwrap_or(0)
            );
            if let Some(signal) = crate::run::longrun::interrupted() {
                return Ok(Found::Interrupted {
                    signal,
                    building: next as usize,
                    before: Some((table, seq)),
                });
            }
            before = Some((table, seq));
            limit = Some(Limit::new(next)?);
        }
    }

    /// Cuts `seq` to the K terms asked for, and returns what stderr says of the file: why it
    /// holds fewer than K terms, and for `first` the value that ends it at N.
    pub fn notes(&self, table: &Table, seq: &mut Terms, end: &End) -> Vec<String> {
        let kind = self.kind.name();
        let asked = self.terms.unwrap_or(u64::MAX);
        let mut notes = Vec::new();
        if (seq.terms.len() as u64) < asked {
            match end {
                End::Never(why) => notes.push(format!(
                    "{kind}: only {} terms (asked for {asked}): {why}",
                    seq.terms.len()
                )),
                End::Limit if self.terms.is_some() => notes.push(format!(
                    "{kind}: only {} terms up to N = {} (asked for {asked}); {}",
                    seq.terms.len(),
                    table.limit(),
                    if self.fixed {
                        "raise --limit for more".to_string()
                    } else {
                        format!("the search stops at N = {SEARCH_LIMIT} unless --limit is given; give a larger --limit to search further")
                    }
                )),
                End::Limit => {}
            }
        } else {
            seq.terms.truncate(asked as usize);
            seq.missing = None;
        }
        if let (Some(missing), End::Limit) = (seq.missing, end) {
            notes.push(format!(
                "first: value {missing} does not occur up to N = {}; the file ends at a({})",
                table.limit(),
                missing.saturating_sub(1)
            ));
        }
        notes
    }
}

/// The preperiod e and period p of g, when the table proves them: an octal game's by the
/// Guy–Smith theorem ([`crate::octal::method::period`]), a finite subtraction set's by a
/// repeated window of its largest move's length (g(n) depends only on the window before n).
pub fn proved_period(game: Game, g: &[u16]) -> Option<(usize, usize)> {
    match game {
        Game::Octal(rules) => match period::find(rules, g) {
            Verdict::Periodic(p) => Some((p.preperiod, p.period)),
            _ => None,
        },
        Game::Subtraction(moves) => {
            let Moves::List(list) = moves else {
                return None;
            };
            let window = usize::try_from(*list.last()?).ok()?;
            // The window index takes about 32 bytes a position: a prefix of the table, as
            // `games subtraction` bounds its own search.
            let prefix = &g[..g.len().min(crate::games::subtraction::MAX_PERIOD_SEARCH)];
            let (m, j) = crate::games::subtraction::first_repeated_window(prefix, window)?;
            Some((m, j - m))
        }
    }
}

/// Why the sequence `seq` of `table` has no term beyond those it holds, if a proved period
/// shows it: every value occurs in g(0..e + p), within the table, so `first` has all its
/// terms; `cold` has when no value of the period is 0.
pub fn never_more(kind: Kind, game: Game, table: &Table, seq: &Terms) -> Option<String> {
    let g = table.values();
    let (e, p) = proved_period(game, g)?;
    let game = match game {
        Game::Octal(r) => format!("octal game {}", r.label()),
        Game::Subtraction(moves) => format!("the subtraction game {}", moves.label()),
    };
    let periodic = format!(
        "{game} is periodic with period {p} from n = {e} (proved from g(0..={}))",
        table.limit()
    );
    match kind {
        Kind::First => {
            let missing = seq.missing?;
            Some(format!(
                "value {missing} never occurs: {periodic}, so every value it takes occurs in g(0..{}), and {missing} does not",
                e + p
            ))
        }
        Kind::Cold if !g[e..e + p].contains(&0) => Some(format!(
            "no position past {} has value 0: {periodic}, and no value of the period is 0",
            seq.terms.last()?
        )),
        _ => None,
    }
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

    #[test]
    fn cold_ends_for_good_only_when_the_period_holds_no_zero() {
        // 0 at n = 0 only, then 1 2 1 2 ...: with t = 2 (0.07) the period 2 from n = 1 is
        // proved, and no later position is cold.
        let rules = Rules::parse("0.07").unwrap();
        let octal = Game::Octal(&rules);
        let mut g = vec![0u16];
        g.extend((1..200).map(|n| 1 + (n % 2) as u16));
        let table = Table::from_values(g.clone());
        let seq = terms(Kind::Cold, &table);
        assert_eq!(seq.terms, [0]);
        let why = never_more(Kind::Cold, octal, &table, &seq).unwrap();
        assert!(
            why.starts_with("no position past 0 has value 0: octal game 0.07 is periodic with period 2 from n = 1"),
            "{why}"
        );
        // A 0 in the period (0 1 0 1 ..., proved from n = 0): cold positions go on, no end
        // is claimed.
        let g: Vec<u16> = (0..200).map(|n| (n % 2) as u16).collect();
        assert_eq!(proved_period(octal, &g), Some((0, 2)));
        let table = Table::from_values(g);
        let seq = terms(Kind::Cold, &table);
        assert_eq!(never_more(Kind::Cold, octal, &table, &seq), None);
        // Values never end.
        let seq = terms(Kind::Values, &table);
        assert_eq!(never_more(Kind::Values, octal, &table, &seq), None);
    }

    #[test]
    fn the_notes_say_why_the_file_is_short_and_cut_it_to_k() {
        let table = Table::from_values(vec![0, 1, 0, 1, 2, 3, 2, 0]);
        let moves = Moves::Squares;
        let search = |terms: Option<u64>, fixed: bool| Search {
            kind: Kind::First,
            game: Game::Subtraction(&moves),
            terms,
            limit: None,
            fixed,
        };
        // 4 terms of 9 asked, N fixed: one note to raise --limit, one for the value missing
        let mut seq = terms(Kind::First, &table);
        let notes = search(Some(9), true).notes(&table, &mut seq, &End::Limit);
        assert_eq!(notes.len(), 2);
        assert!(notes[0].ends_with("raise --limit for more"), "{}", notes[0]);
        assert!(notes[1].starts_with("first: value 4 does not occur up to N = 7"));
        // 2 of the 4 asked: cut, no note
        let mut seq = terms(Kind::First, &table);
        assert!(search(Some(2), true)
            .notes(&table, &mut seq, &End::Limit)
            .is_empty());
        assert_eq!(seq.terms, [0, 1]);
    }
}
