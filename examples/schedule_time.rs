//! Times the parallel table back-ends under other super-block schedules than the default, in
//! rotating rounds, to decide whether the schedule is worth tuning (issue 17: tuned where it
//! changes the time by 5% or more).
//!
//! `cargo run --release --example schedule_time -- N TABLE ROUNDS SCHEDULE...` with TABLE
//! `stamped-parallel` or `bitset-parallel` and each SCHEDULE either `default` or
//! `BASE/G1/G2/G3` (the first super-block size, then the positions from which it doubles;
//! `-` for never). The default schedule is always timed, first in the first round. Each round
//! builds the table once per schedule, in an order rotated by one from round to round; every
//! table is checked equal to the default's. One line per schedule: its median seconds and the
//! median and range over rounds of its time divided by the default's in the same round. The
//! thread count comes from `RAYON_NUM_THREADS` (rayon's default: one per core).

use nimsquare::base::moves::Moves;
use nimsquare::base::stats::median;
use nimsquare::grundy::Builder;
use nimsquare::table::bitset_parallel::BitsetParallel;
use nimsquare::table::stamped_parallel::StampedParallel;
use nimsquare::table::Schedule;
use std::time::Instant;

fn parse_schedule(spec: &str) -> Schedule {
    if spec == "default" {
        return Schedule::default();
    }
    let parts: Vec<&str> = spec.split('/').collect();
    assert_eq!(parts.len(), 4, "a schedule is BASE/G1/G2/G3, got {spec}");
    let number = |s: &str| -> usize {
        if s == "-" {
            usize::MAX
        } else {
            s.parse::<f64>().expect("a number") as usize
        }
    };
    Schedule {
        base: number(parts[0]),
        grow_at: [number(parts[1]), number(parts[2]), number(parts[3])],
    }
}

fn builder(table: &str, schedule: Schedule) -> Box<dyn Builder<Moves>> {
    match table {
        "stamped-parallel" => Box::new(StampedParallel { schedule }),
        "bitset-parallel" => Box::new(BitsetParallel { schedule }),
        other => panic!("TABLE is stamped-parallel or bitset-parallel, got {other}"),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    assert!(
        args.len() >= 3,
        "usage: schedule_time N TABLE ROUNDS SCHEDULE..."
    );
    let limit = args[0].parse::<f64>().expect("N is a number") as usize;
    let table = args[1].as_str();
    let rounds: usize = args[2].parse().expect("ROUNDS is a whole number");
    let mut specs = vec!["default".to_string()];
    specs.extend(args[3..].iter().filter(|s| *s != "default").cloned());
    let builders: Vec<_> = specs
        .iter()
        .map(|s| builder(table, parse_schedule(s)))
        .collect();
    let moves = Moves::Squares;
    let reference = builders[0].build(&moves, limit).unwrap();
    let mut times = vec![Vec::new(); specs.len()];
    for round in 0..rounds {
        for k in 0..specs.len() {
            let j = (k + round) % specs.len();
            let start = Instant::now();
            let t = builders[j].build(&moves, limit).unwrap();
            times[j].push(start.elapsed().as_secs_f64());
            assert!(
                t.values() == reference.values(),
                "schedule {} built another table",
                specs[j]
            );
        }
    }
    for (spec, ts) in specs.iter().zip(&times) {
        let ratios: Vec<f64> = ts.iter().zip(&times[0]).map(|(t, d)| t / d).collect();
        let lo = ratios.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = ratios.iter().copied().fold(0.0, f64::max);
        println!(
            "n={limit} table={table} threads={} schedule={spec} rounds={rounds} median_s={:.4} \
             ratio_to_default_median={:.3} ratio_range={lo:.3}-{hi:.3}",
            rayon::current_num_threads(),
            median(ts),
            median(&ratios),
        );
    }
}
