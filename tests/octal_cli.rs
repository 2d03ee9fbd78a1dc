//! `nimsquare octal` and `nimsquare census`, and the census against a published table.

mod common;

use common::{assert_refused, nimsquare, stdout_of};
use nimsquare::census;
use nimsquare::octal::method::period::{self, Verdict};
use nimsquare::octal::{self, Rules};

/// (preperiod, period) proved from the control's table of `code` up to `limit`.
fn control_period(code: &str, limit: u64) -> Option<(usize, usize)> {
    let rules = Rules::parse(code).unwrap();
    let table = octal::build("octal-naive", &rules, limit).unwrap();
    match period::find(&rules, table.values()) {
        Verdict::Periodic(p) => Some((p.preperiod, p.period)),
        _ => None,
    }
}

#[test]
fn octal_reports_the_rare_split_the_largest_value_and_the_rate() {
    // Officers: the published rare list has 1 584 rare positions counting 0 under the mask
    // 0x1ee, the last at 20 627 with value 277; none is added past it.
    let out = stdout_of(["octal", "0.6", "--limit", "30000", "--json", "--values"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["mask"], 0x1ee);
    assert_eq!(v["rare_positions"], 1584);
    assert_eq!(
        (v["last_rare"].as_u64(), v["last_rare_value"].as_u64()),
        (Some(20_627), Some(277))
    );
    // The largest value's first position, read from the values themselves.
    let values: Vec<u64> = v["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    let max = *values.iter().max().unwrap();
    assert_eq!(v["max_value"].as_u64(), Some(max));
    assert_eq!(
        v["max_value_first_at"].as_u64(),
        values.iter().position(|&x| x == max).map(|i| i as u64)
    );
    assert!(v["values_per_second"].as_f64().unwrap() > 0.0);
    assert!(v["threads"].as_u64().unwrap() >= 1);
    // The text says the same; a game without a sparse split says so.
    let text = stdout_of(["octal", "0.6", "--limit", "30000"]);
    assert!(
        text.contains("rare/common split: mask 0x1ee, 1584 rare positions counting 0, the last at n = 20627 (value 277)"),
        "{text}"
    );
    assert!(
        text.contains(&format!("largest value: {max}, first at n = ")),
        "{text}"
    );
    let text = stdout_of(["octal", "0.137", "--limit", "3000"]);
    assert!(text.contains("rare/common split: none"), "{text}");
}

#[test]
fn octal_reports_a_split_by_the_positions_parity() {
    // .127 (7 at t = 3): the second kind, mask 1, rare when g(n) & 1 = (n - 3) & 1, counted
    // here from the values by that definition (position 0 is not rare: n - 3 is odd).
    let out = stdout_of(["octal", "0.127", "--limit", "20000", "--json", "--values"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (v["mask"].as_u64(), v["mask_kind"].as_str()),
        (Some(1), Some("position"))
    );
    let values: Vec<u64> = v["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    let rare: Vec<usize> = (0..values.len())
        .filter(|&n| values[n] & 1 == ((n + 1) % 2) as u64)
        .collect();
    assert_eq!(v["rare_positions"].as_u64(), Some(rare.len() as u64));
    assert_eq!(v["last_rare"].as_u64(), rare.last().map(|&n| n as u64));
    let officers = stdout_of(["octal", "0.6", "--limit", "5000", "--json"]);
    let o: serde_json::Value = serde_json::from_str(&officers).unwrap();
    assert_eq!(o["mask_kind"].as_str(), Some("value"));
    let text = stdout_of(["octal", "0.127", "--limit", "20000"]);
    assert!(
        text.contains("rare/common split: mask 0x1 with the position's parity, "),
        "{text}"
    );
}

#[test]
fn octal_json_is_one_object_a_script_can_read() {
    let out = stdout_of(["octal", "0.77", "--limit", "1000", "--json", "--values"]);
    assert_eq!(out.lines().count(), 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["code"], "0.77");
    assert_eq!(v["limit"], 1000);
    assert_eq!(v["backend"], octal::default_backend().name);
    assert_eq!(v["status"], "periodic");
    // Kayles (Winning Ways): period 12 from n = 71; t = 2.
    assert_eq!(
        (v["period"].as_u64(), v["preperiod"].as_u64()),
        (Some(12), Some(71))
    );
    assert_eq!(
        (v["proof_from"].as_u64(), v["proof_to"].as_u64()),
        (Some(71), Some(156))
    );
    assert_eq!(v["values"].as_array().unwrap().len(), 1001);
    // Kayles starts 0, 1, 2, 3, 1, 4, 3, 2 (Winning Ways).
    let start: Vec<u64> = v["values"].as_array().unwrap()[..8]
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    assert_eq!(start, [0, 1, 2, 3, 1, 4, 3, 2]);
    let text = stdout_of(["octal", "0.77", "--limit", "100"]);
    assert!(text.contains("no period proved up to N = 100"), "{text}");
    let text = stdout_of(["octal", "grundy", "--limit", "100"]);
    assert!(text.contains("not applicable"), "{text}");
}

#[test]
fn bad_octal_input_is_refused_before_any_work() {
    let e = assert_refused(&["octal", "0.08"]);
    assert!(e.contains("'8'"), "{e}");
    let e = assert_refused(&["octal", "1.07"]);
    assert!(e.contains("only 0 or 4"), "{e}");
    let e = assert_refused(&["octal", "0.07", "--backend", "no-such"]);
    assert!(e.contains("--backend") && e.contains("octal-naive"), "{e}");
    let top = nimsquare::octal::naive::AFFORDABLE;
    let too_many = (top + 1).to_string();
    let e = assert_refused(&[
        "octal",
        "0.07",
        "--backend",
        "octal-naive",
        "--limit",
        &too_many,
    ]);
    assert!(e.contains("--limit") && e.contains(&top.to_string()), "{e}");
    let e = assert_refused(&["census", "--digits", "6"]);
    assert!(e.contains("--digits"), "{e}");
    let e = assert_refused(&["census", "--csv", "--json"]);
    assert!(e.contains("--json") || e.contains("--csv"), "{e}");
    let e = assert_refused(&["census", "--backend", "no-such"]);
    assert!(e.contains("--backend"), "{e}");
}

#[test]
fn octal_sequence_and_census_refuse_a_control_past_its_reach_at_once_naming_the_limit() {
    // Issue 41 item 2: one plan per command, refused before any work in one line naming
    // --limit (a build of the control at 10^6 would take minutes).
    let started = std::time::Instant::now();
    for args in [
        &["octal", "0.6", "--backend", "octal-naive", "--limit", "1e6"][..],
        &[
            "sequence",
            "values",
            "--octal",
            "0.6",
            "--backend",
            "octal-naive",
            "--limit",
            "1e6",
        ],
        &[
            "census",
            "--digits",
            "1",
            "--backend",
            "octal-naive",
            "--limit",
            "1e6",
        ],
    ] {
        let e = assert_refused(args);
        assert!(
            e.contains("'octal-naive'") && e.contains("--limit 1000000") && e.contains("20000"),
            "{args:?}: {e}"
        );
    }
    assert!(started.elapsed().as_secs_f64() < 5.0);
}

/// The census CSV rows as (code, status, preperiod, period).
fn csv_rows(text: &str) -> Vec<(String, String, String, String)> {
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("code,limit,status,preperiod,period,max_value,rare,backend,build,cpu,date,seconds,positions_per_second")
    );
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[0].into(), f[2].into(), f[3].into(), f[4].into())
        })
        .collect()
}

#[test]
fn census_rows_match_the_controls_direct_check() {
    let out = nimsquare()
        .args(["census", "--digits", "2", "--limit", "1000", "--csv"])
        .args(["--backend", "octal-naive"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let rows = csv_rows(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(rows.len(), 2 * (7 + 56));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("126/126 codes"), "{stderr}");
    for code in ["0.07", "0.77", "0.4", "0.15", "0.6", "4.07"] {
        let row = rows.iter().find(|r| r.0 == code).unwrap();
        match control_period(code, 1000) {
            Some((e, p)) => assert_eq!(
                (row.1.as_str(), row.2.clone(), row.3.clone()),
                ("periodic", e.to_string(), p.to_string()),
                "{code}"
            ),
            None => assert_eq!(row.1, "open", "{code}"),
        }
    }
    // Dawson's Kayles, independently of the code under test: period 34 from 53.
    assert!(rows.contains(&("0.07".into(), "periodic".into(), "53".into(), "34".into())));
    let quiet = nimsquare()
        .args(["census", "--digits", "1", "--limit", "100", "--quiet"])
        .output()
        .unwrap();
    assert!(quiet.stderr.is_empty());
}

#[test]
fn census_out_is_not_replaced_without_force() {
    let dir = common::Scratch::new(format!("nimsquare-census-{}", std::process::id()));
    let file = dir.join("census.json");
    let path = file.to_str().unwrap();
    let args = [
        "census", "--digits", "1", "--limit", "200", "--json", "--quiet", "--out", path,
    ];
    nimsquare().args(args).assert().success();
    // JSON Lines: the census line, then one object a row.
    let text = std::fs::read_to_string(&file).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1 + 14);
    assert_eq!(lines[0]["census"]["digits"], 1);
    let v = &lines[1];
    assert!(v["cpu"].is_string() && v["build"].is_string() && v["date"].is_string());
    let e = assert_refused(&args);
    assert!(e.contains("--out") && e.contains("--force"), "{e}");
    nimsquare().args(args).arg("--force").assert().success();
    assert!(!dir.join("census.json.tmp").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The rows of tests/data/octal_periods_tczajka.csv: (code, preperiod, period).
fn published() -> Vec<(String, usize, usize)> {
    include_str!("data/octal_periods_tczajka.csv")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("code,"))
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                f[0].to_string(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
            )
        })
        .collect()
}

#[test]
fn the_census_agrees_with_a_published_table() {
    // N = 1000 proves every row: the largest need is .116's 2*139 + 2*96 + 3 - 1 = 472.
    let limit = 1000;
    let entry = octal::find("octal-naive").unwrap();
    let two = census::census(entry, 2, limit, &|_, _| {}).unwrap();
    let table = published();
    assert_eq!(table.len(), 65);
    let mut differences = Vec::new();
    for (code, e, p) in &table {
        let row = match two.iter().find(|r| &r.code == code) {
            Some(row) => row.clone(),
            None => census::row(entry, &Rules::parse(code).unwrap(), limit).unwrap(),
        };
        let got = match row.verdict {
            Verdict::Periodic(q) => Some((q.preperiod, q.period)),
            _ => None,
        };
        if got != Some((*e, *p)) {
            differences.push(format!("{code}: published ({e}, {p}), census {got:?}"));
        }
    }
    assert!(differences.is_empty(), "{differences:#?}");
}

#[test]
fn verify_checks_a_finite_move_set_through_its_octal_code() {
    let out = stdout_of(["verify", "--moves", "1,4,9", "--limit", "5000"]);
    // digit 3 at moves 1, 4 and 9
    let line = out
        .lines()
        .find(|l| l.contains("the octal code 0.300300003"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(line.starts_with("ok"), "{line}");
    let out = stdout_of(["verify", "--moves", "squares", "--limit", "100"]);
    assert!(!out.contains("octal code"), "{out}");
}

#[test]
fn list_shows_every_octal_back_end_with_its_role() {
    let text = stdout_of(["list"]);
    for e in octal::BACKENDS {
        let line = format!("  {} ", e.name);
        assert!(
            text.lines().any(|l| l.starts_with(&line)),
            "{}: {text}",
            e.name
        );
    }
    let v: serde_json::Value = serde_json::from_str(&stdout_of(["list", "--json"])).unwrap();
    let names: Vec<&str> = v["octal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), octal::BACKENDS.len());
    assert!(names.contains(&"octal-sparse"));
}

/// A row of tests/data/oeis_octal_periods.csv with a stated period: (A-number, code as
/// written, preperiod e, period p). The OEIS entries have a(n) = g(n) (offset 1 leaves out
/// the empty heap; the offset-0 entries start at it): their "last exception at n = x" gives
/// e = x + 1, "the only exceptions are n = ..., y" gives e = y + 1, "for n >= 1 periodic" and
/// "after the initial 0" give e = 1, and "for n > 1" gives e = 2.
fn oeis_periods() -> Vec<(String, String, usize, usize)> {
    let mut rows = Vec::new();
    let mut file = csv::ReaderBuilder::new()
        .comment(Some(b'#'))
        .from_reader(&include_bytes!("data/oeis_octal_periods.csv")[..]);
    for record in file.records() {
        let r = record.unwrap();
        let (anumber, code, period) = (&r[0], &r[1], &r[3]);
        if period.is_empty() {
            continue;
        }
        let (last, only, note) = (&r[4], &r[5], &r[6]);
        let e = if !last.is_empty() {
            last.parse::<usize>().unwrap() + 1
        } else if !only.is_empty() {
            only.split(' ')
                .map(|x| x.parse::<usize>().unwrap())
                .max()
                .unwrap()
                + 1
        } else if note.contains("For n>1") {
            2
        } else if note.contains("For n>=1") || note.contains("After the initial 0") {
            1
        } else {
            panic!("{anumber}: a period without its start");
        };
        rows.push((anumber.into(), code.into(), e, period.parse().unwrap()));
    }
    rows
}

#[test]
fn the_census_agrees_with_the_oeis_periods_it_can_reach() {
    // Every OEIS octal-game row with a period, for the codes of the census (up to 3 digits
    // after the point) whose proof needs N <= 8000: the theorem needs g up to
    // 2e + 2p + t - 1. The rows beyond (.16, .56, .127, .376, ...) are in results/octal/octal.md.
    let entry = octal::find("octal-sparse").unwrap();
    let mut checked = 0;
    let mut differences = Vec::new();
    for (anumber, code, e, p) in oeis_periods() {
        let rules = Rules::parse(&code).unwrap();
        let digits = code.split('.').nth(1).unwrap().len();
        let need = 2 * e + 2 * p + digits;
        if digits > 3 || need > 8000 {
            continue;
        }
        checked += 1;
        let row = census::row(entry, &rules, need).unwrap();
        match row.verdict {
            Verdict::Periodic(q) if (q.preperiod, q.period) == (e, p) => {}
            other => differences.push(format!(
                "{anumber} {code}: OEIS ({e}, {p}), census {other:?}"
            )),
        }
    }
    assert_eq!(checked, 30);
    assert!(differences.is_empty(), "{differences:#?}");
}

#[test]
fn octal_histogram_counts_the_values_below_each_power_of_two() {
    // Officers g(0..=19), OEIS A046695: 0 0 1 2 0 1 2 3 1 2 3 4 0 3 4 2 1 3 2 1.
    let out = stdout_of(["octal", "0.6", "--limit", "19", "--histogram"]);
    let rows: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("histogram "))
        .collect();
    assert_eq!(
        rows,
        [
            "histogram 1: 1 0 0 0 0",
            "histogram 2: 2 0 0 0 0",
            "histogram 4: 2 1 1 0 0",
            "histogram 8: 3 2 2 1 0",
            "histogram 16: 4 3 4 3 2",
            "histogram 20: 4 5 5 4 2",
        ]
    );
    // In JSON, every row's counts add up to its length and agree with the values printed.
    let out = stdout_of([
        "octal",
        "0.6",
        "--limit",
        "5000",
        "--histogram",
        "--values",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let values: Vec<u64> = v["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    let rows = v["histogram"].as_array().unwrap();
    let below: Vec<u64> = rows.iter().map(|r| r["below"].as_u64().unwrap()).collect();
    assert_eq!(
        below,
        [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 5001]
    );
    for row in rows {
        let l = row["below"].as_u64().unwrap() as usize;
        let counts = row["counts"].as_array().unwrap();
        assert_eq!(counts.len() as u64, v["max_value"].as_u64().unwrap() + 1);
        for (value, c) in counts.iter().enumerate() {
            let direct = values[..l].iter().filter(|&&x| x == value as u64).count();
            assert_eq!(c.as_u64(), Some(direct as u64), "below {l}, value {value}");
        }
    }
}

#[test]
fn census_rows_carry_the_rare_count_and_what_the_code_cost() {
    // Officers to 30 000: the published rare list's 1 584 rare positions (counting 0), as
    // `octal` reports them above; the cost columns are a time and N + 1 over it.
    let out = stdout_of([
        "census", "--codes", "0.6", "--limit", "30000", "--csv", "--quiet",
    ]);
    let mut lines = out.lines();
    let columns: Vec<&str> = lines.next().unwrap().split(',').collect();
    let row: Vec<&str> = lines.next().unwrap().split(',').collect();
    let field = |name: &str| row[columns.iter().position(|c| *c == name).unwrap()];
    assert_eq!((field("code"), field("rare")), ("0.6", "1584"));
    let seconds: f64 = field("seconds").parse().unwrap();
    let rate: f64 = field("positions_per_second").parse().unwrap();
    assert!(seconds > 0.0, "{seconds}");
    assert!(
        (rate * seconds / 30_001.0 - 1.0).abs() < 0.01,
        "{rate} {seconds}"
    );
}

#[test]
fn octal_says_what_auto_chose_and_why_and_a_named_back_end_overrides_it() {
    // .354: splitting digits of both parities (2 and 3), a sparse space with 132 rare
    // positions in the first 4096 values (mask 0x3f)
    let out = stdout_of(["octal", ".354", "--limit", "5000", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["backend"], "auto");
    let auto = &v["auto"];
    assert_eq!(auto["chose"], octal::auto::SPLITS_BOTH_PARITIES);
    assert_eq!(auto["kind"], "splitting digits of both parities");
    assert_eq!(
        (auto["prefix"].as_u64(), auto["sparse_mask"].as_u64()),
        (Some(4096), Some(0x3f))
    );
    assert_eq!(auto["rare_in_prefix"].as_u64(), Some(132));
    let text = stdout_of(["octal", ".354", "--limit", "5000"]);
    assert!(
        text.contains(&format!(
            "auto chose {}: splitting digits of both parities; sparse space in g(0..4096): mask 0x3f, 132 rare",
            octal::auto::SPLITS_BOTH_PARITIES
        )),
        "{text}"
    );
    // --backend by name: that back-end, and no choice reported
    let named = stdout_of([
        "octal",
        ".354",
        "--limit",
        "5000",
        "--json",
        "--backend",
        "octal-sparse",
    ]);
    let n: serde_json::Value = serde_json::from_str(&named).unwrap();
    assert_eq!(n["backend"], "octal-sparse");
    assert!(n["auto"].is_null());
    assert_eq!(n["table_digest"], v["table_digest"]);
    let text = stdout_of([
        "octal",
        ".354",
        "--limit",
        "5000",
        "--backend",
        "octal-sparse",
    ]);
    assert!(!text.contains("auto chose"), "{text}");
}
