//! `nimsquare scale`: the scaling study. Times table back-ends on a geometric grid of N,
//! writes one CSV row per (back-end, N) as soon as it is measured, prints the fitted exponent
//! of each back-end, and optionally draws a log-log SVG. The fitting, CSV and plot code lives
//! in [`crate::scaling`].

use super::{parse_limit, CliResult};
use crate::error::Error;
use crate::moves::Moves;
use crate::scaling::{self, CsvLog, Row, FIT_MIN_N};
use crate::table;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(clap::Args)]
#[command(
    long_about = "Times table back-ends on a geometric grid of N (the scaling study).\n\n\
    For each N from --from to --to (--points values, equally spaced in log N) and each back-end, \
    builds the table --repeat times and appends one CSV row (median and minimum seconds, option \
    steps S(N), ns per step, max value, threads, git revision, CPU) to --out, flushed at once, so \
    an interrupted run keeps every finished point; --resume skips the points already there. \
    Tables of all back-ends at one N must be identical, or the run stops. \
    Stdout gets one `row ...` line per point, `skip ...` lines, and at the end one `fit ...` line \
    per back-end: the least-squares slope of log(seconds) on log(N) over N >= 10^4 and its R^2. \
    A progress bar is drawn on stderr only when stderr is a terminal."
)]
pub struct Args {
    /// Table back-ends to time, comma-separated (default: every one in `nimsquare list`).
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    table: Vec<String>,
    /// The smallest N of the grid.
    #[arg(long, value_name = "A", default_value = "1000", value_parser = parse_limit,
          allow_hyphen_values = true)]
    from: u64,
    /// The largest N of the grid.
    #[arg(long, value_name = "B", default_value = "1000000", value_parser = parse_limit,
          allow_hyphen_values = true)]
    to: u64,
    /// How many values of N, equally spaced in log N from A to B (at least 2).
    #[arg(
        long,
        value_name = "K",
        default_value_t = 7,
        allow_hyphen_values = true
    )]
    points: i64,
    /// Timed runs per point; the CSV keeps their median and minimum.
    #[arg(
        long,
        value_name = "R",
        default_value_t = 3,
        allow_hyphen_values = true
    )]
    repeat: i64,
    /// The CSV file to write (replaced unless --resume).
    #[arg(long, value_name = "FILE.csv", default_value = "scaling.csv")]
    out: PathBuf,
    /// Also draw the study (every back-end in the CSV) as a log-log SVG here.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
    /// Keep the rows already in --out and skip those (back-end, N) points.
    #[arg(long)]
    resume: bool,
    /// Skip a back-end at every N where one run is predicted (from its fitted slope) to take
    /// more than this many seconds; each skip is printed as a `skip ...` line.
    #[arg(long, value_name = "SECONDS", allow_hyphen_values = true)]
    skip_over: Option<f64>,
    /// Subtraction set: `squares` or a comma-separated list like 1,3,4 (option steps in the
    /// CSV are counted for this set).
    #[arg(long, value_name = "LIST", default_value = "squares", value_parser = crate::cli::parse_moves,
          allow_hyphen_values = true)]
    moves: Moves,
}

/// The folder a file would be written into must exist (an empty parent is the current one).
fn check_parent(path: &Path, flag: &str) -> crate::Result<()> {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() && !p.is_dir() => Err(Error::Invalid(format!(
            "{flag} {}: folder '{}' does not exist",
            path.display(),
            p.display()
        ))),
        _ => Ok(()),
    }
}

/// A cheap fingerprint of a table (FNV-1a over the values), to check the back-ends agree at
/// each N without keeping every table.
fn fingerprint(t: &table::Table) -> (usize, u16, u64) {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &v in t.values() {
        h = (h ^ v as u64).wrapping_mul(0x0000_0100_0000_01b3);
    }
    (t.limit(), t.max_value(), h)
}

pub fn run(args: Args) -> CliResult {
    // Refuse bad arguments before any work.
    if args.from < 1 {
        return Err(Error::Invalid("--from must be at least 1".into()));
    }
    if args.from > args.to {
        return Err(Error::Invalid(format!(
            "--from {} is larger than --to {}",
            args.from, args.to
        )));
    }
    if args.points < 2 {
        return Err(Error::Invalid(format!(
            "--points must be at least 2 (a grid needs both ends), got {}",
            args.points
        )));
    }
    if args.repeat < 1 {
        return Err(Error::Invalid(format!(
            "--repeat must be at least 1, got {}",
            args.repeat
        )));
    }
    if let Some(s) = args.skip_over {
        if s.is_nan() || s <= 0.0 {
            return Err(Error::Invalid(format!(
                "--skip-over must be a positive number of seconds, got {s}"
            )));
        }
    }
    let names: Vec<&'static str> = if args.table.is_empty() {
        table::BACKENDS.iter().map(|e| e.name).collect()
    } else {
        let mut v = Vec::new();
        for n in &args.table {
            let name = table::find(n.trim())?.name;
            if !v.contains(&name) {
                v.push(name);
            }
        }
        v
    };
    check_parent(&args.out, "--out")?;
    if let Some(p) = &args.plot {
        check_parent(p, "--plot")?;
    }

    let repeats = args.repeat as usize;
    let grid = scaling::geometric_grid(args.from, args.to, args.points as usize);
    let mut log = if args.resume {
        CsvLog::resume(&args.out)?
    } else {
        CsvLog::create(&args.out)?
    };
    let done = log.done();
    let moves = args.moves.clone();
    let threads = rayon::current_num_threads();
    let git_rev = scaling::git_rev();
    let cpu = scaling::cpu_model();

    let todo = grid
        .iter()
        .flat_map(|&n| names.iter().map(move |&b| (b, n)))
        .filter(|(b, n)| !done.contains(&(b.to_string(), *n)))
        .count() as u64;
    let bar = if std::io::stderr().is_terminal() {
        let bar = indicatif::ProgressBar::new(todo);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{elapsed_precise} [{bar:30}] {pos}/{len} points  {msg}",
            )
            .expect("a valid template")
            .progress_chars("=> "),
        );
        bar
    } else {
        indicatif::ProgressBar::hidden()
    };
    let say = |line: String| bar.suspend(|| println!("{line}"));

    if !done.is_empty() {
        say(format!(
            "resume: {} rows already in {}",
            done.len(),
            args.out.display()
        ));
    }
    let mut skipped: Vec<&'static str> = Vec::new();
    for &n in &grid {
        let limit = table::check_limit(n)?;
        let steps = moves.option_steps(limit);
        let mut prints: Vec<(&str, (usize, u16, u64))> = Vec::new();
        for &name in &names {
            if done.contains(&(name.to_string(), n)) {
                continue;
            }
            if skipped.contains(&name) {
                say(format!(
                    "skip backend={name} n={n} reason=skipped_at_smaller_n"
                ));
                bar.inc(1);
                continue;
            }
            if let Some(budget) = args.skip_over {
                if let Some(p) = scaling::predict_seconds(log.rows(), name, n) {
                    if p > budget {
                        say(format!(
                            "skip backend={name} n={n} predicted_seconds={p:.1} budget_seconds={budget}"
                        ));
                        skipped.push(name);
                        bar.inc(1);
                        continue;
                    }
                }
            }
            bar.set_message(format!("{name} at N = {n}"));
            let entry = table::find(name)?;
            let builder = (entry.make)();
            let mut times = Vec::with_capacity(repeats);
            let mut print = None;
            for _ in 0..repeats {
                let start = Instant::now();
                let t = builder.build(&moves, limit);
                times.push(start.elapsed().as_secs_f64());
                print.get_or_insert_with(|| fingerprint(&t));
            }
            let print = print.expect("at least one repeat");
            prints.push((name, print));
            if let Some((first, fp)) = prints.iter().find(|(_, fp)| *fp != print) {
                return Err(Error::Disagreement(format!(
                    "table at N = {n}: '{first}' and '{name}' differ (fingerprints {fp:?} and {print:?})"
                )));
            }
            let med = scaling::median(&times);
            let min = times.iter().copied().fold(f64::INFINITY, f64::min);
            let row = Row {
                backend: name.to_string(),
                n,
                seconds_median: med,
                seconds_min: min,
                repeats,
                option_steps: steps,
                ns_per_step: if steps > 0 {
                    med * 1e9 / steps as f64
                } else {
                    0.0
                },
                max_value: print.1,
                threads,
                git_rev: git_rev.clone(),
                cpu: cpu.clone(),
            };
            say(format!(
                "row backend={name} n={n} seconds_median={med:.6} seconds_min={min:.6} ns_per_step={:.3} max_value={}",
                row.ns_per_step, row.max_value
            ));
            log.append(row)?;
            bar.inc(1);
        }
    }
    bar.finish_and_clear();

    for &name in &names {
        match scaling::fit_rows(log.rows(), name) {
            Some(f) => println!(
                "fit backend={name} slope={:.3} r2={:.4} points={} min_n={FIT_MIN_N}",
                f.slope, f.r2, f.points
            ),
            None => println!(
                "fit backend={name} slope=NA r2=NA points=0 min_n={FIT_MIN_N} (fewer than two points with N >= {FIT_MIN_N})"
            ),
        }
    }
    println!("wrote {} ({} rows)", args.out.display(), log.rows().len());
    if let Some(p) = &args.plot {
        let mut in_csv: Vec<String> = Vec::new();
        for r in log.rows() {
            if !in_csv.contains(&r.backend) {
                in_csv.push(r.backend.clone());
            }
        }
        scaling::plot_svg(p, log.rows(), &in_csv)?;
        println!("wrote {} ({} back-ends)", p.display(), in_csv.len());
    }
    Ok(0)
}
