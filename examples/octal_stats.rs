//! Prints the rare/common split `octal-sparse` finds for a code at N: the mask, the rare
//! positions, the rare pair steps its cost model counts (`octal::rare_steps`), the time and
//! the nanoseconds per value and per rare pair step.
//! `cargo run --release --example octal_stats -- 0.6 100000`
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(code), Some(n)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: octal_stats CODE N");
        std::process::exit(2);
    };
    let rules = nimsquare::octal::Rules::parse(code).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    let n: usize = n.parse().unwrap_or_else(|_| {
        eprintln!("error: N must be a whole number");
        std::process::exit(2)
    });
    let mut g = vec![0u16; n + 1];
    let start = std::time::Instant::now();
    let s = nimsquare::octal::sparse::run_with_stats(&rules, &mut g, 0).unwrap();
    let seconds = start.elapsed().as_secs_f64();
    let steps = nimsquare::octal::method::rare_common::rare_steps(&rules, &g);
    println!(
        "{code} N={n}: mask {}, rare positions {} of {}, mask choices {}, {seconds:.3} s, \
         rare pair steps {steps:.4e}, {:.1} ns a value, {:.3} ns a rare pair step",
        s.mask,
        s.rare_positions,
        s.positions,
        s.choices,
        seconds * 1e9 / (n as f64 + 1.0),
        seconds * 1e9 / steps.max(1.0)
    );
}
