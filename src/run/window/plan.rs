//! Full table or window mode, decided once per octal build before any work: what `--window`
//! asks, and what the memory guard allows.
//!
//! Algorithm: the plan of the whole table is sized first ([`OctalPlan::named_sized`]). It is
//! taken when it fits in the memory available and window mode was not asked for. Past the
//! whole table's [`MAX_LIMIT`] (to [`crate::base::limit::MAX_WINDOW_LIMIT`]) only window
//! mode is considered, asked for or not. Otherwise
//! the build runs in window mode if it can: the back-end reads a table the way the window
//! is shaped for (`auto` or `octal-block`), the code has a sparse space in its first
//! [`PREFIX`] values (built here, a few milliseconds), the window and the back-end's scratch
//! fit in memory, and the values file fits on its disk. Each refusal is one line naming its
//! flag; a table too big for memory that cannot run in window mode is refused as before,
//! with why window mode would not do either.
//!
//! Cost: the prefix's build when window mode is considered; a few reads of /proc and one
//! `statvfs`.
//!
//! Invariant: a window plan's values file did not exist when it was decided, and its disk
//! had room for 2(N + 1) bytes.

use super::spill::PAGE_VALUES;
use super::Window;
use crate::base::error::{Error, Result};
use crate::base::limit::MAX_LIMIT;
use crate::base::memory;
use crate::grundy::Rulebook;
use crate::octal::auto::{self, Choice};
use crate::octal::block::OctalBlock;
use crate::octal::method::rare_common::PREFIX;
use crate::octal::{Builder, OctalPlan, Rules};
use std::path::{Path, PathBuf};

/// What the command line asks of window mode.
#[derive(Debug, Clone, Default)]
pub struct Ask {
    /// `--window`: window mode even when the whole table would fit.
    pub window: bool,
    /// `--window-file FILE`: where the values go (kept at the end); implies `--window`.
    pub file: Option<PathBuf>,
    /// `--window-tail N`: the values kept resident behind the first undecided one, instead
    /// of [`Window::DEFAULT`]'s; implies `--window`. A multiple of [`PAGE_VALUES`] from
    /// [`MIN_TAIL`] up (the command line checks it, [`check_tail`]).
    pub tail: Option<usize>,
    /// A window checkpoint is being resumed: an existing `--window-file` is the one it was
    /// written beside, reopened (and checked) rather than refused.
    pub resuming: bool,
    /// The flags of a full-table run that window mode does not have, set: refused when the
    /// build runs in window mode (`--save-table`, `--load-table`, `--values` with `--json`).
    pub full_only: Vec<&'static str>,
    /// `--plot`: a resumed run draws g(0..k) from the values file it was written beside,
    /// so resuming without that file is refused.
    pub plot: bool,
}

/// How the build keeps its table.
#[derive(Debug, Clone)]
pub enum Mode {
    /// The whole table in memory.
    Full,
    /// Window mode.
    Window(WindowPlan),
}

/// A window-mode build as decided.
#[derive(Debug, Clone)]
pub struct WindowPlan {
    pub window: Window,
    /// The values file, new.
    pub file: PathBuf,
    /// Whether the file stays at the end (named by `--window-file`).
    pub keep_file: bool,
    /// Resident bytes estimated: the window and the back-end's scratch.
    pub memory_needed: u64,
    /// Why window mode: asked for, or the whole table does not fit.
    pub asked: bool,
}

/// The positions of a table whose rare list the scratch estimate of window mode allows for
/// (2^22, a rare list of up to 2^20 entries, 8 MiB): `octal-block` sizes its rare list for
/// the sparse share of every position, which in window mode would count half the table's
/// bytes in memory again, while the codes window mode is for keep a few thousand (Officers
/// 1 584 up to 10^6, and none past n = 20 627). A code whose rare list grows past it uses
/// more memory than the estimate says.
pub const RARE_LIST_POSITIONS: usize = 1 << 22;

/// Decides how to build the table of `rules` to N = `limit` with the back-end named
/// `backend` (see the module doc).
pub fn decide(
    rules: Rules,
    backend: Option<&str>,
    limit: u64,
    ask: &Ask,
) -> Result<(OctalPlan, Mode)> {
    let asked = ask.window || ask.file.is_some() || ask.tail.is_some();
    if let Some(tail) = ask.tail {
        check_tail(tail)?;
    }
    let (plan, mode) = decide_mode(rules, backend, limit, ask, asked)?;
    if let (Mode::Window(w), Some(flag)) = (&mode, ask.full_only.first()) {
        let why = if w.asked {
            "in window mode"
        } else {
            "in window mode, which this N needs (the whole table would not fit in memory)"
        };
        return Err(Error::Invalid(format!(
            "{flag} is not available {why}: it needs the whole table in memory; --window-file FILE keeps the values"
        )));
    }
    Ok((plan, mode))
}

/// [`decide`] before the flags window mode does not have are checked.
fn decide_mode(
    rules: Rules,
    backend: Option<&str>,
    limit: u64,
    ask: &Ask,
    asked: bool,
) -> Result<(OctalPlan, Mode)> {
    if limit > MAX_LIMIT {
        // past the whole table's range only window mode runs: asked for or not, its
        // refusal says why, and without --window also why the whole table will not do
        let plan = OctalPlan::named_sized_window(rules, backend, limit)?;
        return match window_plan(&plan, ask, asked) {
            Ok(w) => Ok((plan, Mode::Window(w))),
            Err(why) if asked => Err(why),
            Err(why) => Err(Error::Invalid(format!(
                "--limit {limit}: past {MAX_LIMIT} only window mode runs, and it cannot run this build ({why}); choose N <= {MAX_LIMIT}"
            ))),
        };
    }
    let plan = OctalPlan::named_sized(rules, backend, limit)?;
    if !asked {
        let full = plan.check_memory();
        if full.is_ok() {
            return Ok((plan, Mode::Full));
        }
        // too big for memory: window mode if it can, else the memory refusal, saying why
        // window mode would not do either
        return match window_plan(&plan, ask, false) {
            Ok(w) => Ok((plan, Mode::Window(w))),
            Err(why) => Err(Error::Invalid(format!(
                "{}; window mode cannot run it either: {why}",
                full.expect_err("refused")
            ))),
        };
    }
    let w = window_plan(&plan, ask, true)?;
    Ok((plan, Mode::Window(w)))
}

/// The window plan of `plan`, or why there is none.
fn window_plan(plan: &OctalPlan, ask: &Ask, asked: bool) -> Result<WindowPlan> {
    let rules = &plan.subject;
    let name = plan.backend.name;
    if name != auto::NAME && name != "octal-block" {
        return Err(Error::Invalid(format!(
            "--window: the back-end {name} reads the whole table for every heap; window mode runs auto or octal-block"
        )));
    }
    sparse_in_prefix(rules)?;
    let window = window_size(ask.tail);
    let threads = rayon::current_num_threads();
    let scratch =
        OctalBlock::DEFAULT.scratch_bytes(rules, plan.limit.min(RARE_LIST_POSITIONS), threads);
    let memory_needed = window.bytes(plan.limit) + scratch;
    memory::check_fits(
        memory_needed,
        memory::available_bytes(),
        &format!(
            "the window-mode build of {} for N = {}",
            rules.describe(),
            plan.limit
        ),
    )?;
    let (file, keep_file) = match &ask.file {
        Some(f) => (f.clone(), true),
        None => (default_file(rules), false),
    };
    let reopened = ask.resuming && keep_file && file.exists();
    if ask.plot && ask.resuming && !reopened {
        return Err(Error::Invalid(
            "--plot: the checkpoint is resumed without the values file it was written beside, so the picture would leave out what the earlier sittings made; resume with their --window-file, or drop --plot".into(),
        ));
    }
    if !reopened {
        check_file(&file, plan.limit)?;
    }
    Ok(WindowPlan {
        window,
        file,
        keep_file,
        memory_needed,
        asked,
    })
}

/// The variable that sets the window to `PREFIX,TAIL` values (page multiples), in a build
/// with the `testing` feature only: how the tests make a run read outside a small window.
pub const WINDOW_VARIABLE: &str = "NIMSQUARE_TEST_WINDOW";

/// The smallest `--window-tail`: 2^16 values, beyond the last rare position of Officers and
/// Grundy's game in every published run, and 32 pages.
pub const MIN_TAIL: usize = 1 << 16;

/// Refuses a `--window-tail` that is not a multiple of [`PAGE_VALUES`] from [`MIN_TAIL`] up
/// to 2^32 values.
pub fn check_tail(tail: usize) -> Result<()> {
    if !(MIN_TAIL..=1 << 32).contains(&tail) || !tail.is_multiple_of(PAGE_VALUES) {
        return Err(Error::Invalid(format!(
            "--window-tail {tail}: give a multiple of {PAGE_VALUES} (a page of values) from {MIN_TAIL} to 2^32, e.g. 2097152"
        )));
    }
    Ok(())
}

/// [`Window::DEFAULT`] with the tail asked for, or in a testing build what
/// [`WINDOW_VARIABLE`] says.
fn window_size(tail: Option<usize>) -> Window {
    #[cfg(feature = "testing")]
    if let Some((p, t)) = std::env::var(WINDOW_VARIABLE).ok().and_then(|v| {
        let (p, t) = v.split_once(',')?;
        Some((p.trim().parse().ok()?, t.trim().parse().ok()?))
    }) {
        return Window { prefix: p, tail: t };
    }
    Window {
        tail: tail.unwrap_or(Window::DEFAULT.tail),
        ..Window::DEFAULT
    }
}

/// Refuses a code without a sparse space in its first [`PREFIX`] values, or with no
/// splitting digit: every heap's options then read the whole table.
fn sparse_in_prefix(rules: &Rules) -> Result<()> {
    let g = crate::octal::build(auto::PREFIX_BACKEND, rules, PREFIX as u64)?;
    let choice = Choice::of(rules, g.values());
    match choice.sparse {
        Some(_) if rules.splits() => Ok(()),
        _ => Err(Error::Invalid(format!(
            "--window: {} has no sparse space in its first {PREFIX} values, so every heap reads the whole table, which window mode keeps on disk",
            rules.label()
        ))),
    }
}

/// The values file of a run that names none: in the temporary folder, named by the code and
/// the process.
fn default_file(rules: &Rules) -> PathBuf {
    std::env::temp_dir().join(format!(
        "nimsquare-window-{}-{}.u16",
        rules.label().replace('.', "_"),
        std::process::id()
    ))
}

/// Refuses a values file that exists, or whose disk has no room for g(0..=limit).
fn check_file(file: &Path, limit: usize) -> Result<()> {
    if file.exists() {
        return Err(Error::Invalid(format!(
            "--window-file: {} exists; name a new file (it is never overwritten)",
            file.display()
        )));
    }
    let folder = match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let need = 2 * (limit as u64 + 1);
    match free_bytes(&folder) {
        None => Err(Error::Invalid(format!(
            "--window-file: cannot reach the folder {}",
            folder.display()
        ))),
        Some(free) if free < need => Err(Error::Invalid(format!(
            "--window-file: {} has {} free, the values need {}; name a file on a larger disk",
            folder.display(),
            memory::human(free),
            memory::human(need)
        ))),
        Some(_) => Ok(()),
    }
}

/// The bytes free to this user on the file system of `folder` (`statvfs`).
fn free_bytes(folder: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(folder.as_os_str().as_bytes()).ok()?;
    // SAFETY: a zeroed statvfs is a valid out-parameter; `path` is a NUL-terminated string
    // that outlives the call, whose return value is checked.
    unsafe {
        let mut s: libc::statvfs = std::mem::zeroed();
        (libc::statvfs(path.as_ptr(), &mut s) == 0).then(|| s.f_bavail as u64 * s.f_frsize as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_mode_is_asked_or_forced_by_memory_and_refused_in_one_line() {
        let officers = Rules::parse("0.6").unwrap();
        let (_, mode) = decide(officers.clone(), None, 100_000, &Ask::default()).unwrap();
        assert!(matches!(mode, Mode::Full));
        let ask = Ask {
            window: true,
            ..Ask::default()
        };
        let (_, mode) = decide(officers.clone(), None, 100_000, &ask).unwrap();
        let Mode::Window(w) = mode else {
            panic!("asked")
        };
        assert!(w.asked && !w.keep_file && !w.file.exists());
        for (code, backend, says) in [
            ("0.346", None, "no sparse space"),
            ("0.07", None, "no sparse space"),
            ("0.6", Some("octal-vector"), "octal-vector"),
        ] {
            let e = decide(Rules::parse(code).unwrap(), backend, 100_000, &ask)
                .err()
                .expect("refused")
                .to_string();
            assert!(
                e.contains(says) && e.contains("--window") && !e.contains('\n'),
                "{e}"
            );
        }
        let taken =
            std::env::temp_dir().join(format!("nimsquare-taken-{}.u16", std::process::id()));
        std::fs::write(&taken, b"x").unwrap();
        let e = decide(
            officers,
            None,
            1000,
            &Ask {
                file: Some(taken.clone()),
                ..Ask::default()
            },
        )
        .err()
        .expect("refused")
        .to_string();
        assert!(e.contains("--window-file") && e.contains("exists"), "{e}");
        std::fs::remove_file(&taken).unwrap();
    }

    #[test]
    fn past_the_whole_tables_maximum_only_window_mode_runs() {
        let past = MAX_LIMIT + 1;
        let officers = Rules::parse("0.6").unwrap();
        // chosen by itself, when the disk has room for the values file (2^33 bytes)
        let room = free_bytes(&std::env::temp_dir()).unwrap() >= 2 * (past + 1);
        match decide(officers.clone(), None, past, &Ask::default()) {
            Ok((plan, Mode::Window(w))) => {
                assert!(room && !w.asked && plan.limit == 1 << 32);
            }
            Ok((_, Mode::Full)) => panic!("a whole table past {MAX_LIMIT}"),
            Err(e) => assert!(!room && e.to_string().contains("--window-file"), "{e}"),
        }
        let window = Ask {
            window: true,
            ..Ask::default()
        };
        for (code, backend, ask, says) in [
            ("0.07", None, &Ask::default(), "no sparse space"),
            ("0.07", None, &window, "no sparse space"),
            ("0.6", Some("octal-vector"), &Ask::default(), "octal-vector"),
        ] {
            let e = decide(Rules::parse(code).unwrap(), backend, past, ask)
                .err()
                .expect("refused")
                .to_string();
            assert!(e.contains(says) && !e.contains('\n'), "{e}");
            if !ask.window {
                assert!(
                    e.contains("--limit 4294967296") && e.contains("4294967295"),
                    "{e}"
                );
            }
        }
        let e = decide(officers, None, 1 << 40, &window)
            .err()
            .expect("refused")
            .to_string();
        assert!(e.contains("1099511627775"), "{e}");
    }
}
