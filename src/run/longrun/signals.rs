//! Ctrl-C (SIGINT) and SIGTERM during a long run: instead of killing the process and losing
//! hours of table, they set a process-wide flag that the driver reads between chunks, so it
//! can write a checkpoint and return.
//!
//! The handlers are installed only while a [`SignalGuard`] lives (a long run is active); the
//! last guard dropped puts back the dispositions that were there before.
//!
//! A second signal: SIGINT's handler is installed with `SA_RESETHAND`, so a second Ctrl-C
//! while the checkpoint is being written kills the process the ordinary way and an impatient
//! user is never stuck. SIGTERM's is not, and once a SIGTERM has arrived the last guard leaves
//! its handler in place: launchers send it more than once (Open MPI's `mpirun` signals each
//! rank and its process group, so it arrives twice), and a second copy must not kill the run
//! before it has kept its rows and said how to go on. Their escalation is SIGKILL.

use crate::base::error::{Error, Result};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Mutex;

/// Which signal asked the run to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// Ctrl-C.
    Int,
    /// `kill` without a signal number, a service manager or a batch system stopping the job.
    Term,
}

impl Signal {
    /// The signal's number: 2 for SIGINT, 15 for SIGTERM (the binary exits with 128 plus it,
    /// as a shell reports a process the signal ended).
    pub fn number(self) -> i32 {
        match self {
            Signal::Int => libc::SIGINT,
            Signal::Term => libc::SIGTERM,
        }
    }

    /// The exit status of a run this signal stopped: 128 plus its number.
    pub fn exit_status(self) -> i32 {
        128 + self.number()
    }

    /// `SIGINT` or `SIGTERM`.
    pub fn name(self) -> &'static str {
        match self {
            Signal::Int => "SIGINT",
            Signal::Term => "SIGTERM",
        }
    }
}

/// The last signal received while a guard was installed (0: none).
static RECEIVED: AtomicI32 = AtomicI32::new(0);

/// How many guards are alive, and the dispositions to restore when the last one drops.
static INSTALLED: Mutex<Option<(usize, Saved)>> = Mutex::new(None);

type Saved = [libc::sigaction; 2];

const SIGNALS: [libc::c_int; 2] = [libc::SIGINT, libc::SIGTERM];
/// SIGTERM's index in [`SIGNALS`] and [`Saved`].
const TERM: usize = 1;

/// The signal that arrived since the first live guard was installed, if any.
pub fn interrupted() -> Option<Signal> {
    match RECEIVED.load(Ordering::SeqCst) {
        libc::SIGINT => Some(Signal::Int),
        libc::SIGTERM => Some(Signal::Term),
        _ => None,
    }
}

extern "C" fn on_signal(sig: libc::c_int) {
    // Only an atomic store: async-signal-safe.
    RECEIVED.store(sig, Ordering::SeqCst);
}

/// While alive, SIGINT and SIGTERM set the flag read by [`interrupted`] instead of ending the
/// process. Guards nest (several runs in one process, as in tests); the flag is cleared when the
/// first one is installed and the old dispositions come back when the last one drops.
pub struct SignalGuard {
    _private: (),
}

impl SignalGuard {
    /// Installs the handlers (or counts one more guard if they are installed).
    pub fn install() -> Result<SignalGuard> {
        let mut state = INSTALLED.lock().unwrap_or_else(|e| e.into_inner());
        match state.as_mut() {
            Some((count, _)) => *count += 1,
            None => {
                RECEIVED.store(0, Ordering::SeqCst);
                let saved = swap_dispositions(None).map_err(|e| {
                    Error::Invalid(format!("cannot install the SIGINT/SIGTERM handlers: {e}"))
                })?;
                *state = Some((1, saved));
            }
        }
        Ok(SignalGuard { _private: () })
    }
}

impl Drop for SignalGuard {
    fn drop(&mut self) {
        let mut state = INSTALLED.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((count, saved)) = state.as_mut() {
            *count -= 1;
            if *count == 0 {
                let mut saved = *saved;
                if RECEIVED.load(Ordering::SeqCst) == libc::SIGTERM {
                    // The process is stopping; a repeated SIGTERM still only sets the flag
                    // (see the module's doc), so the handler is "restored" to itself.
                    saved[TERM] = installed(TERM);
                }
                // Nothing useful to do if putting the old dispositions back fails.
                let _ = swap_dispositions(Some(&saved));
                *state = None;
            }
        }
    }
}

/// The disposition a guard installs for `SIGNALS[i]`: [`on_signal`], reset to the default
/// after one delivery for SIGINT only (see the module's doc).
fn installed(i: usize) -> libc::sigaction {
    let reset = if i == TERM { 0 } else { libc::SA_RESETHAND };
    // SAFETY: `sigaction` is plain C data for which all-zero is a valid value (no handler,
    // empty mask, no flags); `sigemptyset` gets a pointer to a live local. The handler only
    // stores into an atomic, which is async-signal-safe.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
        action.sa_flags = reset | libc::SA_RESTART;
        libc::sigemptyset(&mut action.sa_mask);
        action
    }
}

/// Sets the dispositions of SIGINT and SIGTERM and returns the previous ones: `None` installs
/// [`installed`]'s, `Some(saved)` puts back what an earlier call returned.
fn swap_dispositions(restore: Option<&Saved>) -> std::io::Result<Saved> {
    // SAFETY: `sigaction` structs are plain C data for which all-zero is a valid value;
    // `sigaction` gets valid pointers to live locals and its return value is checked;
    // `restore` holds dispositions that `sigaction` itself returned or [`installed`] made.
    unsafe {
        let mut old: Saved = std::mem::zeroed();
        for (i, &sig) in SIGNALS.iter().enumerate() {
            let action = match restore {
                Some(saved) => saved[i],
                None => installed(i),
            };
            if libc::sigaction(sig, &action, &mut old[i]) != 0 {
                let err = std::io::Error::last_os_error();
                for (j, &back) in SIGNALS.iter().enumerate().take(i) {
                    libc::sigaction(back, &old[j], std::ptr::null_mut());
                }
                return Err(err);
            }
        }
        Ok(old)
    }
}
