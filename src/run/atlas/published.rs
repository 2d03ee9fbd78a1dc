//! The published periods of octal games, and whether a census row agrees with them: the
//! logic `results/census/until-proved/compare.py` applied in Python, moved into the library.
//!
//! The tables are the repository's own (`tests/data/`), embedded with `include_str!`:
//! - `oeis_octal_periods.csv`: the OEIS entries; preperiod e = the last exception + 1, or the
//!   largest of the only exceptions + 1, or 2 ("For n>1"), or 1 ("For n>=1", "After the
//!   initial 0");
//! - `octal_periods_tczajka.csv` ("Trivial games"), `octal_solved_tczajka.csv` (solved),
//!   `octal_unsolved_tczajka.csv` (no period known);
//! - `octal_lookup_tczajka.csv`: each code of up to three digits, the representative of its
//!   class of equivalent games and the offset o with g_code(n) = g_equivalent(n - o).
//!
//! A code reaches a published reading directly, through the exact reduction R (a game where a
//! heap of 1 cannot be taken has a dead heap of 1: g_code(n) = g_R(n - 1), applied while it
//! goes, [`reduce`]), and through the lookup class (the class's Trivial or Solved row, or an
//! OEIS entry of a code in the same class). With offset o between the code and the published
//! game, a published preperiod e >= 1 reads as max(0, e + o) here and e = 0 as at most
//! max(0, o); the period is the same.
//!
//! Cost: the tables are parsed once ([`Published::embedded`], about 1 400 lines); a code's
//! readings take its reduction chain (at most its digit count long) and map look-ups.
//!
//! Invariant: a reading's preperiod range and period are the published numbers moved by an
//! exact equivalence; the agreement of a row ([`Agreement`]) is one of five, a partition of
//! the rows.

use std::collections::{BTreeMap, BTreeSet};

/// Where a published reading comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Source {
    Oeis,
    Trivial,
    Solved,
}

impl Source {
    pub fn name(self) -> &'static str {
        match self {
            Source::Oeis => "OEIS",
            Source::Trivial => "tczajka Trivial games",
            Source::Solved => "tczajka Solved games",
        }
    }
}

/// One published (preperiod, period), read for a census code.
#[derive(Debug, Clone, PartialEq)]
pub struct Reading {
    pub source: Source,
    /// How the code reaches it (`A071431 0.17 (the code)`, `Trivial 0.1 (R = 0.1, offset +1)`).
    pub via: String,
    /// The preperiod as published.
    pub published_preperiod: usize,
    /// The preperiods it allows here: `lo..=hi`.
    pub lo: usize,
    pub hi: usize,
    pub period: usize,
}

impl Reading {
    fn new(source: Source, via: String, e: usize, period: usize, offset: i64) -> Reading {
        let (lo, hi) = shifted(e, offset);
        Reading {
            source,
            via,
            published_preperiod: e,
            lo,
            hi,
            period,
        }
    }

    /// True when a proved (preperiod, period) here is this reading.
    pub fn agrees(&self, preperiod: usize, period: usize) -> bool {
        period == self.period && (self.lo..=self.hi).contains(&preperiod)
    }

    /// `(e, p) from VIA`, e a range when the offset leaves it one.
    pub fn text(&self) -> String {
        let e = if self.lo == self.hi {
            self.lo.to_string()
        } else {
            format!("{}..{}", self.lo, self.hi)
        };
        format!("({e}, {}) from {}", self.period, self.via)
    }

    /// The N a proof of this reading needs: 2e' + 2p + t - 1 (e' = max(e, 1), t digits).
    pub fn needs(&self, digits: usize) -> usize {
        2 * self.hi.max(1) + 2 * self.period + digits - 1
    }
}

/// The preperiod range here of a published preperiod `e` at offset `o`.
fn shifted(e: usize, o: i64) -> (usize, usize) {
    if e >= 1 {
        let v = (e as i64 + o).max(0) as usize;
        (v, v)
    } else {
        (0, o.max(0) as usize)
    }
}

/// A code's class in tczajka's lookup table: the representative game and the offset o with
/// g_code(n) = g_game(n - o), and how the code reached it (`the code`, `R = 0.1`).
#[derive(Debug, Clone, PartialEq)]
pub struct Class {
    pub game: String,
    pub offset: i64,
    pub how: String,
}

/// Everything published about one code.
#[derive(Debug, Clone, Default)]
pub struct Readings {
    pub readings: Vec<Reading>,
    pub class: Option<Class>,
    /// The class is on tczajka's list of unsolved games.
    pub unsolved: bool,
}

/// How a census row stands against the published periods: one of five, every row exactly
/// one (the index's `published` filter).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Agreement {
    /// Proved here, and every published period for it is the one proved.
    Agrees,
    /// Proved here, and some published period differs.
    Disagrees,
    /// Proved here, and no table states a period for it (it may be listed unsolved).
    New,
    /// Open here, but a table states a period (its proof needs a larger N, or a budget ran out).
    PublishedOpen,
    /// Open here, and no table states a period.
    Unpublished,
}

impl Agreement {
    /// Every agreement, in the order the index's filter shows them.
    pub const ALL: [Agreement; 5] = [
        Agreement::Agrees,
        Agreement::Disagrees,
        Agreement::New,
        Agreement::PublishedOpen,
        Agreement::Unpublished,
    ];

    /// The name in the page's attributes and fragments (`published=agrees`).
    pub fn name(self) -> &'static str {
        match self {
            Agreement::Agrees => "agrees",
            Agreement::Disagrees => "disagrees",
            Agreement::New => "new",
            Agreement::PublishedOpen => "published-open",
            Agreement::Unpublished => "none",
        }
    }

    /// In words, for the filter's labels.
    pub fn words(self) -> &'static str {
        match self {
            Agreement::Agrees => "agrees with published",
            Agreement::Disagrees => "disagrees with published",
            Agreement::New => "new (proved, no published period)",
            Agreement::PublishedOpen => "published, open here",
            Agreement::Unpublished => "not published, open",
        }
    }
}

impl Readings {
    /// The agreement of a row: `proved` its (preperiod, period), None when open.
    pub fn agreement(&self, proved: Option<(usize, usize)>) -> Agreement {
        match (proved, self.readings.is_empty()) {
            (Some(_), true) => Agreement::New,
            (Some((e, p)), false) => {
                if self.readings.iter().all(|r| r.agrees(e, p)) {
                    Agreement::Agrees
                } else {
                    Agreement::Disagrees
                }
            }
            (None, false) => Agreement::PublishedOpen,
            (None, true) => Agreement::Unpublished,
        }
    }
}

/// An OEIS entry of a code in a lookup class: (A-number, code, e, p, the code's offset).
type ClassEntry = (String, String, usize, usize, i64);

/// The published tables, parsed.
pub struct Published {
    /// OEIS entries by code: (A-number, e, p).
    oeis: BTreeMap<String, Vec<(String, usize, usize)>>,
    trivial: BTreeMap<String, (usize, usize)>,
    solved: BTreeMap<String, (usize, usize)>,
    unsolved: BTreeSet<String>,
    /// code -> (equivalent game, offset).
    lookup: BTreeMap<String, (String, i64)>,
    /// OEIS entries by the lookup class of their code: (A-number, code, e, p, code's offset).
    oeis_class: BTreeMap<String, Vec<ClassEntry>>,
    /// The lookup's classes: game -> [(code, offset)].
    members: BTreeMap<String, Vec<(String, i64)>>,
}

/// The records of an embedded CSV table (`#` lines are its comments).
fn records(text: &str) -> Vec<csv::StringRecord> {
    csv::ReaderBuilder::new()
        .comment(Some(b'#'))
        .from_reader(text.as_bytes())
        .records()
        .map(|r| r.expect("an embedded table is well-formed CSV"))
        .collect()
}

fn number(s: &str) -> usize {
    s.parse().expect("an embedded table's number")
}

/// The digits [d0, d1, ...] of a code written `0.d1d2..`, `.d1..` or `4.d1..`; None for no
/// octal code (`grundy`).
fn digits_of(code: &str) -> Option<Vec<u8>> {
    let (before, after) = code.split_once('.')?;
    let mut ds = vec![if before.is_empty() {
        0
    } else {
        before.parse().ok()?
    }];
    for c in after.chars() {
        ds.push(c.to_digit(8)? as u8);
    }
    Some(ds)
}

/// The code of digits [d0, d1, ...], trailing zero digits dropped (one kept after the point).
fn code_of(ds: &[u8]) -> String {
    let mut ds = ds.to_vec();
    while ds.len() > 2 && ds[ds.len() - 1] == 0 {
        ds.pop();
    }
    let after: String = ds[1..].iter().map(|d| d.to_string()).collect();
    format!("{}.{after}", ds[0])
}

/// A code written as the census writes it (`.560` is `0.56`).
fn normal(code: &str) -> String {
    digits_of(code).map_or_else(|| code.to_string(), |ds| code_of(&ds))
}

/// n0: the least heap size with a move, None for a game without moves.
fn first_move(ds: &[u8]) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (k, &d) in ds.iter().enumerate() {
        for (bit, plus) in [(1u8, 0usize), (2, 1), (4, 2)] {
            if d & bit != 0 && (k > 0 || bit == 4) {
                let n = k + plus;
                best = Some(best.map_or(n, |b| b.min(n)));
            }
        }
    }
    best
}

/// R(code) when a heap of 1 is dead in `code` (bit 1 of d1 clear), else None. Heap n >= 1 of
/// the code is heap n - 1 of R(code): a move taking k and leaving nothing is R's taking of
/// the whole heap k - 1; leaving one heap a >= 1, R's taking of k leaving a - 1; leaving two
/// heaps a, b >= 1, R's taking of k + 1 leaving a - 1, b - 1; d0 = 4 is R's d1 = 7. Each map
/// is onto R's moves of that kind, so the values correspond exactly.
pub fn reduce(code: &str) -> Option<String> {
    let mut ds = digits_of(code)?;
    if ds.len() < 2 {
        ds.push(0);
    }
    if ds[1] & 1 != 0 || first_move(&ds).is_none() {
        return None;
    }
    let mut out = vec![0u8; ds.len() + 1];
    for (k, &d) in ds.iter().enumerate() {
        if k > 0 && d & 1 != 0 {
            out[k - 1] |= 1;
        }
        if k > 0 && d & 2 != 0 {
            out[k] |= 3;
        }
        if d & 4 != 0 {
            out[k + 1] |= 7;
        }
    }
    // bit 1 of d1 is clear, so nothing lands on d'0
    out[0] = 0;
    Some(code_of(&out))
}

/// [(code, 0), (R(code), 1), (R(R(code)), 2), ...] while a heap of 1 is dead.
fn chain(code: &str) -> Vec<(String, i64)> {
    let mut out = vec![(code.to_string(), 0)];
    let mut c = code.to_string();
    while let Some(r) = reduce(&c) {
        if out.len() > 64 {
            break;
        }
        out.push((r.clone(), out.len() as i64));
        c = r;
    }
    out
}

/// `, offset +1`, or nothing for 0.
fn offset_text(o: i64) -> String {
    if o == 0 {
        String::new()
    } else {
        format!(", offset {o:+}")
    }
}

impl Published {
    /// The tables of `tests/data/`, embedded in the library.
    pub fn embedded() -> Published {
        Published::parse(
            include_str!("../../../tests/data/oeis_octal_periods.csv"),
            include_str!("../../../tests/data/octal_periods_tczajka.csv"),
            include_str!("../../../tests/data/octal_solved_tczajka.csv"),
            include_str!("../../../tests/data/octal_unsolved_tczajka.csv"),
            include_str!("../../../tests/data/octal_lookup_tczajka.csv"),
        )
    }

    fn parse(oeis: &str, trivial: &str, solved: &str, unsolved: &str, lookup: &str) -> Published {
        let mut by_code: BTreeMap<String, Vec<(String, usize, usize)>> = BTreeMap::new();
        for r in records(oeis) {
            let (anumber, code, period) = (&r[0], &r[1], &r[3]);
            if period.is_empty() {
                continue;
            }
            let (last, only, note) = (&r[4], &r[5], &r[6]);
            let e = if !last.is_empty() {
                number(last) + 1
            } else if !only.is_empty() {
                only.split(' ').map(number).max().unwrap_or(0) + 1
            } else if note.contains("For n>1") {
                2
            } else if note.contains("For n>=1") || note.contains("After the initial 0") {
                1
            } else {
                panic!("oeis_octal_periods.csv: {anumber} states a period without its start");
            };
            by_code
                .entry(normal(code))
                .or_default()
                .push((anumber.to_string(), e, number(period)));
        }
        let pairs = |text: &str| -> BTreeMap<String, (usize, usize)> {
            records(text)
                .iter()
                .map(|r| (r[0].to_string(), (number(&r[1]), number(&r[2]))))
                .collect()
        };
        let lookup: BTreeMap<String, (String, i64)> = records(lookup)
            .iter()
            .map(|r| {
                let o = r[2].parse().expect("an embedded offset");
                (r[0].to_string(), (r[1].to_string(), o))
            })
            .collect();
        let mut oeis_class: BTreeMap<String, Vec<_>> = BTreeMap::new();
        for (code, entries) in &by_code {
            if let Some((game, ox)) = lookup.get(code) {
                for (a, e, p) in entries {
                    oeis_class.entry(game.clone()).or_default().push((
                        a.clone(),
                        code.clone(),
                        *e,
                        *p,
                        *ox,
                    ));
                }
            }
        }
        let mut members: BTreeMap<String, Vec<(String, i64)>> = BTreeMap::new();
        for (code, (game, o)) in &lookup {
            members
                .entry(game.clone())
                .or_default()
                .push((code.clone(), *o));
        }
        Published {
            oeis: by_code,
            trivial: pairs(trivial),
            solved: pairs(solved),
            unsolved: records(unsolved).iter().map(|r| r[0].to_string()).collect(),
            lookup,
            oeis_class,
            members,
        }
    }

    /// Every published reading of `code`, and its lookup class.
    pub fn readings(&self, code: &str) -> Readings {
        let mut out = Readings::default();
        let mut trivial_seen = BTreeSet::new();
        for (c, k) in chain(code) {
            let how = match k {
                0 => "the code".to_string(),
                1 => format!("R = {c}"),
                _ => format!("R^{k} = {c}"),
            };
            for (a, e, p) in self.oeis.get(&c).into_iter().flatten() {
                let via = format!("{a} {c} ({how}{})", offset_text(k));
                out.readings
                    .push(Reading::new(Source::Oeis, via, *e, *p, k));
            }
            if let Some(&(e, p)) = self.trivial.get(&c) {
                trivial_seen.insert((c.clone(), k));
                let via = format!("Trivial {c} ({how}{})", offset_text(k));
                out.readings
                    .push(Reading::new(Source::Trivial, via, e, p, k));
            }
            if out.class.is_none() {
                if let Some((game, o)) = self.lookup.get(&c) {
                    out.class = Some(Class {
                        game: game.clone(),
                        offset: k + o,
                        how,
                    });
                }
            }
        }
        if let Some(class) = &out.class {
            let (g, o) = (&class.game, class.offset);
            let via = format!("{g} (lookup of {}{})", class.how, offset_text(o));
            if let Some(&(e, p)) = self.trivial.get(g) {
                if !trivial_seen.contains(&(g.clone(), o)) {
                    out.readings.push(Reading::new(
                        Source::Trivial,
                        format!("Trivial {via}"),
                        e,
                        p,
                        o,
                    ));
                }
            }
            if let Some(&(e, p)) = self.solved.get(g) {
                out.readings.push(Reading::new(
                    Source::Solved,
                    format!("Solved {via}"),
                    e,
                    p,
                    o,
                ));
            }
            // An OEIS entry whose code is in the same class: g_code(n) = g_X(n - (o - oX)),
            // one reading per entry and offset (A071436 names .560-.563, all of class .56).
            let mut have: BTreeSet<(String, i64)> = out
                .readings
                .iter()
                .filter(|r| r.source == Source::Oeis)
                .map(|r| {
                    let a = r.via.split(' ').next().unwrap_or("").to_string();
                    (a, r.lo as i64 - r.published_preperiod as i64)
                })
                .collect();
            for (a, x, e, p, ox) in self.oeis_class.get(g).into_iter().flatten() {
                let d = o - ox;
                if have.insert((a.clone(), d)) {
                    let via = format!(
                        "{a} {x} (same lookup class {g} as {}{})",
                        class.how,
                        offset_text(d)
                    );
                    out.readings
                        .push(Reading::new(Source::Oeis, via, *e, *p, d));
                }
            }
            out.unsolved = self.unsolved.contains(g);
        }
        out
    }

    /// The games known equivalent to `code`, each with d such that g_code(n) = g_other(n - d)
    /// (a negative heap read as value 0): its reductions R, R^2, ... and the members of its
    /// lookup class. The code itself is left out.
    pub fn equivalents(&self, code: &str) -> Vec<(String, i64)> {
        let mut out: Vec<(String, i64)> = chain(code).into_iter().skip(1).collect();
        if let Some(class) = self.readings(code).class {
            for (x, ox) in self.members.get(&class.game).into_iter().flatten() {
                out.push((x.clone(), class.offset - ox));
            }
        }
        let mut seen = BTreeSet::new();
        out.retain(|(x, _)| x != code && seen.insert(x.clone()));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reduction_of_a_dead_heap_of_one_is_the_game_one_heap_down() {
        // 0.01 (take 1 token only if it is not the whole heap... bit 2 of d1): heap 1 dead
        // below a heap of 2; the lookup says 0.01 -> 0.1 offset 1.
        assert_eq!(reduce("0.01").as_deref(), Some("0.1"));
        assert_eq!(reduce("0.1"), None);
        // 4.4 is Kayles (0.77) with heap sizes up by 1.
        assert_eq!(reduce("4.4").as_deref(), Some("0.77"));
        assert_eq!(normal(".560"), "0.56");
    }

    #[test]
    fn a_row_agrees_with_the_tables_it_reaches() {
        let p = Published::embedded();
        // Dawson's Kayles: Trivial 0.17 (33, 34); the census proves the same.
        let r = p.readings("0.17");
        assert!(r.readings.iter().any(|x| x.source == Source::Trivial));
        assert_eq!(r.agreement(Some((33, 34))), Agreement::Agrees);
        assert_eq!(r.agreement(Some((33, 17))), Agreement::Disagrees);
        assert_eq!(r.agreement(None), Agreement::PublishedOpen);
        // 0.6 (Officers) is listed unsolved, no table states a period.
        let r = p.readings("0.6");
        assert!(r.unsolved && r.readings.is_empty());
        assert_eq!(r.agreement(None), Agreement::Unpublished);
        assert_eq!(r.agreement(Some((1, 2))), Agreement::New);
        // 0.563 is of class 0.56, solved: (326 640, 8) read as is (offset 0).
        let r = p.readings("0.563");
        let solved: Vec<_> = r
            .readings
            .iter()
            .filter(|x| x.source == Source::Solved)
            .collect();
        assert_eq!(solved.len(), 1, "{:?}", r.readings);
        assert_eq!((solved[0].lo, solved[0].period), (326_640, 144));
    }

    #[test]
    fn equivalents_come_with_their_offsets() {
        let p = Published::embedded();
        let e = p.equivalents("0.01");
        assert!(e.contains(&("0.1".to_string(), 1)), "{e:?}");
        assert!(!e.iter().any(|(x, _)| x == "0.01"));
    }
}
