//! `nimsquare sequence values|cold|first`: an OEIS-style b-file read off a table it builds or
//! loads.

use super::args::MovesArg;
use super::{parse_limit, CliResult};
use nimsquare::base::error::{Error, Result};
use nimsquare::base::limit::Limit;
use nimsquare::instruments::longrun::{build_shown, tablefile};
use nimsquare::instruments::planner::{Plan, Request, AUTO};
use nimsquare::instruments::sequence::{self, Kind};
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
    --save-table` wrote; --limit then takes a prefix of it).\n\n\
    Example: nimsquare sequence first --limit 1e6 > b297963.txt"
)]
pub struct Args {
    /// Which sequence: values, cold or first.
    #[arg(value_name = "SEQUENCE", value_parser = parse_kind)]
    kind: Kind,
    /// The largest position N (default 100000, or the loaded table's N).
    #[arg(long, short = 'n', value_name = "N", value_parser = parse_limit,
          allow_hyphen_values = true)]
    limit: Option<Limit>,
    #[command(flatten)]
    moves: MovesArg,
    /// Read the table from FILE instead of building it (same moves, complete).
    #[arg(long, value_name = "FILE")]
    load_table: Option<PathBuf>,
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
    if let Some(out) = &args.out {
        tablefile::check_absent(out, "--out")?;
        super::args::check_output_path(out, "--out")?;
    }
    let table = table_for(&args)?;
    let seq = sequence::terms(args.kind, &table);
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

/// The table up to --limit: a prefix of --load-table, or built by the planner's choice.
fn table_for(args: &Args) -> Result<Table> {
    let moves = &args.moves.moves;
    if let Some(path) = &args.load_table {
        let file = tablefile::read_complete(path, moves, "--load-table")?;
        let limit = args.limit.map_or(file.limit, Limit::as_u64);
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
    let limit = match args.limit {
        Some(l) => l,
        None => Limit::new(DEFAULT_SEQUENCE_LIMIT)?,
    };
    let plan = Plan::new(&Request {
        moves: moves.clone(),
        limit,
        heaps: 3,
        table: AUTO.into(),
        count: AUTO.into(),
        wisdom: Some(super::wisdom()),
    })?;
    let builder = (plan.table.make)();
    Ok(build_shown(
        &*builder,
        plan.table.name,
        &plan.moves,
        plan.limit,
    ))
}
