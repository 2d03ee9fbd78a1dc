//! The ISA cap (`NIMSQUARE_ISA_CAP`, `isa::capped`): it presents fewer vector paths than the
//! CPU has and never more, so the refusal of a missing path and `auto`'s fallback are tested
//! on every machine, in the library and through the binary. Every test here holds
//! `isa::TEST_LOCK` (the cap is process-wide).
#![cfg(feature = "testing")]

mod common;

use common::nimsquare;
use nimsquare::base::isa::{self, Isa, CAP_ENV};
use nimsquare::base::moves::Moves;
use nimsquare::run::planner;
use nimsquare::table;

/// The widest path this CPU has, whatever any cap says.
fn cpu_best() -> Isa {
    *Isa::ALL.iter().rev().find(|i| i.on_cpu()).unwrap()
}

fn lock() -> std::sync::MutexGuard<'static, ()> {
    isa::TEST_LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

#[test]
fn a_cap_hides_the_wider_paths_and_never_adds_one() {
    let _guard = lock();
    // Scalar and portable run on every x86-64 CPU; the others are the CPU's to say.
    assert!(Isa::Scalar.on_cpu() && Isa::Portable.on_cpu());
    for top in Isa::ALL {
        isa::capped(top, || {
            for path in Isa::ALL {
                let want = path.on_cpu() && path <= top;
                assert_eq!(path.supported(), want, "{path} under a cap at {top}");
                assert_eq!(isa::force(path).is_ok(), want, "{path} under {top}");
            }
            assert_eq!(Isa::best(), cpu_best().min(top), "best under {top}");
            assert_eq!(Isa::parse("auto").unwrap(), cpu_best().min(top));
            assert!(isa::active() <= top, "active {} under {top}", isa::active());
            isa::force(Isa::Scalar).unwrap();
        });
    }
}

/// Under each cap every table back-end builds the control's table and runs no kernel above
/// the cap: a kernel dispatched on a path the cap hides panics ("... is not supported
/// here"), so a back-end that reached for a wider path (say, an AVX2 start on the scalar
/// path) fails here as it would on a CPU without that path.
#[test]
fn under_every_cap_every_table_back_end_stays_within_it() {
    let _guard = lock();
    let moves = Moves::Squares;
    // Past 6·10^4 the running max passes 64, where bitset's AVX-512 path leaves its AVX2
    // start: both sides of every such switch are reached.
    let limit = 70_000;
    let want = table::build("stamped", &moves, limit).unwrap();
    for top in Isa::ALL.into_iter().filter(|i| i.on_cpu()) {
        isa::capped(top, || {
            for e in table::BACKENDS {
                if (e.make)()
                    .affordable_limit()
                    .is_some_and(|max| max < limit as usize)
                {
                    continue;
                }
                let t = table::build(e.name, &moves, limit)
                    .unwrap_or_else(|err| panic!("{} under a cap at {top}: {err}", e.name));
                assert_eq!(t, want, "{} under a cap at {top}", e.name);
            }
        });
    }
}

#[test]
fn a_path_forced_above_the_cap_is_dropped_and_comes_back_after() {
    let _guard = lock();
    isa::with(Isa::Portable, || {
        let inside = isa::capped(Isa::Scalar, || {
            // The table still builds (on the scalar path) while the cap holds.
            let t = table::build("stamped-lanes", &Moves::Squares, 2000).unwrap();
            (isa::active(), t)
        });
        assert_eq!(inside.0, Isa::Scalar);
        assert_eq!(
            inside.1,
            table::build("stamped", &Moves::Squares, 2000).unwrap()
        );
        assert_eq!(isa::active(), Isa::Portable);
    })
    .unwrap();
}

#[test]
fn a_capped_path_is_refused_naming_the_cap() {
    let _guard = lock();
    // Portable is on every CPU, so a cap at scalar refuses it everywhere.
    let e = isa::capped(Isa::Scalar, || isa::force(Isa::Portable))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("--isa portable") && e.contains("capped at scalar") && e.contains(CAP_ENV),
        "{e}"
    );
    assert!(e.ends_with("it supports scalar"), "{e}");
}

/// `--isa PATH solve` with the paths capped at `cap` through the environment.
fn solve_capped(cap: &str, path: &str) -> std::process::Output {
    nimsquare()
        .env(CAP_ENV, cap)
        .args(["--isa", path, "solve", "--limit", "29"])
        .output()
        .unwrap()
}

#[test]
fn the_binary_refuses_every_path_above_the_cap_and_runs_the_others() {
    for top in Isa::ALL {
        for path in Isa::ALL {
            let out = solve_capped(top.name(), path.name());
            let stderr = String::from_utf8_lossy(&out.stderr);
            if path.on_cpu() && path <= top {
                assert!(out.status.success(), "{path} under {top}: {stderr}");
                assert_eq!(String::from_utf8_lossy(&out.stdout), "1160\n");
            } else {
                assert_eq!(out.status.code(), Some(2), "{path} under {top}: {stderr}");
                assert_eq!(stderr.lines().count(), 1, "{stderr}");
                assert!(stderr.contains(&format!("--isa {path}")), "{stderr}");
                let why = if path.on_cpu() {
                    format!("capped at {top}")
                } else {
                    "this CPU does not support it".to_string()
                };
                assert!(stderr.contains(&why), "{path} under {top}: {stderr}");
            }
        }
    }
}

#[test]
fn auto_falls_back_to_the_widest_path_the_cap_leaves() {
    for top in Isa::ALL {
        let want = cpu_best().min(top);
        let json: serde_json::Value = serde_json::from_slice(
            &nimsquare()
                .env(CAP_ENV, top.name())
                .args(["--threads", "1", "solve", "--limit", "1e5", "--json"])
                .output()
                .unwrap()
                .stdout,
        )
        .unwrap();
        assert_eq!(json["isa"], want.name(), "cap {top}: {json}");
        assert_eq!(json["answer"], "2586528661783");
        // The table auto picks is the planner's choice for the path left, not for the CPU's.
        let pick = planner::choose_table_on(want, 100_000, 1).name;
        assert_eq!(json["table"], pick, "cap {top}: {json}");
        // `list` says what the cap hides.
        let text = String::from_utf8(
            nimsquare()
                .env(CAP_ENV, top.name())
                .arg("list")
                .output()
                .unwrap()
                .stdout,
        )
        .unwrap();
        let line = text
            .lines()
            .find(|l| l.starts_with("vector paths"))
            .unwrap();
        let hidden: Vec<&str> = Isa::ALL
            .into_iter()
            .filter(|i| !(i.on_cpu() && *i <= top))
            .map(|i| i.name())
            .collect();
        if hidden.is_empty() {
            assert!(!line.contains("unavailable"), "{line}");
        } else {
            assert!(
                line.ends_with(&format!("; unavailable: {}", hidden.join(", "))),
                "{line}"
            );
        }
    }
}

#[test]
fn a_bad_cap_is_refused_naming_the_variable() {
    let out = nimsquare()
        .env(CAP_ENV, "sse9")
        .args(["solve", "--limit", "10"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(out.stdout.is_empty());
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains(CAP_ENV) && stderr.contains("sse9"),
        "{stderr}"
    );
}
