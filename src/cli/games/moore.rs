//! `nimsquare games moore`: the win/lose census of bounded Moore's Nim with m = 1 (a move
//! takes one counter from each of 1..K heaps) and its parity tests; the library is
//! [`nimsquare::games::moore`]. Parse, solve, then render as text or JSON.

use crate::cli::args::{count, U32};
use crate::cli::common::{fmt_seconds, CliResult};
use nimsquare::games::moore::{self, Census, MooreParams, MAX_POSITIONS};
use nimsquare::run::report;
use serde_json::json;
use std::io::{self, Write};
use std::time::Instant;

#[derive(clap::Args)]
#[command(
    long_about = "Bounded Moore's Nim with m = 1: H heaps, a move takes exactly one counter from \
    each of between 1 and K non-empty heaps; the player who cannot move loses. Decides every \
    position with every heap <= M and reports the census: losing positions, the classes by \
    number of odd heaps (settled when all or none of a class is lost), and whether the parities \
    of the heaps sorted largest first (the sorted-parity word) decide the outcome and form a \
    linear subspace of GF(2)^H.\n\n\
    The work is C(M + H, H) positions; any H up to 16 and any M are accepted while that stays \
    within 10^7 positions."
)]
pub struct Args {
    /// H, the number of heaps (1 to 16).
    #[arg(long, value_name = "H", value_parser = count(0, U32).usize(), allow_hyphen_values = true)]
    heaps: usize,
    /// M, the largest heap size (any, while C(M + H, H) <= 10^7 positions).
    #[arg(long = "max", value_name = "M", value_parser = count(0, U32).u32(),
          allow_hyphen_values = true)]
    max_heap: u32,
    /// K, the most heaps a move takes one counter from (1 to H).
    #[arg(long, value_name = "K", value_parser = count(0, U32).usize(), allow_hyphen_values = true)]
    width: usize,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// The outcome of one census run, ready to render.
struct Report {
    params: MooreParams,
    census: Census,
    seconds: f64,
}

const _: () = assert!(MAX_POSITIONS == 10_000_000, "the help text says 10^7");

pub fn run(args: Args) -> CliResult {
    let params = MooreParams::new(args.heaps, args.max_heap, args.width)?;
    let start = Instant::now();
    let solution = moore::solve(params);
    let seconds = start.elapsed().as_secs_f64();
    let report = Report {
        params,
        census: moore::census(&solution),
        seconds,
    };
    report::print(&report, args.json);
    Ok(0)
}

fn words(ws: &[u32], h: usize) -> Vec<String> {
    ws.iter().map(|&w| moore::word_string(w, h)).collect()
}

/// The settled classes and how many positions they hold.
fn settled(census: &Census) -> (usize, u64) {
    let s = census.classes.iter().filter(|c| c.settled);
    (s.clone().count(), s.map(|c| c.positions).sum())
}

impl report::Report for Report {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        print_text(self, out)
    }

    fn json(&self) -> serde_json::Value {
        to_json(self)
    }
}

fn to_json(r: &Report) -> serde_json::Value {
    let (c, h) = (&r.census, r.params.heaps());
    let (settled_classes, settled_positions) = settled(c);
    json!({
        "heaps": h,
        "max": r.params.max(),
        "width": r.params.width(),
        "positions": c.positions,
        "losing": c.losing,
        "classes": c.classes.iter().map(|c| json!({
            "odd": c.odd, "positions": c.positions, "losing": c.losing, "settled": c.settled,
        })).collect::<Vec<_>>(),
        "settled_classes": settled_classes,
        "settled_positions": settled_positions,
        "sorted_parity_decides": c.sorted_parity_decides,
        "losing_words": words(&c.losing_words, h),
        "mixed_words": words(&c.mixed_words, h),
        "subspace": c.subspace,
        "words_occurring": c.words_occurring,
        "subspace_within_occurring": c.subspace_within_occurring,
        "threads": rayon::current_num_threads(),
        "seconds": r.seconds,
    })
}

fn print_text(r: &Report, out: &mut dyn Write) -> io::Result<()> {
    let (c, p) = (&r.census, r.params);
    writeln!(
        out,
        "bounded Moore's Nim with m = 1 (a move takes exactly m = 1 counter from each heap it \
         touches): {} heaps <= {}, a move touches 1..{} non-empty heaps",
        p.heaps(),
        p.max(),
        p.width()
    )?;
    writeln!(out, "positions: {}", c.positions)?;
    writeln!(out, "losing:    {}", c.losing)?;
    writeln!(
        out,
        "{:>4} {:>10} {:>10}  settled",
        "odd", "positions", "losing"
    )?;
    for k in &c.classes {
        let yes = if k.settled { "yes" } else { "no" };
        writeln!(
            out,
            "{:>4} {:>10} {:>10}  {yes}",
            k.odd, k.positions, k.losing
        )?;
    }
    let (classes, positions) = settled(c);
    writeln!(
        out,
        "settled:   {classes} of {} classes, {positions} positions",
        c.classes.len()
    )?;
    print_words(c, p.heaps());
    writeln!(
        out,
        "time:      {} ({} threads)",
        fmt_seconds(r.seconds),
        rayon::current_num_threads()
    )?;
    Ok(())
}

/// The sorted-parity lines of the text report.
fn print_words(c: &Census, h: usize) {
    let decides = if c.sorted_parity_decides {
        "yes".to_string()
    } else {
        let n = c.mixed_words.len();
        format!("no (words holding both wins and losses: {n})")
    };
    println!("sorted-parity word (largest heap first) decides the outcome: {decides}");
    println!(
        "losing words ({}, every position with the word lost): {}",
        c.losing_words.len(),
        words(&c.losing_words, h).join(" ")
    );
    let subspace = if c.subspace {
        "yes".to_string()
    } else {
        let exactly = if c.subspace_within_occurring {
            "exactly the losing words"
        } else {
            "not exactly the losing words"
        };
        format!(
            "no; {} of {} words occur, and the occurring words of their span are {exactly}",
            c.words_occurring,
            1u64 << h
        )
    };
    println!("losing words form a subspace of GF(2)^{h}: {subspace}");
}
