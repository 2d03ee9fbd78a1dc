//! The roofline: the bound arithmetic on made-up rates, a cost model for every registered
//! table and count back-end, `nimsquare roofline` end to end (text and `--json`: rounds,
//! spreads, rows printed as they finish), its refusals, and the roofline columns of `scale`'s
//! CSV. No assertion is on a speed: the numbers depend on the machine, only their form and
//! their arithmetic are checked (the streaming test leans only on the primitives' fixed
//! 60 ms timings).

mod common;

use common::{assert_refused, json_of, stdout_of};
use nimsquare::instruments::roofline::{
    bound, efficiency, Demand, Primitive, Rates, Resource, Workload,
};
use nimsquare::instruments::scaling::read_rows;
use nimsquare::registry;
use nimsquare::{count, table};

/// Rates made up for the arithmetic: ns per op in `Primitive::ALL` order (scatter, span,
/// stream, or-scan, mul-add).
fn made_up_rates() -> Rates {
    Rates::new(1, [0.5, 4.0, 0.1, 0.25, 0.2])
}

/// The workload of N = 10^6 for the squares: S = sum over k <= 1000 of (10^6 - k^2 + 1) =
/// 666 167 500 steps (computed outside the crate), G = 169 values, a mean value of 40.
fn workload() -> Workload {
    Workload {
        limit: 1_000_000,
        steps: 666_167_500.0,
        alphabet: 169,
        mean_value: 40.0,
        threads: 2,
        rare_steps: 0.0,
    }
}

#[test]
fn the_bound_is_the_busiest_resource_and_names_it() {
    // store: 100 x 0.5 = 50 ns; load: 10 x 4 = 40 ns; bandwidth: 300 x 0.1 = 30 ns;
    // alu: 80 x 0.25 + 100 x 0.2 = 40 ns.
    let d = Demand::default()
        .with(Primitive::Scatter, 100.0)
        .with(Primitive::Span, 10.0)
        .with(Primitive::Stream, 300.0)
        .with(Primitive::OrScan, 80.0)
        .with(Primitive::MulAdd, 100.0);
    let b = bound(&d, &made_up_rates());
    assert_eq!(b.resource, Resource::Store);
    assert!((b.seconds - 50e-9).abs() < 1e-18, "{b:?}");
    let want = [50e-9, 40e-9, 30e-9, 40e-9];
    for (got, want) in b.per_resource.iter().zip(want) {
        assert!((got - want).abs() < 1e-18, "{b:?}");
    }
    // Doubling the multiply-adds moves the bound to the ALU: 20 + 40 = 60 ns.
    let b = bound(&d.with(Primitive::MulAdd, 100.0), &made_up_rates());
    assert_eq!(b.resource, Resource::Alu);
    assert!((b.seconds - 60e-9).abs() < 1e-18, "{b:?}");
    // Spans alone: the load resource, 3 x 4 ns.
    let b = bound(
        &Demand::default().with(Primitive::Span, 3.0),
        &made_up_rates(),
    );
    assert_eq!((b.resource, b.resource.name()), (Resource::Load, "load"));
    assert!((b.seconds - 12e-9).abs() < 1e-18);
}

#[test]
fn efficiency_is_bound_over_measured() {
    assert_eq!(efficiency(1.0, 4.0), 0.25);
    assert_eq!(efficiency(3.0, 2.0), 1.5);
    assert!(efficiency(1.0, 0.0).is_nan());
}

/// Every table and count back-end in the registries declares a model that counts something
/// and gives a finite positive bound; a new back-end without one fails here.
#[test]
fn every_registered_backend_has_a_cost_model() {
    let w = workload();
    let check = |stage: &str, name: &str, model: &nimsquare::instruments::roofline::Model| {
        assert!(
            !model.counts_nothing(&w),
            "{stage} '{name}' has no cost model"
        );
        assert!(!model.summary.is_empty(), "{stage} '{name}': empty summary");
        let b = bound(&(model.demand)(&w), &made_up_rates());
        assert!(
            b.seconds.is_finite() && b.seconds > 0.0,
            "{stage} '{name}': {b:?}"
        );
    };
    for e in table::BACKENDS {
        check("table", e.name, &e.model);
        // Every table back-end does at least one op per option step.
        let d = (e.model.demand)(&w);
        let ops: f64 = d.ops.iter().sum();
        assert!(
            ops >= w.steps,
            "table '{}': {ops} ops for {} steps",
            e.name,
            w.steps
        );
    }
    for e in count::BACKENDS {
        check("count", e.name, &e.model);
    }
}

#[test]
fn the_parallel_backends_declare_it() {
    let parallel = |entries: Vec<(&str, bool)>, name: &str| {
        entries
            .into_iter()
            .find(|(n, _)| *n == name)
            .map(|(_, p)| p)
    };
    let tables: Vec<(&str, bool)> = table::BACKENDS
        .iter()
        .map(|e| (e.name, e.model.parallel))
        .collect();
    let counts: Vec<(&str, bool)> = count::BACKENDS
        .iter()
        .map(|e| (e.name, e.model.parallel))
        .collect();
    assert_eq!(parallel(tables.clone(), "stamped-parallel"), Some(true));
    assert_eq!(parallel(tables, "stamped-lanes"), Some(false));
    assert_eq!(parallel(counts.clone(), "rayon-sweep"), Some(true));
    assert_eq!(parallel(counts, "sweep"), Some(false));
}

#[test]
fn the_sweep_model_counts_g_multiply_adds_per_position() {
    // N = 99: 100 positions; G = 10 rounds up to 12 (blocks of four): 1200 multiply-adds.
    let w = Workload {
        limit: 99,
        steps: 1.0,
        alphabet: 10,
        mean_value: 2.0,
        threads: 1,
        rare_steps: 0.0,
    };
    let sweep = count::find("sweep").unwrap();
    assert_eq!((sweep.model.demand)(&w).of(Primitive::MulAdd), 1200.0);
    // stamped-lanes: one scattered store per option step.
    let w = workload();
    let lanes = table::find("stamped-lanes").unwrap();
    assert_eq!((lanes.model.demand)(&w).of(Primitive::Scatter), w.steps);
}

#[test]
fn roofline_json_has_every_fast_backend_with_a_bound_per_round() {
    let v = json_of(["roofline", "--limit", "3000", "--repeat", "2", "--json"]);
    assert_eq!(v["limit"], 3000);
    assert_eq!(v["rounds"], 2);
    assert_eq!(v["isa"], nimsquare::base::isa::active().name());
    let backends = v["backends"].as_array().unwrap();
    let expected = registry::fast(table::BACKENDS)
        .map(|e| ("table", e.name))
        .chain(registry::fast(count::BACKENDS).map(|e| ("count", e.name)));
    let f = |x: &serde_json::Value| x.as_f64().unwrap_or(f64::NAN);
    let fs = |x: &serde_json::Value| -> Vec<f64> { x.as_array().unwrap().iter().map(f).collect() };
    for (stage, name) in expected {
        let b = backends
            .iter()
            .find(|b| b["stage"] == stage && b["backend"] == name)
            .unwrap_or_else(|| panic!("{stage} '{name}' missing from {v}"));
        assert_eq!(b["rounds"], 2, "{name}");
        for key in ["bound_ns_per_unit", "measured_ns_per_unit", "efficiency"] {
            let (x, lo, hi) = (
                f(&b[key]),
                f(&b[format!("{key}_min")]),
                f(&b[format!("{key}_max")]),
            );
            assert!(x.is_finite() && x > 0.0, "{name}: {key} = {}", b[key]);
            assert!(lo <= x && x <= hi, "{name}: {key} {lo} {x} {hi}");
        }
        // Efficiency is taken per round, each round's bound over the same round's time,
        // and the reported one is their median (of two: the mean).
        let measured = fs(&b["measured_seconds_per_round"]);
        let bounds = fs(&b["bound_seconds_per_round"]);
        let effs = fs(&b["efficiency_per_round"]);
        assert_eq!(
            (measured.len(), bounds.len(), effs.len()),
            (2, 2, 2),
            "{name}"
        );
        for i in 0..2 {
            let want = bounds[i] / measured[i];
            assert!((effs[i] - want).abs() <= 1e-12 * want, "{name}: round {i}");
        }
        let median = (effs[0] + effs[1]) / 2.0;
        assert!(
            (f(&b["efficiency"]) - median).abs() <= 1e-12 * median,
            "{name}"
        );
        assert_eq!(f(&b["efficiency_min"]), effs[0].min(effs[1]), "{name}");
        assert_eq!(f(&b["efficiency_max"]), effs[0].max(effs[1]), "{name}");
        let resource = b["bound_resource"].as_str().unwrap();
        assert!(
            ["store", "load", "bandwidth", "alu"].contains(&resource),
            "{resource}"
        );
        // The named resource is the one with the largest (median) time.
        let per = b["bound_seconds_per_resource"].as_object().unwrap();
        let top = per.values().filter_map(|x| x.as_f64()).fold(0.0, f64::max);
        assert_eq!(per[resource].as_f64().unwrap(), top, "{name}");
        // Each primitive the model uses was measured in every round, nothing else was.
        let prims = b["primitives_ns_per_op"].as_object().unwrap();
        assert!(!prims.is_empty(), "{name}");
        for (p, x) in prims {
            let rounds = fs(&x["per_round"]);
            assert!(
                rounds.len() == 2 && rounds.iter().all(|r| r.is_finite() && *r > 0.0),
                "{name} {p}: {x}"
            );
            assert!(f(&x["min"]) <= f(&x["median"]) && f(&x["median"]) <= f(&x["max"]));
        }
    }
    // `stamped-lanes` is priced by its byte stores; `sweep` by its multiply-adds.
    let lanes = backends
        .iter()
        .find(|b| b["backend"] == "stamped-lanes")
        .unwrap();
    assert!(
        lanes["primitives_ns_per_op"]["scatter_store"].is_object(),
        "{lanes}"
    );
    let sweep = backends.iter().find(|b| b["backend"] == "sweep").unwrap();
    assert!(
        sweep["primitives_ns_per_op"]["mul_add"].is_object(),
        "{sweep}"
    );
    assert!(
        sweep["primitives_ns_per_op"]["scatter_store"].is_null(),
        "{sweep}"
    );
    // No control is timed.
    assert!(backends
        .iter()
        .all(|b| b["backend"] != "naive-mex" && b["backend"] != "brute"));
}

#[test]
fn roofline_text_has_one_row_per_backend_asked_with_its_spread() {
    let out = stdout_of([
        "roofline",
        "--limit",
        "2000",
        "--repeat",
        "3",
        "--table",
        "stamped-lanes,bitset",
        "--count",
        "sweep",
    ]);
    // A `not-a-bound` line follows a row whose bound is above its time (on a noisy machine
    // any back-end's may be); it is checked apart.
    let (findings, lines): (Vec<&str>, Vec<&str>) =
        out.lines().partition(|l| l.starts_with("not-a-bound "));
    for f in &findings {
        assert!(
            f.contains("microbenchmark") && f.contains("efficiency=1."),
            "{out}"
        );
    }
    assert!(
        lines[0].starts_with("roofline N = 2000, moves squares,") && lines[0].contains("3 rounds"),
        "{out}"
    );
    assert!(lines[1].starts_with("stage  backend "), "{out}");
    // The header, the column header, then the rows in the order asked, and nothing else.
    assert_eq!(lines.len(), 5, "{out}");
    for (line, prefix) in
        lines[2..]
            .iter()
            .zip(["table  stamped-lanes ", "table  bitset ", "count  sweep "])
    {
        assert!(line.starts_with(prefix), "{prefix}: {out}");
        let cols: Vec<&str> = line.split_whitespace().collect();
        // stage backend threads unit rounds measured range bound range resource efficiency range
        assert_eq!(cols[4], "3", "{line}");
        for (median, range) in [(5, 6), (7, 8), (10, 11)] {
            let x: f64 = cols[median].parse().unwrap();
            let (lo, hi) = cols[range].split_once('-').unwrap();
            let (lo, hi): (f64, f64) = (lo.parse().unwrap(), hi.parse().unwrap());
            // Printed at 3 or 4 decimals: the median lies in the range up to rounding.
            assert!(lo - 1e-3 <= x && x <= hi + 1e-3, "{line}");
        }
        assert!(line.contains(" load="), "{line}");
    }
    assert!(lines[2].contains("scatter_store=") && lines[2].contains("scatter_store_range="));
    assert!(lines[4].contains("mul_add=") && !lines[4].contains("scatter_store="));
}

/// A line of a child's output and when it arrived.
fn timed_lines(
    pipe: impl std::io::Read + Send + 'static,
) -> std::sync::mpsc::Receiver<(std::time::Instant, String)> {
    use std::io::BufRead;
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(pipe).lines() {
            let Ok(line) = line else { break };
            if send.send((std::time::Instant::now(), line)).is_err() {
                break;
            }
        }
    });
    receive
}

#[test]
fn roofline_prints_the_header_first_and_each_row_as_it_finishes() {
    // Three rounds of at least two primitives of 60 ms each per back-end: a row comes at
    // least about 0.4 s after the one before. Printed at the end, they would come together.
    let mut child = common::nimsquare_process()
        .args([
            "roofline",
            "--limit",
            "20000",
            "--repeat",
            "3",
            "--table",
            "stamped,stamped-lanes",
            "--count",
            "sweep",
        ])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let lines = timed_lines(child.stdout.take().unwrap());
    let (header_at, header) = lines.recv().unwrap();
    assert!(header.starts_with("roofline N = 20000"), "{header}");
    let (_, columns) = lines.recv().unwrap();
    assert!(columns.starts_with("stage "), "{columns}");
    // Without the `not-a-bound` lines a row may bring (a bound above a noisy time).
    let rows: Vec<(std::time::Instant, String)> = lines
        .iter()
        .filter(|(_, l)| !l.starts_with("not-a-bound "))
        .collect();
    assert!(child.wait().unwrap().success());
    assert_eq!(rows.len(), 3, "{rows:?}");
    let gap = std::time::Duration::from_millis(150);
    assert!(
        rows[0].0 >= header_at + gap,
        "the first row came with the header"
    );
    assert!(
        rows[1].0 >= rows[0].0 + gap,
        "two rows came together: {rows:?}"
    );
    assert!(
        rows[2].0 >= rows[1].0 + gap,
        "two rows came together: {rows:?}"
    );
    assert!(rows[0].1.starts_with("table  stamped "), "{rows:?}");
}

#[test]
fn a_long_roofline_forecasts_then_prints_its_header_before_the_work() {
    // At 10^8 one build of `stamped-lanes` takes tens of seconds: the note and the header
    // must come long before it ends. The test stops the child once it has both.
    let mut child = common::nimsquare_process()
        .args([
            "roofline",
            "--limit",
            "1e8",
            "--repeat",
            "3",
            "--table",
            "stamped-lanes",
            "--count",
            "wht",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let errors = timed_lines(child.stderr.take().unwrap());
    let out = timed_lines(child.stdout.take().unwrap());
    let wait = std::time::Duration::from_secs(120);
    let note = errors.recv_timeout(wait).map(|l| l.1);
    let header = out.recv_timeout(wait).map(|l| l.1);
    let running = child.try_wait().unwrap().is_none();
    child.kill().unwrap();
    child.wait().unwrap();
    let note = note.expect("a note on stderr");
    assert!(
        note.starts_with("note: N = 100000000 needs about ")
            && note.contains("1 table back-end x 3 rounds"),
        "{note}"
    );
    let header = header.expect("the header on stdout");
    assert!(header.starts_with("roofline N = 100000000,"), "{header}");
    assert!(running, "the header came only at the end");
}

#[test]
fn roofline_refuses_a_control_past_its_size_at_once_as_solve_does() {
    let started = std::time::Instant::now();
    let e = assert_refused(&["roofline", "--table", "naive-mex", "--limit", "1e7"]);
    assert!(
        e.contains("'naive-mex'") && e.contains("--limit 10000000") && e.contains("--table"),
        "{e}"
    );
    let e = assert_refused(&[
        "roofline",
        "--table",
        "stamped,naive-mex",
        "--limit",
        "100001",
    ]);
    assert!(e.contains("(it affords N <= 100000)"), "{e}");
    let e = assert_refused(&["roofline", "--count", "brute", "--limit", "1000"]);
    assert!(
        e.contains("'brute'") && e.contains("--limit 1000") && e.contains("--count"),
        "{e}"
    );
    // Refused before any work: three runs of the binary, not a quarter of an hour.
    assert!(started.elapsed().as_secs() < 30, "{:?}", started.elapsed());
    // Where it affords N, the control runs (at the edge of what it affords, cheaply here).
    let out = stdout_of([
        "roofline",
        "--table",
        "naive-mex",
        "--count",
        "brute",
        "--limit",
        "100",
        "--repeat",
        "1",
    ]);
    assert!(
        out.contains("table  naive-mex ") && out.contains("count  brute "),
        "{out}"
    );
}

#[test]
fn roofline_refusals_name_the_flag() {
    let e = assert_refused(&["roofline", "--repeat", "0"]);
    assert!(e.contains("--repeat"), "{e}");
    let e = assert_refused(&["roofline", "--tabel", "bitset"]);
    assert!(e.contains("--tabel"), "{e}");
    let e = assert_refused(&["roofline", "--table", "nope"]);
    assert!(e.contains("'nope'") && e.contains("stamped-lanes"), "{e}");
    let e = assert_refused(&["roofline", "--count", "nope"]);
    assert!(e.contains("count back-end 'nope'"), "{e}");
    // Refused before any work when the memory guard says it does not fit.
    let out = common::nimsquare()
        .args(["roofline", "--limit", "1e6"])
        .env(nimsquare::base::memory::AVAILABLE_OVERRIDE, "1000000")
        .output()
        .unwrap();
    let e = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert!(
        e.contains("roofline at N = 1000000") && e.lines().count() == 1,
        "{e}"
    );
    assert!(out.stdout.is_empty());
    let e = assert_refused(&["roofline", "--limit", "1e10"]);
    assert!(e.contains("--limit") || e.contains("maximum"), "{e}");
}

#[test]
fn scale_rows_carry_the_isa_and_a_bound_consistent_with_their_time() {
    let dir = common::Scratch::new(format!("nimsquare-test-roofline-{}", std::process::id()));
    let csv = dir.join("s.csv");
    let csv_arg = csv.to_str().unwrap();
    stdout_of([
        "scale",
        "--table",
        "stamped,stamped-lanes",
        "--from",
        "1000",
        "--to",
        "4000",
        "--points",
        "2",
        "--repeat",
        "1",
        "--out",
        csv_arg,
    ]);
    let rows = read_rows(&csv).unwrap();
    assert_eq!(rows.len(), 4);
    for r in &rows {
        assert_eq!(r.isa, nimsquare::base::isa::active().name());
        assert!(
            r.bound_ns_per_step.is_finite() && r.bound_ns_per_step > 0.0,
            "{r:?}"
        );
        assert!(["store", "load", "bandwidth", "alu"].contains(&r.bound_resource.as_str()));
        let eff = r.bound_ns_per_step / r.ns_per_step;
        assert!((r.efficiency - eff).abs() <= 1e-6 * eff, "{r:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn scale_resume_refuses_a_study_without_the_roofline_columns() {
    let dir = common::Scratch::new(format!("nimsquare-test-oldcsv-{}", std::process::id()));
    let csv = dir.join("old.csv");
    // The header and a row of the version before the roofline columns.
    let old = "backend,n,seconds_median,seconds_min,repeats,option_steps,ns_per_step,max_value,threads,moves,git_rev,cpu\n\
               stamped,1000,0.1,0.1,1,20615,1.0,14,2,squares,abc,cpu\n";
    std::fs::write(&csv, old).unwrap();
    let e = assert_refused(&[
        "scale",
        "--table",
        "stamped",
        "--from",
        "1000",
        "--to",
        "2000",
        "--points",
        "2",
        "--repeat",
        "1",
        "--resume",
        "--out",
        csv.to_str().unwrap(),
    ]);
    assert!(
        e.contains("earlier version") && e.contains("bound_ns_per_step"),
        "{e}"
    );
    assert_eq!(
        std::fs::read_to_string(&csv).unwrap(),
        old,
        "the file is left alone"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_octal_game_gets_a_line_per_octal_back_end_and_bad_input_is_refused_first() {
    // Every fast octal back-end is timed on Officers and held against its model; the
    // tables agree (the run would stop otherwise), and the unit is the option step.
    let v = json_of([
        "roofline", "--octal", "0.6", "--limit", "3000", "--repeat", "1", "--json",
    ]);
    assert_eq!(v["octal"], "0.6");
    let lines = v["backends"].as_array().expect("a backends array");
    for e in nimsquare::registry::fast(nimsquare::octal::BACKENDS) {
        let line = lines
            .iter()
            .find(|l| l["backend"] == e.name)
            .unwrap_or_else(|| panic!("{}: {v}", e.name));
        assert_eq!(line["stage"], "octal", "{line}");
        assert_eq!(line["model"], e.model.summary, "{line}");
    }
    assert!(
        lines.iter().all(|l| l["stage"] == "octal"),
        "no counts: {v}"
    );
    // Text: the models that leave work out say so beside their line.
    let text = stdout_of([
        "roofline",
        "--octal",
        "0.6",
        "--limit",
        "2000",
        "--repeat",
        "1",
        "--table",
        "octal-sparse",
    ]);
    assert!(
        text.contains("octal game 0.6") && text.contains("note backend=octal-sparse:"),
        "{text}"
    );
    // Refused before any work: an unknown code, the control past what it affords, a table
    // back-end of the other stage, counts.
    let e = assert_refused(&["roofline", "--octal", "0.9"]);
    assert!(
        e.contains("--octal") && e.contains("not an octal digit"),
        "{e}"
    );
    let e = assert_refused(&[
        "roofline",
        "--octal",
        "0.6",
        "--table",
        "octal-naive",
        "--limit",
        "30000",
    ]);
    assert!(e.contains("octal-naive") && e.contains("N <= 20000"), "{e}");
    let e = assert_refused(&["roofline", "--octal", "0.6", "--table", "stamped"]);
    assert!(e.contains("octal-sparse"), "{e}");
    assert_refused(&["roofline", "--octal", "0.6", "--count", "wht"]);
    assert_refused(&["roofline", "--octal", "0.6", "--moves", "1,2"]);
}

/// Every back-end's cost model, worked by hand from its summary on a workload with easy
/// numbers: N + 1 = p = 1000 positions, S = 3200 option steps, G = 130 values (3 mask words;
/// 132 rounded up to four, 256 to a power of two), mean value 2.5. Columns: Scatter, Span,
/// Stream, OrScan, MulAdd (the order of `Primitive::ALL`). The table back-ends all add the
/// table's traffic, 4 bytes a position (Stream 4000); each step's span load is S/32 = 100.
/// A back-end missing here fails: its model needs its line worked out too.
#[test]
fn every_cost_model_counts_what_its_summary_says_on_a_workload_worked_by_hand() {
    let w = Workload {
        limit: 999,
        steps: 3200.0,
        alphabet: 130,
        mean_value: 2.5,
        threads: 1,
        rare_steps: 0.0,
    };
    let by_hand = |stage: &str, name: &str| -> [f64; 5] {
        match (stage, name) {
            // A store a step; g + 1 word ops a position: 1000 · 3.5.
            ("table", "naive-mex" | "stamped" | "fixture-mex") => {
                [3200.0, 100.0, 4000.0, 3500.0, 0.0]
            }
            // A shift-and-OR a step; 3 + 2.5/64 + 1 words a position.
            ("table", "bitset" | "bitset-parallel") => {
                [0.0, 100.0, 4000.0, 3200.0 + 4039.0625, 0.0]
            }
            // g/8 + 1 compares a position: 1000 · 1.3125.
            ("table", "stamped-lanes") => [3200.0, 100.0, 4000.0, 1312.5, 0.0],
            // Lane stride 256 (130 + 32 up to a power of two): 256/16 + 2.5/64 + 1 a position.
            ("table", "stamped-parallel") => [3200.0, 100.0, 4000.0, 17_039.062_5, 0.0],
            // 130 passes of 2 · 3200/64 window ops and 2 · 16 word ops (1000/64 words, up).
            ("table", "value-bounded") => [0.0, 0.0, 4000.0, 130.0 * (100.0 + 32.0), 0.0],
            // C(1002, 3) = 1000 · 1001 · 1002 / 6 sorted triples.
            ("count", "brute") => [0.0, 0.0, 0.0, 167_167_000.0, 0.0],
            // 2 G^2.
            ("count", "burnside") => [0.0, 0.0, 0.0, 0.0, 33_800.0],
            // 132 multiply-adds a position; the table read once, 2 bytes a position.
            ("count", "sweep") => [0.0, 0.0, 2000.0, 0.0, 132_000.0],
            // The sweep, plus a histogram increment a position and the table read again.
            ("count", "rayon-sweep") => [0.0, 0.0, 4000.0, 1000.0, 132_000.0],
            // W log2 W + W with W = 256.
            ("count", "wht") => [0.0, 0.0, 0.0, 0.0, 256.0 * 8.0 + 256.0],
            _ => panic!("{stage} '{name}': no hand-worked model in this test"),
        }
    };
    let check = |stage: &str, name: &str, model: &nimsquare::instruments::roofline::Model| {
        let d = (model.demand)(&w);
        assert_eq!(d.ops, by_hand(stage, name), "{stage} '{name}'");
    };
    for e in table::BACKENDS {
        check("table", e.name, &e.model);
    }
    for e in count::BACKENDS {
        check("count", e.name, &e.model);
    }
}
