//! `nimsquare growth`: tiny grids end to end for both quantities (CSV header and rows checked
//! against published counts), `--resume` and its refusals, `--force`, the plot, and bad
//! arguments refused with one line on stderr.
//!
//! Facts from outside this code (the Nim Square facts `tests/facts.rs` also asserts):
//! - 21 cold positions in 0..=99 (0, 2, 5, 7, ..., 95) and 2 781 up to 100 000;
//! - Eppstein ("Faster Evaluation of Subtraction Games", FUN 2018, arXiv:1804.06515) counts
//!   2 821 cold positions up to 102 517;
//! - the largest Grundy value: 5 for N <= 40, 14 for N <= 1000, 33 for N <= 10 000, and 74
//!   for N <= 100 000, first at 99 078.

mod common;

use common::nimsquare;
use nimsquare::instruments::scaling::growth::{ColdRow, MaxRow, COLD_HEADER, MAX_HEADER};
use nimsquare::instruments::scaling::read_study_rows;
use std::path::Path;
use std::process::Output;

/// A fresh empty folder under the system temp dir, unique to this test.
fn scratch(name: &str) -> common::Scratch {
    let dir = common::Scratch::new(format!("nimsquare-growth-{name}-{}", std::process::id()));
    dir
}

fn growth(args: &[&str], out: &Path) -> Output {
    nimsquare()
        .arg("growth")
        .args(args)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap()
}

fn ok(out: &Output) -> String {
    let stdout = String::from_utf8(out.stdout.clone()).unwrap();
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // stderr is not a terminal here: no spinner, nothing at all.
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

fn first_line(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string()
}

/// The words of `text` as arguments.
fn words(text: &str) -> Vec<&str> {
    text.split_whitespace().collect()
}

#[test]
fn cold_counts_match_published_counts_and_resume_adds_points() {
    let dir = scratch("cold");
    let (csv, svg) = (dir.join("c.csv"), dir.join("c.svg"));
    let out = growth(
        &words("--quantity cold --from 99 --to 1e5 --points 2"),
        &csv,
    );
    let stdout = ok(&out);
    assert!(
        stdout.contains("row quantity=cold n=99 cold=21 "),
        "{stdout}"
    );
    assert!(
        stdout.contains("row quantity=cold n=100000 cold=2781 "),
        "{stdout}"
    );
    assert_eq!(first_line(&csv), COLD_HEADER);

    // --resume on a grid ending at Eppstein's 102 517: 99 is skipped, 102 517 added.
    let out = nimsquare()
        .args(words("growth --quantity cold --from 99 --to 102517"))
        .args(["--points", "2", "--resume", "--fit-from", "99", "--out"])
        .arg(&csv)
        .arg("--plot")
        .arg(&svg)
        .output()
        .unwrap();
    let stdout = ok(&out);
    assert!(stdout.contains("resume: 2 rows already in"), "{stdout}");
    assert!(!stdout.contains("n=99 "), "99 measured again: {stdout}");
    assert!(
        stdout.contains("row quantity=cold n=102517 cold=2821 "),
        "{stdout}"
    );
    // The fit uses every row with N >= --fit-from, the resumed ones too.
    let fit = stdout.lines().find(|l| l.starts_with("fit ")).unwrap();
    assert!(fit.contains("points=3 fit_from=99"), "{fit}");

    let rows: Vec<ColdRow> = read_study_rows(&csv).unwrap();
    let counts: Vec<(u64, u64)> = rows.iter().map(|r| (r.n, r.cold)).collect();
    assert_eq!(counts, vec![(99, 21), (100_000, 2_781), (102_517, 2_821)]);
    assert!(rows
        .iter()
        .all(|r| r.build.backend == "sieve" && r.provenance.moves == "squares"));
    assert_eq!(rows[0].build.built_to, 100_000);
    assert_eq!(rows[2].build.built_to, 102_517);
    let text = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(text.matches(COLD_HEADER).count(), 1);

    let svg_text = std::fs::read_to_string(&svg).unwrap();
    assert!(
        svg_text.contains("<svg") && svg_text.contains("fit: N^"),
        "no fit line"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn max_values_match_published_records() {
    let dir = scratch("max");
    let csv = dir.join("m.csv");
    let out = growth(
        &words("--quantity max --from 1000 --to 1e5 --points 3"),
        &csv,
    );
    let stdout = ok(&out);
    assert_eq!(first_line(&csv), MAX_HEADER);
    let rows: Vec<MaxRow> = read_study_rows(&csv).unwrap();
    let maxima: Vec<(u64, u16)> = rows.iter().map(|r| (r.n, r.max_value)).collect();
    assert_eq!(maxima, vec![(1_000, 14), (10_000, 33), (100_000, 74)]);
    let last = rows.last().unwrap();
    assert_eq!((last.max_first_at, last.cold), (99_078, 2_781));
    for r in &rows {
        // The counts cover 0..=max_value and every position in 0..=n.
        let counts: Vec<u64> = r.counts.split(';').map(|c| c.parse().unwrap()).collect();
        assert_eq!(counts.len(), r.max_value as usize + 1, "{r:?}");
        assert_eq!(counts.iter().sum::<u64>(), r.n + 1, "{r:?}");
        assert_eq!(counts[0], r.cold);
        assert_eq!(counts[r.mode as usize], r.mode_count);
        assert!(counts.iter().all(|&c| c <= r.mode_count));
    }
    let fit = stdout.lines().find(|l| l.starts_with("fit ")).unwrap();
    assert!(
        fit.contains("quantity=max") && fit.contains("points=2 fit_from=10000"),
        "{fit}"
    );

    // A point added by --resume: N = 40, where the maximum is 5.
    let out = nimsquare()
        .args(["growth", "--quantity", "max", "--from", "40", "--to", "40"])
        .args(["--resume", "--out"])
        .arg(&csv)
        .output()
        .unwrap();
    assert!(ok(&out).contains("row quantity=max n=40 max_value=5 "));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_existing_study_is_replaced_only_with_force() {
    let dir = scratch("force");
    let csv = dir.join("c.csv");
    let small = [
        "--quantity",
        "cold",
        "--from",
        "10",
        "--to",
        "100",
        "--points",
        "2",
    ];
    ok(&growth(&small, &csv));
    let before = std::fs::read_to_string(&csv).unwrap();

    let out = growth(&small, &csv);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("--out") && stderr.contains("--force"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), before);

    let forced = [
        "--quantity",
        "cold",
        "--from",
        "10",
        "--to",
        "99",
        "--points",
        "2",
        "--force",
    ];
    ok(&growth(&forced, &csv));
    let rows: Vec<ColdRow> = read_study_rows(&csv).unwrap();
    assert_eq!(
        rows.iter().map(|r| (r.n, r.cold)).collect::<Vec<_>>(),
        [(10, 5), (99, 21)]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Runs `growth` with `args` and asserts the refusal: status 2, one line on stderr starting
/// with `error:` and containing `needle`, and `out` left as it was.
fn refused(args: &[&str], out: &Path, needle: &str) {
    let before = std::fs::read_to_string(out).ok();
    let run = growth(args, out);
    let stderr = String::from_utf8(run.stderr).unwrap();
    assert_eq!(run.status.code(), Some(2), "{args:?}: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    assert!(
        stderr.starts_with("error: ") && stderr.contains(needle),
        "{args:?}: {stderr}"
    );
    assert!(run.stdout.is_empty(), "{args:?}");
    assert_eq!(std::fs::read_to_string(out).ok(), before, "{args:?}");
}

#[test]
fn bad_arguments_and_other_settings_are_refused_with_one_line() {
    let dir = scratch("refusals");
    let fresh = dir.join("fresh.csv");
    for (args, needle) in [
        (&["--quantity", "mean"][..], "--quantity"),
        (&["--from", "10"][..], "--quantity"),
        (&["--quantity", "cold", "--from", "0"][..], "--from"),
        (
            &["--quantity", "cold", "--from", "500", "--to", "100"][..],
            "--from 500",
        ),
        (&["--quantity", "cold", "--points", "1"][..], "--points"),
        (&["--quantity", "max", "--to", "4294967296"][..], "--to"),
        (
            &["--quantity", "cold", "--fit-from", "-3"][..],
            "--fit-from",
        ),
        (&["--quantity", "cold", "--moves", "0,1"][..], "--moves"),
        (
            &["--quantity", "cold", "--resume", "--force"][..],
            "--resume",
        ),
    ] {
        refused(args, &fresh, needle);
    }
    refused(
        &["--quantity", "cold"],
        &dir.join("no-such-folder").join("c.csv"),
        "--out",
    );

    // A --plot that cannot be written is refused before the (minutes-long) build at 2^32 - 1.
    let folder = dir.display().to_string();
    let start = std::time::Instant::now();
    refused(
        &[
            "--quantity",
            "cold",
            "--to",
            "4294967295",
            "--plot",
            &folder,
        ],
        &fresh,
        "--plot",
    );
    assert!(
        start.elapsed().as_secs_f64() < 5.0,
        "refused only after work"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_cold_study_refuses_to_be_resumed_as_max_or_with_other_moves() {
    let dir = scratch("other-settings");
    let csv = dir.join("c.csv");
    ok(&growth(
        &["--quantity", "cold", "--from", "10", "--to", "100"],
        &csv,
    ));
    refused(
        &words("--quantity max --from 10 --to 100 --resume"),
        &csv,
        "--quantity cold, this run has --quantity max",
    );
    refused(
        &words("--quantity cold --from 10 --to 200 --moves 1,3,4 --resume"),
        &csv,
        "--moves squares, this run has --moves 1,3,4",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_quantity_that_is_zero_everywhere_is_written_but_not_plotted() {
    // With the single move 50, every position below 50 is cold: m(N) = 0 up to N = 49.
    let dir = scratch("zero");
    let (csv, svg) = (dir.join("z.csv"), dir.join("z.svg"));
    let out = nimsquare()
        .args(words("growth --quantity max --moves 50 --from 10"))
        .args(["--to", "40", "--points", "2", "--out"])
        .arg(&csv)
        .arg("--plot")
        .arg(&svg)
        .output()
        .unwrap();
    let stdout = ok(&out);
    assert!(stdout.contains("row quantity=max n=40 max_value=0 max_first_at=0 cold=41 "));
    assert!(stdout.contains("no plot") && !svg.exists(), "{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_csv_with_no_row_does_not_block_a_plain_rerun() {
    let dir = scratch("header-only");
    let csv = dir.join("cold.csv");
    // What a study killed before its first row leaves: the header line alone.
    let header = nimsquare::instruments::scaling::growth::COLD_HEADER;
    std::fs::write(&csv, format!("{header}\n")).unwrap();
    let out = growth(
        &["--quantity", "cold", "--to", "1e4", "--points", "2"],
        &csv,
    );
    ok(&out);
    assert_eq!(std::fs::read_to_string(&csv).unwrap().lines().count(), 3);
    // A file holding anything else still needs --force or --resume.
    let other = dir.join("notes.csv");
    std::fs::write(&other, "my notes\n").unwrap();
    let out = growth(
        &["--quantity", "cold", "--to", "1e4", "--points", "2"],
        &other,
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&other).unwrap(), "my notes\n");
}
