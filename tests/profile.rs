//! `nimsquare profile`: a sampled solve writes a flamegraph; a run too short to sample writes
//! nothing and says so; bad arguments are refused.

mod common;

use common::nimsquare;

fn scratch(name: &str) -> common::Scratch {
    let dir = common::Scratch::new(format!("nimsquare-test-{name}-{}", std::process::id()));
    dir
}

/// The value of `key=` in a line of `key=value` fields.
fn field<'a>(line: &'a str, key: &str) -> &'a str {
    line.split(&format!(" {key}="))
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
}

#[test]
fn a_sampled_solve_writes_a_flamegraph() {
    let dir = scratch("profile");
    let svg = dir.join("f.svg");
    // The defaults (N = 10^6, solves repeated until 1000 samples) give a readable graph; one
    // solve gave about 60 samples, mostly thread-pool start-up.
    let folded = dir.join("f.folded");
    let out = nimsquare()
        .args(["profile", "--out"])
        .arg(&svg)
        .arg("--folded")
        .arg(&folded)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let line = stdout.trim_end();
    assert!(
        line.starts_with(&format!("wrote {} samples=", svg.display())),
        "{line}"
    );
    let samples: u64 = field(line, "samples").parse().unwrap();
    let repeats: u64 = field(line, "repeats").parse().unwrap();
    let seconds: f64 = field(line, "seconds").parse().unwrap();
    // 1000 samples, unless the 30 s bound stopped the repeats first (a machine shared with
    // other jobs gives the process fewer samples per solve).
    assert!(
        samples >= 1000 || (seconds >= 30.0 && repeats > 1),
        "{line}"
    );
    // It says which of the two ended it, and the rate it really sampled at.
    let by = field(line, "stopped_by");
    assert_eq!(
        by,
        if samples >= 1000 { "samples" } else { "time" },
        "{line}"
    );
    let cpu: f64 = field(line, "cpu_seconds").parse().unwrap();
    let rate: f64 = field(line, "samples_per_cpu_second").parse().unwrap();
    // cpu_seconds is printed to 0.0005 and the rate to 0.05: the rate read back from the
    // rounded seconds may differ by what that rounding moves it.
    let slack = 0.05 + samples as f64 * 0.0005 / (cpu * (cpu - 0.0005)) + 1e-6;
    assert!(
        cpu > 0.001 && (rate - samples as f64 / cpu).abs() <= slack,
        "{line}"
    );
    assert_eq!(field(line, "limit"), "1000000", "{line}");
    // Without --table/--count, profile runs what solve runs by default, and gets its answer.
    let solve = nimsquare()
        .args(["solve", "--limit", "1e6", "--json"])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&solve.stdout).unwrap();
    assert_eq!(
        field(line, "table"),
        json["table"].as_str().unwrap(),
        "{line}"
    );
    assert_eq!(
        field(line, "count"),
        json["count"].as_str().unwrap(),
        "{line}"
    );
    assert_eq!(
        field(line, "answer"),
        json["answer"].as_str().unwrap(),
        "{line}"
    );
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("<svg"));
    // The title names what was sampled: back-ends, N, threads and vector path.
    let title = format!(
        "nimsquare: table {} + count {}, N = 1000000, moves squares, ",
        field(line, "table"),
        field(line, "count")
    );
    assert!(text.contains(&title), "no title {title:?} in the graph");
    assert!(
        text.contains(" threads, ") && text.contains(" path<"),
        "title without threads or path"
    );
    // The flamegraph names the table code it sampled.
    assert!(
        text.contains("nimsquare::table::"),
        "no table frame in the graph"
    );
    // The subtitle gives the rate the timer reached, as the summary line does, beside the
    // one asked.
    // The line and the subtitle round the same two numbers to different places, so each is
    // read back and held to the other within the subtitle's rounding.
    let head = format!("{samples} samples over ");
    let tail = " per CPU second (997 Hz asked)";
    let at = text.find(&head).expect("no sample count in the subtitle") + head.len();
    let end = at + text[at..].find(tail).expect("no rate in the subtitle");
    let (cpu_text, rate_text) = text[at..end]
        .split_once(" CPU seconds: ")
        .expect("no CPU seconds in the subtitle");
    let shown_cpu: f64 = cpu_text.parse().unwrap();
    let shown_rate: f64 = rate_text.parse().unwrap();
    assert!(
        (shown_cpu - cpu).abs() <= 0.051 && (shown_rate - rate).abs() <= 0.51 + 0.05,
        "subtitle {cpu_text} s, {rate_text} a second against the line's {cpu} s, {rate}"
    );
    // The folded stacks: one `stack count` line per stack, sorted, whose counts add up to the
    // samples the summary line reports, and a table frame among them.
    let lines: Vec<String> = std::fs::read_to_string(&folded)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    let total: u64 = lines
        .iter()
        .map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap())
        .sum();
    assert_eq!(total, samples);
    assert!(
        lines.windows(2).all(|w| w[0] <= w[1]),
        "folded lines not sorted"
    );
    assert!(lines.iter().any(|l| l.contains("nimsquare::table::")));
    // A second run refuses to write over the folded file (or the graph) without --force.
    let out = nimsquare()
        .args(["profile", "--limit", "1e4", "--samples", "0", "--out"])
        .arg(dir.join("g.svg"))
        .arg("--folded")
        .arg(&folded)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--folded") && stderr.contains("--force"),
        "{stderr}"
    );
    let before = std::fs::read(&svg).unwrap();
    let out = nimsquare()
        .args(["profile", "--limit", "1e4", "--samples", "0", "--out"])
        .arg(&svg)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        std::fs::read(&svg).unwrap(),
        before,
        "the graph was touched"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn named_back_ends_are_the_ones_profiled() {
    let dir = scratch("profile-named");
    let svg = dir.join("f.svg");
    let out = nimsquare()
        .args([
            "profile", "--limit", "1e6", "--table", "stamped", "--count", "burnside",
        ])
        .args(["--samples", "100"])
        .arg("--out")
        .arg(&svg)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(field(stdout.trim_end(), "table"), "stamped");
    assert_eq!(field(stdout.trim_end(), "count"), "burnside");
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(
        text.contains("Stamped") || text.contains("stamped"),
        "no stamped frame"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_run_too_short_to_sample_says_so_and_writes_nothing() {
    let dir = scratch("profile-short");
    let svg = dir.join("f.svg");
    // At 1 Hz the first sample comes after a second of CPU; one solve (--samples 0) at
    // N = 1000 takes microseconds.
    let out = nimsquare()
        .args([
            "profile",
            "--limit",
            "1000",
            "--frequency",
            "1",
            "--samples",
            "0",
        ])
        .arg("--out")
        .arg(&svg)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("error: no samples") && stderr.contains("no file written"),
        "{stderr}"
    );
    assert!(!svg.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_arguments_are_refused_with_one_line() {
    for (args, needle) in [
        (
            vec!["--frequency", "0"],
            "--frequency must be between 1 and 10000",
        ),
        (
            vec!["--frequency", "20000"],
            "--frequency must be between 1 and 10000",
        ),
        (vec!["--out", "no/such/folder/f.svg"], "does not exist"),
        (
            vec!["--samples", "-1"],
            "--samples takes a non-negative integer",
        ),
        (vec!["--table", "nosuch"], "unknown table back-end 'nosuch'"),
        (vec!["--count", "nosuch"], "unknown count back-end 'nosuch'"),
        (vec!["--limit", "-5"], "non-negative integer"),
    ] {
        let out = nimsquare().arg("profile").args(&args).output().unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("error: ") && stderr.contains(needle),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn an_octal_game_is_profiled_through_its_own_back_ends() {
    let dir = scratch("profile-octal");
    let svg = dir.join("f.svg");
    let out = nimsquare()
        .args([
            "profile",
            "--octal",
            "0.6",
            "--limit",
            "3000",
            "--samples",
            "50",
        ])
        .args(["--table", "octal-vector", "--out"])
        .arg(&svg)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let line = stdout.trim_end();
    assert_eq!(field(line, "table"), "octal-vector");
    assert_eq!(field(line, "count"), "none");
    assert_eq!(field(line, "limit"), "3000");
    // The answer of an octal profile is the table's largest value: the control's, built
    // from the definition.
    let officers = nimsquare::octal::Rules::parse("0.6").unwrap();
    let control = nimsquare::octal::build("octal-naive", &officers, 3000).unwrap();
    assert_eq!(field(line, "answer"), control.max_value().to_string());
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("octal game 0.6"), "the title names the game");
    // Refused before any work: a table back-end for an octal game, a bad code, --count.
    for (args, needle) in [
        (
            vec!["--table", "stamped"],
            "unknown octal back-end 'stamped'",
        ),
        (vec!["--table", "octal-naive", "--limit", "1e6"], "affords"),
    ] {
        let out = nimsquare()
            .args(["profile", "--octal", "0.6"])
            .args(&args)
            .arg("--out")
            .arg(dir.join("never.svg"))
            .output()
            .unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
    let out = nimsquare()
        .args(["profile", "--octal", "0.9"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--octal"));
    assert!(!dir.join("never.svg").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}
