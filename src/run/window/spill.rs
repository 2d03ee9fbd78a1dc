//! The table of a window-mode run: g(0..=N) in a file mapped into memory, of which only the
//! pages the build still reads stay resident.
//!
//! The builders read and write one `&mut [u16]` as for a table in memory (none of them
//! changes for window mode). The slice is a shared mapping of a file of 2(N + 1) bytes, so
//! every value written goes to the file, and [`Spill::release`] hands the pages of a range
//! back: the mapping drops them (`MADV_DONTNEED`, the process's resident set shrinks) and so
//! does the page cache once they are written (`POSIX_FADV_DONTNEED`). A later read of a
//! released value faults its page in again from the file: slower, never wrong. That is what
//! makes window mode exact whatever a back-end reads: the window ([`super::Window`]) decides
//! what stays resident, not what may be read.
//!
//! Cost: the file's pages are written back by the kernel as they age; a release is two
//! system calls. Disk: 2(N + 1) bytes, sparse until written.
//!
//! Invariant: `values()` always holds what was last written at each position (the mapping
//! is `MAP_SHARED`, whose dirty pages the kernel keeps until they are on the file, also
//! across a release).

use crate::base::error::{Error, Result};
use crate::base::fault;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The page size the releases round to.
const PAGE: usize = 4096;

/// The values of one page.
pub const PAGE_VALUES: usize = PAGE / 2;

/// A file of u16 values mapped for reading and writing (see the module doc).
pub struct Spill {
    ptr: *mut u16,
    len: usize,
    file: File,
    path: PathBuf,
}

// SAFETY: the mapping is owned by the Spill alone (unmapped on drop) and reached only
// through `&self`/`&mut self`, as a Vec's buffer is.
unsafe impl Send for Spill {}
// SAFETY: as above; shared access gives only `&[u16]`.
unsafe impl Sync for Spill {}

impl Spill {
    /// A new file at `path` (refused if one exists there) of `len` zero values, mapped.
    pub fn create(path: &Path, len: usize) -> Result<Spill> {
        let file = fault::open(
            std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true),
            path,
        )
        .map_err(|e| {
            let line = format!("cannot create {}: {e}", path.display());
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                Error::Invalid(line)
            } else {
                Error::Unwritten(line)
            }
        })?;
        let bytes = len.checked_mul(2).expect("a table's bytes fit in usize");
        // The file is this call's: a failure from here on removes it again, so that the same
        // command run again does not find it there and refuse it.
        let made = fault::set_len(&file, bytes as u64)
            .map_err(|e| Error::Unwritten(format!("cannot size {}: {e}", path.display())))
            .and_then(|()| Spill::map(file, path, len));
        if made.is_err() {
            let _ = std::fs::remove_file(path);
        }
        made
    }

    /// The existing file at `path` of `len` values (exactly 2·len bytes), mapped.
    pub fn open(path: &Path, len: usize) -> Result<Spill> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(|e| Error::Invalid(format!("cannot open {}: {e}", path.display())))?;
        let size = file
            .metadata()
            .map_err(|e| Error::Invalid(format!("cannot read {}: {e}", path.display())))?
            .len();
        if size != 2 * len as u64 {
            return Err(Error::Invalid(format!(
                "{} holds {size} bytes, not the {} of {len} values",
                path.display(),
                2 * len as u64
            )));
        }
        Spill::map(file, path, len)
    }

    /// The existing file at `path`, lengthened to `len` values if it holds fewer (a resumed
    /// run going to a larger N), mapped; one of an odd size or longer is refused.
    pub fn open_at_least(path: &Path, len: usize) -> Result<Spill> {
        let size = std::fs::metadata(path)
            .map_err(|e| Error::Invalid(format!("cannot read {}: {e}", path.display())))?
            .len();
        if size % 2 != 0 {
            return Err(Error::Invalid(format!(
                "--window-file: {} holds {size} bytes, an odd number: it is not a values file",
                path.display()
            )));
        }
        if size > 2 * len as u64 {
            // shortening it would throw away values a run made
            return Err(Error::Invalid(format!(
                "--window-file: {} holds {} values, more than the {len} of this run; give --limit {} or more, or resume without --window-file",
                path.display(),
                size / 2,
                size / 2 - 1
            )));
        }
        let file = fault::open(std::fs::OpenOptions::new().read(true).write(true), path)
            .map_err(|e| Error::Invalid(format!("cannot open {}: {e}", path.display())))?;
        fault::set_len(&file, 2 * len as u64)
            .map_err(|e| Error::Unwritten(format!("cannot size {}: {e}", path.display())))?;
        Spill::map(file, path, len)
    }

    fn map(file: File, path: &Path, len: usize) -> Result<Spill> {
        use std::os::fd::AsRawFd;
        if len == 0 {
            return Ok(Spill {
                ptr: std::ptr::NonNull::dangling().as_ptr(),
                len,
                file,
                path: path.to_path_buf(),
            });
        }
        // SAFETY: a fresh shared mapping of the whole file (its size is 2·len, set or checked
        // above), at an address the kernel picks; the result is checked against MAP_FAILED.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                2 * len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(Error::Invalid(format!(
                "cannot map {}: {}",
                path.display(),
                std::io::Error::last_os_error()
            )));
        }
        Ok(Spill {
            ptr: ptr.cast(),
            len,
            file,
            path: path.to_path_buf(),
        })
    }

    /// Writes every value stored through the mapping to the file and syncs it (msync(2),
    /// then fsync(2)), so a checkpoint that names this file as holding g(0..done) is true
    /// on the disk, not only in the page cache. A store into the mapping cannot fail through
    /// a call; this sync can, and is a fault point ([`fault::before_sync`]).
    pub fn sync(&self) -> Result<()> {
        let failed = |e: std::io::Error| {
            Error::Unwritten(format!(
                "--window-file: cannot sync {}: {e}",
                self.path.display()
            ))
        };
        fault::before_sync().map_err(failed)?;
        if self.len > 0 {
            // SAFETY: the whole mapping made in `map` (2·len bytes from `ptr`), still mapped.
            let r = unsafe { libc::msync(self.ptr.cast(), 2 * self.len, libc::MS_SYNC) };
            if r != 0 {
                return Err(failed(std::io::Error::last_os_error()));
            }
        }
        self.file.sync_all().map_err(failed)
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The values, g(0..len).
    pub fn values(&self) -> &[u16] {
        // SAFETY: ptr maps len u16 (page-aligned, so aligned for u16) for as long as self
        // lives, and `&self` excludes a `&mut` to them.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    /// The values, to write.
    pub fn values_mut(&mut self) -> &mut [u16] {
        // SAFETY: as in `values`, with `&mut self` making the borrow unique.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }

    /// Gives back the memory of the whole pages inside values `lo..hi` (see the module doc);
    /// the values stay readable from the file. Returns the bytes advised.
    pub fn release(&mut self, lo: usize, hi: usize) -> usize {
        use std::os::fd::AsRawFd;
        let hi = hi.min(self.len);
        let first = (2 * lo).next_multiple_of(PAGE);
        let end = (2 * hi) & !(PAGE - 1);
        if end <= first {
            return 0;
        }
        // SAFETY: [first, end) is inside the mapping (hi <= len) and page-aligned (the
        // mapping starts on a page). MADV_DONTNEED on a shared file mapping only unmaps the
        // pages: their contents stay in the page cache (dirty ones until written) and in the
        // file, where a later access finds them. Errors are returned, not raised; either
        // call failing only leaves memory resident.
        unsafe {
            let start = self.ptr.cast::<u8>().add(first);
            libc::madvise(start.cast(), end - first, libc::MADV_DONTNEED);
            libc::posix_fadvise(
                self.file.as_raw_fd(),
                first as libc::off_t,
                (end - first) as libc::off_t,
                libc::POSIX_FADV_DONTNEED,
            );
        }
        end - first
    }
}

/// The byte range [start, end) of the values this process does not hold (see
/// [`Spill::forbid`]); 0, 0: none.
static FORBIDDEN: [AtomicUsize; 2] = [AtomicUsize::new(0), AtomicUsize::new(0)];

/// What a read of a value the run does not hold prints before the process ends.
const FORBIDDEN_READ: &[u8] = b"error: window mode: the build read a value from before the \
checkpoint's window, which this run does not hold; resume it where its values file is \
(--window-file)\n";

/// The exit status of a run that read a value it does not hold.
pub const FORBIDDEN_EXIT: i32 = 1;

/// Set by the first thread that reads a value the run does not hold: the builder's threads can
/// fault together, and only the first may print, so the run ends with one line.
static FORBIDDEN_REPORTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_forbidden(_sig: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo for SA_SIGINFO; only async-signal-safe calls
    // follow (an atomic swap, pause, write, _exit,
    // sigaction).
    unsafe {
        let addr = (*info).si_addr() as usize;
        let (start, end) = (
            FORBIDDEN[0].load(Ordering::SeqCst),
            FORBIDDEN[1].load(Ordering::SeqCst),
        );
        if (start..end).contains(&addr) {
            if FORBIDDEN_REPORTED.swap(true, Ordering::SeqCst) {
                // another thread is printing the line and ending the process: wait for it
                loop {
                    libc::pause();
                }
            }
            libc::write(2, FORBIDDEN_READ.as_ptr().cast(), FORBIDDEN_READ.len());
            libc::_exit(FORBIDDEN_EXIT);
        }
        // a fault of another kind (a stack overflow, a bug): the default action takes it when
        // the access is retried
        let mut default: libc::sigaction = std::mem::zeroed();
        default.sa_sigaction = libc::SIG_DFL;
        libc::sigaction(libc::SIGSEGV, &default, std::ptr::null_mut());
    }
}

impl Spill {
    /// Makes values `lo..hi` (page edges) unreadable, and a read of them end the process with
    /// one line on stderr and [`FORBIDDEN_EXIT`] instead of seeing the zeros a resumed run's
    /// new file holds there: the values a checkpoint did not carry. One range per process.
    pub fn forbid(&mut self, lo: usize, hi: usize) -> Result<()> {
        assert!(
            lo.is_multiple_of(PAGE_VALUES)
                && hi.is_multiple_of(PAGE_VALUES)
                && lo <= hi
                && hi <= self.len
        );
        if lo == hi {
            return Ok(());
        }
        let start = self.ptr as usize + 2 * lo;
        let end = self.ptr as usize + 2 * hi;
        FORBIDDEN[0].store(start, Ordering::SeqCst);
        FORBIDDEN[1].store(end, Ordering::SeqCst);
        // SAFETY: [start, end) is whole pages of this live mapping; PROT_NONE only makes a
        // later access fault, which the handler below turns into the message and the exit.
        // The handler is installed with a zeroed (valid) sigaction and its old one kept.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_forbidden
                as extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void)
                as usize;
            action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut action.sa_mask);
            if libc::sigaction(libc::SIGSEGV, &action, std::ptr::null_mut()) != 0 {
                return Err(Error::Invalid(format!(
                    "cannot install the SIGSEGV handler: {}",
                    std::io::Error::last_os_error()
                )));
            }
            if libc::mprotect(start as *mut libc::c_void, end - start, libc::PROT_NONE) != 0 {
                return Err(Error::Invalid(format!(
                    "cannot protect the values not held: {}",
                    std::io::Error::last_os_error()
                )));
            }
        }
        Ok(())
    }
}

impl Drop for Spill {
    fn drop(&mut self) {
        let start = self.ptr as usize;
        if (start..start + 2 * self.len).contains(&FORBIDDEN[0].load(Ordering::SeqCst)) {
            // the range this mapping forbade goes with it
            FORBIDDEN[0].store(0, Ordering::SeqCst);
            FORBIDDEN[1].store(0, Ordering::SeqCst);
        }
        if self.len > 0 {
            // SAFETY: the mapping made in `map`, unmapped once; no borrow of it outlives self.
            unsafe { libc::munmap(self.ptr.cast(), 2 * self.len) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The resident bytes of the spill's mapping in this process (its `Rss:` in
    /// /proc/self/smaps): what a release gives back.
    fn mapped_rss(s: &Spill) -> usize {
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let start = format!("{:x}-", s.ptr as usize);
        let mut lines = smaps.lines().skip_while(|l| !l.starts_with(&start));
        assert!(lines.next().is_some(), "the mapping is listed");
        let rss = lines.find(|l| l.starts_with("Rss:")).unwrap();
        let kib: usize = rss.split_whitespace().nth(1).unwrap().parse().unwrap();
        kib * 1024
    }

    #[test]
    fn released_values_read_back_from_the_file_and_reopen_equal() {
        let dir = std::env::temp_dir().join(format!("nimsquare-spill-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("g.u16");
        let len = 100_000;
        let expected: Vec<u16> = (0..len).map(|i| (i * 7919 % 65_521) as u16).collect();
        let mut s = Spill::create(&path, len).unwrap();
        assert!(s.values().iter().all(|&v| v == 0));
        s.values_mut().copy_from_slice(&expected);
        // a range not on page edges: only its whole pages go
        let advised = s.release(1000, 90_001);
        assert_eq!(advised % PAGE, 0);
        assert!(advised > 0 && advised <= 2 * (90_001 - 1000));
        assert_eq!(s.values(), &expected[..]);
        // released again after a read, then written and released again
        s.release(0, len);
        s.values_mut()[50_000] = 7;
        s.release(0, len);
        let mut expected = expected;
        expected[50_000] = 7;
        assert_eq!(s.values(), &expected[..]);
        drop(s);
        assert!(
            Spill::create(&path, len).is_err(),
            "an existing file is never overwritten"
        );
        assert!(
            Spill::open(&path, len + 1).is_err(),
            "a file of another length is refused"
        );
        let s = Spill::open(&path, len).unwrap();
        assert_eq!(s.values(), &expected[..]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_release_gives_back_the_pages_it_covers() {
        let dir = std::env::temp_dir().join(format!("nimsquare-spill-rss-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let len = 1 << 20;
        let mut s = Spill::create(&dir.join("g.u16"), len).unwrap();
        s.values_mut().fill(3);
        assert_eq!(mapped_rss(&s), 2 * len);
        s.release(1 << 16, len - (1 << 16));
        // the first and last 2^16 values (32 pages each) stay
        assert_eq!(mapped_rss(&s), 2 * 2 * (1 << 16));
        assert!(s.values().iter().all(|&v| v == 3));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
