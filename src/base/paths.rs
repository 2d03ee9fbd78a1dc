//! Output paths checked before any work, so that a long run never ends in a failed write.

use crate::base::error::{Error, Result};
use std::fs::{self, OpenOptions};
use std::io;
use std::path::Path;

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
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
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

/// Bytes free to an unprivileged writer on the file system holding `folder` (statvfs's
/// `f_bavail · f_frsize`), or `None` when the system cannot tell.
pub fn free_bytes(folder: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(folder.as_os_str().as_bytes()).ok()?;
    // SAFETY: `statvfs` reads the NUL-terminated path and writes only into the zeroed struct
    // it is given.
    let stat = unsafe {
        let mut st: libc::statvfs = std::mem::zeroed();
        if libc::statvfs(c.as_ptr(), &mut st) != 0 {
            return None;
        }
        st
    };
    Some((stat.f_bavail as u64).saturating_mul(stat.f_frsize as u64))
}

/// The folder a file `path` is written in (`.` for a bare name).
pub fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Refuses, before any work, files that will not fit: `files` are (path, bytes, flag), and
/// the files whose folders share a file system (one `st_dev`) must fit in its free space
/// together, so two outputs on one small disk are refused although each alone would fit.
/// A folder whose free space cannot be read is not refused here (the write will say).
pub fn check_room(files: &[(&Path, u64, &str)]) -> Result<()> {
    use std::os::unix::fs::MetadataExt;
    let mut by_device: Vec<(u64, &Path, u64, Vec<String>)> = Vec::new();
    for &(path, bytes, flag) in files {
        let folder = folder_of(path);
        let Ok(meta) = fs::metadata(folder) else {
            continue;
        };
        match by_device.iter_mut().find(|d| d.0 == meta.dev()) {
            Some(d) => {
                d.2 += bytes;
                d.3.push(format!("{flag} {}", path.display()));
            }
            None => by_device.push((
                meta.dev(),
                folder,
                bytes,
                vec![format!("{flag} {}", path.display())],
            )),
        }
    }
    for (_, folder, bytes, names) in by_device {
        let Some(free) = free_bytes(folder) else {
            continue;
        };
        if bytes > free {
            return Err(Error::Invalid(format!(
                "{} needs {} on the file system of '{}', which has {} free; free some space or choose another folder",
                names.join(" and "),
                crate::base::memory::human(bytes),
                folder.display(),
                crate::base::memory::human(free)
            )));
        }
    }
    Ok(())
}
