//! Output paths checked before any work, so that a long run never ends in a failed write.

use crate::base::error::{Error, Result};
use crate::base::fault;
use std::fs::{self, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

/// The folder a file `path` is written in (`.` for a bare name, whose `parent()` is empty):
/// the folder to sync after a rename into it.
pub fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Checks, before any work, that `path` can be written as the output file of `flag`, so a long
/// run never ends in a failed write: it must not be a folder, its folder must exist, and a
/// file must be creatable (or, if one is there, openable for writing) there. An existing file
/// is opened to append and left untouched; a new one is created and removed again. The
/// refusal is one line naming `flag`.
pub fn check_output_path(path: &Path, flag: &str) -> Result<()> {
    check_output_path_via(path, path, flag)
}

/// [`check_output_path`] for a file written first as `probe`, a file in the same folder that
/// is then renamed onto `path` (as the table files are): the checks on `path` and its folder,
/// with the write test made on `probe`, so an existing `path` is not opened.
pub fn check_output_path_via(path: &Path, probe: &Path, flag: &str) -> Result<()> {
    let refuse = |why: String| Error::Invalid(format!("{flag} {}: {why}", path.display()));
    if path.as_os_str().is_empty() {
        return Err(refuse("an empty path; give a file name".into()));
    }
    if path.is_dir() {
        return Err(refuse("is a folder; give a file path inside it".into()));
    }
    let folder = folder_of(path);
    if !folder.is_dir() {
        let what = if folder.exists() {
            "is not a folder"
        } else {
            "does not exist"
        };
        return Err(refuse(format!(
            "folder '{}' {what}; create it or choose another path",
            folder.display()
        )));
    }
    let cannot = |e: io::Error| refuse(format!("cannot be written ({e}); choose another path"));
    if probe.exists() {
        OpenOptions::new()
            .append(true)
            .open(probe)
            .map_err(cannot)?;
    } else {
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(probe)
            .map_err(cannot)?;
        fs::remove_file(probe).map_err(cannot)?;
    }
    Ok(())
}

/// Writes `path` through `write(tmp)` on a sibling `PATH.tmp`, then renames that over `path`,
/// so neither a reader nor a crash mid-write ever sees a half-written file under the name,
/// then syncs the folder so the rename itself is durable (best effort: a folder that cannot
/// be synced is no error). A failed write removes the temporary file and leaves `path` as it
/// was.
pub fn replace_atomically(path: &Path, write: impl FnOnce(&Path) -> Result<()>) -> Result<()> {
    let tmp = tmp_sibling(path);
    if let Err(e) = write(&tmp) {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    fault::rename(&tmp, path).map_err(|e| {
        let _ = fs::remove_file(&tmp);
        Error::Unwritten(format!(
            "cannot move {} to {}: {e}",
            tmp.display(),
            path.display()
        ))
    })?;
    let _ = fault::sync_folder(folder_of(path));
    Ok(())
}

/// Where an output file named on the command line (`--out`, `--folded`) is written, decided
/// before any work by [`decide_output`] and honoured by [`write_output`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    /// `-`: standard output.
    Stdout,
    /// A FIFO or a character device (`/dev/null`): opened and written in place, never
    /// replaced by a regular file.
    Stream(PathBuf),
    /// A regular file, new or replaced: written to a sibling `.tmp` and renamed over this path,
    /// which is the named path with symlinks resolved, so a symlink is written through to its
    /// target and stays a symlink.
    File(PathBuf),
}

/// Decides, before any work, where the output of `flag` named `path` goes ([`Output`]), or
/// refuses in one line naming `flag`: a folder, a block device or a socket; a symlink whose
/// target is missing; a folder that does not exist or cannot be written; an existing regular
/// file (or a symlink to one) unless `force` is `Some(true)` (`None`: the command has no
/// `--force`, so an existing file is always refused).
pub fn decide_output(path: &Path, flag: &str, force: Option<bool>) -> Result<Output> {
    use std::os::unix::fs::FileTypeExt;
    if path.as_os_str() == "-" {
        return Ok(Output::Stdout);
    }
    let refuse = |why: String| Error::Invalid(format!("{flag} {}: {why}", path.display()));
    let Some((target, meta)) = examine(path, &refuse)? else {
        check_output_path(path, flag)?;
        return Ok(Output::File(path.to_path_buf()));
    };
    let kind = meta.file_type();
    if kind.is_fifo() || kind.is_char_device() {
        if !writable(&target) {
            return Err(refuse(format!(
                "the {} cannot be written (permission denied)",
                if kind.is_fifo() { "FIFO" } else { "device" }
            )));
        }
        return Ok(Output::Stream(target));
    }
    if kind.is_dir() {
        return Err(refuse("is a folder; give a file path inside it".into()));
    }
    if !kind.is_file() {
        return Err(refuse(
            "is neither a regular file, a FIFO nor a character device; choose another path".into(),
        ));
    }
    match force {
        Some(true) => {}
        Some(false) => {
            return Err(refuse(
                "already exists; pass --force to replace it, or choose another name".into(),
            ))
        }
        None => {
            return Err(refuse(
                "the file already exists; remove it or choose another name".into(),
            ))
        }
    }
    check_output_path_via(&target, &tmp_sibling(&target), flag)?;
    Ok(Output::File(target))
}

/// Decides, before any work, the regular file `flag` names when that file is written whole as
/// a new file renamed over the old one, a temporary file beside it then a rename (a checkpoint,
/// a table file): returns the path to write, with symlinks resolved, so a symlink is written
/// through to its target and stays a symlink; or refuses in one line naming `flag`: an empty
/// path, a folder, a FIFO, a device or a socket (`what` cannot be renamed over one, and a FIFO
/// could never be read back), a symlink whose target is missing, and a folder that does not
/// exist or where the temporary file cannot be made. An existing regular file is returned, not refused:
/// whether it may be replaced is the caller's rule (a checkpoint is resumed, a table refused).
pub fn decide_replaced_file(path: &Path, flag: &str, what: &str) -> Result<PathBuf> {
    use std::os::unix::fs::FileTypeExt;
    let refuse = |why: String| Error::Invalid(format!("{flag} {}: {why}", path.display()));
    if path.as_os_str().is_empty() {
        return Err(refuse("an empty path; give a file name".into()));
    }
    let Some((target, meta)) = examine(path, &refuse)? else {
        check_output_path_via(path, &tmp_sibling(path), flag)?;
        return Ok(path.to_path_buf());
    };
    let kind = meta.file_type();
    if kind.is_dir() {
        return Err(refuse("is a folder; give a file path inside it".into()));
    }
    if !kind.is_file() {
        let is = if kind.is_fifo() {
            "a FIFO"
        } else if kind.is_char_device() || kind.is_block_device() {
            "a device"
        } else {
            "not a regular file"
        };
        return Err(refuse(format!(
            "is {is}, which cannot hold {what} (it is written as a new file renamed over the old one); give the path of a regular file"
        )));
    }
    check_output_path_via(&target, &tmp_sibling(&target), flag)?;
    Ok(target)
}

/// What `path` names: `None` when nothing is there (or a file stands where a folder of the
/// path should be, which the folder checks name), else the path written to and its metadata:
/// `path` itself, or for a symlink its target followed to the end (so a symlink is written
/// through and stays a symlink). A symlink to nothing, or a path that cannot be examined, is
/// refused through `refuse`.
fn examine(
    path: &Path,
    refuse: &impl Fn(String) -> Error,
) -> Result<Option<(PathBuf, fs::Metadata)>> {
    let meta = match fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            ) =>
        {
            return Ok(None);
        }
        Err(e) => return Err(refuse(format!("cannot be examined ({e})"))),
    };
    if !meta.file_type().is_symlink() {
        return Ok(Some((path.to_path_buf(), meta)));
    }
    let target = fs::canonicalize(path).map_err(|e| {
        refuse(format!(
            "is a symlink whose target cannot be reached ({e}); name the target itself or another path"
        ))
    })?;
    let meta = fs::metadata(&target)
        .map_err(|e| refuse(format!("its target cannot be examined ({e})")))?;
    Ok(Some((target, meta)))
}

/// `PATH.tmp`, the sibling a file replaced whole is first written to by
/// [`replace_atomically`] (the table files write a `PATH.XXXXXX.tmp` beside it, in the same
/// folder), so a probe is made where the write will be.
pub fn tmp_sibling(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push(".tmp");
    PathBuf::from(name)
}

/// Whether this process may write `path` (access(2) with W_OK): a FIFO is not opened to find
/// out, since opening it for writing waits for a reader.
fn writable(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: `c` is a valid NUL-terminated string that lives across the call; access(2)
    // only reads it.
    unsafe { libc::access(c.as_ptr(), libc::W_OK) == 0 }
}

/// Writes the output decided by [`decide_output`] through `write`: to stdout, in place into a
/// FIFO or device, or atomically to a regular file ([`replace_atomically`]). An error is one
/// line naming `flag` and the path.
pub fn write_output(
    output: &Output,
    flag: &str,
    write: impl FnOnce(&mut dyn io::Write) -> io::Result<()>,
) -> Result<()> {
    use std::io::Write;
    let failed =
        |path: &Path, e: io::Error| Error::Unwritten(format!("{flag} {}: {e}", path.display()));
    match output {
        Output::Stdout => {
            let stdout = io::stdout();
            let mut w = io::BufWriter::new(stdout.lock());
            write(&mut w)
                .and_then(|()| w.flush())
                .map_err(|e| Error::Invalid(format!("writing to stdout: {e}")))
        }
        Output::Stream(path) => {
            let file =
                fault::open(OpenOptions::new().write(true), path).map_err(|e| failed(path, e))?;
            let mut w = io::BufWriter::new(fault::Writer(file));
            write(&mut w)
                .and_then(|()| w.flush())
                .map_err(|e| failed(path, e))
        }
        Output::File(path) => replace_atomically(path, |tmp| {
            let file = fault::create(tmp).map_err(|e| failed(path, e))?;
            let mut w = io::BufWriter::new(fault::Writer(file));
            // Synced before the rename, so a crash never leaves an empty file under the name.
            write(&mut w)
                .and_then(|()| w.flush())
                .and_then(|()| fault::sync_all(w.get_ref().get_ref()))
                .map_err(|e| failed(path, e))
        }),
    }
}
