//! The instruction-set path the vector kernels take, chosen once per process at run time.
//!
//! The build targets baseline x86-64, so wider instructions are only used through functions
//! compiled with `#[target_feature]` and called after the CPU has been asked
//! (`is_x86_feature_detected!`). Every kernel keeps four paths:
//!
//! - [`Isa::Scalar`]: one element a step, the twin every other path is tested against;
//! - [`Isa::Portable`]: the `wide` crate's fixed-width types, on baseline SSE2 (what the
//!   kernels were before runtime dispatch);
//! - [`Isa::Avx2`]: 256-bit AVX2 (with BMI1/BMI2);
//! - [`Isa::Avx512`]: 512-bit AVX-512 F, BW and VL.
//!
//! The process starts on [`Isa::best`] and `--isa` may force another; [`active`] is what a
//! kernel asks (one relaxed atomic load, so dispatch costs nothing beside a kernel call).
//! Forcing a path the CPU lacks is refused by [`force`], so no `#[target_feature]` function
//! can ever run on a CPU without the feature.
//!
//! A cap presents FEWER paths than the CPU has, never more: [`Isa::supported`] is the CPU's
//! answer AND "at most the cap", so the kernels' safety (they run only on a path the CPU has)
//! does not depend on it. The cap comes from the environment variable [`CAP_ENV`]
//! (`NIMSQUARE_ISA_CAP=avx2` makes an AVX-512 machine look like an AVX2 one, for the binary,
//! the tests and the benches alike; the binary refuses a bad value through [`cap_from_env`])
//! or, in tests, from `capped`. It is how the refusal of a missing path and `auto`'s
//! fallback are tested on every machine.

use crate::base::error::{Error, Result};
use std::sync::atomic::{AtomicU8, Ordering};

/// A vector path of the kernels, narrowest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Isa {
    /// One element a step: the reference twin.
    Scalar,
    /// The `wide` crate on the baseline target (SSE2 on x86-64).
    Portable,
    /// AVX2 with BMI1/BMI2, 256 bits.
    Avx2,
    /// AVX-512 F/BW/VL, 512 bits.
    Avx512,
}

impl Isa {
    /// Every path, narrowest first.
    pub const ALL: [Isa; 4] = [Isa::Scalar, Isa::Portable, Isa::Avx2, Isa::Avx512];

    /// The name `--isa` takes and the outputs print.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Scalar => "scalar",
            Isa::Portable => "portable",
            Isa::Avx2 => "avx2",
            Isa::Avx512 => "avx512",
        }
    }

    /// The path called `name` (`scalar`, `portable`, `avx2`, `avx512`); `auto` is
    /// [`Isa::best`]. Does not check that the CPU has it ([`force`] does).
    pub fn parse(name: &str) -> Result<Isa> {
        let name = name.trim().to_ascii_lowercase();
        if name == "auto" {
            return Ok(Isa::best());
        }
        Isa::ALL
            .into_iter()
            .find(|isa| isa.name() == name)
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "--isa takes scalar, portable, avx2, avx512 or auto, got '{}'",
                    name.escape_debug()
                ))
            })
    }

    /// True when this CPU can run the path and the cap ([`CAP_ENV`], `capped`) does not
    /// hide it.
    pub fn supported(self) -> bool {
        self <= cap() && self.on_cpu()
    }

    /// True when this CPU can run the path, whatever the cap says.
    pub fn on_cpu(self) -> bool {
        match self {
            Isa::Scalar | Isa::Portable => true,
            Isa::Avx2 => has_avx2(),
            Isa::Avx512 => has_avx512(),
        }
    }

    /// The widest path this CPU supports.
    pub fn best() -> Isa {
        *Isa::ALL
            .iter()
            .rev()
            .find(|isa| isa.supported())
            .expect("scalar is always supported")
    }

    /// Every path this CPU supports, narrowest first: what the tests and the bench matrix
    /// run side by side.
    pub fn supported_all() -> Vec<Isa> {
        Isa::ALL.into_iter().filter(|isa| isa.supported()).collect()
    }

    fn code(self) -> u8 {
        self as u8 + 1
    }

    fn from_code(code: u8) -> Option<Isa> {
        Isa::ALL.get((code as usize).checked_sub(1)?).copied()
    }
}

impl std::fmt::Display for Isa {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(target_arch = "x86_64")]
fn has_avx2() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("bmi1")
        && std::arch::is_x86_feature_detected!("bmi2")
}

#[cfg(not(target_arch = "x86_64"))]
fn has_avx2() -> bool {
    false
}

#[cfg(target_arch = "x86_64")]
fn has_avx512() -> bool {
    has_avx2()
        && std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512bw")
        && std::arch::is_x86_feature_detected!("avx512vl")
}

#[cfg(not(target_arch = "x86_64"))]
fn has_avx512() -> bool {
    false
}

/// The forced path, or 0 for "not forced: [`Isa::best`]".
static FORCED: AtomicU8 = AtomicU8::new(0);

/// The path the kernels take now: the one [`force`]d last, else [`Isa::best`].
#[inline]
pub fn active() -> Isa {
    #[cfg(any(test, feature = "testing"))]
    ACTIVE_READS.fetch_add(1, Ordering::Relaxed);
    Isa::from_code(FORCED.load(Ordering::Relaxed)).unwrap_or_else(Isa::best)
}

/// How many times [`active`] was read (test builds only): a back-end follows `--isa`
/// exactly when a run of it reads the path, which the contract test holds against the
/// kernel families its registry entry declares.
#[cfg(any(test, feature = "testing"))]
pub static ACTIVE_READS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Makes every kernel take `isa` from now on, or refuses (naming `--isa` and what the CPU
/// has) when this CPU cannot run it or the cap hides it.
pub fn force(isa: Isa) -> Result<()> {
    if !isa.supported() {
        let have: Vec<&str> = Isa::supported_all().iter().map(|i| i.name()).collect();
        let why = if isa.on_cpu() {
            format!("the paths are capped at {} ({CAP_ENV})", cap())
        } else {
            "this CPU does not support it".to_string()
        };
        return Err(Error::Invalid(format!(
            "--isa {isa}: {why}; it supports {}",
            have.join(", ")
        )));
    }
    FORCED.store(isa.code(), Ordering::Relaxed);
    Ok(())
}

/// Runs `body` with `isa` forced, then restores the path that was active before: for tests
/// and benches that compare paths in one process. Not for concurrent use with different
/// paths (the choice is process-wide), so tests that call it hold [`TEST_LOCK`].
/// The restore runs on unwinding too, so a test that panics inside `body` does not leave the
/// path forced for the rest of its test binary.
pub fn with<R>(isa: Isa, body: impl FnOnce() -> R) -> Result<R> {
    let restore = Restore {
        cap: None,
        forced: FORCED.load(Ordering::Relaxed),
    };
    force(isa)?;
    let out = body();
    drop(restore);
    Ok(out)
}

/// Puts the forced path (and the cap, when `cap` is set) back as they were when dropped,
/// on return and on unwinding alike.
struct Restore {
    cap: Option<u8>,
    forced: u8,
}

impl Drop for Restore {
    fn drop(&mut self) {
        if let Some(cap) = self.cap {
            CAP.store(cap, Ordering::Relaxed);
        }
        FORCED.store(self.forced, Ordering::Relaxed);
    }
}

/// Serialises the tests of one process that force paths with [`with`] or cap them with
/// `capped`.
pub static TEST_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The environment variable that caps the paths (`scalar`, `portable`, `avx2` or `avx512`):
/// the process then behaves as on a CPU without the wider ones.
pub const CAP_ENV: &str = "NIMSQUARE_ISA_CAP";

/// The widest path [`Isa::supported`] may report, or 0 before [`CAP_ENV`] was read.
static CAP: AtomicU8 = AtomicU8::new(0);

/// The cap: set by `capped`, else [`CAP_ENV`] (read on first use; a bad value caps
/// nothing here, and the binary refuses it first through [`cap_from_env`]), else none
/// ([`Isa::Avx512`], the widest).
fn cap() -> Isa {
    if let Some(isa) = Isa::from_code(CAP.load(Ordering::Relaxed)) {
        return isa;
    }
    let isa = env_cap().ok().flatten().unwrap_or(Isa::Avx512);
    // A cap set meanwhile by `capped` wins over the environment.
    let _ = CAP.compare_exchange(0, isa.code(), Ordering::Relaxed, Ordering::Relaxed);
    Isa::from_code(CAP.load(Ordering::Relaxed)).unwrap_or(isa)
}

/// The cap [`CAP_ENV`] asks for (None when unset or empty), or the refusal of a bad value.
fn env_cap() -> Result<Option<Isa>> {
    let Ok(text) = std::env::var(CAP_ENV) else {
        return Ok(None);
    };
    let name = text.trim().to_ascii_lowercase();
    if name.is_empty() {
        return Ok(None);
    }
    Isa::ALL
        .into_iter()
        .find(|isa| isa.name() == name)
        .map(Some)
        .ok_or_else(|| {
            Error::Invalid(format!(
                "{CAP_ENV} takes scalar, portable, avx2 or avx512, got '{name}'; fix or unset it"
            ))
        })
}

/// Checks [`CAP_ENV`] and applies it: what the binary calls before anything else, so a bad
/// value is refused in one line rather than ignored.
pub fn cap_from_env() -> Result<()> {
    env_cap()?;
    cap();
    Ok(())
}

/// Runs `body` with the paths capped at `top` (the CPU's own paths still bound them: a cap
/// never adds one), then restores the cap and the forced path. A path forced above `top`
/// is dropped for the duration, so [`active`] stays within the cap. Tests that call it hold
/// [`TEST_LOCK`]. The restore runs on unwinding too.
#[cfg(any(test, feature = "testing"))]
pub fn capped<R>(top: Isa, body: impl FnOnce() -> R) -> R {
    let restore = Restore {
        cap: Some(cap().code()),
        forced: FORCED.load(Ordering::Relaxed),
    };
    CAP.store(top.code(), Ordering::Relaxed);
    if Isa::from_code(restore.forced).is_some_and(|f| f > top) {
        FORCED.store(0, Ordering::Relaxed);
    }
    body()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_inside_with_or_capped_restores_the_path_and_the_cap() {
        let _guard = TEST_LOCK.lock().unwrap_or_else(|p| p.into_inner());
        let (path, top) = (active(), cap());
        let panicked = std::panic::catch_unwind(|| {
            with(Isa::Scalar, || {
                assert_eq!(active(), Isa::Scalar);
                panic!("inside with");
            })
        });
        assert!(panicked.is_err());
        assert_eq!(active(), path);
        let panicked = std::panic::catch_unwind(|| {
            capped(Isa::Scalar, || {
                assert_eq!(Isa::best(), Isa::Scalar);
                panic!("inside capped");
            })
        });
        assert!(panicked.is_err());
        assert_eq!((active(), cap()), (path, top));
    }

    #[test]
    fn names_parse_back_and_auto_is_the_best() {
        for isa in Isa::ALL {
            assert_eq!(Isa::parse(isa.name()).unwrap(), isa);
        }
        assert_eq!(Isa::parse(" AVX2 ").unwrap(), Isa::Avx2);
        assert_eq!(Isa::parse("auto").unwrap(), Isa::best());
        let e = Isa::parse("sse9").unwrap_err().to_string();
        assert!(e.contains("--isa") && e.contains("sse9"), "{e}");
    }

    #[test]
    fn scalar_and_portable_run_everywhere_and_the_best_is_supported() {
        assert!(Isa::Scalar.supported() && Isa::Portable.supported());
        assert!(Isa::best().supported());
        assert_eq!(Isa::supported_all().first(), Some(&Isa::Scalar));
    }

    #[test]
    fn with_forces_and_restores() {
        let _guard = TEST_LOCK.lock().unwrap_or_else(|p| p.into_inner());
        let before = active();
        let inside = with(Isa::Scalar, active).unwrap();
        assert_eq!(inside, Isa::Scalar);
        assert_eq!(active(), before);
    }

    #[test]
    fn an_unsupported_path_is_refused_with_what_the_cpu_has() {
        let _guard = TEST_LOCK.lock().unwrap_or_else(|p| p.into_inner());
        match Isa::ALL.into_iter().find(|i| !i.supported()) {
            Some(missing) => {
                let e = force(missing).unwrap_err().to_string();
                assert!(e.contains("--isa") && e.contains("scalar"), "{e}");
            }
            // Every path is supported here: nothing to refuse, but forcing each works.
            None => Isa::ALL.into_iter().for_each(|i| force(i).unwrap()),
        }
        FORCED.store(0, Ordering::Relaxed);
    }
}
