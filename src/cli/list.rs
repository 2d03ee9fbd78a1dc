//! `nimsquare list`: the back-ends of each stage, straight from the registries, and the
//! vector paths (`--isa`) this CPU supports with the one active, and those it cannot run (so
//! a run whose per-path tests skipped a path says which).

use super::args::JsonArg;
use super::common::{print_json, wisdom, CliResult};
use nimsquare::base::isa::{self, Isa};
use nimsquare::registry::{Entry, Role};
use nimsquare::{cold, count, table};
use serde_json::json;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    json: JsonArg,
}

pub fn run(args: Args) -> CliResult {
    if args.json.json {
        print_json(json!({
            "table": stage_json(table::BACKENDS),
            "count": stage_json(count::BACKENDS),
            "cold": stage_json(cold::BACKENDS),
            "octal": stage_json(nimsquare::octal::BACKENDS),
            "isa": {
                "supported": Isa::supported_all().iter().map(|i| i.name()).collect::<Vec<_>>(),
                "active": isa::active().name(),
                "unavailable": unavailable(),
            },
            "auto_table_choices": auto_choices(),
        }));
        return Ok(0);
    }
    println!("table back-ends (--table NAME):");
    print_stage(table::BACKENDS);
    println!("count back-ends (--count NAME):");
    print_stage(count::BACKENDS);
    println!("cold-set back-ends (g = 0 only; `solve --heaps 1` uses the reference):");
    print_stage(cold::BACKENDS);
    println!("octal-game back-ends (`octal` and `census`, --backend NAME):");
    print_stage(nimsquare::octal::BACKENDS);
    // One unindented line: the back-end lines are the indented ones.
    let supported: Vec<&str> = Isa::supported_all().iter().map(|i| i.name()).collect();
    let missing = unavailable();
    println!(
        "vector paths (--isa PATH): {} on this CPU; active: {}{}",
        supported.join(", "),
        isa::active(),
        if missing.is_empty() {
            String::new()
        } else {
            format!("; unavailable: {}", missing.join(", "))
        }
    );
    println!("auto's table choices: {}", auto_choices());
    Ok(0)
}

/// Where `auto` takes its table back-ends from in a run like this one (this pool's threads,
/// the active path, the squares): the wisdom file and its date, or `built-in` and, when a
/// file is there but does not apply, why.
fn auto_choices() -> String {
    let source = wisdom();
    let threads = rayon::current_num_threads();
    let squares = nimsquare::base::moves::Moves::Squares;
    let here = source.choose(isa::active(), &squares, 0, threads);
    match (&source.loaded, here.table) {
        (Some(_), Some(_)) => source.describe(),
        _ => here.source,
    }
}

/// The paths this process cannot take: the CPU lacks them or `NIMSQUARE_ISA_CAP` hides them.
fn unavailable() -> Vec<&'static str> {
    Isa::ALL
        .into_iter()
        .filter(|i| !i.supported())
        .map(|i| i.name())
        .collect()
}

/// The word shown for a role.
fn role_word(role: Role) -> &'static str {
    match role {
        Role::Fast => "fast",
        Role::Reference => "reference",
        Role::Control => "control",
    }
}

fn stage_json<T: ?Sized>(entries: &[Entry<T>]) -> Vec<serde_json::Value> {
    entries
        .iter()
        .map(|e| {
            json!({"name": e.name, "role": role_word(e.role), "description": e.description, "cost": e.cost})
        })
        .collect()
}

/// One line per back-end, the name column as wide as the longest name.
fn print_stage<T: ?Sized>(entries: &[Entry<T>]) {
    let width = entries.iter().map(|e| e.name.len()).max().unwrap_or(0);
    for e in entries {
        println!(
            "  {:<width$}  {:<9}  {}  [{}]",
            e.name,
            role_word(e.role),
            e.description,
            e.cost
        );
    }
}
