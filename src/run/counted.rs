//! Counted runs: one command under Valgrind's Callgrind, its counts read back.
//!
//! What a counted run counts is the marked stage alone ([`crate::base::valgrind`]): the
//! command runs with `--instr-atstart=no` and [`STAGE_ENV`] naming the stage, so Callgrind
//! instruments only from the stage's start to its end, on every thread. The whole process
//! (start-up and exit included) is counted instead when no stage is given, which is how a
//! build that marks no stage (made before counted stages existed) is still counted.
//!
//! Counts are instructions (Callgrind's `Ir`) and, for the cache metrics, the simulated data
//! reads and writes and their misses in the first-level data cache and the last-level cache
//! (`Dr Dw D1mr D1mw DLmr DLmw`). The simulated caches have one fixed geometry,
//! [`CACHE_GEOMETRY`], on every machine: Valgrind's own reading of these virtual machines'
//! caches varies from one kind to another and is not always believable, and a count that
//! moves with the machine could not be compared with a baseline.
//!
//! Valgrind 3.19 cannot run AVX-512 instructions; the caller chooses a path it runs
//! ([`path_under_valgrind`]). Cost: Callgrind runs a program about 30 to 100 times slower
//! than natively; the uninstrumented part faster than that.

use crate::base::error::{Error, Result};
use crate::base::isa::Isa;
pub use crate::base::valgrind::{Stage, STAGE_ENV};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The simulated caches: 32 KiB 8-way first-level caches and a 32 MiB 16-way last-level
/// cache, 64-byte lines: a typical server core's L1 and one socket's L3 of the project's
/// machine kinds, the same on all of them. Valgrind's options, in order.
pub const CACHE_GEOMETRY: [&str; 3] = ["--I1=32768,8,64", "--D1=32768,8,64", "--LL=33554432,16,64"];

/// The same geometry in words, for reports.
pub const CACHE_GEOMETRY_WORDS: &str = "D1 32 KiB 8-way, LL 32 MiB 16-way, 64-byte lines";

/// What a counted comparison counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// Instructions executed (`Ir`).
    Instructions,
    /// Data reads, one per load instruction whatever its width (`Dr`).
    Reads,
    /// Data writes, one per store instruction whatever its width (`Dw`).
    Writes,
    /// Simulated first-level data-cache misses, reads and writes (`D1mr + D1mw`).
    D1Misses,
    /// Simulated last-level cache misses of data, reads and writes (`DLmr + DLmw`): what
    /// went to memory.
    LlMisses,
}

impl Metric {
    /// Every counted metric, in the order `--metric` lists them.
    pub const ALL: [Metric; 5] = [
        Metric::Instructions,
        Metric::Reads,
        Metric::Writes,
        Metric::D1Misses,
        Metric::LlMisses,
    ];

    /// The name `--metric` takes and the reports print.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Instructions => "instructions",
            Metric::Reads => "reads",
            Metric::Writes => "writes",
            Metric::D1Misses => "d1-misses",
            Metric::LlMisses => "ll-misses",
        }
    }

    /// The metric called `name`; `cache` is [`Metric::LlMisses`].
    pub fn parse(name: &str) -> Option<Metric> {
        match name.trim() {
            "cache" => Some(Metric::LlMisses),
            name => Metric::ALL.into_iter().find(|m| m.name() == name),
        }
    }

    /// True when the metric needs the cache simulation (about twice Callgrind's time).
    pub fn needs_cache_sim(self) -> bool {
        self != Metric::Instructions
    }

    /// Its value in `counts` (None when the run did not simulate caches).
    pub fn of(self, counts: &Counts) -> Option<u64> {
        let cache = counts.cache.as_ref();
        match self {
            Metric::Instructions => Some(counts.instructions),
            Metric::Reads => cache.map(|c| c.reads),
            Metric::Writes => cache.map(|c| c.writes),
            Metric::D1Misses => cache.map(|c| c.d1_read_misses + c.d1_write_misses),
            Metric::LlMisses => cache.map(|c| c.ll_read_misses + c.ll_write_misses),
        }
    }
}

/// The counts of one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Counts {
    /// Instructions executed.
    pub instructions: u64,
    /// The data accesses, present when the caches were simulated.
    pub cache: Option<CacheCounts>,
}

/// The simulated data accesses of one run ([`CACHE_GEOMETRY`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct CacheCounts {
    pub reads: u64,
    pub writes: u64,
    pub d1_read_misses: u64,
    pub d1_write_misses: u64,
    pub ll_read_misses: u64,
    pub ll_write_misses: u64,
}

/// Reads the counts from the text of a Callgrind output file: its `events:` line names the
/// columns of its `totals:` line (`summary:` when there is no totals line: with
/// instrumentation switched on and off, Callgrind 3.19 writes `summary: 0` beside the real
/// totals). Refuses a file without them, or a line whose numbers do not match the names.
pub fn parse_callgrind_out(text: &str) -> Result<Counts> {
    let field = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key))
            .map(str::split_whitespace)
    };
    let names: Vec<&str> = field("events:")
        .ok_or_else(|| Error::Invalid("the Callgrind output has no 'events:' line".into()))?
        .collect();
    let values: Vec<&str> = field("totals:")
        .or_else(|| field("summary:"))
        .ok_or_else(|| Error::Invalid("the Callgrind output has no 'totals:' line".into()))?
        .collect();
    // Callgrind leaves out trailing zero columns.
    if values.len() > names.len() {
        return Err(Error::Invalid(format!(
            "the Callgrind summary has {} numbers for {} events",
            values.len(),
            names.len()
        )));
    }
    let get = |name: &str| -> Result<Option<u64>> {
        let Some(i) = names.iter().position(|n| *n == name) else {
            return Ok(None);
        };
        match values.get(i) {
            None => Ok(Some(0)),
            Some(v) => v.parse::<u64>().map(Some).map_err(|_| {
                Error::Invalid(format!(
                    "the Callgrind summary's {name} is not a count: '{v}'"
                ))
            }),
        }
    };
    let instructions = get("Ir")?.ok_or_else(|| {
        Error::Invalid("the Callgrind output does not count instructions (no Ir event)".into())
    })?;
    let cache = match get("Dr")? {
        None => None,
        Some(reads) => Some(CacheCounts {
            reads,
            writes: get("Dw")?.unwrap_or(0),
            d1_read_misses: get("D1mr")?.unwrap_or(0),
            d1_write_misses: get("D1mw")?.unwrap_or(0),
            ll_read_misses: get("DLmr")?.unwrap_or(0),
            ll_write_misses: get("DLmw")?.unwrap_or(0),
        }),
    };
    Ok(Counts {
        instructions,
        cache,
    })
}

/// The vector path a run under Valgrind takes: `requested` when Valgrind runs it, else the
/// refusal naming the one it does; without a request, the widest path this CPU has that
/// Valgrind 3.19 runs (AVX2 at most).
pub fn path_under_valgrind(requested: Option<Isa>) -> Result<Isa> {
    match requested {
        Some(Isa::Avx512) => Err(Error::Invalid(
            "the avx512 path cannot be counted: Valgrind 3.19 has no AVX-512 (count @avx2, the widest path it runs)".into(),
        )),
        Some(isa) => Ok(isa),
        None => Ok(Isa::supported_all()
            .into_iter()
            .filter(|&i| i <= Isa::Avx2)
            .max()
            .unwrap_or(Isa::Scalar)),
    }
}

/// Valgrind, found on this machine.
#[derive(Debug, Clone)]
pub struct Valgrind {
    /// The program run (`valgrind`, or [`VALGRIND_ENV`]'s path).
    pub program: PathBuf,
    /// What `valgrind --version` printed (`valgrind-3.19.0`).
    pub version: String,
}

/// An environment variable that names the Valgrind program to run (default `valgrind` on
/// the PATH): for a Valgrind built elsewhere, and for the tests of its absence.
pub const VALGRIND_ENV: &str = "NIMSQUARE_VALGRIND";

/// How one counted run is made.
#[derive(Debug, Clone)]
pub struct Counting {
    /// The stage counted, or None for the whole process.
    pub stage: Option<Stage>,
    /// Simulate the caches ([`CACHE_GEOMETRY`]).
    pub cache_sim: bool,
}

/// What one counted run gave: its output (Valgrind's own lines are not in its stderr) and
/// its counts.
#[derive(Debug)]
pub struct CountedRun {
    pub output: Output,
    pub counts: Counts,
}

impl Valgrind {
    /// Finds Valgrind by running `valgrind --version`, or refuses in one line that names the
    /// package to install.
    pub fn find() -> Result<Valgrind> {
        let program = std::env::var_os(VALGRIND_ENV)
            .filter(|p| !p.is_empty())
            .map_or_else(|| PathBuf::from("valgrind"), PathBuf::from);
        let refused = |why: String| {
            Error::Invalid(format!(
                "a counted metric runs the program under Valgrind, and {why}; install it (Debian: apt-get install valgrind) or count with --metric time"
            ))
        };
        let output = Command::new(&program)
            .arg("--version")
            .stdin(Stdio::null())
            .output()
            .map_err(|e| refused(format!("'{}' cannot be run ({e})", program.display())))?;
        let version = String::from_utf8_lossy(&output.stdout).trim().to_string();
        if !output.status.success() || !version.starts_with("valgrind-") {
            return Err(refused(format!(
                "'{}' is not Valgrind (its --version printed '{version}')",
                program.display()
            )));
        }
        Ok(Valgrind { program, version })
    }

    /// The command that runs `program args` under Callgrind as `how` says, writing its
    /// output file to `out_file` and its own messages to `log_file`.
    pub fn command(
        &self,
        how: &Counting,
        program: &Path,
        args: &[String],
        out_file: &Path,
        log_file: &Path,
    ) -> Command {
        let mut cmd = Command::new(&self.program);
        cmd.arg("--tool=callgrind")
            .arg(format!("--callgrind-out-file={}", out_file.display()))
            .arg(format!("--log-file={}", log_file.display()))
            .arg(format!(
                "--instr-atstart={}",
                if how.stage.is_some() { "no" } else { "yes" }
            ))
            .arg(format!(
                "--cache-sim={}",
                if how.cache_sim { "yes" } else { "no" }
            ));
        if how.cache_sim {
            cmd.args(CACHE_GEOMETRY);
        }
        cmd.arg(program).args(args).stdin(Stdio::null());
        match how.stage {
            Some(stage) => cmd.env(STAGE_ENV, stage.name()),
            None => cmd.env_remove(STAGE_ENV),
        };
        cmd
    }

    /// Runs `program args` under Callgrind as `how` says and reads its counts. A run that
    /// fails is refused with the last line it (or Valgrind) wrote; a stage counted as
    /// zero instructions is refused too (the program marks no such stage: a build from
    /// before counted stages, or a stage this command does not run).
    pub fn run(&self, how: &Counting, program: &Path, args: &[String]) -> Result<CountedRun> {
        let dir = tempfile::tempdir().map_err(|e| {
            Error::Invalid(format!("cannot make a folder for Valgrind's output: {e}"))
        })?;
        let out_file = dir.path().join("callgrind.out");
        let log_file = dir.path().join("valgrind.log");
        let output = self
            .command(how, program, args, &out_file, &log_file)
            .output()
            .map_err(|e| Error::Invalid(format!("cannot run {}: {e}", self.program.display())))?;
        let log = std::fs::read_to_string(&log_file).unwrap_or_default();
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let why = last_line(&stderr)
                .or_else(|| last_line(&log))
                .unwrap_or("no message");
            return Err(Error::Invalid(format!(
                "{} under Valgrind failed ({}): {why}",
                program.display(),
                output.status
            )));
        }
        let text = std::fs::read_to_string(&out_file).map_err(|e| {
            Error::Invalid(format!(
                "Valgrind wrote no Callgrind output ({e}): {}",
                last_line(&log).unwrap_or("no message")
            ))
        })?;
        let counts = parse_callgrind_out(&text)?;
        if let (Some(stage), 0) = (how.stage, counts.instructions) {
            return Err(Error::Invalid(format!(
                "{} counted no instruction in its {} stage: it marks no such stage (a build from before counted stages?); count the whole process with --measure wall",
                program.display(),
                stage.name()
            )));
        }
        Ok(CountedRun { output, counts })
    }
}

/// The last non-empty line of `text`.
fn last_line(text: &str) -> Option<&str> {
    text.lines().rev().map(str::trim).find(|l| !l.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The head of a real Callgrind output file (valgrind 3.19, `--cache-sim=yes`).
    const WITH_CACHE: &str = "version: 1\ncreator: callgrind-3.19.0\npid: 4272\n\
part: 1\ndesc: I1 cache: 32768 B, 64 B, 8-way associative\n\
desc: Trigger: Program termination\npositions: line\n\
events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\n\
summary: 5407106 957767 378523 9203 11841 10231 7128 4884 6686\n\
totals: 5407104 957767 378523 9202 11841 10231 7127 4884 6686\n";

    #[test]
    fn counts_are_read_by_the_names_of_the_events_line() {
        let c = parse_callgrind_out(WITH_CACHE).unwrap();
        assert_eq!(c.instructions, 5_407_104);
        let cache = c.cache.unwrap();
        assert_eq!((cache.reads, cache.writes), (957_767, 378_523));
        assert_eq!(
            (cache.d1_read_misses, cache.d1_write_misses),
            (11_841, 10_231)
        );
        // A stage counted with instrumentation switched on: the summary says 0, the totals
        // hold the count.
        let staged = parse_callgrind_out("events: Ir\nsummary: 0\ntotals: 111939491\n").unwrap();
        assert_eq!(staged.instructions, 111_939_491);
        assert_eq!(
            (cache.ll_read_misses, cache.ll_write_misses),
            (4_884, 6_686)
        );
        assert_eq!(Metric::D1Misses.of(&c), Some(22_072));
        assert_eq!(Metric::LlMisses.of(&c), Some(11_570));
        assert_eq!(Metric::Writes.of(&c), Some(378_523));
        // Instructions alone: no cache counts, and a cache metric has no value.
        let c = parse_callgrind_out("events: Ir\nsummary: 113300943\n").unwrap();
        assert_eq!((c.instructions, c.cache), (113_300_943, None));
        assert_eq!(Metric::Writes.of(&c), None);
        // The order of the names decides, and missing trailing columns are zero.
        let c = parse_callgrind_out("events: Dr Ir Dw\ntotals: 5 7\n").unwrap();
        assert_eq!(c.instructions, 7);
        assert_eq!(c.cache.unwrap().writes, 0);
    }

    #[test]
    fn damaged_output_is_refused() {
        for (text, says) in [
            ("summary: 1\n", "no 'events:'"),
            ("events: Ir\n", "no 'totals:'"),
            ("events: Ir\nsummary: 1 2\n", "2 numbers for 1 events"),
            ("events: Ir\nsummary: x\n", "not a count"),
            ("events: Dr\nsummary: 1\n", "no Ir event"),
        ] {
            let e = parse_callgrind_out(text).unwrap_err().to_string();
            assert!(e.contains(says), "{text:?}: {e}");
        }
    }

    #[test]
    fn metrics_parse_by_name_and_cache_means_last_level_misses() {
        for m in Metric::ALL {
            assert_eq!(Metric::parse(m.name()), Some(m));
        }
        assert_eq!(Metric::parse("cache"), Some(Metric::LlMisses));
        assert_eq!(Metric::parse("time"), None);
        assert!(!Metric::Instructions.needs_cache_sim() && Metric::Writes.needs_cache_sim());
    }

    #[test]
    fn avx512_is_refused_and_the_default_path_is_one_valgrind_runs() {
        let e = path_under_valgrind(Some(Isa::Avx512))
            .unwrap_err()
            .to_string();
        assert!(e.contains("@avx2"), "{e}");
        assert_eq!(path_under_valgrind(Some(Isa::Scalar)).unwrap(), Isa::Scalar);
        let default = path_under_valgrind(None).unwrap();
        assert!(default <= Isa::Avx2 && default.on_cpu());
    }

    #[test]
    fn a_stage_is_counted_from_its_start_and_the_whole_process_from_the_first_instruction() {
        let vg = Valgrind {
            program: "valgrind".into(),
            version: "valgrind-3.19.0".into(),
        };
        let args = |how: &Counting| -> Vec<String> {
            let cmd = vg.command(
                how,
                Path::new("prog"),
                &["x".into()],
                "o".as_ref(),
                "l".as_ref(),
            );
            cmd.get_args().map(|a| a.to_string_lossy().into()).collect()
        };
        let staged = Counting {
            stage: Some(Stage::Table),
            cache_sim: true,
        };
        let a = args(&staged);
        assert!(a.contains(&"--instr-atstart=no".to_string()), "{a:?}");
        assert!(a.contains(&"--D1=32768,8,64".to_string()), "{a:?}");
        assert_eq!(&a[a.len() - 2..], ["prog", "x"]);
        let whole = Counting {
            stage: None,
            cache_sim: false,
        };
        let a = args(&whole);
        assert!(a.contains(&"--instr-atstart=yes".to_string()), "{a:?}");
        assert!(!a.iter().any(|x| x.starts_with("--D1")), "{a:?}");
    }

    #[test]
    fn a_missing_valgrind_is_refused_naming_the_package() {
        // A path that runs nothing stands for a machine without Valgrind (no other test
        // reads the variable).
        std::env::set_var(VALGRIND_ENV, "/nonexistent/valgrind");
        let e = Valgrind::find().unwrap_err().to_string();
        std::env::remove_var(VALGRIND_ENV);
        assert!(e.contains("apt-get install valgrind"), "{e}");
    }
}
