//! Paired comparison of two commands: is A faster than B, and by how much?
//!
//! On these shared machines the same build's time drifts by tens of percent within the hour,
//! so two separate medians (or criterion's two intervals) can call one build 17% slower and
//! then 11% faster. A comparison that survives drift times A and B as whole processes in
//! alternating pairs, in the order A B, B A, A B, ... (so neither side is always first), and
//! takes the ratio B/A inside each pair, where the drift of the hour cancels. The verdict is
//! the median of those ratios with a distribution-free interval: the order statistics
//! `r_(k)` and `r_(n+1-k)` of the n sorted pair ratios cover the true median ratio with
//! probability `1 - 2·P(Bin(n, 1/2) <= k-1)` whatever the distribution of the noise, as long
//! as the pairs are independent (the sign test's interval). Nine pairs give 96.1%.
//!
//! A counted comparison ([`How::counted`], `--metric instructions` and the cache metrics)
//! runs each side under Valgrind's Callgrind instead ([`crate::run::counted`]) and takes the
//! ratio of counts: the same build on the same input counts the same to a few parts in a
//! million, so the pair ratios show a difference of a fraction of a percent that the clock
//! on these machines cannot.
//!
//! [`plan`] resolves the command line into the two sides before any run; [`run_pairs`]
//! spawns the processes and reads each one's JSON report; [`summarize`] and
//! [`median_interval`] are pure, so the statistics are tested without timing anything.
//! Cost: `2·(pairs + warm-up)` runs of the two commands.

pub mod plan;

use crate::base::error::{Error, Result};
use crate::run::counted::{Counting, Counts, Metric, Valgrind};
use crate::run::report::Record;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Instant;

/// One side of a comparison: a program and its arguments, which must print one JSON record
/// ([`Record`]: a `nimsquare solve --json` or `nimsquare build --json` line) with an answer
/// both sides must agree on.
#[derive(Clone, Debug)]
pub struct Side {
    /// What the reports call this side (`stamped-lanes`, `bitset@avx2`, `old:bitset`).
    pub label: String,
    pub program: PathBuf,
    pub args: Vec<String>,
}

/// What a run's time is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// The seconds a solve reports for its table stage, without process start-up and the
    /// count.
    Table,
    /// The seconds a solve reports for its count stage.
    Count,
    /// The seconds a build reports for its table.
    Build,
    /// The whole process's wall-clock time, measured from outside.
    Wall,
}

impl Measure {
    /// The name reports and `--json` use: the record's field it reads.
    pub fn name(self) -> &'static str {
        match self {
            Measure::Table => "table_seconds",
            Measure::Count => "count_seconds",
            Measure::Build => "seconds",
            Measure::Wall => "wall_seconds",
        }
    }

    /// The seconds `record` reports under this measure (None for [`Measure::Wall`], timed
    /// from outside, and for a record without them).
    fn reported(self, record: &Record) -> Option<f64> {
        match self {
            Measure::Table => record.table_seconds,
            Measure::Count => record.count_seconds,
            Measure::Build => record.seconds,
            Measure::Wall => None,
        }
    }
}

/// How each run is measured: the seconds of a [`Measure`], or a count of the stage (or the
/// whole process for [`Measure::Wall`]) under Valgrind.
#[derive(Debug)]
pub struct How {
    pub measure: Measure,
    /// Valgrind, how it counts, and the count the ratio is taken of.
    pub counted: Option<(Valgrind, Counting, Metric)>,
}

impl How {
    /// Seconds of `measure`, not counted.
    pub fn timed(measure: Measure) -> How {
        How {
            measure,
            counted: None,
        }
    }

    /// The metric counted, or None when timed.
    pub fn metric(&self) -> Option<Metric> {
        self.counted.as_ref().map(|c| c.2)
    }

    /// What the ratio is of, for reports: `table_seconds`, `instructions`, ...
    pub fn quantity(&self) -> &'static str {
        match self.metric() {
            Some(m) => m.name(),
            None => self.measure.name(),
        }
    }
}

/// One finished run of one side.
#[derive(Clone, Debug)]
pub struct Run {
    /// The time under the comparison's [`Measure`] (under Valgrind when counted: then not
    /// the back-end's time).
    pub seconds: f64,
    /// The counts of a counted run.
    pub counts: Option<Counts>,
    /// What the ratio is taken of: `seconds`, or the counted metric.
    pub value: f64,
    /// The whole process's wall-clock seconds.
    pub wall_seconds: f64,
    /// The run's answer, as it printed it: both sides must agree on it.
    pub answer: String,
    /// What the run reported.
    pub report: Record,
}

/// Runs `side` once, natively or counted as `how` says, and reads its report.
pub fn run_once(side: &Side, how: &How) -> Result<Run> {
    let measure = how.measure;
    let started = Instant::now();
    let (output, counts) = match &how.counted {
        None => {
            let output = Command::new(&side.program)
                .args(&side.args)
                .stdin(Stdio::null())
                .output()
                .map_err(|e| {
                    Error::Invalid(format!(
                        "{}: cannot run {}: {e}",
                        side.label,
                        side.program.display()
                    ))
                })?;
            (output, None)
        }
        Some((valgrind, counting, _)) => {
            let run = valgrind
                .run(counting, &side.program, &side.args)
                .map_err(|e| Error::Invalid(format!("{}: {e}", side.label)))?;
            (run.output, Some(run.counts))
        }
    };
    let wall_seconds = started.elapsed().as_secs_f64();
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let why = stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("no message");
        return Err(Error::Invalid(format!(
            "{} failed ({}): {why}",
            side.label, output.status
        )));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let report: Record = stdout
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str(l).ok())
        .ok_or_else(|| {
            Error::Invalid(format!(
                "{}: the run printed no JSON report (is {} a nimsquare binary?)",
                side.label,
                side.program.display()
            ))
        })?;
    let answer = report.answer().map(str::to_string).ok_or_else(|| {
        Error::Invalid(format!(
            "{}: the report has no answer (is {} a nimsquare binary of this version?)",
            side.label,
            side.program.display()
        ))
    })?;
    let seconds = match measure {
        Measure::Wall => wall_seconds,
        _ => measure.reported(&report).ok_or_else(|| {
            Error::Invalid(format!(
                "{}: the report has no number '{}' (use --measure wall to time whole processes)",
                side.label,
                measure.name()
            ))
        })?,
    };
    let value = match (how.metric(), &counts) {
        (Some(metric), Some(c)) => metric.of(c).ok_or_else(|| {
            Error::Invalid(format!(
                "{}: the run did not count {}",
                side.label,
                metric.name()
            ))
        })? as f64,
        _ => seconds,
    };
    Ok(Run {
        seconds,
        counts,
        value,
        wall_seconds,
        answer,
        report,
    })
}

/// The runs of a comparison, pair by pair: `a[i]` and `b[i]` ran back to back.
#[derive(Clone, Debug, Default)]
pub struct Pairs {
    pub a: Vec<Run>,
    pub b: Vec<Run>,
}

impl Pairs {
    /// The summary of the pair ratios B/A of the runs' values ([`summarize`]); refused when
    /// a run reported no time (or counted nothing) at all: a ratio of it means nothing.
    pub fn summarize(&self, noise: f64, margin: f64) -> Result<Summary> {
        let a: Vec<f64> = self.a.iter().map(|r| r.value).collect();
        let b: Vec<f64> = self.b.iter().map(|r| r.value).collect();
        if let Some(zero) = a.iter().chain(&b).find(|&&t| t <= 0.0) {
            let counted = self.a.iter().chain(&self.b).any(|r| r.counts.is_some());
            return Err(Error::Invalid(if counted {
                format!("a run counted {zero}, nothing to compare; use a larger --limit or another --metric")
            } else {
                format!("a run reported {zero} seconds, too short to compare; use a larger --limit or --measure wall")
            }));
        }
        Ok(summarize(&a, &b, noise, margin))
    }
}

/// What [`run_pairs`] tells its caller as it goes.
pub enum Event<'a> {
    /// The warm-up is over; its last run of each side.
    WarmedUp { a: &'a Run, b: &'a Run },
    /// Pair `i` (from 0) is done.
    Pair { i: usize, a: &'a Run, b: &'a Run },
}

/// Runs `warmup` untimed runs of each side, then `pairs` pairs, A first in even pairs and B
/// first in odd ones, telling `on_event` after the warm-up and after each pair. Every run's
/// answer must equal the first one's: a disagreement is [`Error::Disagreement`], found as
/// soon as it happens.
pub fn run_pairs(
    a: &Side,
    b: &Side,
    pairs: usize,
    warmup: usize,
    how: &How,
    mut on_event: impl FnMut(Event),
) -> Result<Pairs> {
    let mut expected: Option<(String, String)> = None;
    let mut check = |side: &Side, run: &Run| -> Result<()> {
        match &expected {
            None => expected = Some((side.label.clone(), run.answer.clone())),
            Some((who, answer)) if *answer != run.answer => {
                return Err(Error::Disagreement(format!(
                    "{} answered {} where {who} answered {answer}: the two sides do not compute the same thing",
                    side.label, run.answer
                )))
            }
            Some(_) => {}
        }
        Ok(())
    };
    for w in 0..warmup {
        let ra = run_once(a, how)?;
        check(a, &ra)?;
        let rb = run_once(b, how)?;
        check(b, &rb)?;
        if w + 1 == warmup {
            on_event(Event::WarmedUp { a: &ra, b: &rb });
        }
    }
    let mut out = Pairs::default();
    for i in 0..pairs {
        let (first, second) = if i % 2 == 0 { (a, b) } else { (b, a) };
        let r1 = run_once(first, how)?;
        check(first, &r1)?;
        let r2 = run_once(second, how)?;
        check(second, &r2)?;
        let (ra, rb) = if i % 2 == 0 { (r1, r2) } else { (r2, r1) };
        on_event(Event::Pair { i, a: &ra, b: &rb });
        out.a.push(ra);
        out.b.push(rb);
    }
    Ok(out)
}

/// A distribution-free interval for the median of `xs`: `(lo, hi, confidence, k)` with
/// `lo = x_(k)`, `hi = x_(n+1-k)` (1-based order statistics) for the largest `k` whose
/// confidence `1 - 2·P(Bin(n, 1/2) <= k-1)` is at least `level`; when even `k = 1` (the
/// minimum and maximum) falls short, `k = 1` with its lower confidence. `xs` must be
/// non-empty.
pub fn median_interval(xs: &[f64], level: f64) -> (f64, f64, f64, usize) {
    assert!(!xs.is_empty());
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    // P(Bin(n, 1/2) <= j) for j = 0, 1, ...: the cumulative sum of C(n, j) / 2^n, in f64 (the
    // terms are exact up to n = 1000 to far better than the 3 digits reported).
    let mut cdf = Vec::with_capacity(n / 2 + 1);
    let mut term = 0.5f64.powi(n as i32);
    let mut sum = 0.0;
    for j in 0..=n / 2 {
        sum += term;
        cdf.push(sum);
        term = term * (n - j) as f64 / (j + 1) as f64;
    }
    let confidence = |k: usize| 1.0 - 2.0 * cdf[k - 1];
    let mut k = 1;
    while k < n / 2 && confidence(k + 1) >= level {
        k += 1;
    }
    (v[k - 1], v[n - k], confidence(k).max(0.0), k)
}

/// What the pairs say, against a noise threshold (for a difference) and an equivalence
/// margin (for its absence).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The whole interval of B/A lies above `1 + noise`: A is faster.
    AFaster,
    /// The whole interval lies below `1 / (1 + noise)`: B is faster.
    BFaster,
    /// The whole interval lies inside the noise band `[1/(1 + noise), 1 + noise]`: no
    /// difference larger than the noise threshold.
    Same,
    /// Not [`Verdict::Same`], but the whole interval lies inside the margin's band
    /// `[1/(1 + margin), 1 + margin]`: no difference larger than the margin.
    WithinMargin,
    /// The interval reaches across a band edge: more pairs are needed to decide.
    Inconclusive,
}

impl Verdict {
    /// The name `--json` uses.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::AFaster => "a_faster",
            Verdict::BFaster => "b_faster",
            Verdict::Same => "same_within_noise",
            Verdict::WithinMargin => "same_within_margin",
            Verdict::Inconclusive => "inconclusive",
        }
    }
}

/// The verdict on an interval `lo..=hi` of B/A: a difference when the whole interval lies
/// beyond the noise band `1 ± noise` (a ratio band, `[1/(1 + x), 1 + x]`); else equivalence
/// when it lies wholly inside the band of the noise or of the margin (the narrower band that
/// holds it, so the sentence states the tighter bound); else inconclusive.
pub fn verdict(lo: f64, hi: f64, noise: f64, margin: f64) -> Verdict {
    let inside = |x: f64| lo >= 1.0 / (1.0 + x) && hi <= 1.0 + x;
    if lo > 1.0 + noise {
        Verdict::AFaster
    } else if hi < 1.0 / (1.0 + noise) {
        Verdict::BFaster
    } else if inside(noise) && (noise <= margin || !inside(margin)) {
        Verdict::Same
    } else if inside(margin) {
        Verdict::WithinMargin
    } else {
        Verdict::Inconclusive
    }
}

/// What a comparison does when the command line does not say.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Defaults {
    pub pairs: usize,
    pub warmup: usize,
    pub noise: f64,
    pub margin: f64,
}

/// A timed comparison: 9 pairs (a 96% interval) after one warm-up run of each side, noise
/// 3% and margin 5% (a little under what two runs of one build differ by on a quiet machine
/// here).
pub const TIMED: Defaults = Defaults {
    pairs: 9,
    warmup: 1,
    noise: 0.03,
    margin: 0.05,
};

/// A counted comparison: 3 pairs (enough to show each side's count repeats), no warm-up
/// (nothing to warm), noise 0.01% and margin 0.1%: two runs of one build on one input count
/// the same to the instruction or within a few parts in a million, so a difference past
/// 0.01% is the code's, not the measurement's.
pub const COUNTED: Defaults = Defaults {
    pairs: 3,
    warmup: 0,
    noise: 0.0001,
    margin: 0.001,
};

impl How {
    /// The defaults of this kind of comparison.
    pub fn defaults(&self) -> Defaults {
        if self.counted.is_some() {
            COUNTED
        } else {
            TIMED
        }
    }
}

/// The confidence level [`summarize`] asks of its interval.
pub const LEVEL: f64 = 0.95;

/// The fewest pairs that give a verdict or let a gate fail: below it the median's interval
/// has a confidence of at most 50% (one pair: none), so any difference it shows may be one
/// noisy run.
pub const MIN_PAIRS: usize = 3;

/// A comparison's statistics: each side's times and the pair ratios B/A.
#[derive(Clone, Debug)]
pub struct Summary {
    pub pairs: usize,
    /// Median, minimum and maximum seconds of A's timed runs.
    pub a: (f64, f64, f64),
    /// The same for B.
    pub b: (f64, f64, f64),
    /// B's time over A's, pair by pair, in the order run.
    pub ratios: Vec<f64>,
    pub ratio_median: f64,
    /// The interval of [`median_interval`] at [`LEVEL`], its confidence and its `k`.
    pub ratio_lo: f64,
    pub ratio_hi: f64,
    pub confidence: f64,
    pub k: usize,
    pub noise: f64,
    /// The equivalence margin: no difference larger than this when the whole interval lies
    /// within `[1/(1 + margin), 1 + margin]`.
    pub margin: f64,
    pub verdict: Verdict,
}

/// Summarizes paired times (`a[i]` and `b[i]` from one pair) against the relative noise
/// threshold `noise` (0.03 means differences under 3% are noise) and the equivalence margin
/// `margin` (see [`verdict`]). `a` and `b` must be non-empty, of one length, and positive.
pub fn summarize(a: &[f64], b: &[f64], noise: f64, margin: f64) -> Summary {
    assert!(!a.is_empty() && a.len() == b.len());
    let spread = |xs: &[f64]| {
        let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (crate::base::stats::median(xs), lo, hi)
    };
    let ratios: Vec<f64> = a.iter().zip(b).map(|(x, y)| y / x).collect();
    let (lo, hi, confidence, k) = median_interval(&ratios, LEVEL);
    let verdict = if a.len() < MIN_PAIRS {
        Verdict::Inconclusive
    } else {
        verdict(lo, hi, noise, margin)
    };
    Summary {
        pairs: a.len(),
        a: spread(a),
        b: spread(b),
        ratio_median: crate::base::stats::median(&ratios),
        ratios,
        ratio_lo: lo,
        ratio_hi: hi,
        confidence,
        k,
        noise,
        margin,
        verdict,
    }
}

impl Summary {
    /// True when B is slower than `limit` times A beyond doubt: the interval's lower end is
    /// above `limit`. A gate on this fails only on a regression the pairs establish, never on
    /// noise.
    pub fn exceeds(&self, limit: f64) -> bool {
        self.pairs >= MIN_PAIRS && self.ratio_lo > limit
    }

    /// One sentence for a person: the verdict with the factor and the interval behind it.
    pub fn sentence(&self, a: &str, b: &str) -> String {
        let band = format!("the noise threshold is {}%", percent(self.noise));
        let none_above = |x: f64| {
            format!(
                "no difference larger than {}% ({:.1}% confidence) between {a} and {b}: the whole interval {:.3}-{:.3} lies within {0}% of 1",
                percent(x),
                self.confidence * 100.0,
                self.ratio_lo,
                self.ratio_hi
            )
        };
        match self.verdict {
            Verdict::AFaster => format!(
                "{a} is {:.3}x faster than {b} (B/A interval {:.3}-{:.3}, beyond noise; {band})",
                self.ratio_median, self.ratio_lo, self.ratio_hi
            ),
            Verdict::BFaster => format!(
                "{b} is {:.3}x faster than {a} (A/B interval {:.3}-{:.3}, beyond noise; {band})",
                1.0 / self.ratio_median,
                1.0 / self.ratio_hi,
                1.0 / self.ratio_lo
            ),
            Verdict::Same => format!("{} (the noise threshold)", none_above(self.noise)),
            Verdict::WithinMargin => format!("{} (the margin; {band})", none_above(self.margin)),
            Verdict::Inconclusive if self.pairs < MIN_PAIRS => format!(
                "inconclusive: {} too few for a verdict (an interval of {:.1}% confidence); run at least {MIN_PAIRS} pairs",
                if self.pairs == 1 { "1 pair is".to_string() } else { format!("{} pairs are", self.pairs) },
                self.confidence * 100.0
            ),
            Verdict::Inconclusive => format!(
                "inconclusive: the interval {:.3}-{:.3} reaches across the noise band ({band}) and past the {}% margin; run more pairs",
                self.ratio_lo,
                self.ratio_hi,
                percent(self.margin)
            ),
        }
    }
}

impl Summary {
    /// One sentence for a counted comparison of `what` (`instructions`): counts are not
    /// drawn from a noisy distribution, so the sentence states the ratio and the range of the
    /// pair ratios, not a confidence.
    pub fn counted_sentence(&self, a: &str, b: &str, what: &str) -> String {
        let range = format!(
            "pair ratios {:.5}-{:.5} over {}",
            self.ratio_lo,
            self.ratio_hi,
            if self.pairs == 1 {
                "1 pair".to_string()
            } else {
                format!("{} pairs", self.pairs)
            }
        );
        let change = |r: f64| {
            let pct = (r - 1.0) * 100.0;
            if pct >= 0.0 {
                format!("{pct:.2}% more")
            } else {
                format!("{:.2}% fewer", -pct)
            }
        };
        match self.verdict {
            Verdict::AFaster | Verdict::BFaster => format!(
                "{b} counts {:.5}x the {what} of {a} ({} than A; {range}, beyond the {}% threshold)",
                self.ratio_median,
                change(self.ratio_median),
                percent(self.noise)
            ),
            Verdict::Same => format!(
                "no difference larger than {}% in {what} between {a} and {b} ({range})",
                percent(self.noise)
            ),
            Verdict::WithinMargin => format!(
                "no difference larger than {}% in {what} between {a} and {b} ({range}; past the {}% threshold)",
                percent(self.margin),
                percent(self.noise)
            ),
            Verdict::Inconclusive if self.pairs < MIN_PAIRS => format!(
                "{b} counts {:.5}x the {what} of {a}; {} too few to show the counts repeat: run at least {MIN_PAIRS}",
                self.ratio_median,
                if self.pairs == 1 { "1 pair is".to_string() } else { format!("{} pairs are", self.pairs) },
            ),
            Verdict::Inconclusive => format!(
                "inconclusive: the {range} reach across the {}% threshold and past the {}% margin: the counts of a side do not repeat",
                percent(self.noise),
                percent(self.margin)
            ),
        }
    }
}

/// `x` (a fraction) in percent, without trailing zeros: 0.05 is `5`, 0.025 is `2.5`.
fn percent(x: f64) -> String {
    let text = format!("{:.4}", x * 100.0);
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_are_summarized_and_a_run_of_no_time_is_refused() {
        let run = |seconds: f64| Run {
            seconds,
            counts: None,
            value: seconds,
            wall_seconds: seconds,
            answer: "1".into(),
            report: Record::default(),
        };
        let pairs = Pairs {
            a: vec![run(1.0), run(2.0), run(4.0)],
            b: vec![run(2.0), run(4.0), run(8.0)],
        };
        let summary = pairs.summarize(0.03, 0.05).unwrap();
        assert_eq!((summary.pairs, summary.ratio_median), (3, 2.0));
        let zero = Pairs {
            a: vec![run(1.0)],
            b: vec![run(0.0)],
        };
        let refused = zero.summarize(0.03, 0.05).unwrap_err().to_string();
        assert!(refused.contains("too short to compare"), "{refused}");
    }

    #[test]
    fn interval_confidence_matches_the_binomial_by_hand() {
        // n = 9: P(Bin(9, 1/2) <= 1) = (1 + 9)/512, so k = 2 has 1 - 20/512 = 0.9609;
        // k = 3 would have 1 - 2·(1 + 9 + 36)/512 = 0.8203 < 0.95.
        let xs: Vec<f64> = (1..=9).map(f64::from).collect();
        let (lo, hi, conf, k) = median_interval(&xs, 0.95);
        assert_eq!((lo, hi, k), (2.0, 8.0, 2));
        assert!((conf - (1.0 - 20.0 / 512.0)).abs() < 1e-12);
        // n = 5: even min-max covers only 1 - 2/32 = 0.9375.
        let (lo, hi, conf, k) = median_interval(&[5.0, 1.0, 4.0, 2.0, 3.0], 0.95);
        assert_eq!((lo, hi, k), (1.0, 5.0, 1));
        assert!((conf - 0.9375).abs() < 1e-12);
        // n = 20: P(Bin(20, 1/2) <= 5) = 21700/1048576 = 0.0207, so k = 6 (0.9586); k = 7
        // has 1 - 2·60460/1048576 = 0.8847.
        let xs: Vec<f64> = (1..=20).map(f64::from).collect();
        let (lo, hi, conf, k) = median_interval(&xs, 0.95);
        assert_eq!((lo, hi, k), (6.0, 15.0, 6));
        assert!((conf - (1.0 - 2.0 * 21700.0 / 1048576.0)).abs() < 1e-12);
        // One value: the interval is the value, with confidence 0.
        assert_eq!(median_interval(&[1.5], 0.95), (1.5, 1.5, 0.0, 1));
    }

    #[test]
    fn verdicts_follow_the_interval_and_the_band() {
        let a = [1.0; 9];
        let b = [1.30, 1.25, 1.31, 1.40, 1.28, 1.33, 1.29, 1.35, 1.27];
        let s = summarize(&a, &b, 0.03, 0.05);
        assert_eq!(s.verdict, Verdict::AFaster);
        assert_eq!(s.ratio_median, 1.30);
        assert_eq!((s.ratio_lo, s.ratio_hi), (1.27, 1.35));
        assert!(s.exceeds(1.2) && !s.exceeds(1.3));
        let s = summarize(&b, &a, 0.03, 0.05);
        assert_eq!(s.verdict, Verdict::BFaster);
        let same = [1.0, 1.01, 0.99, 1.0, 1.02, 0.995, 1.005, 1.0, 0.99];
        assert_eq!(summarize(&a, &same, 0.03, 0.05).verdict, Verdict::Same);
        // Drift that scales both sides of a pair alike cancels in the ratio.
        let drift: Vec<f64> = (0..9).map(|i| 1.0 + 0.2 * i as f64).collect();
        let b: Vec<f64> = drift.iter().map(|d| d * 1.1).collect();
        let s = summarize(&drift, &b, 0.03, 0.05);
        assert!((s.ratio_lo - 1.1).abs() < 1e-12 && (s.ratio_hi - 1.1).abs() < 1e-12);
        assert_eq!(s.verdict, Verdict::AFaster);
        // Two pairs far apart are still too few: no verdict, no gate.
        let s = summarize(&a[..2], &b[..2], 0.03, 0.05);
        assert_eq!(s.verdict, Verdict::Inconclusive);
        assert!(!s.exceeds(1.0));
        assert!(s.sentence("A", "B").contains("run at least 3 pairs"));
        // Wide noise across 1: inconclusive, and no gate fires.
        let wide = [0.8, 1.2, 0.9, 1.3, 1.0, 0.85, 1.25, 1.1, 0.95];
        let s = summarize(&a, &wide, 0.03, 0.05);
        assert_eq!(s.verdict, Verdict::Inconclusive);
        assert!(!s.exceeds(1.0));
    }

    #[test]
    fn an_interval_inside_the_margin_is_equivalence_and_one_across_it_stays_inconclusive() {
        let a = [1.0; 9];
        // Sorted: 0.965 0.97 0.98 0.99 1.0 1.01 1.02 1.035 1.04; nine pairs take the 2nd and
        // 8th, 0.97-1.035: past the 3% noise band, inside the 5% margin (0.952-1.05).
        let near = [0.97, 1.04, 0.99, 1.035, 1.0, 0.965, 1.01, 1.02, 0.98];
        let s = summarize(&a, &near, 0.03, 0.05);
        assert_eq!((s.ratio_lo, s.ratio_hi), (0.97, 1.035));
        assert_eq!(s.verdict, Verdict::WithinMargin);
        assert_eq!(s.verdict.name(), "same_within_margin");
        let text = s.sentence("A (x)", "B (y)");
        assert!(
            text.starts_with(
                "no difference larger than 5% (96.1% confidence) between A (x) and B (y)"
            ),
            "{text}"
        );
        // A 4% margin does not hold 1.035 and 0.97 (1/1.04 = 0.9615 holds 0.97, 1.04 holds
        // 1.035): still inside. A 3.4% margin does not: 1.035 > 1.034.
        assert_eq!(
            summarize(&a, &near, 0.03, 0.04).verdict,
            Verdict::WithinMargin
        );
        let s = summarize(&a, &near, 0.03, 0.034);
        assert_eq!(s.verdict, Verdict::Inconclusive);
        assert!(
            s.sentence("A", "B").contains("past the 3.4% margin"),
            "{}",
            s.sentence("A", "B")
        );
        // Sorted: 0.92 0.93 0.98 0.99 1.0 1.01 1.02 1.06 1.07: the interval 0.93-1.06 straddles
        // both ends of the 5% margin, and is no difference beyond noise either.
        let wide = [0.93, 1.06, 0.99, 1.07, 1.0, 0.92, 1.01, 1.02, 0.98];
        let s = summarize(&a, &wide, 0.03, 0.05);
        assert_eq!((s.ratio_lo, s.ratio_hi), (0.93, 1.06));
        assert_eq!(s.verdict, Verdict::Inconclusive);
        assert!(s.sentence("A", "B").starts_with("inconclusive"));
        // A clear difference stays a difference, even under a margin wide enough to hold it.
        let slow = [1.30, 1.25, 1.31, 1.40, 1.28, 1.33, 1.29, 1.35, 1.27];
        assert_eq!(summarize(&a, &slow, 0.03, 0.5).verdict, Verdict::AFaster);
        assert_eq!(summarize(&slow, &a, 0.03, 0.5).verdict, Verdict::BFaster);
    }

    #[test]
    fn counted_sentences_state_the_ratio_and_the_range_not_a_confidence() {
        let (noise, margin) = (COUNTED.noise, COUNTED.margin);
        let a = [1_000_000.0; 3];
        // One percent more, to the instruction in every pair.
        let s = summarize(&a, &[1_010_000.0; 3], noise, margin);
        assert_eq!(s.verdict, Verdict::AFaster);
        let text = s.counted_sentence("A (x)", "B (y)", "instructions");
        assert_eq!(
            text,
            "B (y) counts 1.01000x the instructions of A (x) (1.00% more than A; pair ratios 1.01000-1.01000 over 3 pairs, beyond the 0.01% threshold)"
        );
        let s = summarize(&a, &[990_000.0; 3], noise, margin);
        assert!(s
            .counted_sentence("A", "B", "writes")
            .contains("0.99000x the writes of A (1.00% fewer than A"));
        // Two parts in a million: no difference larger than the 0.01% threshold.
        let s = summarize(&a, &[1_000_002.0, 1_000_000.0, 999_999.0], noise, margin);
        assert_eq!(s.verdict, Verdict::Same);
        assert!(s
            .counted_sentence("A", "B", "instructions")
            .starts_with("no difference larger than 0.01% in instructions between A and B"));
        // 0.05% in every pair: a difference, beyond the 0.01% threshold.
        let s = summarize(&a, &[1_000_500.0; 3], noise, margin);
        assert_eq!(s.verdict, Verdict::AFaster);
        // Pairs that reach past the threshold but not the 0.1% margin: no difference larger
        // than the margin (counts that do not repeat, which a counted run should not give).
        let s = summarize(&a, &[1_000_050.0, 1_000_300.0, 1_000_200.0], noise, margin);
        assert_eq!(s.verdict, Verdict::WithinMargin);
    }

    #[test]
    fn equivalence_states_the_narrower_band_that_holds_the_interval() {
        // Inside 3% noise and 5% margin: the noise's 3% is the tighter statement.
        assert_eq!(verdict(0.98, 1.02, 0.03, 0.05), Verdict::Same);
        // A margin under the noise threshold that holds the interval is the tighter one.
        assert_eq!(verdict(0.995, 1.008, 0.03, 0.01), Verdict::WithinMargin);
        assert_eq!(verdict(0.98, 1.02, 0.03, 0.01), Verdict::Same);
        // The band's ends belong to it: 1.05 and 1/1.05 are inside a 5% margin.
        assert_eq!(verdict(1.0 / 1.05, 1.05, 0.03, 0.05), Verdict::WithinMargin);
        assert_eq!(
            verdict(1.0 / 1.05 - 1e-9, 1.0, 0.03, 0.05),
            Verdict::Inconclusive
        );
        let s = summarize(&[1.0; 9], &[1.0; 9], 0.03, 0.05);
        assert_eq!(s.verdict, Verdict::Same);
        assert!(s
            .sentence("A", "B")
            .starts_with("no difference larger than 3% (96.1% confidence) between A and B"));
    }
}
