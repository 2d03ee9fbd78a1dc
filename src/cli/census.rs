//! `nimsquare census`: every octal code of up to D digits, its period or "open", with the
//! provenance of the run ([`nimsquare::octal::census`] does the work; this file prints).

use super::args::{count_usize, limit_parser};
use super::common::{fmt_seconds, CliResult};
use super::octal::backend_for;
use nimsquare::base::limit::Limit;
use nimsquare::base::paths::{decide_output, write_output, Output};
use nimsquare::base::provenance::{cpu_model, git_rev, utc_date_today};
use nimsquare::octal::census::{self, Row, MAX_DIGITS};
use nimsquare::octal::period::Verdict;
use serde_json::json;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

/// N when --limit is not given: about a minute for D = 3 with the quadratic control.
pub const DEFAULT_CENSUS_LIMIT: &str = "1000";

/// The long help of `census`.
pub const LONG_ABOUT: &str = "Builds every octal game 0.d1..dk and 4.d1..dk for k = 1..=D \
    with dk != 0 (each code once; 1022 codes for D = 3) up to N and reports for each the period \
    and preperiod proved by the theorem of Guy and Smith (see `nimsquare octal --help`), or \
    'open' when none is proved up to N, and the largest value. Every row names the back-end, \
    the build, the CPU and the date.\n\n\
    Output: a text table (default), --csv (header code,limit,status,preperiod,period,max_value,\
    backend,build,cpu,date) or --json (one object with a `rows` array), on stdout or to --out \
    (written to FILE.tmp, then renamed; refused if FILE exists unless --force; a symlink is \
    written through to its target; `-`, a FIFO or a character device is written in place).\n\n\
    Example: nimsquare census --digits 2 --limit 1000 --csv";

/// The CSV header of `census --csv`.
pub const CSV_HEADER: &str = "code,limit,status,preperiod,period,max_value,backend,build,cpu,date";

#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("format").args(["csv", "json"])))]
pub struct Args {
    /// The most digits after the point, D (1 to 3).
    #[arg(long, value_name = "D", default_value_t = 3, value_parser = count_usize(1, MAX_DIGITS),
          allow_hyphen_values = true)]
    digits: usize,
    /// The largest heap size N of every table (default 1000).
    #[arg(long, short = 'n', value_name = "N", default_value = DEFAULT_CENSUS_LIMIT,
          value_parser = limit_parser(), allow_hyphen_values = true)]
    limit: Limit,
    /// The octal back-end (default: `octal-block`).
    #[arg(long, value_name = "NAME")]
    backend: Option<String>,
    /// Write CSV rows.
    #[arg(long)]
    csv: bool,
    /// Write one JSON object.
    #[arg(long)]
    json: bool,
    /// Write to FILE instead of stdout (refused if FILE exists, unless --force).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Replace an existing --out.
    #[arg(long)]
    force: bool,
    /// No progress line on stderr.
    #[arg(long)]
    quiet: bool,
}

/// Where a census was made: the same for every row.
struct Made {
    backend: &'static str,
    build: String,
    cpu: String,
    date: String,
}

pub fn run(args: Args) -> CliResult {
    let limit = args.limit.get();
    let entry = backend_for(args.backend.as_deref(), limit)?;
    // Where --out goes, decided now: `-`, a FIFO or a device written in place, a file
    // (through a symlink) replaced only with --force.
    let out = match &args.out {
        Some(path) => decide_output(path, "--out", Some(args.force))?,
        None => Output::Stdout,
    };
    let made = Made {
        backend: entry.name,
        build: git_rev(),
        cpu: cpu_model(),
        date: utc_date_today(),
    };
    // On a terminal one line redrawn as codes finish; elsewhere (a log) one line at the end.
    let (quiet, terminal) = (args.quiet, std::io::stderr().is_terminal());
    let started = std::time::Instant::now();
    let progress = move |done: usize, all: usize| {
        if quiet {
            return;
        }
        if terminal && (done == all || done.is_multiple_of(16)) {
            eprint!("\rcensus: {done}/{all} codes up to N = {limit}");
        }
        if done == all {
            let lead = if terminal { "\r" } else { "" };
            eprintln!(
                "{lead}census: {all}/{all} codes up to N = {limit} in {}",
                fmt_seconds(started.elapsed().as_secs_f64())
            );
        }
    };
    let rows = census::census(entry, args.digits, limit, &progress)?;
    let render = |w: &mut dyn Write| -> std::io::Result<()> {
        if args.csv {
            write_csv(w, &rows, &made)
        } else if args.json {
            let mut value = json_of(&rows, &made, args.digits, limit);
            if let Some(o) = value.as_object_mut() {
                o.insert("version".into(), env!("CARGO_PKG_VERSION").into());
            }
            writeln!(w, "{value}")
        } else {
            write_text(w, &rows, &made, args.digits, limit)
        }
    };
    write_output(&out, "--out", render)?;
    Ok(0)
}

/// (status, preperiod, period) of a row, the two numbers empty unless periodic.
fn fields(row: &Row) -> (&'static str, String, String) {
    match row.verdict {
        Verdict::Periodic(p) => ("periodic", p.preperiod.to_string(), p.period.to_string()),
        Verdict::Open => ("open", String::new(), String::new()),
        Verdict::NotApplicable => ("not applicable", String::new(), String::new()),
    }
}

fn write_csv(w: &mut dyn Write, rows: &[Row], made: &Made) -> std::io::Result<()> {
    writeln!(w, "{CSV_HEADER}")?;
    // The CPU name may hold commas: quoted, with quotes doubled.
    let cpu = format!("\"{}\"", made.cpu.replace('"', "\"\""));
    for row in rows {
        let (status, e, p) = fields(row);
        writeln!(
            w,
            "{},{},{status},{e},{p},{},{},{},{cpu},{}",
            row.code, row.limit, row.max_value, made.backend, made.build, made.date
        )?;
    }
    Ok(())
}

fn json_of(rows: &[Row], made: &Made, digits: usize, limit: usize) -> serde_json::Value {
    json!({
        "digits": digits,
        "limit": limit,
        "backend": made.backend,
        "build": made.build,
        "cpu": made.cpu,
        "date": made.date,
        "rows": rows.iter().map(|r| {
            let mut v = super::octal::verdict_json(&r.verdict);
            let o = v.as_object_mut().expect("an object");
            o.insert("code".into(), r.code.clone().into());
            o.insert("limit".into(), r.limit.into());
            o.insert("max_value".into(), r.max_value.into());
            v
        }).collect::<Vec<_>>(),
    })
}

fn write_text(
    w: &mut dyn Write,
    rows: &[Row],
    made: &Made,
    digits: usize,
    limit: usize,
) -> std::io::Result<()> {
    writeln!(
        w,
        "census of the octal codes with 1 to {digits} digits, N = {limit}, back-end {}; build {}, cpu {}, {}",
        made.backend, made.build, made.cpu, made.date
    )?;
    writeln!(
        w,
        "{:<8} {:>10} {:>8} {:>10}",
        "code", "preperiod", "period", "max value"
    )?;
    let mut open = 0;
    for row in rows {
        let (status, e, p) = fields(row);
        if status == "periodic" {
            writeln!(w, "{:<8} {e:>10} {p:>8} {:>10}", row.code, row.max_value)?;
        } else {
            open += 1;
            writeln!(
                w,
                "{:<8} {:>19} {:>10}",
                row.code,
                format!("{status} up to N"),
                row.max_value
            )?;
        }
    }
    writeln!(
        w,
        "{} codes: {} periodic, {open} open up to N = {limit}",
        rows.len(),
        rows.len() - open
    )
}
