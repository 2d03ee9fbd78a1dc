//! Window mode against the whole table: the same digest, histograms, largest value and
//! rare/common split, with windows small enough that the back-ends read outside them.

use super::*;
use crate::grundy::Table;
use crate::octal::summary::Summary;
use crate::octal::OctalPlan;
use crate::run::longrun::tablefile::values_fnv1a64;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nimsquare-window-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn opts(file: PathBuf, window: Window) -> WindowRun {
    WindowRun {
        window,
        file,
        keep_file: true,
        checkpoint: None,
        every: Duration::from_secs(3600),
        quiet: true,
        label: String::new(),
        // small chunks, so that many releases happen
        chunk_target: Duration::from_millis(2),
        stop_after_positions: None,
    }
}

/// Builds `code` to `limit` in window mode and in full, and compares what they report.
fn window_equals_full(code: &str, limit: usize, window: Window) {
    let dir = scratch(&code.replace('.', "_"));
    let rules = Rules::parse(code).unwrap();
    let plan = OctalPlan::named(rules.clone(), None, limit as u64).unwrap();
    let builder = (plan.backend.make)();
    let mut chunks = Vec::new();
    let out = run(
        &rules,
        limit,
        &*builder,
        "auto",
        &opts(dir.join("g.u16"), window),
        &mut |from, values| {
            chunks.push((from, values.to_vec()));
            Ok(())
        },
    )
    .unwrap();
    let WindowOutcome::Finished { streamed, file, .. } = out else {
        panic!("{code}: not finished");
    };
    let full = plan.build().unwrap();
    let g = full.values();
    let whole = Summary::of(&rules, &Table::from_values(g.to_vec()), true);
    assert_eq!(streamed.digest, values_fnv1a64(g), "{code}");
    assert_eq!(
        (streamed.max_value, streamed.max_value_first_at),
        (whole.max_value, whole.max_value_first_at),
        "{code}"
    );
    assert_eq!(streamed.split, whole.split, "{code}");
    assert_eq!(Some(streamed.histogram), whole.histogram, "{code}");
    // the values handed out in order, and the kept file, are the table
    let handed: Vec<u16> = chunks
        .iter()
        .scan(0, |next, (from, v)| {
            assert_eq!(*from, *next);
            *next += v.len();
            Some(v.clone())
        })
        .flatten()
        .collect();
    assert_eq!(handed, g, "{code}");
    assert!(chunks.len() > 4, "{code}: {} chunks", chunks.len());
    let file = file.expect("kept");
    let bytes = std::fs::read(&file).unwrap();
    let from_file: Vec<u16> = bytes
        .chunks_exact(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .collect();
    assert_eq!(from_file, g, "{code}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn window_mode_equals_the_whole_table_with_windows_the_build_reads_past() {
    // Windows of a few pages: the rare pairs and the sweeps read released pages, which
    // come back from the file. Officers and .167 have one splitting digit (the lanes), .354
    // splits at digits of both parities, Grundy's game forbids equal splits.
    let tiny = Window {
        prefix: 4096,
        tail: 8192,
    };
    for (code, limit) in [
        ("0.6", 300_000),
        ("0.167", 200_000),
        ("0.354", 100_000),
        ("grundy", 200_000),
    ] {
        window_equals_full(code, limit, tiny);
    }
    window_equals_full("0.6", 100_000, Window::DEFAULT);
}

#[test]
fn an_existing_values_file_is_refused_and_a_stopped_run_removes_its_file() {
    let dir = scratch("refusals");
    let rules = Rules::parse("0.6").unwrap();
    let plan = OctalPlan::named(rules.clone(), None, 50_000).unwrap();
    let builder = (plan.backend.make)();
    let fill = &*builder;
    let taken = dir.join("taken.u16");
    std::fs::write(&taken, b"mine").unwrap();
    let e = run(
        &rules,
        50_000,
        fill,
        "auto",
        &opts(taken.clone(), Window::DEFAULT),
        &mut |_, _| Ok(()),
    )
    .unwrap_err();
    assert!(e.to_string().contains("taken.u16"), "{e}");
    assert_eq!(std::fs::read(&taken).unwrap(), b"mine");
    // a stopped run keeps what it finished in a file it was asked to keep, and leaves no
    // file it was not
    let file = dir.join("stopped.u16");
    let mut o = opts(file.clone(), Window::DEFAULT);
    o.stop_after_positions = Some(20_000);
    let out = run(&rules, 50_000, fill, "auto", &o, &mut |_, _| Ok(())).unwrap();
    assert!(
        matches!(
            out,
            WindowOutcome::Interrupted {
                signal: None,
                done: 20_000
            }
        ),
        "{out:?}"
    );
    let kept = std::fs::read(&file).unwrap();
    let full = crate::octal::build("octal-block", &rules, 50_000).unwrap();
    let le: Vec<u8> = full.values()[..20_000]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    assert_eq!(&kept[..40_000], &le[..]);
    let temp = dir.join("temp.u16");
    o.file = temp.clone();
    o.keep_file = false;
    let out = run(&rules, 50_000, fill, "auto", &o, &mut |_, _| {
        assert!(!temp.exists(), "unlinked before the first chunk");
        Ok(())
    })
    .unwrap();
    assert!(matches!(out, WindowOutcome::Interrupted { .. }));
    // an error of the caller's stops the run and removes a file it was to keep
    let failing = dir.join("failing.u16");
    let e = run(
        &rules,
        50_000,
        fill,
        "auto",
        &opts(failing.clone(), Window::DEFAULT),
        &mut |from, _| {
            if from > 0 {
                Err(crate::base::error::Error::Invalid("no room".into()))
            } else {
                Ok(())
            }
        },
    )
    .unwrap_err();
    assert!(e.to_string().contains("no room"));
    assert!(!failing.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Builds 0.6 to `limit` in window mode with a checkpoint, stopped at `stop` and resumed by
/// a second run (with the values file kept and reopened, or on a new file: a run carried to
/// another machine), and compares with one uninterrupted run.
fn stopped_and_resumed(reopen: bool) {
    let dir = scratch(if reopen {
        "resume-reopen"
    } else {
        "resume-new"
    });
    let rules = Rules::parse("0.6").unwrap();
    let (limit, stop) = (400_000, 300_000);
    // the middle g(2^17..~169 000) is not carried: the build reads g(m - r) for rare r
    // <= 20 627 and the sweep's small heaps, all inside the window
    let window = Window {
        prefix: 1 << 17,
        tail: 1 << 17,
    };
    let plan = OctalPlan::named(rules.clone(), None, limit as u64).unwrap();
    let builder = (plan.backend.make)();
    let mut o = opts(dir.join("g.u16"), window);
    o.keep_file = reopen;
    o.checkpoint = Some(dir.join("ck"));
    o.stop_after_positions = Some(stop);
    let out = run(&rules, limit, &*builder, "auto", &o, &mut |_, _| Ok(())).unwrap();
    assert!(
        matches!(out, WindowOutcome::Interrupted { done, .. } if done == stop),
        "{out:?}"
    );
    let ck = checkpoint::read(&dir.join("ck")).unwrap();
    assert_eq!(ck.done, stop);
    assert!(ck.tail_from > window.prefix, "a middle not carried");
    if !reopen {
        let _ = std::fs::remove_file(dir.join("g.u16"));
    }
    o.stop_after_positions = None;
    let fresh = (plan.backend.make)();
    let mut firsts = Vec::new();
    let out = run(&rules, limit, &*fresh, "auto", &o, &mut |from, _| {
        firsts.push(from);
        Ok(())
    })
    .unwrap();
    assert_eq!(firsts.first(), Some(&stop), "went on from the checkpoint");
    let WindowOutcome::Finished {
        streamed,
        resumed_at,
        ..
    } = out
    else {
        panic!("not finished");
    };
    assert_eq!(resumed_at, stop);
    let g = plan.build().unwrap();
    let whole = Summary::of(&rules, &Table::from_values(g.values().to_vec()), true);
    assert_eq!(streamed.digest, values_fnv1a64(g.values()));
    assert_eq!(streamed.split, whole.split);
    assert_eq!(Some(streamed.histogram), whole.histogram);
    assert_eq!(
        (streamed.max_value, streamed.max_value_first_at),
        (whole.max_value, whole.max_value_first_at)
    );
    // the finished run's checkpoint is whole: a larger N goes on from it
    assert_eq!(checkpoint::read(&dir.join("ck")).unwrap().done, limit + 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_stopped_run_resumed_from_its_checkpoint_equals_an_uninterrupted_one() {
    stopped_and_resumed(true);
    stopped_and_resumed(false);
}
