//! `nimsquare sequence values|cold|first`: an OEIS-style b-file read off a table it builds or
//! loads.

use super::args::{count, limit_parser, MovesArg};
use super::common::CliResult;
use nimsquare::base::error::{Error, Result};
use nimsquare::base::limit::Limit;
use nimsquare::instruments::sequence::{self, Kind};
use nimsquare::octal::{self, Rules};
use nimsquare::run::longrun::{build_shown, tablefile, Ruleset};
use nimsquare::run::planner::{Plan, Request, AUTO};
use nimsquare::table::Table;
use std::io::Write;
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
    are the octal game's (built with the octal stage's reference back-end, or read from a \
    table `octal CODE --save-table` wrote).\n\n\
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
    /// Read the table from FILE instead of building it (same moves or octal code, complete).
    #[arg(long, value_name = "FILE")]
    load_table: Option<PathBuf>,
    /// Write only the first K terms, a(0..K-1). Without --limit or --load-table, N is chosen
    /// to hold them (K - 1 for values; for cold and first, doubled from 100000 until the
    /// table holds K terms, at most 4294967295); with either, a table holding fewer ends the
    /// file early and says so on stderr.
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
    octal_rules(&args)?;
    if let Some(out) = &args.out {
        tablefile::check_absent(out, "--out")?;
        super::args::check_output_path(out, "--out")?;
    }
    let (table, mut seq) = terms_for(&args)?;
    if let Some(k) = args.terms {
        if (seq.terms.len() as u64) < k {
            eprintln!(
                "{}: only {} terms up to N = {} (asked for {k}); raise --limit for more",
                args.kind.name(),
                seq.terms.len(),
                table.limit()
            );
        } else {
            seq.terms.truncate(k as usize);
            seq.missing = None;
        }
    }
    match &args.out {
        Some(path) => {
            let mut file = std::io::BufWriter::new(
                std::fs::File::create(path)
                    .map_err(|e| Error::Invalid(format!("--out {}: {e}", path.display())))?,
            );
            sequence::write_bfile(&mut file, &seq.terms)
                .and_then(|()| file.flush())
                .map_err(|e| Error::Invalid(format!("--out {}: {e}", path.display())))?;
        }
        None => {
            let stdout = std::io::stdout();
            let mut lock = std::io::BufWriter::new(stdout.lock());
            // A closed pipe ends the process by SIGPIPE (see main.rs); any other write error
            // is reported.
            sequence::write_bfile(&mut lock, &seq.terms)
                .and_then(|()| lock.flush())
                .map_err(|e| Error::Invalid(format!("writing to stdout: {e}")))?;
        }
    }
    if let Some(missing) = seq.missing {
        eprintln!(
            "first: value {missing} does not occur up to N = {}; the file ends at a({})",
            table.limit(),
            missing.saturating_sub(1)
        );
    }
    Ok(0)
}

/// The table and its sequence: for --limit (or --load-table, or the default N), or, with
/// --terms K and neither of those, for an N that holds K terms.
fn terms_for(args: &Args) -> Result<(Table, sequence::Terms)> {
    let fixed = args.limit.is_some() || args.load_table.is_some();
    let mut limit = match (args.terms, args.kind, fixed) {
        (Some(k), Kind::Values, false) => Some(Limit::new(k - 1)?),
        _ => args.limit,
    };
    loop {
        let table = table_for(args, limit)?;
        let seq = sequence::terms(args.kind, &table);
        let n = table.limit() as u64;
        let short = args.terms.is_some_and(|k| (seq.terms.len() as u64) < k);
        if fixed || !short || n >= nimsquare::base::limit::MAX_LIMIT {
            return Ok((table, seq));
        }
        limit = Some(Limit::new(
            n.saturating_mul(2)
                .clamp(DEFAULT_SEQUENCE_LIMIT, nimsquare::base::limit::MAX_LIMIT),
        )?);
    }
}

/// The octal game of --octal, if given (refused naming the flag when malformed).
fn octal_rules(args: &Args) -> Result<Option<Rules>> {
    args.octal
        .as_deref()
        .map(Rules::parse)
        .transpose()
        .map_err(|e| Error::Invalid(format!("--octal: {e}")))
}

/// The table up to `limit`: a prefix of --load-table, or built by the planner's choice (by
/// the octal stage's reference back-end for --octal).
fn table_for(args: &Args, limit: Option<Limit>) -> Result<Table> {
    let moves = &args.moves.moves;
    let octal_rules = octal_rules(args)?;
    let rules: &dyn Ruleset = match &octal_rules {
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
        return Ok(Table::from_values(values));
    }
    let limit = match limit {
        Some(l) => l,
        None => Limit::new(DEFAULT_SEQUENCE_LIMIT)?,
    };
    if let Some(rules) = &octal_rules {
        let entry = super::octal::backend_for(None, limit.get())?;
        return octal::build(entry.name, rules, limit.as_u64());
    }
    let plan = Plan::new(&Request {
        moves: moves.clone(),
        limit,
        heaps: 3,
        table: AUTO.into(),
        count: AUTO.into(),
        wisdom: Some(super::common::wisdom()),
    })?;
    let builder = (plan.table.make)();
    Ok(build_shown(
        &*builder,
        plan.table.name,
        &plan.moves,
        plan.limit,
    ))
}
