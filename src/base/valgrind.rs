//! Counted stages: the one stage a run under Valgrind's Callgrind should count, marked in the
//! program itself with Valgrind's client requests.
//!
//! A counted comparison (`compare --metric instructions`, the counting bench, CI's count gate)
//! runs the binary as `valgrind --tool=callgrind --instr-atstart=no` with [`STAGE_ENV`] naming
//! a stage (`table`, `count`, `build`, `cold`). The program runs uninstrumented (nothing
//! counted: start-up, argument parsing, planning, file checks) until it enters the stage of
//! that name through [`stage`], which asks Callgrind to start instrumenting and, when the stage
//! returns, to stop: the totals Callgrind writes at exit are the stage's alone, on every
//! thread, since instrumentation is switched for the whole process (Callgrind's per-thread
//! "collect" toggle would miss the rayon workers that do the work).
//!
//! Natively a client request is six no-op instructions (four `rol`s that sum to 128 bits and
//! an `xchg rbx, rbx`) whose result is the default value given, so [`stage`] costs nothing
//! outside Valgrind; and without [`STAGE_ENV`] it issues no request at all. The request
//! codes are Valgrind's (`valgrind.h`: `RUNNING_ON_VALGRIND` is 0x1001; `callgrind.h`: the
//! tool base `'C' << 24 | 'T' << 16`, then `DUMP_STATS`, `ZERO_STATS`, `TOGGLE_COLLECT`,
//! `DUMP_STATS_AT`, `START_INSTRUMENTATION`, `STOP_INSTRUMENTATION` in that order). Only
//! x86-64 issues them; elsewhere every request returns its default.

use std::sync::OnceLock;
use std::time::Instant;

/// The environment variable naming the one stage to count: `table`, `count`, `build` or
/// `cold` (see [`Stage`]). Unset or empty: no stage is marked.
pub const STAGE_ENV: &str = "NIMSQUARE_COUNTED_STAGE";

/// A stage a command runs, by the name [`STAGE_ENV`] takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// `solve`'s table of a subtraction game (its checkpoints and progress included).
    Table,
    /// `solve`'s count of the sorted tuples whose values xor to zero.
    Count,
    /// `build`'s (and `octal`'s) table of any workload.
    Build,
    /// `solve --heaps 1`: the win/lose sieve.
    Cold,
}

impl Stage {
    /// Every stage, in the order of the names [`STAGE_ENV`] lists in its refusal.
    pub const ALL: [Stage; 4] = [Stage::Table, Stage::Count, Stage::Build, Stage::Cold];

    /// The name [`STAGE_ENV`] takes.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Table => "table",
            Stage::Count => "count",
            Stage::Build => "build",
            Stage::Cold => "cold",
        }
    }

    /// The stage called `name`, if any.
    pub fn parse(name: &str) -> Option<Stage> {
        Stage::ALL.into_iter().find(|s| s.name() == name.trim())
    }
}

/// The stage [`STAGE_ENV`] names, read once (a name that is no stage marks none: the count
/// then comes out zero, which the runner refuses as "no stage was counted").
fn counted_stage() -> Option<Stage> {
    static STAGE: OnceLock<Option<Stage>> = OnceLock::new();
    *STAGE.get_or_init(|| std::env::var(STAGE_ENV).ok().and_then(|s| Stage::parse(&s)))
}

/// True when this run is counted (a stage is named by [`STAGE_ENV`]): what depends on the
/// clock (the chunks of a long run are sized by the rate of the last one) then takes a fixed
/// value instead, so that the instructions counted do not move with Valgrind's speed.
pub fn counting() -> bool {
    counted_stage().is_some()
}

/// Runs `body` as the stage `stage` and returns its result with its wall-clock seconds; when
/// [`STAGE_ENV`] names this stage, Callgrind instruments exactly `body` (started just before
/// it, stopped just after). Stages may repeat (a chunked build): the counts add up.
pub fn stage<R>(stage: Stage, body: impl FnOnce() -> R) -> (R, f64) {
    let counted = counted_stage() == Some(stage);
    if counted {
        request::start_instrumentation();
    }
    let started = Instant::now();
    let out = body();
    let seconds = started.elapsed().as_secs_f64();
    if counted {
        request::stop_instrumentation();
    }
    (out, seconds)
}

/// True when this process runs under Valgrind (any tool).
pub fn running_on_valgrind() -> bool {
    request::running_on_valgrind() != 0
}

/// The raw client requests.
mod request {
    /// `VG_USERREQ__RUNNING_ON_VALGRIND` (valgrind.h).
    const RUNNING_ON_VALGRIND: usize = 0x1001;
    /// `VG_USERREQ_TOOL_BASE('C', 'T')` (callgrind.h).
    const CALLGRIND_BASE: usize = ((b'C' as usize) << 24) | ((b'T' as usize) << 16);
    /// `VG_USERREQ__START_INSTRUMENTATION`: the fifth Callgrind request.
    pub(super) const START_INSTRUMENTATION: usize = CALLGRIND_BASE + 4;
    /// `VG_USERREQ__STOP_INSTRUMENTATION`: the sixth.
    pub(super) const STOP_INSTRUMENTATION: usize = CALLGRIND_BASE + 5;

    /// Valgrind's number of the nesting depth (0 natively).
    pub fn running_on_valgrind() -> usize {
        client_request(0, RUNNING_ON_VALGRIND, [0; 5])
    }

    pub fn start_instrumentation() {
        client_request(0, START_INSTRUMENTATION, [0; 5]);
    }

    pub fn stop_instrumentation() {
        client_request(0, STOP_INSTRUMENTATION, [0; 5]);
    }

    /// Valgrind's client request `request` with its five arguments: the special instruction
    /// sequence of valgrind.h for amd64, which Valgrind recognises and answers in `rdx`;
    /// natively it leaves every register as it was, so the answer is `default`.
    #[cfg(target_arch = "x86_64")]
    pub(super) fn client_request(default: usize, request: usize, args: [usize; 5]) -> usize {
        let block: [usize; 6] = [request, args[0], args[1], args[2], args[3], args[4]];
        let mut result = default;
        // SAFETY: the four rotations of rdi add up to 128 bits (rdi comes back unchanged,
        // and is declared clobbered all the same) and `xchg rbx, rbx` changes nothing, so
        // natively the sequence has no effect; under Valgrind it reads the six words of
        // `block` (alive and initialised for the whole statement, hence no `nomem`) and
        // writes only rdx.
        unsafe {
            std::arch::asm!(
                "rol rdi, 3",
                "rol rdi, 13",
                "rol rdi, 61",
                "rol rdi, 51",
                "xchg rbx, rbx",
                inout("rdx") result,
                in("rax") block.as_ptr(),
                out("rdi") _,
                options(nostack, preserves_flags),
            );
        }
        result
    }

    #[cfg(not(target_arch = "x86_64"))]
    pub(super) fn client_request(default: usize, _request: usize, _args: [usize; 5]) -> usize {
        default
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn natively_a_request_answers_its_default_and_a_stage_runs_its_body_once() {
        // Under Valgrind this test is not run (the counted runs are the CLI tests'), so the
        // request's answer is the default we pass.
        assert_eq!(request::client_request(7, 0x1001, [1, 2, 3, 4, 5]), 7);
        assert!(!running_on_valgrind());
        let mut calls = 0;
        let (value, seconds) = stage(Stage::Table, || {
            calls += 1;
            42
        });
        assert_eq!((value, calls), (42, 1));
        assert!(seconds >= 0.0);
    }

    #[test]
    fn stage_names_round_trip_and_strangers_are_none() {
        for s in Stage::ALL {
            assert_eq!(Stage::parse(s.name()), Some(s));
        }
        assert_eq!(Stage::parse(" build\n"), Some(Stage::Build));
        assert_eq!(Stage::parse("tables"), None);
        assert_eq!(Stage::parse(""), None);
    }

    #[test]
    fn the_request_codes_are_callgrinds() {
        // callgrind.h: VG_USERREQ_TOOL_BASE('C','T') = ('C' & 0xff) << 24 | ('T' & 0xff) << 16.
        assert_eq!(request::START_INSTRUMENTATION, 0x4354_0004);
        assert_eq!(request::STOP_INSTRUMENTATION, 0x4354_0005);
    }
}
