//! What is refused before any work: a file that a run must not write over, and files that will
//! not fit on their file system.

use super::reader::{open_with_len, read_header_from};
use super::{invalid, Ruleset};
use crate::base::error::{Error, Result};
use std::path::Path;

/// Refuses to let a checkpoint for `rules` and N = `limit` replace `path` unless `path` does
/// not exist or is a checkpoint or table for the same rules holding no more positions than the
/// run will (so nothing the user did not ask to lose is overwritten).
pub fn check_overwritable(path: &Path, rules: &dyn Ruleset, limit: usize) -> Result<()> {
    if !path.exists() {
        return Ok(());
    }
    // Its length is not checked: a checkpoint cut short is still one to resume and replace.
    let header = open_with_len(path)
        .and_then(|(mut file, len)| read_header_from(&mut file, len, path))
        .map_err(|e| {
            Error::Invalid(format!(
                "{e} (refusing to overwrite it; delete it or choose another file)"
            ))
        })?;
    header.check_matches(rules, path)?;
    if header.done > limit as u64 + 1 {
        return Err(invalid(
            path,
            &format!(
                "holds {} positions, more than N + 1 = {} this run writes; refusing to overwrite it (choose another file)",
                header.done,
                limit + 1
            ),
        ));
    }
    Ok(())
}

/// Refuses if `path` exists: a finished table is never written over an existing file.
pub fn check_absent(path: &Path, flag: &str) -> Result<()> {
    if path.is_dir() {
        return Err(Error::Invalid(format!(
            "{flag} {}: is a folder; give the name of a file to create (for example {}/g.tbl)",
            path.display(),
            path.display()
        )));
    }
    if path.exists() {
        return Err(Error::Invalid(format!(
            "{flag} {}: the file already exists; remove it or choose another name",
            path.display()
        )));
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

pub use crate::base::paths::folder_of;

/// Refuses, before any work, files that will not fit: `files` are (path, bytes, flag), and
/// the files whose folders share a file system (one `st_dev`) must fit in its free space
/// together, so two outputs on one small disk are refused although each alone would fit.
/// A folder whose free space cannot be read is not refused here (the write will say).
pub fn check_room(files: &[(&Path, u64, &str)]) -> Result<()> {
    use std::os::unix::fs::MetadataExt;
    let device = |folder: &Path| std::fs::metadata(folder).ok().map(|m| m.dev());
    for need in room_needed(files, device) {
        let Some(free) = free_bytes(need.folder) else {
            continue;
        };
        if !fits(need.bytes, free) {
            return Err(Error::Invalid(format!(
                "{} needs {} on the file system of '{}', which has {} free; free some space or choose another folder",
                need.names.join(" and "),
                crate::base::memory::human(need.bytes),
                need.folder.display(),
                crate::base::memory::human(free)
            )));
        }
    }
    Ok(())
}

/// The bytes `files` need on one file system, as [`check_room`] adds them up.
#[derive(Debug, PartialEq, Eq)]
struct RoomNeeded<'a> {
    /// The folder of the first file on it, where its free space is read.
    folder: &'a Path,
    bytes: u64,
    /// `FLAG PATH` of each file on it.
    names: Vec<String>,
}

/// `files` grouped by the file system of their folders (`device` of a folder; a folder
/// without one is left out), the bytes of each group summed, in the order first met.
fn room_needed<'a>(
    files: &[(&'a Path, u64, &str)],
    device: impl Fn(&Path) -> Option<u64>,
) -> Vec<RoomNeeded<'a>> {
    let mut by_device: Vec<(u64, RoomNeeded<'a>)> = Vec::new();
    for &(path, bytes, flag) in files {
        let folder = folder_of(path);
        let Some(dev) = device(folder) else {
            continue;
        };
        let name = format!("{flag} {}", path.display());
        match by_device.iter_mut().find(|d| d.0 == dev) {
            Some((_, need)) => {
                need.bytes += bytes;
                need.names.push(name);
            }
            None => by_device.push((
                dev,
                RoomNeeded {
                    folder,
                    bytes,
                    names: vec![name],
                },
            )),
        }
    }
    by_device.into_iter().map(|(_, need)| need).collect()
}

/// True when `bytes` fit in `free` bytes (exactly filling them is fitting).
fn fits(bytes: u64, free: u64) -> bool {
    bytes <= free
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_space_is_read_for_a_folder_that_exists_and_a_bare_name_is_in_the_current_one() {
        assert!(free_bytes(Path::new(".")).is_some());
        assert_eq!(free_bytes(Path::new("/no/such/folder/here")), None);
        assert_eq!(folder_of(Path::new("g.tbl")), Path::new("."));
        assert_eq!(folder_of(Path::new("/data/g.tbl")), Path::new("/data"));
    }

    #[test]
    fn files_are_summed_per_file_system_and_fit_when_they_fill_it_exactly() {
        // Folders /a and /b on device 1, /c on 2, /d on none that can be read.
        let device = |f: &Path| match f.to_str().unwrap() {
            "/a" | "/b" => Some(1),
            "/c" => Some(2),
            _ => None,
        };
        let (a, b, c, d) = (
            Path::new("/a/x"),
            Path::new("/b/y"),
            Path::new("/c/z"),
            Path::new("/d/w"),
        );
        let got = room_needed(
            &[
                (a, 1, "--one"),
                (c, 5, "--three"),
                (d, 9, "--four"),
                (b, 7, "--two"),
            ],
            device,
        );
        let want = [
            RoomNeeded {
                folder: Path::new("/a"),
                bytes: 8,
                names: vec!["--one /a/x".into(), "--two /b/y".into()],
            },
            RoomNeeded {
                folder: Path::new("/c"),
                bytes: 5,
                names: vec!["--three /c/z".into()],
            },
        ];
        assert_eq!(got, want);
        assert!(fits(10, 10) && fits(9, 10) && !fits(11, 10));
    }

    #[test]
    fn files_on_one_file_system_must_fit_its_free_space_together() {
        let dir = std::env::temp_dir();
        let free = free_bytes(&dir).expect("the temp dir's free space");
        let (a, b) = (dir.join("a.tbl"), dir.join("b.tbl"));
        // Six tenths of the free space each: one fits, the two together do not.
        let part = free / 10 * 6;
        assert!(check_room(&[(&a, part, "--checkpoint")]).is_ok());
        let err = check_room(&[(&a, part, "--checkpoint"), (&b, part, "--save-table")])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("--checkpoint") && err.contains("--save-table"),
            "{err}"
        );
        let err = check_room(&[(&a, free + (1 << 30), "--save-table")]).unwrap_err();
        assert!(err.to_string().contains("free some space"), "{err}");
    }
}
