//! Real signals during a long run, in a test binary of their own: the signal flag is
//! process-wide, so the runs of `tests/longrun.rs` must not see it.

mod common;

use nimsquare::base::moves::Moves;
use nimsquare::grundy::Builder;
use nimsquare::run::longrun::{self, tablefile, LongRun, Outcome, Signal, Start};
use nimsquare::table::Stamped;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The current disposition of `sig` is the default one.
fn is_default(sig: libc::c_int) -> bool {
    // SAFETY: a zeroed sigaction is a valid out-parameter; a null new action only queries.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        assert_eq!(libc::sigaction(sig, std::ptr::null(), &mut old), 0);
        old.sa_sigaction == libc::SIG_DFL
    }
}

#[test]
fn a_signal_stops_the_run_after_its_chunk_and_keeps_a_checkpoint() {
    let dir = common::Scratch::new(format!("nimsquare-signals-{}", std::process::id()));
    let moves = Moves::Squares;
    let limit = 300_000;
    let expected = nimsquare::table::build("stamped", &moves, limit as u64).unwrap();
    for (sig, which, code) in [
        (libc::SIGINT, Signal::Int, 130),
        (libc::SIGTERM, Signal::Term, 143),
    ] {
        // A test binary started in the background of a non-interactive shell inherits
        // SIGINT ignored; this test is about the default disposition, so it starts there.
        // SAFETY: SIG_DFL is a valid disposition for these signals; nothing else in this
        // test binary handles them.
        unsafe {
            libc::signal(sig, libc::SIG_DFL);
        }
        assert!(is_default(sig));
        let path = dir.join(format!("ck-{sig}.tbl"));
        let (out, second_end) = run_raising_in_second_chunk(&moves, limit, sig, &path);
        assert_eq!(
            out,
            Outcome::Interrupted {
                signal: Some(which),
                done: second_end,
                checkpoint: Some(path.clone())
            }
        );
        assert_eq!(128 + which.number(), code);
        // After Ctrl-C the default is back (a second one kills); after SIGTERM, which arrived
        // twice here, the handler stays so that a launcher's repeated SIGTERM cannot kill
        // the stopping process before it reports.
        assert_eq!(
            is_default(sig),
            sig == libc::SIGINT,
            "the guard restores the default disposition of SIGINT only"
        );
        assert_eq!(
            longrun::interrupted(),
            Some(which),
            "the flag stays readable after the run"
        );
        let ck = tablefile::read(&path).unwrap();
        assert_eq!(ck.done as usize, second_end);
        assert_eq!(ck.values[..], expected.values()[..second_end]);
        resume_finishes(&moves, limit, &path, expected.values());
    }
}

/// Runs the table with a checkpoint at `path`, raising `sig` during the second chunk; returns
/// the outcome and where the second chunk ended.
fn run_raising_in_second_chunk(
    moves: &Moves,
    limit: usize,
    sig: libc::c_int,
    path: &Path,
) -> (Outcome, usize) {
    let calls = AtomicUsize::new(0);
    let ends = std::sync::Mutex::new(Vec::new());
    let fill = |g: &mut [u16], from: usize, _: u16| {
        if calls.fetch_add(1, Ordering::SeqCst) == 1 {
            // SIGTERM comes twice, as Open MPI's mpirun sends it (to the process and to its
            // group): the second must not kill this test binary.
            let times = if sig == libc::SIGTERM { 2 } else { 1 };
            for _ in 0..times {
                // SAFETY: raising a signal whose handler the driver installed.
                assert_eq!(unsafe { libc::raise(sig) }, 0);
            }
        }
        Stamped.fill(moves, g, from)?;
        ends.lock().unwrap().push(g.len());
        Ok(())
    };
    let opts = LongRun {
        checkpoint: Some(path.to_path_buf()),
        quiet: true,
        chunk_target: std::time::Duration::from_millis(5),
        ..LongRun::default()
    };
    let out = longrun::try_run_fill(moves, limit, Start::Fresh, &fill, &opts).unwrap();
    let second_end = ends.lock().unwrap()[1];
    (out, second_end)
}

/// Resumes from the checkpoint at `path` and checks the run finishes with `expected`, the
/// signal flag of the interrupted run cleared.
fn resume_finishes(moves: &Moves, limit: usize, path: &Path, expected: &[u16]) {
    let start = longrun::start_from_files(moves, limit, Some(path), None).unwrap();
    let resume = LongRun {
        checkpoint: Some(path.to_path_buf()),
        quiet: true,
        ..LongRun::default()
    };
    let fill = |g: &mut [u16], from: usize, _: u16| Stamped.fill(moves, g, from);
    match longrun::try_run_fill(moves, limit, start, &fill, &resume).unwrap() {
        Outcome::Finished(g) => assert_eq!(g, expected),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        longrun::interrupted(),
        None,
        "a new run starts with the flag cleared"
    );
}
