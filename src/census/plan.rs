//! Which codes a census runs: the selection (`--digits`, `--codes`), each code's estimated
//! cost, and the fixed share of one shard of a job array (`--shard I/K`).
//!
//! Invariant: a [`Selection`] holds each code once, in [`super::codes`] order, and
//! its [`Selection::fingerprint`] depends only on that list; [`shares`] is a function of the
//! costs and K alone, so every shard of a job array computes the same partition, which covers
//! the selection exactly once.

use super::until::Until;
use super::{self as census, order_key};
use crate::base::error::{Error, Result};
use crate::octal::plan::{choose_backend, OctalEntry};
use crate::octal::{OctalPlan, Rules};
use std::collections::BTreeMap;

/// The codes of a census, in [`census::codes`] order.
#[derive(Debug, Clone)]
pub struct Selection {
    /// The most digits after the point, D.
    pub digits: usize,
    /// `--codes` as given, if the selection is filtered.
    pub filter: Option<String>,
    /// The codes, each once, in list order.
    pub codes: Vec<Rules>,
}

impl Selection {
    /// What a rows file records of the selection, so a resume or a merge can tell two
    /// selections apart: `all` for every code of D digits, else the number of codes and an
    /// FNV-1a hash of their labels in list order ([`fingerprint_of`]).
    pub fn fingerprint(&self) -> String {
        match self.filter {
            None => "all".into(),
            Some(_) => fingerprint_of(self.codes.iter().map(|r| r.label())),
        }
    }
}

/// `COUNT:HASH`, the FNV-1a 64-bit hash of the labels each followed by a newline: a fixed,
/// documented hash (not the standard library's, which may change between Rust releases), so
/// files written by different builds compare.
pub fn fingerprint_of<'a>(labels: impl Iterator<Item = &'a str>) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut count = 0usize;
    for label in labels {
        count += 1;
        for &b in label.as_bytes().iter().chain(b"\n") {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{count}:{hash:016x}")
}

/// The census codes of 1 to `digits` digits, filtered by `filter` when given: items separated
/// by commas or white space, each a code (`0.07`, `.6`; trailing zeros dropped), an inclusive
/// range `A..B` of the list order, or `@FILE`, a file of such items (`#` starts a comment).
/// `read` reads a file (the caller's, so that a test needs no file). A code that is not in the
/// census of `digits` digits, a range running backwards, a file that cannot be read or a
/// filter that selects nothing is refused, in one line naming `--codes`.
pub fn select(
    digits: usize,
    filter: Option<&str>,
    read: &dyn Fn(&str) -> std::io::Result<String>,
) -> Result<Selection> {
    let all = census::codes(digits)?;
    let Some(spec) = filter else {
        return Ok(Selection {
            digits,
            filter: None,
            codes: all,
        });
    };
    let position: BTreeMap<&str, usize> = all
        .iter()
        .enumerate()
        .map(|(i, r)| (r.label(), i))
        .collect();
    let refuse = |why: String| Error::Invalid(format!("--codes: {why}"));
    let find = |text: &str| -> Result<usize> {
        let rules = Rules::parse(text).map_err(|e| refuse(e.to_string()))?;
        match position.get(rules.label()) {
            Some(&i) => Ok(i),
            None if order_key(rules.label()).is_some() => Err(refuse(format!(
                "{text} has more digits after the point than --digits {digits} lists"
            ))),
            None => Err(refuse(format!(
                "{text} is not a census code (0.d1..dk or 4.d1..dk with a move)"
            ))),
        }
    };
    let mut chosen = vec![false; all.len()];
    let items = |text: &str, chosen: &mut Vec<bool>| -> Result<()> {
        for item in text.split(|c: char| c == ',' || c.is_whitespace()) {
            if item.is_empty() {
                continue;
            }
            match item.split_once("..") {
                Some((a, b)) => {
                    let (a, b) = (find(a)?, find(b)?);
                    if a > b {
                        return Err(refuse(format!(
                            "the range {item} runs backwards (codes are in the order of `census`: fewer digits first, 0. before 4.)"
                        )));
                    }
                    chosen[a..=b].iter_mut().for_each(|c| *c = true);
                }
                None => chosen[find(item)?] = true,
            }
        }
        Ok(())
    };
    for item in spec.split(',') {
        let item = item.trim();
        if let Some(file) = item.strip_prefix('@') {
            let text = read(file).map_err(|e| refuse(format!("cannot read {file}: {e}")))?;
            let text: String = text
                .lines()
                .map(|l| l.split('#').next().unwrap_or(""))
                .collect::<Vec<_>>()
                .join("\n");
            items(&text, &mut chosen)?;
        } else {
            items(item, &mut chosen)?;
        }
    }
    let codes: Vec<Rules> = all
        .into_iter()
        .zip(&chosen)
        .filter_map(|(r, &c)| c.then_some(r))
        .collect();
    if codes.is_empty() {
        return Err(refuse(format!("'{spec}' selects no code")));
    }
    Ok(Selection {
        digits,
        filter: Some(spec.to_string()),
        codes,
    })
}

/// The estimated cost of the row of `rules` up to `limit`: its option steps, the options a mex
/// from the definition looks at ([`Rules::option_steps`]; every split pair counted once). That
/// is exact for the control and for a code without a splitting digit (about N per move); the
/// fast back-ends do far less on a splitting code whose values have a sparse split, by a
/// factor nobody knows before the table is built. So the estimate ranks every splitting code
/// far above every other (true of every back-end: they cost orders of magnitude more) and
/// weighs the splitting codes among themselves by their number of split pairs, which is what
/// they cost when no sparse split is found.
pub fn estimated_cost(rules: &Rules, limit: usize) -> u128 {
    // + 1: a code pays its table and period scan even with almost no options.
    rules.option_steps(limit) + limit as u128 + 1
}

/// Shard `I` of `K`: which part of a census one job of a job array takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// I, from 0 to K - 1 (as Slurm's `--array=0-(K-1)` numbers its tasks).
    pub index: usize,
    /// K, at least 1.
    pub count: usize,
}

impl Shard {
    /// The whole census: shard 0 of 1.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// Parses `I/K`, refusing (one line naming `--shard`) anything but 0 <= I < K.
    pub fn parse(text: &str) -> Result<Shard> {
        let refuse = |why: &str| {
            Error::Invalid(format!(
                "--shard {}: {why}; write I/K with 0 <= I < K, e.g. 0/4 to 3/4 for four jobs",
                text.escape_debug()
            ))
        };
        let (i, k) = text
            .trim()
            .split_once('/')
            .ok_or_else(|| refuse("no '/'"))?;
        let parse = |s: &str| s.trim().parse::<usize>().ok();
        let (Some(index), Some(count)) = (parse(i), parse(k)) else {
            return Err(refuse("I and K must be whole numbers"));
        };
        if count == 0 {
            return Err(refuse("K must be at least 1"));
        }
        if index >= count {
            return Err(refuse("I must be below K (shards are numbered from 0)"));
        }
        Ok(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The shard of each of `costs` (one per code, in list order) among `k` shards: the codes in
/// decreasing cost (ties by list order) each go to the shard with the least cost so far (ties
/// to the lowest shard): the longest-processing-time-first rule. The largest share then
/// exceeds the smallest by at most the largest single cost (the last code put on the largest
/// share went to the then lightest one), and is within 4/3 of the best possible.
pub fn shares(costs: &[u128], k: usize) -> Vec<usize> {
    let k = k.max(1);
    let mut order: Vec<usize> = (0..costs.len()).collect();
    order.sort_by(|&a, &b| costs[b].cmp(&costs[a]).then(a.cmp(&b)));
    let mut load = vec![0u128; k];
    let mut shard = vec![0usize; costs.len()];
    for i in order {
        let lightest = (0..k).min_by_key(|&s| (load[s], s)).unwrap_or(0);
        load[lightest] += costs[i];
        shard[i] = lightest;
    }
    shard
}

/// The until-proved flags as given: `--until-proved`, `--max-limit`, `--budget`.
#[derive(Debug, Default, Clone, Copy)]
pub struct UntilFlags {
    pub until_proved: bool,
    pub max_limit: Option<usize>,
    pub budget: Option<f64>,
}

impl UntilFlags {
    /// How far each code grows from N = `limit` (`None`: a census at one N), or the refusal,
    /// in one line naming the flag: `--max-limit` or `--budget` without `--until-proved`,
    /// `--until-proved` without `--max-limit`, a `--max-limit` below `--limit`, a `--budget`
    /// that is not a positive number of seconds.
    pub fn decide(self, limit: usize) -> Result<Option<Until>> {
        let refuse = |why: String| Err(Error::Invalid(why));
        if !self.until_proved {
            return match (self.max_limit, self.budget) {
                (Some(_), _) => refuse(
                    "--max-limit needs --until-proved (it bounds how far each code grows)".into(),
                ),
                (_, Some(_)) => refuse(
                    "--budget needs --until-proved (it bounds the seconds each code grows for)"
                        .into(),
                ),
                _ => Ok(None),
            };
        }
        let Some(max_limit) = self.max_limit else {
            return refuse(
                "--until-proved needs --max-limit N, the largest N a code may reach".into(),
            );
        };
        if max_limit < limit {
            return refuse(format!(
                "--max-limit {max_limit} is below --limit {limit}: each code starts at --limit and doubles it up to --max-limit"
            ));
        }
        if let Some(b) = self.budget.filter(|b| !(b.is_finite() && *b > 0.0)) {
            return refuse(format!(
                "--budget {b}: give the seconds each code may use, a positive number"
            ));
        }
        Ok(Some(Until {
            max_limit,
            budget: self.budget,
        }))
    }
}

/// D when neither `--digits` nor `--codes` is given.
pub const DEFAULT_DIGITS: usize = 3;

/// A census decided from its flags before any work: the back-end, the codes, this shard's
/// share of them and what each is estimated to cost.
///
/// Invariant: `share` holds the indices into `selection.codes` that [`shares`] gives
/// `shard`, in list order; the back-end affords N, and the largest code of the share fits in
/// memory (checked once by [`CensusPlan::decide`]).
pub struct CensusPlan {
    /// The back-end every code is built with.
    pub entry: OctalEntry,
    /// N, the largest heap of every table (the first, in an until-proved census).
    pub limit: usize,
    /// How far each code grows, in an until-proved census.
    pub until: Option<Until>,
    /// The codes of the census, in list order.
    pub selection: Selection,
    /// Which shard of a job array this run is.
    pub shard: Shard,
    /// The estimated cost of each code of `selection` ([`estimated_cost`]).
    pub costs: Vec<u128>,
    /// The indices of this shard's codes, in list order.
    pub share: Vec<usize>,
}

impl CensusPlan {
    /// Decides a census from its flags: `--backend` (`None`: the default), `--limit`,
    /// `--digits` (`None`: [`DEFAULT_DIGITS`], or every digit with `--codes`), `--codes`
    /// (`read` reads its `@FILE`s), `--shard` and the until-proved flags. Refuses, in one
    /// line naming the flag, an unknown back-end, an N it does not afford (the largest N a
    /// code may reach), a bad selection, shard or combination of until-proved flags, and a
    /// largest table of the share that does not fit in memory.
    pub fn decide(
        backend: Option<&str>,
        limit: usize,
        digits: Option<usize>,
        codes: Option<&str>,
        shard: Option<&str>,
        until: UntilFlags,
        read: &dyn Fn(&str) -> std::io::Result<String>,
    ) -> Result<CensusPlan> {
        let until = until.decide(limit)?;
        let entry = choose_backend(backend, limit)?;
        let reach = until.map_or(limit, |u| u.max_limit);
        if until.is_some() {
            crate::grundy::check_affords(
                entry.name,
                (entry.make)().affordable_limit(),
                "--max-limit",
                reach,
                "choose another --backend or a smaller --max-limit",
            )?;
        }
        let shard = match shard {
            Some(text) => Shard::parse(text)?,
            None => Shard::WHOLE,
        };
        let digits = digits.unwrap_or(if codes.is_some() {
            census::MAX_DIGITS
        } else {
            DEFAULT_DIGITS
        });
        let selection = select(digits, codes, read)?;
        let costs: Vec<u128> = selection
            .codes
            .iter()
            .map(|r| estimated_cost(r, limit))
            .collect();
        let owner = shares(&costs, shard.count);
        let share: Vec<usize> = (0..costs.len())
            .filter(|&i| owner[i] == shard.index)
            .collect();
        let plan = CensusPlan {
            entry,
            limit,
            until,
            selection,
            shard,
            costs,
            share,
        };
        // The memory of one table and its scratch, checked once on the largest code at the
        // largest N it may reach.
        if let Some(big) = plan.largest() {
            OctalPlan::named(big.clone(), Some(entry.name), reach as u64)?;
        }
        Ok(plan)
    }

    /// The most expensive code of the share, if the share has any.
    pub fn largest(&self) -> Option<&Rules> {
        self.share
            .iter()
            .max_by_key(|&&i| self.costs[i])
            .map(|&i| &self.selection.codes[i])
    }

    /// The codes of the share not among `done` (labels of codes already built, as a resumed
    /// rows file holds them), most expensive first so that the longest never starts last,
    /// each with its estimated cost. Refuses a done code that is not in the share, naming
    /// `--resume`.
    pub fn todo<'a>(&self, done: impl Iterator<Item = &'a str>) -> Result<(Vec<Rules>, Vec<f64>)> {
        let in_share: BTreeMap<&str, usize> = self
            .share
            .iter()
            .map(|&i| (self.selection.codes[i].label(), i))
            .collect();
        let mut skip = vec![false; self.selection.codes.len()];
        for code in done {
            match in_share.get(code) {
                Some(&i) => skip[i] = true,
                None => {
                    return Err(Error::Invalid(format!(
                        "--resume: the file holds the code {code}, which is not in this census; name another --out"
                    )))
                }
            }
        }
        let mut todo: Vec<usize> = self.share.iter().copied().filter(|&i| !skip[i]).collect();
        todo.sort_by(|&a, &b| self.costs[b].cmp(&self.costs[a]).then(a.cmp(&b)));
        Ok((
            todo.iter()
                .map(|&i| self.selection.codes[i].clone())
                .collect(),
            todo.iter().map(|&i| self.costs[i] as f64).collect(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_file(_: &str) -> std::io::Result<String> {
        Err(std::io::Error::other("no file in this test"))
    }

    #[test]
    fn codes_are_chosen_by_list_range_and_file() {
        let s = select(2, Some("0.07, 0.6,4.1..4.3"), &no_file).unwrap();
        let labels: Vec<&str> = s.codes.iter().map(|r| r.label()).collect();
        // list order, not the order given
        assert_eq!(labels, ["0.6", "4.1", "4.2", "4.3", "0.07"]);
        let file = |name: &str| {
            assert_eq!(name, "open.txt");
            Ok("# open codes\n0.6 0.07 # two\n0.070\n".to_string())
        };
        let f = select(2, Some("@open.txt"), &file).unwrap();
        let labels: Vec<&str> = f.codes.iter().map(|r| r.label()).collect();
        assert_eq!(labels, ["0.6", "0.07"]);
        assert_ne!(f.fingerprint(), s.fingerprint());
        assert_eq!(select(2, None, &no_file).unwrap().fingerprint(), "all");
        for (bad, says) in [
            ("0.123", "more digits"),
            ("0.8", "octal digit"),
            ("0.0", "not a census code"),
            ("grundy", "not a census code"),
            ("4.3..4.1", "backwards"),
            ("@x", "cannot read x"),
            (",", "selects no code"),
        ] {
            let e = select(2, Some(bad), &no_file).unwrap_err().to_string();
            assert!(e.contains("--codes") && e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn shards_cover_every_code_once_and_balance_the_estimate() {
        let list = census::codes(3).unwrap();
        let costs: Vec<u128> = list.iter().map(|r| estimated_cost(r, 1000)).collect();
        for k in [1, 2, 3, 7] {
            let shard = shares(&costs, k);
            assert_eq!(shard.len(), list.len());
            let mut load = vec![0u128; k];
            for (i, &s) in shard.iter().enumerate() {
                load[s] += costs[i];
            }
            let (max, min) = (*load.iter().max().unwrap(), *load.iter().min().unwrap());
            // within the largest single cost of each other (what greedy filling guarantees)
            assert!(max - min <= *costs.iter().max().unwrap(), "{k}: {load:?}");
        }
    }

    #[test]
    fn shard_numbers_are_checked() {
        assert_eq!(Shard::parse("1/2").unwrap(), Shard { index: 1, count: 2 });
        for (bad, says) in [
            ("3/2", "below K"),
            ("2/2", "below K"),
            ("0/0", "at least 1"),
            ("1", "no '/'"),
            ("a/2", "whole numbers"),
            ("-1/2", "whole numbers"),
        ] {
            let e = Shard::parse(bad).unwrap_err().to_string();
            assert!(e.contains("--shard") && e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn a_plan_leaves_out_the_codes_done_and_refuses_a_stranger() {
        let plan = CensusPlan::decide(
            None,
            200,
            Some(2),
            Some("0.6,0.07,4.1"),
            None,
            UntilFlags::default(),
            &no_file,
        )
        .unwrap();
        assert_eq!(plan.share, [0, 1, 2]);
        let (todo, costs) = plan.todo(["0.07"].into_iter()).unwrap();
        let labels: Vec<&str> = todo.iter().map(|r| r.label()).collect();
        // 0.07 done; of the rest, the more expensive first
        assert_eq!(labels.len(), 2);
        assert!(labels.contains(&"0.6") && labels.contains(&"4.1"));
        assert!(costs[0] >= costs[1]);
        let refused = plan.todo(["0.5"].into_iter()).unwrap_err().to_string();
        assert!(
            refused.contains("--resume") && refused.contains("0.5"),
            "{refused}"
        );
        let half = CensusPlan::decide(
            None,
            200,
            Some(2),
            Some("0.6,0.07,4.1"),
            Some("1/2"),
            UntilFlags::default(),
            &no_file,
        )
        .unwrap();
        assert!(!half.share.is_empty() && half.share.len() < 3);
    }

    #[test]
    fn until_proved_flags_are_refused_in_one_line_naming_the_flag() {
        let flags = |on, max_limit, budget| UntilFlags {
            until_proved: on,
            max_limit,
            budget,
        };
        for (f, says) in [
            (
                flags(false, Some(4096), None),
                "--max-limit needs --until-proved",
            ),
            (
                flags(false, None, Some(5.0)),
                "--budget needs --until-proved",
            ),
            (flags(true, None, None), "--until-proved needs --max-limit"),
            (
                flags(true, Some(63), None),
                "--max-limit 63 is below --limit 64",
            ),
            (flags(true, Some(4096), Some(0.0)), "--budget 0"),
            (flags(true, Some(4096), Some(-1.0)), "--budget -1"),
            (flags(true, Some(4096), Some(f64::NAN)), "--budget NaN"),
        ] {
            let e = f.decide(64).unwrap_err().to_string();
            assert!(e.contains(says) && !e.contains('\n'), "{f:?}: {e}");
        }
        assert_eq!(flags(false, None, None).decide(64).unwrap(), None);
        let until = flags(true, Some(64), Some(0.5))
            .decide(64)
            .unwrap()
            .unwrap();
        assert_eq!((until.max_limit, until.budget), (64, Some(0.5)));
        // The control affords N <= 2·10^4: a --max-limit past it is refused, naming the flag.
        let e = CensusPlan::decide(
            Some("octal-naive"),
            1000,
            Some(1),
            None,
            None,
            flags(true, Some(1 << 20), None),
            &no_file,
        )
        .err()
        .unwrap()
        .to_string();
        assert!(e.contains("--max-limit"), "{e}");
    }
}
