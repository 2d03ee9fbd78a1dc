//! `octal` in window mode against `octal` with the whole table: the same report but for the
//! period, the values as they are made, the values file, the mode chosen by the memory guard,
//! and the refusals before any work.

mod common;

use common::{assert_refused, json_of, nimsquare, stdout_of};
use nimsquare::octal::{OctalPlan, Rules};
use nimsquare::run::window::plan::{decide, Ask, Mode};

/// The fields of `octal --json` that window mode must report as the whole table does.
const SAME: [&str; 9] = [
    "code",
    "limit",
    "max_value",
    "max_value_first_at",
    "mask",
    "rare_positions",
    "last_rare",
    "last_rare_value",
    "table_digest",
];

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "nimsquare-octal-window-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn window_mode_reports_what_the_whole_table_does_but_the_period() {
    for (code, limit) in [("0.6", "300000"), ("0.167", "200000"), ("grundy", "200000")] {
        let full = json_of([
            "octal",
            code,
            "--limit",
            limit,
            "--histogram",
            "--json",
            "--quiet",
        ]);
        let window = json_of([
            "octal",
            code,
            "--limit",
            limit,
            "--histogram",
            "--json",
            "--quiet",
            "--window",
        ]);
        for field in SAME.iter().chain(&["histogram"]) {
            assert_eq!(window[field], full[field], "{code}: {field}");
        }
        assert_eq!(full["mode"], "full");
        assert_eq!(window["mode"], "window");
        assert_eq!(window["window"]["asked"], true);
        assert_eq!(window["status"], "not searched");
        assert_eq!(window["auto"]["chose"], "octal-block", "{code}");
    }
}

#[test]
fn window_mode_prints_the_values_as_made_and_keeps_the_file_it_is_given() {
    let dir = scratch("values");
    let file = dir.join("g.u16");
    let full = stdout_of(["octal", "0.6", "--limit", "100000", "--values", "--quiet"]);
    let window = stdout_of([
        "octal",
        "0.6",
        "--limit",
        "100000",
        "--values",
        "--quiet",
        "--window-file",
        file.to_str().unwrap(),
    ]);
    let pairs = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.split(' ').count() == 2 && l.split(' ').all(|w| w.parse::<u64>().is_ok()))
            .map(str::to_string)
            .collect()
    };
    let values = pairs(&full);
    assert_eq!(values.len(), 100_001);
    assert_eq!(pairs(&window), values);
    // in window mode the values come first, the report after them
    assert!(window.starts_with("0 0\n"), "{}", &window[..40]);
    assert!(window.contains(&format!("values in {}", file.display())));
    let bytes = std::fs::read(&file).unwrap();
    let from_file: Vec<String> = bytes
        .chunks_exact(2)
        .enumerate()
        .map(|(n, b)| format!("{n} {}", u16::from_le_bytes([b[0], b[1]])))
        .collect();
    assert_eq!(from_file, values);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_memory_guard_chooses_window_mode_or_refuses_in_one_line() {
    // 4.065 proves its period early (auto copies past it), so 2^23 values are quick.
    let (code, limit) = ("4.065", 1u64 << 23);
    let rules = Rules::parse(code).unwrap();
    let full = OctalPlan::named_sized(rules.clone(), None, limit)
        .unwrap()
        .memory_needed;
    let asked = Ask {
        window: true,
        ..Ask::default()
    };
    let Mode::Window(w) = decide(rules, None, limit, &asked).unwrap().1 else {
        panic!("window mode asked for");
    };
    assert!(w.memory_needed < full, "{} >= {full}", w.memory_needed);
    let between = (w.memory_needed + full) / 2;
    let out = nimsquare()
        .env(
            nimsquare::base::memory::AVAILABLE_OVERRIDE,
            between.to_string(),
        )
        .args([
            "octal",
            code,
            "--limit",
            &limit.to_string(),
            "--json",
            "--quiet",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["mode"], "window");
    assert_eq!(report["window"]["asked"], false);
    let whole = json_of([
        "octal",
        code,
        "--limit",
        &limit.to_string(),
        "--json",
        "--quiet",
    ]);
    assert_eq!(report["table_digest"], whole["table_digest"]);
    // too little even for the window: the memory refusal, saying why window mode cannot help
    let out = nimsquare()
        .env(
            nimsquare::base::memory::AVAILABLE_OVERRIDE,
            (w.memory_needed / 2).to_string(),
        )
        .args(["octal", code, "--limit", &limit.to_string()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("window mode cannot run it either"),
        "{stderr}"
    );
}

#[test]
fn what_window_mode_cannot_do_is_refused_before_any_work() {
    let dir = scratch("refusals");
    let taken = dir.join("taken.u16");
    std::fs::write(&taken, b"mine").unwrap();
    let ck = dir.join("ck");
    let ck = ck.to_str().unwrap();
    for (args, says) in [
        (
            vec!["octal", "0.346", "--limit", "1000", "--window"],
            "no sparse space",
        ),
        // past 2^32 - 1 only window mode runs, asked for or not
        (
            vec!["octal", "0.346", "--limit", "4294967296"],
            "no sparse space",
        ),
        (
            vec![
                "build",
                "--workload",
                "table:squares",
                "--limit",
                "4294967296",
            ],
            "--limit",
        ),
        (
            vec![
                "octal",
                "0.6",
                "--limit",
                "1000",
                "--window",
                "--backend",
                "octal-vector",
            ],
            "octal-vector",
        ),
        (
            vec![
                "octal",
                "0.6",
                "--limit",
                "1000",
                "--window",
                "--save-table",
                ck,
            ],
            "--save-table",
        ),
        (
            vec![
                "octal", "0.6", "--limit", "1000", "--window", "--values", "--json",
            ],
            "--values",
        ),
        (
            vec![
                "octal",
                "0.6",
                "--limit",
                "1000",
                "--window-file",
                taken.to_str().unwrap(),
            ],
            "exists",
        ),
    ] {
        let stderr = assert_refused(&args);
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
    assert_eq!(std::fs::read(&taken).unwrap(), b"mine");
    assert!(!std::path::Path::new(ck).exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_checkpoint_goes_on_to_a_larger_n_here_or_elsewhere_and_refuses_another_code() {
    let dir = scratch("extend");
    let whole = json_of([
        "octal",
        "0.6",
        "--limit",
        "300000",
        "--json",
        "--histogram",
        "--quiet",
    ]);
    for kept_file in [false, true] {
        let ck = dir.join(format!("ck-{kept_file}"));
        let file = dir.join(format!("g-{kept_file}.u16"));
        let mut first = vec![
            "octal", "0.6", "--limit", "150000", "--window", "--quiet", "--json",
        ];
        let (ck_s, file_s) = (ck.to_str().unwrap(), file.to_str().unwrap());
        first.extend(["--checkpoint", ck_s]);
        if kept_file {
            first.extend(["--window-file", file_s]);
        }
        let short = json_of(&first);
        assert_eq!(short["window"]["resumed_at"], serde_json::Value::Null);
        let mut second = first.clone();
        second[3] = "300000";
        second.push("--histogram");
        let long = json_of(&second);
        assert_eq!(
            long["window"]["resumed_at"], 150_001,
            "kept file {kept_file}"
        );
        for field in SAME.iter().skip(1).chain(&["histogram"]) {
            assert_eq!(long[field], whole[field], "{field}, kept file {kept_file}");
        }
        // the same N again: nothing to build, the report from the checkpoint
        let again = json_of(&second);
        assert_eq!(again["table_digest"], whole["table_digest"]);
        assert_eq!(again["positions_this_run"], 0);
    }
    // a checkpoint of another code
    let ck = dir.join("ck-false");
    let stderr = assert_refused(&[
        "octal",
        "0.167",
        "--limit",
        "300000",
        "--window",
        "--checkpoint",
        ck.to_str().unwrap(),
    ]);
    assert!(
        stderr.contains("--checkpoint") && stderr.contains("0.6"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_run_resumed_without_its_values_stops_where_it_would_read_one_it_does_not_hold() {
    // A window of 4096 + 8192 values: Officers reads g(m - r) for rare r up to 20 627, so
    // past the tail. Where its values file is, the reads come back from it; a run carried
    // away without it stops with one line, exit 1, and never reports.
    let dir = scratch("guard");
    let ck = dir.join("ck");
    let file = dir.join("g.u16");
    let run = |limit: &str, with_file: bool| {
        let mut cmd = nimsquare();
        cmd.env(nimsquare::run::window::plan::WINDOW_VARIABLE, "4096,8192")
            .args([
                "octal", "0.6", "--limit", limit, "--window", "--quiet", "--json",
            ])
            .args(["--checkpoint", ck.to_str().unwrap()]);
        if with_file {
            cmd.args(["--window-file", file.to_str().unwrap()]);
        }
        cmd.output().unwrap()
    };
    let first = run("100000", true);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let saved = std::fs::read(&ck).unwrap();
    let away = run("200000", false);
    let stderr = String::from_utf8_lossy(&away.stderr);
    assert_eq!(away.status.code(), Some(1), "{stderr}");
    assert!(away.stdout.is_empty());
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("does not hold") && stderr.contains("--window-file"),
        "{stderr}"
    );
    // the checkpoint is as the first run left it: the stop wrote nothing wrong over it
    assert_eq!(std::fs::read(&ck).unwrap(), saved);
    let here = run("200000", true);
    assert!(
        here.status.success(),
        "{}",
        String::from_utf8_lossy(&here.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&here.stdout).unwrap();
    let whole = json_of(["octal", "0.6", "--limit", "200000", "--json", "--quiet"]);
    assert_eq!(report["table_digest"], whole["table_digest"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The output of `nimsquare args` sent SIGTERM 1.5 s after it started.
fn terminated_after_1500_ms<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> std::process::Output {
    let child = common::nimsquare_process()
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    // SAFETY: a signal to the child this test spawned and still holds.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    child.wait_with_output().unwrap()
}

#[test]
fn sigterm_writes_the_checkpoint_and_the_same_command_finishes_the_run() {
    let dir = scratch("sigterm");
    let ck = dir.join("ck");
    let args = [
        "octal",
        "0.6",
        "--limit",
        "3000000",
        "--window",
        "--quiet",
        "--json",
        "--checkpoint",
        ck.to_str().unwrap(),
    ];
    let out = terminated_after_1500_ms(&args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if out.status.code() == Some(143) {
        assert!(
            stderr.contains("stopped by SIGTERM") && stderr.contains("goes on"),
            "{stderr}"
        );
        assert!(out.stdout.is_empty());
        assert!(ck.exists());
    } else {
        // it finished before the signal (a fast machine): nothing to resume
        assert!(out.status.success(), "{stderr}");
    }
    let resumed = json_of(args);
    let whole = json_of(["octal", "0.6", "--limit", "3000000", "--json", "--quiet"]);
    for field in SAME {
        assert_eq!(resumed[field], whole[field], "{field}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_limit_past_2_to_the_32_takes_window_mode_by_itself_and_its_checkpoint_goes_on() {
    let dir = scratch("past-u32");
    let file = dir.join("values.u16");
    let ck = dir.join("ck");
    let (file, ck) = (file.to_str().unwrap(), ck.to_str().unwrap());
    let with_limit = |n: &str| {
        [
            "octal",
            "0.6",
            "--limit",
            n,
            "--window-file",
            file,
            "--quiet",
            "--json",
            "--checkpoint",
            ck,
        ]
        .map(String::from)
    };
    let past = with_limit("4294967296");
    // the values file is sparse, but the plan asks its disk for room for all 2^33 bytes
    let path = std::ffi::CString::new(dir.to_str().unwrap()).unwrap();
    // SAFETY: a zeroed statvfs is a valid out-parameter and `path` outlives the call.
    let free = unsafe {
        let mut s: libc::statvfs = std::mem::zeroed();
        assert_eq!(libc::statvfs(path.as_ptr(), &mut s), 0);
        s.f_bavail as u64 * s.f_frsize as u64
    };
    if free < 2 * ((1 << 32) + 1) {
        let stderr = assert_refused(&past.each_ref().map(String::as_str));
        assert!(
            stderr.contains("--window-file") && stderr.contains("free"),
            "{stderr}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
        return;
    }
    let out = terminated_after_1500_ms(&past);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(143), "{stderr}");
    let done: u64 = stderr
        .split("after g(0..")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .and_then(|d| d.parse().ok())
        .unwrap_or_else(|| panic!("{stderr}"));
    // the checkpoint goes on to a smaller N than the one it was made for; the values file,
    // which shortening would cut, does not
    let n = done.max(3_000_000).to_string();
    let stderr = assert_refused(&with_limit(&n).each_ref().map(String::as_str));
    assert!(
        stderr.contains("--window-file") && stderr.contains("--limit 4294967296"),
        "{stderr}"
    );
    let resumed = json_of([
        "octal",
        "0.6",
        "--limit",
        &n,
        "--window",
        "--quiet",
        "--json",
        "--checkpoint",
        ck,
    ]);
    assert_eq!(resumed["mode"], "window", "{resumed}");
    let whole = json_of(["octal", "0.6", "--limit", &n, "--json", "--quiet"]);
    for field in SAME {
        assert_eq!(resumed[field], whole[field], "{field}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn build_and_sequence_run_in_window_mode_with_the_whole_tables_results() {
    // build: the same facts in both modes (the whole table's from Table, the window's from
    // the stream), and the mode said
    let whole = json_of([
        "build",
        "--workload",
        "octal:0.6",
        "--limit",
        "200000",
        "--json",
    ]);
    let window = json_of([
        "build",
        "--workload",
        "octal:0.6",
        "--limit",
        "200000",
        "--json",
        "--window",
    ]);
    for field in [
        "max_value",
        "max_value_first_at",
        "cold_count",
        "table_digest",
    ] {
        assert_eq!(window[field], whole[field], "build: {field}");
    }
    assert_eq!(
        (whole["mode"].as_str(), window["mode"].as_str()),
        (Some("full"), Some("window"))
    );
    // sequence: the same b-file, written as the values are made
    for kind in ["values", "cold", "first"] {
        let args = |window: bool| {
            let mut a = vec!["sequence", kind, "--octal", "0.6", "--limit", "100000"];
            if window {
                a.push("--window");
            }
            a
        };
        assert_eq!(
            stdout_of(args(true)),
            stdout_of(args(false)),
            "sequence {kind}"
        );
    }
    let cut = stdout_of([
        "sequence", "cold", "--octal", "0.6", "--limit", "100000", "--terms", "7", "--window",
    ]);
    assert_eq!(cut.lines().count(), 7, "{cut}");
}

#[test]
fn build_and_sequence_refuse_window_mode_where_it_cannot_run() {
    for (args, says) in [
        (
            vec![
                "build",
                "--workload",
                "table:squares",
                "--limit",
                "1000",
                "--window",
            ],
            "octal codes only",
        ),
        (
            vec![
                "build",
                "--workload",
                "octal:0.346",
                "--limit",
                "1000",
                "--window",
            ],
            "no sparse space",
        ),
        (
            vec![
                "sequence", "values", "--octal", "0.6", "--window", "--terms", "10",
            ],
            "--window needs --limit",
        ),
        (
            vec![
                "sequence", "values", "--octal", "0.6", "--limit", "1000", "--window", "--json",
            ],
            "--json",
        ),
    ] {
        let stderr = assert_refused(&args);
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}

#[test]
fn a_smaller_tail_keeps_the_same_table_and_a_bad_one_is_refused() {
    let full = json_of(["octal", "0.6", "--limit", "300000", "--json", "--quiet"]);
    let small = json_of([
        "octal",
        "0.6",
        "--limit",
        "300000",
        "--json",
        "--quiet",
        "--window-tail",
        "65536",
    ]);
    assert_eq!(small["mode"], "window");
    assert_eq!(small["window"]["tail"], 65536);
    for field in SAME {
        assert_eq!(small[field], full[field], "{field}");
    }
    for tail in ["1000", "70000"] {
        let stderr =
            common::assert_refused(&["octal", "0.6", "--limit", "1000", "--window-tail", tail]);
        assert!(
            stderr.contains("--window-tail") && stderr.contains("2048"),
            "{stderr}"
        );
    }
}

#[test]
fn a_values_file_cut_or_changed_between_sittings_is_refused_and_the_whole_one_resumes() {
    // A window of 4096 + 8192 values: after a first sitting to 10^5, g(4096..~90 000) are
    // in the values file only, where a resume reads them back as they are.
    let dir = scratch("values-file");
    let ck = dir.join("ck");
    let file = dir.join("g.u16");
    let run = |limit: &str| {
        nimsquare()
            .env(nimsquare::run::window::plan::WINDOW_VARIABLE, "4096,8192")
            .args([
                "octal", "0.6", "--limit", limit, "--window", "--quiet", "--json",
            ])
            .args(["--checkpoint", ck.to_str().unwrap()])
            .args(["--window-file", file.to_str().unwrap()])
            .output()
            .unwrap()
    };
    let first = run("100000");
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let (saved_ck, saved_values) = (std::fs::read(&ck).unwrap(), std::fs::read(&file).unwrap());
    assert_eq!(saved_values.len(), 2 * 100_001);
    let mut changed = saved_values.clone();
    changed[2 * 50_000] ^= 1;
    for (what, bytes, says) in [
        (
            "cut",
            saved_values[..2 * 60_000].to_vec(),
            "fewer than the 100001",
        ),
        ("changed in the middle", changed, "does not hash"),
    ] {
        std::fs::write(&file, &bytes).unwrap();
        let out = run("200000");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{what}: {stderr}");
        assert!(out.stdout.is_empty(), "{what}");
        assert_eq!(stderr.lines().count(), 1, "{what}: {stderr}");
        assert!(
            stderr.contains("--window-file") && stderr.contains(says),
            "{what}: {stderr}"
        );
        // refused before any work: both files as they were
        assert_eq!(std::fs::read(&ck).unwrap(), saved_ck, "{what}");
        assert_eq!(std::fs::read(&file).unwrap(), bytes, "{what}");
    }
    std::fs::write(&file, &saved_values).unwrap();
    let here = run("200000");
    assert!(
        here.status.success(),
        "{}",
        String::from_utf8_lossy(&here.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&here.stdout).unwrap();
    let whole = json_of(["octal", "0.6", "--limit", "200000", "--json", "--quiet"]);
    assert_eq!(report["table_digest"], whole["table_digest"]);
    std::fs::remove_dir_all(&dir).unwrap();
}
