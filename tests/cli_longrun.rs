//! `solve --checkpoint/--save-table/--load-table` through the binary: saved tables answer the
//! same, damaged ones are refused in one line, and a run stopped by SIGTERM or SIGINT exits
//! 143/130 and is completed by the same command, with every resumable table back-end.

mod common;

use common::{assert_refused, nimsquare};
use nimsquare::run::longrun::tablefile;
use std::path::Path;
use std::time::{Duration, Instant};

fn scratch(name: &str) -> common::Scratch {
    let dir = common::Scratch::new(format!(
        "nimsquare-cli-longrun-{}-{name}",
        std::process::id()
    ));
    dir
}

/// Runs `solve` with `args` and returns its stdout, checking success and a stderr that holds
/// at most the one line saying where a seeded run starts (stderr is not a terminal here, so
/// no progress bar may appear).
fn solve(args: &[&str]) -> String {
    let out = nimsquare().arg("solve").args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?}: {stderr}");
    let seeded = args.contains(&"--load-table") || args.contains(&"--checkpoint");
    let lines: Vec<&str> = stderr.lines().collect();
    assert!(
        lines.is_empty()
            || (seeded
                && lines.len() == 1
                && (lines[0].starts_with("resuming from the checkpoint ")
                    || lines[0].starts_with("starting from the table "))),
        "{args:?}: {stderr}"
    );
    String::from_utf8(out.stdout).unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn save_then_load_gives_the_same_answer() {
    let dir = scratch("save-load");
    let t = dir.join("t.tbl");
    let fresh = solve(&["-n", "20000"]);
    assert_eq!(solve(&["-n", "20000", "--save-table", s(&t)]), fresh);
    let f = tablefile::read(&t).unwrap();
    assert!(f.is_complete() && f.limit == 20000);
    assert_eq!(solve(&["-n", "20000", "--load-table", s(&t)]), fresh);
    // A table for a smaller N seeds a larger one; a larger one answers a smaller N.
    assert_eq!(
        solve(&["-n", "50000", "--load-table", s(&t)]),
        solve(&["-n", "50000"])
    );
    assert_eq!(
        solve(&["-n", "777", "--load-table", s(&t)]),
        solve(&["-n", "777"])
    );
    // Other moves: refused, as is saving over an existing file.
    let err = assert_refused(&[
        "solve",
        "-n",
        "100",
        "--moves",
        "1,3,4",
        "--load-table",
        s(&t),
    ]);
    assert!(
        err.contains("was made for moves squares, not 1,3,4"),
        "{err}"
    );
    let err = assert_refused(&["solve", "-n", "100", "--save-table", s(&t)]);
    assert!(err.contains("already exists"), "{err}");
}

#[test]
fn a_damaged_table_is_refused_in_one_line() {
    let dir = scratch("damaged");
    let t = dir.join("t.tbl");
    solve(&["-n", "5000", "--save-table", s(&t)]);
    let mut bytes = std::fs::read(&t).unwrap();
    bytes[4096 + 100] ^= 0x40;
    std::fs::write(&t, &bytes).unwrap();
    let err = assert_refused(&[
        "solve",
        "-n",
        "5000",
        "--table",
        "stamped",
        "--load-table",
        s(&t),
    ]);
    assert!(
        err.contains("t.tbl") && err.contains("damaged values: block 0 of 1"),
        "{err}"
    );
    let mut header = bytes.clone();
    header[20] ^= 1;
    std::fs::write(&t, &header).unwrap();
    let err = assert_refused(&["solve", "-n", "5000", "--checkpoint", s(&t)]);
    assert!(
        err.contains("t.tbl") && err.contains("damaged header"),
        "{err}"
    );
    let notes = dir.join("notes.txt");
    std::fs::write(&notes, "keep me").unwrap();
    let err = assert_refused(&["solve", "-n", "5000", "--checkpoint", s(&notes)]);
    assert!(err.contains("not a nimsquare table file"), "{err}");
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "keep me");
    let err = assert_refused(&[
        "solve",
        "--table",
        "value-bounded",
        "--checkpoint",
        s(&dir.join("c")),
    ]);
    assert!(
        err.contains("class by class") && err.contains("--table value-bounded"),
        "{err}"
    );
    let err = assert_refused(&["solve", "--checkpoint-every", "soon"]);
    assert!(err.contains("--checkpoint-every"), "{err}");
}

/// `solve -n 3000000 --moves 1,3,4` with `extra` arguments: the exit status, stdout, stderr.
/// Three million positions make three blocks of 2^20 values, in a fraction of a second.
fn solve_three_blocks(extra: &[&str]) -> (Option<i32>, String, String) {
    let out = nimsquare()
        .args(["solve", "-n", "3000000", "--moves", "1,3,4"])
        .args(extra)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Flips one bit of g(2^20 + 5000), in block 1 of 3, of the table file at `path`.
fn damage_block_1(path: &Path) {
    let mut bytes = std::fs::read(path).unwrap();
    bytes[4096 + 2 * ((1 << 20) + 5000)] ^= 0x10;
    std::fs::write(path, &bytes).unwrap();
}

#[test]
fn a_checkpoint_damaged_in_a_middle_block_resumes_from_the_end_of_the_good_prefix() {
    let dir = scratch("block-checkpoint");
    let ck = dir.join("c.tbl");
    let (code, fresh, _) = solve_three_blocks(&[]);
    assert_eq!(code, Some(0));
    let (code, answer, _) = solve_three_blocks(&["--checkpoint", s(&ck)]);
    assert_eq!((code, &answer), (Some(0), &fresh));
    assert_eq!(tablefile::read_header(&ck).unwrap().block_sums.len(), 3);
    damage_block_1(&ck);
    let kept = tablefile::read_checkpoint(&ck).unwrap();
    assert_eq!(kept.values.len(), 1 << 20);
    let (code, answer, stderr) = solve_three_blocks(&["--checkpoint", s(&ck)]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(answer, fresh);
    assert_eq!(
        stderr,
        format!(
            "warning: --checkpoint {p}: block 1 of 3 (g(1048576..2097152)) is damaged (checksum mismatch); keeping g(0..1048576) from the blocks before it and computing again from g(1048576)\n\
             resuming from the checkpoint {p}: g(0..1048576) of 3000001 positions are done, 1951425 to go\n",
            p = ck.display()
        )
    );
    // The checkpoint is whole again, and its values are another back-end's.
    let moves = nimsquare::base::moves::Moves::parse("1,3,4").unwrap();
    let judge = nimsquare::table::build("bitset", &moves, 3_000_000).unwrap();
    assert!(tablefile::read(&ck).unwrap().values == judge.values());
    // A checkpoint cut inside block 2 keeps blocks 0 and 1.
    let len = std::fs::metadata(&ck).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&ck)
        .unwrap()
        .set_len(len - 1000)
        .unwrap();
    let (code, answer, stderr) = solve_three_blocks(&["--checkpoint", s(&ck)]);
    assert_eq!((code, &answer), (Some(0), &fresh), "{stderr}");
    assert!(
        stderr.contains("block 2 of 3 (g(2097152..3000001)) is cut short")
            && stderr.contains("g(0..2097152) of 3000001 positions are done"),
        "{stderr}"
    );
}

#[test]
fn a_finished_table_damaged_in_a_middle_block_is_refused_naming_it() {
    let dir = scratch("block-table");
    let t = dir.join("t.tbl");
    let (code, _, _) = solve_three_blocks(&["--save-table", s(&t)]);
    assert_eq!(code, Some(0));
    damage_block_1(&t);
    for args in [
        vec![
            "solve",
            "-n",
            "3000000",
            "--moves",
            "1,3,4",
            "--load-table",
            s(&t),
        ],
        vec!["verify", "--moves", "1,3,4", "--load-table", s(&t)],
    ] {
        let err = assert_refused(&args);
        assert!(
            err.contains("t.tbl")
                && err.contains("damaged values: block 1 of 3 (g(1048576..2097152))"),
            "{err}"
        );
    }
}

/// Waits until the checkpoint at `path` holds more than `after` positions; returns them.
fn wait_for_checkpoint(path: &Path, after: u64) -> u64 {
    let start = Instant::now();
    loop {
        if let Ok(h) = tablefile::read_header(path) {
            if h.done > after {
                return h.done;
            }
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no checkpoint appeared"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn a_signalled_run_keeps_a_checkpoint_that_the_same_command_completes() {
    let dir = scratch("signal");
    let ck = dir.join("ck.tbl");
    let n = "2000000";
    let args = [
        "solve",
        "-n",
        n,
        "--table",
        "stamped",
        "--checkpoint",
        s(&ck),
        "--checkpoint-every",
        "0",
    ];
    let mut done = 0;
    for (sitting, (sig, code)) in [(libc::SIGTERM, 143), (libc::SIGINT, 130)]
        .into_iter()
        .enumerate()
    {
        let child = common::nimsquare_process()
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // A checkpoint newer than the last one proves the handlers are installed.
        done = wait_for_checkpoint(&ck, done);
        // SAFETY: sending a signal to the child this test spawned.
        assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, sig) }, 0);
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(code), "{stderr}");
        assert!(out.stdout.is_empty());
        // A second sitting first says where it resumes, then where it stopped.
        let lines: Vec<&str> = stderr.lines().collect();
        assert_eq!(lines.len(), sitting + 1, "{stderr}");
        if sitting > 0 {
            assert!(
                lines[0].starts_with(&format!(
                    "resuming from the checkpoint {}: g(0..",
                    ck.display()
                )),
                "{stderr}"
            );
        }
        assert!(
            lines
                .last()
                .unwrap()
                .contains("to resume run the same command"),
            "{stderr}"
        );
        assert!(stderr.contains("--checkpoint"), "{stderr}");
        let h = tablefile::read_header(&ck).unwrap();
        assert!(h.done >= done && !h.is_complete(), "{h:?}");
        done = h.done;
    }
    let resumed = solve(&args[1..]);
    assert!(tablefile::read_header(&ck).unwrap().is_complete());
    assert_eq!(resumed, solve(&["-n", n]));
    // Once complete, the same command only reads the table.
    assert_eq!(solve(&args[1..]), resumed);
}

/// One sitting of `solve --table NAME -n N --checkpoint CK --checkpoint-every 0`, sent SIGINT
/// as soon as its first checkpoint appears: `Some(done)`, the positions kept, when it was
/// interrupted (status 130), `None` when it had already finished (status 0).
fn interrupt_once(table: &str, n: usize, ck: &Path) -> Option<u64> {
    let child = common::nimsquare_process()
        .args(checkpoint_args(table, n, ck))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while tablefile::read_header(ck).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "{table}: no checkpoint"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    // SAFETY: sending a signal to the child this test spawned.
    assert_eq!(
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) },
        0
    );
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    if out.status.code() == Some(0) {
        return None;
    }
    assert_eq!(out.status.code(), Some(130), "{table}: {stderr}");
    assert!(out.stdout.is_empty(), "{table}");
    let h = tablefile::read_header(ck).unwrap();
    assert!(h.done > 0 && !h.is_complete(), "{table}: {h:?}");
    assert!(
        stderr.starts_with(&format!(
            "interrupted by SIGINT after g(0..{}) of {} positions, kept in {}; to resume run the same command: ",
            h.done,
            n + 1,
            ck.display()
        )),
        "{table}: {stderr}"
    );
    Some(h.done)
}

fn checkpoint_args(table: &str, n: usize, ck: &Path) -> Vec<String> {
    let n = n.to_string();
    [
        "solve",
        "-n",
        &n,
        "--table",
        table,
        "--checkpoint",
        s(ck),
        "--checkpoint-every",
        "0",
    ]
    .map(String::from)
    .to_vec()
}

#[test]
fn every_resumable_table_back_end_resumes_an_interrupted_checkpoint() {
    use nimsquare::count::Counter;
    let dir = scratch("every-resumable");
    let moves = nimsquare::base::moves::Moves::Squares;
    let resumable: Vec<_> = nimsquare::table::BACKENDS
        .iter()
        .filter(|e| (e.make)().resumable())
        .collect();
    // Every back-end that builds in position order (all but value-bounded, which solve
    // refuses with --checkpoint: a_damaged_table_is_refused_in_one_line).
    assert_eq!(resumable.len() + 1, nimsquare::table::BACKENDS.len());
    for e in resumable {
        let builder = (e.make)();
        // Start at 3·10^5 (a control at the largest N it affords); a run that finished before
        // the signal reached it is repeated four times larger.
        let mut n = builder.affordable_limit().unwrap_or(300_000);
        let ck = dir.join(format!("{}.tbl", e.name));
        let mut attempts = 0;
        let done = loop {
            let _ = std::fs::remove_file(&ck);
            if let Some(done) = interrupt_once(e.name, n, &ck) {
                break done;
            }
            attempts += 1;
            assert!(
                attempts < 4,
                "{}: every run finished before the signal",
                e.name
            );
            if builder.affordable_limit().is_none() {
                n *= 4;
            }
        };
        // The judge: another back-end's table (stamped, or bitset for stamped itself) and
        // the sweep's count of it (solve counts with wht).
        let judge = if e.name == "stamped" {
            "bitset"
        } else {
            "stamped"
        };
        let want = nimsquare::table::build(judge, &moves, n as u64).unwrap();
        let kept = tablefile::read(&ck).unwrap();
        assert_eq!(
            kept.values[..],
            want.values()[..done as usize],
            "{}",
            e.name
        );
        let answer = nimsquare::count::Sweep.count(&want, 3).unwrap();
        // The same command resumes where the checkpoint stopped and finishes.
        let args = checkpoint_args(e.name, n, &ck);
        let out = nimsquare().args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{}: {stderr}", e.name);
        assert_eq!(
            stderr,
            format!(
                "resuming from the checkpoint {}: g(0..{done}) of {} positions are done, {} to go\n",
                ck.display(),
                n + 1,
                n as u64 + 1 - done
            ),
            "{}",
            e.name
        );
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            format!("{answer}\n"),
            "{} at N = {n}",
            e.name
        );
        let full = tablefile::read(&ck).unwrap();
        assert!(full.is_complete(), "{}", e.name);
        assert!(full.values == want.values(), "{}", e.name);
    }
}

/// `verify --load-table path [extra]`: its exit status and stdout.
fn verify_saved(path: &Path, extra: &[&str]) -> (Option<i32>, String) {
    let out = nimsquare()
        .args(["verify", "--load-table", s(path)])
        .args(extra)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn verify_checks_a_saved_table_and_fails_on_a_wrong_one() {
    let dir = scratch("verify-saved");
    let good = dir.join("good.tbl");
    solve(&["-n", "5000", "--save-table", s(&good)]);
    let (code, text) = verify_saved(&good, &[]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains(
            "against 'naive-mex' and the cold sets of sieve, naive-cold: all checks passed"
        ),
        "{text}"
    );
    // A well-formed file whose values are wrong (g(17) = 0, written as 1, checksums valid):
    // the check fails with status 1 and names the position; no test hook in the binary.
    let moves = nimsquare::base::moves::Moves::Squares;
    let mut g = nimsquare::table::build("stamped", &moves, 5000)
        .unwrap()
        .values()
        .to_vec();
    g[17] = 1;
    let wrong = dir.join("wrong.tbl");
    let max = *g.iter().max().unwrap();
    nimsquare::run::longrun::tablefile::write_atomic(&wrong, &moves, 5000, &g, max).unwrap();
    let (code, text) = verify_saved(&wrong, &[]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("g(17) = 0 but 'saved table' gives 1"),
        "{text}"
    );
    assert!(
        text.contains("'saved table' makes 17 hot but 'sieve' makes it cold"),
        "{text}"
    );
    // --cold-only checks the zero set alone: it still catches the wrong cold position ...
    let (code, text) = verify_saved(&wrong, &["--cold-only"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("'saved table' makes 17 hot but 'sieve' makes it cold"),
        "{text}"
    );
    // ... passes a good table, saying the values went unchecked ...
    let (code, text) = verify_saved(&good, &["--cold-only"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("zero set against the cold sets of sieve, naive-cold (values not checked: --cold-only): all checks passed"),
        "{text}"
    );
    // ... and, as it says, does not see a wrong value that is not zero (g(18) = 1 as 5),
    // which the full check does.
    g[17] = 0;
    assert_eq!(g[18], 1, "OEIS A014586: g(18) = 1");
    g[18] = 5;
    let hot = dir.join("wrong-hot.tbl");
    nimsquare::run::longrun::tablefile::write_atomic(&hot, &moves, 5000, &g, max.max(5)).unwrap();
    assert_eq!(verify_saved(&hot, &["--cold-only"]).0, Some(0));
    let (code, text) = verify_saved(&hot, &[]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("g(18) = 1 but 'saved table' gives 5"),
        "{text}"
    );
    // --cold-only without a saved table is refused.
    let err = assert_refused(&["verify", "--cold-only"]);
    assert!(err.contains("--load-table"), "{err}");
    // Other moves than the file's are refused before any work.
    let err = assert_refused(&["verify", "--load-table", s(&good), "--moves", "1,3,4"]);
    assert!(
        err.contains("--load-table") && err.contains("was made for moves squares"),
        "{err}"
    );
    let err = assert_refused(&["verify", "--load-table", s(&dir.join("missing.tbl"))]);
    assert!(
        err.contains("--load-table") && err.contains("missing.tbl"),
        "{err}"
    );
}

#[test]
fn the_header_length_is_read_from_byte_12_and_grows_with_a_long_move_list() {
    let dir = scratch("long-label");
    // 1, 4, 7, ..., 5998: 2000 moves, a label of 9 630 bytes, so H = 12 288 (not 4096).
    let moves: Vec<String> = (1..6000).step_by(3).map(|m| m.to_string()).collect();
    let moves = moves.join(",");
    for (label, list, header) in [
        ("short", "1,3,4", 4096u32),
        ("long", moves.as_str(), 12_288),
    ] {
        let path = dir.join(format!("{label}.tbl"));
        solve(&[
            "--limit",
            "10000",
            "--moves",
            list,
            "--save-table",
            s(&path),
        ]);
        let bytes = std::fs::read(&path).unwrap();
        let h = u32::from_le_bytes(bytes[12..16].try_into().unwrap());
        assert_eq!(h, header, "{label}");
        // The values read at offset H are the table `sequence values` prints for the moves.
        let read: Vec<u64> = bytes[h as usize..]
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]) as u64)
            .collect();
        let out = nimsquare()
            .args(["sequence", "values", "--limit", "10000", "--moves", list])
            .output()
            .unwrap();
        let printed: Vec<u64> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| l.split_once(' ').unwrap().1.parse().unwrap())
            .collect();
        assert_eq!(read.len(), 10_001, "{label}");
        assert_eq!(read, printed, "{label}");
    }
}

/// sum of floor(sqrt n) for n <= `limit`, computed here independently of the crate.
fn option_steps(limit: u64) -> u64 {
    (1..=limit).map(|n| (n as f64).sqrt() as u64).sum()
}

#[test]
fn a_seeded_runs_json_separates_this_sitting_from_the_whole_table() {
    let dir = scratch("json-sitting");
    let t = dir.join("t.tbl");
    solve(&["-n", "20000", "--save-table", s(&t)]);
    let json = |table: &str, extra: &[&str]| -> serde_json::Value {
        let out = nimsquare()
            .args([
                "--threads",
                "2",
                "solve",
                "-n",
                "50000",
                "--json",
                "--table",
                table,
            ])
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success(), "{table}");
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let v = json("stamped", &["--load-table", s(&t)]);
    // Whole table: S(50000), a number; this sitting: positions 20001..=50000 and their steps.
    assert_eq!(v["option_steps"], option_steps(50_000));
    assert_eq!(v["seeded_positions"], 20_001);
    assert_eq!(v["positions_this_run"], 30_000);
    let this_run = option_steps(50_000) - option_steps(20_000);
    assert_eq!(v["option_steps_this_run"], this_run);
    let ns = v["ns_per_step"].as_f64().unwrap();
    let secs = v["table_seconds"].as_f64().unwrap();
    assert!(
        (ns - secs * 1e9 / this_run as f64).abs() < 1e-6 * ns.max(1.0),
        "{v}"
    );
    // `stamped` runs on one thread of the two-thread pool; the answer stays a string (u128).
    assert_eq!(
        (v["threads"].clone(), v["pool_threads"].clone()),
        (1.into(), 2.into())
    );
    assert!(v["answer"].is_string());
    let v = json("stamped-parallel", &[]);
    assert_eq!(v["threads"], 2);
    assert_eq!(v["seeded_positions"], 0);
    assert_eq!(v["option_steps_this_run"], option_steps(50_000));
}

/// Runs the binary under `sh -c` with `setup` first (a file-size limit, say). SIGXFSZ keeps
/// its default disposition (which kills a process): the binary ignores it itself, so that
/// an over-long write fails with EFBIG as on a full disk.
fn under_sh(setup: &str, args: &[&str]) -> std::process::Output {
    let line = format!(
        "trap - XFSZ; {setup}; exec {} {}",
        env!("CARGO_BIN_EXE_nimsquare"),
        args.join(" ")
    );
    std::process::Command::new("sh")
        .args(["-c", &line])
        .env(nimsquare::run::wisdom::OFF_VARIABLE, "1")
        .output()
        .unwrap()
}

#[test]
fn a_table_file_that_cannot_be_written_at_the_end_loses_no_answer() {
    // The kernel's own file-size limit (ulimit -f, 512-byte blocks in sh: 50 KiB) makes the
    // 200 KB table file's write fail after every check before the work has passed.
    let dir = scratch("efbig");
    for flag in ["--save-table", "--checkpoint"] {
        let file = dir.join(format!("t{flag}.tbl"));
        let out = under_sh(
            "ulimit -f 100",
            &["solve", "--limit", "1e5", flag, file.to_str().unwrap()],
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        // L(10^5) from the seeds, then one line naming the file that was not written.
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "2586528661783\n",
            "{flag}: {stderr}"
        );
        assert_eq!(out.status.code(), Some(4), "{flag}: {stderr}");
        let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
        assert_eq!(errors.len(), 1, "{flag}: {stderr}");
        assert!(
            errors[0].contains(flag) && errors[0].contains(file.to_str().unwrap()),
            "{stderr}"
        );
        assert!(errors[0].contains("too large"), "{stderr}");
        // Nothing half-written is left under the name.
        assert!(!file.exists(), "{flag}: {}", file.display());
        // --json says the same in its `unsaved` list, after the answer.
        let out = under_sh(
            "ulimit -f 100",
            &[
                "solve",
                "--limit",
                "1e5",
                "--json",
                flag,
                file.to_str().unwrap(),
            ],
        );
        assert_eq!(out.status.code(), Some(4), "{flag}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["answer"], "2586528661783", "{flag}");
        let unsaved = v["unsaved"].as_array().unwrap();
        assert_eq!(unsaved.len(), 1, "{flag}: {v}");
        assert_eq!(unsaved[0]["flag"], flag);
        assert_eq!(unsaved[0]["file"], file.to_str().unwrap());
        assert!(
            unsaved[0]["reason"].as_str().unwrap().contains("too large"),
            "{v}"
        );
    }
    // Both files unwritable at once: both are listed, in the order they were written.
    let save = dir.join("both-save.tbl");
    let ck = dir.join("both-ck.tbl");
    let out = under_sh(
        "ulimit -f 100",
        &[
            "solve",
            "--limit",
            "1e5",
            "--json",
            "--checkpoint",
            ck.to_str().unwrap(),
            "--save-table",
            save.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(4));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let flags: Vec<&str> = v["unsaved"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["flag"].as_str().unwrap())
        .collect();
    assert_eq!(flags, ["--checkpoint", "--save-table"], "{v}");
}

#[test]
fn a_periodic_checkpoint_that_fails_is_retried_and_the_run_finishes() {
    let dir = scratch("retry");
    let file = dir.join("c.tbl");
    let out = under_sh(
        "ulimit -f 100",
        &[
            "solve",
            "--table",
            "stamped",
            "--limit",
            "1e6",
            "--checkpoint-every",
            "0",
            "--checkpoint",
            file.to_str().unwrap(),
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The answer of a run without any file: the failed writes cost the run nothing.
    let plain = common::stdout_of(["solve", "--table", "stamped", "--limit", "1e6"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), plain, "{stderr}");
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    // Early checkpoints fit in 50 KiB and are written; later ones fail, each with a warning,
    // and the run goes on to the end.
    let warnings = stderr
        .lines()
        .filter(|l| l.starts_with("warning: checkpoint not written"))
        .count();
    assert!(warnings >= 2, "{stderr}");
}

#[test]
fn files_that_cannot_fit_on_their_disk_are_refused_before_any_work() {
    // A real small disk: a 1 MiB tmpfs in a private mount namespace (root only; CI runs as
    // root). A table of N = 10^6 needs 2 MB.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("needs root to mount a tmpfs; not run");
        return;
    }
    let dir = scratch("tmpfs");
    let line = format!(
        "mount -t tmpfs -o size=1m tmpfs {0} && exec {1} solve --limit 1e6 --save-table {0}/t.tbl",
        dir.display(),
        env!("CARGO_BIN_EXE_nimsquare")
    );
    let started = Instant::now();
    let out = std::process::Command::new("unshare")
        .args(["--mount", "sh", "-c", &line])
        .env(nimsquare::run::wisdom::OFF_VARIABLE, "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("--save-table") && stderr.contains("free"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "refused only after work"
    );
    // Two files that fit one by one but not together on the 1 MiB disk (N = 3 * 10^5: 600 KB
    // each) are refused together.
    let line = format!(
        "mount -t tmpfs -o size=1m tmpfs {0} && exec {1} solve --limit 3e5 --save-table {0}/t.tbl --checkpoint {0}/c.tbl",
        dir.display(),
        env!("CARGO_BIN_EXE_nimsquare")
    );
    let out = std::process::Command::new("unshare")
        .args(["--mount", "sh", "-c", &line])
        .env(nimsquare::run::wisdom::OFF_VARIABLE, "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--save-table") && stderr.contains("--checkpoint"),
        "{stderr}"
    );
}

#[test]
fn a_table_with_a_valid_checksum_but_wrong_values_is_refused_naming_the_position() {
    let dir = scratch("wrong-values");
    let moves = nimsquare::base::moves::Moves::Squares;
    let mut g = nimsquare::table::build("stamped", &moves, 200_000)
        .unwrap()
        .values()
        .to_vec();
    // g(25) = 3 (the seeds' table), written as 4: inside the fully checked prefix.
    assert_eq!(g[25], 3);
    g[25] = 4;
    let wrong = dir.join("wrong.tbl");
    let max = *g.iter().max().unwrap();
    tablefile::write_atomic(&wrong, &moves, 200_000, &g, max).unwrap();
    for args in [
        vec!["solve", "--limit", "2e5", "--load-table", s(&wrong)],
        vec!["solve", "--limit", "3e5", "--checkpoint", s(&wrong)],
        vec!["sequence", "values", "--load-table", s(&wrong)],
    ] {
        let e = assert_refused(&args);
        assert!(
            e.contains("g(25) is 4 in the file, but the mex of its options there is 3"),
            "{args:?}: {e}"
        );
    }
    // A wrong region past the prefix (all of g(100000..110000) zeroed, 5% of the table) is
    // found by the sampled strata.
    let mut g = nimsquare::table::build("stamped", &moves, 200_000)
        .unwrap()
        .values()
        .to_vec();
    g[100_000..110_000].fill(0);
    let region = dir.join("region.tbl");
    tablefile::write_atomic(&region, &moves, 200_000, &g, *g.iter().max().unwrap()).unwrap();
    let e = assert_refused(&["solve", "--limit", "2e5", "--load-table", s(&region)]);
    assert!(
        e.contains("the values are wrong although the checksum holds"),
        "{e}"
    );
}
