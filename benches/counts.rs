//! The counting bench: every benchmark of a small grid counted under Valgrind's Callgrind
//! instead of timed, and the change against the last run printed as criterion prints a
//! change of time ([`nimsquare::instruments::counts`] says what is counted and how).
//!
//! Why not gungraun (iai-callgrind): its benchmarks are functions declared by macros at
//! compile time, one per case, while this project's benchmarks are the registry's, iterated
//! at run time (a new back-end joins by its registry line alone), and its runner is a
//! separate binary that must be installed at the library's exact version. What it does
//! beyond that (the client requests, Callgrind's command line, reading its output) is small
//! and lives in `nimsquare::base::valgrind` and `nimsquare::run::counted`.
//!
//! Run: `cargo bench --bench counts` (every benchmark, a few minutes), `-- FILTER` (a regular
//! expression on the ids), `-- --list`, `-- --cache` (simulated caches too), `-- --model`
//! (the caches, then each cost model's predicted stores and loads against the counted writes
//! and reads), `-- --panel` (CI's panel only). Each run is compared with `target/counts/latest.json` and then
//! replaces it; `--save-baseline NAME` also keeps it as `target/counts/NAME.json`, and
//! `--baseline NAME` compares with that one instead.
//!
//! The gate: `-- --panel --gate FILE [--threshold 0.02]` exits 1 when an instruction count
//! grew past the threshold against FILE (a baseline committed in the repository), and says
//! "recounted" instead of failing when FILE was counted with another compiler, Valgrind or
//! path; `--save-gate FILE` writes FILE from this run. Relative paths are taken from the
//! workspace root.

use nimsquare::base::isa;
use nimsquare::base::provenance;
use nimsquare::instruments::counts::{self, Baseline, Gate, Row};
use nimsquare::instruments::matrix::Bench;
use nimsquare::run::counted::Valgrind;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

struct Args {
    filter: Option<regex::Regex>,
    list: bool,
    cache: bool,
    model: bool,
    panel: bool,
    baseline: Option<String>,
    save_baseline: Option<String>,
    gate: Option<PathBuf>,
    save_gate: Option<PathBuf>,
    threshold: f64,
    child: Option<String>,
}

fn parse_args() -> Result<Args, String> {
    let mut out = Args {
        filter: None,
        list: false,
        cache: false,
        model: false,
        panel: false,
        baseline: None,
        save_baseline: None,
        gate: None,
        save_gate: None,
        threshold: 0.02,
        child: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |flag: &str| args.next().ok_or_else(|| format!("{flag} takes a value"));
        match a.as_str() {
            // cargo bench passes --bench to every bench binary.
            "--bench" => {}
            "--list" => out.list = true,
            "--cache" => out.cache = true,
            "--model" => {
                out.model = true;
                out.cache = true;
            }
            "--panel" => out.panel = true,
            "--baseline" => out.baseline = Some(value("--baseline")?),
            "--save-baseline" => out.save_baseline = Some(value("--save-baseline")?),
            "--gate" => out.gate = Some(from_root(value("--gate")?)),
            "--save-gate" => out.save_gate = Some(from_root(value("--save-gate")?)),
            "--threshold" => {
                let v = value("--threshold")?;
                out.threshold = v
                    .parse::<f64>()
                    .ok()
                    .filter(|x| *x > 0.0 && *x < 1.0)
                    .ok_or(format!("--threshold takes a fraction like 0.02, got '{v}'"))?;
            }
            "--counted-child" => out.child = Some(value("--counted-child")?),
            flag if flag.starts_with('-') => {
                return Err(format!(
                    "unknown flag {flag}; the counting bench takes FILTER, --list, --cache, --model, --panel, --baseline NAME, --save-baseline NAME, --gate FILE, --save-gate FILE, --threshold X"
                ))
            }
            filter => {
                let re = regex::Regex::new(filter)
                    .map_err(|e| format!("FILTER '{filter}' is not a regular expression: {e}"))?;
                out.filter = Some(re);
            }
        }
    }
    Ok(out)
}

/// `path` taken from the workspace root, where `cargo bench` is typed (cargo runs a bench in
/// its own package's folder, `benches/`).
fn from_root(path: String) -> PathBuf {
    let path = PathBuf::from(path);
    if path.is_absolute() {
        path
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)
    }
}

fn main() -> ExitCode {
    // The paths stop at what Valgrind 3.19 runs, for this process and its children, before
    // anything reads them.
    if std::env::var_os(isa::CAP_ENV).is_none() {
        std::env::set_var(isa::CAP_ENV, counts::COUNTED_CAP.name());
    }
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(id) = &args.child {
        return child(id);
    }
    match run(&args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// The child: one benchmark, its stage marked, on one thread (this one), its answer printed.
fn child(id: &str) -> ExitCode {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .use_current_thread()
        .build_global();
    if let Err(e) = pool {
        eprintln!("error: cannot set up one thread: {e}");
        return ExitCode::from(2);
    }
    let Some(bench) = counts::benches().into_iter().find(|b| b.id() == id) else {
        eprintln!("error: no benchmark '{id}'");
        return ExitCode::from(2);
    };
    match counts::run_marked(&bench) {
        Ok(answer) => {
            println!("{answer}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {id}: {e}");
            ExitCode::from(1)
        }
    }
}

fn selected(args: &Args) -> Vec<Bench> {
    let all = counts::benches();
    let chosen = if args.panel { counts::panel(&all) } else { all };
    chosen
        .into_iter()
        .filter(|b| args.filter.as_ref().is_none_or(|re| re.is_match(&b.id())))
        .collect()
}

fn counts_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"));
    target.join("counts")
}

fn run(args: &Args) -> Result<ExitCode, String> {
    let benches = selected(args);
    if args.list {
        for b in &benches {
            println!("{}", b.id());
        }
        return Ok(ExitCode::SUCCESS);
    }
    if benches.is_empty() {
        return Err("the filter matches no benchmark (-- --list names them)".into());
    }
    let valgrind = Valgrind::find().map_err(|e| e.to_string())?;
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let dir = counts_dir();
    let previous_name = args.baseline.clone().unwrap_or_else(|| "latest".into());
    let previous = Baseline::read(&dir.join(format!("{previous_name}.json"))).ok();
    let gate_file = match &args.gate {
        Some(path) => Some(Baseline::read(path).map_err(|e| e.to_string())?),
        None => None,
    };
    println!(
        "counting {} benchmark(s) under {} (callgrind, 1 thread, plain names on {}{}); built by {}",
        benches.len(),
        valgrind.version,
        isa::active().name(),
        if args.cache { "; caches simulated" } else { "" },
        provenance::RUSTC_VERSION
    );
    let mut rows: Vec<Row> = Vec::new();
    for b in &benches {
        let row = counts::count_one(&valgrind, &exe, b, args.cache).map_err(|e| e.to_string())?;
        let before = previous
            .as_ref()
            .and_then(|p| p.rows.iter().find(|r| r.id == row.id));
        print_row(&row, before);
        rows.push(row);
    }
    counts::check_agreement(&benches, &rows).map_err(|e| e.to_string())?;
    if args.model {
        print_model(&benches, &rows)?;
    }
    let this = Baseline {
        rustc: provenance::RUSTC_VERSION.into(),
        valgrind: valgrind.version.clone(),
        path: isa::active().name().into(),
        build: provenance::BUILD_REV.into(),
        date: provenance::utc_date_today(),
        rows,
    };
    // Only a run of everything becomes the next run's comparison.
    if args.filter.is_none() && !args.panel {
        this.write(&dir.join("latest.json"))
            .map_err(|e| e.to_string())?;
    }
    if let Some(name) = &args.save_baseline {
        this.write(&dir.join(format!("{name}.json")))
            .map_err(|e| e.to_string())?;
    }
    if let Some(path) = &args.save_gate {
        this.write(path).map_err(|e| e.to_string())?;
        println!("gate baseline written to {}", path.display());
    }
    let Some(baseline) = gate_file else {
        return Ok(ExitCode::SUCCESS);
    };
    let file = args.gate.as_ref().expect("a gate file").display();
    Ok(match counts::gate(&this, &baseline, args.threshold) {
        Gate::Passed { largest } => {
            println!(
                "gate: passed against {file}: no instruction count grew past {:.1}% (largest change {:+.3}%)",
                args.threshold * 100.0,
                largest * 100.0
            );
            ExitCode::SUCCESS
        }
        Gate::Failed(changes) => {
            for c in &changes {
                println!(
                    "gate: {} grew {:+.3}% ({} -> {} instructions)",
                    c.id,
                    c.relative() * 100.0,
                    c.before,
                    c.after
                );
            }
            println!(
                "gate: FAILED against {file}: {} count(s) grew past {:.1}%",
                changes.len(),
                args.threshold * 100.0
            );
            ExitCode::from(1)
        }
        Gate::Recounted(why) => {
            println!(
                "gate: not applied: this run was counted with {}; the counts above are this setting's (re-save with --save-gate {file} to gate on it)",
                why.join(", ")
            );
            ExitCode::SUCCESS
        }
        Gate::Missing(ids) => {
            println!(
                "gate: FAILED against {file}: not counted in this run: {} (the panel changed: re-save with --save-gate)",
                ids.join(", ")
            );
            ExitCode::from(1)
        }
    })
}

/// Each benchmark's cost model against its counted data accesses: predicted stores against
/// writes, predicted loads (values) against reads; a ratio beyond 10% is marked.
fn print_model(benches: &[Bench], rows: &[Row]) -> Result<(), String> {
    println!(
        "\ncost models against the counts (a model's store is a byte store into stamps, a write one store instruction; ! marks a ratio off by more than {:.0}%)",
        counts::MODEL_TOLERANCE * 100.0
    );
    println!(
        "{:<48} {:>14} {:>12} {:>8} {:>14} {:>12} {:>8}",
        "benchmark", "model stores", "writes", "ratio", "model loads", "reads", "ratio"
    );
    for (b, r) in benches.iter().zip(rows) {
        let Some(cache) = r.counts.cache else {
            continue;
        };
        let p = counts::predicted(b).map_err(|e| e.to_string())?;
        let show = |ratio: Option<f64>| match ratio {
            None => "-".to_string(),
            Some(x) if (x - 1.0).abs() > counts::MODEL_TOLERANCE => format!("{x:.3}!"),
            Some(x) => format!("{x:.3}"),
        };
        println!(
            "{:<48} {:>14.0} {:>12} {:>8} {:>14.0} {:>12} {:>8}",
            r.id,
            p.stores,
            cache.writes,
            show(counts::model_ratio(cache.writes, p.stores)),
            p.loads,
            cache.reads,
            show(counts::model_ratio(cache.reads, p.loads)),
        );
    }
    Ok(())
}

/// One benchmark's line, and its change against `before` as criterion prints a change.
fn print_row(row: &Row, before: Option<&Row>) {
    let mut line = format!(
        "{:<48} instructions {:>14}",
        row.id, row.counts.instructions
    );
    if let Some(c) = row.counts.cache {
        line.push_str(&format!(
            "  writes {:>12}  D1 misses {:>10}  LL misses {:>9}",
            c.writes,
            c.d1_read_misses + c.d1_write_misses,
            c.ll_read_misses + c.ll_write_misses
        ));
    }
    println!("{line}");
    if let Some(b) = before {
        let (x, y) = (b.counts.instructions, row.counts.instructions);
        let change = y as f64 / x.max(1) as f64 - 1.0;
        let word = if change == 0.0 {
            "No change in instructions."
        } else if change > 0.0 {
            "More instructions."
        } else {
            "Fewer instructions."
        };
        println!(
            "{:<48} change: {:+.4}% ({x} -> {y})  {word}",
            "",
            change * 100.0
        );
    }
}
