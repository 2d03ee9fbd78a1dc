//! Writing a table file so that its path always holds either the old file or the whole new
//! one. The temporary file, its removal on any failure and the rename are the `tempfile`
//! crate's ([`tempfile::NamedTempFile`]); what is left here is the format's single pass over
//! the values, the two syncs that make the replacement durable, which `tempfile` leaves to
//! its caller, and the removal of the temporary files a killed write leaves behind (found by
//! `scripts/kills.py`: a random name is never written again, so nothing else would).

use super::checks::folder_of;
use super::{
    block_count, encode_header, header_len_for, invalid, io_error, values_to_le, Fnv1a64, Ruleset,
    BLOCK_VALUES, CHUNK_VALUES,
};
use crate::base::error::Result;
use crate::base::fault;
use std::fs::{File, Permissions};
use std::io::{Seek, SeekFrom, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Writes g(0..values_done.len()) for `rules` and N = `limit` to `path` so that `path` is always
/// either the old file or the whole new one: a new temporary file `NAME.XXXXXX.tmp` in the
/// same folder (created exclusively, with the permissions a new file gets, removed again on
/// any failure), fsynced, renamed over `path`, then the folder fsynced. Temporary files of
/// `path` that a killed write left (no drop removes them after SIGKILL) are removed first
/// (`remove_stale_temporaries`). `max` must be the
/// largest value in `values_done` (0 when empty). Overwrites `path` without asking: callers
/// check first ([`check_overwritable`](super::check_overwritable)).
pub fn write_atomic(
    path: &Path,
    rules: &dyn Ruleset,
    limit: u64,
    values_done: &[u16],
    max: u16,
) -> Result<()> {
    let done = values_done.len() as u64;
    if done > limit + 1 {
        return Err(invalid(
            path,
            &format!("cannot store {done} values for N = {limit} (at most N + 1)"),
        ));
    }
    let folder = folder_of(path);
    let mut prefix = path.file_name().unwrap_or_default().to_os_string();
    prefix.push(".");
    remove_stale_temporaries(folder, &prefix);
    fault::before_create().map_err(|e| io_error(path, "create a temporary file beside", e))?;
    let mut tmp = tempfile::Builder::new()
        .prefix(&prefix)
        .rand_bytes(RAND_CHARS)
        .suffix(".tmp")
        // As `File::create` would: 0666 less the umask (tempfile's default is 0600).
        .permissions(Permissions::from_mode(0o666))
        .tempfile_in(folder)
        .map_err(|e| io_error(path, "create a temporary file beside", e))?;
    // An error from here on drops `tmp`, which removes the temporary file.
    write_values(tmp.as_file_mut(), rules, limit, values_done, max)
        .and_then(|()| fault::sync_all(tmp.as_file()))
        .map_err(|e| io_error(tmp.path(), "write", e))?;
    fault::persist(tmp, path).map_err(|e| io_error(path, "rename the new table onto", e.error))?;
    // The rename is durable only once the folder entry is: fsync the folder (best effort on
    // systems where a directory cannot be opened for syncing).
    let _ = fault::sync_folder(folder);
    Ok(())
}

/// The random characters of a temporary file's name (`NAME.XXXXXX.tmp`): tempfile's default,
/// named here so that [`is_stale_temporary`] knows the shape it removes.
const RAND_CHARS: usize = 6;

/// Removes the temporary files `PREFIX` + [`RAND_CHARS`] letters or digits + `.tmp` in
/// `folder` (`PREFIX` = `NAME.`): what a write of the table file `NAME` leaves when the
/// process is killed (SIGKILL, a power cut) between creating its temporary file and the
/// rename, which no drop then removes. A table's temporary file is as large as the table (up
/// to gigabytes), and its name is new each time, so without this each such kill would leave
/// one more on disk for good. Best effort: a file that cannot be listed or removed stays.
/// Only one run writes a given table file at a time (its checkpoint is resumed, not
/// shared), so a temporary file found here is no other write's.
fn remove_stale_temporaries(folder: &Path, prefix: &std::ffi::OsStr) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let is_file = entry.file_type().is_ok_and(|t| t.is_file());
        if is_file && is_stale_temporary(&name, prefix) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// True when `name` is `PREFIX` + [`RAND_CHARS`] ASCII letters or digits + `.tmp`, the name
/// tempfile gives a table file's temporary file (`ck.tbl.Ab3xZ9.tmp` for `ck.tbl.`).
fn is_stale_temporary(name: &std::ffi::OsStr, prefix: &std::ffi::OsStr) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let (name, prefix) = (name.as_bytes(), prefix.as_bytes());
    let Some(rest) = name.strip_prefix(prefix) else {
        return false;
    };
    let Some(chars) = rest.strip_suffix(b".tmp") else {
        return false;
    };
    chars.len() == RAND_CHARS && chars.iter().all(u8::is_ascii_alphanumeric)
}

/// The file's bytes in one pass over g: a zeroed header, the values (their block checksums
/// taken on the way), then the header written over the zeros once the checksums are known.
fn write_values(
    file: &mut File,
    rules: &dyn Ruleset,
    limit: u64,
    values_done: &[u16],
    max: u16,
) -> std::io::Result<()> {
    let done = values_done.len() as u64;
    let label = rules.label();
    let blocks = block_count(done, BLOCK_VALUES as u64);
    let placeholder = vec![0u8; header_len_for(label.len(), blocks)];
    let mut file = fault::Writer(file);
    file.write_all(&placeholder)?;
    let mut sums = Vec::with_capacity(blocks);
    let mut buf = Vec::new();
    {
        let mut out = std::io::BufWriter::with_capacity(1 << 20, &mut file);
        for block in values_done.chunks(BLOCK_VALUES) {
            let mut sum = Fnv1a64::default();
            for chunk in block.chunks(CHUNK_VALUES) {
                values_to_le(chunk, &mut buf);
                sum.update(&buf);
                out.write_all(&buf)?;
            }
            sums.push(sum.finish());
        }
        out.flush()?;
    }
    let header = encode_header(limit, done, max, &label, &sums);
    file.0.seek(SeekFrom::Start(0))?;
    file.write_all(&header)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::is_stale_temporary;
    use std::ffi::OsStr;

    #[test]
    fn only_a_temporary_of_this_table_is_stale() {
        let p = OsStr::new("ck.tbl.");
        assert!(is_stale_temporary(OsStr::new("ck.tbl.Ab3xZ9.tmp"), p));
        for other in [
            "ck.tbl",
            "ck.tbl.tmp",
            "ck.tbl.Ab3xZ.tmp",
            "ck.tbl.Ab3xZ99.tmp",
            "ck.tbl.Ab-xZ9.tmp",
            "ck.tbl.Ab3xZ9.tmpx",
            "xck.tbl.Ab3xZ9.tmp",
            "ck.tbl2.Ab3xZ9.tmp",
        ] {
            assert!(!is_stale_temporary(OsStr::new(other), p), "{other}");
        }
    }
}
