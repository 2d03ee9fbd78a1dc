//! Every back-end's memory estimate held against what it really allocates: a counting global
//! allocator (this binary's own, since a `#[global_allocator]` is per binary) records the
//! peak of live heap bytes while a back-end runs, and the estimate the memory guard adds up
//! before anything is allocated must never be below it: `table::bytes_needed` (the u16
//! table, its histogram and the back-end's `scratch_bytes`) for a table build, a counter's
//! `scratch_bytes` for a count (K = 3, 8 and 16), the N-bit set and the finder's
//! `scratch_bytes` for a cold set. Cases: the squares and two lists (one with values to 300,
//! five mask words), N from 10^3 to 3·10^5, on 1, 2 and 3 threads; and every octal back-end
//! (the u16 table and its `scratch_bytes`) on Officers, 0.137 and Grundy's game. One test, so no other
//! test's allocations mix in.

use nimsquare::base::moves::Moves;
use nimsquare::table::{self, Table};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting live bytes and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(bytes: usize) {
    let now = LIVE.fetch_add(bytes, Ordering::SeqCst) + bytes;
    PEAK.fetch_max(now, Ordering::SeqCst);
}

fn shrank(bytes: usize) {
    LIVE.fetch_sub(bytes, Ordering::SeqCst);
}

// SAFETY: every call is forwarded to `System` with the caller's own arguments; the counters
// only observe sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        shrank(layout.size());
    }

    /// Counted by its net change: what the program holds after it (glibc grows a large block
    /// in place or by `mremap`, without a second copy).
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            if new_size > layout.size() {
                grew(new_size - layout.size());
            } else {
                shrank(layout.size() - new_size);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The peak of live heap bytes above those live before `body`, and its result.
fn peak_during<R>(body: impl FnOnce() -> R) -> (u64, R) {
    let base = LIVE.load(Ordering::SeqCst);
    PEAK.store(base, Ordering::SeqCst);
    let out = body();
    let peak = PEAK.load(Ordering::SeqCst);
    ((peak - base) as u64, out)
}

/// Rayon pools of 1, 2 and 3 threads, every thread of each started and warmed up (a job
/// run on each) before any measurement, so no pool's start-up allocations land in one;
/// they live until the end of the test, so none is torn down during one either.
fn pools() -> Vec<rayon::ThreadPool> {
    let pools: Vec<rayon::ThreadPool> = (1..=3)
        .map(|t| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .unwrap()
        })
        .collect();
    for pool in &pools {
        let squares = pool.broadcast(|ctx| {
            use rayon::prelude::*;
            let v: Vec<u64> = (0..10_000u64).into_par_iter().map(|x| x * x).collect();
            v[9999] + ctx.index() as u64
        });
        assert_eq!(squares.len(), pool.current_num_threads());
    }
    std::thread::sleep(std::time::Duration::from_millis(100));
    pools
}

/// The cases: a name, the moves and the N each is run at.
fn cases() -> Vec<(&'static str, Moves, Vec<usize>)> {
    vec![
        ("squares", Moves::Squares, vec![1_000, 30_000, 300_000]),
        (
            "{1,3,4}",
            Moves::list(vec![1, 3, 4]).unwrap(),
            vec![1_000, 100_000],
        ),
        // g(n) = n mod 301: values to 300, five mask words.
        (
            "1..=300",
            Moves::list((1..=300).collect()).unwrap(),
            vec![1_000, 30_000],
        ),
    ]
}

#[test]
fn no_back_end_allocates_more_than_its_estimate() {
    let mut short: Vec<String> = Vec::new();
    let mut checked = 0;
    let mut tightest = (f64::INFINITY, String::new());
    let mut record = |what: String, estimate: u64, peak: u64| {
        checked += 1;
        if estimate < peak {
            short.push(format!("{what}: estimate {estimate} < peak {peak}"));
        }
        let ratio = estimate as f64 / peak.max(1) as f64;
        if ratio < tightest.0 {
            tightest = (ratio, what);
        }
    };
    for pool in pools() {
        let threads = pool.current_num_threads();
        pool.install(|| {
            assert_eq!(rayon::current_num_threads(), threads);
            // Unmeasured: a first run of every table back-end on this worker thread, so
            // one-time thread-local set-up is not charged to the first measured back-end.
            for e in table::BACKENDS {
                (e.make)().build(&Moves::Squares, 100).unwrap();
            }
            // The octal stage: the u16 table and the back-end's scratch, what octal::prepare
            // adds up (the control only where it is quick).
            for code in ["0.6", "0.137", "grundy"] {
                let rules = nimsquare::octal::Rules::parse(code).unwrap();
                for n in [1_000usize, 30_000] {
                    let case = format!("octal {code} N = {n}, {threads} threads");
                    let mut tables: Vec<Table> = Vec::new();
                    for e in nimsquare::octal::BACKENDS {
                        if e.is_control() && n > 5_000 {
                            continue;
                        }
                        let builder = (e.make)();
                        let estimate =
                            2 * (n as u64 + 1) + builder.scratch_bytes(&rules, n, threads);
                        let (peak, t) = peak_during(|| builder.build(&rules, n).unwrap());
                        record(format!("{} {case}", e.name), estimate, peak);
                        tables.push(t);
                    }
                    assert!(tables.windows(2).all(|w| w[0] == w[1]), "{case}");
                }
            }
            for (label, moves, limits) in cases() {
                for &n in &limits {
                    let case = format!("{label} N = {n}, {threads} threads");
                    let mut tables: Vec<Table> = Vec::new();
                    for e in table::BACKENDS {
                        let builder = (e.make)();
                        if builder.affordable_limit().is_some_and(|max| n > max) {
                            continue;
                        }
                        let estimate = table::bytes_needed(&*builder, &moves, n, threads);
                        let (peak, t) = peak_during(|| builder.build(&moves, n).unwrap());
                        record(format!("table {} {case}", e.name), estimate, peak);
                        tables.push(t);
                    }
                    assert!(tables.windows(2).all(|w| w[0] == w[1]), "{case}");
                    let t = &tables[0];
                    for e in nimsquare::count::BACKENDS {
                        let counter = (e.make)();
                        for heaps in [3, 8, 16] {
                            if !counter.heaps().contains(&heaps) || !counter.affordable(n, heaps) {
                                continue;
                            }
                            let estimate = counter.scratch_bytes(t.alphabet(), threads);
                            let (peak, answer) = peak_during(|| counter.count(t, heaps));
                            if answer.is_err() {
                                continue; // an overflow past u128, refused before any answer
                            }
                            let what = format!("count {} K = {heaps} {case}", e.name);
                            record(what, estimate, peak);
                        }
                    }
                    for e in nimsquare::cold::BACKENDS {
                        let finder = (e.make)();
                        if finder.affordable_limit().is_some_and(|max| n > max) {
                            continue;
                        }
                        // The planner's: the set's N / 64 + 1 words and the scratch.
                        let estimate =
                            8 * (n as u64 / 64 + 1) + finder.scratch_bytes(&moves, n, threads);
                        let (peak, _set) = peak_during(|| finder.cold(&moves, n));
                        record(format!("cold {} {case}", e.name), estimate, peak);
                    }
                }
            }
        });
    }
    assert!(short.is_empty(), "{}", short.join("\n"));
    assert!(checked > 100, "{checked}");
    eprintln!(
        "{checked} estimates, the tightest {:.3} x the peak: {}",
        tightest.0, tightest.1
    );
}
