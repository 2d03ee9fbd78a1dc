//! `--plot FILE`: the picture of the values, read back. Its rare dots are the rare positions
//! of the values `--values` prints under the mask the report gives (recomputed here from the
//! mask's definition, not by the library); the period's lines stand where the proof says;
//! a window-mode picture, drawn from the stream and resumed from a checkpoint, is the same
//! file as the whole table's; and the refusals come before any work.

mod common;

use common::{assert_refused, json_of, nimsquare};
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nimsquare-plot-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The value of `attr="..."` in each element of the SVG that starts with `tag`.
fn attribute(svg: &str, tag: &str, attr: &str) -> Vec<String> {
    svg.split(tag)
        .skip(1)
        .filter_map(|el| {
            let el = &el[..el.find('>').unwrap_or(el.len())];
            let key = format!(" {attr}=\"");
            let at = el.find(&key)? + key.len();
            Some(el[at..at + el[at..].find('"').unwrap()].to_string())
        })
        .collect()
}

#[test]
fn the_rare_dots_are_the_rare_positions_of_the_values_printed() {
    let dir = scratch("rare");
    // Officers (the second kind of mask) and .161 (the first)
    for (code, limit) in [("0.6", 4000usize), ("0.161", 20000)] {
        let svg_path = dir.join(format!("{code}.svg"));
        let report = json_of([
            "octal",
            code,
            "--limit",
            &limit.to_string(),
            "--values",
            "--json",
            "--quiet",
            "--plot",
            s(&svg_path),
        ]);
        assert_eq!(report["plot"], s(&svg_path));
        let values: Vec<u64> = report["values"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert_eq!(values.len(), limit + 1);
        let bits = report["mask"].as_u64().expect("a sparse code has a mask");
        // rare: the parity of popcount(g & mask) is even (first kind), or that of n + t
        // (second kind, Flammenkamp's)
        let by_position = report["mask_kind"] == "position";
        let t = report["t"].as_u64().unwrap();
        let rare: Vec<String> = (0..=limit)
            .filter(|&n| {
                let parity = (values[n] & bits).count_ones() as u64 % 2;
                let want = if by_position { (n as u64 + t) % 2 } else { 0 };
                parity == want
            })
            .map(|n| n.to_string())
            .collect();
        assert_eq!(
            rare.len() as u64,
            report["rare_positions"].as_u64().unwrap(),
            "{code}"
        );
        let svg = std::fs::read_to_string(&svg_path).unwrap();
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert_eq!(attribute(&svg, "<circle", "data-n"), rare, "{code}");
        let drawn_values = attribute(&svg, "<circle", "data-g");
        for (n, g) in rare.iter().zip(&drawn_values) {
            assert_eq!(g, &values[n.parse::<usize>().unwrap()].to_string());
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_period_is_drawn_where_the_proof_puts_it() {
    let dir = scratch("period");
    // Dawson's Kayles, 0.07: from the definition (take two tokens, leaving zero, one or
    // two heaps), the least e with g(n + 34) = g(n) for every e <= n < 3000 - 34
    let mut g = vec![0u16; 3001];
    for n in 2..=3000 {
        let r = n - 2;
        let mut seen = [false; 64];
        seen[if r == 0 { 0 } else { g[r] as usize }] = true;
        for a in 1..=r / 2 {
            seen[(g[a] ^ g[r - a]) as usize] = true;
        }
        g[n] = seen.iter().position(|&s| !s).unwrap() as u16;
    }
    let e_naive = (0..3000 - 34).rfind(|&n| g[n] != g[n + 34]).unwrap() as u64 + 1;
    for log in [false, true] {
        let svg_path = dir.join(format!("dk-{log}.svg"));
        let mut args = vec!["octal", "0.07", "--limit", "3000", "--json", "--quiet"];
        args.extend(["--plot", s(&svg_path)]);
        if log {
            args.push("--plot-log");
        }
        let report = json_of(&args);
        assert_eq!(report["status"], "periodic");
        let (e, p) = (
            report["preperiod"].as_u64().unwrap(),
            report["period"].as_u64().unwrap(),
        );
        assert_eq!((e, p), (e_naive, 34));
        let svg = std::fs::read_to_string(&svg_path).unwrap();
        assert_eq!(
            attribute(&svg, "<g class=\"period\"", "data-period"),
            ["34"]
        );
        let lines = [e.to_string(), (e + p).to_string()];
        assert_eq!(attribute(&svg, "<line", "data-n"), lines);
        // the two lines stand apart by the period's width on the axis, the first right of
        // the plot's left edge
        let xs: Vec<f64> = attribute(&svg, "<line", "x1")
            .iter()
            .map(|x| x.parse().unwrap())
            .collect();
        assert!(xs[0] > 60.0 && xs[1] > xs[0], "{xs:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn window_mode_draws_from_the_stream_what_the_whole_table_draws_even_resumed() {
    let dir = scratch("window");
    let full = dir.join("full.svg");
    let window = dir.join("window.svg");
    let resumed = dir.join("resumed.svg");
    let base = ["octal", "0.6", "--quiet", "--json"];
    let run = |extra: &[&str]| {
        let mut args: Vec<&str> = base.to_vec();
        args.extend(extra);
        json_of(&args)
    };
    run(&["--limit", "300000", "--plot", s(&full)]);
    run(&["--limit", "300000", "--window", "--plot", s(&window)]);
    // a first sitting to 10^5 kept in a checkpoint and its values file, then the same run
    // taken on to 3·10^5 with --plot: the picture reads g(0..10^5) back from the file
    let (file, ck) = (dir.join("values.u16"), dir.join("ck"));
    let sitting = |limit: &str, plot: Option<&Path>| {
        let mut args = vec!["--limit", limit, "--window-file", s(&file)];
        args.extend(["--checkpoint", s(&ck)]);
        if let Some(p) = plot {
            args.extend(["--plot", s(p)]);
        }
        run(&args)
    };
    sitting("100000", None);
    let report = sitting("300000", Some(&resumed));
    assert_eq!(report["window"]["resumed_at"], 100001);
    let full = std::fs::read_to_string(&full).unwrap();
    assert!(full.contains("<circle"));
    assert_eq!(std::fs::read_to_string(&window).unwrap(), full);
    assert_eq!(std::fs::read_to_string(&resumed).unwrap(), full);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn build_and_solve_draw_their_tables_too() {
    let dir = scratch("build");
    let (from_octal, from_build) = (dir.join("octal.svg"), dir.join("build.svg"));
    json_of([
        "octal",
        "0.6",
        "--limit",
        "20000",
        "--json",
        "--plot",
        s(&from_octal),
    ]);
    let built = json_of([
        "build",
        "--workload",
        "octal:0.6",
        "--limit",
        "20000",
        "--json",
        "--plot",
        s(&from_build),
    ]);
    assert_eq!(built["plot"], s(&from_build));
    assert_eq!(
        std::fs::read_to_string(&from_build).unwrap(),
        std::fs::read_to_string(&from_octal).unwrap()
    );
    let squares = dir.join("squares.svg");
    let solved = json_of([
        "solve",
        "--limit",
        "5000",
        "--json",
        "--plot",
        s(&squares),
        "--plot-log",
    ]);
    assert_eq!(solved["plot"], s(&squares));
    let svg = std::fs::read_to_string(&squares).unwrap();
    assert!(svg.contains("moves squares") && svg.contains("log scale"));
    // no split, no period: strokes only
    assert!(!svg.contains("<circle") && !svg.contains("class=\"period\""));
    assert!(svg.contains("class=\"common\""));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn plot_refusals_come_before_any_work() {
    let dir = scratch("refusals");
    let existing = dir.join("there.svg");
    std::fs::write(&existing, "keep me").unwrap();
    let e = assert_refused(&["octal", "0.6", "--limit", "1000", "--plot", s(&existing)]);
    assert!(e.contains("--plot") && e.contains("exists"), "{e}");
    assert_eq!(std::fs::read_to_string(&existing).unwrap(), "keep me");
    let e = assert_refused(&["octal", "0.6", "--plot", "-"]);
    assert!(e.contains("--plot -"), "{e}");
    let e = assert_refused(&["octal", "0.6", "--plot", s(&dir.join("no/such/dir/p.svg"))]);
    assert!(e.contains("--plot"), "{e}");
    let e = assert_refused(&["solve", "--heaps", "1", "--plot", s(&dir.join("c.svg"))]);
    assert!(e.contains("plot"), "{e}");
    // --plot-log without --plot: clap's refusal (usage lines follow its error)
    let out = nimsquare()
        .args(["octal", "0.6", "--plot-log"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    // a window checkpoint resumed without its values file cannot draw what came before
    let ck = dir.join("ck");
    json_of([
        "octal",
        "0.6",
        "--limit",
        "100000",
        "--window",
        "--quiet",
        "--json",
        "--checkpoint",
        s(&ck),
    ]);
    let e = assert_refused(&[
        "octal",
        "0.6",
        "--limit",
        "200000",
        "--window",
        "--quiet",
        "--checkpoint",
        s(&ck),
        "--plot",
        s(&dir.join("w.svg")),
    ]);
    assert!(e.contains("--plot") && e.contains("--window-file"), "{e}");
    assert!(!dir.join("w.svg").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}
