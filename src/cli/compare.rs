//! `nimsquare compare A B`: two back-ends (or two `--isa` paths, or two binaries) timed as
//! whole `solve` runs (with `--workload` or `--octal`, `build` runs) in alternating pairs, their answers
//! (an octal game's: its table digest) checked equal, and the verdict given
//! as the median ratio B/A with a confidence interval (see
//! [`nimsquare::instruments::compare`]).

use super::args::{count_usize, JsonArg, SolveArgs};
use super::common::{fmt_seconds, CliResult};
use nimsquare::base::error::{Error, Result};
use nimsquare::base::isa::Isa;
use nimsquare::instruments::compare::{self, Event, Measure, Side, Summary};
use nimsquare::run::report::{self, Report};
use nimsquare::run::workload::{self, BuildPlan, Subject};
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
    /// Timed pairs (1 to 1000). Fewer than 6 cannot give a 95% interval, fewer than 3 no
    /// verdict; the confidence reached is always printed.
    #[arg(long, value_name = "P", default_value_t = 9, value_parser = count_usize(1, MAX_PAIRS),
          allow_hyphen_values = true)]
    pairs: usize,
    /// Untimed runs of each side before the pairs (page cache, clocks, the forecast).
    #[arg(long, value_name = "W", default_value_t = 1, value_parser = count_usize(0, 100),
          allow_hyphen_values = true)]
    warmup: usize,
    /// Relative difference taken as noise: the verdict names a winner only when the whole
    /// interval lies beyond 1 + NOISE (or below 1/(1 + NOISE)).
    #[arg(long, value_name = "NOISE", default_value_t = 0.03, value_parser = parse_noise,
          allow_hyphen_values = true)]
    noise: f64,
    /// Equivalence margin: the verdict says "no difference larger than MARGIN" when the whole
    /// interval of B/A lies within [1/(1 + MARGIN), 1 + MARGIN] (0.05: within 5%).
    #[arg(long, value_name = "MARGIN", default_value_t = 0.05, value_parser = parse_margin,
          allow_hyphen_values = true)]
    margin: f64,
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

/// What a comparison times: the table or the count stage of a subtraction game's solve, or
/// the table of a workload's game built alone (`nimsquare build`, for `--workload` and
/// `--octal`).
#[derive(Clone, PartialEq, Debug)]
enum Stage {
    Table,
    Count,
    Build(Subject),
}

impl Stage {
    fn name(&self) -> &'static str {
        match self {
            Stage::Table => "table",
            Stage::Count => "count",
            Stage::Build(subject) => subject.stage(),
        }
    }
}

/// A side as typed: a back-end name and an optional vector path.
struct Spec {
    text: String,
    name: String,
    isa: Option<Isa>,
    stage: Option<Stage>,
}

/// Parses `NAME[@PATH]`; `which` is `A` or `B` for the messages. The name is checked against
/// this binary's registries (the subject's workload when one is given), the path against
/// this CPU.
fn parse_spec(text: &str, which: &str, subject: Option<&Subject>) -> Result<Spec> {
    let (name, isa) = match text.split_once('@') {
        Some((name, path)) => {
            let isa = Isa::parse(path)
                .map_err(|e| Error::Invalid(format!("side {which} ('{text}'): {e}")))?;
            if !isa.on_cpu() {
                return Err(Error::Invalid(format!(
                    "side {which} ('{text}'): this CPU has no {} path; `nimsquare list` shows the paths it has",
                    isa.name()
                )));
            }
            (name, Some(isa))
        }
        None => (text, None),
    };
    let stage = if let Some(subject) = subject {
        subject
            .find(name)
            .map_err(|e| Error::Invalid(format!("side {which}: {e}")))?;
        Some(Stage::Build(subject.clone()))
    } else if name == nimsquare::run::planner::AUTO {
        None
    } else if nimsquare::table::find(name).is_ok() {
        Some(Stage::Table)
    } else if nimsquare::count::find(name).is_ok() {
        Some(Stage::Count)
    } else {
        return Err(Error::Invalid(format!(
            "side {which}: '{name}' is neither a table nor a count back-end; `nimsquare list` names them (auto is allowed)"
        )));
    };
    Ok(Spec {
        text: text.to_string(),
        name: name.to_string(),
        isa,
        stage,
    })
}

/// Refuses, before any run, a side that would be refused after its warm-up: a naive control
/// past the N it affords, a table that does not fit in memory (each side is planned as the
/// run it stands for plans it, so the refusal is this one line, naming the limit). `auto`
/// is the planner's, which never chooses a control.
fn check_affords(args: &Args, stage: &Stage, sides: [&Spec; 2]) -> Result<()> {
    let subject = match stage {
        Stage::Build(subject) => subject.clone(),
        Stage::Table => workload::subtraction(args.solve.moves.moves.clone()),
        Stage::Count => return Ok(()),
    };
    for spec in sides {
        if spec.name == nimsquare::run::planner::AUTO {
            continue;
        }
        let backend = subject.find(&spec.name)?;
        BuildPlan::new(subject.clone(), backend, args.solve.limit.limit.as_u64())?;
    }
    Ok(())
}

/// The program for one side: `--a-binary`/`--b-binary`, checked to exist, or this binary.
fn program(flag: &str, path: &Option<PathBuf>) -> Result<PathBuf> {
    match path {
        Some(p) if p.is_file() => Ok(p.clone()),
        Some(p) => Err(Error::Invalid(format!(
            "{flag} {}: no such file; give the path of a nimsquare binary",
            p.display()
        ))),
        None => std::env::current_exe()
            .map_err(|e| Error::Invalid(format!("cannot find this program's own path: {e}"))),
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
    let a = parse_spec(&args.a, "A", subject.as_ref())?;
    let b = parse_spec(&args.b, "B", subject.as_ref())?;
    let stage = match (a.stage.clone(), b.stage.clone()) {
        (Some(x), Some(y)) if x != y => {
            return Err(Error::Invalid(format!(
                "A ('{}') and B ('{}') belong to different stages; compare two table back-ends or two count back-ends",
                a.name, b.name
            )))
        }
        (x, y) => x.or(y).unwrap_or(Stage::Table),
    };
    check_affords(&args, &stage, [&a, &b])?;
    let measure = match (args.measure.as_str(), &stage) {
        ("wall", _) => Measure::Wall,
        (_, Stage::Table) => Measure::Table,
        (_, Stage::Count) => Measure::Count,
        (_, Stage::Build(_)) => Measure::Build,
    };
    // What the reports say of the game: `moves squares, 3 heaps` or `octal game 0.6`.
    let game = match &subject {
        Some(s) => s.describe(),
        None => format!(
            "moves {}, {} heaps",
            args.solve.moves.moves.label(),
            args.solve.heaps.heaps
        ),
    };
    let side = |spec: &Spec, flag: &str, binary: &Option<PathBuf>| -> Result<Side> {
        let mut argv: Vec<String> = Vec::new();
        if let Some(t) = threads {
            argv.extend(["--threads".into(), t.to_string()]);
        }
        if let Some(path) = spec.isa.or(isa) {
            argv.extend(["--isa".into(), path.name().into()]);
        }
        let limit = args.solve.limit.limit.to_string();
        match &stage {
            Stage::Build(subject) => {
                argv.extend(
                    [
                        "build",
                        "--workload",
                        &format!("{}:{}", subject.stage(), subject.label()),
                        "--json",
                        "--quiet",
                        "--limit",
                        &limit,
                        "--backend",
                        &spec.name,
                    ]
                    .map(String::from),
                );
            }
            _ => {
                let stage_flag = match stage {
                    Stage::Count => "--count",
                    _ => "--table",
                };
                argv.extend(
                    [
                        "solve",
                        "--json",
                        "--quiet",
                        "--limit",
                        &limit,
                        "--moves",
                        &args.solve.moves.moves.label(),
                        "--heaps",
                        &args.solve.heaps.heaps.to_string(),
                        stage_flag,
                        &spec.name,
                    ]
                    .map(String::from),
                );
            }
        }
        Ok(Side {
            label: spec.text.clone(),
            program: program(flag, binary)?,
            args: argv,
        })
    };
    let side_a = side(&a, "--a-binary", &args.a_binary)?;
    let side_b = side(&b, "--b-binary", &args.b_binary)?;

    let quiet = args.quiet;
    let started = std::time::Instant::now();
    let pair_count = args.pairs;
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
            "pair {}/{pair_count}: A {}  B {}  B/A {:.3}",
            i + 1,
            fmt_seconds(a.seconds),
            fmt_seconds(b.seconds),
            b.seconds / a.seconds
        ),
    };
    if !quiet {
        eprintln!(
            "compare: {} of `{}` runs after {} warm-up run(s) of each; --quiet hides these lines",
            super::common::count_of(args.pairs, "pair"),
            side_a.args.join(" "),
            args.warmup
        );
    }
    let pairs = compare::run_pairs(&side_a, &side_b, args.pairs, args.warmup, measure, on_event)?;
    let summary = pairs.summarize(args.noise, args.margin)?;
    let gate_failed = args.fail_above.is_some_and(|r| summary.exceeds(r));
    let report = CompareReport {
        answer: pairs.a[0].answer.clone(),
        limit: args.solve.limit.limit.as_u64(),
        moves: args.solve.moves.moves.label(),
        heaps: args.solve.heaps.heaps,
        subject,
        game,
        stage: stage.name(),
        measure,
        warmup: args.warmup,
        a: (a, side_a),
        b: (b, side_b),
        pairs,
        summary,
        noise: args.noise,
        margin: args.margin,
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
    measure: Measure,
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
        self.summary.sentence(
            &format!("A ({})", self.a.0.text),
            &format!("B ({})", self.b.0.text),
        )
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
        writeln!(
            out,
            "compare N = {}, {}: {} (A B, B A, ...), timing {}; {agreed}",
            self.limit,
            self.game,
            super::common::count_of(s.pairs, "pair"),
            self.measure.name()
        )?;
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
                fmt_seconds(t.0),
                fmt_seconds(t.1),
                fmt_seconds(t.2),
                ran.isa.as_deref().unwrap_or("?"),
            )?;
        }
        writeln!(
            out,
            "B/A  median {:.3}  interval {:.3}-{:.3} ({:.1}% confidence: order statistics {} and {} of {} pair ratios)  range {:.3}-{:.3}",
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
                "median_seconds": t.0,
                "min_seconds": t.1,
                "max_seconds": t.2,
            })
        });
        let squares = self.subject.is_none();
        let mut value = json!({
            "stage": self.stage,
            "measure": self.measure.name(),
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
