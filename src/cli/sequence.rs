//! `nimsquare sequence values|cold|first`: an OEIS-style b-file read off a table it builds or
//! loads.

use super::args::{count, limit_parser, JsonArg, MovesArg};
use super::common::CliResult;
use nimsquare::base::error::{Error, Result};
use nimsquare::base::limit::Limit;
use nimsquare::base::paths::{decide_output, write_output, Output};
use nimsquare::instruments::sequence::{self, BFile, Built, Found, Game, Kind, Search};
use nimsquare::octal::{self, OctalPlan, Rules};
use nimsquare::run::longrun::{
    self, tablefile, LongRun, Outcome, Ruleset, Signal, SignalGuard, Start,
};
use nimsquare::run::planner::{Plan, Request, AUTO};
use nimsquare::run::report::{self, Report};
use nimsquare::run::window::{
    self,
    plan::{Ask, Mode, WindowPlan},
};
use nimsquare::table::Table;
use std::path::PathBuf;

#[derive(clap::Args)]
#[command(
    long_about = "Writes one sequence of a subtraction game as an OEIS b-file (`n a(n)` lines, n \
    from 0) on stdout or to --out: `values`, the Grundy values g(0..=N) (OEIS A014586 for the \
    squares); `cold`, the cold positions (g = 0) in increasing order, n their rank from 0 \
    (A030193); `first`, the smallest position of each value 0, 1, 2, ... (A297963), which \
    stops at the first value that does not occur up to N (said on stderr). The table is built \
    with `--table auto` for --moves and --limit, or read from --load-table (a file `solve \
    --save-table` wrote; --limit then takes a prefix of it). With --octal CODE the sequences \
    are the octal game's (built with --backend, by default `auto`, or read from a \
    table `octal CODE --save-table` wrote). --json writes one object instead of the b-file: \
    the sequence's name, the N of its table and its `terms`.\n\n\
    Ctrl-C (SIGINT) or SIGTERM stops a build between two chunks of about half a second: the \
    terms of the last table finished (during a --terms search) are written, a line on stderr \
    says what was stopped, and the exit status is 130 or 143.\n\n\
    Example: nimsquare sequence first --limit 1e6 > b297963.txt"
)]
pub struct Args {
    /// Which sequence: values, cold or first.
    #[arg(value_name = "SEQUENCE", value_parser = parse_kind)]
    kind: Kind,
    /// The largest position N (default 100000, or the loaded table's N).
    #[arg(long, short = 'n', value_name = "N", value_parser = limit_parser(),
          allow_hyphen_values = true)]
    limit: Option<Limit>,
    #[command(flatten)]
    moves: MovesArg,
    /// The octal game's sequence instead of a subtraction game's: its code (0.07, .6, 4.07)
    /// or `grundy`.
    #[arg(
        long,
        value_name = "CODE",
        conflicts_with = "moves",
        allow_hyphen_values = true
    )]
    octal: Option<String>,
    /// The octal back-end that builds the table (with --octal; see `nimsquare list`; default
    /// `auto`, chosen per code).
    #[arg(long, value_name = "NAME", requires = "octal")]
    backend: Option<String>,
    /// Read the table from FILE instead of building it (same moves or octal code, complete).
    #[arg(long, value_name = "FILE")]
    load_table: Option<PathBuf>,
    /// Write only the first K terms, a(0..K-1). Without --limit or --load-table, N is chosen
    /// to hold them (K - 1 for values; for cold and first, doubled from 100000 until the
    /// table holds K terms, at most 100000000, a line on stderr for each doubling); the search
    /// stops early, saying why, when a proved period (an octal game's, a finite subtraction
    /// set's) shows the sequence has no further term. With --limit or --load-table, a table
    /// holding fewer ends the file early. Fewer terms than K: status 0 and a line on stderr.
    #[arg(long, value_name = "K", value_parser = count(1, nimsquare::base::limit::MAX_LIMIT + 1), allow_hyphen_values = true)]
    terms: Option<u64>,
    /// With --octal and --limit: build in window mode (only a window of the table in memory;
    /// see `nimsquare octal --help`), the terms written as the values are made. Chosen by
    /// itself when the whole table would not fit in memory.
    #[arg(long, requires = "octal", conflicts_with = "load_table")]
    window: bool,
    /// Window mode, keeping the values in FILE (new; never overwritten).
    #[arg(
        long,
        value_name = "FILE",
        requires = "octal",
        conflicts_with = "load_table"
    )]
    window_file: Option<PathBuf>,
    /// Write the b-file to FILE instead of stdout (refused if FILE exists).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    // one JSON object instead of the b-file: the sequence's name, its table's N, its terms
    #[command(flatten)]
    json: JsonArg,
}

fn parse_kind(text: &str) -> std::result::Result<Kind, String> {
    [Kind::Values, Kind::Cold, Kind::First]
        .into_iter()
        .find(|k| k.name() == text.trim())
        .ok_or_else(|| format!("the sequence is one of values, cold, first; got '{text}'"))
}

pub fn run(args: Args) -> CliResult {
    let rules = octal_rules(&args)?;
    let asked = args.window || args.window_file.is_some();
    if asked && args.limit.is_none() {
        return Err(Error::Invalid(
            "--window needs --limit: a --terms search builds whole tables of growing N".into(),
        ));
    }
    // a misspelt back-end, or a limit past what it affords, is refused now, not at the
    // first build (each build's plan states the same refusals); so is a window-mode build
    // that cannot run, and the whole table or window mode is decided here once
    let mut windowed = None;
    if let (Some(rules), Some(limit)) = (&rules, args.limit.filter(|_| args.load_table.is_none())) {
        let ask = Ask {
            window: args.window,
            file: args.window_file.clone(),
            tail: None,
            resuming: false,
            plot: false,
            full_only: if args.json.json {
                vec!["--json"]
            } else {
                vec![]
            },
        };
        let (plan, mode) =
            window::plan::decide(rules.clone(), args.backend.as_deref(), limit.as_u64(), &ask)?;
        if let Mode::Window(w) = mode {
            windowed = Some((plan, w));
        }
    } else if args.backend.is_some() {
        octal::plan::choose_backend(args.backend.as_deref(), 0)?;
    }
    // Where --out goes, decided now: a new file, `-`, or a FIFO or device written in place;
    // an existing file (through a symlink too) is refused.
    let out = match &args.out {
        Some(path) => decide_output(path, "--out", None)?,
        None => Output::Stdout,
    };
    if let Some((plan, w)) = windowed {
        return run_window(&args, &out, &plan, &w);
    }
    // From here on SIGINT and SIGTERM set a flag that the table builds and the search read:
    // the run stops between two chunks, prints the terms found so far and says so.
    let _guard = SignalGuard::install()?;
    let search = Search {
        kind: args.kind,
        game: match &rules {
            Some(rules) => Game::Octal(rules),
            None => Game::Subtraction(&args.moves.moves),
        },
        terms: args.terms,
        limit: args.limit,
        fixed: args.limit.is_some() || args.load_table.is_some(),
    };
    let found = search.run(|limit| table_for(&args, rules.as_ref(), limit))?;
    let (table, mut seq, end) = match found {
        Found::Table { table, seq, end } => (table, seq, end),
        Found::Interrupted {
            signal,
            building,
            before,
        } => return interrupted(&args, &out, signal, building, before),
    };
    let notes = search.notes(&table, &mut seq, &end);
    print(&out, &args, table.limit(), &seq.terms)?;
    for note in notes {
        eprintln!("{note}");
    }
    Ok(0)
}

/// `sequence` in window mode: the terms written as the values are made (see
/// [`sequence::window`]), then what stderr says of them.
fn run_window(args: &Args, out: &Output, plan: &OctalPlan, w: &WindowPlan) -> CliResult {
    let _guard = SignalGuard::install()?;
    let kind = args.kind;
    let mut written = None;
    write_output(out, "--out", |o| {
        let done = sequence::window::write_sequence(kind, args.terms, plan, w, false, o)
            .map_err(std::io::Error::other)?;
        written = Some(done);
        Ok(())
    })?;
    let written = written.expect("written when the output was");
    let name = kind.name();
    if let Some((signal, done)) = written.stopped {
        eprintln!(
            "{name}: interrupted by {} after g(0..{done}); the {} terms written are those up to N = {}",
            signal.name(),
            written.terms,
            done.saturating_sub(1)
        );
        return Ok(super::common::exit_status_for(signal));
    }
    if let Some(k) = args.terms.filter(|&k| written.terms < k) {
        eprintln!(
            "{name}: only {} terms up to N = {} (asked for {k}); raise --limit for more",
            written.terms, plan.limit
        );
    }
    if let Some(missing) = written
        .missing
        .filter(|_| args.terms.is_none_or(|k| written.terms < k))
    {
        eprintln!(
            "first: value {missing} does not occur up to N = {}; the file ends at a({})",
            plan.limit,
            missing.saturating_sub(1)
        );
    }
    Ok(0)
}

/// After a signal: the terms of the last table finished (if any) are written, one line says
/// what was stopped, and the exit status is 128 plus the signal's number.
fn interrupted(
    args: &Args,
    out: &Output,
    signal: Signal,
    building: usize,
    before: Option<(Table, sequence::Terms)>,
) -> CliResult {
    let kind = args.kind.name();
    let asked = args
        .terms
        .map_or_else(String::new, |k| format!(" (asked for {k})"));
    match before {
        Some((table, seq)) => {
            print(out, args, table.limit(), &seq.terms)?;
            eprintln!(
                "{kind}: interrupted by {} while building g(0..={building}); the {} terms written are those up to N = {}{asked}",
                signal.name(),
                seq.terms.len(),
                table.limit()
            );
        }
        None => eprintln!(
            "{kind}: interrupted by {} while building g(0..={building}); no terms written{asked}",
            signal.name()
        ),
    }
    Ok(super::common::exit_status_for(signal))
}

/// Prints the terms where --out was decided to go: stdout through [`report::print`], a new
/// file, a FIFO or a device through [`write_output`] (a closed pipe on stdout ends the
/// process by SIGPIPE, see main.rs; any other write error is reported).
fn print(out: &Output, args: &Args, limit: usize, terms: &[u64]) -> Result<()> {
    let bfile = BFile {
        kind: args.kind,
        limit,
        terms,
    };
    if let Output::Stdout = out {
        report::print(&bfile, args.json.json);
        return Ok(());
    }
    write_output(out, "--out", |w| {
        if args.json.json {
            writeln!(w, "{}", report::stamped(bfile.json()))
        } else {
            bfile.text(w)
        }
    })
}

/// The octal game of --octal, if given (refused naming the flag when malformed).
fn octal_rules(args: &Args) -> Result<Option<Rules>> {
    args.octal
        .as_deref()
        .map(Rules::parse)
        .transpose()
        .map_err(|e| Error::Invalid(format!("--octal: {e}")))
}

/// The table up to `limit`: a prefix of --load-table, or built through the long-run driver
/// (progress shown, stopped between chunks by SIGINT/SIGTERM) by the planner's choice, or
/// by the octal default back-end for --octal.
fn table_for(args: &Args, octal_rules: Option<&Rules>, limit: Option<Limit>) -> Result<Built> {
    let moves = &args.moves.moves;
    let rules: &dyn Ruleset = match octal_rules {
        Some(r) => r,
        None => moves,
    };
    if let Some(path) = &args.load_table {
        let file = tablefile::read_complete(path, rules, "--load-table")?;
        file.check_usable(rules)
            .map_err(|e| Error::Invalid(format!("--load-table: {e}")))?;
        let limit = limit.map_or(file.limit, Limit::as_u64);
        if limit > file.limit {
            return Err(Error::Invalid(format!(
                "--limit {limit} is above the N = {} of --load-table {}; lower --limit or build a larger table",
                file.limit,
                path.display()
            )));
        }
        let mut values = file.values;
        values.truncate(limit as usize + 1);
        return Ok(Built::Table(Table::from_values(values)));
    }
    let limit = match limit {
        Some(l) => l,
        None => Limit::new(sequence::DEFAULT_LIMIT)?,
    };
    let outcome = if let Some(rules) = octal_rules {
        let plan = OctalPlan::named(rules.clone(), args.backend.as_deref(), limit.as_u64())?;
        let opts = LongRun {
            label: plan.backend.name.to_string(),
            per_position: plan.per_position(),
            ..LongRun::default()
        };
        let fill = plan.chunk_fill();
        longrun::try_run_fill(rules, plan.limit, Start::Fresh, &fill, &opts)?
    } else {
        let plan = Plan::new(&Request {
            moves: moves.clone(),
            limit,
            heaps: 3,
            table: AUTO.into(),
            count: AUTO.into(),
            wisdom: Some(super::common::wisdom()),
        })?;
        let builder = (plan.table.make)();
        let opts = LongRun {
            label: plan.table.name.to_string(),
            resumable: builder.resumable(),
            ..LongRun::default()
        };
        let fill = longrun::kept_fill(&*builder, &plan.moves);
        longrun::try_run_fill(&plan.moves, plan.limit, Start::Fresh, &fill, &opts)?
    };
    Ok(match outcome {
        Outcome::Finished(values) | Outcome::FinishedUnsaved { values, .. } => {
            Built::Table(Table::from_values(values))
        }
        Outcome::Interrupted { signal, .. } => Built::Interrupted {
            // Only a signal stops a run without `stop_after_positions`.
            signal: signal.unwrap_or(Signal::Term),
            building: limit.get(),
        },
    })
}
