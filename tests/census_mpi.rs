//! The census under MPI (the `mpi` feature): `mpirun -n 1`, `-n 2` and `-n 3` write the rows
//! one process writes, to a file and to stdout, finish a file one process began (`--resume`),
//! refuse bad input once, before any work, and leave, when a worker dies, a file that
//! `--resume` finishes. Each holds an MPI run against a one-process run of the same census.
//! `mpirun` must be on the PATH: a build with the feature but no MPI fails here, naming what
//! to install, rather than skipping.

mod common;

use common::{nimsquare, Scratch};
use nimsquare::run::wisdom::OFF_VARIABLE;
use std::path::Path;
use std::process::{Command, Output};

const CENSUS: [&str; 5] = ["census", "--digits", "2", "--limit", "300"];

/// `mpirun -n P` on the built binary, followed by its arguments. Open MPI is allowed to run
/// as root (CI runs as root), to start more ranks than this machine has cores, and to leave
/// each rank on every core (its default binds a rank to one core or socket).
fn mpirun(p: usize) -> Command {
    let mut cmd = Command::new("mpirun");
    cmd.env(OFF_VARIABLE, "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("OMPI_MCA_rmaps_base_oversubscribe", "1")
        .env("OMPI_MCA_hwloc_base_binding_policy", "none")
        .args(["-n", &p.to_string(), env!("CARGO_BIN_EXE_nimsquare")]);
    cmd
}

fn output(cmd: &mut Command) -> Output {
    cmd.output().unwrap_or_else(|e| {
        panic!(
            "cannot start mpirun ({e}): the mpi feature's tests need Open MPI \
             (apt-get install openmpi-bin libopenmpi-dev)"
        )
    })
}

/// Runs `cmd` and asserts it succeeded; returns its stdout.
fn succeeds(cmd: &mut Command) -> String {
    let out = output(cmd);
    assert!(
        out.status.success(),
        "{:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn scratch(name: &str) -> Scratch {
    Scratch::new(format!(
        "nimsquare-census-mpi-{name}-{}",
        std::process::id()
    ))
}

fn text(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn mpi_runs_write_the_rows_of_one_process() {
    let dir = scratch("rows");
    let one = dir.join("one.csv");
    nimsquare()
        .args(CENSUS)
        .args(["--quiet", "--out", one.to_str().unwrap()])
        .assert()
        .success();
    let whole = text(&one);
    assert_eq!(whole.lines().count(), 2 + 2 * (7 + 56));
    for p in [1, 2, 3] {
        let file = dir.join(format!("mpi{p}.csv"));
        succeeds(
            mpirun(p)
                .args(CENSUS)
                .args(["--quiet", "--out", file.to_str().unwrap()]),
        );
        assert_eq!(
            common::census_facts(&text(&file)),
            common::census_facts(&whole),
            "-n {p}"
        );
    }
    // The other route: rows kept in memory and printed by rank 0 alone.
    let printed = common::stdout_of(CENSUS.iter().chain(&["--csv", "--quiet"]));
    let mpi = succeeds(mpirun(3).args(CENSUS).args(["--csv", "--quiet"]));
    assert_eq!(common::census_facts(&mpi), common::census_facts(&printed));
    // The progress's last line, from rank 0 only.
    let out = output(mpirun(2).args(CENSUS).arg("--csv"));
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let last = "census: 126/126 codes up to N = 300 in ";
    assert_eq!(stderr.matches(last).count(), 1, "{stderr}");
}

#[test]
fn mpi_resumes_a_file_one_process_began() {
    let dir = scratch("resume");
    let whole = dir.join("whole.csv");
    nimsquare()
        .args(CENSUS)
        .args(["--quiet", "--out", whole.to_str().unwrap()])
        .assert()
        .success();
    let all = text(&whole);
    // The header, the column names and every third row, as a kill might leave them.
    let lines: Vec<&str> = all.lines().collect();
    let mut partial = format!("{}\n{}\n", lines[0], lines[1]);
    for line in lines[2..].iter().step_by(3) {
        partial += line;
        partial.push('\n');
    }
    let half = dir.join("half.csv");
    std::fs::write(&half, partial).unwrap();
    let out = output(mpirun(3).args(CENSUS).args([
        "--quiet",
        "--resume",
        "--out",
        half.to_str().unwrap(),
    ]));
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        common::census_facts(&text(&half)),
        common::census_facts(&all)
    );
}

#[test]
fn bad_input_under_mpi_is_refused_once_before_any_work() {
    let dir = scratch("refusals");
    let file = dir.join("one.csv");
    let path = file.to_str().unwrap();
    nimsquare()
        .args(CENSUS)
        .args(["--quiet", "--out", path])
        .assert()
        .success();
    let before = text(&file);
    // Refused by rank 0 alone (the workers never read the file), with the message one
    // process gives.
    for (args, says) in [
        (
            &[
                "census", "--digits", "2", "--limit", "400", "--resume", "--out", path,
            ][..],
            "limit (300 there, 400 here)",
        ),
        (
            &[
                "census", "--digits", "2", "--limit", "300", "--shard", "3/2",
            ],
            "--shard 3/2",
        ),
        (
            &["census", "--digits", "2", "--limit", "300", "--out", path],
            "already exists",
        ),
    ] {
        let out = output(mpirun(2).args(args));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let errors: Vec<&str> = stderr
            .lines()
            .filter(|l| l.starts_with("error: "))
            .collect();
        assert_eq!(errors.len(), 1, "{args:?}: {stderr}");
        assert!(errors[0].contains(says), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
    assert_eq!(text(&file), before);
    // A worker whose node has too little memory for the largest table (rank 1 started with
    // the memory override, in Open MPI's MPMD form `A : B`): refused by rank 0 with the
    // worker's message, before any work, and no --out file is begun.
    let fresh = dir.join("fresh.csv");
    let args = [&CENSUS[..], &["--out", fresh.to_str().unwrap()]].concat();
    let out = output(
        mpirun(1)
            .args(&args)
            .args([":", "-n", "1", "env"])
            .arg(format!(
                "{}=1000",
                nimsquare::base::memory::AVAILABLE_OVERRIDE
            ))
            .arg(env!("CARGO_BIN_EXE_nimsquare"))
            .args(&args),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("error: "))
        .collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(
        errors[0].starts_with("error: rank 1 on ") && errors[0].contains("memory"),
        "{stderr}"
    );
    assert!(!fresh.exists());
}

/// The pid of the rank `rank` of the MPI job whose command line holds `marker`, once it runs.
fn rank_pid(marker: &str, rank: usize) -> Option<libc::pid_t> {
    let want = format!("OMPI_COMM_WORLD_RANK={rank}");
    std::fs::read_dir("/proc").ok()?.find_map(|entry| {
        let dir = entry.ok()?.path();
        let pid: libc::pid_t = dir.file_name()?.to_str()?.parse().ok()?;
        let cmdline = std::fs::read(dir.join("cmdline")).ok()?;
        let environ = std::fs::read(dir.join("environ")).ok()?;
        let has = |bytes: &[u8], s: &str| bytes.split(|&b| b == 0).any(|w| w == s.as_bytes());
        (has(&cmdline, marker) && has(&environ, &want)).then_some(pid)
    })
}

#[test]
fn a_dead_worker_leaves_rows_that_resume_finishes() {
    let dir = scratch("death");
    // Long enough (seconds) that the job cannot finish between the kill and mpirun ending it.
    let base = ["census", "--digits", "3", "--limit", "6000", "--quiet"];
    let whole = dir.join("whole.csv");
    nimsquare()
        .args(base)
        .args(["--out", whole.to_str().unwrap()])
        .assert()
        .success();
    let file = dir.join("killed.csv");
    let path = file.to_str().unwrap();
    let mut job = mpirun(3)
        .args(base)
        .args(["--out", path])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("mpirun starts (the mpi feature's tests need Open MPI)");
    // A worker killed outright (no handler runs) once a few rows are in the file.
    let rows = |f: &Path| std::fs::read_to_string(f).map_or(0, |t| t.lines().count());
    let killed = loop {
        if job.try_wait().unwrap().is_some() {
            break false;
        }
        if rows(&file) >= 2 + 5 {
            if let Some(pid) = rank_pid(path, 1) {
                // SAFETY: a signal to a process of the job this test started.
                unsafe { libc::kill(pid, libc::SIGKILL) };
                break true;
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    let out = job.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The census runs for seconds, its first five rows come in the first tenth of it.
    assert!(
        killed,
        "the job ended before a worker could be killed: {stderr}"
    );
    // mpirun ends the job (SIGTERM to every rank, SIGKILL after a while); rank 0 says how far
    // its file got and how to finish it.
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("census: stopped by SIGTERM") && stderr.contains("--resume"),
        "{stderr}"
    );
    assert!(rows(&file) < rows(&whole), "{stderr}");
    // One process finishes what the job left: the uninterrupted run's file.
    nimsquare()
        .args(base)
        .args(["--resume", "--out", path])
        .assert()
        .success();
    assert_eq!(
        common::census_facts(&text(&file)),
        common::census_facts(&text(&whole))
    );
}

#[test]
fn mpi_until_proved_rows_are_those_of_one_process() {
    let until = [
        "census",
        "--digits",
        "2",
        "--limit",
        "64",
        "--until-proved",
        "--max-limit",
        "4096",
        "--csv",
        "--quiet",
    ];
    let one = common::stdout_of(until);
    assert!(one.starts_with("code,limit,status,stop,"), "{one}");
    for p in [2, 3] {
        let mpi = succeeds(mpirun(p).args(until));
        assert_eq!(
            common::census_facts(&mpi),
            common::census_facts(&one),
            "-n {p}"
        );
    }
}

/// A build that panics on a worker (the `testing` feature's hook, set for every rank) comes
/// back to rank 0 as that code's error row, naming the rank; every other code finishes, and
/// a resume builds the failed code.
#[cfg(feature = "testing")]
#[test]
fn a_panic_in_a_workers_build_is_an_error_row_and_the_census_goes_on() {
    let dir = scratch("panic");
    let panic = nimsquare::census::PANIC_CODE_VARIABLE;
    let one = common::stdout_of(CENSUS.iter().chain(&["--csv", "--quiet"]));
    let out = output(
        mpirun(2)
            .env(panic, "0.6")
            .args(CENSUS)
            .args(["--csv", "--quiet"]),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("census: 0.6 failed: rank 1 on ")
            && stderr.contains("census code 0.6: the build panicked"),
        "{stderr}"
    );
    let mpi = String::from_utf8(out.stdout).unwrap();
    let (got, want) = (common::census_facts(&mpi), common::census_facts(&one));
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        if w.starts_with("0.6,") {
            assert!(g.starts_with("0.6,300,error,,,,,"), "{g}");
        } else {
            assert_eq!(g, w);
        }
    }
    // Into a rows file: every row but 0.6's; a resume without the fault finishes it.
    let file = dir.join("part.csv");
    let path = file.to_str().unwrap();
    let out = output(
        mpirun(3)
            .env(panic, "0.6")
            .args(CENSUS)
            .args(["--quiet", "--out", path]),
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&file).lines().count(), 2 + 2 * (7 + 56) - 1);
    succeeds(
        mpirun(2)
            .args(CENSUS)
            .args(["--quiet", "--resume", "--out", path]),
    );
    let whole = dir.join("whole.csv");
    nimsquare()
        .args(CENSUS)
        .args(["--quiet", "--out", whole.to_str().unwrap()])
        .assert()
        .success();
    assert_eq!(
        common::census_facts(&text(&file)),
        common::census_facts(&text(&whole))
    );
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

/// An until-proved census under MPI: the workers keep their codes' tables beside the rows
/// file (rank 0 builds none, so every table there is a worker's), and a resumed job goes on
/// from them, ending with the rows of an uninterrupted run.
#[test]
fn mpi_workers_keep_tables_that_a_resumed_job_goes_on_from() {
    let dir = scratch("tables");
    let base = [
        "census",
        "--codes",
        "0.07,0.137,0.346,0.76,0.6,4.1",
        "--limit",
        "64",
        "--until-proved",
        "--max-limit",
        // long enough that a code is still in flight when the signal lands: at 32 768 the
        // faster lane sweep of 68ab087 let every code end first (on Xeon-167, 3 runs of 3)
        "131072",
        // octal-block, not auto: auto copies .07's and .137's proved periods and marks
        // .346's and .76's pairs fast enough that every code could end between the first
        // kept table and the signal, leaving no table to resume from
        "--backend",
        "octal-block",
    ];
    let whole = dir.join("whole.csv");
    nimsquare()
        .args(base)
        .args(["--quiet", "--out", whole.to_str().unwrap()])
        .assert()
        .success();
    let file = dir.join("stopped.csv");
    let folder = dir.join("stopped.csv.tables");
    let mut job = mpirun(2)
        .env("NIMSQUARE_CENSUS_TABLE_EVERY", "0")
        .args(base)
        .args(["--quiet", "--out", file.to_str().unwrap()])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("mpirun starts (the mpi feature's tests need Open MPI)");
    let stopped = loop {
        if job.try_wait().unwrap().is_some() {
            break false;
        }
        if tables(&folder) > 0 {
            // SAFETY: a signal to the mpirun this test started; it passes it to the ranks.
            unsafe { libc::kill(job.id() as libc::pid_t, libc::SIGTERM) };
            break true;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    };
    let out = job.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stopped,
        "the job ended before a worker kept a table: {stderr}"
    );
    assert!(!out.status.success(), "{stderr}");
    assert!(tables(&folder) > 0, "{stderr}");
    let marked = mark_tables(&folder, &file);
    assert!(!marked.is_empty());
    let out = output(
        mpirun(3)
            .args(base)
            .args(["--resume", "--out", file.to_str().unwrap()]),
    );
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("go on from their tables in"), "{said}");
    assert_eq!(
        common::census_facts(&text(&file)),
        common::census_facts(&text(&whole))
    );
    // Each marked code went on from its table on a worker, its seconds carried.
    for code in &marked {
        assert!(
            seconds_of(&text(&file), code) >= 1e6,
            "{code} started again"
        );
    }
    assert!(!folder.exists());
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

/// Every write of an MPI census failed in turn (issue 58; the `testing` feature's fault
/// point, so only in the CI step that builds `testing,mpi`): `mpirun -n P census --out`
/// with `NIMSQUARE_FAULT=N:enospc` or `N:eio`, which every rank inherits. Rank 0 writes the
/// rows file; a worker of this census writes nothing, so the N-th point is rank 0's. For
/// every N a run reaches (with two ranks and three in turn): no panic, no hang, status 0 or 4 (with 4, one `error:` line naming
/// the file), no temporary file left, a file on disk whole for `--resume`'s reader; and the
/// same command run again (with `--resume` when a file is there) ends 0 with the rows of the
/// unfaulted run. The counts go to stderr for results/reliability/faults.md.
#[cfg(feature = "testing")]
#[test]
fn mpi_census_survives_every_failed_write() {
    use nimsquare::base::fault::VARIABLE;
    let dir = scratch("faults");
    let rows = dir.join("rows.csv");
    let census = |p: usize, fault: Option<String>, resume: bool| -> Output {
        let mut cmd = mpirun(p);
        cmd.args([
            "census", "--digits", "1", "--limit", "600", "--quiet", "--out",
        ])
        .arg(&rows)
        .env_remove(VARIABLE);
        if resume {
            cmd.arg("--resume");
        }
        if let Some(f) = fault {
            cmd.env(VARIABLE, f);
        }
        output(&mut cmd)
    };
    {
        let _ = std::fs::remove_file(&rows);
        let counted = census(2, Some("count".into()), false);
        assert!(counted.status.success(), "{counted:?}");
        let expected = common::census_facts(&text(&rows));
        // Rank 0's count is the largest: the workers reach no point.
        let reached = String::from_utf8_lossy(&counted.stderr)
            .lines()
            .filter_map(|l| l.strip_prefix("fault points reached: "))
            .map(|l| {
                l.split_whitespace()
                    .next()
                    .unwrap()
                    .parse::<usize>()
                    .unwrap()
            })
            .max()
            .expect("a count of fault points");
        assert!(reached > 2, "{counted:?}");
        let mut failed = 0;
        for n in 1..=reached {
            let _ = std::fs::remove_file(&rows);
            // Two ranks or three in turn: the points are rank 0's either way.
            let p = 2 + n % 2;
            let fault = format!("{n}:{}", if n % 2 == 1 { "enospc" } else { "eio" });
            let label = format!("-n {p}, fault {fault}");
            let ran = census(p, Some(fault), false);
            let stderr = String::from_utf8_lossy(&ran.stderr).into_owned();
            assert!(!stderr.contains("panicked"), "{label}: {stderr}");
            let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
            match ran.status.code() {
                Some(0) => assert!(errors.is_empty(), "{label}: {stderr}"),
                Some(4) => {
                    failed += 1;
                    assert_eq!(errors.len(), 1, "{label}: {stderr}");
                    assert!(errors[0].contains("rows.csv"), "{label}: {stderr}");
                }
                other => panic!("{label}: status {other:?}: {stderr}"),
            }
            let left: Vec<_> = std::fs::read_dir(&*dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.contains("tmp"))
                .collect();
            assert!(left.is_empty(), "{label}: temporary files left: {left:?}");
            let there = rows.exists();
            if there {
                let read = nimsquare::run::longrun::censusfile::read(&rows, "--resume")
                    .unwrap_or_else(|e| panic!("{label}: {e}"));
                assert!(read.rows.len() + 2 <= expected.len(), "{label}");
            }
            let again = census(p, None, there);
            assert!(again.status.success(), "{label}, run again: {again:?}");
            assert_eq!(
                common::census_facts(&text(&rows)),
                expected,
                "{label}: the rows"
            );
        }
        eprintln!(
            "write faults: mpirun -n 2 and -n 3 census --out: {reached} points reached, {reached} tried, {reached} passed ({failed} ended with status 4)"
        );
    }
}
