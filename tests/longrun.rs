//! Long runs at the library level: the table file format and its refusals, and the driver:
//! a run stopped at any position and resumed from its checkpoint gives the same table as an
//! uninterrupted run, and a table for a smaller N seeds a larger one.

mod common;

use common::{fnv, reseal};
use nimsquare::base::error::{Error, Result};
use nimsquare::base::moves::Moves;
use nimsquare::grundy::Builder;
use nimsquare::run::longrun::{self, tablefile, LongRun, Outcome, Start, TableFile};
use nimsquare::table::Stamped;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A fresh, empty folder for one test.
fn scratch(name: &str) -> common::Scratch {
    let dir = common::Scratch::new(format!("nimsquare-longrun-{}-{name}", std::process::id()));
    dir
}

/// The mex straight from the definition: g(n) = the least value not among g(n - s), s <= n.
fn reference(moves: &Moves, limit: usize) -> Vec<u16> {
    let mut g = vec![0u16; limit + 1];
    for n in 1..=limit {
        let options: Vec<u16> = moves.up_to(n).iter().map(|&s| g[n - s]).collect();
        g[n] = (0u16..).find(|v| !options.contains(v)).unwrap();
    }
    g
}

fn max_of(v: &[u16]) -> u16 {
    v.iter().copied().max().unwrap_or(0)
}

fn quiet() -> LongRun {
    LongRun {
        quiet: true,
        ..LongRun::default()
    }
}

/// Writes the complete squares table for N = `limit` to `dir/name`; returns the path and g.
fn write_squares(dir: &Path, name: &str, limit: usize) -> (PathBuf, Vec<u16>) {
    let moves = Moves::Squares;
    let g = reference(&moves, limit);
    let path = dir.join(name);
    tablefile::write_atomic(&path, &moves, limit as u64, &g, max_of(&g)).unwrap();
    (path, g)
}

fn finished(outcome: Outcome) -> Vec<u16> {
    match outcome {
        Outcome::Finished(g) => g,
        other => panic!("expected a finished run, got {other:?}"),
    }
}

#[test]
fn round_trip() {
    let dir = scratch("round-trip");
    for (moves, limit, done) in [
        (Moves::Squares, 1000usize, 1001usize),
        (Moves::Squares, 1000, 0),
        (Moves::Squares, 1000, 1),
        (Moves::parse("1,3,4").unwrap(), 5000, 2345),
    ] {
        let g = reference(&moves, limit);
        let path = dir.join(format!("{}-{done}.tbl", moves.label()));
        tablefile::write_atomic(&path, &moves, limit as u64, &g[..done], max_of(&g[..done]))
            .unwrap();
        // Nothing is left beside it: the temporary file was renamed onto it.
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert!(names.is_empty(), "{names:?}");
        let f = tablefile::read(&path).unwrap();
        assert_eq!(f.limit, limit as u64);
        assert_eq!(f.done, done as u64);
        assert_eq!(f.max, max_of(&g[..done]));
        assert_eq!(f.moves_label, moves.label());
        assert_eq!(f.values, &g[..done]);
        assert_eq!(f.is_complete(), done == limit + 1);
        assert_eq!(f.provides(10), done.min(11));
        f.check_matches(&moves, &path).unwrap();
        let h = tablefile::read_header(&path).unwrap();
        assert_eq!(h.header_bytes, tablefile::HEADER_BYTES);
        assert_eq!(h.provides(100_000), done);
    }
}

#[test]
fn values_are_plain_little_endian_u16_at_offset_4096() {
    let dir = scratch("raw");
    let (path, g) = write_squares(&dir, "t.tbl", 2000);
    // Read back without the library's reader, as another tool would.
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(&bytes[0..8], b"NIMSQTBL");
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 2);
    assert_eq!(u32::from_le_bytes(bytes[12..16].try_into().unwrap()), 4096);
    assert_eq!(u64::from_le_bytes(bytes[16..24].try_into().unwrap()), 2000);
    assert_eq!(u64::from_le_bytes(bytes[24..32].try_into().unwrap()), 2001);
    assert_eq!(
        u16::from_le_bytes(bytes[32..34].try_into().unwrap()),
        max_of(&g)
    );
    assert_eq!(u32::from_le_bytes(bytes[36..40].try_into().unwrap()), 7);
    assert_eq!(&bytes[64..71], b"squares");
    // One block of 2^20 values holds all 2001; its checksum follows the label at S = 72.
    assert_eq!(
        u32::from_le_bytes(bytes[40..44].try_into().unwrap()),
        1 << 20
    );
    assert_eq!(
        u64::from_le_bytes(bytes[72..80].try_into().unwrap()),
        fnv(&bytes[4096..])
    );
    let values: Vec<u16> = bytes[4096..]
        .chunks_exact(2)
        .map(|p| u16::from_le_bytes([p[0], p[1]]))
        .collect();
    assert_eq!(values, g);
    assert_eq!(bytes.len(), 4096 + 2 * 2001);
}

fn refusal(path: &Path) -> String {
    let err = tablefile::read(path).unwrap_err();
    assert!(matches!(err, Error::Invalid(_)), "{err:?}");
    let msg = err.to_string();
    assert_eq!(msg.lines().count(), 1, "{msg}");
    assert!(msg.contains(&path.display().to_string()), "{msg}");
    msg
}

/// Copies of one good table file, each with one deliberate edit, in one folder.
struct Variants {
    dir: PathBuf,
    original: Vec<u8>,
}

impl Variants {
    /// Writes the original bytes with `edit` applied to `dir/name`.
    fn variant(&self, name: &str, edit: &dyn Fn(&mut Vec<u8>)) -> PathBuf {
        let mut bytes = self.original.clone();
        edit(&mut bytes);
        let path = self.dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }
}

#[test]
fn every_refusal_is_one_line_naming_the_file() {
    let dir = scratch("refusals");
    let (good, _) = write_squares(&dir, "good.tbl", 1000);
    let original = std::fs::read(&good).unwrap();
    assert_eq!(
        fnv(&original[4096..]),
        u64::from_le_bytes(original[72..80].try_into().unwrap())
    );
    let files = Variants {
        dir: dir.to_path_buf(),
        original,
    };
    refuses_foreign_newer_and_cut_files(&files);
    refuses_damaged_and_inconsistent_files(&files);
    refuses_other_moves_and_missing_files(&dir, &good);
}

/// Not a table file, a newer format, a file cut short.
fn refuses_foreign_newer_and_cut_files(files: &Variants) {
    let p = files.variant("magic.tbl", &|b| b[0] = b'X');
    assert!(refusal(&p).contains("not a nimsquare table file"));
    std::fs::write(files.dir.join("empty.tbl"), b"").unwrap();
    assert!(refusal(&files.dir.join("empty.tbl")).contains("not a nimsquare table file"));

    let p = files.variant("newer.tbl", &|b| {
        b[8..12].copy_from_slice(&3u32.to_le_bytes())
    });
    assert!(
        refusal(&p).contains("written by a newer nimsquare: format version 3, this build reads 2")
    );
    // Version 1 (one checksum over all values) is refused, not misread as blocks.
    let p = files.variant("older.tbl", &|b| {
        b[8..12].copy_from_slice(&1u32.to_le_bytes())
    });
    assert!(refusal(&p).contains("format version 1"));

    // The squares table for N = 1000 is 4096 + 2 · 1001 = 6098 bytes.
    let p = files.variant("truncated.tbl", &|b| b.truncate(b.len() - 1));
    assert!(refusal(&p).contains("truncated (6097 bytes, the header promises 6098: 1001 values)"));
    let p = files.variant("longer.tbl", &|b| b.extend_from_slice(&[0, 0, 7]));
    let longer = "damaged (6101 bytes, the header promises 6098)";
    assert!(refusal(&p).contains(longer));
    let err = tablefile::read_checkpoint(&p).unwrap_err().to_string();
    assert!(err.contains(longer), "{err}");
    let p = files.variant("truncated-header.tbl", &|b| b.truncate(100));
    assert!(refusal(&p).contains("truncated"));
    // The magic alone, or with part of the version: a table file cut short, not another
    // kind of file and not a damaged version.
    for len in [8, 12, 15] {
        let p = files.variant(&format!("cut-{len}.tbl"), &|b| b.truncate(len));
        let msg = refusal(&p);
        assert!(
            msg.contains("truncated (the header is incomplete)"),
            "{len}: {msg}"
        );
    }
}

/// A flipped byte in the values or the header, and headers whose checksum is right but whose
/// claims are wrong.
fn refuses_damaged_and_inconsistent_files(files: &Variants) {
    let p = files.variant("values.tbl", &|b| b[4096 + 2 * 500] ^= 1);
    assert!(refusal(&p).contains("damaged values: block 0 of 1 (g(0..1001))"));
    // A damaged block checksum marks its block bad, like damaged values.
    let p = files.variant("block-sum.tbl", &|b| b[75] ^= 1);
    assert!(refusal(&p).contains("damaged values: block 0 of 1"));

    let p = files.variant("header.tbl", &|b| b[16] ^= 1);
    assert!(refusal(&p).contains("damaged header"));
    let p = files.variant("label.tbl", &|b| b[64] = b'S');
    assert!(refusal(&p).contains("damaged header"));

    // A header that is consistent (checksum right) but claims more positions than N + 1.
    let p = files.variant("done.tbl", &|b| {
        b[16..24].copy_from_slice(&999u64.to_le_bytes());
        reseal(b);
    });
    assert!(refusal(&p).contains("at most N + 1"));

    // A header whose max is not the values' max.
    let p = files.variant("max.tbl", &|b| {
        b[32..34].copy_from_slice(&1u16.to_le_bytes());
        reseal(b);
    });
    assert!(refusal(&p).contains("damaged"));
}

/// A good file for other moves, and a file that is not there.
fn refuses_other_moves_and_missing_files(dir: &Path, good: &Path) {
    let f = tablefile::read(good).unwrap();
    let err = f
        .check_matches(&Moves::parse("1,3,4").unwrap(), good)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("was made for moves squares, not 1,3,4"),
        "{err}"
    );
    assert!(err.contains("good.tbl"), "{err}");
    assert_eq!(err.lines().count(), 1);

    let missing = dir.join("missing.tbl");
    let err = tablefile::read(&missing).unwrap_err().to_string();
    assert!(
        err.contains("missing.tbl") && err.lines().count() == 1,
        "{err}"
    );
}

/// Runs the driver up to `k` positions with a checkpoint, then resumes from the checkpoint.
fn stop_and_resume(moves: &Moves, limit: usize, k: usize, dir: &Path) -> Vec<u16> {
    let path = dir.join(format!("ck-{}-{k}.tbl", moves.label()));
    let fill = |g: &mut [u16], from: usize, _: u16| Stamped.fill(moves, g, from);
    let opts = LongRun {
        checkpoint: Some(path.clone()),
        stop_after_positions: Some(k),
        ..quiet()
    };
    let first = longrun::try_run_fill(moves, limit, Start::Fresh, &fill, &opts).unwrap();
    if k > limit {
        return finished(first);
    }
    assert_eq!(
        first,
        Outcome::Interrupted {
            signal: None,
            done: k,
            checkpoint: Some(path.clone())
        }
    );
    let ck = tablefile::read(&path).unwrap();
    assert_eq!(ck.done, k as u64);
    assert!(!ck.is_complete());
    let opts = LongRun {
        checkpoint: Some(path.clone()),
        ..quiet()
    };
    let start = longrun::start_from_files(moves, limit, Some(&path), None).unwrap();
    let g = finished(longrun::try_run_fill(moves, limit, start, &fill, &opts).unwrap());
    // At the end the checkpoint file is the complete table.
    let done = tablefile::read(&path).unwrap();
    assert!(done.is_complete());
    assert_eq!(done.values, g);
    g
}

#[test]
fn a_resumed_run_equals_an_uninterrupted_run() {
    let dir = scratch("resume");
    for moves in [Moves::Squares, Moves::parse("1,3,4").unwrap()] {
        let limit = 30_000;
        let expected = nimsquare::table::build("stamped", &moves, limit as u64)
            .unwrap()
            .values()
            .to_vec();
        let fill = |g: &mut [u16], from: usize, _: u16| Stamped.fill(&moves, g, from);
        let whole =
            finished(longrun::try_run_fill(&moves, limit, Start::Fresh, &fill, &quiet()).unwrap());
        assert_eq!(whole, expected);
        for k in [0, 1, 2, 4097, 12_345, limit, limit + 1] {
            assert_eq!(stop_and_resume(&moves, limit, k, &dir), expected, "k = {k}");
        }
    }
}

#[test]
fn checkpoints_are_written_between_chunks() {
    let dir = scratch("every");
    let moves = Moves::Squares;
    let limit = 200_000;
    let path = dir.join("ck.tbl");
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let fill = |g: &mut [u16], from: usize, max: u16| {
        calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        if from > 0 {
            // every = 0: the previous chunk's end is on disk before the next chunk starts.
            let ck = tablefile::read(&path).unwrap();
            assert_eq!(ck.done, from as u64);
            assert_eq!(ck.max, max);
            assert_eq!(ck.values[..], g[..from]);
        }
        Stamped.fill(&moves, g, from)
    };
    let opts = LongRun {
        checkpoint: Some(path.clone()),
        every: Duration::ZERO,
        chunk_target: Duration::from_millis(2),
        ..quiet()
    };
    let g = finished(longrun::try_run_fill(&moves, limit, Start::Fresh, &fill, &opts).unwrap());
    assert!(calls.load(std::sync::atomic::Ordering::SeqCst) > 2);
    let expected = nimsquare::table::build("stamped", &moves, limit as u64).unwrap();
    assert_eq!(g, expected.values());
}

#[test]
fn a_smaller_table_seeds_a_larger_n() {
    let dir = scratch("seed");
    let moves = Moves::Squares;
    let small = reference(&moves, 5000);
    let path = dir.join("small.tbl");
    tablefile::write_atomic(&path, &moves, 5000, &small, max_of(&small)).unwrap();
    let fill = |g: &mut [u16], from: usize, _: u16| {
        assert!(from >= 5001, "the seed's prefix is recomputed");
        Stamped.fill(&moves, g, from)
    };
    let seed = tablefile::read(&path).unwrap();
    assert_eq!(seed.provides(20_000), 5001);
    let g = finished(
        longrun::try_run_fill(&moves, 20_000, Start::Seed(seed.clone()), &fill, &quiet()).unwrap(),
    );
    assert_eq!(g, reference(&moves, 20_000));
    // ...and a larger table answers a smaller N without any work.
    let never = |_: &mut [u16], _: usize, _: u16| -> Result<()> { panic!("nothing to compute") };
    let g =
        finished(longrun::try_run_fill(&moves, 100, Start::Seed(seed), &never, &quiet()).unwrap());
    assert_eq!(g, &small[..101]);
}

#[test]
fn a_seed_for_other_moves_is_refused() {
    let dir = scratch("other-moves");
    let moves = Moves::Squares;
    let g = reference(&moves, 100);
    let path = dir.join("t.tbl");
    tablefile::write_atomic(&path, &moves, 100, &g, max_of(&g)).unwrap();
    let other = Moves::parse("1,3,4").unwrap();
    let seed: TableFile = tablefile::read(&path).unwrap();
    let never =
        |_: &mut [u16], _: usize, _: u16| -> Result<()> { panic!("refused before any work") };
    let err = longrun::try_run_fill(&other, 100, Start::Seed(seed), &never, &quiet())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("was made for moves squares, not 1,3,4"),
        "{err}"
    );
    let err = longrun::start_from_files(&other, 100, None, Some(&path))
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("--load-table: "), "{err}");
}

#[test]
fn a_checkpoint_never_replaces_a_foreign_file() {
    let dir = scratch("overwrite");
    let moves = Moves::Squares;
    let never =
        |_: &mut [u16], _: usize, _: u16| -> Result<()> { panic!("refused before any work") };
    // Not a table file.
    let text = dir.join("notes.txt");
    std::fs::write(&text, "keep me").unwrap();
    let opts = LongRun {
        checkpoint: Some(text.clone()),
        ..quiet()
    };
    let err = longrun::try_run_fill(&moves, 100, Start::Fresh, &never, &opts).unwrap_err();
    assert!(err.to_string().contains("refusing to overwrite"), "{err}");
    assert_eq!(std::fs::read_to_string(&text).unwrap(), "keep me");
    // A table for other moves.
    let other = Moves::parse("2,5").unwrap();
    let g = reference(&other, 100);
    let t = dir.join("other.tbl");
    tablefile::write_atomic(&t, &other, 100, &g, max_of(&g)).unwrap();
    let before = std::fs::read(&t).unwrap();
    let opts = LongRun {
        checkpoint: Some(t.clone()),
        ..quiet()
    };
    let err = longrun::try_run_fill(&moves, 100, Start::Fresh, &never, &opts).unwrap_err();
    assert!(err.to_string().contains("was made for moves 2,5"), "{err}");
    // A table with more positions than this run would write.
    let big = reference(&moves, 500);
    let b = dir.join("big.tbl");
    tablefile::write_atomic(&b, &moves, 500, &big, max_of(&big)).unwrap();
    let big_before = std::fs::read(&b).unwrap();
    let opts = LongRun {
        checkpoint: Some(b.clone()),
        ..quiet()
    };
    let err = longrun::try_run_fill(&moves, 100, Start::Fresh, &never, &opts).unwrap_err();
    assert!(err.to_string().contains("refusing to overwrite"), "{err}");
    // Both refused files are byte for byte what they were, and big.tbl still reads back as
    // the 500-position table.
    assert_eq!(std::fs::read(&t).unwrap(), before);
    assert_eq!(std::fs::read(&b).unwrap(), big_before);
    assert_eq!(tablefile::read(&b).unwrap().values, big);
}

#[test]
fn a_non_resumable_fill_runs_once_from_zero() {
    let moves = Moves::Squares;
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let fill = |g: &mut [u16], from: usize, max: u16| {
        assert_eq!((from, max), (0, 0));
        calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let t = nimsquare::table::build("bitset", &moves, g.len() as u64 - 1).unwrap();
        g.copy_from_slice(t.values());
        Ok(())
    };
    let opts = LongRun {
        resumable: false,
        ..quiet()
    };
    let g = finished(longrun::try_run_fill(&moves, 50_000, Start::Fresh, &fill, &opts).unwrap());
    assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 1);
    assert_eq!(g, reference(&moves, 50_000));
    let opts = LongRun {
        resumable: false,
        checkpoint: Some(std::env::temp_dir().join("never-written.tbl")),
        ..quiet()
    };
    assert!(longrun::try_run_fill(&moves, 100, Start::Fresh, &fill, &opts).is_err());
}

#[test]
fn a_non_resumable_fill_refuses_a_partial_seed_and_finishes_a_complete_one_without_filling() {
    let dir = scratch("non-resumable-seed");
    let moves = Moves::Squares;
    let (path, g) = write_squares(&dir, "t.tbl", 1000);
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let fill = |g: &mut [u16], from: usize, _: u16| {
        calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Stamped.fill(&moves, g, from)
    };
    let opts = LongRun {
        resumable: false,
        ..quiet()
    };
    let seed = || Start::Seed(tablefile::read(&path).unwrap());
    // g(0..=1000) seeds N = 2000 only in part: a fill that starts from 0 cannot take it.
    let err = longrun::try_run_fill(&moves, 2000, seed(), &fill, &opts).unwrap_err();
    assert!(err.to_string().contains("cannot resume"), "{err}");
    // For N = 1000 (and 600) the seed is the whole table: nothing is left to fill.
    for limit in [1000, 600] {
        let got = finished(longrun::try_run_fill(&moves, limit, seed(), &fill, &opts).unwrap());
        assert_eq!(got, g[..=limit]);
    }
    assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 0);
}

/// A run for N = 1000 with checkpoint `ck`, started from `ck` and `load` by
/// `start_from_files`, whose fill must never be called (the seed holds the whole table).
fn run_seeded_in_full(ck: &Path, load: Option<&Path>) -> Vec<u16> {
    let moves = Moves::Squares;
    let never =
        |_: &mut [u16], _: usize, _: u16| -> Result<()> { panic!("nothing is left to fill") };
    let opts = LongRun {
        checkpoint: Some(ck.to_path_buf()),
        ..quiet()
    };
    let start = longrun::start_from_files(&moves, 1000, Some(ck), load).unwrap();
    finished(longrun::try_run_fill(&moves, 1000, start, &never, &opts).unwrap())
}

#[test]
fn a_complete_seed_is_written_to_a_new_checkpoint_and_a_rerun_leaves_it_alone() {
    use std::os::unix::fs::MetadataExt;
    let dir = scratch("complete-seed");
    let (table, g) = write_squares(&dir, "t.tbl", 1000);
    let ck = dir.join("ck.tbl");
    // Seeded in full from --load-table: the checkpoint asked for is still written.
    assert_eq!(run_seeded_in_full(&ck, Some(&table)), g);
    let written = tablefile::read(&ck).unwrap();
    assert!(written.is_complete());
    assert_eq!(written.values, g);
    // Seeded in full from that checkpoint: it already holds the table, and is not rewritten
    // (an atomic write would put a new file, a new inode, in its place).
    let inode = std::fs::metadata(&ck).unwrap().ino();
    assert_eq!(run_seeded_in_full(&ck, None), g);
    assert_eq!(std::fs::metadata(&ck).unwrap().ino(), inode);
}

/// S(p) for the squares by its definition: the sum over n < p of floor(sqrt n).
fn square_steps_before(p: usize) -> u128 {
    (0..p).map(|n| n.isqrt() as u128).sum()
}

#[test]
fn the_first_chunk_spends_two_to_the_twenty_steps_and_no_chunk_grows_past_four_times_the_last() {
    let moves = Moves::Squares;
    let limit = 400_000;
    let chunks = std::sync::Mutex::new(Vec::new());
    let fill = |g: &mut [u16], from: usize, _: u16| {
        chunks.lock().unwrap().push((from, g.len()));
        Stamped.fill(&moves, g, from)
    };
    let opts = LongRun {
        chunk_target: Duration::from_secs(10),
        ..quiet()
    };
    let g = finished(longrun::try_run_fill(&moves, limit, Start::Fresh, &fill, &opts).unwrap());
    assert_eq!(g, reference(&moves, limit));
    let chunks = chunks.into_inner().unwrap();
    // The first chunk, before any rate is measured: the longest prefix within 2^20 steps
    // (13 582 positions).
    let (from, first) = chunks[0];
    assert_eq!(from, 0);
    assert!(square_steps_before(first) <= 1 << 20, "{first}");
    assert!(square_steps_before(first + 1) > 1 << 20, "{first}");
    // Each later chunk follows on from the one before, at most four times as long (with a
    // ten-second target that cap, not the rate, is what sizes them), and the last one ends
    // at N + 1.
    for w in chunks.windows(2) {
        let ((a, b), (c, d)) = (w[0], w[1]);
        assert_eq!(b, c, "{chunks:?}");
        assert!(d - c <= 4 * (b - a), "{chunks:?}");
    }
    assert_eq!(chunks.last().unwrap().1, limit + 1, "{chunks:?}");
    assert!(chunks.len() >= 3, "{chunks:?}");
}

/// A header's claims exactly at each of its limits are read, and one past is refused: the
/// header length (a multiple of 4096 from 4096 to 2^24), the label length (its end within
/// the header), N (at most the supported maximum) and the block checksums (within the
/// header). Each variant of the squares table for N = 1000 (label `squares`, 7 bytes, so the
/// block checksums start at byte 72) is resealed, so only the claim under test is wrong.
#[test]
fn header_claims_at_their_limits_are_read_and_one_past_is_refused() {
    let dir = scratch("header-limits");
    let (good, _) = write_squares(&dir, "good.tbl", 1000);
    let files = Variants {
        dir: dir.to_path_buf(),
        original: std::fs::read(&good).unwrap(),
    };
    let put_u32 =
        |b: &mut Vec<u8>, at: usize, v: u32| b[at..at + 4].copy_from_slice(&v.to_le_bytes());
    let put_u64 =
        |b: &mut Vec<u8>, at: usize, v: u64| b[at..at + 8].copy_from_slice(&v.to_le_bytes());
    let header_len = |len: u32| {
        let p = files.variant(&format!("h{len}.tbl"), &|b| {
            put_u32(b, 12, len);
            reseal(b);
        });
        refusal(&p)
    };
    for len in [0, 4097, (1 << 24) + 4096] {
        assert!(header_len(len).contains(&format!("damaged header (header length {len})")));
    }
    // 2^24 is a length the format allows: this file is then only too short for it.
    assert!(header_len(1 << 24).contains("truncated (the header is incomplete)"));

    // A label that ends exactly at the header's end fits (the block checksum then does not);
    // one byte more does not.
    let p = files.variant("label-4032.tbl", &|b| {
        put_u32(b, 36, 4032);
        b[72..80].fill(0);
        reseal(b);
    });
    assert!(refusal(&p).contains("1 block checksums do not fit in 4096 bytes"));
    let p = files.variant("label-4033.tbl", &|b| {
        put_u32(b, 36, 4033);
        b[72..80].fill(0);
        reseal(b);
    });
    assert!(refusal(&p).contains("damaged header (label length)"));

    // N at the supported maximum is read (this file then holds a prefix of its table).
    let max = nimsquare::table::MAX_LIMIT;
    let p = files.variant("max.tbl", &|b| {
        put_u64(b, 16, max);
        reseal(b);
    });
    assert_eq!(tablefile::read_header(&p).unwrap().limit, max);

    // One value a block: the 4096-byte header holds (4096 − 72) / 8 = 503 block checksums.
    let blocks = |done: u64| {
        let p = files.variant(&format!("blocks-{done}.tbl"), &|b| {
            put_u64(b, 24, done);
            put_u32(b, 40, 1);
            b.truncate(4096 + 2 * done as usize);
            reseal(b);
        });
        tablefile::read_header(&p)
            .map(|h| h.block_sums.len())
            .map_err(|e| e.to_string())
    };
    assert_eq!(blocks(503), Ok(503));
    let err = blocks(504).unwrap_err();
    assert!(
        err.contains("504 block checksums do not fit in 4096 bytes"),
        "{err}"
    );
}

#[test]
fn a_label_past_the_first_page_takes_a_longer_header_and_reads_back() {
    let dir = scratch("long-label");
    // The moves 1..=1200: a label of 4892 bytes, so the header is 8192 bytes; with every
    // move up to n available, g(n) = n.
    let moves = Moves::list((1..=1200).collect()).unwrap();
    let g: Vec<u16> = (0..=100).collect();
    let path = dir.join("long.tbl");
    tablefile::write_atomic(&path, &moves, 100, &g, 100).unwrap();
    let h = tablefile::read_header(&path).unwrap();
    assert_eq!((h.header_bytes, h.moves_label.len()), (8192, 4892));
    assert_eq!(tablefile::read(&path).unwrap().values, g);
}

/// A checkpoint cut short inside a block keeps the blocks before it: the squares table for
/// N = 1000 re-blocked by hand into 11 blocks of 100 values (their checksums written into the
/// header), then cut in the middle of block 5.
#[test]
fn a_checkpoint_cut_inside_a_block_keeps_the_blocks_before_it() {
    let dir = scratch("cut-block");
    let (good, g) = write_squares(&dir, "good.tbl", 1000);
    let mut b = std::fs::read(&good).unwrap();
    b[40..44].copy_from_slice(&100u32.to_le_bytes());
    for k in 0..11 {
        let block = &b[4096 + 200 * k..(4096 + 200 * (k + 1)).min(6098)];
        let sum = fnv(block);
        b[72 + 8 * k..80 + 8 * k].copy_from_slice(&sum.to_le_bytes());
    }
    reseal(&mut b);
    let whole = dir.join("reblocked.tbl");
    std::fs::write(&whole, &b).unwrap();
    assert_eq!(tablefile::read(&whole).unwrap().values, g);
    let cut = dir.join("cut.tbl");
    std::fs::write(&cut, &b[..4096 + 2 * 550]).unwrap();
    let file = tablefile::read_checkpoint(&cut).unwrap();
    let d = file.damage.expect("a damaged block");
    assert_eq!(
        (d.block, d.blocks, d.from, d.to, d.cut_short),
        (5, 11, 500, 600, true)
    );
    assert_eq!(file.values, g[..500]);
    // Cut at the end of block 4 instead: blocks 0 to 4 are whole and kept.
    std::fs::write(&cut, &b[..4096 + 2 * 500]).unwrap();
    let file = tablefile::read_checkpoint(&cut).unwrap();
    let d = file.damage.expect("a block cut off");
    assert_eq!((d.block, d.from, d.cut_short), (5, 500, true));
    assert_eq!(file.values, g[..500]);
    // The whole file read as a checkpoint: no damage.
    let file = tablefile::read_checkpoint(&whole).unwrap();
    assert!(file.damage.is_none());
    assert_eq!(file.values, g);
}

#[test]
fn a_checkpoint_may_replace_a_file_of_as_many_positions_as_it_writes_and_no_more() {
    let dir = scratch("overwritable");
    let (path, _) = write_squares(&dir, "t.tbl", 1000);
    // 1001 positions: a run for N = 1000 writes as many, one for 999 fewer.
    assert!(tablefile::check_overwritable(&path, &Moves::Squares, 1000).is_ok());
    let err = tablefile::check_overwritable(&path, &Moves::Squares, 999).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("holds 1001 positions, more than N + 1 = 1000"),
        "{msg}"
    );
}

#[test]
fn the_file_with_more_positions_seeds_the_run_and_a_partial_checkpoint_is_completed() {
    let dir = scratch("more-positions");
    let moves = Moves::Squares;
    let (table, g) = write_squares(&dir, "t.tbl", 1000);
    let ck = dir.join("ck.tbl");
    tablefile::write_atomic(&ck, &moves, 1000, &g[..500], max_of(&g[..500])).unwrap();
    let seeded =
        |load: Option<&Path>| match longrun::start_from_files(&moves, 1000, Some(&ck), load)
            .unwrap()
        {
            Start::Seed(file) => file.values.len(),
            Start::Fresh => 0,
        };
    // The complete table (1001 positions) wins over the checkpoint (500), and without it the
    // checkpoint is taken.
    assert_eq!(seeded(Some(&table)), 1001);
    assert_eq!(seeded(None), 500);
    // A complete table for N = 300 (301 positions) loses to the checkpoint's 500.
    let (small, _) = write_squares(&dir, "t300.tbl", 300);
    assert_eq!(seeded(Some(&small)), 500);
    // Seeded in full, the run still replaces the checkpoint of 500 by the whole table.
    assert_eq!(run_seeded_in_full(&ck, Some(&table)), g);
    let after = tablefile::read(&ck).unwrap();
    assert!(after.is_complete());
    assert_eq!(after.values, g);
}
