//! `nimsquare tune`: times the table back-ends `auto` can pick on this machine and writes
//! the crossovers to a wisdom file ([`nimsquare::instruments::tune`] does the timing). This
//! file is parse (every refusal before any work), progress, the printed lines and the write.

use super::args::{limit_parser, JsonArg, MovesArg, RepeatArg};
use super::common::CliResult;
use nimsquare::base::error::{Error, Result};
use nimsquare::base::limit::Limit;
use nimsquare::base::paths::{decide_output, Output};
use nimsquare::base::units::{human_range, human_seconds};
use nimsquare::instruments::tune::decide::{Choice, Ratio, Spread, Why};
use nimsquare::instruments::tune::{self, Event, Settings};
use nimsquare::run::report::{self, Report};
use nimsquare::run::wisdom::{self, Wisdom};
use std::io::IsTerminal;
use std::io::{self, Write};
use std::path::PathBuf;

pub const LONG_ABOUT: &str = "Times the table back-ends `auto` can pick, on this machine, and writes \
    where each one wins to a wisdom file that `auto` then follows.\n\n\
    For one thread and for all threads (--threads, default all cores), on the active vector path \
    (--isa), at two points a decade of N from 100 to --to, every candidate (stamped, stamped-lanes, \
    bitset, and with two threads or more stamped-parallel and bitset-parallel) is built in \
    alternating rounds (--repeat, the median is kept); candidates within 10% of the fastest, and the \
    choice held (the one at the N before, or the built-in one at the first N), get more alternating \
    rounds (twice --repeat, at least 3), so each ratio to the fastest has a range over the pairs. \
    The choice moves to the fastest only when it was faster in every pair; otherwise the choice \
    held is kept (basis=within-noise). A candidate more than twice the best at two points in a \
    row from N = 10^6 on leaves the race. Past the largest N timed, up to --model-to, the times \
    are modelled: each remaining candidate's time there times the growth of its roofline bound \
    (cost model priced with primitives measured twice at each N, so the growth has a range); the \
    choice moves only when the modelled ratio's whole range says so, else the built-in choice \
    (basis=built-in-within-noise) or the one before (modelled-within-noise) is kept. When the \
    choice at the largest N timed has a cost model that is no bound (efficiency over 1.25), nothing \
    is modelled and it holds (an `unmodelled ...` line). The wisdom file says which choices were \
    measured and which modelled.\n\n\
    Timing stops before a point predicted to overrun --budget (default 150 s, shared by the \
    thread counts; the modelled part then starts there), so the defaults take about 3 minutes. The file goes to --wisdom FILE, else \
    $NIMSQUARE_WISDOM, else ~/.cache/nimsquare/wisdom.json ($XDG_CACHE_HOME/nimsquare/wisdom.json \
    when set, its folder made if missing; a folder named otherwise must exist); an existing file is \
    replaced only with --force, as a whole (a new file renamed over it, through a symlink to its \
    target), while a FIFO or a device such as /dev/null is written in place. Wisdom is used by `auto` only on \
    the same CPU model, vector path, thread count, build of nimsquare and moves; `list` and \
    `solve --json` say which choices are in force.\n\n\
    Stdout: per candidate and N a `time threads=T n=N table=NAME` line with the median and range \
    in readable units and the ratio to the fastest with its range, ending `seconds=S` (the \
    median, 5 digits); per N a `choose threads=T n=N table=NAME basis=...` line, and a `differs \
    ...` line saying why when the choice is not the built-in one; `drop ...`, `stop ...`, \
    `model ...` and `unmodelled ...` lines; `load start=... end=... cpus=... busy=yes|no` (busy: \
    a load average above 0.5, with a warning); then one `step threads=T from=N table=NAME \
    basis=measured|modelled` line per choice and `wrote FILE`; with --json the wisdom object \
    instead (exact medians, ranges and every choice). Progress goes to stderr when it is a \
    terminal.";

#[derive(clap::Args)]
pub struct Args {
    /// The largest N timed (two points a decade from 100 up to it).
    #[arg(long, value_name = "N", default_value = "1e7", value_parser = limit_parser(),
          allow_hyphen_values = true)]
    to: Limit,
    /// The largest N modelled past --to (no modelled points when not above --to).
    #[arg(long, value_name = "N", default_value = "1e9", value_parser = limit_parser(),
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
    /// Replace an existing wisdom file (a new file is renamed over it, so a reader never sees
    /// half of one; a symlink is written through to its target). A FIFO or a device such as
    /// /dev/null needs no --force: it is written in place.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    json: JsonArg,
}

pub fn run(args: Args, flag: Option<PathBuf>) -> CliResult {
    let (settings, path, out) = parse(&args, flag)?;
    let load_start = nimsquare::base::provenance::load_average();
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
            spread,
            ratio_to_best,
        } if !args.json.json => bar.suspend(|| {
            println!("{}", time_line(threads, n, table, spread, ratio_to_best))
        }),
        Event::Chosen {
            threads,
            n,
            choice,
            built_in,
            against_built_in,
            top,
        } if !args.json.json => bar.suspend(|| {
            println!("{}", choose_line(threads, n, &choice));
            if choice.table != built_in {
                println!(
                    "{}",
                    differs_line((threads, n, top), &choice, built_in, against_built_in)
                );
            }
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
            growth,
        } if !args.json.json => bar.suspend(|| {
            println!(
                "model threads={threads} n={n} {:<23} {:>7} {:<25} seconds={seconds:.4e} efficiency_at_largest_timed={efficiency:.3} growth_low={:.4e} growth_high={:.4e}",
                format!("table={table}"),
                human_seconds(seconds),
                format!("(bound x{}-{})", sig3(growth.0), sig3(growth.1)),
                growth.0,
                growth.1,
            )
        }),
        _ => {}
    }
    });
    bar.finish_and_clear();
    let wisdom = wisdom?;
    let load_end = nimsquare::base::provenance::load_average();
    if !args.json.json {
        println!("{}", load_line(load_start, load_end, cpus()));
    }
    wisdom::save(&wisdom, &out)?;
    let report = Tuned {
        wisdom: &wisdom,
        path: &path,
    };
    report::print(&report, args.json.json);
    Ok(0)
}

/// Every refusal before any work: the grid, the thread counts and the output file, decided
/// by [`decide_output`] (a FIFO or `/dev/null` written in place, a symlink written through, an
/// existing file replaced only with --force). Returns the path as named, for the `wrote` line,
/// and where the file goes.
fn parse(args: &Args, flag: Option<PathBuf>) -> Result<(Settings, PathBuf, Output)> {
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
    // The cache folder of the default location is made here; any other folder must exist.
    if wisdom::default_path().as_deref() == Some(path.as_path()) {
        wisdom::create_folder(&path)?;
    }
    let out = decide_output(&path, "--wisdom", Some(args.force))?;
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
        out,
    ))
}

/// One candidate's line: the median, range and ratio to the fastest read by a person, then
/// the median exactly for scripts (the rest is in `--json`).
fn time_line(threads: usize, n: u64, table: &str, s: Spread, ratio: Option<Ratio>) -> String {
    let range = if s.count == 1 {
        "1 round".to_string()
    } else {
        format!(
            "{}, {} rounds",
            human_range(s.min, s.max, s.median),
            s.count
        )
    };
    let versus = match ratio {
        None => "fastest".to_string(),
        Some(r) if r.pairs == 1 => format!("{:.2}x fastest (1 pair)", r.median),
        Some(r) => format!(
            "{:.2}x fastest ({:.2}-{:.2}, {} pairs)",
            r.median, r.low, r.high, r.pairs
        ),
    };
    format!(
        "time threads={threads} n={n} {:<23} {:>7} {:<25} {versus:<33} seconds={:.4e}",
        format!("table={table}"),
        human_seconds(s.median),
        format!("({range})"),
        s.median,
    )
}

/// `x` with three significant digits (no exponent up to 10^6).
fn sig3(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

/// The choice at one N: `basis=measured|within-noise|modelled|modelled-within-noise`, and
/// when the choice is not the fastest, which was and by how much (t(choice)/t(fastest)).
fn choose_line(threads: usize, n: u64, c: &Choice) -> String {
    let mut line = format!(
        "choose threads={threads} n={n} table={} basis={}",
        c.table,
        c.why.name()
    );
    if c.table != c.fastest {
        if let Some(r) = c.ratio {
            let (by, held) = match c.why {
                Why::WithinNoise => (
                    "median",
                    "the choice held (at the N before; at the first N the built-in one)",
                ),
                Why::BuiltInWithinNoise => ("the model", "the built-in choice here"),
                _ => ("the model", "the choice at the N before"),
            };
            line += &format!(
                " fastest={} ratio_low={:.4} ratio_high={:.4}: {} was faster by {by}, not beyond the noise; kept {held}",
                c.fastest, r.low, r.high, c.fastest,
            );
        }
    }
    line
}

/// Why the choice at one N differs from the built-in one: `ratio` is t(built-in)/t(choice)
/// measured in pairs here, or modelled from the largest N timed, `top`.
fn differs_line(
    (threads, n, top): (usize, u64, u64),
    c: &Choice,
    built_in: &str,
    ratio: Option<Ratio>,
) -> String {
    let modelled = c.why.basis() == nimsquare::run::wisdom::Basis::Modelled;
    let head = format!(
        "differs threads={threads} n={n} table={} built_in={built_in}",
        c.table
    );
    let Some(r) = ratio else {
        return if modelled {
            format!("{head}: {built_in} is not modelled here (not within 2x of the fastest at n={top}, the largest N timed, or its model is no bound there)")
        } else {
            format!("{head}: {built_in} was not timed here (it left the race)")
        };
    };
    let fields = format!(
        "{head} ratio={:.4} ratio_low={:.4} ratio_high={:.4}",
        r.median, r.low, r.high
    );
    match (r.clearly_above_one(), modelled) {
        (true, false) => format!(
            "{fields}: {built_in} took {:.2}-{:.2}x {}'s time here, in every one of {} pairs",
            r.low, r.high, c.table, r.pairs
        ),
        (true, true) => format!(
            "{fields}: modelled, {built_in} at {:.2}-{:.2}x {}'s time: the pair ratios measured at n={top}, the largest N timed, times the growth of each one's roofline bound since; the model carries the ratio measured there",
            r.low, r.high, c.table
        ),
        (false, _) => format!(
            "{fields}: {built_in} and {} are within noise of each other here ({:.2}-{:.2}); the choice at the N before is kept",
            c.table, r.low, r.high
        ),
    }
}

/// The CPUs this process may run on.
fn cpus() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// The load average when `tune` started and ended; other work running makes its timings
/// noisy and its two-thread ones unfair, and above [`BUSY_LOAD`] the line says so.
fn load_line(start: Option<f64>, end: Option<f64>, cpus: usize) -> String {
    let show = |l: Option<f64>| l.map_or("NA".to_string(), |l| format!("{l:.2}"));
    let busy = start.into_iter().chain(end).any(|l| l > BUSY_LOAD);
    let mut line = format!(
        "load start={} end={} cpus={cpus} busy={}",
        show(start),
        show(end),
        if busy { "yes" } else { "no" }
    );
    if busy {
        line += ": other work was running, so the timings are noisy (wide ranges, choices kept within noise) and the two-thread ones slowed; tune on an idle machine for wisdom to keep";
    }
    line
}

/// A load average above this, at the start or the end, marks the run busy.
const BUSY_LOAD: f64 = 0.5;

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

/// What `tune` answers: the wisdom written and where.
struct Tuned<'a> {
    wisdom: &'a Wisdom,
    path: &'a std::path::Path,
}

impl Report for Tuned<'_> {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        for plan in &self.wisdom.plans {
            for s in &plan.steps {
                writeln!(
                    out,
                    "step threads={} from={} table={} basis={}",
                    plan.threads,
                    s.from,
                    s.table,
                    s.basis.name()
                )?;
            }
        }
        writeln!(out, "wrote {}", self.path.display())?;
        Ok(())
    }

    fn json(&self) -> serde_json::Value {
        let mut value = serde_json::to_value(self.wisdom).expect("wisdom serialises");
        if let Some(o) = value.as_object_mut() {
            o.insert("path".into(), self.path.display().to_string().into());
        }
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ratio(low: f64, median: f64, high: f64) -> Ratio {
        Ratio {
            median,
            low,
            high,
            pairs: 3,
        }
    }

    #[test]
    fn a_choice_that_differs_from_the_built_in_one_says_why() {
        let modelled = Choice {
            table: "stamped-lanes",
            why: Why::Modelled,
            fastest: "stamped-lanes",
            ratio: None,
        };
        let built_in = "stamped-parallel";
        let line = differs_line(
            (2, 100_000_000, 1_000_000),
            &modelled,
            built_in,
            Some(ratio(1.28, 1.32, 1.39)),
        );
        assert!(
            line.starts_with("differs threads=2 n=100000000 table=stamped-lanes built_in=stamped-parallel ratio=1.3200 ratio_low=1.2800 ratio_high=1.3900: modelled")
                && line.contains("measured at n=1000000, the largest N timed"),
            "{line}"
        );
        let measured = Choice {
            why: Why::Fastest,
            ..modelled.clone()
        };
        let line = differs_line((2, 10, 10), &measured, built_in, Some(ratio(1.1, 1.2, 1.3)));
        assert!(
            line.contains("took 1.10-1.30x stamped-lanes's time here, in every one of 3 pairs"),
            "{line}"
        );
        let line = differs_line((2, 10, 10), &measured, built_in, Some(ratio(0.9, 1.2, 1.3)));
        assert!(line.contains("within noise"), "{line}");
        let line = differs_line((2, 10, 10), &measured, built_in, None);
        assert!(line.contains("was not timed here"), "{line}");
        let line = differs_line((2, 10, 10), &modelled, built_in, None);
        assert!(line.contains("is not modelled here"), "{line}");
    }

    #[test]
    fn time_lines_read_in_units_and_keep_the_exact_median() {
        let s = Spread {
            median: 7.364_300_231_967_304e-7,
            min: 7.1e-7,
            max: 7.5e-7,
            count: 3,
        };
        let line = time_line(1, 100, "stamped", s, Some(ratio(1.01, 1.05, 1.1)));
        assert!(
            line.starts_with("time threads=1 n=100 table=stamped "),
            "{line}"
        );
        assert!(line.contains(" 736 ns (710-750 ns, 3 rounds)"), "{line}");
        assert!(
            line.contains("1.05x fastest (1.01-1.10, 3 pairs)"),
            "{line}"
        );
        assert!(line.ends_with(" seconds=7.3643e-7"), "{line}");
        let one = Spread { count: 1, ..s };
        assert!(load_line(Some(0.1), Some(0.2), 2).ends_with("busy=no"));
        assert!(load_line(Some(0.1), Some(3.0), 2).contains("busy=yes: other work"));
        assert!(load_line(None, None, 2).starts_with("load start=NA end=NA cpus=2 busy=no"));
        assert!(time_line(1, 100, "stamped", one, None).contains("(1 round)"));
    }
}
