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

/// Writes `path` through `write(tmp)` on a sibling `PATH.tmp`, then renames that over `path`,
/// so neither a reader nor a crash mid-write ever sees a half-written file under the name. A
/// failed write removes the temporary file and leaves `path` as it was.
pub fn replace_atomically(path: &Path, write: impl FnOnce(&Path) -> Result<()>) -> Result<()> {
    let mut name = path.as_os_str().to_os_string();
    name.push(".tmp");
    let tmp = std::path::PathBuf::from(name);
    if let Err(e) = write(&tmp) {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    fs::rename(&tmp, path).map_err(|e| {
        let _ = fs::remove_file(&tmp);
        Error::Invalid(format!(
            "cannot move {} to {}: {e}",
            tmp.display(),
            path.display()
        ))
    })
}
