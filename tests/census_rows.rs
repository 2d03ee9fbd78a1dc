//! The census beyond one run: durable rows (`census --out`, `--resume`), shards of a job
//! array (`--shard I/K`, `census merge`), `--codes` and up to 5 digits. Each test holds two
//! independent routes against each other (shards merged against one whole run, a killed and
//! resumed run against an uninterrupted one, the file against stdout) or a refusal against
//! its expected message.

mod common;

use common::{assert_refused, census_facts, nimsquare, nimsquare_process, Scratch};
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> Scratch {
    Scratch::new(format!(
        "nimsquare-census-rows-{name}-{}",
        std::process::id()
    ))
}

fn text(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

/// Runs `census` with `args` and `--quiet --out FILE`, asserting success.
fn census_to(file: &Path, args: &[&str]) {
    nimsquare()
        .arg("census")
        .args(args)
        .args(["--quiet", "--out", file.to_str().unwrap()])
        .assert()
        .success();
}

/// Runs `census --quiet --resume --out FILE` with `args`.
fn resume(file: &Path, args: &[&str]) -> std::process::Output {
    nimsquare()
        .args(["census", "--quiet", "--resume", "--out"])
        .arg(file)
        .args(args)
        .output()
        .unwrap()
}

/// Runs `census --quiet --resume --out FILE` with `args`, asserting success.
fn resumed_to(file: &Path, args: &[&str]) {
    let out = resume(file, args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The rows of a CSV rows file (after its census line and column names), without the
/// columns two runs differ in (the date and the cost).
fn rows(file: &Path) -> Vec<String> {
    census_facts(&text(file)).into_iter().skip(2).collect()
}

/// A rows file's lines without the columns two runs differ in.
fn facts(file: &Path) -> Vec<String> {
    census_facts(&text(file))
}

#[test]
fn a_shard_pair_merged_equals_the_whole_and_stdout() {
    let dir = scratch("shards");
    let base = ["--digits", "2", "--limit", "600"];
    let whole = dir.join("whole.csv");
    census_to(&whole, &base);
    // The same rows by the other route: kept in memory and printed on stdout at the end.
    let stdout = common::stdout_of(["census", "--csv", "--quiet"].iter().chain(&base));
    let printed: Vec<String> = census_facts(&stdout).into_iter().skip(1).collect();
    assert_eq!(rows(&whole), printed);
    assert_eq!(printed.len(), 2 * (7 + 56));
    for k in [2usize, 3] {
        let parts: Vec<PathBuf> = (0..k)
            .map(|i| dir.join(format!("part{i}of{k}.csv")))
            .collect();
        for (i, part) in parts.iter().enumerate() {
            let shard = format!("{i}/{k}");
            census_to(part, &[&base[..], &["--shard", &shard]].concat());
            assert!(!rows(part).is_empty(), "{shard}");
        }
        // Given in reverse order, merged: byte for byte the whole run's file.
        let merged = dir.join(format!("merged{k}.csv"));
        let mut cmd = nimsquare();
        cmd.args(["census", "merge", "--out", merged.to_str().unwrap()]);
        cmd.args(parts.iter().rev());
        cmd.assert().success();
        assert_eq!(facts(&merged), facts(&whole), "{k} shards");
    }
}

/// Waits until `file` holds a few rows or `child` has ended (no time limit: the test binary's
/// own timeout stops a hang).
fn wait_for_rows(file: &Path, child: &mut std::process::Child) {
    loop {
        let n = std::fs::read_to_string(file).map_or(0, |t| t.lines().count());
        if n >= 5 || child.try_wait().unwrap().is_some() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

#[test]
fn progress_lines_come_when_stderr_is_not_a_terminal() {
    // stderr is a pipe here; lines come every NIMSQUARE_PROGRESS_EVERY seconds.
    let out = nimsquare()
        .args(["census", "--digits", "3", "--limit", "2000", "--csv"])
        .env("NIMSQUARE_PROGRESS_EVERY", "0.02")
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = stderr.lines().collect();
    assert!(
        lines
            .last()
            .unwrap()
            .starts_with("census: 1022/1022 codes up to N = 2000 in "),
        "{stderr}"
    );
    // The census of 3 digits at N = 2000 runs for seconds: lines came before the last.
    assert!(lines.len() >= 2, "{stderr}");
    for line in &lines[..lines.len() - 1] {
        assert!(
            line.starts_with("census: ")
                && line.contains("/1022 codes up to N = 2000, ")
                && line.contains(" positions/s, ETA "),
            "{line}"
        );
    }
    assert!(stderr.contains(", slowest in flight "), "{stderr}");
}

#[test]
fn a_killed_and_resumed_census_equals_an_uninterrupted_one() {
    let dir = scratch("kill");
    let base = ["--digits", "3", "--limit", "2000"];
    let whole = dir.join("whole.csv");
    census_to(&whole, &base);
    let total = rows(&whole).len();
    assert_eq!(total, 1022);

    // A real kill: SIGKILL once a few rows are in the file (no handler runs, nothing is
    // tidied), then --resume.
    let killed = dir.join("killed.csv");
    let mut child = nimsquare_process()
        .args(["census", "--quiet", "--out", killed.to_str().unwrap()])
        .args(base)
        .spawn()
        .unwrap();
    wait_for_rows(&killed, &mut child);
    let _ = child.kill();
    let _ = child.wait();
    let kept = rows(&killed).len();
    resumed_to(&killed, &base);
    assert_eq!(
        facts(&killed),
        facts(&whole),
        "killed with {kept} rows kept"
    );

    // SIGTERM (a batch system ending the job): the codes in flight finish, the run says how
    // to go on and exits 143; --resume then finishes the same file.
    let termed = dir.join("termed.csv");
    let mut child = nimsquare_process()
        .args(["census", "--quiet", "--out", termed.to_str().unwrap()])
        .args(base)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_rows(&termed, &mut child);
    // While it runs, a second census may not append to its file; stopped (SIGSTOP) so that
    // it is surely still running when the second one tries.
    let pid = child.id() as libc::pid_t;
    // SAFETY: signals to the child this test spawned and still holds.
    unsafe { libc::kill(pid, libc::SIGSTOP) };
    let running = child.try_wait().unwrap().is_none();
    let second = nimsquare()
        .args([
            "census",
            "--quiet",
            "--resume",
            "--out",
            termed.to_str().unwrap(),
        ])
        .args(base)
        .output()
        .unwrap();
    // SAFETY: as above.
    unsafe {
        libc::kill(pid, libc::SIGTERM);
        libc::kill(pid, libc::SIGCONT);
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if running {
        assert_eq!(second.status.code(), Some(2));
        let e = String::from_utf8_lossy(&second.stderr);
        assert!(e.contains("locked"), "{e}");
    }
    if out.status.code() == Some(143) {
        assert!(
            stderr.contains("stopped by SIGTERM") && stderr.contains("--resume"),
            "{stderr}"
        );
    } else {
        // It had finished before the signal: nothing to resume, nothing to check here.
        assert!(out.status.success(), "{stderr}");
    }
    resumed_to(&termed, &base);
    assert_eq!(facts(&termed), facts(&whole));

    // What a kill can leave, made exactly: rows in completion order and a last line cut in
    // the middle. The resumed file is again the whole run's.
    let cut = dir.join("cut.csv");
    let whole_text = text(&whole);
    let lines: Vec<&str> = whole_text.lines().collect();
    let mut partial = format!("{}\n{}\n", lines[0], lines[1]);
    for line in lines[2..].iter().rev().step_by(3) {
        partial += line;
        partial.push('\n');
    }
    partial += &lines[2][..5];
    std::fs::write(&cut, partial).unwrap();
    resumed_to(&cut, &base);
    assert_eq!(census_facts(&text(&cut)), census_facts(&whole_text));
}

#[test]
fn json_lines_resume_and_merge_as_csv_does() {
    let dir = scratch("jsonl");
    let base = ["--digits", "1", "--limit", "300", "--json"];
    let whole = dir.join("whole.jsonl");
    census_to(&whole, &base);
    let t = text(&whole);
    let lines: Vec<serde_json::Value> = t
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1 + 14);
    assert_eq!(lines[0]["census"]["limit"], 300);
    assert_eq!(lines[1]["code"], "0.1");
    assert!(lines[1..]
        .iter()
        .all(|v| v["status"].is_string() && v["cpu"].is_string()));
    // Half the rows kept, then resumed.
    let half = dir.join("half.jsonl");
    let keep: Vec<&str> = t.lines().take(8).collect();
    std::fs::write(&half, keep.join("\n") + "\n").unwrap();
    resumed_to(&half, &base);
    assert_eq!(facts(&half), census_facts(&t));
    // Two JSON Lines shards merged: the whole file again.
    let parts: Vec<PathBuf> = (0..2).map(|i| dir.join(format!("p{i}.jsonl"))).collect();
    for (i, p) in parts.iter().enumerate() {
        census_to(p, &[&base[..], &["--shard", &format!("{i}/2")]].concat());
    }
    let merged = nimsquare()
        .args(["census", "merge"])
        .args(&parts)
        .output()
        .unwrap();
    assert!(merged.status.success());
    assert_eq!(
        census_facts(&String::from_utf8(merged.stdout).unwrap()),
        census_facts(&t)
    );
}

#[test]
fn codes_select_a_list_a_range_and_a_file() {
    let dir = scratch("codes");
    let whole = dir.join("whole.csv");
    census_to(&whole, &["--digits", "2", "--limit", "500"]);
    let all = rows(&whole);
    let list = dir.join("list.txt");
    std::fs::write(&list, "# two codes\n0.07\n4.77 # the last\n").unwrap();
    let some = dir.join("some.csv");
    let filter = format!("0.6,0.14..0.16,@{}", list.display());
    census_to(
        &some,
        &["--digits", "2", "--limit", "500", "--codes", &filter],
    );
    let chosen = ["0.6", "0.14", "0.15", "0.16", "0.07", "4.77"];
    let expected: Vec<String> = all
        .iter()
        .filter(|r| chosen.contains(&r.split(',').next().unwrap()))
        .cloned()
        .collect();
    assert_eq!(expected.len(), chosen.len());
    assert_eq!(rows(&some), expected);
}

#[test]
fn four_and_five_digit_codes_agree_with_published_periods() {
    // OEIS A071434: .1377 has period 24, last exception at n = 140 (offset 1), so the
    // preperiod counting the empty heap is 141; A071435: .177, period 20, last exception 496.
    let out = common::stdout_of([
        "census",
        "--codes",
        "0.1377,0.177,0.00007",
        "--limit",
        "2000",
        "--csv",
        "--quiet",
    ]);
    let rows: Vec<Vec<&str>> = out
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    let find = |code: &str| rows.iter().find(|r| r[0] == code).unwrap().clone();
    assert_eq!(find("0.1377")[2..5], ["periodic", "141", "24"]);
    assert_eq!(find("0.177")[2..5], ["periodic", "497", "20"]);
    // .00007: take 5 from a heap, or split after taking 5; shows 5 digits are taken.
    assert_eq!(find("0.00007")[0], "0.00007");
}

#[test]
fn bad_census_input_is_refused_before_any_work() {
    let dir = scratch("refusals");
    for (args, says) in [
        (&["--shard", "3/2"][..], "--shard 3/2"),
        (&["--shard", "0/0"], "--shard 0/0"),
        (&["--shard", "x"], "--shard"),
        (&["--digits", "6"], "--digits"),
        (&["--codes", "0.08"], "--codes"),
        (&["--codes", "0.1234", "--digits", "3"], "--codes"),
        (&["--codes", "4.7..4.1", "--digits", "1"], "backwards"),
        (&["--resume"], "--out"),
        (&["--resume", "--force", "--out", "x.csv"], "--force"),
    ] {
        let e = assert_refused(&[&["census"][..], args].concat());
        assert!(e.contains(says), "{args:?}: {e}");
    }
    // A file of one census is not resumed by another, and the message names what differs.
    let file = dir.join("one.csv");
    let path = file.to_str().unwrap();
    census_to(&file, &["--digits", "1", "--limit", "200"]);
    let before = text(&file);
    for (args, says) in [
        (
            &["--digits", "1", "--limit", "300"][..],
            "limit (200 there, 300 here)",
        ),
        (&["--digits", "2", "--limit", "200"], "digit range"),
        (
            &[
                "--digits",
                "1",
                "--limit",
                "200",
                "--backend",
                "octal-sparse",
            ],
            "back-end",
        ),
        (
            &["--digits", "1", "--limit", "200", "--shard", "0/2"],
            "shard",
        ),
        (
            &["--digits", "1", "--limit", "200", "--codes", "0.7"],
            "code selection",
        ),
        (&["--digits", "1", "--limit", "200", "--json"], "JSON Lines"),
    ] {
        let e = assert_refused(&[&["census", "--resume", "--out", path][..], args].concat());
        assert!(e.contains("--resume") && e.contains(says), "{args:?}: {e}");
    }
    // Nor replaced without being asked.
    let e = assert_refused(&["census", "--digits", "1", "--limit", "200", "--out", path]);
    assert!(e.contains("--resume") && e.contains("--force"), "{e}");
    assert_eq!(text(&file), before);
    // A file that is no census.
    let other = dir.join("other.csv");
    std::fs::write(&other, "a,b\n1,2\n").unwrap();
    let e = assert_refused(&["census", "--resume", "--out", other.to_str().unwrap()]);
    assert!(e.contains("not a census rows file"), "{e}");
}

/// A build without MPI started by `mpirun -n 3` (its environment, made here) would run the
/// whole census in each process: refused, naming the feature. (With the feature, the same
/// environment would start MPI for real.)
#[cfg(not(feature = "mpi"))]
#[test]
fn a_census_without_mpi_refuses_to_run_as_one_of_several_mpi_ranks() {
    for variable in ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE"] {
        let out = nimsquare()
            .args(["census", "--digits", "1", "--limit", "100"])
            .env(variable, "3")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{variable}: {stderr}");
        assert!(stderr.contains("--features mpi"), "{variable}: {stderr}");
        assert!(out.stdout.is_empty(), "{variable}");
    }
    // One process of one is the plain census.
    let out = nimsquare()
        .args(["census", "--digits", "1", "--limit", "100", "--quiet"])
        .env("OMPI_COMM_WORLD_SIZE", "1")
        .output()
        .unwrap();
    assert!(out.status.success());
}

#[test]
fn merge_refuses_gaps_overlaps_and_mismatched_parameters() {
    let dir = scratch("merge");
    let part = |name: &str, args: &[&str]| -> String {
        let f = dir.join(name);
        census_to(&f, args);
        f.to_str().unwrap().to_string()
    };
    let base = ["--digits", "1", "--limit", "200"];
    let a = part("a.csv", &[&base[..], &["--shard", "0/2"]].concat());
    let b = part("b.csv", &[&base[..], &["--shard", "1/2"]].concat());
    let c = part(
        "c.csv",
        &["--digits", "1", "--limit", "300", "--shard", "1/2"],
    );
    let t = part("t.csv", &[&base[..], &["--shard", "1/3"]].concat());
    // An unfinished shard: its last row dropped.
    let cut = dir.join("cut.csv");
    let bt = text(Path::new(&b));
    let mut lines: Vec<&str> = bt.lines().collect();
    lines.pop();
    std::fs::write(&cut, lines.join("\n") + "\n").unwrap();
    let cut = cut.to_str().unwrap().to_string();
    for (files, says) in [
        (vec![&a], "gap: no file for shard 1/2"),
        (vec![&a, &a], "overlap: shard 0/2"),
        (vec![&a, &cut], "gap"),
        (vec![&a, &c], "limit (300 there, 200 here)"),
        (vec![&a, &t], "mismatched parameters"),
    ] {
        let args: Vec<&str> = ["census", "merge"]
            .into_iter()
            .chain(files.iter().map(|s| s.as_str()))
            .collect();
        let e = assert_refused(&args);
        assert!(e.contains(says), "{files:?}: {e}");
    }
    nimsquare()
        .args(["census", "merge", &a, &b])
        .assert()
        .success();
}

/// The line of `code`'s row in the rows file text `t` (1-based) and the row.
fn row_of<'a>(t: &'a str, code: &str) -> (usize, &'a str) {
    t.lines()
        .enumerate()
        .find(|(_, l)| l.starts_with(&format!("{code},")))
        .map(|(i, l)| (i + 1, l))
        .unwrap()
}

#[test]
fn an_edited_row_or_a_row_of_another_shard_is_refused_before_any_work() {
    // Issue 58: 0.4's period (34, Dawson's Kayles' period) edited to 35 on disk.
    let dir = scratch("edited");
    let base = ["--digits", "2", "--limit", "2000"];
    let whole = dir.join("whole.csv");
    census_to(&whole, &base);
    let t = text(&whole);
    let (number, row) = row_of(&t, "0.4");
    let f: Vec<&str> = row.split(',').collect();
    assert_eq!((f[2], f[4]), ("periodic", "34"), "{row}");
    let edited_row = [&f[..4], &["35"], &f[5..]].concat().join(",");
    let edited = t.replace(row, &edited_row);
    // A file stopped half way, holding the edited row: not resumed, and left as it was.
    let half = dir.join("half.csv");
    let kept: Vec<&str> = edited.lines().take(number + 10).collect();
    let before = kept.join("\n") + "\n";
    std::fs::write(&half, &before).unwrap();
    let out = resume(&half, &base);
    let e = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert_eq!(e.trim_end().lines().count(), 1, "{e}");
    assert!(
        e.contains("--resume")
            && e.contains(half.to_str().unwrap())
            && e.contains(&format!("line {number} (code 0.4) fails its check")),
        "{e}"
    );
    assert_eq!(text(&half), before);
    // Nor merged: the whole file with the edit.
    let whole_edited = dir.join("whole-edited.csv");
    std::fs::write(&whole_edited, &edited).unwrap();
    let e = assert_refused(&["census", "merge", whole_edited.to_str().unwrap()]);
    assert!(
        e.contains("census merge")
            && e.contains(whole_edited.to_str().unwrap())
            && e.contains(&format!("line {number} (code 0.4)")),
        "{e}"
    );
    // The largest value edited instead (9 to 10): refused the same way.
    let largest = [
        &f[..5],
        &[&(f[5].parse::<u32>().unwrap() + 1).to_string()[..]],
        &f[6..],
    ]
    .concat()
    .join(",");
    std::fs::write(&half, t.replace(row, &largest)).unwrap();
    let e = assert_refused(
        &[
            &[
                "census",
                "--quiet",
                "--resume",
                "--out",
                half.to_str().unwrap(),
            ][..],
            &base,
        ]
        .concat(),
    );
    assert!(e.contains("(code 0.4) fails its check"), "{e}");
    // The unedited file merges to itself, byte for byte.
    assert_eq!(
        common::stdout_of(["census", "merge", whole.to_str().unwrap()]),
        t
    );

    // A row of shard 1/2, sealed as the census wrote it, in the file of shard 0/2.
    let parts: Vec<PathBuf> = (0..2).map(|i| dir.join(format!("s{i}.csv"))).collect();
    for (i, p) in parts.iter().enumerate() {
        census_to(p, &[&base[..], &["--shard", &format!("{i}/2")]].concat());
    }
    let (s0, s1) = (text(&parts[0]), text(&parts[1]));
    let foreign = s1.lines().nth(2).unwrap();
    let code = foreign.split(',').next().unwrap();
    let mixed: Vec<&str> = s0.lines().take(5).chain([foreign]).collect();
    std::fs::write(&half, mixed.join("\n") + "\n").unwrap();
    let e = assert_refused(
        &[
            &[
                "census",
                "--quiet",
                "--resume",
                "--out",
                half.to_str().unwrap(),
            ][..],
            &base,
            &["--shard", "0/2"],
        ]
        .concat(),
    );
    assert!(
        e.contains(&format!(
            "line 6 (code {code}) is not a code of this census"
        )),
        "{e}"
    );
}

#[test]
fn a_census_file_of_version_2_is_still_merged_but_not_resumed() {
    // The four-digit census of results/census/, written by version 2 (no check column).
    let published =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("results/census/census-d4-n20000.csv");
    let t = text(&published);
    assert!(t.starts_with("# census {\"version\":2,"));
    assert_eq!(t.lines().count(), 2 + 8190);
    // Merged alone (a whole census of one shard): the same file, byte for byte.
    assert_eq!(
        common::stdout_of(["census", "merge", published.to_str().unwrap()]),
        t
    );
    // A copy of it is not resumed: its rows cannot be verified.
    let dir = scratch("v2");
    let copy = dir.join("v2.csv");
    std::fs::write(&copy, &t).unwrap();
    let e = assert_refused(&[
        "census",
        "--digits",
        "4",
        "--limit",
        "2e4",
        "--backend",
        "octal-block",
        "--quiet",
        "--resume",
        "--out",
        copy.to_str().unwrap(),
    ]);
    assert!(
        e.contains("--resume") && e.contains("format version 2") && e.contains("--force"),
        "{e}"
    );
    assert_eq!(text(&copy), t);
}

/// FNV-1a 64 of `bytes`, written here from its definition (offset basis 0xcbf29ce484222325,
/// prime 0x100000001b3), apart from the library's.
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[test]
fn a_row_another_build_wrote_is_refused_by_resume_unless_mixed_builds_are_asked() {
    let dir = scratch("builds");
    let base = ["--digits", "2", "--limit", "2000"];
    let whole = dir.join("whole.csv");
    census_to(&whole, &base);
    let t = text(&whole);
    let (number, row) = row_of(&t, "0.4");
    // The row as another build would have sealed it: its build column (the 9th) changed,
    // its check (the last column, FNV-1a 64 of the row before its comma) made good.
    let f: Vec<&str> = row.split(',').collect();
    let ours = f[8];
    let body = [&f[..8], &["0123abc"], &f[9..f.len() - 1]]
        .concat()
        .join(",");
    let other = format!("{body},{:016x}", fnv1a64(body.as_bytes()));
    let half = dir.join("half.csv");
    let kept: Vec<&str> = t.lines().take(number + 5).collect();
    let before = (kept.join("\n") + "\n").replace(row, &other);
    std::fs::write(&half, &before).unwrap();
    let resume_with = |extra: &[&str]| resume(&half, &[&base[..], extra].concat());
    let out = resume_with(&[]);
    let e = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert_eq!(e.trim_end().lines().count(), 1, "{e}");
    assert!(
        e.contains("--resume")
            && e.contains(&format!(
                "code 0.4 was written by build 0123abc, this is build {ours}"
            ))
            && e.contains("--mixed-builds"),
        "{e}"
    );
    assert_eq!(text(&half), before, "refused before any work");
    // Asked for, the row is kept and the census finished: every row but 0.4's as one run
    // writes it, and 0.4's naming the build that wrote it.
    let out = resume_with(&["--mixed-builds"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(facts(&half), common::census_facts(&t.replace(row, &other)));
    assert!(text(&half).contains(&other));
}
