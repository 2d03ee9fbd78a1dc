//! Writing a table file so that its path always holds either the old file or the whole new
//! one. The temporary file, its removal on any failure and the rename are the `tempfile`
//! crate's ([`tempfile::NamedTempFile`]); what is left here is the format's single pass over
//! the values and the two syncs that make the replacement durable, which `tempfile` leaves to
//! its caller.

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
/// any failure), fsynced, renamed over `path`, then the folder fsynced. `max` must be the
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
    fault::before_create().map_err(|e| io_error(path, "create a temporary file beside", e))?;
    let mut tmp = tempfile::Builder::new()
        .prefix(&prefix)
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
