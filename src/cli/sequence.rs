//! `nimsquare sequence values|cold|first`: an OEIS-style b-file read off a table it builds or
//! loads.

use super::args::{count, limit_parser, MovesArg};
use super::common::CliResult;
use nimsquare::base::error::{Error, Result};
use nimsquare::base::limit::Limit;
use nimsquare::base::moves::Moves;
use nimsquare::base::paths::{decide_output, write_output, Output};
use nimsquare::instruments::sequence::{self, Kind};
use nimsquare::octal::{self, OctalPlan, Rules};
use nimsquare::run::longrun::{
    self, tablefile, LongRun, Outcome, Ruleset, Signal, SignalGuard, Start,
};
use nimsquare::run::planner::{Plan, Request, AUTO};
use nimsquare::table::Table;
use std::path::PathBuf;

/// The limit when neither --limit nor --load-table gives one.
const DEFAULT_SEQUENCE_LIMIT: u64 = 100_000;

#[derive(clap::Args)]
#[command(
    long_about = "Writes one sequence of a subtraction game as an OEIS b-file (`n a(n)` lines, n \
    from 0) on stdout or to --out: `values`, the Grundy values g(0..=N) (OEIS A014586 for the \
    squares); `cold`, the cold positions (g = 0) in increasing order, n their rank from 0 \
    (A030193); `first`, the smallest position of each value 0, 1, 2, ... (A297963), which \
    stops at the first value that does not occur up to N (said on stderr). The table is built \
    with `--table auto` for --moves and --limit, or read from --load-table (a file `solve \
    --save-table` wrote; --limit then takes a prefix of it). With --octal CODE the sequences \
    are the octal game's (built with --backend, by default `octal-block`, or read from a \
    table `octal CODE --save-table` wrote).\n\n\
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
    /// `octal-block`, exact for every code).
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
    /// Write the b-file to FILE instead of stdout (refused if FILE exists).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

fn parse_kind(text: &str) -> std::result::Result<Kind, String> {
    [Kind::Values, Kind::Cold, Kind::First]
        .into_iter()
        .find(|k| k.name() == text.trim())
        .ok_or_else(|| format!("the sequence is one of values, cold, first; got '{text}'"))
}

pub fn run(args: Args) -> CliResult {
    let rules = octal_rules(&args)?;
    // a misspelt back-end, or a limit past what it affords, is refused now, not at the
    // first build (each build's plan states the same refusals)
    if let (Some(rules), Some(limit)) = (&rules, args.limit.filter(|_| args.load_table.is_none())) {
        OctalPlan::new(rules.clone(), args.backend.as_deref(), limit.as_u64())?;
    } else if args.backend.is_some() {
        octal::plan::choose_backend(args.backend.as_deref(), 0)?;
    }
    // Where --out goes, decided now: a new file, `-`, or a FIFO or device written in place;
    // an existing file (through a symlink too) is refused.
    let out = match &args.out {
        Some(path) => decide_output(path, "--out", None)?,
        None => Output::Stdout,
    };
    // From here on SIGINT and SIGTERM set a flag that the table builds and the search read:
    // the run stops between two chunks, prints the terms found so far and says so.
    let _guard = SignalGuard::install()?;
    let (table, mut seq, end) = match terms_for(&args, rules.as_ref())? {
        Found::Table { table, seq, end } => (table, seq, end),
        Found::Interrupted {
            signal,
            building,
            before,
        } => return interrupted(&args, &out, signal, building, before),
    };
    let asked = args.terms.unwrap_or(u64::MAX);
    let note = if (seq.terms.len() as u64) < asked {
        match &end {
            End::Never(why) => Some(format!(
                "{}: only {} terms (asked for {asked}): {why}",
                args.kind.name(),
                seq.terms.len()
            )),
            End::Limit if args.terms.is_some() => Some(format!(
                "{}: only {} terms up to N = {} (asked for {asked}); {}",
                args.kind.name(),
                seq.terms.len(),
                table.limit(),
                if fixed(&args) {
                    "raise --limit for more".to_string()
                } else {
                    format!("the search stops at N = {SEARCH_LIMIT} unless --limit is given; give a larger --limit to search further")
                }
            )),
            End::Limit => None,
        }
    } else {
        seq.terms.truncate(asked as usize);
        seq.missing = None;
        None
    };
    write_terms(&out, &seq.terms)?;
    if let Some(note) = note {
        eprintln!("{note}");
    }
    if let (Some(missing), End::Limit) = (seq.missing, &end) {
        eprintln!(
            "first: value {missing} does not occur up to N = {}; the file ends at a({})",
            table.limit(),
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
            write_terms(out, &seq.terms)?;
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

/// Writes the b-file of `terms` where --out was decided to go (a closed pipe on stdout ends
/// the process by SIGPIPE, see main.rs; any other write error is reported).
fn write_terms(out: &Output, terms: &[u64]) -> Result<()> {
    write_output(out, "--out", |mut w| sequence::write_bfile(&mut w, terms))
}

/// The largest N the search for --terms K goes to when neither --limit nor --load-table
/// gives N: g(0..=10^8) of the squares takes minutes, and a sequence whose next term lies
/// past it (or never comes, where no period proves so) should not run for hours unasked.
const SEARCH_LIMIT: u64 = 100_000_000;

/// Why a sequence ends where it does.
enum End {
    /// At N: a larger table may hold more terms.
    Limit,
    /// For good: a proved period shows no later term exists (the reason, one sentence).
    Never(String),
}

/// What [`terms_for`] found.
enum Found {
    /// The table the sequence was read from, the sequence, and why it ends there.
    Table {
        table: Table,
        seq: sequence::Terms,
        end: End,
    },
    /// A signal stopped the build of g(0..=`building`); `before` is the last table the search
    /// finished, with its sequence.
    Interrupted {
        signal: Signal,
        building: usize,
        before: Option<(Table, sequence::Terms)>,
    },
}

/// True when --limit or --load-table fixes N.
fn fixed(args: &Args) -> bool {
    args.limit.is_some() || args.load_table.is_some()
}

/// The table and its sequence: for --limit (or --load-table, or the default N), or, with
/// --terms K and neither of those, for an N that holds K terms: doubled from 100000 up to
/// [`SEARCH_LIMIT`], a line on stderr for each doubling, and stopped early when a proved
/// period shows the sequence has no further term.
fn terms_for(args: &Args, rules: Option<&Rules>) -> Result<Found> {
    let fixed = fixed(args);
    let mut limit = match (args.terms, args.kind, fixed) {
        (Some(k), Kind::Values, false) => Some(Limit::new(k - 1)?),
        _ => args.limit,
    };
    let mut before = None;
    loop {
        let table = match table_for(args, rules, limit)? {
            Built::Table(table) => table,
            Built::Interrupted { signal, building } => {
                return Ok(Found::Interrupted {
                    signal,
                    building,
                    before,
                })
            }
        };
        let seq = sequence::terms(args.kind, &table);
        let n = table.limit() as u64;
        let short = args.terms.is_some_and(|k| (seq.terms.len() as u64) < k);
        if fixed || !short || n >= SEARCH_LIMIT {
            return Ok(Found::Table {
                table,
                seq,
                end: End::Limit,
            });
        }
        if let Some(why) = never_more(args.kind, rules, &args.moves.moves, &table, &seq) {
            return Ok(Found::Table {
                table,
                seq,
                end: End::Never(why),
            });
        }
        let next = n
            .saturating_mul(2)
            .clamp(DEFAULT_SEQUENCE_LIMIT, SEARCH_LIMIT);
        eprintln!(
            "{}: {} of {} terms up to N = {n}; searching up to N = {next}",
            args.kind.name(),
            seq.terms.len(),
            args.terms.unwrap_or(0)
        );
        if let Some(signal) = nimsquare::run::longrun::interrupted() {
            return Ok(Found::Interrupted {
                signal,
                building: next as usize,
                before: Some((table, seq)),
            });
        }
        before = Some((table, seq));
        limit = Some(Limit::new(next)?);
    }
}

/// The preperiod e and period p of g, when the table proves them: an octal game's by the
/// Guy–Smith theorem ([`nimsquare::octal::method::period`]), a finite subtraction set's by a repeated
/// window of its largest move's length (g(n) depends only on the window before n).
fn proved_period(rules: Option<&Rules>, moves: &Moves, g: &[u16]) -> Option<(usize, usize)> {
    match rules {
        Some(rules) => match octal::method::period::find(rules, g) {
            octal::method::period::Verdict::Periodic(p) => Some((p.preperiod, p.period)),
            _ => None,
        },
        None => {
            let Moves::List(list) = moves else {
                return None;
            };
            let window = usize::try_from(*list.last()?).ok()?;
            // The window index takes about 32 bytes a position: a prefix of the table, as
            // `games subtraction` bounds its own search.
            let prefix = &g[..g
                .len()
                .min(nimsquare::games::subtraction::MAX_PERIOD_SEARCH)];
            let (m, j) = nimsquare::games::subtraction::first_repeated_window(prefix, window)?;
            Some((m, j - m))
        }
    }
}

/// Why the sequence `seq` of `table` has no term beyond those it holds, if a proved period
/// shows it: every value occurs in g(0..e + p), within the table, so `first` has all its
/// terms; `cold` has when no value of the period is 0.
fn never_more(
    kind: Kind,
    rules: Option<&Rules>,
    moves: &Moves,
    table: &Table,
    seq: &sequence::Terms,
) -> Option<String> {
    let g = table.values();
    let (e, p) = proved_period(rules, moves, g)?;
    let game = match rules {
        Some(r) => format!("octal game {}", r.label()),
        None => format!("the subtraction game {}", moves.label()),
    };
    let periodic = format!(
        "{game} is periodic with period {p} from n = {e} (proved from g(0..={}))",
        table.limit()
    );
    match kind {
        Kind::First => {
            let missing = seq.missing?;
            Some(format!(
                "value {missing} never occurs: {periodic}, so every value it takes occurs in g(0..{}), and {missing} does not",
                e + p
            ))
        }
        Kind::Cold if !g[e..e + p].contains(&0) => Some(format!(
            "no position past {} has value 0: {periodic}, and no value of the period is 0",
            seq.terms.last()?
        )),
        _ => None,
    }
}

/// A table, or the signal that stopped its build.
enum Built {
    Table(Table),
    Interrupted { signal: Signal, building: usize },
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
        None => Limit::new(DEFAULT_SEQUENCE_LIMIT)?,
    };
    let outcome = if let Some(rules) = octal_rules {
        let plan = OctalPlan::new(rules.clone(), args.backend.as_deref(), limit.as_u64())?;
        let opts = LongRun {
            label: plan.entry.name.to_string(),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cold_ends_for_good_only_when_the_period_holds_no_zero() {
        // 0 at n = 0 only, then 1 2 1 2 ...: with t = 2 (0.07) the period 2 from n = 1 is
        // proved, and no later position is cold.
        let rules = Rules::parse("0.07").unwrap();
        let mut g = vec![0u16];
        g.extend((1..200).map(|n| 1 + (n % 2) as u16));
        let table = Table::from_values(g.clone());
        let seq = sequence::terms(Kind::Cold, &table);
        assert_eq!(seq.terms, [0]);
        let why = never_more(Kind::Cold, Some(&rules), &Moves::Squares, &table, &seq).unwrap();
        assert!(
            why.starts_with("no position past 0 has value 0: octal game 0.07 is periodic with period 2 from n = 1"),
            "{why}"
        );
        // A 0 in the period (0 1 0 1 ..., proved from n = 0): cold positions go on, no end
        // is claimed.
        let g: Vec<u16> = (0..200).map(|n| (n % 2) as u16).collect();
        assert_eq!(
            proved_period(Some(&rules), &Moves::Squares, &g),
            Some((0, 2))
        );
        let table = Table::from_values(g);
        let seq = sequence::terms(Kind::Cold, &table);
        assert_eq!(
            never_more(Kind::Cold, Some(&rules), &Moves::Squares, &table, &seq),
            None
        );
        // Values never end.
        let seq = sequence::terms(Kind::Values, &table);
        assert_eq!(
            never_more(Kind::Values, Some(&rules), &Moves::Squares, &table, &seq),
            None
        );
    }
}
