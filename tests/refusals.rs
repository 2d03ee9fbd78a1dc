//! Process-wide CLI behaviour: refusals shared by every subcommand (`--threads`, `--limit`,
//! output paths) and a closed stdout ending the program quietly.

mod common;

use common::{assert_refused, nimsquare};
use std::io::{BufRead, BufReader};
use std::process::Stdio;

/// A fresh empty folder under the system temp dir, unique to this test.
fn scratch(name: &str) -> common::Scratch {
    let dir = common::Scratch::new(format!("nimsquare-refusals-{name}-{}", std::process::id()));
    dir
}

#[test]
fn threads_above_eight_per_core_are_refused_before_any_work() {
    // The limit computed here independently of the binary: 8 threads per reported core.
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let limit = 8 * cores;
    let stderr = assert_refused(&["--threads", &(limit + 1).to_string(), "list"]);
    assert!(stderr.contains("--threads"), "{stderr}");
    assert!(
        stderr.contains(&format!("between 1 and {limit}")),
        "{stderr}"
    );
    let stderr = assert_refused(&["--threads", "100000", "list"]);
    assert!(stderr.contains("per core"), "{stderr}");
    // The limit itself is accepted.
    nimsquare()
        .args(["--threads", &limit.to_string(), "list"])
        .assert()
        .success();
}

/// The b-file of the values up to N = 10^6: (N + 1) lines of at least 4 bytes ("n v\n"
/// with n of 1 digit at least and v of 1), over 4 MB, more than any pipe holds (Linux caps a
/// pipe at /proc/sys/fs/pipe-max-size, 1 MiB by default; an unprivileged process gets 64
/// KiB unless it asks), so the writer cannot have finished when the reader goes.
const BIG_OUTPUT: [&str; 4] = ["sequence", "values", "--limit", "1000000"];
const BIG_OUTPUT_LEAST_BYTES: u64 = 4 * 1_000_001;

/// A pipe can hold less than the output of [`BIG_OUTPUT`].
fn output_cannot_fit_a_pipe() {
    let cap: u64 = std::fs::read_to_string("/proc/sys/fs/pipe-max-size")
        .map_or(1 << 20, |s| s.trim().parse().unwrap());
    assert!(BIG_OUTPUT_LEAST_BYTES > 2 * cap, "pipe-max-size {cap}");
}

#[test]
#[cfg(unix)]
fn a_closed_stdout_kills_the_program_by_sigpipe_quietly() {
    use std::os::unix::process::ExitStatusExt;
    output_cannot_fit_a_pipe();
    let mut child = common::nimsquare_process()
        .args(BIG_OUTPUT)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    reader.read_line(&mut first).unwrap();
    assert_eq!(first, "0 0\n");
    drop(reader);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Death by SIGPIPE, nothing else: not a normal exit (it cannot have written everything),
    // not an error status with a "Broken pipe" message, not a panic.
    assert_eq!(
        out.status.signal(),
        Some(libc::SIGPIPE),
        "{:?}: {stderr}",
        out.status
    );
    assert!(stderr.is_empty(), "{stderr}");
}

#[test]
#[cfg(unix)]
fn a_shell_pipe_into_head_reports_141() {
    output_cannot_fit_a_pipe();
    let bin = assert_cmd::cargo::cargo_bin("nimsquare");
    // bash: `$?` of a pipeline is head's; PIPESTATUS[0] is the writer's, 128 + 13.
    let out = std::process::Command::new("bash")
        .env(nimsquare::run::wisdom::OFF_VARIABLE, "1")
        .arg("-c")
        .arg(r#""$0" "$@" | head -n 1; exit "${PIPESTATUS[0]}""#)
        .arg(bin)
        .args(BIG_OUTPUT)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "0 0\n");
    assert_eq!(
        out.status.code(),
        Some(141),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn bad_limits_are_refused_with_one_line_naming_the_flag() {
    for bad in ["", "1e30"] {
        let stderr = assert_refused(&["solve", "--limit", bad]);
        assert!(stderr.contains("--limit"), "{bad:?}: {stderr}");
    }
}

#[test]
fn more_than_65535_moves_are_refused_by_the_library() {
    let err = nimsquare::base::moves::Moves::list((1..=65_536).collect()).unwrap_err();
    assert!(err.to_string().contains("65536 distinct moves"), "{err}");
    assert!(nimsquare::base::moves::Moves::list((1..=65_535).collect()).is_ok());
}

/// Every subcommand that writes a file, with the flag that names the file.
const WRITERS: [(&[&str], &str); 3] = [
    (&["profile", "--limit", "1e7"], "--out"),
    (
        &["scale", "--from", "1e3", "--to", "1e7", "--repeat", "1"],
        "--out",
    ),
    (
        &[
            "scale",
            "--from",
            "1e3",
            "--to",
            "1e7",
            "--repeat",
            "1",
            "--out",
            "OUT/s.csv",
        ],
        "--plot",
    ),
];

/// Runs a writer with `path` as the file of `flag` and checks it is refused at once with one
/// line naming the flag and containing `needle` (the grids would take minutes if run).
fn output_refused(dir: &std::path::Path, path: &std::path::Path, needle: &str) {
    for (args, flag) in WRITERS {
        let args: Vec<String> = args
            .iter()
            .map(|a| a.replace("OUT", &dir.display().to_string()))
            .collect();
        let mut full: Vec<&str> = args.iter().map(String::as_str).collect();
        let p = path.display().to_string();
        full.extend([flag, p.as_str()]);
        let start = std::time::Instant::now();
        let stderr = assert_refused(&full);
        assert!(
            start.elapsed().as_secs_f64() < 5.0,
            "{full:?}: refused only after work"
        );
        assert!(
            stderr.contains(flag) && stderr.contains(needle),
            "{full:?}: {stderr}"
        );
    }
}

#[test]
fn output_paths_are_checked_before_any_work() {
    let dir = scratch("out");
    output_refused(&dir, std::path::Path::new("/"), "is a folder");
    output_refused(&dir, &dir, "is a folder");
    output_refused(&dir, &dir.join("no/such/x.out"), "does not exist");
    // Tests may run as root, where mode bits do not stop writes; a path under a regular file
    // cannot be written by anyone.
    let file = dir.join("plain-file");
    std::fs::write(&file, "x").unwrap();
    output_refused(&dir, &file.join("x.out"), "is not a folder");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let locked = dir.join("locked");
        std::fs::create_dir(&locked).unwrap();
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o555)).unwrap();
        // Only meaningful when the bits bind (not root): then the write probe fails.
        if std::fs::write(locked.join("probe"), "x").is_err() {
            output_refused(&dir, &locked.join("x.out"), "cannot be written");
        }
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_decimal_mantissa_is_accepted_when_the_limit_is_whole() {
    // 1.5e3 is 1500 and 15e2 too; both must give the same answer.
    let out = |limit: &str| {
        let o = nimsquare()
            .args(["solve", "--limit", limit])
            .output()
            .unwrap();
        assert!(o.status.success(), "{limit}");
        String::from_utf8(o.stdout).unwrap()
    };
    assert_eq!(out("1.5e3"), out("1500"));
    assert_eq!(out("0.25e2"), out("25"));
    let stderr = assert_refused(&["solve", "--limit", "1.25e1"]);
    assert!(
        stderr.contains("--limit") && stderr.contains("whole number"),
        "{stderr}"
    );
}

#[test]
fn wording_names_what_is_wrong() {
    let stderr = assert_refused(&["solve", "--checkpoint-every", "-1", "--limit", "10"]);
    assert!(
        stderr.contains("--checkpoint-every") && stderr.contains("'-1'"),
        "{stderr}"
    );
    let stderr = assert_refused(&["solve", "--moves", "1,99999999999999999999999"]);
    assert!(stderr.contains("too large for a move"), "{stderr}");
    let dir = scratch("folder-as-table");
    let stderr = assert_refused(&[
        "solve",
        "--limit",
        "10",
        "--save-table",
        dir.to_str().unwrap(),
    ]);
    assert!(stderr.contains("is a folder"), "{stderr}");
    assert!(!stderr.contains("already exists"), "{stderr}");
}

#[test]
fn games_print_what_they_say() {
    // `games subtraction` lists g up to --limit (g = n mod 3 for {1,2}), not always 64 values.
    let out = nimsquare()
        .args(["games", "subtraction", "--moves", "1,2", "--limit", "5"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("g(0..=5): 0 1 2 0 1 2\n"), "{text}");
    // `games moore` says what m is.
    let out = nimsquare()
        .args([
            "games", "moore", "--heaps", "3", "--max", "2", "--width", "1",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("m = 1 counter from each heap it touches"),
        "{text}"
    );
}
