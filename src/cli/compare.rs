//! `nimsquare compare A B`: the arguments parsed into a [`Request`], the plan and the runs
//! left to [`nimsquare::instruments::compare`], the report printed. Two back-ends (or two
//! `--isa` paths, or two binaries) timed or counted as whole `solve` runs (with `--workload`
//! or `--octal`, `build` runs) in alternating pairs, their answers (an octal game's: its
//! table digest) checked equal, and the verdict given as the median ratio B/A with its
//! interval.

use super::args::{count_usize, JsonArg, SolveArgs};
use super::common::{fmt_seconds, CliResult};
use nimsquare::base::error::Error;
use nimsquare::base::isa::Isa;
use nimsquare::instruments::compare::plan::{Plan, Request, Spec};
use nimsquare::instruments::compare::{self, Event, How, Side, Summary};
use nimsquare::run::counted::{self, Metric};
use nimsquare::run::report::{self, Report};
use nimsquare::run::workload::Subject;
use serde_json::json;
use std::io::{self, Write};
use std::path::PathBuf;

/// Exit status when `--fail-above` finds B slower than the limit beyond doubt.
pub const EXIT_GATE: i32 = 3;

/// Pairs forecast (from the warm-up) to take longer than this get a note on stderr first.
const FORECAST_NOTE_SECONDS: f64 = 10.0;

/// The most pairs accepted: the interval is settled long before.
const MAX_PAIRS: usize = 1000;

pub const LONG_ABOUT: &str = "Compare two back-ends of one stage (or one back-end on two \
vector paths, or two builds) on the same input: whole `solve --json` runs in alternating \
pairs (A B, B A, A B, ...), the answers checked equal, and the verdict given as the median of \
the pair ratios B/A with a distribution-free interval (order statistics of the ratios; 9 \
pairs give 96%). Each pair's ratio cancels the drift a shared machine shows between runs; two \
separate medians do not.\n\n\
A and B are back-end names from `nimsquare list`, each optionally with a vector path after \
`@` (`bitset@avx2`). Table back-ends are timed by the table seconds their run reports, count \
back-ends by the count seconds (`--measure wall` times whole processes instead).\n\n\
With --workload KIND:RULES (any workload of `nimsquare list`: `octal:0.6`, `finite:1,3,4`) \
or --octal CODE (0.6, .137, grundy), A and B are back-ends of that workload, each side a whole \
`build --workload KIND:RULES --json` run timed by the build seconds it reports, and the two \
tables must be identical (their digests, FNV-1a of the values, are compared). A naive control \
past the N it affords is refused before any run.\n\n\
The verdict: a winner when the whole interval lies beyond 1 + --noise (or below \
1/(1 + --noise)); \"no difference larger than X%\" when it lies wholly within [1/(1 + X), \
1 + X] for X the noise threshold or the --margin (5% by default), whichever is narrower and \
holds it; otherwise inconclusive (run more pairs). Fewer than 3 pairs give no verdict and \
never fail --fail-above.\n\n\
With --metric instructions (or reads, writes, d1-misses, ll-misses; cache is ll-misses) each run goes under Valgrind's Callgrind (Debian: apt-get install valgrind) and the ratio is of counts, not seconds: only the compared stage is counted (the table, the count, the build; --measure wall counts the whole process), on one thread, on the widest vector path Valgrind 3.19 runs (avx2; @avx512 is refused). The caches are simulated with one fixed geometry on every machine (D1 32 KiB 8-way, LL 32 MiB 16-way). Counts repeat to a few parts in a million, so 3 pairs and a threshold of 0.01% (margin 0.1%) are the defaults, and a 1% difference is plain where the clock's 9 pairs are not. Callgrind runs 30-100 times slower: keep N small (10^5 for a table).\n\n\
Exit status: 0 when the comparison ran (whatever the verdict), 1 when the two sides' answers \
differ, 2 for bad input, 3 when --fail-above RATIO is given and the whole interval of B/A lies \
above RATIO (B is slower than RATIO times A beyond the noise of the pairs).";

#[derive(clap::Args)]
pub struct Args {
    /// Side A: a back-end name, optionally with a vector path (`stamped-lanes`, `bitset@avx2`).
    #[arg(value_name = "A")]
    a: String,
    /// Side B, in the same form; the ratio reported is B's time over A's.
    #[arg(value_name = "B")]
    b: String,
    #[command(flatten)]
    solve: SolveArgs,
    /// Compare two octal back-ends on this octal game (0.07, .6, 4.07, grundy) instead of
    /// solves of a subtraction game. Refused with --moves or --heaps.
    #[arg(long, value_name = "CODE", conflicts_with_all = ["moves", "heaps"])]
    octal: Option<String>,
    #[arg(long, value_name = "KIND[:RULES]", help = super::common::WORKLOAD_HELP,
          conflicts_with_all = ["moves", "octal", "heaps"])]
    workload: Option<String>,
    /// Pairs (1 to 1000; default 9 timed, 3 counted). Fewer than 6 cannot give a 95%
    /// interval, fewer than 3 no verdict; the confidence reached is always printed.
    #[arg(long, value_name = "P", value_parser = count_usize(1, MAX_PAIRS),
          allow_hyphen_values = true)]
    pairs: Option<usize>,
    /// Unmeasured runs of each side before the pairs (page cache, clocks, the forecast;
    /// default 1 timed, 0 counted).
    #[arg(long, value_name = "W", value_parser = count_usize(0, 100),
          allow_hyphen_values = true)]
    warmup: Option<usize>,
    /// Relative difference taken as noise: the verdict names a winner only when the whole
    /// interval lies beyond 1 + NOISE (or below 1/(1 + NOISE)). Default 0.03 timed, 0.0001
    /// counted.
    #[arg(long, value_name = "NOISE", value_parser = parse_noise, allow_hyphen_values = true)]
    noise: Option<f64>,
    /// Equivalence margin: the verdict says "no difference larger than MARGIN" when the whole
    /// interval of B/A lies within [1/(1 + MARGIN), 1 + MARGIN] (0.05: within 5%). Default
    /// 0.05 timed, 0.001 counted.
    #[arg(long, value_name = "MARGIN", value_parser = parse_margin, allow_hyphen_values = true)]
    margin: Option<f64>,
    /// Exit with status 3 when the interval of B/A lies wholly above RATIO (e.g. 1.05: B is
    /// more than 5% slower than A, beyond the noise of the pairs). For a before/after gate,
    /// make A the before.
    #[arg(long, value_name = "RATIO", value_parser = parse_ratio, allow_hyphen_values = true)]
    fail_above: Option<f64>,
    /// What is timed: `stage`, the stage's own seconds as each run reports them (default), or
    /// `wall`, the whole process from outside (start-up, both stages and exit included).
    #[arg(long, value_name = "WHAT", default_value = "stage",
          value_parser = ["stage", "wall"])]
    measure: String,
    /// What the ratio is of: `time` (seconds, default), or a count under Valgrind's
    /// Callgrind: `instructions`, `reads`, `writes` (data accesses), `d1-misses`,
    /// `ll-misses` (simulated cache misses; `cache` is `ll-misses`).
    #[arg(long, value_name = "METRIC", default_value = "time",
          value_parser = ["time", "instructions", "reads", "writes", "d1-misses", "ll-misses", "cache"])]
    metric: String,
    /// Run side A with this nimsquare binary instead of this one (e.g. a build of main).
    #[arg(long, value_name = "PATH")]
    a_binary: Option<PathBuf>,
    /// Run side B with this nimsquare binary instead of this one.
    #[arg(long, value_name = "PATH")]
    b_binary: Option<PathBuf>,
    #[command(flatten)]
    json: JsonArg,
    /// No progress lines on stderr (one per pair otherwise, and a forecast after the warm-up
    /// when the pairs will take more than 10 seconds).
    #[arg(long)]
    quiet: bool,
}

fn parse_noise(text: &str) -> std::result::Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(x) if (0.0..1.0).contains(&x) => Ok(x),
        _ => Err(format!(
            "--noise takes a fraction from 0 to below 1 like 0.03 (3%), got '{text}'"
        )),
    }
}

fn parse_margin(text: &str) -> std::result::Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(x) if x > 0.0 && x < 1.0 => Ok(x),
        _ => Err(format!(
            "--margin takes a fraction above 0 and below 1 like 0.05 (5%), got '{text}'"
        )),
    }
}

fn parse_ratio(text: &str) -> std::result::Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
        _ => Err(format!(
            "--fail-above takes a positive ratio like 1.05, got '{text}'"
        )),
    }
}

pub fn run(args: Args, threads: Option<usize>, isa: Option<Isa>) -> CliResult {
    let subject = match (&args.octal, &args.workload) {
        (None, None) => None,
        (octal, spec) => Some(super::common::subject(
            &args.solve.moves.moves,
            octal.as_deref(),
            spec.as_deref(),
        )?),
    };
    let metric = match args.metric.as_str() {
        "time" => None,
        name => Some(
            Metric::parse(name)
                .ok_or_else(|| Error::Invalid(format!("--metric: '{name}' is no metric")))?,
        ),
    };
    let plan = Plan::new(&Request {
        a: args.a.clone(),
        b: args.b.clone(),
        subject: subject.clone(),
        moves: args.solve.moves.moves.clone(),
        heaps: args.solve.heaps.heaps,
        limit: args.solve.limit.limit,
        threads,
        isa,
        whole_process: args.measure == "wall",
        metric,
        a_binary: args.a_binary.clone(),
        b_binary: args.b_binary.clone(),
    })?;
    let defaults = plan.how.defaults();
    let noise = args.noise.unwrap_or(defaults.noise);
    let margin = args.margin.unwrap_or(defaults.margin);
    let pairs = args.pairs.unwrap_or(defaults.pairs);
    let warmup = args.warmup.unwrap_or(defaults.warmup);
    let Plan {
        a: (a, side_a),
        b: (b, side_b),
        stage,
        how,
        game,
    } = plan;

    let quiet = args.quiet;
    let started = std::time::Instant::now();
    let pair_count = pairs;
    let counted = how.metric().is_some();
    let value = |r: &compare::Run| {
        if counted {
            format!("{:.0}", r.value)
        } else {
            fmt_seconds(r.value)
        }
    };
    let on_event = |event: Event| match event {
        _ if quiet => {}
        Event::WarmedUp { a, b } => {
            let seconds = (a.wall_seconds + b.wall_seconds) * pair_count as f64;
            if seconds > FORECAST_NOTE_SECONDS {
                eprintln!(
                    "note: the {} will take about {} (from the warm-up runs)",
                    super::common::count_of(pair_count, "pair"),
                    nimsquare::run::longrun::progress::fmt_eta(seconds)
                );
            }
        }
        Event::Pair { i, a, b } => eprintln!(
            "pair {}/{pair_count}: A {}  B {}  B/A {:.5}",
            i + 1,
            value(a),
            value(b),
            b.value / a.value
        ),
    };
    if !quiet {
        eprintln!(
            "compare: {} of `{}` runs{} after {} warm-up run(s) of each; --quiet hides these lines",
            super::common::count_of(pairs, "pair"),
            side_a.args.join(" "),
            if counted { " under Valgrind" } else { "" },
            warmup
        );
    }
    let pairs = compare::run_pairs(&side_a, &side_b, pairs, warmup, &how, on_event)?;
    let summary = pairs.summarize(noise, margin)?;
    let gate_failed = args.fail_above.is_some_and(|r| summary.exceeds(r));
    let report = CompareReport {
        answer: pairs.a[0].answer.clone(),
        limit: args.solve.limit.limit.as_u64(),
        moves: args.solve.moves.moves.label(),
        heaps: args.solve.heaps.heaps,
        subject,
        game,
        stage: stage.name(),
        how,
        warmup,
        a: (a, side_a),
        b: (b, side_b),
        pairs,
        summary,
        noise,
        margin,
        fail_above: args.fail_above,
        gate_failed,
        elapsed_seconds: started.elapsed().as_secs_f64(),
    };
    report::print(&report, args.json.json);
    Ok(if gate_failed { EXIT_GATE } else { 0 })
}

/// What `compare` answers: the two sides, their runs, the summary of the pair ratios.
struct CompareReport {
    /// The answer (or table digest) both sides gave.
    answer: String,
    limit: u64,
    moves: String,
    heaps: usize,
    /// The workload's game when one was given (`--workload`, `--octal`): its builds compared.
    subject: Option<Subject>,
    /// The game in words: `moves squares, 3 heaps` or `octal game 0.6`.
    game: String,
    stage: &'static str,
    how: How,
    warmup: usize,
    a: (Spec, Side),
    b: (Spec, Side),
    pairs: compare::Pairs,
    summary: Summary,
    noise: f64,
    margin: f64,
    fail_above: Option<f64>,
    gate_failed: bool,
    elapsed_seconds: f64,
}

/// A side as the report shows it: its tag (`A`, `B`), how it was typed, what ran, its runs
/// and their (median, min, max) seconds.
type SideView<'a> = (
    &'static str,
    &'a Spec,
    &'a Side,
    &'a [compare::Run],
    (f64, f64, f64),
);

impl CompareReport {
    /// The two sides with their runs and their (median, min, max) seconds.
    fn sides(&self) -> [SideView<'_>; 2] {
        [
            ("A", &self.a.0, &self.a.1, &self.pairs.a, self.summary.a),
            ("B", &self.b.0, &self.b.1, &self.pairs.b, self.summary.b),
        ]
    }

    fn sentence(&self) -> String {
        let (a, b) = (
            format!("A ({})", self.a.0.text),
            format!("B ({})", self.b.0.text),
        );
        match self.how.metric() {
            Some(m) => self.summary.counted_sentence(&a, &b, m.name()),
            None => self.summary.sentence(&a, &b),
        }
    }
}

impl Report for CompareReport {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        let s = &self.summary;
        let agreed = if self.subject.is_some() {
            format!("both built the table with digest {}", self.answer)
        } else {
            format!("both answered {}", self.answer)
        };
        let doing = match &self.how.counted {
            None => format!("timing {}", self.how.measure.name()),
            Some((valgrind, counting, metric)) => format!(
                "counting {} of {} under {} (callgrind, 1 thread{})",
                metric.name(),
                counting
                    .stage
                    .map_or("the whole process".to_string(), |st| format!(
                        "the {} stage",
                        st.name()
                    )),
                valgrind.version,
                if counting.cache_sim {
                    format!("; {}", counted::CACHE_GEOMETRY_WORDS)
                } else {
                    String::new()
                }
            ),
        };
        writeln!(
            out,
            "compare N = {}, {}: {} (A B, B A, ...), {doing}; {agreed}",
            self.limit,
            self.game,
            super::common::count_of(s.pairs, "pair"),
        )?;
        let counted = self.how.metric().is_some();
        let show = |x: f64| {
            if counted {
                format!("{x:.0}")
            } else {
                fmt_seconds(x)
            }
        };
        let width = self.a.0.text.len().max(self.b.0.text.len());
        for (tag, spec, _, runs, t) in self.sides() {
            let ran = &runs[0].report;
            let what = ran
                .table
                .as_deref()
                .filter(|_| spec.name == nimsquare::run::planner::AUTO)
                .map(|t| format!(" (auto chose {t})"))
                .unwrap_or_default();
            writeln!(
                out,
                "{tag}  {:width$}  median {}  min {}  max {}  isa {}{what}",
                spec.text,
                show(t.0),
                show(t.1),
                show(t.2),
                ran.isa.as_deref().unwrap_or("?"),
            )?;
            if let Some(c) = runs[0]
                .counts
                .as_ref()
                .and_then(|c| c.cache.map(|k| (c, k)))
            {
                writeln!(
                    out,
                    "   {:width$}  first run: instructions {}  reads {}  writes {}  D1 misses {} + {}  LL misses {} + {} (read + write)",
                    "",
                    c.0.instructions,
                    c.1.reads,
                    c.1.writes,
                    c.1.d1_read_misses,
                    c.1.d1_write_misses,
                    c.1.ll_read_misses,
                    c.1.ll_write_misses,
                )?;
            }
        }
        let digits = if counted { 5 } else { 3 };
        writeln!(
            out,
            "B/A  median {:.digits$}  interval {:.digits$}-{:.digits$} ({:.1}% confidence: order statistics {} and {} of {} pair ratios)  range {:.digits$}-{:.digits$}",
            s.ratio_median,
            s.ratio_lo,
            s.ratio_hi,
            s.confidence * 100.0,
            s.k,
            s.pairs + 1 - s.k,
            s.pairs,
            s.ratios.iter().copied().fold(f64::INFINITY, f64::min),
            s.ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        )?;
        writeln!(out, "verdict: {}", self.sentence())?;
        if let Some(r) = self.fail_above {
            writeln!(
                out,
                "gate: {} (--fail-above {r}: fails when the whole interval of B/A lies above it)",
                if self.gate_failed { "FAILED" } else { "passed" }
            )?;
        }
        Ok(())
    }

    fn json(&self) -> serde_json::Value {
        let s = &self.summary;
        let counted = self.how.metric().is_some();
        let [a, b] = self.sides().map(|(_, spec, side, runs, t)| {
            let ran = &runs[0].report;
            json!({
                "label": spec.text,
                "requested": spec.name,
                "table": ran.table,
                "count": ran.count,
                "isa": ran.isa,
                "build": ran.build,
                "program": side.program.display().to_string(),
                "seconds": runs.iter().map(|r| r.seconds).collect::<Vec<_>>(),
                "wall_seconds": runs.iter().map(|r| r.wall_seconds).collect::<Vec<_>>(),
                "median_seconds": (!counted).then_some(t.0),
                "min_seconds": (!counted).then_some(t.1),
                "max_seconds": (!counted).then_some(t.2),
                "counts": runs.iter().map(|r| r.counts).collect::<Vec<_>>(),
                "median_count": counted.then_some(t.0),
            })
        });
        let squares = self.subject.is_none();
        let mut value = json!({
            "stage": self.stage,
            "measure": self.how.measure.name(),
            "metric": self.how.metric().map_or("time", Metric::name),
            "valgrind": self.how.counted.as_ref().map(|c| c.0.version.clone()),
            "counted_stage": self.how.counted.as_ref().map(|c| c.1.stage.map_or("whole process", |st| st.name())),
            "cache_geometry": self.how.counted.as_ref().filter(|c| c.1.cache_sim).map(|_| counted::CACHE_GEOMETRY_WORDS),
            "limit": self.limit,
            "moves": squares.then(|| self.moves.clone()),
            "heaps": squares.then_some(self.heaps),
            "workload": self.subject.as_ref().map(|s| s.stage()),
            "answer": self.answer,
            "pairs": s.pairs,
            "warmup": self.warmup,
            "order": "A B, B A, alternating",
            "a": a,
            "b": b,
            "ratio": {
                "definition": "b/a",
                "per_pair": s.ratios,
                "median": s.ratio_median,
                "lo": s.ratio_lo,
                "hi": s.ratio_hi,
                "confidence": s.confidence,
                "order_statistic": s.k,
            },
            "noise": self.noise,
            "margin": self.margin,
            "verdict": s.verdict.name(),
            "sentence": self.sentence(),
            "fail_above": self.fail_above,
            "gate_failed": self.fail_above.map(|_| self.gate_failed),
            "elapsed_seconds": self.elapsed_seconds,
        });
        // The game under its workload's name too (`"octal": "0.6"`).
        if let Some(s) = &self.subject {
            value[s.stage()] = json!(s.label());
        }
        value
    }
}
