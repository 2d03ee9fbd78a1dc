//! `nimsquare scale`: a tiny grid end to end (CSV, fits, SVG), `--resume`, `--skip-over`, and
//! every bad argument refused with one line on stderr.

mod common;

use common::{nimsquare, refusal_stderr};
use nimsquare::base::moves::Moves;
use nimsquare::base::provenance::Provenance;
use nimsquare::instruments::scaling::{plot, read_rows, Row, CSV_HEADER};
use nimsquare::table;
use resvg::tiny_skia::{Pixmap, Transform};
use std::collections::HashSet;
use std::ops::Range;
use std::path::Path;

/// A fresh empty folder under the system temp dir, unique to this test.
fn scratch(name: &str) -> common::Scratch {
    let dir = common::Scratch::new(format!("nimsquare-test-{name}-{}", std::process::id()));
    dir
}

fn backend_names() -> Vec<&'static str> {
    nimsquare::registry::fast(table::BACKENDS)
        .map(|e| e.name)
        .collect()
}

/// The SVG at `svg` rendered by resvg on white, at the size the file declares.
fn render(svg: &Path) -> Pixmap {
    let data = std::fs::read(svg).unwrap();
    let tree = resvg::usvg::Tree::from_data(&data, &resvg::usvg::Options::default()).unwrap();
    let size = tree.size().to_int_size();
    let mut pixmap = Pixmap::new(size.width(), size.height()).unwrap();
    pixmap.fill(resvg::tiny_skia::Color::WHITE);
    resvg::render(&tree, Transform::identity(), &mut pixmap.as_mut());
    pixmap
}

/// The "ink" direction of the pixel at (x, y): white minus its RGB, normalised, which stays
/// the same when a line's edge is blended with the white ground (anti-aliasing). None for
/// pixels of little ink or little chroma (the ground, text, frame, grid, the grey guide).
fn ink(pixmap: &Pixmap, x: u32, y: u32) -> Option<[f64; 3]> {
    let p = pixmap.pixel(x, y).unwrap();
    let rgb = [p.red(), p.green(), p.blue()];
    let chroma = rgb.iter().max().unwrap() - rgb.iter().min().unwrap();
    let ink = rgb.map(|c| 255.0 - f64::from(c));
    let norm = ink.iter().map(|c| c * c).sum::<f64>().sqrt();
    (chroma >= 40 && norm >= 60.0).then(|| ink.map(|c| c / norm))
}

/// Two ink directions within 6 degrees are one colour; the colours of the plot's palette are
/// 16 degrees or more apart.
fn same_colour(a: &[f64; 3], b: &[f64; 3]) -> bool {
    a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>() > 6f64.to_radians().cos()
}

/// The series colours seen in columns `xs` and rows `ys` of `pixmap`, each (the ink of its
/// first pixel) with its count of pixels, those of at least `min` pixels.
fn colours(pixmap: &Pixmap, xs: Range<u32>, ys: Range<u32>, min: usize) -> Vec<([f64; 3], usize)> {
    let mut seen: Vec<([f64; 3], usize)> = Vec::new();
    for y in ys {
        for x in xs.clone() {
            let Some(dir) = ink(pixmap, x, y) else {
                continue;
            };
            match seen.iter_mut().find(|(d, _)| same_colour(d, &dir)) {
                Some((_, count)) => *count += 1,
                None => seen.push((dir, 1)),
            }
        }
    }
    seen.retain(|c| c.1 >= min);
    seen
}

/// Pixels of `colour` (an ink direction) in columns `xs` and rows `ys`.
fn pixels_of(pixmap: &Pixmap, colour: [f64; 3], xs: Range<u32>, ys: Range<u32>) -> usize {
    ys.flat_map(|y| xs.clone().map(move |x| (x, y)))
        .filter(|&(x, y)| ink(pixmap, x, y).is_some_and(|d| same_colour(&d, &colour)))
        .count()
}

/// The columns of the left (seconds) and the right (ns per step) panel, and the rows of
/// both, above the legend.
fn panels() -> (Range<u32>, Range<u32>, Range<u32>) {
    let w = plot::PANEL_WIDTH;
    (0..w, w..2 * w, 0..plot::TITLE_HEIGHT + plot::PANEL_HEIGHT)
}

/// The plot renders at its declared size for `names`; each panel holds series drawn in
/// colour; the picture has at least one colour per back-end; and every name is in the
/// legend (text is not rendered without fonts, so that one is read from the SVG).
fn assert_plot_has_every_backend(svg: &Path, names: &[&str]) {
    let pixmap = render(svg);
    assert_eq!(
        (pixmap.width(), pixmap.height()),
        plot::study_size(names.len())
    );
    let (left, right, rows) = panels();
    for half in [left, right] {
        let drawn = colours(&pixmap, half.clone(), rows.clone(), 20);
        assert!(!drawn.is_empty(), "nothing drawn in columns {half:?}");
    }
    let all = colours(&pixmap, 0..pixmap.width(), 0..pixmap.height(), 20);
    assert!(
        all.len() >= names.len(),
        "{} colours for {names:?}",
        all.len()
    );
    let svg_text = std::fs::read_to_string(svg).unwrap();
    for name in names {
        assert!(
            svg_text.contains(&format!(">\n{name}: ")),
            "legend lacks {name}"
        );
    }
}

/// `name` has the rows of the grid 1000, 4472, 20000, and a fit line that says it had one
/// point from 10^4 on.
fn assert_tiny_grid_of(name: &str, rows: &[Row], stdout: &str) {
    let ns: Vec<u64> = rows
        .iter()
        .filter(|r| r.backend == *name)
        .map(|r| r.n)
        .collect();
    assert_eq!(ns, vec![1000, 4472, 20000], "{name}");
    // Two points with N >= 10^4 are needed for a fit; here there is one, and the line
    // says so (it printed points=0 before).
    assert!(
        stdout.contains(&format!(
            "fit backend={name} slope=NA slope_lo=NA slope_hi=NA r2=NA points=1 "
        )),
        "{stdout}"
    );
}

/// One repeat, min <= median, the squares' S(N), ns per step from the median, provenance.
fn assert_row_is_consistent(r: &Row) {
    assert_eq!(r.repeats, 1);
    assert!(r.seconds_min <= r.seconds_median && r.seconds_median > 0.0);
    // S(N) = sum of floor(sqrt n): 661 750 at 10^4, 21 032 170 at 10^5.
    assert_eq!(
        r.option_steps,
        nimsquare::base::moves::Moves::Squares.option_steps(r.n as usize)
    );
    let ns = r.seconds_median * 1e9 / r.option_steps as f64;
    assert!((r.ns_per_step - ns).abs() <= 1e-3 * ns.max(1.0), "{r:?}");
    let p = &r.provenance;
    assert!(p.threads >= 1 && !p.git_rev.is_empty() && !p.cpu.is_empty());
}

#[test]
fn tiny_grid_writes_csv_fits_and_svg() {
    let dir = scratch("tiny");
    let (csv, svg) = (dir.join("s.csv"), dir.join("s.svg"));
    let out = nimsquare()
        .args(["scale", "--from", "1000", "--to", "20000", "--points", "3"])
        .args(["--repeat", "1", "--out"])
        .arg(&csv)
        .arg("--plot")
        .arg(&svg)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    // stderr is not a terminal here: no progress bar, nothing at all.
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();

    let text = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(text.lines().next(), Some(CSV_HEADER));
    let rows = read_rows(&csv).unwrap();
    let names = backend_names();
    // grid 1000, 4472, 20000: one row per (back-end, N).
    assert_eq!(rows.len(), 3 * names.len());
    for name in &names {
        assert_tiny_grid_of(name, &rows, &stdout);
    }
    rows.iter().for_each(assert_row_is_consistent);
    // Max value 14 for n <= 1000 and 33 for n <= 10 000 (the squares' Grundy table, computed
    // by the controls in tests/facts.rs); 20 000 lies above 33.
    assert!(rows
        .iter()
        .filter(|r| r.n == 1000)
        .all(|r| r.max_value == 14));
    assert!(rows
        .iter()
        .filter(|r| r.n == 20000)
        .all(|r| r.max_value >= 33));

    assert_plot_has_every_backend(&svg, &names);
    // The drawing is not replaced without being asked: a new study into another CSV with
    // the same --plot is refused before any work, and the picture stays as it was.
    let before = std::fs::read(&svg).unwrap();
    let out = nimsquare()
        .args([
            "scale", "--from", "1000", "--to", "2000", "--points", "2", "--out",
        ])
        .arg(dir.join("other.csv"))
        .arg("--plot")
        .arg(&svg)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--plot") && stderr.contains("--force"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&svg).unwrap(), before);
    assert!(!dir.join("other.csv").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A row of `backend` at `n` taking `seconds`, with the roofline bound `bound` ns per step
/// (NaN: none).
fn synthetic(backend: &str, n: u64, seconds: f64, bound: f64) -> Row {
    let steps = Moves::Squares.option_steps(n as usize);
    Row {
        backend: backend.into(),
        n,
        seconds_median: seconds,
        seconds_min: seconds,
        repeats: 1,
        option_steps: steps,
        ns_per_step: seconds * 1e9 / steps as f64,
        max_value: 1,
        chosen: None,
        provenance: Provenance {
            threads: 1,
            moves: "squares".into(),
            git_rev: "r".into(),
            cpu: "c".into(),
        },
        isa: "scalar".into(),
        bound_ns_per_step: bound,
        bound_resource: "store".into(),
        efficiency: f64::NAN,
        load_start: 0.0,
        load_end: 0.0,
    }
}

/// Three back-ends 1, 3 and 9 ns per step, on N = 10^3..10^6. Those of a and b named in
/// `bounded` have the same bound, 0.5 ns per step (under a); c has its own, 0.25 ns per step,
/// the lowest point of both panels, so the axes are the same whichever a and b have.
fn three_backends(svg: &Path, bounded: &[&str]) {
    let mut rows = Vec::new();
    for n in [1_000u64, 10_000, 100_000, 1_000_000] {
        let steps = Moves::Squares.option_steps(n as usize) as f64;
        for (b, ns, bound) in [("a", 1.0, 0.5), ("b", 3.0, 0.5), ("c", 9.0, 0.25)] {
            let bound = if b == "c" || bounded.contains(&b) {
                bound
            } else {
                f64::NAN
            };
            rows.push(synthetic(b, n, ns * steps * 1e-9, bound));
        }
    }
    plot::plot_svg(svg, &rows, &["a".into(), "b".into(), "c".into()]).unwrap();
}

#[test]
fn plot_draws_both_panels_and_each_bound_in_its_own_colour() {
    let dir = scratch("render");
    let [none, a_only, both] = ["none", "a", "ab"].map(|f| dir.join(format!("{f}.svg")));
    three_backends(&none, &[]);
    three_backends(&a_only, &["a"]);
    three_backends(&both, &["a", "b"]);
    let (left, right, rows) = panels();
    let [none, a_only, pixmap] = [none, a_only, both].map(|f| render(&f));
    for p in [&none, &a_only, &pixmap] {
        assert_eq!((p.width(), p.height()), plot::study_size(3));
    }
    // Each panel shows all three back-ends, each in a colour of its own, without the bounds
    // of a and b (c's bound is in c's colour).
    for half in [left.clone(), right.clone()] {
        let seen = colours(&none, half.clone(), rows.clone(), 50);
        assert!(seen.len() >= 3, "{half:?}: {seen:?}");
    }
    // a's and b's bounds coincide; each must show in its own colour. Against the picture
    // without either (same axes), a's colour gains its bound's dashes and keeps some of them
    // when b's bound is added; b's colour gains dashes over the picture with a's alone.
    // A shared bound drawn once in one colour fails the second; b's drawn over a's, the first.
    for half in [left, right] {
        let count = |p: &Pixmap, colour| pixels_of(p, colour, half.clone(), rows.clone()) as i64;
        let gains: Vec<(i64, i64, i64)> = colours(&none, half.clone(), rows.clone(), 50)
            .into_iter()
            .map(|(c, _)| {
                let (n, a, b) = (count(&none, c), count(&a_only, c), count(&pixmap, c));
                (a - n, b - a, b - n)
            })
            .collect();
        assert!(
            gains.iter().any(|&(a, _, ab)| a > 40 && ab > 40),
            "{half:?}: a's bound hidden: {gains:?}"
        );
        assert!(
            gains.iter().any(|&(_, b, _)| b > 40),
            "{half:?}: b's bound not in its colour: {gains:?}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Runs `scale --table stamped --from FROM --to TO`, then `more` and `--out csv`; asserts it
/// succeeded and returns stdout.
fn scale_stamped(from: &str, to: &str, more: &[&str], csv: &Path) -> String {
    let args = ["scale", "--table", "stamped", "--from", from, "--to", to];
    let out = run_with_out(&args, more, csv);
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn fit_is_printed_over_points_from_ten_thousand() {
    let dir = scratch("fit");
    let csv = dir.join("s.csv");
    let stdout = scale_stamped("1e4", "1e5", &["--points", "3", "--repeat", "1"], &csv);
    let line = stdout
        .lines()
        .find(|l| l.starts_with("fit backend=stamped "))
        .unwrap();
    assert!(line.contains("points=3"), "{line}");
    let field = |key: &str| -> f64 {
        line.split(&format!("{key}="))
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    // The value of the slope is timing (the fit itself is unit-tested on synthetic data in
    // src/instruments/scaling/fit.rs); here: it is a finite number and R^2 lies in [0, 1].
    assert!(field("slope").is_finite(), "{line}");
    let r2 = field("r2");
    assert!((0.0..=1.0).contains(&r2), "{line}");
    // The printed fit is the least-squares fit of the rows the CSV holds.
    let fit =
        nimsquare::instruments::scaling::fit_rows(&read_rows(&csv).unwrap(), "stamped").unwrap();
    assert!(
        (fit.slope - field("slope")).abs() < 6e-4,
        "{line} vs {fit:?}"
    );
    assert!((fit.r2 - r2).abs() < 6e-5, "{line} vs {fit:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `refused_run` (the small study again, without --resume) left the 6-row study alone; the
/// same with --force replaces it.
fn assert_replaced_only_with_force(csv: &std::path::Path, refused_run: std::process::Output) {
    // Without --resume an existing study is kept and the run refused; --force replaces it.
    let out = refused_run;
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert_eq!(read_rows(csv).unwrap().len(), 6);
    let out = two_backend_study(csv, "1000", &["--force"]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(read_rows(csv).unwrap().len(), 4);
}

/// Runs `nimsquare` with `args`, then `more`, then `--out csv`.
fn run_with_out(args: &[&str], more: &[&str], csv: &Path) -> std::process::Output {
    nimsquare()
        .args(args)
        .args(more)
        .arg("--out")
        .arg(csv)
        .output()
        .unwrap()
}

/// The study of stamped and bitset from N = 100 to `to` (2 points to 1000, 3 to 10000), one
/// repeat, into `csv`, with the flags `more`.
fn two_backend_study(csv: &Path, to: &str, more: &[&str]) -> std::process::Output {
    let points = if to == "1000" { "2" } else { "3" };
    let args = [
        "scale",
        "--table",
        "stamped,bitset",
        "--from",
        "100",
        "--to",
        to,
        "--points",
        points,
        "--repeat",
        "1",
    ];
    run_with_out(&args, more, csv)
}

#[test]
fn resume_completes_a_partial_csv_without_duplicates() {
    let dir = scratch("resume");
    let csv = dir.join("s.csv");
    let run = |to: &str, resume: bool| {
        let more: &[&str] = if resume { &["--resume"] } else { &[] };
        two_backend_study(&csv, to, more)
    };
    // A first, partial study: N = 100 and 1000.
    assert!(run("1000", false).status.success());
    let first = read_rows(&csv).unwrap();
    assert_eq!(first.len(), 4);
    // The full grid is 100, 1000, 10000: --resume measures only N = 10000.
    let out = run("10000", true);
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("resume: 4 rows"), "{stdout}");
    assert_eq!(
        stdout.lines().filter(|l| l.starts_with("row ")).count(),
        2,
        "{stdout}"
    );
    let rows = read_rows(&csv).unwrap();
    assert_eq!(rows.len(), 6);
    assert_eq!(&rows[..4], &first[..], "resumed rows were rewritten");
    let keys: HashSet<(String, u64)> = rows.iter().map(|r| (r.backend.clone(), r.n)).collect();
    assert_eq!(keys.len(), 6, "duplicated rows");
    let text = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(text.matches("backend,n,").count(), 1);
    assert_replaced_only_with_force(&csv, run("1000", false));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn skip_over_skips_points_predicted_over_budget() {
    let dir = scratch("skip");
    let csv = dir.join("s.csv");
    // Stamped takes about 1 ms at N = 10^4 and so about 30 ms at 10^5; a 5 ms budget keeps
    // N = 1000 and 10^4 (predicted 1 ms) and skips 10^5 and 10^6.
    let more = ["--points", "4", "--repeat", "1", "--skip-over", "0.005"];
    let stdout = scale_stamped("1e3", "1e6", &more, &csv);
    let rows = read_rows(&csv).unwrap();
    let ns: Vec<u64> = rows.iter().map(|r| r.n).collect();
    assert!(ns.contains(&1000) && !ns.contains(&1_000_000), "{ns:?}");
    assert!(
        stdout.contains("skip backend=stamped n=1000000"),
        "{stdout}"
    );
    let skips = stdout.lines().filter(|l| l.starts_with("skip ")).count();
    assert_eq!(skips + rows.len(), 4, "{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Runs `scale` with `args` and checks it is refused: status 2, nothing on stdout, one line
/// on stderr that starts with `error:` and contains `needle`, and no CSV written.
fn refused(args: &[&str], needle: &str) {
    let dir = scratch(&format!("bad{}", needle.len()));
    let csv = dir.join("never.csv");
    let out = nimsquare()
        .current_dir(&dir)
        .arg("scale")
        .args(args)
        .args(["--repeat", "1", "--out"])
        .arg(&csv)
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(out.stdout.is_empty(), "{args:?}");
    assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    assert!(
        stderr.starts_with("error: ") && stderr.contains(needle),
        "{args:?}: {stderr}"
    );
    assert!(!csv.exists(), "{args:?} wrote a CSV");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_arguments_are_refused_with_one_line() {
    refused(&["--from", "1e5", "--to", "1e3"], "larger than --to");
    refused(
        &["--points", "1"],
        "--points must be between 2 and 1000, got '1'",
    );
    refused(&["--points", "-2"], "--points takes a non-negative integer");
    // Was accepted before: a grid of 10^9 points was allocated before any check.
    refused(
        &["--points", "1000000000"],
        "--points must be between 2 and 1000, got '1000000000' (the supported maximum 1000",
    );
    refused(&["--to", "5e9"], "supported maximum 4294967295");
    refused(&["--from", "0", "--to", "10"], "--from must be at least 1");
    refused(&["--plot", "no/such/folder/x.svg"], "does not exist");
    refused(
        &["--table", "stamped,nosuch"],
        "unknown table back-end 'nosuch'",
    );
    refused(&["--skip-over", "0"], "--skip-over must be a positive");
    refused(&["--from", "ten"], "non-negative integer");
}

#[test]
fn repeat_zero_and_missing_out_folder_are_refused() {
    assert!(refusal_stderr(["scale", "--repeat", "0"]).contains("--repeat must be between 1 and"));
    assert!(refusal_stderr(["scale", "--repeat", "1000000"])
        .contains("--repeat must be between 1 and 1000"));
    assert!(refusal_stderr(["scale", "--out", "no/such/folder/s.csv"]).contains("does not exist"));
}

#[test]
fn threads_flag_is_recorded_in_every_row() {
    let dir = scratch("threads");
    let csv = dir.join("s.csv");
    let out = nimsquare()
        .args([
            "scale",
            "--threads",
            "1",
            "--table",
            "bitset",
            "--from",
            "100",
            "--to",
            "1000",
        ])
        .args(["--points", "2", "--repeat", "2", "--out"])
        .arg(&csv)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let rows = read_rows(&csv).unwrap();
    assert_eq!(rows.len(), 2);
    assert!(
        rows.iter()
            .all(|r| r.provenance.threads == 1 && r.repeats == 2),
        "{rows:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A small study of stamped on the squares, 2 threads, written to `csv`.
fn small_study(csv: &Path, extra: &[&str]) -> std::process::Output {
    let args = [
        "--threads",
        "2",
        "scale",
        "--table",
        "stamped",
        "--from",
        "100",
        "--to",
        "1000",
        "--points",
        "2",
        "--repeat",
        "1",
    ];
    run_with_out(&args, extra, csv)
}

#[test]
fn an_existing_study_is_not_replaced_without_force() {
    let dir = scratch("force");
    let csv = dir.join("s.csv");
    assert!(small_study(&csv, &[]).status.success());
    let before = std::fs::read_to_string(&csv).unwrap();
    let out = small_study(&csv, &[]);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--out") && stderr.contains("already exists") && stderr.contains("--force"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), before);
    assert!(small_study(&csv, &["--force"]).status.success());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn resume_refuses_a_study_measured_with_other_settings() {
    let dir = scratch("settings");
    let csv = dir.join("s.csv");
    assert!(small_study(&csv, &[]).status.success());
    let rows = read_rows(&csv).unwrap();
    assert!(rows
        .iter()
        .all(|r| r.provenance.moves == "squares" && r.provenance.threads == 2));
    let before = std::fs::read_to_string(&csv).unwrap();
    for (args, needle) in [
        (
            vec!["--threads", "1", "scale", "--resume"],
            "--threads 2, this run has --threads 1",
        ),
        (
            vec!["--threads", "2", "scale", "--resume", "--moves", "1,3,4"],
            "--moves squares, this run has --moves 1,3,4",
        ),
    ] {
        let out = nimsquare()
            .args(&args)
            .args(["--table", "stamped", "--from", "100", "--to", "1000"])
            .args(["--points", "2", "--repeat", "1", "--out"])
            .arg(&csv)
            .output()
            .unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?} measured something");
    }
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), before);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_moves_column_records_the_set_and_reads_back_with_commas() {
    let dir = scratch("moves");
    let csv = dir.join("s.csv");
    assert!(small_study(&csv, &["--moves", "4,1,3"]).status.success());
    let rows = read_rows(&csv).unwrap();
    assert_eq!(rows.len(), 2);
    assert!(
        rows.iter().all(|r| r.provenance.moves == "1,3,4"),
        "{rows:?}"
    );
    // S(N) for {1,3,4} counted independently: moves <= n, summed over n <= N.
    let steps = |n: u64| {
        (1..=n)
            .map(|k| [1, 3, 4].iter().filter(|&&s| s <= k).count() as u128)
            .sum::<u128>()
    };
    assert!(
        rows.iter().all(|r| r.option_steps == steps(r.n)),
        "{rows:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_octal_game_is_studied_through_its_own_back_ends() {
    let dir = scratch("octal-study");
    let csv = dir.join("o.csv");
    let out = nimsquare()
        .args(["scale", "--octal", "0.6", "--from", "1000", "--to", "4000"])
        .args(["--points", "2", "--repeat", "1", "--out"])
        .arg(&csv)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let rows = read_rows(&csv).unwrap();
    let officers = nimsquare::octal::Rules::parse("0.6").unwrap();
    let fast: Vec<&str> = nimsquare::registry::fast(nimsquare::octal::BACKENDS)
        .map(|e| e.name)
        .collect();
    assert_eq!(rows.len(), 2 * fast.len());
    for r in &rows {
        assert!(fast.contains(&r.backend.as_str()), "{r:?}");
        assert_eq!(r.provenance.moves, "0.6");
        // The octal game's unit: every removal and every split pair.
        assert_eq!(r.option_steps, officers.option_steps(r.n as usize));
        // The largest value is the control's, built from the definition.
        let control = nimsquare::octal::build("octal-naive", &officers, r.n).unwrap();
        assert_eq!(r.max_value, control.max_value(), "{r:?}");
        assert!(
            r.bound_ns_per_step > 0.0,
            "every octal model prices work: {r:?}"
        );
    }
    // A squares study does not resume an octal one (its `moves` column differs).
    let again = nimsquare()
        .args(["scale", "--from", "1000", "--to", "4000", "--points", "2"])
        .args(["--repeat", "1", "--resume", "--out"])
        .arg(&csv)
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(2), "{again:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn octal_studies_refuse_what_they_cannot_time() {
    refused(&["--octal", "0.9"], "--octal");
    refused(
        &["--octal", "0.6", "--table", "stamped"],
        "unknown octal back-end 'stamped'",
    );
    // (`auto` is an octal back-end of its own: the octal default, timed as any other)
    // The control past the size it affords, at the top of the grid.
    refused(
        &["--octal", "0.6", "--table", "octal-naive", "--to", "1e6"],
        "affords",
    );
    refused(&["--table", "naive-mex", "--to", "1e7"], "affords");
}
