//! `nimsquare tune`: times the table back-ends `auto` can pick on this machine and writes
//! the crossovers to a wisdom file ([`nimsquare::instruments::tune`] does the timing). This
//! file is parse (every refusal before any work), progress, the printed lines and the write.

use super::args::{JsonArg, MovesArg, RepeatArg};
use super::{parse_limit, CliResult};
use nimsquare::base::error::{Error, Result};
use nimsquare::base::limit::Limit;
use nimsquare::instruments::tune::{self, Event, Settings};
use nimsquare::instruments::wisdom::{self, Wisdom};
use std::io::IsTerminal;
use std::path::PathBuf;

pub const LONG_ABOUT: &str = "Times the table back-ends `auto` can pick, on this machine, and writes \
    where each one wins to a wisdom file that `auto` then follows.\n\n\
    For one thread and for all threads (--threads, default all cores), on the active vector path \
    (--isa), at two points a decade of N from 100 to --to, every candidate (stamped, stamped-lanes, \
    bitset, and with two threads or more stamped-parallel and bitset-parallel) is built in \
    alternating rounds (--repeat, the median is kept); a candidate more than twice the best \
    at two points in a row from N = 10^6 on leaves the race. Past the largest N timed, up to \
    --model-to, the times are modelled: each remaining candidate's roofline bound at that N \
    (cost model priced with primitives measured there), divided by its efficiency at the \
    largest N timed; when the winner there has a cost model that is no bound (efficiency over \
    1.25), nothing is modelled and the winner holds (an `unmodelled ...` line). The wisdom file \
    says which choices were measured and which modelled.\n\n\
    Timing stops before a point predicted to overrun --budget (default 150 s, shared by the \
    thread counts; the modelled part then starts there), so the defaults take about 3 minutes. The file goes to --wisdom FILE, else \
    $NIMSQUARE_WISDOM, else ~/.cache/nimsquare/wisdom.json ($XDG_CACHE_HOME/nimsquare/wisdom.json \
    when set); an existing file is replaced only with --force. Wisdom is used by `auto` only on \
    the same CPU model, vector path, thread count, build of nimsquare and moves; `list` and \
    `solve --json` say which choices are in force.\n\n\
    Stdout: one `time threads=T n=N table=NAME seconds=S` line per median, `drop ...`, \
    `stop ...`, `model ...` and `unmodelled ...` lines, then one `step threads=T from=N table=NAME basis=measured|modelled` line \
    per choice and `wrote FILE`; with --json the wisdom object instead. Progress goes to stderr \
    when it is a terminal.";

#[derive(clap::Args)]
pub struct Args {
    /// The largest N timed (two points a decade from 100 up to it).
    #[arg(long, value_name = "N", default_value = "1e7", value_parser = parse_limit,
          allow_hyphen_values = true)]
    to: Limit,
    /// The largest N modelled past --to (no modelled points when not above --to).
    #[arg(long, value_name = "N", default_value = "1e9", value_parser = parse_limit,
          allow_hyphen_values = true)]
    model_to: Limit,
    /// Seconds of timing allowed in all (shared by the thread counts): the grid stops
    /// before a point predicted to overrun it, and the choices past it are modelled.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 150.0,
        allow_hyphen_values = true
    )]
    budget: f64,
    #[command(flatten)]
    repeat: RepeatArg,
    #[command(flatten)]
    moves: MovesArg,
    /// Replace an existing wisdom file.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    json: JsonArg,
}

pub fn run(args: Args, flag: Option<PathBuf>) -> CliResult {
    let (settings, path) = parse(&args, flag)?;
    let bar = progress();
    let wisdom = tune::run(&settings, |event| {
        match event {
        Event::Point {
            threads, n, index, ..
        } => {
            bar.set_position(index as u64 - 1);
            bar.set_message(format!("{threads} thread(s), N = {n}"));
        }
        Event::Timed {
            threads,
            n,
            table,
            seconds,
        } if !args.json.json => bar.suspend(|| {
            println!("time threads={threads} n={n} table={table} seconds={seconds:e}")
        }),
        Event::Stopped {
            threads,
            n,
            predicted,
            left,
        } if !args.json.json => bar.suspend(|| {
            println!(
                "stop threads={threads} n={n} predicted_seconds={predicted:.1} budget_left_seconds={left:.1}"
            )
        }),
        Event::Dropped {
            threads,
            n,
            table,
            ratio,
        } if !args.json.json => bar.suspend(|| {
            println!("drop threads={threads} n={n} table={table} ratio_to_best={ratio:.2}")
        }),
        Event::Unmodelled {
            threads,
            n,
            table,
            efficiency,
        } if !args.json.json => bar.suspend(|| {
            println!(
                "unmodelled threads={threads} n={n} table={table} efficiency_at_largest_timed={efficiency:.3}"
            )
        }),
        Event::Modelled {
            threads,
            n,
            table,
            seconds,
            efficiency,
        } if !args.json.json => bar.suspend(|| {
            println!(
                "model threads={threads} n={n} table={table} seconds={seconds:e} efficiency_at_largest_timed={efficiency:.3}"
            )
        }),
        _ => {}
    }
    });
    bar.finish_and_clear();
    let wisdom = wisdom?;
    wisdom::save(&wisdom, &path)?;
    report(&wisdom, &path, args.json.json);
    Ok(0)
}

/// Every refusal before any work: the grid, the thread counts and the output file.
fn parse(args: &Args, flag: Option<PathBuf>) -> Result<(Settings, PathBuf)> {
    let to = args.to.get() as u64;
    if to < tune::FROM {
        return Err(Error::Invalid(format!(
            "--to must be at least {} (the grid starts there), got {to}",
            tune::FROM
        )));
    }
    if !(args.budget.is_finite() && args.budget > 0.0) {
        return Err(Error::Invalid(format!(
            "--budget must be a positive number of seconds, got {}",
            args.budget
        )));
    }
    let path = match wisdom::location(flag.as_deref()) {
        Some(p) => p,
        None if wisdom::turned_off() => {
            return Err(Error::Invalid(format!(
                "wisdom is turned off ({} is set); pass --wisdom FILE to say where to write it",
                wisdom::OFF_VARIABLE
            )))
        }
        None => return Err(Error::Invalid(
            "no cache folder is known (neither XDG_CACHE_HOME nor HOME is set); pass --wisdom FILE"
                .into(),
        )),
    };
    if path.is_dir() {
        return Err(Error::Invalid(format!(
            "--wisdom {}: is a folder; give a file path inside it",
            path.display()
        )));
    }
    if path.exists() && !args.force {
        return Err(Error::Invalid(format!(
            "--wisdom {}: the file exists; pass --force to replace it, or choose another file",
            path.display()
        )));
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| {
            Error::Invalid(format!(
                "--wisdom {}: cannot create its folder ({e}); choose another file",
                path.display()
            ))
        })?;
    }
    super::args::check_output_path(&path, "--wisdom")?;
    let pool = rayon::current_num_threads();
    let mut threads = vec![1];
    if pool > 1 {
        threads.push(pool);
    }
    Ok((
        Settings {
            moves: args.moves.moves.clone(),
            to,
            model_to: args.model_to.get() as u64,
            repeats: args.repeat.repeat,
            threads,
            budget_seconds: args.budget,
        },
        path,
    ))
}

/// A bar of measured points on stderr when it is a terminal, hidden otherwise.
fn progress() -> indicatif::ProgressBar {
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(1);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{elapsed_precise} tune: {msg}")
            .expect("a valid template"),
    );
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar
}

fn report(wisdom: &Wisdom, path: &std::path::Path, json: bool) {
    if json {
        let mut value = serde_json::to_value(wisdom).expect("wisdom serialises");
        if let Some(o) = value.as_object_mut() {
            o.insert("path".into(), path.display().to_string().into());
        }
        super::print_json(value);
        return;
    }
    for plan in &wisdom.plans {
        for s in &plan.steps {
            println!(
                "step threads={} from={} table={} basis={}",
                plan.threads,
                s.from,
                s.table,
                s.basis.name()
            );
        }
    }
    println!("wrote {}", path.display());
}
