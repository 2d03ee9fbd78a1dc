//! The fault point every file write of the run layer goes through, so a test can fail the
//! n-th write, fsync, rename or create of a run on purpose (issue 58: "every write failed in
//! turn") and check what the run leaves behind.
//!
//! Each wrapper here ([`create`], [`open`], [`write_all`], [`Writer`], [`sync_all`],
//! [`sync_data`], [`set_len`], [`rename`], [`persist`], [`write()`]) is the plain operation
//! preceded by one *point*. Without the `testing` feature a point is nothing: the wrappers are
//! `#[inline(always)]` calls of the operation itself, no environment variable is read and no
//! counter exists, so a release build carries no fault code (results/reliability/faults.md:
//! its binary holds no trace of the variable's name; what `nm` still names of this module is
//! [`Writer`], which there only passes its calls on).
//!
//! With `testing`, `VARIABLE` (`NIMSQUARE_FAULT`) decides, once per process:
//! - unset: points are counted and nothing fails;
//! - `count`: at exit the process prints `fault points reached: N (create a, write b, ...)`
//!   on stderr, the number a test then walks n over;
//! - `N:enospc` or `N:eio`: the N-th point (from 1) fails with that error, the points
//!   before and after it do not (a disk that was full for one moment); `N+:enospc`: the N-th
//!   and every later one fails (a disk that stays full).
//!
//! A failing write first writes half of its bytes, as a write to a disk that fills midway
//! does, so a reader may meet a file cut anywhere. Points are counted in the order a process
//! reaches them; with several threads writing (a census) that order may differ between runs,
//! the number of points does not.
//!
//! Not covered: stores into a memory-mapped file (the window run's values file) cannot fail
//! through a call, only the file's creation and sizing, which are points; the probes of
//! [`super::paths`] made before any work are checks, not writes (their failure is a refusal).

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;

/// The environment variable that chooses the failing point (see the module doc); read only
/// by builds with the `testing` feature.
#[cfg(feature = "testing")]
pub const VARIABLE: &str = "NIMSQUARE_FAULT";

/// What a point stands for, in the count printed at exit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Create,
    Write,
    Sync,
    Rename,
}

#[cfg(feature = "testing")]
mod active {
    use super::{Kind, VARIABLE};
    use std::io;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::OnceLock;

    /// What [`VARIABLE`] asked for.
    #[derive(Debug, Clone, Copy)]
    enum Plan {
        Nothing,
        Count,
        Fail {
            at: usize,
            onwards: bool,
            errno: i32,
        },
    }

    static PLAN: OnceLock<Plan> = OnceLock::new();
    static REACHED: AtomicUsize = AtomicUsize::new(0);
    static BY_KIND: [AtomicUsize; 4] = [const { AtomicUsize::new(0) }; 4];

    fn parse(text: &str) -> Plan {
        if text == "count" {
            return Plan::Count;
        }
        let bad = || -> ! {
            panic!("{VARIABLE}={text}: give count, N:enospc, N:eio, N+:enospc or N+:eio")
        };
        let Some((at, error)) = text.split_once(':') else {
            bad()
        };
        let (at, onwards) = match at.strip_suffix('+') {
            Some(at) => (at, true),
            None => (at, false),
        };
        let at: usize = at.parse().unwrap_or_else(|_| bad());
        let errno = match error {
            "enospc" => libc::ENOSPC,
            "eio" => libc::EIO,
            _ => bad(),
        };
        if at == 0 {
            bad()
        }
        Plan::Fail { at, onwards, errno }
    }

    extern "C" fn print_count() {
        let kinds = ["create", "write", "sync", "rename"];
        let parts: Vec<String> = kinds
            .iter()
            .zip(&BY_KIND)
            .map(|(k, n)| format!("{k} {}", n.load(Ordering::SeqCst)))
            .collect();
        let line = format!(
            "fault points reached: {} ({})\n",
            REACHED.load(Ordering::SeqCst),
            parts.join(", ")
        );
        // SAFETY: write(2) of a buffer that lives across the call to stderr, at exit.
        unsafe {
            libc::write(2, line.as_ptr().cast(), line.len());
        }
    }

    fn plan() -> Plan {
        *PLAN.get_or_init(|| {
            let plan = match std::env::var(VARIABLE) {
                Ok(text) => parse(&text),
                Err(_) => Plan::Nothing,
            };
            if matches!(plan, Plan::Count) {
                // SAFETY: registers a plain function with no captured state.
                unsafe {
                    libc::atexit(print_count);
                }
            }
            plan
        })
    }

    /// Makes sure `count` prints at exit even for a run that reaches no point.
    pub fn arm() {
        let _ = plan();
    }

    /// Counts one point of `kind`; the error it must fail with, if it is the chosen one.
    pub fn point(kind: Kind) -> Option<io::Error> {
        let plan = plan();
        let n = REACHED.fetch_add(1, Ordering::SeqCst) + 1;
        BY_KIND[kind as usize].fetch_add(1, Ordering::SeqCst);
        match plan {
            Plan::Fail { at, onwards, errno } if n == at || (onwards && n > at) => {
                Some(io::Error::from_raw_os_error(errno))
            }
            _ => None,
        }
    }
}

/// One point of `kind`: Err when it is the one chosen to fail.
#[cfg(feature = "testing")]
#[inline]
fn point(kind: Kind) -> io::Result<()> {
    match active::point(kind) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Reads `VARIABLE` now, so that `count` prints at exit even when no point is reached.
/// Without `testing`: nothing.
#[inline(always)]
pub fn arm() {
    #[cfg(feature = "testing")]
    active::arm();
}

/// [`File::create`] through a point.
#[inline(always)]
pub fn create(path: &Path) -> io::Result<File> {
    #[cfg(feature = "testing")]
    point(Kind::Create)?;
    File::create(path)
}

/// `options.open(path)` for writing through a point.
#[inline(always)]
pub fn open(options: &OpenOptions, path: &Path) -> io::Result<File> {
    #[cfg(feature = "testing")]
    point(Kind::Create)?;
    options.open(path)
}

/// A point before an operation that creates a file made elsewhere (`tempfile`'s builder).
#[inline(always)]
pub fn before_create() -> io::Result<()> {
    #[cfg(feature = "testing")]
    point(Kind::Create)?;
    Ok(())
}

/// A point before a sync made elsewhere (msync(2) of a mapped file).
#[inline(always)]
pub fn before_sync() -> io::Result<()> {
    #[cfg(feature = "testing")]
    point(Kind::Sync)?;
    Ok(())
}

/// `w.write_all(buf)` through a point; the failing one writes half of `buf` first.
#[inline(always)]
pub fn write_all<W: Write + ?Sized>(w: &mut W, buf: &[u8]) -> io::Result<()> {
    #[cfg(feature = "testing")]
    if let Err(e) = point(Kind::Write) {
        let _ = w.write_all(&buf[..buf.len() / 2]).and_then(|()| w.flush());
        return Err(e);
    }
    w.write_all(buf)
}

/// [`std::fs::write`] through a point (create, then write).
#[inline(always)]
pub fn write(path: &Path, contents: impl AsRef<[u8]>) -> io::Result<()> {
    let mut f = create(path)?;
    write_all(&mut f, contents.as_ref())
}

/// [`File::sync_all`] through a point (a file's or a folder's).
#[inline(always)]
pub fn sync_all(f: &File) -> io::Result<()> {
    #[cfg(feature = "testing")]
    point(Kind::Sync)?;
    f.sync_all()
}

/// [`File::sync_data`] through a point.
#[inline(always)]
pub fn sync_data(f: &File) -> io::Result<()> {
    #[cfg(feature = "testing")]
    point(Kind::Sync)?;
    f.sync_data()
}

/// Syncs the folder `folder` (opened read-only, best effort where it cannot be opened)
/// through a point: what makes a rename in it durable.
#[inline(always)]
pub fn sync_folder(folder: &Path) -> io::Result<()> {
    match File::open(folder) {
        Ok(d) => sync_all(&d),
        Err(_) => Ok(()),
    }
}

/// [`File::set_len`] through a point (a write of the file's size).
#[inline(always)]
pub fn set_len(f: &File, len: u64) -> io::Result<()> {
    #[cfg(feature = "testing")]
    point(Kind::Write)?;
    f.set_len(len)
}

/// [`std::fs::rename`] through a point.
#[inline(always)]
pub fn rename(from: &Path, to: &Path) -> io::Result<()> {
    #[cfg(feature = "testing")]
    point(Kind::Rename)?;
    std::fs::rename(from, to)
}

/// [`tempfile::NamedTempFile::persist`] through a point (a rename).
#[inline(always)]
pub fn persist(tmp: tempfile::NamedTempFile, path: &Path) -> Result<File, tempfile::PersistError> {
    #[cfg(feature = "testing")]
    if let Err(error) = point(Kind::Rename) {
        return Err(tempfile::PersistError { error, file: tmp });
    }
    tmp.persist(path)
}

/// A [`Write`] whose every `write` is a point (the failing one writes half its bytes first),
/// for writers that go through an adapter (a `BufWriter`, the `csv` crate): put it next to
/// the file, under any buffer, so a point is one write(2). Without `testing` it is the
/// writer itself.
pub struct Writer<W: Write>(pub W);

impl<W: Write> Writer<W> {
    /// The writer inside.
    #[inline(always)]
    pub fn into_inner(self) -> W {
        self.0
    }

    /// The writer inside, borrowed.
    #[inline(always)]
    pub fn get_ref(&self) -> &W {
        &self.0
    }
}

impl<W: Write> Write for Writer<W> {
    #[inline(always)]
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        #[cfg(feature = "testing")]
        if let Err(e) = point(Kind::Write) {
            let _ = self.0.write_all(&buf[..buf.len() / 2]);
            return Err(e);
        }
        self.0.write(buf)
    }

    #[inline(always)]
    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}
