//! `tune` and wisdom through the binary: a tuned file is followed by `auto`; crafted files
//! that match, belong to another CPU or build, are damaged or are missing are used or
//! ignored as documented; wisdom is off in every other test (`common::nimsquare`), and a
//! check below keeps every test file that starts the binary that way.

mod common;

use common::{assert_refused, nimsquare};
use nimsquare::run::wisdom::{OFF_VARIABLE, PATH_VARIABLE};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// A path `name` in a fresh folder of its own, removed with the folder when the test passes.
struct ScratchFile {
    path: PathBuf,
    _dir: common::Scratch,
}

impl std::ops::Deref for ScratchFile {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<Path> for ScratchFile {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<std::ffi::OsStr> for ScratchFile {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.path.as_os_str()
    }
}

fn scratch(name: &str) -> ScratchFile {
    let dir = common::Scratch::new(format!("nimsquare-tune-{}-{name}", std::process::id()));
    ScratchFile {
        path: dir.join(name),
        _dir: dir,
    }
}

/// What this binary reports about itself and this machine: build, version, active path.
fn here() -> (String, String, String) {
    let list = common::json_of(["list", "--json"]);
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            let field = |key: &str| {
                t.lines()
                    .find(|l| l.split(':').next().map(str::trim) == Some(key))
                    .and_then(|l| l.split_once(':'))
                    .map(|(_, v)| v.trim().to_string())
            };
            let name = field("model name")?;
            Some(
                match (field("cpu family"), field("model"), field("stepping")) {
                    (Some(f), Some(m), Some(s)) => {
                        format!("{name} (family {f} model {m} stepping {s})")
                    }
                    _ => name,
                },
            )
        })
        .unwrap_or_else(|| "unknown".into());
    let build = format!(
        "{}\u{0}{}",
        list["version"].as_str().unwrap(),
        list["build"].as_str().unwrap()
    );
    (
        build,
        cpu,
        list["isa"]["active"].as_str().unwrap().to_string(),
    )
}

/// A wisdom file for this machine and build naming `table` from N = 0 for one thread.
fn crafted(table: &str) -> Value {
    let (build, cpu, isa) = here();
    let (version, build) = build.split_once('\u{0}').unwrap();
    json!({
        "format": "nimsquare-wisdom/1",
        "version": version, "build": build, "cpu": cpu, "isa": isa,
        "moves": "squares", "date": "2026-12-01", "measured_up_to": 1000, "repeats": 1,
        "plans": [{"threads": 1, "steps": [{"from": 0, "table": table, "basis": "measured"}]}]
    })
}

/// The value of `key` (with its `=`) among the whitespace-separated fields of `line`.
fn field(line: &str, key: &str) -> String {
    line.split_whitespace()
        .find_map(|f| f.strip_prefix(key))
        .unwrap_or_else(|| panic!("no {key} in {line}"))
        .trim_end_matches(':')
        .to_string()
}

fn write(path: &Path, value: &Value) {
    std::fs::write(path, serde_json::to_string_pretty(value).unwrap()).unwrap();
}

/// `solve --json` at N = 1000 on one thread with `--wisdom path`: (table, table_choice,
/// stderr).
fn solve_with(path: &Path) -> (String, String, String) {
    let out = nimsquare()
        .args(["--threads", "1", "--wisdom", path.to_str().unwrap()])
        .args(["solve", "--limit", "1000", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    (
        v["table"].as_str().unwrap().into(),
        v["table_choice"].as_str().unwrap().into(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

// At N = 1000 the built-in choice is stamped-lanes on every path (results/table/planner.md), so
// `bitset` there can only come from the file.
const BUILT_IN_AT_1000: &str = "stamped-lanes";

#[test]
fn matching_wisdom_is_followed_and_reported() {
    let path = scratch("match.json");
    write(&path, &crafted("bitset"));
    let (table, choice, stderr) = solve_with(&path);
    assert_eq!(table, "bitset");
    assert_eq!(
        choice,
        format!("wisdom {}, measured 2026-12-01", path.display())
    );
    assert!(stderr.is_empty(), "{stderr}");
    // A named back-end is not auto's choice.
    let v = common::json_of([
        "--wisdom",
        path.to_str().unwrap(),
        "solve",
        "--limit",
        "1000",
        "--table",
        "stamped",
        "--json",
    ]);
    assert_eq!(v["table_choice"], "named");
    // Another thread count than the file's: the built-in choice, saying why.
    let v = common::json_of([
        "--threads",
        "2",
        "--wisdom",
        path.to_str().unwrap(),
        "solve",
        "--limit",
        "1000",
        "--json",
    ]);
    assert_eq!(v["table"], BUILT_IN_AT_1000);
    assert!(
        v["table_choice"]
            .as_str()
            .unwrap()
            .contains("tuned for 1 threads, not 2"),
        "{v}"
    );
    // `list` says which choices are in force.
    let out = nimsquare()
        .args(["--threads", "1", "--wisdom", path.to_str().unwrap(), "list"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(&format!(
            "auto's table choices: wisdom {}, measured 2026-12-01",
            path.display()
        )),
        "{text}"
    );
}

/// A change that makes a matching file foreign, stale or damaged.
type Spoil = Box<dyn Fn(&mut Value)>;

#[test]
fn foreign_stale_and_damaged_files_are_ignored_with_one_note() {
    let cases: [(&str, Spoil, &str); 6] = [
        (
            "foreign",
            Box::new(|v| v["cpu"] = "Some Other CPU 9000".into()),
            "Some Other CPU 9000",
        ),
        (
            // Another generation that reports the same model name ("AMD EPYC" on three).
            "same name",
            Box::new(|v| {
                let cpu = v["cpu"].as_str().unwrap();
                let name = cpu.split(" (family").next().unwrap();
                v["cpu"] = format!("{name} (family 99 model 7 stepping 0)").into();
            }),
            "(family 99 model 7 stepping 0)",
        ),
        (
            "stale",
            Box::new(|v| v["build"] = "0000000".into()),
            "run `nimsquare tune` again",
        ),
        (
            "unknown back-end",
            Box::new(|v| v["plans"][0]["steps"][0]["table"] = "warp-drive".into()),
            "'warp-drive' is not a fast table back-end",
        ),
        (
            "a control",
            Box::new(|v| v["plans"][0]["steps"][0]["table"] = "naive-mex".into()),
            "'naive-mex'",
        ),
        (
            "wrong format",
            Box::new(|v| v["format"] = "something-else".into()),
            "is damaged",
        ),
    ];
    for (what, spoil, says) in cases {
        let path = scratch(&format!("{}.json", what.replace(' ', "-")));
        let mut v = crafted("bitset");
        spoil(&mut v);
        write(&path, &v);
        let (table, choice, stderr) = solve_with(&path);
        assert_eq!(table, BUILT_IN_AT_1000, "{what}");
        assert_eq!(choice, "built-in", "{what}");
        assert_eq!(stderr.lines().count(), 1, "{what}: {stderr}");
        assert!(
            stderr.starts_with("note: wisdom") && stderr.contains(says),
            "{what}: {stderr}"
        );
    }
    // Not JSON at all, or cut short.
    for text in ["{not json", "", "{\"format\": \"nimsquare-wisdom/1\""] {
        let path = scratch("broken.json");
        std::fs::write(&path, text).unwrap();
        let (table, _, stderr) = solve_with(&path);
        assert_eq!(table, BUILT_IN_AT_1000);
        assert!(stderr.contains("is damaged"), "{text:?}: {stderr}");
        assert!(!stderr.contains("panicked"));
    }
}

#[test]
fn the_environment_names_the_file_and_turns_wisdom_off() {
    let path = scratch("env.json");
    write(&path, &crafted("bitset"));
    let run = |off: Option<&str>| {
        let mut cmd = nimsquare();
        cmd.env_remove(OFF_VARIABLE).env(PATH_VARIABLE, &path);
        if let Some(o) = off {
            cmd.env(OFF_VARIABLE, o);
        }
        let out = cmd
            .args(["--threads", "1", "solve", "--limit", "1000", "--json"])
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v["table"].as_str().unwrap().to_string()
    };
    assert_eq!(run(None), "bitset");
    assert_eq!(run(Some("0")), "bitset");
    assert_eq!(run(Some("1")), BUILT_IN_AT_1000);
    // A file the variable names but that is not there: normal, silent, built-in.
    let missing = scratch("missing.json");
    let out = nimsquare()
        .env_remove(OFF_VARIABLE)
        .env(PATH_VARIABLE, &missing)
        .args(["solve", "--limit", "1000", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success() && out.stderr.is_empty(), "{out:?}");
    // The same file named on the command line is a mistake, refused before any work.
    let e = assert_refused(&[
        "--wisdom",
        missing.to_str().unwrap(),
        "solve",
        "--limit",
        "1000",
    ]);
    assert!(e.contains("--wisdom") && e.contains("no such file"), "{e}");
}

#[test]
fn tune_writes_wisdom_that_auto_then_follows() {
    let path = scratch("tuned.json");
    let out = nimsquare()
        .args([
            "--threads",
            "2",
            "tune",
            "--to",
            "3000",
            "--model-to",
            "1e4",
        ])
        .args(["--repeat", "1", "--wisdom", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let wisdom: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(wisdom["measured_up_to"], 3000);
    let plans = wisdom["plans"].as_array().unwrap();
    assert_eq!(
        plans
            .iter()
            .map(|p| p["threads"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        [1, 2]
    );
    for plan in plans {
        let threads = plan["threads"].as_u64().unwrap();
        // Every measured step is the fastest median its `time` lines printed at its first
        // grid point: read back from the stdout lines, not from the library.
        let mut grid: Vec<u64> = text
            .lines()
            .filter_map(|l| l.strip_prefix(&format!("time threads={threads} n=")))
            .map(|rest| rest.split_whitespace().next().unwrap().parse().unwrap())
            .collect();
        grid.dedup();
        assert_eq!((grid[0], *grid.last().unwrap(), grid.len()), (100, 3000, 4));
        let steps = plan["steps"].as_array().unwrap();
        let modelled = steps.iter().filter(|s| s["basis"] == "modelled").count();
        assert!(modelled >= 1, "{plan}");
        let mut previous: Option<String> = None;
        for n in grid {
            let fastest = text
                .lines()
                .filter(|l| l.starts_with(&format!("time threads={threads} n={n} ")))
                .map(|l| {
                    (
                        field(l, "seconds=").parse::<f64>().unwrap(),
                        field(l, "table="),
                    )
                })
                .min_by(|a, b| a.0.total_cmp(&b.0))
                .unwrap()
                .1;
            let choose = text
                .lines()
                .find(|l| l.starts_with(&format!("choose threads={threads} n={n} ")))
                .unwrap_or_else(|| panic!("a choose line at {n}: {text}"));
            let chosen = field(choose, "table=");
            // The fastest median, unless the choice at the N before was kept within noise:
            // then the line names the fastest and the pair ratios, whose lowest is not above 1.
            match field(choose, "basis=").as_str() {
                "measured" => assert_eq!(chosen, fastest, "{choose}"),
                "within-noise" => {
                    assert_eq!(field(choose, "fastest="), fastest, "{choose}");
                    assert!(field(choose, "ratio_low=").parse::<f64>().unwrap() <= 1.0);
                    let kept = previous.clone().unwrap_or_else(|| {
                        let c = plan["choices"].as_array().unwrap().iter();
                        let at_n = c.clone().find(|c| c["n"] == n).unwrap();
                        at_n["built_in"].as_str().unwrap().to_string()
                    });
                    assert_eq!(chosen, kept, "{choose}");
                }
                other => panic!("basis {other} at a timed N: {choose}"),
            }
            let step = steps
                .iter()
                .rev()
                .find(|s| s["from"].as_u64().unwrap() <= n)
                .unwrap();
            assert_eq!(step["table"], chosen.as_str(), "threads {threads} N {n}");
            if threads == 1 {
                assert!(!chosen.contains("parallel"), "{chosen}");
            }
            previous = Some(chosen);
        }
        // The file holds the same choices, with the built-in one at each N.
        let choices = plan["choices"].as_array().unwrap();
        assert!(choices.len() >= 4, "{plan}");
        assert!(choices.iter().all(|c| c["built_in"].is_string()));
    }
    // `auto` follows the file at a point it measured.
    let step_at_1000 = plans[0]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|s| s["from"].as_u64().unwrap() <= 1000)
        .unwrap()["table"]
        .clone();
    let (table, choice, _) = solve_with(&path);
    assert_eq!(table, step_at_1000.as_str().unwrap());
    assert!(choice.starts_with("wisdom "), "{choice}");
    // An existing file is not replaced without --force, before any work.
    let e = assert_refused(&["tune", "--to", "1000", "--wisdom", path.to_str().unwrap()]);
    assert!(e.contains("--force"), "{e}");
}

#[test]
fn tune_refuses_before_any_work() {
    let e = assert_refused(&["tune", "--to", "50", "--wisdom", "/tmp/x.json"]);
    assert!(e.contains("--to") && e.contains("100"), "{e}");
    // Wisdom turned off and no file named: nowhere to write.
    let e = assert_refused(&["tune", "--to", "1000"]);
    assert!(
        e.contains(OFF_VARIABLE) && e.contains("--wisdom FILE"),
        "{e}"
    );
    let e = assert_refused(&["tune", "--wisdom", std::env::temp_dir().to_str().unwrap()]);
    assert!(e.contains("folder"), "{e}");
}

#[test]
fn scale_times_auto_beside_the_others() {
    let out = scratch("scale.csv");
    let text = common::stdout_of([
        "scale",
        "--table",
        "auto,stamped",
        "--from",
        "50",
        "--to",
        "2000",
        "--points",
        "2",
        "--repeat",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    // Below N = 100 auto is plain stamped, from 100 on stamped-lanes (built-in choices).
    assert!(
        text.contains("row backend=auto chose=stamped n=50 "),
        "{text}"
    );
    assert!(
        text.contains("row backend=auto chose=stamped-lanes n=2000 "),
        "{text}"
    );
    let e = assert_refused(&["scale", "--table", "autox", "--out", "/tmp/never.csv"]);
    assert!(e.contains("auto, naive-mex"), "{e}");
}

/// Every test file that starts the binary turns wisdom off (through `common`, or by setting
/// the variable itself), so a developer's cached wisdom never changes a test.
#[test]
fn every_test_that_starts_the_binary_turns_wisdom_off() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let starts =
            text.matches("CARGO_BIN_EXE_nimsquare").count() + text.matches("cargo_bin(").count();
        let off = text.matches("OFF_VARIABLE").count();
        assert!(
            starts == 0 || off >= starts,
            "{} starts the binary {starts} times but turns wisdom off {off} times; use common::nimsquare()",
            path.display()
        );
    }
}

/// Without `--wisdom` or the path variable, wisdom is read from the user's cache folder:
/// `$XDG_CACHE_HOME/nimsquare/wisdom.json`, else (unset or empty) `$HOME/.cache/...`.
#[test]
fn wisdom_is_read_from_the_cache_folder_by_default() {
    let dir = common::Scratch::new(format!("nimsquare-tune-{}-cache", std::process::id()));
    let xdg = dir.join("xdg");
    let home = dir.join("home");
    for file in [xdg.join("nimsquare"), home.join(".cache").join("nimsquare")] {
        std::fs::create_dir_all(&file).unwrap();
        write(&file.join("wisdom.json"), &crafted("bitset"));
    }
    let choice = |xdg_value: &Path| -> String {
        let out = nimsquare()
            .env_remove(OFF_VARIABLE)
            .env_remove(PATH_VARIABLE)
            .env("XDG_CACHE_HOME", xdg_value)
            .env("HOME", &home)
            .args(["--threads", "1", "solve", "--limit", "1000", "--json"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v["table_choice"].as_str().unwrap().to_string()
    };
    let from = |p: PathBuf| format!("wisdom {}, measured 2026-12-01", p.display());
    assert_eq!(
        choice(&xdg),
        from(xdg.join("nimsquare").join("wisdom.json"))
    );
    let in_home = from(home.join(".cache").join("nimsquare").join("wisdom.json"));
    assert_eq!(choice(Path::new("")), in_home);
}
