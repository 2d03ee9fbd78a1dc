//! The bench matrix's results read back and compared (`instruments::matrix_report`,
//! `instruments::matrix_check`, the `bench-check` binary), on made-up estimates in a temp
//! folder laid out as criterion 0.5 lays out its own: no benchmark is timed here.

mod common;

use assert_cmd::Command;
use nimsquare::instruments::matrix_report::{self, Row};
use std::path::Path;

/// A fresh empty folder under the system temp dir, unique to this test.
fn scratch(name: &str) -> common::Scratch {
    let dir = common::Scratch::new(format!(
        "nimsquare-bench-check-{name}-{}",
        std::process::id()
    ));
    dir
}

/// Writes one benchmark's `benchmark.json` and `estimates.json` as criterion 0.5 does, under
/// `criterion/<group>/<function>/<n>/<which>/`, with the median `m` and its interval.
fn criterion_estimate(
    criterion: &Path,
    id: (&str, &str, u64),
    which: &str,
    (m, lo, hi): (f64, f64, f64),
) {
    let (group, function, n) = id;
    let dir = criterion
        .join(group)
        .join(function)
        .join(n.to_string())
        .join(which);
    std::fs::create_dir_all(&dir).unwrap();
    let full = format!("{group}/{function}/{n}");
    std::fs::write(
        dir.join("benchmark.json"),
        format!(
            r#"{{"group_id":"{group}","function_id":"{function}","value_str":"{n}","throughput":{{"Elements":21065}},"full_id":"{full}","directory_name":"{full}","title":"{full}"}}"#
        ),
    )
    .unwrap();
    let stat = |p: f64, lo: f64, hi: f64| {
        format!(
            r#"{{"confidence_interval":{{"confidence_level":0.95,"lower_bound":{lo},"upper_bound":{hi}}},"point_estimate":{p},"standard_error":1.0}}"#
        )
    };
    std::fs::write(
        dir.join("estimates.json"),
        format!(
            r#"{{"mean":{},"median":{},"median_abs_dev":{},"slope":null,"std_dev":{}}}"#,
            stat(m * 1.01, lo * 1.01, hi * 1.01),
            stat(m, lo, hi),
            stat(1.0, 0.5, 1.5),
            stat(2.0, 1.0, 3.0)
        ),
    )
    .unwrap();
}

fn bench_check(args: &[&str]) -> assert_cmd::assert::Assert {
    Command::new(env!("CARGO_BIN_EXE_bench-check"))
        .args(args)
        .assert()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn criterions_folders_are_read_with_their_intervals_and_ratios() {
    let dir = scratch("read");
    let c = dir.join("criterion");
    criterion_estimate(&c, ("table", "stamped", 1000), "new", (200.0, 190.0, 210.0));
    criterion_estimate(&c, ("table", "bitset", 1000), "new", (100.0, 95.0, 105.0));
    criterion_estimate(&c, ("table", "bitset", 1000), "main", (50.0, 49.0, 51.0));
    criterion_estimate(&c, ("count", "wht", 1000), "new", (10.0, 9.0, 11.0));
    let mut rows = matrix_report::read_criterion(&c, "new", None).unwrap();
    let ids: Vec<String> = rows.iter().map(Row::id).collect();
    assert_eq!(
        ids,
        ["table/bitset/1000", "table/stamped/1000", "count/wht/1000"]
    );
    assert_eq!(
        (
            rows[1].median_ns,
            rows[1].median_lo_ns,
            rows[1].median_hi_ns
        ),
        (200.0, 190.0, 210.0)
    );
    assert_eq!(rows[1].confidence_level, 0.95);
    assert_eq!(rows[1].elements, Some(21065));
    matrix_report::add_ratios(&mut rows, None);
    assert_eq!(rows[1].ratio_to.as_deref(), Some("bitset"));
    assert_eq!(rows[1].ratio, Some(2.0));
    assert_eq!(rows[1].ratio_lo, Some(190.0 / 105.0));
    assert_eq!(rows[1].ratio_hi, Some(210.0 / 95.0));
    let table = matrix_report::summary_table(&rows);
    assert!(
        table.contains("table N = 1000 (ratio to bitset)"),
        "{table}"
    );
    assert!(table.contains("ratio   2.000  [1.810, 2.211]"), "{table}");
    // A baseline is read by its folder's name; estimates older than `since` are left out.
    let main = matrix_report::read_criterion(&c, "main", None).unwrap();
    assert_eq!(main.len(), 1);
    assert_eq!(main[0].median_ns, 50.0);
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(3600);
    assert!(matrix_report::read_criterion(&c, "new", Some(later))
        .unwrap()
        .is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bench_check_passes_within_the_threshold_and_fails_beyond_it() {
    let dir = scratch("files");
    let row = |backend: &str, m: (f64, f64, f64)| Row::new("table", backend, 1000, m, 0.95, None);
    let old = vec![
        row("a", (100.0, 98.0, 102.0)),
        row("b", (100.0, 98.0, 102.0)),
    ];
    // a: 5% slower (within 1.10); b: 16% slower at the median, but the intervals overlap
    // down to 104 / 102.
    let same = vec![
        row("a", (105.0, 103.0, 107.0)),
        row("b", (116.0, 104.0, 130.0)),
    ];
    // b: 30% slower, every reading of the intervals beyond 1.10.
    let slower = vec![
        row("a", (100.0, 98.0, 102.0)),
        row("b", (130.0, 128.0, 132.0)),
    ];
    let write = |name: &str, rows: &[Row]| {
        let d = dir.join(name);
        matrix_report::write_files(&d, rows).unwrap()
    };
    let (old_csv, old_json) = write("old", &old);
    let (same_csv, _) = write("same", &same);
    let (_, slower_json) = write("slower", &slower);
    let p = |p: &Path| p.to_str().unwrap().to_string();

    let out = bench_check(&[&p(&old_csv), &p(&same_csv)]).success();
    let stdout = text(&out.get_output().stdout);
    assert!(stdout.contains("compare id=table/b/1000 "), "{stdout}");
    assert!(stdout.contains("verdict=same"), "{stdout}");
    assert!(stdout.ends_with("fail_above=1.1 result=pass\n"), "{stdout}");

    let out = bench_check(&[&p(&old_json), &p(&slower_json), "--fail-above", "1.10"]).code(1);
    let stdout = text(&out.get_output().stdout);
    assert!(
        stdout.contains("compare id=table/b/1000 old_ns=100.0 ")
            && stdout.contains("ratio=1.3000 ratio_lo=1.2549 ratio_hi=1.3469 verdict=regressed"),
        "{stdout}"
    );
    assert!(stdout.contains("regressed=1 "), "{stdout}");
    // A looser threshold lets the same 30% through.
    bench_check(&[&p(&old_json), &p(&slower_json), "--fail-above=1.5"]).success();
    // --json carries the same verdicts.
    let out = bench_check(&[&p(&old_csv), &p(&slower_json), "--json"]).code(1);
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["changes"][1]["verdict"], "regressed");
    assert_eq!(v["changes"][0]["verdict"], "same");
    assert_eq!(v["result"], "fail");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bench_check_compares_criterion_baselines_by_name() {
    let dir = scratch("baselines");
    let c = dir.join("criterion");
    criterion_estimate(&c, ("table", "stamped", 1000), "main", (100.0, 99.0, 101.0));
    criterion_estimate(&c, ("table", "stamped", 1000), "new", (125.0, 124.0, 126.0));
    criterion_estimate(&c, ("table", "stamped", 1000), "same", (102.0, 99.0, 104.0));
    let crit = c.to_str().unwrap();
    let out = bench_check(&["main", "new", "--criterion", crit]).code(1);
    assert!(text(&out.get_output().stdout).contains("verdict=regressed"));
    let out = bench_check(&["main", "same", "--criterion", crit]).success();
    assert!(text(&out.get_output().stdout).contains("verdict=same"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bench_check_refuses_bad_input_in_one_line() {
    let dir = scratch("refusals");
    let c = dir.join("criterion");
    criterion_estimate(&c, ("table", "stamped", 1000), "new", (100.0, 99.0, 101.0));
    criterion_estimate(&c, ("count", "wht", 1000), "other", (100.0, 99.0, 101.0));
    let crit = c.to_str().unwrap();
    let refused = |args: &[&str], says: &str| {
        let out = bench_check(args).code(2);
        let stderr = text(&out.get_output().stderr);
        assert!(
            stderr.starts_with("error: ") && stderr.contains(says) && stderr.lines().count() == 1,
            "{args:?}: {stderr}"
        );
    };
    refused(
        &["nope", "new", "--criterion", crit],
        "OLD 'nope' is neither a file nor a baseline",
    );
    refused(
        &["new", "new", "--fail-above", "0.9", "--criterion", crit],
        "--fail-above",
    );
    refused(&["new", "new", "--fail-above", "x"], "--fail-above");
    refused(&["new"], "give two sets");
    refused(&["new", "new", "--bogus"], "unknown flag '--bogus'");
    refused(
        &["new", "other", "--criterion", crit],
        "no benchmark in common",
    );
    // A CSV without intervals (the old matrix.csv) is refused, not read as zeros.
    let old = dir.join("old.csv");
    std::fs::write(
        &old,
        "group,backend,n,median_ns,steps_per_second\ntable,a,1,2.0,\n",
    )
    .unwrap();
    refused(
        &[old.to_str().unwrap(), "new", "--criterion", crit],
        "median_lo_ns",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
