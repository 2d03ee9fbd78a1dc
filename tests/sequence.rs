//! `nimsquare sequence`: b-files checked against the OEIS entries they reproduce. The terms
//! below are typed in from the OEIS data (the `%S`/`%T`/`%U` lines of A014586, A030193 and
//! A297963 in the oeis/oeisdata repository, read 2026-12-01), not computed by this crate.

mod common;

use common::{assert_refused, nimsquare};

/// A014586: Nim-Grundy function for Take-a-Square, its 99 published terms a(0..=98).
const A014586: [u64; 99] = [
    0, 1, 0, 1, 2, 0, 1, 0, 1, 2, 0, 1, 0, 1, 2, 0, 1, 0, 1, 2, 0, 1, 0, 1, 2, 3, 2, 3, 4, 5, 3, 2,
    3, 4, 0, 1, 2, 3, 2, 0, 1, 2, 3, 2, 0, 1, 2, 3, 2, 3, 4, 5, 0, 1, 3, 4, 5, 0, 1, 3, 4, 5, 0, 1,
    3, 0, 1, 0, 1, 2, 4, 3, 0, 1, 5, 6, 2, 3, 4, 5, 6, 2, 3, 4, 5, 0, 1, 6, 3, 2, 4, 2, 6, 4, 5, 0,
    1, 6, 4,
];

/// A030193: the losing positions of subtract-a-square, its 58 published terms (up to 340).
const A030193: [u64; 58] = [
    0, 2, 5, 7, 10, 12, 15, 17, 20, 22, 34, 39, 44, 52, 57, 62, 65, 67, 72, 85, 95, 109, 119, 124,
    127, 130, 132, 137, 142, 147, 150, 170, 177, 180, 182, 187, 192, 197, 204, 210, 215, 238, 243,
    249, 255, 257, 260, 262, 267, 272, 275, 312, 317, 322, 327, 332, 335, 340,
];

/// A297963: the smallest position with nim-value n, published to a(45) = 23472.
const A297963: [u64; 46] = [
    0, 1, 4, 25, 28, 29, 75, 103, 200, 234, 315, 364, 479, 633, 802, 1054, 1173, 1311, 1894, 2058,
    2173, 2419, 3244, 3648, 4249, 4474, 4982, 5943, 6133, 6809, 7429, 8590, 8654, 9419, 10284,
    11728, 12152, 13884, 15493, 16623, 17312, 18389, 19745, 20528, 22111, 23472,
];

/// Runs `sequence` with `args`: the terms of the b-file (checking each line is `n a(n)` with
/// n counting from 0) and stderr.
fn bfile(args: &[&str]) -> (Vec<u64>, String) {
    let out = nimsquare().arg("sequence").args(args).output().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{args:?}: {stderr}");
    let terms = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .enumerate()
        .map(|(i, line)| {
            let (n, a) = line.split_once(' ').expect("two fields");
            assert_eq!(n.parse::<usize>().unwrap(), i, "{line}");
            a.parse().unwrap()
        })
        .collect();
    (terms, stderr)
}

#[test]
fn values_cold_and_first_reproduce_the_oeis() {
    assert_eq!(bfile(&["values", "--limit", "98"]).0, A014586);
    assert_eq!(bfile(&["cold", "--limit", "340"]).0, A030193);
    let (first, stderr) = bfile(&["first", "--limit", "23472"]);
    assert_eq!(first, A297963);
    // Value 46 first occurs past 23472, so the file stops at a(45) and says why.
    assert!(
        stderr.contains("value 46 does not occur up to N = 23472"),
        "{stderr}"
    );
}

#[test]
fn a_loaded_table_gives_the_same_terms_as_a_built_one() {
    let dir = common::Scratch::new(format!("nimsquare-sequence-{}", std::process::id()));
    let table = dir.join("g.tbl");
    nimsquare()
        .args([
            "solve",
            "--limit",
            "2000",
            "--moves",
            "1,3,4,9",
            "--save-table",
        ])
        .arg(&table)
        .assert()
        .success();
    let t = table.to_str().unwrap();
    for kind in ["values", "cold", "first"] {
        let built = bfile(&[kind, "--limit", "1500", "--moves", "1,3,4,9"]).0;
        let loaded = bfile(&[
            kind,
            "--limit",
            "1500",
            "--moves",
            "1,3,4,9",
            "--load-table",
            t,
        ])
        .0;
        assert_eq!(built, loaded, "{kind}");
    }
    // The loaded N is the default, and --limit cannot pass it.
    assert_eq!(
        bfile(&["values", "--moves", "1,3,4,9", "--load-table", t])
            .0
            .len(),
        2001
    );
    let stderr = assert_refused(&[
        "sequence",
        "values",
        "--limit",
        "3000",
        "--moves",
        "1,3,4,9",
        "--load-table",
        t,
    ]);
    assert!(
        stderr.contains("--limit 3000 is above the N = 2000"),
        "{stderr}"
    );
    // Another subtraction set's table is refused, as is an existing --out.
    let stderr = assert_refused(&["sequence", "values", "--load-table", t]);
    assert!(stderr.contains("--load-table"), "{stderr}");
    let stderr = assert_refused(&["sequence", "values", "--limit", "10", "--out", t]);
    assert!(
        stderr.contains("--out") && stderr.contains("already exists"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_unknown_sequence_is_refused_naming_the_three() {
    let stderr = assert_refused(&["sequence", "grundy"]);
    assert!(stderr.contains("values, cold, first"), "{stderr}");
}

/// `--terms K`: the first K terms, N chosen to hold them, against the seeds' and the OEIS's
/// published values; with a --limit too small, the file ends early and says so.
#[test]
fn terms_gives_the_first_k_terms_of_each_sequence() {
    let terms = |args: &[&str]| -> Vec<u64> {
        common::stdout_of(args)
            .lines()
            .enumerate()
            .map(|(i, l)| {
                let (n, a) = l.split_once(' ').unwrap();
                assert_eq!(n.parse::<usize>().unwrap(), i, "{l}");
                a.parse().unwrap()
            })
            .collect()
    };
    // g(0..29) for the squares (the seeds).
    let g = [
        0, 1, 0, 1, 2, 0, 1, 0, 1, 2, 0, 1, 0, 1, 2, 0, 1, 0, 1, 2, 0, 1, 0, 1, 2, 3, 2, 3, 4, 5,
    ];
    assert_eq!(terms(&["sequence", "values", "--terms", "30"]), g);
    // The 21 cold positions below 100 (the seeds; A030193).
    let cold = [
        0, 2, 5, 7, 10, 12, 15, 17, 20, 22, 34, 39, 44, 52, 57, 62, 65, 67, 72, 85, 95,
    ];
    assert_eq!(terms(&["sequence", "cold", "--terms", "21"]), cold);
    // A297963 a(0..15) (Eppstein).
    let first = [
        0, 1, 4, 25, 28, 29, 75, 103, 200, 234, 315, 364, 479, 633, 802, 1054,
    ];
    assert_eq!(terms(&["sequence", "first", "--terms", "16"]), first);
    // 3000 cold positions need N past 100 000 (2781 up to it): N grows to hold them.
    assert_eq!(terms(&["sequence", "cold", "--terms", "3000"]).len(), 3000);
    // With --limit 50 only the published cold positions up to 50 exist: all of them, and a
    // note.
    let up_to_50 = A030193.iter().filter(|&&c| c <= 50).count();
    let out = nimsquare()
        .args(["sequence", "cold", "--terms", "30", "--limit", "50"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap().lines().count(),
        up_to_50
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    let note = format!("only {up_to_50} terms up to N = 50 (asked for 30)");
    assert!(stderr.contains(&note), "{stderr}");
    assert_refused(&["sequence", "values", "--terms", "0"]);
}

/// Waits up to `seconds` for `child` to end; kills it and fails the test if it does not.
fn ends_within(
    child: &mut std::process::Child,
    seconds: f64,
    what: &str,
) -> std::process::ExitStatus {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs_f64(seconds);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} did not end within {seconds} s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Dawson's Kayles (0.07) is periodic (period 34 from n = 53) and never takes the value 6,
/// so `first --terms 20` can never hold 20 terms: it used to double N for ever. The proved
/// period now ends the search at once, with the terms there are and the reason.
#[test]
fn first_of_a_periodic_game_ends_saying_which_value_never_occurs() {
    for (args, terms, never) in [
        (
            vec!["--octal", "0.07", "--terms", "20"],
            vec![0, 2, 4, 6, 14, 16],
            "value 6 never occurs: octal game 0.07 is periodic with period 34 from n = 53",
        ),
        (
            vec!["--octal", "4.0", "--terms", "3"],
            vec![0, 2],
            "value 2 never occurs: octal game 4.0 is periodic with period 2 from n = 1",
        ),
        // {1, 2, 3}: g(n) = n mod 4 (the seeds), so value 4 never occurs.
        (
            vec!["--moves", "1,2,3", "--terms", "10"],
            vec![0, 1, 2, 3],
            "value 4 never occurs: the subtraction game 1,2,3 is periodic with period 4 from n = 0",
        ),
    ] {
        let mut child = common::nimsquare_process()
            .args(["sequence", "first"])
            .args(&args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        ends_within(&mut child, 10.0, &format!("{args:?}"));
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        let got: Vec<u64> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| l.split_once(' ').unwrap().1.parse().unwrap())
            .collect();
        assert_eq!(got, terms, "{args:?}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(
            stderr.starts_with(&format!(
                "first: only {} terms (asked for {}): ",
                terms.len(),
                args[3]
            )) && stderr.contains(never),
            "{args:?}: {stderr}"
        );
    }
}

/// A search with no end in reach (the squares' value 1999 lies far past N = 10^8) stops on
/// SIGTERM or SIGINT within two seconds: the terms of the last table it finished on stdout,
/// one line saying so, and status 143 or 130.
#[test]
fn a_signal_stops_a_long_first_search_with_the_terms_found_so_far() {
    use std::io::BufRead;
    for (sig, name, code) in [
        (libc::SIGTERM, "SIGTERM", 143),
        (libc::SIGINT, "SIGINT", 130),
    ] {
        let mut child = common::nimsquare_process()
            .args(["sequence", "first", "--terms", "2000"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // The first doubling's line comes after the handlers are installed.
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let reader = std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr).lines() {
                let line = line.unwrap();
                let _ = tx.send(line.clone());
            }
        });
        let first = rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("a line on stderr");
        assert!(
            first.starts_with(
                "first: 75 of 2000 terms up to N = 100000; searching up to N = 200000"
            ),
            "{first}"
        );
        // SAFETY: sending a signal to the child this test spawned.
        assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, sig) }, 0);
        let status = ends_within(&mut child, 2.0, name);
        assert_eq!(status.code(), Some(code), "{name}");
        reader.join().unwrap();
        let lines: Vec<String> = rx.try_iter().collect();
        let last = lines.last().expect("a closing line");
        let mut stdout = String::new();
        std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut stdout).unwrap();
        let written = stdout.lines().count();
        assert!(written >= 75, "{stdout}");
        assert!(
            last.starts_with(&format!(
                "first: interrupted by {name} while building g(0..="
            )) && last.contains(&format!(
                "; the {written} terms written are those up to N = "
            )),
            "{lines:?}"
        );
        // The terms are A297963's as far as it is published.
        let terms: Vec<u64> = stdout
            .lines()
            .map(|l| l.split_once(' ').unwrap().1.parse().unwrap())
            .collect();
        assert_eq!(terms[..46], A297963);
    }
}

#[test]
fn an_octal_sequence_is_the_same_from_every_back_end_and_a_bad_one_is_refused() {
    let run = |backend: &str| {
        let out = nimsquare()
            .args([
                "sequence",
                "values",
                "--octal",
                "0.6",
                "--limit",
                "3000",
                "--backend",
                backend,
            ])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{backend}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    // the reference's plain loops against the default's lanes and blocks
    let sparse = run("octal-sparse");
    assert_eq!(run("octal-block"), sparse);
    assert_eq!(run("octal-naive"), sparse);
    // Officers' first values (OEIS A046695)
    let head: Vec<&str> = std::str::from_utf8(&sparse)
        .unwrap()
        .lines()
        .take(8)
        .collect();
    assert_eq!(
        head,
        ["0 0", "1 0", "2 1", "3 2", "4 0", "5 1", "6 2", "7 3"]
    );
    let out = nimsquare()
        .args([
            "sequence",
            "values",
            "--octal",
            "0.6",
            "--backend",
            "octal-fast",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("error: --backend") && err.lines().count() == 1,
        "{err}"
    );
    // --backend is the octal game's; without --octal it is refused
    let out = nimsquare()
        .args(["sequence", "values", "--backend", "octal-block"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--octal"));
}

#[test]
fn json_gives_the_terms_of_the_b_file_in_one_object() {
    let out = nimsquare()
        .args(["sequence", "cold", "--limit", "340", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["sequence"], "cold");
    assert_eq!(v["limit"], 340);
    let terms: Vec<u64> = serde_json::from_value(v["terms"].clone()).unwrap();
    assert_eq!(terms, A030193);
    assert!(v["version"].is_string() && v["build"].is_string());
}
