//! `nimsquare games moore`: the win/lose census of bounded Moore's Nim with m = 1 and its
//! parity tests (seed `004_4dbc46da170626d6.txt`).

use crate::cli::{fmt_seconds, CliResult};
use crate::games::moore::{self, MooreParams};
use serde_json::json;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// H, the number of heaps (1 to 8).
    #[arg(long, value_name = "H", allow_hyphen_values = true)]
    heaps: usize,
    /// M, the largest heap size (at most 15).
    #[arg(long = "max", value_name = "M", allow_hyphen_values = true)]
    max_heap: u32,
    /// K, the most heaps a move takes one counter from (1 to H).
    #[arg(long, value_name = "K", allow_hyphen_values = true)]
    width: usize,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> CliResult {
    let params = MooreParams::new(args.heaps, args.max_heap, args.width)?;
    let start = Instant::now();
    let solution = moore::solve(params);
    let solve_seconds = start.elapsed().as_secs_f64();
    let census = moore::census(&solution);
    let h = params.heaps();
    let words =
        |ws: &[u32]| -> Vec<String> { ws.iter().map(|&w| moore::word_string(w, h)).collect() };
    let settled: Vec<_> = census.classes.iter().filter(|c| c.settled).collect();
    let settled_positions: u64 = settled.iter().map(|c| c.positions).sum();
    if args.json {
        let out = json!({
            "heaps": h,
            "max": params.max(),
            "width": params.width(),
            "positions": census.positions,
            "losing": census.losing,
            "classes": census.classes.iter().map(|c| json!({
                "odd": c.odd, "positions": c.positions, "losing": c.losing, "settled": c.settled,
            })).collect::<Vec<_>>(),
            "settled_classes": settled.len(),
            "settled_positions": settled_positions,
            "sorted_parity_decides": census.sorted_parity_decides,
            "losing_words": words(&census.losing_words),
            "mixed_words": words(&census.mixed_words),
            "subspace": census.subspace,
            "words_occurring": census.words_occurring,
            "subspace_within_occurring": census.subspace_within_occurring,
            "threads": rayon::current_num_threads(),
            "seconds": solve_seconds,
        });
        println!("{out}");
    } else {
        println!(
            "bounded Moore's Nim (seed 004, m = 1): {h} heaps <= {}, a move takes one counter \
             from each of 1..{} non-empty heaps",
            params.max(),
            params.width()
        );
        println!("positions: {}", census.positions);
        println!("losing:    {}", census.losing);
        println!("{:>4} {:>10} {:>10}  settled", "odd", "positions", "losing");
        for c in &census.classes {
            println!(
                "{:>4} {:>10} {:>10}  {}",
                c.odd,
                c.positions,
                c.losing,
                if c.settled { "yes" } else { "no" }
            );
        }
        println!(
            "settled:   {} of {} classes, {} positions",
            settled.len(),
            census.classes.len(),
            settled_positions
        );
        println!(
            "sorted-parity word (largest heap first) decides the outcome: {}",
            if census.sorted_parity_decides {
                "yes".to_string()
            } else {
                format!(
                    "no (words holding both wins and losses: {})",
                    census.mixed_words.len()
                )
            }
        );
        println!(
            "losing words ({}, every position with the word lost): {}",
            census.losing_words.len(),
            words(&census.losing_words).join(" ")
        );
        println!(
            "losing words form a subspace of GF(2)^{h}: {}",
            if census.subspace {
                "yes".to_string()
            } else {
                format!(
                    "no; {} of {} words occur, and the occurring words of their span are {}",
                    census.words_occurring,
                    1 << h,
                    if census.subspace_within_occurring {
                        "exactly the losing words"
                    } else {
                        "not exactly the losing words"
                    }
                )
            }
        );
        println!(
            "time:      {} ({} threads)",
            fmt_seconds(solve_seconds),
            rayon::current_num_threads()
        );
    }
    Ok(0)
}
