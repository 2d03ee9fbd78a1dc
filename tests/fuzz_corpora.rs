//! Replays every saved fuzz input (`fuzz/corpus/TARGET/*`, and the crashes the campaigns
//! found, `fuzz/crashes/TARGET/*`) through its target in `nimsquare::fuzzing`, under the
//! counting allocator's bound: what the campaign found stays fixed, in seconds. Also the
//! forged length fields: a header claiming 2^60 values reserves nothing of the kind.

use nimsquare::fuzzing::{self, alloc};
use std::path::Path;

#[global_allocator]
static ALLOC: alloc::Counting = alloc::Counting;

/// Every file of `fuzz/<kind>/<target>/`, for every target.
fn inputs(kind: &str) -> Vec<(&'static fuzzing::Target, std::path::PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz")
        .join(kind);
    let mut out = Vec::new();
    for t in fuzzing::TARGETS {
        let Ok(dir) = std::fs::read_dir(root.join(t.name)) else {
            continue;
        };
        for e in dir {
            let p = e.unwrap().path();
            if p.is_file() {
                out.push((t, p));
            }
        }
    }
    out.sort_by(|a, b| a.1.cmp(&b.1));
    out
}

/// One test, so that no other test's allocations run beside a measured target.
#[test]
fn every_saved_input_is_answered_within_its_allocation_bound() {
    let corpus = inputs("corpus");
    for t in fuzzing::TARGETS {
        assert!(
            corpus.iter().any(|(c, _)| c.name == t.name),
            "no corpus for the target {}",
            t.name
        );
    }
    for (t, p) in corpus.iter().chain(inputs("crashes").iter()) {
        let bytes = std::fs::read(p).unwrap();
        eprintln!("{} {}", t.name, p.display());
        alloc::run_bounded(t.run, &bytes);
    }
    forged_lengths_reserve_nothing_huge();
}

/// A table checkpoint whose header claims N = MAX_LIMIT and all its values (8 GiB; the header
/// checksum resealed), or 2^60 values, a window checkpoint whose prefix claims 2^60 values, and census shards of
/// 2^60: each refused or answered within the bound.
fn forged_lengths_reserve_nothing_huge() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus");
    let table = std::fs::read(root.join("table_checkpoint/sq.ck")).unwrap();
    let mut forged = table.clone();
    let n = nimsquare::base::limit::MAX_LIMIT;
    forged[16..24].copy_from_slice(&n.to_le_bytes());
    forged[24..32].copy_from_slice(&(n + 1).to_le_bytes());
    forged[40..44].copy_from_slice(&(1u32 << 31).to_le_bytes());
    let forged = fuzzing::reseal_table(&forged);
    alloc::run_bounded(fuzzing::table_checkpoint, &forged);
    alloc::run_bounded(fuzzing::table_file, &forged);
    let r = nimsquare::run::longrun::tablefile::parse_checkpoint(&forged, Path::new("forged"));
    assert!(r.is_ok(), "{r:?}");
    for n in [1u64 << 60, u64::MAX] {
        let mut f = table.clone();
        f[24..32].copy_from_slice(&n.to_le_bytes());
        alloc::run_bounded(fuzzing::table_checkpoint, &fuzzing::reseal_table(&f));
    }
    // the window checkpoint: the prefix's value count is the word after the kept state
    let ck = std::fs::read(root.join("window_checkpoint/win.ck")).unwrap();
    let magic = b"nimsquare window checkpoint\n".len();
    let mut at = magic + 1;
    let word = |b: &[u8], at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
    at += 8 + word(&ck, at) as usize; // code
    at += 8 + word(&ck, at) as usize; // back-end
    at += 32; // limit, done, window
    at += 8 + word(&ck, at) as usize; // stream
    at += 8 + word(&ck, at) as usize; // kept
    let mut f = ck.clone();
    f[at..at + 8].copy_from_slice(&(1u64 << 60).to_le_bytes());
    alloc::run_bounded(fuzzing::window_checkpoint, &fuzzing::reseal_window(&f));
    // census shards: a header naming shard 0 of 2^60
    let csv = std::fs::read_to_string(root.join("census_file/small.csv")).unwrap();
    let forged = csv.replace("\"shard\":\"0/1\"", "\"shard\":\"0/1152921504606846976\"");
    assert_ne!(forged, csv);
    alloc::run_bounded(fuzzing::census_merge, forged.as_bytes());
}
