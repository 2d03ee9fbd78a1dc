//! `bench-check OLD NEW [--fail-above R] [--criterion DIR] [--json]`: the bench matrix's
//! regression check (`nimsquare::instruments::matrix_check`). Exits 1 when any benchmark of
//! NEW is slower than OLD by more than R (default 1.10) beyond both medians' intervals, 0
//! otherwise, 2 on bad input.
//!
//! OLD and NEW are each a `matrix.csv` or `matrix.json` the bench matrix wrote, or the name
//! of a criterion baseline under `--criterion DIR` (default criterion's own folder): a name
//! saved with `cargo bench --bench matrix -- --save-baseline NAME`, or `new` for criterion's
//! latest run. A separate binary rather than a `nimsquare` subcommand: it reads bench
//! output, not games, and `scripts/bench-check.sh` runs it.

use nimsquare::instruments::{matrix_check, matrix_report};
use std::path::{Path, PathBuf};

const USAGE: &str = "usage: bench-check OLD NEW [--fail-above R] [--criterion DIR] [--json]";

struct Args {
    old: String,
    new: String,
    fail_above: f64,
    criterion: PathBuf,
    json: bool,
}

fn parse(mut it: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut sets = Vec::new();
    let mut fail_above = 1.10;
    let mut criterion = matrix_report::criterion_dir();
    let mut json = false;
    while let Some(a) = it.next() {
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (a.clone(), None),
        };
        let mut value = |name: &str| {
            inline
                .clone()
                .or_else(|| it.next())
                .ok_or_else(|| format!("{name} needs a value; {USAGE}"))
        };
        match flag.as_str() {
            "--fail-above" => {
                let v = value("--fail-above")?;
                fail_above = v
                    .parse()
                    .map_err(|_| format!("--fail-above takes a ratio such as 1.10, not '{v}'"))?;
            }
            "--criterion" => criterion = PathBuf::from(value("--criterion")?),
            "--json" => json = true,
            f if f.starts_with('-') => return Err(format!("unknown flag '{f}'; {USAGE}")),
            _ => sets.push(a),
        }
    }
    let [old, new]: [String; 2] = sets.try_into().map_err(|s: Vec<String>| {
        format!("give two sets, OLD and NEW, not {}; {USAGE}", s.len())
    })?;
    Ok(Args {
        old,
        new,
        fail_above,
        criterion,
        json,
    })
}

/// A file by its path, else a criterion baseline by its name.
fn load(set: &str, which: &str, criterion: &Path) -> Result<Vec<matrix_report::Row>, String> {
    let path = Path::new(set);
    if path.is_file() {
        return matrix_report::read_file(path).map_err(|e| e.to_string());
    }
    let rows = if criterion.is_dir() {
        matrix_report::read_criterion(criterion, set, None).map_err(|e| e.to_string())?
    } else {
        Vec::new()
    };
    if rows.is_empty() {
        return Err(format!(
            "{which} '{set}' is neither a file nor a baseline under {} (no {set}/estimates.json there); give a matrix.csv or matrix.json, or a name saved with --save-baseline",
            criterion.display()
        ));
    }
    Ok(rows)
}

fn run() -> Result<bool, String> {
    if std::env::args().skip(1).any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return Ok(true);
    }
    let args = parse(std::env::args().skip(1))?;
    if !(args.fail_above.is_finite() && args.fail_above > 1.0) {
        return Err(format!(
            "--fail-above must be a ratio above 1 (1.10 fails at 10% slower), not {}",
            args.fail_above
        ));
    }
    let old = load(&args.old, "OLD", &args.criterion)?;
    let new = load(&args.new, "NEW", &args.criterion)?;
    let c = matrix_check::compare(&old, &new, args.fail_above).map_err(|e| e.to_string())?;
    if args.json {
        let mut v = serde_json::to_value(&c).expect("a comparison serializes");
        v["result"] = if c.passed() { "pass" } else { "fail" }.into();
        println!(
            "{}",
            serde_json::to_string_pretty(&v).expect("a value serializes")
        );
    } else {
        print!("{}", c.lines());
    }
    Ok(c.passed())
}

fn main() {
    match run() {
        Ok(true) => {}
        Ok(false) => std::process::exit(1),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2)
        }
    }
}
