//! Shared test helpers: a seeded generator, so random cases are the same on every run.
#![allow(dead_code)]

pub use nimsquare::base::rng::SplitMix64;

/// A random subtraction set: 1 to 8 distinct moves drawn from 1..=max_move.
pub fn random_moves(rng: &mut SplitMix64, max_move: u64) -> nimsquare::base::moves::Moves {
    let count = rng.range(1, 8);
    let list = (0..count).map(|_| rng.range(1, max_move)).collect();
    nimsquare::base::moves::Moves::list(list).expect("non-empty, no zero")
}

/// Runs every registered back-end on (moves, N, K) through the one checker and panics with
/// the first disagreement, naming the back-ends and where they differ. Returns the report.
pub fn assert_agree(
    moves: &nimsquare::base::moves::Moves,
    limit: usize,
    heaps: usize,
) -> nimsquare::instruments::check::Report {
    let case = nimsquare::instruments::check::Case {
        moves: moves.clone(),
        limit,
        heaps,
    };
    let report = nimsquare::instruments::check::everything(&case).unwrap();
    assert!(!report.pairs.is_empty(), "nothing answered for {case:?}");
    report.into_result().unwrap()
}

/// A proptest strategy for subtraction sets from 1..=max_move: mostly 1 to 8 moves, one
/// case in four 9 to 300 (hundreds of moves where max_move allows; shrinks towards fewer and
/// smaller moves).
pub fn moves_strategy(
    max_move: u64,
) -> impl proptest::strategy::Strategy<Value = nimsquare::base::moves::Moves> {
    use proptest::prelude::*;
    prop_oneof![
        3 => proptest::collection::vec(1..=max_move, 1..=8),
        1 => proptest::collection::vec(1..=max_move, 9..=300),
    ]
    .prop_map(|list| nimsquare::base::moves::Moves::list(list).expect("non-empty, no zero"))
}

/// The dense runs 1..=k that [`regime_moves`] and [`regime_strategy`] start from, one band per
/// regime of the table kernels: none (values stay small), past `stamped-lanes`' scalar start
/// (36) and the first mask word (64), past 128 and 256 (lane strides 256 and 512, a fifth
/// mask word) and past 1024 (stride 2048, 17 mask words). With 1..=k among the moves,
/// g(n) = n for n <= k, so a table with N >= k reaches k; the tests check what was reached.
pub const REGIME_BANDS: [(u64, u64); 6] = [
    (0, 0),
    (37, 63),
    (65, 127),
    (129, 255),
    (257, 511),
    (1025, 1150),
];

/// A subtraction set and N for the regime tests: the dense run 1..=k of a random band of
/// [`REGIME_BANDS`] (`band`, or a random one), plus 1 to 300 moves drawn from 1..=3000
/// (sparse, so the far-move paths run too); N from k to k + 3000, at most 10^4.
pub fn regime_moves(
    rng: &mut SplitMix64,
    band: Option<usize>,
) -> (nimsquare::base::moves::Moves, usize) {
    let band = band.unwrap_or_else(|| rng.range(0, REGIME_BANDS.len() as u64 - 1) as usize);
    let (lo, hi) = REGIME_BANDS[band];
    let k = rng.range(lo, hi);
    let extra = rng.range(1, 300);
    let mut list: Vec<u64> = (1..=k).collect();
    list.extend((0..extra).map(|_| rng.range(1, 3000)));
    let limit = rng.range(k, (k + 3000).min(10_000)) as usize;
    let moves = nimsquare::base::moves::Moves::list(list).expect("non-empty, no zero");
    (moves, limit)
}

/// [`regime_moves`] as a proptest strategy: (moves, N), shrinking towards a shorter dense
/// run, fewer extra moves and a smaller N.
pub fn regime_strategy(
) -> impl proptest::strategy::Strategy<Value = (nimsquare::base::moves::Moves, usize)> {
    use proptest::prelude::*;
    let band = (0..REGIME_BANDS.len()).prop_flat_map(|b| {
        let (lo, hi) = REGIME_BANDS[b];
        lo..=hi
    });
    (band, proptest::collection::vec(1u64..=3000, 1..=300)).prop_flat_map(|(k, extra)| {
        let mut list: Vec<u64> = (1..=k).collect();
        list.extend(extra);
        let moves = nimsquare::base::moves::Moves::list(list).expect("non-empty, no zero");
        let k = k as usize;
        (Just(moves), k..=(k + 3000).min(10_000))
    })
}

/// The table back-ends the per-path tests (`tests/isa.rs`) run on every vector path: every
/// registered one but the naive controls, with vector kernels or not, so a back-end that
/// follows `--isa` without saying so is checked too (`tests/contract.rs` shows a registered
/// fixture among them).
pub fn per_path_tables() -> Vec<
    &'static nimsquare::registry::Entry<
        dyn nimsquare::grundy::Builder<nimsquare::base::moves::Moves>,
    >,
> {
    nimsquare::registry::fast(nimsquare::table::BACKENDS).collect()
}

/// The built `nimsquare` binary, for CLI tests, with wisdom turned off
/// (`NIMSQUARE_NO_WISDOM`), so a developer's cached `tune` results never change a test.
pub fn nimsquare() -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::cargo_bin("nimsquare").unwrap();
    cmd.env(nimsquare::run::wisdom::OFF_VARIABLE, "1");
    cmd
}

/// [`nimsquare`] as a `std::process::Command`, for tests that spawn and signal the process;
/// wisdom is turned off the same way.
pub fn nimsquare_process() -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_nimsquare"));
    cmd.env(nimsquare::run::wisdom::OFF_VARIABLE, "1");
    cmd
}

/// The lines of a census's rows (CSV or JSON Lines, a rows file or stdout) without what two
/// runs of one census differ in: each row's date and cost (`seconds`,
/// `positions_per_second`), the last three CSV columns before the `check` of a rows file (a
/// hash of the row, cost included, so it differs too). Header lines (the `# census` line,
/// the column names, the JSON Lines `census` line) are kept whole.
#[allow(dead_code)]
pub fn census_facts(text: &str) -> Vec<String> {
    // A CSV rows file of version 3 on ends each row in its check.
    let checked = text
        .lines()
        .any(|l| l.starts_with("code,") && l.ends_with(",check"));
    text.lines()
        .map(|l| {
            if l.starts_with('{') {
                let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
                if let Some(o) = v.as_object_mut().filter(|o| o.contains_key("code")) {
                    for cost in ["date", "seconds", "positions_per_second"] {
                        assert!(o.remove(cost).is_some(), "no {cost} in {l}");
                    }
                    o.remove("check");
                }
                v.to_string()
            } else if l.starts_with("# census") || l.starts_with("code,") {
                l.to_string()
            } else {
                let l = match l.rsplit_once(',') {
                    Some((row, check)) if checked => {
                        assert_eq!(check.len(), 16, "a row ends in its check: {l}");
                        row
                    }
                    _ => l,
                };
                let facts = l.rsplitn(4, ',').last().unwrap();
                assert_ne!(facts, l, "a census row has its date and cost: {l}");
                facts.to_string()
            }
        })
        .collect()
}

/// Runs the binary with `args`, asserts it succeeded and returns its stdout.
pub fn stdout_of<I, S>(args: I) -> String
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let out = nimsquare().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Runs the binary with `args`, asserts it succeeded and parses its stdout as JSON.
pub fn json_of<I, S>(args: I) -> serde_json::Value
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    serde_json::from_str(&stdout_of(args)).unwrap()
}

/// Runs the binary with `args`, asserts it exited with status 2 (a refusal) and returns its
/// stderr. [`assert_refused`] checks the refusal's form as well.
pub fn refusal_stderr<I, S>(args: I) -> String
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let out = nimsquare().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs the binary with `args` and checks it was refused: status 2, one line on stderr
/// starting `error:`, nothing on stdout, no panic. Returns stderr.
pub fn assert_refused(args: &[&str]) -> String {
    let out = nimsquare().args(args).output().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(out.stdout.is_empty(), "{args:?}");
    assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    stderr
}

/// Asserts that every registered count back-end that affords the table gives `expected` on
/// `table` for 3 heaps (the brute-force control only runs on small N); `what` names the case.
pub fn assert_every_count(table: &nimsquare::table::Table, expected: u128, what: &str) {
    for c in nimsquare::count::BACKENDS {
        let counter = (c.make)();
        if counter.affordable(table.limit(), 3) {
            assert_eq!(
                counter.count(table, 3).unwrap(),
                expected,
                "{} {what}",
                c.name
            );
        }
    }
}

/// g(0..=limit) by the naive control: the judge of the table tests.
pub fn naive(moves: &nimsquare::base::moves::Moves, limit: usize) -> Vec<u16> {
    nimsquare::table::build("naive-mex", moves, limit as u64)
        .unwrap()
        .values()
        .to_vec()
}

/// Fills g in pieces ending at `cuts` (ascending), each resumed from the finished prefix, as
/// a checkpointed run does: the odd pieces with what the last piece kept (a table back-end's
/// prefix max), the even ones with nothing kept (the back-end reads the prefix again).
pub fn fill_in_pieces(
    b: &dyn nimsquare::grundy::Builder<nimsquare::base::moves::Moves>,
    moves: &nimsquare::base::moves::Moves,
    limit: usize,
    cuts: &[usize],
) -> Vec<u16> {
    let mut g = vec![0u16; limit + 1];
    let mut from = 0;
    let mut kept = None;
    for (i, &to) in cuts.iter().chain([&(limit + 1)]).enumerate() {
        let to = to.clamp(from, limit + 1);
        if i % 2 == 0 {
            kept = None;
        }
        b.fill_kept(moves, &mut g[..to], from, &mut kept).unwrap();
        from = to;
    }
    g
}

/// FNV-1a 64, the table file's header checksum, written here again so the tests check the
/// documented checksum, not the code's.
pub fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
}

/// Rewrites a table file's header checksum after a deliberate edit, so that a later check,
/// not the checksum, is what refuses the file. The checksum covers the first S bytes, S = 64
/// plus the label length (u32 at byte 36) rounded up to 8 (cut at the file's end).
pub fn reseal(bytes: &mut [u8]) {
    bytes[48..56].fill(0);
    let label_len = u32::from_le_bytes(bytes[36..40].try_into().unwrap()) as usize;
    let s = (64 + label_len).next_multiple_of(8).min(bytes.len());
    let sum = fnv(&bytes[..s]);
    bytes[48..56].copy_from_slice(&sum.to_le_bytes());
}

/// Runs `body` once on every vector path this CPU has ([`Isa::supported_all`], scalar first),
/// each under `isa::with` and the whole under `isa::TEST_LOCK`, so a random case that finds a
/// disagreement on one path only is caught whichever path is the active one. A panic is
/// raised again naming the path it happened on (proptest then shrinks the case as usual).
///
/// [`Isa::supported_all`]: nimsquare::base::isa::Isa::supported_all
pub fn on_every_path(body: impl Fn()) {
    use nimsquare::base::isa::{self, Isa};
    let _guard = isa::TEST_LOCK.lock().unwrap_or_else(|p| p.into_inner());
    for path in Isa::supported_all() {
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            isa::with(path, &body).expect("a supported path can be forced")
        }));
        if let Err(payload) = run {
            let why = payload
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| payload.downcast_ref::<&str>().copied())
                .unwrap_or("(a panic without a message)");
            panic!("on the {} path: {why}", path.name());
        }
    }
}

/// A fresh, empty folder `name` under the system temp dir for one test. It is removed when
/// the test passes and kept when it fails (dropped while panicking), so a failed run's files
/// can still be read; without this every passing run left its folders behind.
pub struct Scratch(std::path::PathBuf);

impl Scratch {
    pub fn new(name: String) -> Scratch {
        let dir = std::env::temp_dir().join(name);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl std::ops::Deref for Scratch {
    type Target = std::path::Path;

    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

impl AsRef<std::path::Path> for Scratch {
    fn as_ref(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// The binary as an ordinary user would run it, for the tests whose answer depends on
/// privilege: root writes into read-only folders and may replace files in /dev, so a test run
/// as root (as CI is) would hide exactly the failures an ordinary user meets. When this
/// process is root, the binary is copied (mode 755) into `dir`, which the caller made and
/// which must be readable by all (a `Scratch` is), and run as `nobody` (uid and gid 65534)
/// through `setpriv`, else `runuser`; otherwise it is run directly. Wisdom is off, and the
/// command starts in `dir`. None (with a note on stderr) only when root has neither tool.
pub fn as_ordinary_user(dir: &std::path::Path) -> Option<std::process::Command> {
    let binary = std::path::Path::new(env!("CARGO_BIN_EXE_nimsquare"));
    // SAFETY: geteuid has no preconditions and only reads the process's credentials.
    let mut cmd = if unsafe { libc::geteuid() } != 0 {
        std::process::Command::new(binary)
    } else {
        use std::os::unix::fs::PermissionsExt;
        let copy = dir.join("nimsquare-as-user");
        if !copy.exists() {
            std::fs::copy(binary, &copy).unwrap();
        }
        std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o755)).unwrap();
        let found = |tool: &str| {
            ["/usr/bin", "/bin", "/usr/sbin", "/sbin"]
                .iter()
                .map(|d| std::path::Path::new(d).join(tool))
                .find(|p| p.exists())
        };
        if let Some(setpriv) = found("setpriv") {
            let mut cmd = std::process::Command::new(setpriv);
            cmd.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
                .arg(&copy);
            cmd
        } else if let Some(runuser) = found("runuser") {
            let mut cmd = std::process::Command::new(runuser);
            cmd.args(["-u", "nobody", "--"]).arg(&copy);
            cmd
        } else {
            eprintln!(
                "running as root without setpriv or runuser: the ordinary-user case is not run"
            );
            return None;
        }
    };
    cmd.env(nimsquare::run::wisdom::OFF_VARIABLE, "1")
        .env("HOME", dir)
        .current_dir(dir);
    Some(cmd)
}

/// Whether [`as_ordinary_user`] runs the binary as someone else than this process (root).
pub fn switches_user() -> bool {
    // SAFETY: geteuid has no preconditions and only reads the process's credentials.
    unsafe { libc::geteuid() == 0 }
}
