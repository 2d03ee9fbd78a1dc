//! The progress bar of `verify` and `profile`, seen through a pseudo-terminal (`script` from
//! util-linux): drawn for a table build longer than a second, with positions, option steps per
//! second and an ETA, labelled with the back-end; `--quiet` turns it off. Without a terminal,
//! plain lines at an interval instead (a minute by default, so a short run prints nothing:
//! tests/cli_longrun.rs checks that for `solve`).

use std::path::PathBuf;
use std::process::Command;

/// Runs the binary with `args` on a pseudo-terminal and returns everything it wrote there
/// (stdout and stderr together), with the bar's carriage returns turned into newlines.
fn on_a_terminal(args: &[&str]) -> String {
    let bin = env!("CARGO_BIN_EXE_nimsquare");
    let line = std::iter::once(bin)
        .chain(args.iter().copied())
        .collect::<Vec<_>>()
        .join(" ");
    let out = Command::new("script")
        .args(["-qfec", &line, "/dev/null"])
        .env(nimsquare::run::wisdom::OFF_VARIABLE, "1")
        .output()
        .expect("`script` (util-linux) runs the binary on a pseudo-terminal");
    assert!(out.status.success(), "{line}: {out:?}");
    String::from_utf8_lossy(&out.stdout).replace('\r', "\n")
}

fn scratch(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("nimsquare-progress-{}-{name}", std::process::id()))
}

/// True when `text` holds a bar line for `backend` with every part the issue asks for.
fn has_bar(text: &str, backend: &str) -> bool {
    text.lines().any(|l| {
        l.contains(backend)
            && l.contains(" positions")
            && l.contains("steps/s")
            && l.contains("ETA")
    })
}

#[test]
fn profile_draws_a_bar_for_a_long_build_and_quiet_removes_it() {
    let out = scratch("profile.svg");
    let out = out.to_str().unwrap();
    // `stamped` at 3·10^6 is some 3·10^9 option steps: well over the bar's first second.
    let args = [
        "profile",
        "--limit",
        "3e6",
        "--table",
        "stamped",
        "--samples",
        "0",
        "--out",
        out,
    ];
    let shown = on_a_terminal(&args);
    assert!(has_bar(&shown, "stamped"), "{shown}");
    // The second run writes over the first's graph, so it says so (--force).
    let quiet = on_a_terminal(&[&args[..], &["--quiet", "--force"]].concat());
    assert!(!quiet.contains("steps/s"), "{quiet}");
    assert!(quiet.contains("wrote "), "{quiet}");
    let _ = std::fs::remove_file(out);
}

#[test]
fn verify_of_a_saved_table_draws_a_bar_for_its_judge() {
    let table = scratch("t.tbl");
    let path = table.to_str().unwrap();
    let _ = std::fs::remove_file(&table);
    let status = Command::new(env!("CARGO_BIN_EXE_nimsquare"))
        .env(nimsquare::run::wisdom::OFF_VARIABLE, "1")
        .args(["solve", "--limit", "3e6", "--quiet", "--save-table", path])
        .output()
        .unwrap()
        .status;
    assert!(status.success());
    // Up to 10^7 the judge of a saved table is the reference, `stamped`.
    let shown = on_a_terminal(&["verify", "--load-table", path]);
    assert!(has_bar(&shown, "stamped"), "{shown}");
    assert!(shown.contains("all checks passed"), "{shown}");
    let quiet = on_a_terminal(&["verify", "--quiet", "--load-table", path]);
    assert!(!quiet.contains("steps/s"), "{quiet}");
    let _ = std::fs::remove_file(&table);
}

/// Off a terminal (stderr a pipe, as in a background job or a batch log) a long build prints
/// plain progress lines at the interval NIMSQUARE_PROGRESS_EVERY sets (a minute by default),
/// each with the position, the rate and an ETA; `--quiet` prints none.
#[test]
fn off_a_terminal_a_long_build_prints_plain_lines_and_quiet_removes_them() {
    let run = |quiet: bool| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_nimsquare"));
        cmd.args(["solve", "--table", "stamped", "--limit", "2e6"])
            .env(nimsquare::run::wisdom::OFF_VARIABLE, "1")
            .env("NIMSQUARE_PROGRESS_EVERY", "0.1");
        if quiet {
            cmd.arg("--quiet");
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{out:?}");
        (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let (answer, stderr) = run(false);
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("progress: "))
        .collect();
    assert!(!lines.is_empty(), "no progress line: {stderr}");
    for line in &lines {
        assert!(line.contains(" of 2000001 positions ("), "{line}");
        assert!(line.contains(" steps/s, ETA "), "{line}");
        assert!(line.ends_with(" so far"), "{line}");
    }
    let (quiet_answer, quiet_stderr) = run(true);
    assert_eq!(answer, quiet_answer);
    assert!(quiet_stderr.is_empty(), "{quiet_stderr}");
}

/// An octal build's plain progress lines count values a second, and their ETA comes from
/// positions: a rare/common back-end spends about the same on each position, so the time
/// left is about the positions left over the rate (an ETA from the quadratic option steps
/// would promise several times too late a finish).
#[test]
fn off_a_terminal_an_octal_build_counts_values_a_second() {
    let out = Command::new(env!("CARGO_BIN_EXE_nimsquare"))
        .args(["octal", "0.6", "--limit", "1e6"])
        .env(nimsquare::run::wisdom::OFF_VARIABLE, "1")
        .env("NIMSQUARE_PROGRESS_EVERY", "0.05")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("progress: auto g(0.."))
        .collect();
    assert!(!lines.is_empty(), "no progress line: {stderr}");
    for line in &lines {
        assert!(line.contains(" of 1000001 positions ("), "{line}");
        assert!(line.contains(" values/s, ETA "), "{line}");
        assert!(!line.contains("steps/s"), "{line}");
    }
}
