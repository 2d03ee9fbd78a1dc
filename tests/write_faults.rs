//! Every write failed in turn (issue 58, part 2): for each command that writes files, the
//! fault points a run reaches are counted (`NIMSQUARE_FAULT=count`, [`VARIABLE`]), then the
//! run is repeated once for every n from 1 to that count with the n-th point failing
//! (ENOSPC for odd n, EIO for even n; the failing write first writes half its bytes). Each
//! time: no panic; the exit status is the documented one (0 when the point was a periodic
//! checkpoint, which warns and goes on, or a best-effort folder sync; 4 when a file was not
//! written, in one `error:` line naming it); any answer printed is the unfaulted run's; no
//! temporary file is left; each file on disk is whole for its reader or absent; and the same
//! command run again without the fault (with `--resume` where the command asks for it)
//! ends with status 0 and the unfaulted run's answer and files.
//!
//! Needs the `testing` feature (the fault point is absent without it). The counts and the
//! passes are recorded in results/reliability/faults.md. Small N throughout: each run takes
//! well under a second but `tune`'s.

mod common;

use nimsquare::base::fault::VARIABLE;
use nimsquare::run::longrun::tablefile;
use std::path::{Path, PathBuf};

/// A run's exit status and output.
#[derive(Debug)]
struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs the binary in `dir` with `args` and the fault setting `fault` (None: unset).
fn run(dir: &Path, args: &[String], fault: Option<&str>) -> Ran {
    let mut cmd = common::nimsquare_process();
    cmd.current_dir(dir).args(args).env_remove(VARIABLE);
    if let Some(f) = fault {
        cmd.env(VARIABLE, f);
    }
    let out = cmd.output().unwrap();
    Ran {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The fault points a run of `args` in `dir` reaches (a fresh folder: the run writes there).
fn points(dir: &Path, args: &[String]) -> (usize, Ran) {
    let ran = run(dir, args, Some("count"));
    assert_eq!(ran.code, Some(0), "{args:?}: {ran:?}");
    let line = ran
        .stderr
        .lines()
        .find_map(|l| l.strip_prefix("fault points reached: "))
        .unwrap_or_else(|| panic!("no count: {ran:?}"));
    let n = line.split_whitespace().next().unwrap().parse().unwrap();
    (n, ran)
}

/// ENOSPC for odd n, EIO for even n.
fn fault_at(n: usize) -> String {
    format!("{n}:{}", if n % 2 == 1 { "enospc" } else { "eio" })
}

/// A fresh folder for one case (removed first if a former run left it).
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "nimsquare-write-faults-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn clear(dir: &Path) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            std::fs::remove_dir_all(&p).unwrap();
        } else {
            std::fs::remove_file(&p).unwrap();
        }
    }
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// What every faulted run must show: no panic; status 0 or 4; with 4, exactly one `error:`
/// line, naming one of `files`; a warning (status 0) names one of them too; no temporary
/// file left in `dir`. Returns whether the run failed (status 4).
fn assert_clean(label: &str, ran: &Ran, dir: &Path, files: &[&str]) -> bool {
    assert!(
        !ran.stderr.contains("panicked") && !ran.stderr.contains("RUST_BACKTRACE"),
        "{label}: a panic: {ran:?}"
    );
    let names = |line: &str| files.iter().any(|f| line.contains(f));
    let errors: Vec<&str> = ran
        .stderr
        .lines()
        .filter(|l| l.starts_with("error:"))
        .collect();
    match ran.code {
        Some(0) => assert!(errors.is_empty(), "{label}: {ran:?}"),
        Some(4) => {
            assert_eq!(errors.len(), 1, "{label}: one error line: {ran:?}");
            assert!(
                names(errors[0]),
                "{label}: the error names the file: {ran:?}"
            );
        }
        _ => panic!("{label}: status {:?}, not 0 or 4: {ran:?}", ran.code),
    }
    for w in ran.stderr.lines().filter(|l| l.starts_with("warning:")) {
        assert!(names(w), "{label}: the warning names the file: {w}");
    }
    let left: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("tmp"))
        .collect();
    assert!(left.is_empty(), "{label}: temporary files left: {left:?}");
    ran.code == Some(4)
}

/// The JSON answer `key` of a run's stdout.
fn answer(ran: &Ran, key: &str) -> serde_json::Value {
    let v: serde_json::Value =
        serde_json::from_str(&ran.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {ran:?}"));
    v[key].clone()
}

/// A table file or checkpoint at `path` is absent, or reads back whole (`read`, no damage)
/// as a prefix of `reference` (all of it when `complete`).
fn assert_table(label: &str, path: &Path, reference: &[u16], complete: bool) {
    if !path.exists() {
        return;
    }
    let file = tablefile::read(path)
        .unwrap_or_else(|e| panic!("{label}: {} is torn: {e}", path.display()));
    assert_eq!(
        file.values[..],
        reference[..file.values.len()],
        "{label}: {}",
        path.display()
    );
    if complete {
        assert_eq!(
            file.values.len(),
            reference.len(),
            "{label}: {}",
            path.display()
        );
    }
}

/// Runs `cmd` in `dir` once for each of its `reached` fault points failing, each time in an
/// emptied `dir`: checks the run is clean ([`assert_clean`]) and hands it to `check(label,
/// ran, four)` (`four`: it ended with status 4), then prints the command's totals for
/// results/reliability/faults.md.
fn every_fault(
    command: &str,
    dir: &Path,
    cmd: &[String],
    reached: usize,
    files: &[&str],
    mut check: impl FnMut(&str, &Ran, bool),
) {
    let (mut failed, mut warned) = (0, 0);
    for n in 1..=reached {
        clear(dir);
        let label = format!("{command} fault {}", fault_at(n));
        let ran = run(dir, cmd, Some(&fault_at(n)));
        let four = assert_clean(&label, &ran, dir, files);
        if four {
            failed += 1;
        } else {
            warned += 1;
        }
        check(&label, &ran, four);
    }
    eprintln!(
        "write faults: {command}: {reached} points reached, {reached} tried, {reached} passed ({failed} ended with status 4, {warned} went on with a warning or past a best-effort sync)"
    );
}

/// `solve` or `octal` in whole-table mode with a checkpoint after every chunk and the table
/// saved: `answer_key` is the JSON field compared.
fn table_command(name: &str, base: &[&str], answer_key: &str) {
    let dir = scratch(name);
    let mut cmd = args(base);
    cmd.extend(args(&[
        "--checkpoint",
        "ck.table",
        "--checkpoint-every",
        "0",
        "--save-table",
        "saved.table",
        "--quiet",
        "--json",
    ]));
    let (reached, clean) = points(&dir, &cmd);
    let expected = answer(&clean, answer_key);
    let (ck, saved) = (dir.join("ck.table"), dir.join("saved.table"));
    let reference = tablefile::read(&saved).unwrap().values;
    assert_eq!(tablefile::read(&ck).unwrap().values, reference);
    assert!(reached >= 8, "{name}: only {reached} points");
    every_fault(
        name,
        &dir,
        &cmd,
        reached,
        &["ck.table", "saved.table"],
        |label, ran, _four| {
            // The answer is printed in full either way.
            assert_eq!(answer(ran, answer_key), expected, "{label}");
            assert_table(label, &ck, &reference, false);
            assert_table(label, &saved, &reference, true);
            // Again without the fault: it resumes from the checkpoint (or starts afresh). A
            // table already saved whole is never replaced (--save-table refuses an existing
            // file, as documented), so that run checks it and goes on without the flag.
            let mut again = cmd.clone();
            if saved.exists() {
                let at = again.iter().position(|a| a == "--save-table").unwrap();
                again.drain(at..at + 2);
            }
            let rerun = run(&dir, &again, None);
            assert_eq!(rerun.code, Some(0), "{label}, run again: {rerun:?}");
            assert_eq!(answer(&rerun, answer_key), expected, "{label}, run again");
            assert_table(label, &ck, &reference, true);
            assert_table(label, &saved, &reference, true);
            assert!(saved.exists() && ck.exists(), "{label}");
        },
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn solve_survives_every_failed_write() {
    table_command("solve", &["solve", "--limit", "200000"], "answer");
}

#[test]
fn octal_whole_table_survives_every_failed_write() {
    table_command(
        "octal",
        &["octal", "0.6", "--limit", "100000"],
        "table_digest",
    );
}

#[test]
fn octal_window_mode_survives_every_failed_write() {
    let dir = scratch("window");
    let limit = 100_000usize;
    let cmd = args(&[
        "octal",
        "0.6",
        "--limit",
        "100000",
        "--window",
        "--checkpoint",
        "ck",
        "--window-file",
        "wf",
        "--checkpoint-every",
        "0",
        "--quiet",
        "--json",
    ]);
    let (reached, clean) = points(&dir, &cmd);
    let expected = answer(&clean, "table_digest");
    let values = std::fs::read(dir.join("wf")).unwrap();
    assert_eq!(values.len(), 2 * (limit + 1));
    every_fault(
        "octal --window",
        &dir,
        &cmd,
        reached,
        &["ck", "wf"],
        |label, ran, four| {
            if four && ran.stdout.is_empty() {
                // stopped before the answer (the values file could not be made): nothing kept
                assert!(!dir.join("wf").exists(), "{label}: {ran:?}");
            } else {
                assert_eq!(answer(ran, "table_digest"), expected, "{label}");
            }
            let ck = dir.join("ck");
            if ck.exists() {
                let read = nimsquare::run::window::checkpoint::read(&ck)
                    .unwrap_or_else(|e| panic!("{label}: torn checkpoint: {e}"));
                assert!(read.done <= limit + 1, "{label}");
            }
            if dir.join("wf").exists() {
                let kept = std::fs::read(dir.join("wf")).unwrap();
                assert_eq!(kept.len(), values.len(), "{label}");
                if !ck.exists() {
                    // The values file is complete but no checkpoint names it: a new run would
                    // refuse it (an existing --window-file is never replaced, as documented).
                    assert_eq!(kept, values, "{label}");
                    std::fs::remove_file(dir.join("wf")).unwrap();
                }
            }
            let rerun = run(&dir, &cmd, None);
            assert_eq!(rerun.code, Some(0), "{label}, run again: {rerun:?}");
            assert_eq!(
                answer(&rerun, "table_digest"),
                expected,
                "{label}, run again"
            );
            assert_eq!(std::fs::read(dir.join("wf")).unwrap(), values, "{label}");
        },
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The facts of a census rows file (no dates or costs), or None when it is absent.
fn census_file_facts(path: &Path) -> Option<Vec<String>> {
    std::fs::read_to_string(path)
        .ok()
        .map(|t| common::census_facts(&t))
}

#[test]
fn census_survives_every_failed_write() {
    let dir = scratch("census");
    let cmd = args(&[
        "census", "--digits", "1", "--limit", "600", "--quiet", "--out", "rows.csv",
    ]);
    let (reached, _) = points(&dir, &cmd);
    let expected = census_file_facts(&dir.join("rows.csv")).unwrap();
    every_fault(
        "census --out",
        &dir,
        &cmd,
        reached,
        &["rows.csv"],
        |label, _ran, _four| {
            let rows = dir.join("rows.csv");
            if rows.exists() {
                // whole for the reader a resume uses (a cut last line is dropped by it)
                let read = nimsquare::run::longrun::censusfile::read(&rows, "--resume")
                    .unwrap_or_else(|e| panic!("{label}: {e}"));
                assert!(read.rows.len() <= expected.len(), "{label}");
            }
            let mut again = cmd.clone();
            if rows.exists() {
                again.push("--resume".into());
            }
            let rerun = run(&dir, &again, None);
            assert_eq!(rerun.code, Some(0), "{label}, run again: {rerun:?}");
            assert_eq!(
                census_file_facts(&rows).as_ref(),
                Some(&expected),
                "{label}: the rows"
            );
        },
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn tune_survives_every_failed_write() {
    let dir = scratch("tune");
    let cmd = args(&[
        "tune",
        "--to",
        "3000",
        "--model-to",
        "1e4",
        "--repeat",
        "1",
        "--wisdom",
        "w.json",
    ]);
    let (reached, _) = points(&dir, &cmd);
    let good = |label: &str, path: &Path| {
        let source = nimsquare::run::wisdom::load(path);
        assert!(
            source.loaded.is_some() && source.note.is_none(),
            "{label}: {source:?}"
        );
    };
    good("unfaulted", &dir.join("w.json"));
    every_fault(
        "tune",
        &dir,
        &cmd,
        reached,
        &["w.json"],
        |label, _ran, four| {
            if four {
                assert!(
                    !dir.join("w.json").exists(),
                    "{label}: a file after a failure"
                );
            } else {
                good(label, &dir.join("w.json"));
                return;
            }
            let rerun = run(&dir, &cmd, None);
            assert_eq!(rerun.code, Some(0), "{label}, run again: {rerun:?}");
            good(label, &dir.join("w.json"));
        },
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The (series, N) points of a study file's complete lines.
fn study_points(path: &Path) -> Vec<(String, u64)> {
    use nimsquare::instruments::scaling::StudyRow;
    let text = std::fs::read_to_string(path).unwrap();
    let complete = &text[..text.rfind('\n').map_or(0, |i| i + 1)];
    let copy = path.with_extension("complete");
    std::fs::write(&copy, complete).unwrap();
    let rows = if complete.trim().is_empty() {
        Vec::new()
    } else {
        nimsquare::instruments::scaling::read_rows(&copy)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    std::fs::remove_file(&copy).unwrap();
    let mut keys: Vec<_> = rows.iter().map(StudyRow::key).collect();
    keys.sort();
    keys
}

#[test]
fn scale_survives_every_failed_write() {
    let dir = scratch("scale");
    let cmd = args(&[
        "scale", "--table", "stamped", "--from", "1000", "--to", "4000", "--points", "2",
        "--repeat", "1", "--out", "s.csv",
    ]);
    let (reached, _) = points(&dir, &cmd);
    let expected = study_points(&dir.join("s.csv"));
    assert!(!expected.is_empty());
    every_fault(
        "scale",
        &dir,
        &cmd,
        reached,
        &["s.csv"],
        |label, _ran, _four| {
            let csv = dir.join("s.csv");
            let mut again = cmd.clone();
            if csv.exists() {
                let kept = study_points(&csv);
                assert!(kept.iter().all(|k| expected.contains(k)), "{label}");
                again.push("--resume".into());
            }
            let rerun = run(&dir, &again, None);
            assert_eq!(rerun.code, Some(0), "{label}, run again: {rerun:?}");
            assert_eq!(study_points(&csv), expected, "{label}: the study's points");
        },
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The variable is the test build's only: a malformed value is not silently ignored.
#[test]
fn the_count_names_each_kind() {
    let dir = scratch("count");
    let (n, ran) = points(&dir, &args(&["solve", "--limit", "1000", "--quiet"]));
    assert_eq!(n, 0, "a run without files writes nothing: {ran:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
