//! `nimsquare list`: the back-ends of each workload (`run::workload::KINDS`) and of the
//! count and cold stages, straight from the registries, and the
//! vector paths (`--isa`) this CPU supports with the one active, and those it cannot run (so
//! a run whose per-path tests skipped a path says which).

use super::args::JsonArg;
use super::common::{wisdom, CliResult};
use nimsquare::base::isa::{self, Isa};
use nimsquare::registry::{Entry, Role};
use nimsquare::run::report::{self, Report};
use nimsquare::run::workload::{Backend, KINDS};
use nimsquare::{cold, count};
use serde_json::json;
use std::io::{self, Write};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    json: JsonArg,
}

pub fn run(args: Args) -> CliResult {
    let report = Listing {
        auto_choices: auto_choices(),
        unavailable: unavailable(),
    };
    report::print(&report, args.json.json);
    Ok(0)
}

/// What `list` shows: the registries (read as it renders), this CPU's vector paths and
/// where `auto` takes its choices from.
struct Listing {
    auto_choices: String,
    unavailable: Vec<&'static str>,
}

impl Report for Listing {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        for kind in KINDS {
            writeln!(out, "{}", kind.heading())?;
            write_rows(out, &workload_rows(&kind.backends()))?;
        }
        writeln!(out, "count back-ends (--count NAME):")?;
        write_stage(out, count::BACKENDS)?;
        writeln!(
            out,
            "cold-set back-ends (g = 0 only; `solve --heaps 1` uses the reference):"
        )?;
        write_stage(out, cold::BACKENDS)?;
        // One unindented line: the back-end lines are the indented ones.
        let supported: Vec<&str> = Isa::supported_all().iter().map(|i| i.name()).collect();
        writeln!(
            out,
            "vector paths (--isa PATH): {} on this CPU; active: {}{}",
            supported.join(", "),
            isa::active(),
            if self.unavailable.is_empty() {
                String::new()
            } else {
                format!("; unavailable: {}", self.unavailable.join(", "))
            }
        )?;
        writeln!(out, "auto's table choices: {}", self.auto_choices)
    }

    fn json(&self) -> serde_json::Value {
        let mut out = json!({
            "count": stage_json(count::BACKENDS),
            "cold": stage_json(cold::BACKENDS),
            "isa": {
                "supported": Isa::supported_all().iter().map(|i| i.name()).collect::<Vec<_>>(),
                "active": isa::active().name(),
                "unavailable": self.unavailable,
            },
            "auto_table_choices": self.auto_choices,
        });
        for kind in KINDS {
            out[kind.name()] = json!(workload_json(&kind.backends()));
        }
        out
    }
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

/// A workload's back-ends as `list --json` shows a stage's.
fn workload_json(backends: &[Backend]) -> Vec<serde_json::Value> {
    backends
        .iter()
        .map(|b| {
            json!({"name": b.name(), "role": role_word(b.role()), "description": b.description(), "cost": b.cost()})
        })
        .collect()
}

/// A listed back-end: name, role, description, cost.
type Listed = (&'static str, Role, &'static str, &'static str);

fn workload_rows(backends: &[Backend]) -> Vec<Listed> {
    backends
        .iter()
        .map(|b| (b.name(), b.role(), b.description(), b.cost()))
        .collect()
}

/// One line per back-end of a stage.
fn write_stage<T: ?Sized>(out: &mut dyn Write, entries: &[Entry<T>]) -> io::Result<()> {
    let rows: Vec<Listed> = entries
        .iter()
        .map(|e| (e.name, e.role, e.description, e.cost))
        .collect();
    write_rows(out, &rows)
}

/// One line per back-end, the name column as wide as the longest name.
fn write_rows(out: &mut dyn Write, rows: &[Listed]) -> io::Result<()> {
    let width = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
    for (name, role, description, cost) in rows {
        writeln!(
            out,
            "  {:<width$}  {:<9}  {}  [{}]",
            name,
            role_word(*role),
            description,
            cost
        )?;
    }
    Ok(())
}
