//! Edge regimes: values up to the u16 cap (moves 1..=k, so g(n) = n mod (k + 1), up to
//! k = 65535), the default super-block schedule past 2^22, 2^24 and 2^26 positions on a table
//! whose prefix is known in closed form, and table files that are refused (a limit above the
//! maximum, a bad moves label, trailing bytes) through the binary.

mod common;

use common::{nimsquare, reseal};
use nimsquare::base::isa::{self, Isa};
use nimsquare::base::moves::Moves;
use nimsquare::grundy::Builder;
use nimsquare::run::longrun::tablefile;
use nimsquare::table::{self, BitsetParallel, Schedule, StampedParallel};

/// With every move 1..=k, position n <= k reaches every smaller position, so g(n) = n, and
/// k + 1 reaches 1..=k but not 0, so the values repeat with period k + 1: g(n) = n mod (k + 1).
fn dense(k: u64) -> (Moves, impl Fn(usize) -> u16) {
    let moves = Moves::list((1..=k).collect()).unwrap();
    (moves, move |n: usize| (n % (k as usize + 1)) as u16)
}

/// Builds `name` for (moves, limit) on `path` and compares it with `want`, naming the first
/// difference.
fn assert_builds(name: &str, path: Isa, moves: &Moves, limit: usize, want: &dyn Fn(usize) -> u16) {
    let t = isa::with(path, || table::build(name, moves, limit as u64))
        .unwrap()
        .unwrap_or_else(|e| panic!("{name} refused: {e}"));
    if let Some(n) = (0..=limit).find(|&n| t.values()[n] != want(n)) {
        panic!(
            "{name} on {path} at n = {n}: {} not {}",
            t.values()[n],
            want(n)
        );
    }
}

/// Values past 2048 (lane stride 4096, 34 mask words, 2101 value classes) on every back-end
/// and every path this CPU has.
#[test]
fn every_back_end_on_every_path_builds_values_past_2048() {
    let (moves, want) = dense(2100);
    let limit = 2300;
    assert_eq!(want(2100), 2100);
    let _guard = isa::TEST_LOCK.lock().unwrap_or_else(|p| p.into_inner());
    for path in Isa::supported_all() {
        for e in table::BACKENDS {
            assert_builds(e.name, path, &moves, limit, &want);
        }
    }
}

/// Moves 1..=65535 (the most a list may hold; one more is refused): g(n) = n up to 65535,
/// the u16 cap, then 0 at 65536, for the back-ends named.
fn assert_u16_cap(names: &[&str]) {
    let (moves, want) = dense(65535);
    let limit = 65_540;
    assert_eq!((want(65535), want(65536)), (65535, 0));
    let _guard = isa::TEST_LOCK.lock().unwrap_or_else(|p| p.into_inner());
    for name in names {
        assert_builds(name, isa::active(), &moves, limit, &want);
    }
    let err = Moves::list((1..=65536).collect()).unwrap_err().to_string();
    assert!(err.contains("65535"), "{err}");
}

/// The stamped back-ends at the u16 cap (the largest lane stride, 131072) on the widest path:
/// 4.6 s, 7.7 s and 8.5 s on 2 cores shared with other builds (2026-12-01). Release only.
#[test]
#[cfg_attr(debug_assertions, ignore = "release builds only: cargo test --release")]
fn the_stamped_back_ends_build_values_up_to_the_u16_cap() {
    assert_u16_cap(&["stamped", "stamped-lanes", "stamped-parallel"]);
}

/// The mask back-ends at the u16 cap (1024 mask words a position): `bitset` took 1281 s on
/// AVX2 on 2 shared cores (2026-12-01), `bitset-parallel` is of the same order.
#[test]
#[ignore = "about 45 minutes on 2 cores: cargo test --release --features testing --test edges -- --ignored the_mask"]
fn the_mask_back_ends_build_values_up_to_the_u16_cap() {
    assert_u16_cap(&["bitset", "bitset-parallel"]);
}

/// The control at the u16 cap: a BTreeSet of up to 65535 values per position, 2.4·10^9
/// inserts, over the minute CI affords (its time: results/quality/mutants.md, "The u16 cap").
#[test]
#[ignore = "about 2 minutes of CPU: cargo test --release --features testing --test edges -- --ignored the_control"]
fn the_control_builds_values_up_to_the_u16_cap() {
    assert_u16_cap(&["naive-mex"]);
}

/// `value-bounded` at the u16 cap: 65 536 value classes, each a pass over the unassigned
/// positions, O((m + 1)·S/64), near cubic in the number of moves here (results/quality/mutants.md,
/// "The u16 cap"). Slow, like `bitset` here, but not refused: the same bound holds for
/// every move set, and its users choose it where the largest value stays small.
#[test]
#[ignore = "about 7 minutes of CPU: cargo test --release --features testing --test edges -- --ignored value_bounded"]
fn value_bounded_builds_values_up_to_the_u16_cap() {
    assert_u16_cap(&["value-bounded"]);
}

/// The default schedule's super-blocks grow at 2^22, 2^24 and 2^26 positions. A table whose
/// first positions are filled in closed form (moves 1..=1100) is resumed a little before each
/// threshold by both parallel back-ends on their default schedules and checked past it, so
/// the default's sizes 1024, 2048 and 4096 run without building 2^26 positions.
#[test]
fn the_default_schedule_past_2_to_the_22_24_and_26() {
    let (moves, want) = dense(1100);
    let def = Schedule::default();
    let thresholds = def.grow_at;
    assert_eq!(thresholds, [1 << 22, 1 << 24, 1 << 26]);
    let top = thresholds[2] + 9000;
    let mut g: Vec<u16> = (0..top).map(&want).collect();
    let builders: [(&str, Box<dyn Builder<Moves>>); 2] = [
        ("stamped-parallel", Box::new(StampedParallel::default())),
        ("bitset-parallel", Box::new(BitsetParallel::default())),
    ];
    for (name, b) in &builders {
        for (i, &at) in thresholds.iter().enumerate() {
            // From 5000 before the threshold (inside the previous size's super-blocks) to
            // 9000 past it (several super-blocks of the new size).
            let (from, to) = (at - 5000, at + 9000);
            assert_eq!(def.super_block(from), 512 << i);
            assert_eq!(def.super_block(at), 1024 << i);
            g[from..to].fill(u16::MAX);
            b.fill(&moves, &mut g[..to], from).unwrap();
            if let Some(n) = (from..to).find(|&n| g[n] != want(n)) {
                panic!(
                    "{name} resumed at {from}: g({n}) = {} not {}",
                    g[n],
                    want(n)
                );
            }
        }
    }
}

fn scratch(name: &str) -> common::Scratch {
    let dir = common::Scratch::new(format!("nimsquare-edges-{}-{name}", std::process::id()));
    dir
}

/// Table files with a consistent checksum but a limit above the maximum, a moves label that
/// names no moves, a label that is not UTF-8 or runs past the header, or trailing bytes: each
/// is refused by `solve --load-table` and `verify --load-table` in one line naming the file
/// and the reason, with status 2 and nothing on stdout.
#[test]
fn bad_table_files_are_refused_through_the_binary() {
    let dir = scratch("files");
    let good = dir.join("good.tbl");
    let g = table::build("stamped", &Moves::Squares, 1000).unwrap();
    tablefile::write_atomic(&good, &Moves::Squares, 1000, g.values(), g.max_value()).unwrap();
    let original = std::fs::read(&good).unwrap();
    let over = nimsquare::table::MAX_LIMIT + 1;
    type Edit = fn(&mut Vec<u8>, u64);
    let cases: [(&str, Edit, String); 5] = [
        (
            "limit.tbl",
            |b, over| {
                b[16..24].copy_from_slice(&over.to_le_bytes());
                reseal(b);
            },
            format!("N = {over} is above the supported maximum"),
        ),
        (
            "label.tbl",
            |b, _| {
                b[64..71].copy_from_slice(b"squarez");
                reseal(b);
            },
            "was made for moves squarez, not squares".into(),
        ),
        (
            "utf8.tbl",
            |b, _| {
                b[64] = 0xff;
                reseal(b);
            },
            "moves label is not UTF-8".into(),
        ),
        (
            "label-length.tbl",
            |b, _| {
                b[36..40].copy_from_slice(&5000u32.to_le_bytes());
                reseal(b);
            },
            "damaged header (label length)".into(),
        ),
        (
            "trailing.tbl",
            |b, _| b.extend_from_slice(&[0, 0, 7]),
            format!(
                "damaged ({} bytes, the header promises {})",
                original.len() + 3,
                original.len()
            ),
        ),
    ];
    for (name, edit, reason) in &cases {
        let mut bytes = original.clone();
        edit(&mut bytes, over);
        let path = dir.join(name);
        std::fs::write(&path, &bytes).unwrap();
        for command in ["solve", "verify"] {
            let out = nimsquare()
                .args([command, "--load-table", path.to_str().unwrap()])
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{command} {name}: {stderr}");
            assert!(out.stdout.is_empty(), "{command} {name}");
            assert_eq!(stderr.lines().count(), 1, "{command} {name}: {stderr}");
            assert!(
                stderr.contains(reason.as_str()) && stderr.contains(*name),
                "{command} {name}: {stderr}"
            );
        }
    }
    // The untouched file loads.
    let out = nimsquare()
        .args(["solve", "--load-table", good.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
