//! Every back-end's scratch estimate (`scratch_bytes`, what the memory guard adds to the
//! table before any work) worked by hand from what its comment says it holds, at one size:
//! the squares up to N = 10^4 (100 moves), two threads, and for the counters 100 values
//! (W = 128). tests/memory_estimates.rs holds the estimates against measured peaks, which
//! an estimate that grows passes by design; these sums pin each term.

use nimsquare::base::moves::Moves;
use nimsquare::{cold, count, table};

const N: usize = 10_000;
const THREADS: usize = 2;

#[test]
fn every_table_back_ends_scratch_is_its_terms_worked_by_hand() {
    // The move list is 100 usizes, 800 bytes, in every back-end.
    let by_hand = |name: &str| -> u64 {
        match name {
            // The list and one value set of 4 usizes a move.
            "naive-mex" => 40 * 100,
            // The list and `seen`, (100 + 2) usizes each.
            "stamped" => 16 * 102,
            // The list, a flag a move and two more.
            "fixture-mex" => 800 + 100 + 2,
            // The list and 64 lanes of 100/64 + 2 = 3 mask words.
            "bitset" => 800 + 64 * 8 * 3,
            // The list and 32 lanes of a stride for 100 + 32 values: 256 bytes.
            "stamped-lanes" => 800 + 32 * 256,
            // Two mask buffers of the largest super-block, 512 << 3 = 4096 positions, of 3
            // words; the list.
            "bitset-parallel" => 2 * 4096 * 3 * 8 + 800,
            // Two mask buffers of 4096 positions of (100 + 2 · 4096)/64 + 2 = 131 words, a
            // lane scratch (32 · 256) per thread and one more, the list.
            "stamped-parallel" => 2 * 4096 * 131 * 8 + 3 * 32 * 256 + 800,
            // Two bitsets of 10 001 bits (157 words) and the list.
            "value-bounded" => 2 * 157 * 8 + 800,
            other => panic!("'{other}': no hand-worked scratch in this test"),
        }
    };
    for e in table::BACKENDS {
        let got = (e.make)().scratch_bytes(&Moves::Squares, N, THREADS);
        assert_eq!(got, by_hand(e.name), "'{}'", e.name);
    }
    // N + 1 = 6401 positions, one past a multiple of 64: 101 words a bitset; 80 moves.
    let value_bounded = table::find("value-bounded").unwrap();
    let got = (value_bounded.make)().scratch_bytes(&Moves::Squares, 6400, THREADS);
    assert_eq!(got, 2 * 101 * 8 + 8 * 80);
}

#[test]
fn every_counters_scratch_is_its_terms_worked_by_hand() {
    let by_hand = |name: &str| -> u64 {
        match name {
            "brute" => 0,
            // Prefix and padded suffix tables (3 u64 a value) and four u32 copies and one
            // more (5 u32 a value), W = 128.
            "sweep" => 44 * 128,
            // 4 chunks a thread and one more (9), each a u64 histogram and prefix (16 bytes a
            // value) and 128 bytes of headers; one more histogram; a sweep's tables a thread.
            "rayon-sweep" => 9 * (16 * 128 + 128) + 8 * 128 + 2 * 44 * 128,
            // Three vectors of W big integers of 104 bytes, and the cycle-index sum (64 KiB).
            "burnside" => 3 * 104 * 128 + 65_536,
            // The i64 transform, 17 big-integer power sums, the cycle-index sum.
            "wht" => 8 * 128 + 104 * 17 + 65_536,
            other => panic!("'{other}': no hand-worked scratch in this test"),
        }
    };
    for e in count::BACKENDS {
        let got = (e.make)().scratch_bytes(100, THREADS);
        assert_eq!(got, by_hand(e.name), "'{}'", e.name);
    }
}

#[test]
fn every_cold_finders_scratch_is_its_terms_worked_by_hand() {
    let by_hand = |name: &str| -> u64 {
        match name {
            // The move list.
            "naive-cold" => 800,
            // A window of min(2^19, 10 001) bytes a thread, and twice 16 bytes for each of
            // 10 001^0.7 + 64 = 631 + 64 live cursors.
            "sieve" => 2 * 10_001 + 2 * 16 * (631 + 64),
            other => panic!("'{other}': no hand-worked scratch in this test"),
        }
    };
    for e in cold::BACKENDS {
        let got = (e.make)().scratch_bytes(&Moves::Squares, N, THREADS);
        assert_eq!(got, by_hand(e.name), "'{}'", e.name);
    }
}
