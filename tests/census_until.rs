//! The until-proved census (`census --until-proved --max-limit M [--budget S]`): each row is
//! what one `octal CODE --limit N` run says at the N the row reached, and that N is the first
//! doubling point where the theorem proves a period (the point before is open); a run
//! stopped (killed, or by SIGTERM) and resumed writes the rows of an uninterrupted one, going
//! on from the tables it kept; bad flag combinations are refused before any work; a build
//! that panics is that code's error row and the others finish.

mod common;

use common::{assert_refused, census_facts, nimsquare, nimsquare_process, Scratch};
use serde_json::Value;
use std::path::Path;

fn scratch(name: &str) -> Scratch {
    Scratch::new(format!(
        "nimsquare-census-until-{name}-{}",
        std::process::id()
    ))
}

/// `octal CODE --limit N --json`: (status, preperiod, period, max_value).
fn octal(code: &str, n: u64) -> (String, Value, Value, Value) {
    let out = common::stdout_of(["octal", code, "--limit", &n.to_string(), "--json"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    (
        v["status"].as_str().unwrap().to_string(),
        v["preperiod"].clone(),
        v["period"].clone(),
        v["max_value"].clone(),
    )
}

/// The rows of `census ARGS --json --quiet`.
fn json_rows(args: &[&str]) -> Vec<Value> {
    let out = common::stdout_of(
        ["census", "--json", "--quiet"]
            .iter()
            .chain(args)
            .copied()
            .collect::<Vec<_>>(),
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["until_proved"], true);
    v["rows"].as_array().unwrap().clone()
}

#[test]
fn each_row_is_the_octal_run_at_the_n_it_reached() {
    let (limit, most) = (64u64, 4096u64);
    let rows = json_rows(&[
        "--digits",
        "2",
        "--limit",
        "64",
        "--until-proved",
        "--max-limit",
        "4096",
    ]);
    assert_eq!(rows.len(), 2 * (7 + 56));
    let (mut proved, mut at_limit) = (0, 0);
    for row in &rows {
        let code = row["code"].as_str().unwrap();
        let n = row["limit"].as_u64().unwrap();
        // a doubling point: 64, 128, ..., 4096
        assert!(n.is_power_of_two() && (limit..=most).contains(&n), "{row}");
        let single = octal(code, n);
        assert_eq!(
            (
                row["status"].as_str().unwrap().to_string(),
                row["preperiod"].clone(),
                row["period"].clone(),
                row["max_value"].clone()
            ),
            single,
            "{code} at N = {n}"
        );
        match row["stop"].as_str().unwrap() {
            "proved" => {
                proved += 1;
                assert_eq!(single.0, "periodic", "{row}");
                // the first point that proves it: the one before is open
                if n > limit {
                    assert_eq!(octal(code, n / 2).0, "open", "{code} at N = {}", n / 2);
                }
            }
            "limit" => {
                at_limit += 1;
                assert_eq!((n, single.0.as_str()), (most, "open"), "{row}");
            }
            other => panic!("{code}: stop {other} without a budget"),
        }
    }
    // Dawson's Kayles (0.07): period 34 from 53, proved once N >= 2·53 + 2·34 + 3 - 1 = 176,
    // so at 256 (the theorem's range in the seeds' guide); Officers (0.6) is open far beyond.
    let find = |code: &str| rows.iter().find(|r| r["code"] == code).unwrap();
    let kayles = find("0.07");
    assert_eq!(
        (&kayles["limit"], &kayles["preperiod"], &kayles["period"]),
        (&Value::from(256), &Value::from(53), &Value::from(34))
    );
    assert_eq!(find("0.6")["stop"], "limit");
    assert!(
        proved > 100 && at_limit > 0,
        "{proved} proved, {at_limit} at the limit"
    );
    // The text table names each row's N and stop, and the tally.
    let text = common::stdout_of([
        "census",
        "--codes",
        "0.07,0.6",
        "--limit",
        "64",
        "--until-proved",
        "--max-limit",
        "4096",
        "--quiet",
    ]);
    assert!(text.contains("doubled until proved, up to 4096"), "{text}");
    let kayles = text.lines().find(|l| l.starts_with("0.07 ")).unwrap();
    let words: Vec<&str> = kayles.split_whitespace().collect();
    assert_eq!(
        words[..7],
        ["0.07", "53", "34", "9", "-", "256", "proved"],
        "{text}"
    );
    assert!(
        text.contains("2 codes: 1 periodic, 1 open (1 at --max-limit 4096, 0 out of --budget)"),
        "{text}"
    );
}

#[test]
fn a_budget_stops_a_code_at_an_n_whose_row_is_the_octal_run_there() {
    // 0.346 has no sparse space: quadratic, hours to 2^22, so its budget stops it.
    let rows = json_rows(&[
        "--codes",
        "0.346,0.07",
        "--limit",
        "64",
        "--until-proved",
        "--max-limit",
        "4194304",
        "--budget",
        "0.3",
    ]);
    let slow = rows.iter().find(|r| r["code"] == "0.346").unwrap();
    assert_eq!(slow["stop"], "budget", "{slow}");
    let n = slow["limit"].as_u64().unwrap();
    assert!(n < 4194304, "{slow}");
    // within the budget and at most an eighth of a doubling past it (with slack for a busy machine)
    assert!(slow["seconds"].as_f64().unwrap() >= 0.3, "{slow}");
    let single = octal("0.346", n);
    assert_eq!(
        (slow["status"].as_str().unwrap(), &slow["max_value"]),
        (single.0.as_str(), &single.3)
    );
    let kayles = rows.iter().find(|r| r["code"] == "0.07").unwrap();
    assert_eq!(
        (&kayles["stop"], &kayles["limit"]),
        (&Value::from("proved"), &Value::from(256))
    );
}

fn text(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

/// The number of tables kept in `folder`.
fn tables(folder: &Path) -> usize {
    std::fs::read_dir(folder).map_or(0, |d| {
        d.filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "table"))
        })
        .count()
    })
}

#[test]
fn a_stopped_and_resumed_census_equals_an_uninterrupted_one() {
    let dir = scratch("resume");
    // Quadratic codes (no sparse space) that take about a second to 2^15 with octal-block's
    // candidate search, and quick ones. Not auto: it copies .07's and .137's proved periods
    // and marks .346's and .76's pairs fast enough that every code could end between the
    // first kept table and the signal.
    let base = [
        "census",
        "--codes",
        "0.07,0.137,0.346,0.76,0.6,4.1",
        "--limit",
        "64",
        "--until-proved",
        "--max-limit",
        "32768",
        "--backend",
        "octal-block",
    ];
    let whole = dir.join("whole.csv");
    nimsquare()
        .args(base)
        .args(["--quiet", "--out", whole.to_str().unwrap()])
        .assert()
        .success();
    let all = text(&whole);
    assert!(
        all.lines().nth(1).unwrap().contains(",status,stop,"),
        "{all}"
    );
    assert_eq!(all.lines().count(), 2 + 6);
    assert!(!dir.join("whole.csv.tables").exists());
    for (signal, name) in [(libc::SIGKILL, "killed"), (libc::SIGTERM, "termed")] {
        let file = dir.join(format!("{name}.csv"));
        let folder = dir.join(format!("{name}.csv.tables"));
        let mut child = nimsquare_process()
            .args(base)
            .args(["--quiet", "--out", file.to_str().unwrap()])
            // a table at every doubling point, so there is one to go on from
            .env("NIMSQUARE_CENSUS_TABLE_EVERY", "0")
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let stopped = loop {
            if child.try_wait().unwrap().is_some() {
                break false;
            }
            if tables(&folder) > 0 {
                // SAFETY: a signal to the child this test spawned and still holds.
                unsafe { libc::kill(child.id() as libc::pid_t, signal) };
                break true;
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        };
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stopped,
            "{name}: the census ended before a table was kept: {stderr}"
        );
        if signal == libc::SIGTERM {
            // stopped at once, every code in flight with its table kept
            assert_eq!(out.status.code(), Some(143), "{stderr}");
            assert!(stderr.contains("--resume"), "{stderr}");
        }
        let kept = tables(&folder);
        assert!(kept > 0, "{name}");
        let marked = mark_tables(&folder, &file);
        assert!(!marked.is_empty());
        let resumed = nimsquare()
            .args(base)
            .args(["--resume", "--out", file.to_str().unwrap()])
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&resumed.stderr);
        assert!(resumed.status.success(), "{name}: {said}");
        assert!(
            said.contains("go on from their tables in"),
            "{name}: {said}"
        );
        assert_eq!(census_facts(&text(&file)), census_facts(&all), "{name}");
        for code in &marked {
            assert!(
                seconds_of(&text(&file), code) >= 1e6,
                "{name}: {code} started again"
            );
        }
        assert!(
            !folder.exists(),
            "{name}: the tables are removed at the end"
        );
    }
}

#[test]
fn bad_until_proved_flags_are_refused_before_any_work() {
    let dir = scratch("refusals");
    for (args, says) in [
        (
            &["--max-limit", "4096"][..],
            "--max-limit needs --until-proved",
        ),
        (&["--budget", "5"], "--budget needs --until-proved"),
        (&["--until-proved"], "--until-proved needs --max-limit"),
        (
            &["--until-proved", "--limit", "64", "--max-limit", "32"],
            "--max-limit 32 is below --limit 64",
        ),
        (
            &["--until-proved", "--max-limit", "4096", "--budget", "0"],
            "--budget 0",
        ),
        (
            &["--until-proved", "--max-limit", "4096", "--budget", "-2"],
            "--budget -2",
        ),
        (
            &[
                "--until-proved",
                "--max-limit",
                "1e6",
                "--backend",
                "octal-naive",
            ],
            "--max-limit",
        ),
    ] {
        let e = assert_refused(&[&["census", "--digits", "1"][..], args].concat());
        assert!(e.contains(says), "{args:?}: {e}");
    }
    // A rows file of one until-proved census is not resumed by another.
    let file = dir.join("one.csv");
    let path = file.to_str().unwrap();
    let base = [
        "census",
        "--digits",
        "1",
        "--limit",
        "64",
        "--until-proved",
        "--quiet",
    ];
    nimsquare()
        .args(base)
        .args(["--max-limit", "1024", "--out", path])
        .assert()
        .success();
    let before = text(&file);
    for (more, says) in [
        (
            &["--max-limit", "2048"][..],
            "max limit (1024 there, 2048 here)",
        ),
        (
            &["--max-limit", "1024", "--budget", "9"],
            "budget (none there, 9 s here)",
        ),
    ] {
        let e = assert_refused(&[&base[..], more, &["--resume", "--out", path]].concat());
        assert!(e.contains(says), "{more:?}: {e}");
    }
    // A census at one N does not resume an until-proved file either.
    let e = assert_refused(&[
        "census", "--digits", "1", "--limit", "64", "--resume", "--out", path,
    ]);
    assert!(e.contains("max limit (1024 there, none here)"), "{e}");
    assert_eq!(text(&file), before);
}

/// A build that panics (the `testing` feature's hook) is its code's error row; the other
/// codes finish, the rows file lacks that code, and a resume without the fault completes it.
#[cfg(feature = "testing")]
#[test]
fn a_panicking_build_is_an_error_row_and_the_census_goes_on() {
    let dir = scratch("panic");
    let base = ["census", "--digits", "2", "--limit", "300", "--quiet"];
    let whole = dir.join("whole.csv");
    nimsquare()
        .args(base)
        .args(["--out", whole.to_str().unwrap()])
        .assert()
        .success();
    let panic = nimsquare::census::PANIC_CODE_VARIABLE;
    // Printed: the error row among the others, exit 1, one line on stderr naming it.
    let out = nimsquare()
        .args(base)
        .arg("--csv")
        .env(panic, "0.6")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("census: 0.6 failed: census code 0.6: the build panicked"),
        "{stderr}"
    );
    let printed: Vec<&str> = stdout.lines().skip(1).collect();
    assert_eq!(printed.len(), 2 * (7 + 56));
    let whole_text = text(&whole);
    let facts = census_facts(&whole_text);
    for (line, fact) in census_facts(&stdout)
        .iter()
        .skip(1)
        .zip(facts.iter().skip(2))
    {
        if line.starts_with("0.6,") {
            assert!(line.starts_with("0.6,300,error,,,,,"), "{line}");
        } else {
            assert_eq!(line, fact);
        }
    }
    // Kept: every row but 0.6's, then --resume builds it.
    let file = dir.join("part.csv");
    let out = nimsquare()
        .args(base)
        .args(["--out", file.to_str().unwrap()])
        .env(panic, "0.6")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--resume"));
    assert_eq!(text(&file).lines().count(), whole_text.lines().count() - 1);
    assert!(!text(&file).contains("\n0.6,"));
    nimsquare()
        .args(base)
        .args(["--resume", "--out", file.to_str().unwrap()])
        .assert()
        .success();
    assert_eq!(census_facts(&text(&file)), facts);
    // Until proved, the error row keeps the stop column (empty): its fields line up.
    let out = nimsquare()
        .args([
            "census", "--codes", "0.07,0.6", "--limit", "64", "--csv", "--quiet",
        ])
        .args(["--until-proved", "--max-limit", "1024"])
        .env(panic, "0.6")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let fields = |l: &str| l.split('"').next().unwrap().split(',').count();
    let lines: Vec<&str> = stdout.lines().collect();
    let (head, error) = (
        lines[0],
        lines.iter().find(|l| l.starts_with("0.6,")).unwrap(),
    );
    assert!(error.starts_with("0.6,64,error,,,,,,") && !error.starts_with("0.6,64,error,,,,,,,"));
    assert_eq!(
        fields(error),
        head.split(",cpu,").next().unwrap().split(',').count() + 1
    );
}

#[test]
fn until_proved_shards_merged_equal_the_whole() {
    let dir = scratch("shards");
    let base = [
        "census",
        "--digits",
        "2",
        "--limit",
        "64",
        "--until-proved",
        "--max-limit",
        "2048",
        "--quiet",
    ];
    let whole = dir.join("whole.csv");
    nimsquare()
        .args(base)
        .args(["--out", whole.to_str().unwrap()])
        .assert()
        .success();
    let parts: Vec<String> = (0..2)
        .map(|i| {
            let part = dir.join(format!("part{i}.csv"));
            nimsquare()
                .args(base)
                .args([
                    "--shard",
                    &format!("{i}/2"),
                    "--out",
                    part.to_str().unwrap(),
                ])
                .assert()
                .success();
            part.to_str().unwrap().to_string()
        })
        .collect();
    let merged = common::stdout_of(["census", "merge", &parts[1], &parts[0]]);
    assert_eq!(census_facts(&merged), census_facts(&text(&whole)));
}

/// Marks each table in `folder` with a million seconds spent (its `.seconds` file): a code
/// that goes on from its table carries them into its row, one that starts again does not.
/// Returns the codes marked that have no row in the rows file `rows` yet (a kill may come
/// between a code's row and the removal of its table).
fn mark_tables(folder: &Path, rows: &Path) -> Vec<String> {
    let rows = std::fs::read_to_string(rows).unwrap_or_default();
    let mut codes = Vec::new();
    for entry in std::fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|x| x == "table") {
            let code = path.file_stem().unwrap().to_str().unwrap().to_string();
            std::fs::write(folder.join(format!("{code}.seconds")), "1000000\n").unwrap();
            if !rows.lines().any(|l| l.starts_with(&format!("{code},"))) {
                codes.push(code);
            }
        }
    }
    codes
}

/// The seconds column of `code`'s row in the CSV rows file text `rows` (the third from the
/// end: seconds, positions a second, check).
fn seconds_of(rows: &str, code: &str) -> f64 {
    let line = rows
        .lines()
        .find(|l| l.starts_with(&format!("{code},")))
        .unwrap();
    line.rsplit(',').nth(2).unwrap().parse().unwrap()
}
