//! Times the `sieve` cold-set back-end once: wall time, cold count and peak memory.
//!
//! `cargo run --release --example sieve_time -- N [WINDOW_BYTES]`; the thread count comes
//! from `RAYON_NUM_THREADS` (rayon's default: one per core). Used for `results/sequences/sieve.md`.

use nimsquare::base::memory::{human, peak_rss_bytes};
use nimsquare::base::moves::Moves;
use nimsquare::cold::{ColdFinder, Sieve, DEFAULT_WINDOW};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize, default: u64| args.get(i).map_or(default, |a| a.parse().unwrap());
    let limit = number(0, 100_000_000) as usize;
    let window = number(1, DEFAULT_WINDOW as u64) as usize;
    let sieve = Sieve::with_window(window);
    let start = Instant::now();
    let set = sieve.cold(&Moves::Squares, limit);
    let seconds = start.elapsed().as_secs_f64();
    let peak = peak_rss_bytes().map_or("unknown".into(), human);
    println!(
        "N={limit} window={window} threads={} cold={} seconds={seconds:.3} peak_rss={peak}",
        rayon::current_num_threads(),
        set.count()
    );
}
