//! `nimsquare octal CODE`: one octal game's table up to N and the period the theorem proves
//! from it.
//!
//! The table is built through [`nimsquare::run::longrun`]'s driver, as `solve` builds a Nim
//! Square table: progress with an ETA, `--checkpoint` (resumed by running the same command
//! again), Ctrl-C keeping what was finished, `--save-table` and `--load-table` (the file
//! format is the Nim Square tables', labelled `octal CODE`). The file checks and the endings
//! are `solve`'s ([`super::tables`]).

use super::args::{limit_parser, window_limit_parser, JsonArg, LongRunArgs, PlotArgs};
use super::common::{fmt_seconds, CliResult};
use nimsquare::base::error::Error;
use nimsquare::base::limit::Limit;
use nimsquare::base::paths::Output;
use nimsquare::octal::auto::Choice;
use nimsquare::octal::block::stores::{self, Stores};
use nimsquare::octal::method::period::Verdict;
use nimsquare::octal::summary::Summary;
use nimsquare::octal::{OctalPlan, Rules};
use nimsquare::run::longrun::LongRun;
use nimsquare::run::plot::{Drawing, ValuePlot};
use nimsquare::run::report::{self, Report};
use nimsquare::run::session::{self, Ended, Unsaved};
use nimsquare::run::window::plan::{Ask, Mode, WindowPlan};
use nimsquare::run::window::{self, WindowOutcome};
use serde_json::json;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The aimed-at duration of one chunk of an octal run: longer than a Nim Square run's half
/// second because `octal-sparse` re-reads g(0..from) at the start of each chunk (its rare
/// list and histogram), a pass that stays a few per cent of 4 s of work up to N = 10^8; it
/// is also the longest wait between Ctrl-C and the stop.
const OCTAL_CHUNK_TARGET: std::time::Duration = std::time::Duration::from_secs(4);
use nimsquare::base::valgrind::Stage;

/// N when --limit is not given: seconds with the quadratic control.
pub const DEFAULT_OCTAL_LIMIT: &str = "10000";

/// The long help of `octal`.
pub const LONG_ABOUT: &str = "Builds the Grundy values g(0..=N) of one heap of an octal game \
    and reports the largest value and the period, if one is proved within N.\n\n\
    The code is d0.d1d2...dt in octal digits: digit dk says what removing k tokens may leave \
    (1: nothing, 2: one heap, 4: two heaps; their sums), d0 is 0 or 4 (4: a heap may be split \
    without removing anything); `grundy` is Grundy's game. A period p from e is proved by the \
    theorem of Guy and Smith: g(n + p) = g(n) for every e <= n < 2e + p + t (t the number of \
    digits after the point) implies it for every n >= e. The least such p is reported with the \
    least e and the range checked; 'open' when none is proved up to N; 'not applicable' for \
    Grundy's game, whose unequal splits the theorem does not cover.\n\n\
    --histogram adds the value histogram at each power of two (how many n < L have \
    g(n) = v, for L = 1, 2, 4, ... and L = N + 1), the form published octal runs are \
    reported in.\n\n\
    Window mode (--window, and by itself when the whole table would not fit in memory or N \
    is past 4294967295, the whole table's maximum): the values go to a file and only a \
    window of them stays in memory (the first 2^20 and the last 2^25 values, or \
    --window-tail), so N, up to 2^40 - 1, is bounded by the disk (2 bytes a value), not the \
    memory. \
    Everything but the period is reported as in full mode, computed as the values are made; \
    --values prints them as they are made, before the report. It needs a code with a \
    sparse space (the rare/common back-ends). Its --checkpoint holds the window, the report \
    so far and the back-end's state (megabytes, not the table): the same command resumes it, \
    on another machine too, and a larger --limit goes on past the N it reached. A run \
    resumed without its values file (--window-file) stops with an error, never a wrong \
    value, if the build reads a value older than the window.\n\n\
    --plot FILE.svg draws g(n) against n (--plot-log: a logarithmic n axis): the rare \
    positions as red dots (hover one for n and g(n)), the proved period's start and first \
    repeat as green lines; in window mode from the values as they stream past, in a fixed \
    few hundred kilobytes, and a resumed run reads what came before back from its \
    --window-file.\n\n\
    Long runs: a progress bar with values a second and an ETA on a terminal (a plain line \
    every minute when stderr is not one; --quiet hides both); --checkpoint FILE keeps the \
    table's progress (every --checkpoint-every seconds and on Ctrl-C/SIGTERM) and running \
    the same command again resumes it; --save-table FILE writes the finished table; \
    --load-table FILE answers from a complete table of the same code with N >= --limit \
    without building, or starts the build from a shorter one. A loaded table is \
    spot-checked against the definition; a file made for another code or for a subtraction \
    set is refused. Exit 4 when the answer was printed but a file could not be written.\n\n\
    Example: nimsquare octal 0.07 --limit 2000";

#[derive(clap::Args)]
pub struct Args {
    /// The octal code (0.07, .6, 4.07) or `grundy`.
    #[arg(value_name = "CODE", allow_hyphen_values = true)]
    code: String,
    /// The largest heap size N (default 10000; past 4294967295, to 2^40 - 1, in window mode
    /// only).
    #[arg(long, short = 'n', value_name = "N", default_value = DEFAULT_OCTAL_LIMIT,
          value_parser = window_limit_parser(), allow_hyphen_values = true)]
    limit: u64,
    /// The octal back-end (see `nimsquare list`; default: `auto`, chosen per code and
    /// reported).
    #[arg(long, value_name = "NAME")]
    backend: Option<String>,
    #[command(flatten)]
    json: JsonArg,
    /// Also print g(0..=N): one `n g(n)` line each (in --json, a `values` array).
    #[arg(long)]
    values: bool,
    /// Also print the value histogram of g(0..L) for L = 1, 2, 4, ... and L = N + 1: one
    /// line `histogram L: c0 c1 c2 ...` each, c_v how many n < L have g(n) = v, for every v
    /// up to the largest value (in --json, a `histogram` array of {below, counts}).
    #[arg(long)]
    histogram: bool,
    /// Window mode: keep a window of the table in memory and its values in a file, removed
    /// at the end (chosen by itself when the whole table would not fit); no period search.
    #[arg(long)]
    window: bool,
    /// Window mode with the values kept in FILE (a new file): g(0..=N) as little-endian u16,
    /// 2(N + 1) bytes.
    #[arg(long, value_name = "FILE")]
    window_file: Option<PathBuf>,
    /// Window mode keeping the last N values resident (default 33554432 = 2^25): a smaller
    /// tail keeps less memory and a smaller --checkpoint. A multiple of 2048 from 65536 up.
    /// A value the build reads from behind the tail comes back from the values file (slower,
    /// never wrong); a run resumed without that file stops with an error instead.
    #[arg(long, value_name = "N", value_parser = limit_parser(), allow_hyphen_values = true)]
    window_tail: Option<Limit>,
    #[command(flatten)]
    plot: PlotArgs,
    #[command(flatten)]
    longrun: LongRunArgs,
}

/// A rate in values a second with three significant figures and thousands apart
/// (`68 000`, `1.25e6` past a million).
pub fn fmt_rate(rate: f64) -> String {
    if rate >= 1e6 {
        format!("{:.3}e6", rate / 1e6)
    } else {
        let r = rate.round() as u64;
        let digits = r.to_string();
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push(' ');
            }
            out.push(c);
        }
        out
    }
}

/// The verdict in words, for the text output.
pub fn verdict_text(verdict: &Verdict, limit: usize) -> String {
    match verdict {
        Verdict::Periodic(p) => format!(
            "period {} from n = {} (proved: g(n + {}) = g(n) for {} <= n < {})",
            p.period, p.preperiod, p.period, p.proof.0, p.proof.1
        ),
        Verdict::Open => format!("no period proved up to N = {limit}"),
        Verdict::NotApplicable => {
            "not applicable (the periodicity theorem does not cover Grundy's game)".into()
        }
    }
}

/// The FNV-1a (64-bit) hash of the values as little-endian u16, in hex: a table's digest,
/// equal for equal tables, and different for tables that differ but by a chance of 2^-64.
/// Hashed without a byte copy of the table (which doubled the peak memory of a long run).
pub fn table_digest(values: &[u16]) -> String {
    format!(
        "{:016x}",
        nimsquare::run::longrun::tablefile::values_fnv1a64(values)
    )
}

/// The verdict as JSON fields.
pub fn verdict_json(verdict: &Verdict) -> serde_json::Value {
    match verdict {
        Verdict::Periodic(p) => json!({
            "status": "periodic", "preperiod": p.preperiod, "period": p.period,
            "proof_from": p.proof.0, "proof_to": p.proof.1,
        }),
        Verdict::Open => json!({ "status": "open" }),
        Verdict::NotApplicable => json!({ "status": "not applicable" }),
    }
}

pub fn run(args: Args) -> CliResult {
    // Every refusal before any work: the plan (back-end, N, the memory of the table and the
    // back-end's scratch, full table or window mode), then the files (room on their disks,
    // a foreign, damaged or wrong table refused).
    let ask = Ask {
        window: args.window,
        file: args.window_file.clone(),
        tail: args.window_tail.map(|t| t.get()),
        resuming: args.longrun.checkpoint.as_ref().is_some_and(|c| c.exists()),
        full_only: [
            (args.longrun.save_table.is_some(), "--save-table"),
            (args.longrun.load_table.is_some(), "--load-table"),
            (args.values && args.json.json, "--values with --json"),
        ]
        .into_iter()
        .filter_map(|(set, flag)| set.then_some(flag))
        .collect(),
        plot: args.plot.plot.is_some(),
    };
    let (plan, mode) = window::plan::decide(
        Rules::parse(&args.code)?,
        args.backend.as_deref(),
        args.limit,
        &ask,
    )?;
    let plot = args.plot.decide()?;
    if let Mode::Window(w) = &mode {
        return run_window(&args, &plan, w, plot);
    }
    let (rules, entry, limit) = (&plan.subject, plan.backend, plan.limit);
    let lr = &args.longrun;
    let opts = LongRun {
        every: lr.checkpoint_every,
        chunk_target: OCTAL_CHUNK_TARGET,
        label: entry.name.to_string(),
        per_position: plan.per_position(),
        ..LongRun::default()
    };
    let fill = plan.chunk_fill();
    let mut files = lr.files();
    let ended = session::run_table(
        rules,
        limit,
        &mut files,
        entry.name,
        &fill,
        opts,
        Stage::Build,
        &mut |_| {},
    )?;
    let mut done = match ended {
        Ended::Finished(done) => done,
        Ended::Interrupted(signal) => return Ok(signal.map_or(1, super::common::exit_status_for)),
    };
    let table = &done.table;
    let summary = Summary::of(rules, table, args.histogram);
    if let Some((out, log_x)) = &plot {
        let drawing = Drawing::octal(rules.label(), limit, &summary, *log_x);
        if let Err(error) = ValuePlot::of(table.values()).write(&drawing, out, "--plot") {
            done.unsaved.push(Unsaved {
                flag: "--plot",
                file: args.plot.plot.clone().unwrap_or_default(),
                error,
            });
        }
    }
    let report = Answer {
        rules,
        limit,
        backend: entry.name,
        seconds: done.seconds,
        seeded: done.seeded,
        from_file: done.from_file.clone(),
        threads: rayon::current_num_threads(),
        summary,
        choice: plan.auto_choice(table.values()),
        digest: table_digest(table.values()),
        values: args.values.then_some(table.values()),
        unsaved: &done.unsaved,
        window: None,
        plot: written_plot(&args.plot, &done.unsaved),
        stores: stores::counted(),
    };
    report::print(&report, args.json.json);
    Ok(session::report_unsaved(&done.unsaved))
}

/// The picture's file for the report, when it was asked for and written.
fn written_plot(plot: &PlotArgs, unsaved: &[Unsaved]) -> Option<String> {
    plot.shown()
        .filter(|_| !unsaved.iter().any(|u| u.flag == "--plot"))
}

/// `octal` in window mode: the build, `--values` printed as they are made, then the report.
fn run_window(
    args: &Args,
    plan: &OctalPlan,
    w: &WindowPlan,
    plot: Option<(Output, bool)>,
) -> CliResult {
    let lr = &args.longrun;
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let checkpoint = lr.checkpoint.as_deref();
    let opts = (lr.quiet, checkpoint, lr.checkpoint_every);
    let mut picture = plot.as_ref().map(|_| ValuePlot::new());
    let built = window::build_octal(plan, w, opts, picture.as_mut(), &mut |from, values| {
        if args.values {
            for (i, v) in values.iter().enumerate() {
                writeln!(out, "{} {v}", from + i).map_err(values_unwritten)?;
            }
        }
        Ok(())
    })?;
    out.flush().map_err(values_unwritten)?;
    drop(out);
    let (streamed, file, resumed_at, checkpoint_unsaved) = match built.outcome {
        WindowOutcome::Finished {
            streamed,
            file,
            resumed_at,
            unsaved,
        } => (streamed, file, resumed_at, unsaved),
        WindowOutcome::Interrupted { signal, done } => {
            let how = match checkpoint {
                Some(ck) => format!(
                    "the checkpoint {} holds it: the same command goes on from it",
                    ck.display()
                ),
                None => "no --checkpoint was asked, so nothing resumes it".to_string(),
            };
            eprintln!(
                "octal: stopped by {} after g(0..{done}); {how}",
                signal.map_or("the test knob", |s| s.name())
            );
            return Ok(signal.map_or(1, |s| s.exit_status()));
        }
    };
    let mut summary = streamed.summary();
    if !args.histogram {
        summary.histogram = None;
    }
    let mut unsaved = Vec::new();
    if let (Some(error), Some(ck)) = (checkpoint_unsaved, checkpoint) {
        unsaved.push(Unsaved {
            flag: "--checkpoint",
            file: ck.to_path_buf(),
            error,
        });
    }
    if let (Some((out, log_x)), Some(picture)) = (&plot, &picture) {
        let drawing = Drawing::octal(plan.subject.label(), plan.limit, &summary, *log_x);
        if let Err(error) = picture.write(&drawing, out, "--plot") {
            unsaved.push(Unsaved {
                flag: "--plot",
                file: args.plot.plot.clone().unwrap_or_default(),
                error,
            });
        }
    }
    let report = Answer {
        rules: &plan.subject,
        limit: plan.limit,
        backend: plan.backend.name,
        seconds: built.seconds,
        seeded: resumed_at,
        from_file: None,
        threads: rayon::current_num_threads(),
        summary,
        choice: built.choice,
        digest: format!("{:016x}", streamed.digest),
        values: None,
        unsaved: &unsaved,
        plot: written_plot(&args.plot, &unsaved),
        window: Some(WindowReport {
            plan: w.clone(),
            kept: file,
            resumed: (resumed_at > 0).then(|| (checkpoint.map(Path::to_path_buf), resumed_at)),
        }),
        stores: stores::counted(),
    };
    report::print(&report, args.json.json);
    Ok(session::report_unsaved(&unsaved))
}

/// A failed write of `--values` in window mode: a closed pipe ends the process quietly (as
/// the report's printing does, where SIGPIPE is ignored), anything else stops the run.
fn values_unwritten(e: io::Error) -> Error {
    if e.kind() == io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    Error::Invalid(format!("cannot write the values to stdout: {e}"))
}

/// What window mode adds to the report: the window and where the values are.
struct WindowReport {
    plan: WindowPlan,
    /// The values file, when kept.
    kept: Option<PathBuf>,
    /// The checkpoint this run went on from and the positions it held.
    resumed: Option<(Option<PathBuf>, usize)>,
}

impl WindowReport {
    fn text(&self) -> String {
        let w = &self.plan.window;
        let why = if self.plan.asked {
            "asked for"
        } else {
            "the whole table would not fit in memory"
        };
        let file = match &self.kept {
            Some(f) => format!("values in {}", f.display()),
            None => "values file removed".to_string(),
        };
        let resumed = match &self.resumed {
            Some((Some(ck), k)) => format!("; went on from g(0..{k}) in {}", ck.display()),
            _ => String::new(),
        };
        format!(
            "mode: window ({why}): g(0..{}) and the last {} values resident, {file}{resumed}",
            w.prefix, w.tail
        )
    }

    fn json(&self) -> serde_json::Value {
        json!({
            "asked": self.plan.asked,
            "prefix": self.plan.window.prefix,
            "tail": self.plan.window.tail,
            "memory_needed": self.plan.memory_needed,
            "values_file": self.kept.as_ref().map(|p| p.display().to_string()),
            "resumed_at": self.resumed.as_ref().map(|(_, k)| k),
        })
    }
}

/// What `octal` answers: the run (back-end, seconds, what was read from a file) and the
/// table's [`Summary`], with its values when asked for.
struct Answer<'a> {
    rules: &'a Rules,
    limit: usize,
    backend: &'static str,
    seconds: f64,
    /// Positions read from --load-table rather than built.
    seeded: usize,
    from_file: Option<PathBuf>,
    threads: usize,
    summary: Summary,
    /// What `auto` chose and why, when it built the table.
    choice: Option<Choice>,
    digest: String,
    values: Option<&'a [u16]>,
    unsaved: &'a [Unsaved],
    /// The picture's file, when `--plot` wrote one.
    plot: Option<String>,
    /// Window mode's window and values file; None for a whole table.
    window: Option<WindowReport>,
    /// `octal-block`'s stores, in a build with the `count-stores` feature.
    stores: Option<Stores>,
}

impl Answer<'_> {
    /// Values decided this run a second (none when the table was read whole).
    fn rate(&self) -> Option<f64> {
        let built = self.limit + 1 - self.seeded;
        (built > 0 && self.seconds > 0.0).then(|| built as f64 / self.seconds)
    }
}

impl Report for Answer<'_> {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        let mut out = io::BufWriter::new(out);
        let (limit, seeded, s) = (self.limit, self.seeded, &self.summary);
        writeln!(out, "octal game {}, N = {limit}", self.rules.label())?;
        match (&self.from_file, seeded) {
            (Some(path), s) if s == limit + 1 => {
                writeln!(out, "table g(0..={limit}) read from {}", path.display())?
            }
            (Some(path), s) => writeln!(
                out,
                "back-end {}: {} for g({s}..={limit}), g(0..{s}) read from {}",
                self.backend,
                fmt_seconds(self.seconds),
                path.display()
            )?,
            (None, _) => writeln!(
                out,
                "back-end {}: {} for g(0..={limit})",
                self.backend,
                fmt_seconds(self.seconds)
            )?,
        }
        if let Some(c) = &self.choice {
            writeln!(out, "auto chose {}: {}", c.backend, c.reason())?;
        }
        if let Some(w) = &self.window {
            writeln!(out, "{}", w.text())?;
        }
        if let Some(st) = &self.stores {
            let per = |x: u64| x as f64 / st.heaps.max(1) as f64;
            writeln!(
                out,
                "stores a heap (count-stores build, {} heaps): lanes' rare pairs {:.1}, lanes' shared sweep {:.1} (of lanes still open {:.1}), rare pairs one heap at a time {:.1}, sweeps of one heap {:.1}, in all {:.1}",
                st.heaps,
                per(st.lane_rare),
                per(st.lane_sweep),
                per(st.lane_sweep_open),
                per(st.rare_pairs),
                per(st.sweep),
                per(st.lane_rare + st.lane_sweep + st.rare_pairs + st.sweep)
            )?;
        }
        if let Some(rate) = self.rate() {
            let threads = self.threads;
            writeln!(
                out,
                "rate: {} values a second on {threads} thread{}",
                fmt_rate(rate),
                if threads == 1 { "" } else { "s" }
            )?;
        }
        writeln!(
            out,
            "largest value: {}, first at n = {}",
            s.max_value, s.max_value_first_at
        )?;
        match (s.split.mask, s.split.last_rare) {
            (Some(mask), Some((n, v))) => writeln!(
                out,
                "rare/common split: mask {mask}, {} rare positions counting 0, the last at n = {n} (value {v})",
                s.split.rare
            )?,
            _ => writeln!(out, "rare/common split: none (no mask leaves the positions sparse)")?,
        }
        match &s.verdict {
            Some(v) => writeln!(out, "{}", verdict_text(v, limit))?,
            None => writeln!(
                out,
                "period: not searched (window mode keeps no whole table to search it in)"
            )?,
        }
        if let Some(plot) = &self.plot {
            writeln!(out, "plot: {plot}")?;
        }
        for h in s.histogram.iter().flatten() {
            let counts: Vec<String> = h.counts.iter().map(u64::to_string).collect();
            writeln!(out, "histogram {}: {}", h.below, counts.join(" "))?;
        }
        for (n, v) in self.values.iter().copied().flatten().enumerate() {
            writeln!(out, "{n} {v}")?;
        }
        out.flush()
    }

    fn json(&self) -> serde_json::Value {
        let (limit, seeded, s) = (self.limit, self.seeded, &self.summary);
        let mut out = json!({
            "code": self.rules.label(),
            "limit": limit,
            "backend": self.backend,
            // what `auto` chose and why (null for a back-end named by --backend)
            "auto": self.choice.as_ref().map(|c| json!({
                "chose": c.backend,
                "kind": c.kind.describe(),
                "prefix": c.prefix,
                "sparse_mask": c.sparse.map(|(m, _)| m.bits),
                "rare_in_prefix": c.sparse.map(|(_, r)| r),
                "reason": c.reason(),
                "computed_to": c.copied.map(|p| p.computed_to),
            })),
            "seconds": self.seconds,
            "seeded_positions": seeded,
            "seeded_from": self.from_file.as_ref().map(|p| p.display().to_string()),
            "positions_this_run": limit + 1 - seeded,
            "max_value": s.max_value,
            "max_value_first_at": s.max_value_first_at,
            "values_per_second": self.rate(),
            "threads": self.threads,
            "mask": s.split.mask.map(|m| m.bits),
            // "value": rare when popcount(g & mask) is even; "position": when its parity is
            // that of n - t (Flammenkamp's second kind)
            "mask_kind": s.split.mask.map(|m| if m.position.is_some() { "position" } else { "value" }),
            "rare_positions": s.split.rare,
            "last_rare": s.split.last_rare.map(|(n, _)| n),
            "last_rare_value": s.split.last_rare.map(|(_, v)| v),
            // Equal tables have equal digests: what `compare --octal` checks both sides by.
            "table_digest": self.digest,
            // "full": the whole table in memory; "window": see `window`
            "mode": if self.window.is_some() { "window" } else { "full" },
            "window": self.window.as_ref().map(WindowReport::json),
            // octal-block's stores in a `count-stores` build (null otherwise)
            "stores": self.stores,
            "isa": nimsquare::base::isa::active().name(),
            "t": self.rules.largest_removal(),
            "plot": self.plot,
            "unsaved": self.unsaved.iter().map(Unsaved::to_json).collect::<Vec<_>>(),
        });
        let fields = match &s.verdict {
            Some(v) => verdict_json(v),
            None => json!({ "status": "not searched" }),
        };
        let object = out.as_object_mut().expect("an object");
        object.extend(fields.as_object().expect("an object").clone());
        if let Some(values) = self.values {
            object.insert("values".into(), json!(values));
        }
        if let Some(rows) = &s.histogram {
            let rows: Vec<serde_json::Value> = rows
                .iter()
                .map(|h| json!({ "below": h.below, "counts": h.counts }))
                .collect();
            object.insert("histogram".into(), json!(rows));
        }
        out
    }
}
