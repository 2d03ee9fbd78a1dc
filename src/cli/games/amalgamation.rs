//! `nimsquare games amalgamation`: exhaustive Grundy values of amalgamation Nim with
//! restriction for every three-heap position with heaps <= B (and everything reachable from
//! them), compared with the closed formula G = x1 xor x2 xor x3 xor delta(X); the library is
//! [`nimsquare::games::amalgamation`], whose [`check`](amalgamation::check) also decides the exit
//! status.

use crate::cli::args::{count, U32};
use crate::cli::common::{fmt_seconds, CliResult, EXIT_CHECK_FAILED};
use nimsquare::games::amalgamation::{self, Check, Mismatch};
use nimsquare::run::report::{self, Rendered};
use serde_json::json;
use std::io::{self, Write};

/// How many mismatches are listed in full.
const SHOWN_MISMATCHES: usize = 5;

#[derive(clap::Args)]
#[command(
    long_about = "Amalgamation Nim with restriction: three heaps; a move either takes any \
    positive number of stones from one heap, or merges two heaps that each hold at least two \
    stones into one. Computes the Grundy value of every position by exhaustive search and \
    compares it with the closed formula G = x1 xor x2 xor x3 xor delta(X) of \"Amalgamation Nim \
    with restriction\" (Manabe, arXiv:2411.14488), where delta(X) is 1 when the halves \
    u_i = x_i / 2 have one or two disjoint non-zero pairs (u_i > 0, u_j > 0, u_i & u_j = 0) and 0 \
    when they have none or three.\n\n\
    Exit status 0 when the formula holds on every searched position, 1 when it does not (the \
    first mismatches are listed), 2 for bad input."
)]
pub struct Args {
    /// The box bound B (at most 256): the search covers the positions with every heap <= B and
    /// all they reach, i.e. every position with total <= 3B (merges can exceed B); all of them
    /// are checked.
    #[arg(long = "max", value_name = "B", value_parser = count(0, U32).u32(),
          allow_hyphen_values = true)]
    max_heap: u32,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

fn triple(p: (u32, u32, u32)) -> [u32; 3] {
    [p.0, p.1, p.2]
}

pub fn run(args: Args) -> CliResult {
    let max_heap = amalgamation::check_max_heap(args.max_heap)?;
    let check = amalgamation::check(max_heap, amalgamation::formula_4, SHOWN_MISMATCHES)?;
    let passed = check.passed();
    let report = Rendered {
        value: &check,
        text: print_text,
        json: to_json,
    };
    report::print(&report, args.json);
    Ok(if passed { 0 } else { EXIT_CHECK_FAILED })
}

fn to_json(c: &Check) -> serde_json::Value {
    let (cmp, s) = (&c.comparison, &c.summary);
    json!({
        "max_heap": c.table.max_heap(),
        "max_total": c.table.max_total(),
        "positions_checked": cmp.checked,
        "box_positions": s.box_positions,
        "mismatches": cmp.mismatch_count,
        "first_mismatches": cmp.first_mismatches.iter().map(|m: &Mismatch| json!({
            "position": triple(m.position), "searched": m.searched, "formula": m.formula,
        })).collect::<Vec<_>>(),
        "max_value": s.max_value,
        "max_value_at": triple(s.max_at),
        "box_max_value": s.box_max_value,
        "box_max_value_at": triple(s.box_max_at),
        "passed": c.passed(),
        "threads": rayon::current_num_threads(),
        "search_seconds": c.search_seconds,
        "compare_seconds": c.compare_seconds,
    })
}

fn print_text(c: &Check, out: &mut dyn Write) -> io::Result<()> {
    let (cmp, s, b) = (&c.comparison, &c.summary, c.table.max_heap());
    writeln!(out, "amalgamation Nim with restriction, heaps <= {b}")?;
    writeln!(
        out,
        "searched:      {} sorted triples with total <= {} ({} with every heap <= {b})",
        c.table.len(),
        c.table.max_total(),
        s.box_positions
    )?;
    writeln!(
        out,
        "checked:       {} positions against G = x1 xor x2 xor x3 xor delta",
        cmp.checked
    )?;
    writeln!(out, "mismatches:    {}", cmp.mismatch_count)?;
    for m in &cmp.first_mismatches {
        let (a, b, c) = m.position;
        writeln!(
            out,
            "  ({a}, {b}, {c}): search {}, formula {}",
            m.searched, m.formula
        )?;
    }
    writeln!(
        out,
        "largest value: {} at {:?} in the box; {} at {:?} over the search",
        s.box_max_value, s.box_max_at, s.max_value, s.max_at
    )?;
    writeln!(
        out,
        "time:          search {}, compare {} ({} threads)",
        fmt_seconds(c.search_seconds),
        fmt_seconds(c.compare_seconds),
        rayon::current_num_threads()
    )?;
    if c.passed() {
        writeln!(
            out,
            "amalgamation: the closed formula holds on every searched position"
        )?;
    } else {
        writeln!(
            out,
            "amalgamation: FAILED, the closed formula differs from the search"
        )?;
    }
    Ok(())
}
