//! One binary format for a finished table and for a checkpoint, so that a run at N = 10^9
//! can be stopped and resumed, a table computed once can be reused (also for a larger N, since
//! a prefix of g does not depend on N), and other tools can read the values without this crate.
//!
//! A checkpoint is a table file whose `done` is less than N + 1; nothing else differs.
//!
//! # Layout (version 1, all integers little-endian)
//!
//! | offset | size | field |
//! | ---: | ---: | --- |
//! | 0 | 8 | magic `NIMSQTBL` |
//! | 8 | 4 | format version, u32 = 1 |
//! | 12 | 4 | header length H in bytes, u32 (4096 unless the moves label is longer than 4032 bytes; always a multiple of 4096) |
//! | 16 | 8 | N, the limit the table was made for, u64 |
//! | 24 | 8 | done, u64: g(0), ..., g(done - 1) are stored; done <= N + 1 |
//! | 32 | 2 | max of the stored values, u16 (0 when done = 0) |
//! | 34 | 2 | zero |
//! | 36 | 4 | L, length of the moves label in bytes, u32 |
//! | 40 | 8 | values checksum: FNV-1a 64 of the `2 * done` value bytes as stored |
//! | 48 | 8 | header checksum: FNV-1a 64 of the H header bytes with this field set to zero |
//! | 56 | 8 | zero |
//! | 64 | L | the moves label, UTF-8: `squares` or the sorted list such as `1,3,4` ([`Moves::label`]) |
//! | 64 + L | ... | zero up to H |
//! | H | 2 * done | g(0), g(1), ..., g(done - 1), each u16 little-endian |
//!
//! Read H from byte 12, never assume it: the values start at byte 4096 for a moves label up
//! to 4032 bytes (the squares and any list short enough to type), and a longer label grows H
//! to the next multiple of 4096 (the 2000 moves 1, 4, ..., 5998 give a 12 288-byte header). numpy reads
//! the values with H taken from the file:
//!
//! ```text
//! g = numpy.fromfile(path, dtype='<u2', offset=int(numpy.fromfile(path, dtype='<u4', count=4)[3]))
//! ```
//!
//! FNV-1a 64 (offset basis 0xcbf29ce484222325, prime 0x100000001b3, one byte at a time) is
//! used for both checksums: it is a few lines, needs no dependency, and catches the damage
//! that matters here (a torn or truncated write, a flipped byte); it is not a defence against
//! deliberate tampering.

use crate::base::error::{Error, Result};
use crate::base::moves::Moves;
use std::fs::{self, File};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The first 8 bytes of every table file.
pub const MAGIC: &[u8; 8] = b"NIMSQTBL";
/// The format version this build writes and the newest it reads.
pub const FORMAT_VERSION: u32 = 1;
/// The header length for every moves label up to [`MAX_SHORT_LABEL`] bytes: the byte offset
/// of g(0).
pub const HEADER_BYTES: usize = 4096;
/// The longest moves label that fits the standard 4096-byte header.
pub const MAX_SHORT_LABEL: usize = HEADER_BYTES - LABEL_AT;

const LABEL_AT: usize = 64;
const VALUES_SUM_AT: usize = 40;
const HEADER_SUM_AT: usize = 48;
/// Values are converted and hashed this many at a time, so a 2 GB table needs no second copy.
const CHUNK_VALUES: usize = 1 << 19;

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// FNV-1a 64, extended one slice at a time (so a file can be hashed as it streams).
#[derive(Debug, Clone, Copy)]
pub struct Fnv1a64(u64);

impl Default for Fnv1a64 {
    fn default() -> Self {
        Fnv1a64(FNV_OFFSET)
    }
}

impl Fnv1a64 {
    /// Hashes `bytes` after everything hashed so far.
    pub fn update(&mut self, bytes: &[u8]) {
        let mut h = self.0;
        for &b in bytes {
            h ^= b as u64;
            h = h.wrapping_mul(FNV_PRIME);
        }
        self.0 = h;
    }

    /// The hash of everything given to [`Fnv1a64::update`].
    pub fn finish(&self) -> u64 {
        self.0
    }
}

/// FNV-1a 64 of one byte string.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h = Fnv1a64::default();
    h.update(bytes);
    h.finish()
}

/// The header of a table file, checked: magic, version, header checksum, label, `done <= N+1`,
/// and a file length that holds exactly `done` values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// N, the limit the file was made for.
    pub limit: u64,
    /// g(0..done) are stored.
    pub done: u64,
    /// The largest stored value (0 when `done` = 0).
    pub max: u16,
    /// [`Moves::label`] of the moves the values are for.
    pub moves_label: String,
    /// The byte offset of g(0).
    pub header_bytes: usize,
    /// FNV-1a 64 of the value bytes.
    pub values_checksum: u64,
}

impl Header {
    /// True when the file holds the whole table g(0..=N), false for a checkpoint.
    pub fn is_complete(&self) -> bool {
        self.done == self.limit + 1
    }

    /// How many positions g(0..k) this file supplies to a run for `requested_limit`:
    /// min(done, requested N + 1). A file for a smaller N seeds a larger one because g(n)
    /// depends only on the positions below n.
    pub fn provides(&self, requested_limit: usize) -> usize {
        (self.done.min(requested_limit as u64 + 1)) as usize
    }

    /// Refuses a file made for other moves: "was made for moves 1,3,4, not squares".
    pub fn check_matches(&self, moves: &Moves, path: &Path) -> Result<()> {
        check_label(&self.moves_label, moves, path)
    }
}

impl TableFile {
    /// Refuses a file made for other moves ([`Header::check_matches`]), and one whose values
    /// break the rules at a spot-checked position ([`super::spot_check`]): what every use of
    /// a loaded table goes through.
    pub fn check_usable(&self, moves: &Moves) -> Result<()> {
        let path = &self.path;
        self.header.check_matches(moves, path)?;
        match super::spot_check::first_wrong(moves, &self.values) {
            None => Ok(()),
            Some((n, found, rules)) => Err(invalid(
                path,
                &format!(
                    "g({n}) is {found} in the file, but the mex of its options there is {rules}: the values are wrong although the checksum holds; rebuild the table"
                ),
            )),
        }
    }
}

/// A table or checkpoint read back in full, every check passed. It reads as its [`Header`]
/// (`file.limit`, `file.done`, `file.max`, `file.moves_label`, `file.provides(n)`, ...)
/// through `Deref`, so the two never describe a file twice; `max` has been checked against
/// the values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableFile {
    /// The checked header.
    pub header: Header,
    /// g(0), ..., g(done - 1).
    pub values: Vec<u16>,
    /// The file it was read from (for messages).
    pub path: PathBuf,
}

impl std::ops::Deref for TableFile {
    type Target = Header;

    fn deref(&self) -> &Header {
        &self.header
    }
}

/// Refuses a file whose moves label is not `moves.label()`.
fn check_label(label: &str, moves: &Moves, path: &Path) -> Result<()> {
    let want = moves.label();
    if label != want {
        return Err(invalid(
            path,
            &format!(
                "was made for moves {label}, not {want}; give --moves {label} or another file"
            ),
        ));
    }
    Ok(())
}

fn invalid(path: &Path, reason: &str) -> Error {
    Error::Invalid(format!("table file {}: {reason}", path.display()))
}

fn io_error(path: &Path, doing: &str, e: std::io::Error) -> Error {
    Error::Invalid(format!("cannot {doing} {}: {e}", path.display()))
}

/// The header length for a label of `label_len` bytes: 4096, or the next multiple of 4096
/// that holds a longer label.
fn header_len_for(label_len: usize) -> usize {
    (LABEL_AT + label_len).div_ceil(HEADER_BYTES) * HEADER_BYTES
}

fn encode_header(limit: u64, done: u64, max: u16, label: &str, values_checksum: u64) -> Vec<u8> {
    let len = header_len_for(label.len());
    let mut h = vec![0u8; len];
    h[0..8].copy_from_slice(MAGIC);
    h[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    h[12..16].copy_from_slice(&(len as u32).to_le_bytes());
    h[16..24].copy_from_slice(&limit.to_le_bytes());
    h[24..32].copy_from_slice(&done.to_le_bytes());
    h[32..34].copy_from_slice(&max.to_le_bytes());
    h[36..40].copy_from_slice(&(label.len() as u32).to_le_bytes());
    h[VALUES_SUM_AT..VALUES_SUM_AT + 8].copy_from_slice(&values_checksum.to_le_bytes());
    h[LABEL_AT..LABEL_AT + label.len()].copy_from_slice(label.as_bytes());
    let sum = fnv1a64(&h);
    h[HEADER_SUM_AT..HEADER_SUM_AT + 8].copy_from_slice(&sum.to_le_bytes());
    h
}

fn le_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn le_u64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// Converts values to little-endian bytes into `buf` (cleared first).
fn values_to_le(values: &[u16], buf: &mut Vec<u8>) {
    buf.clear();
    buf.reserve(values.len() * 2);
    for &v in values {
        buf.extend_from_slice(&v.to_le_bytes());
    }
}

/// FNV-1a 64 of `values` as they are stored (little-endian bytes).
pub fn values_checksum(values: &[u16]) -> u64 {
    let mut h = Fnv1a64::default();
    let mut buf = Vec::new();
    for chunk in values.chunks(CHUNK_VALUES) {
        values_to_le(chunk, &mut buf);
        h.update(&buf);
    }
    h.finish()
}

/// The temporary file next to `path` that [`write_atomic`] writes first.
pub fn tmp_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    path.with_file_name(name)
}

/// Writes g(0..values_done.len()) for moves and N = `limit` to `path` so that `path` is always
/// either the old file or the whole new one: write `path.tmp` in the same folder, fsync it,
/// rename it over `path`, fsync the folder. `max` must be the largest value in `values_done`
/// (0 when empty). Overwrites `path` without asking: callers check first
/// ([`check_overwritable`]).
pub fn write_atomic(
    path: &Path,
    moves: &Moves,
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
    let label = moves.label();
    let tmp = tmp_path(path);
    let write = || -> std::io::Result<()> {
        let mut file = File::create(&tmp)?;
        // The header is written last, once the values checksum is known: one pass over g.
        let placeholder = vec![0u8; header_len_for(label.len())];
        file.write_all(&placeholder)?;
        let mut sum = Fnv1a64::default();
        let mut buf = Vec::new();
        {
            let mut out = std::io::BufWriter::with_capacity(1 << 20, &mut file);
            for chunk in values_done.chunks(CHUNK_VALUES) {
                values_to_le(chunk, &mut buf);
                sum.update(&buf);
                out.write_all(&buf)?;
            }
            out.flush()?;
        }
        let header = encode_header(limit, done, max, &label, sum.finish());
        file.seek(SeekFrom::Start(0))?;
        file.write_all(&header)?;
        file.sync_all()?;
        Ok(())
    };
    if let Err(e) = write() {
        let _ = fs::remove_file(&tmp);
        return Err(io_error(&tmp, "write", e));
    }
    fs::rename(&tmp, path).map_err(|e| {
        let _ = fs::remove_file(&tmp);
        io_error(path, "rename the new table onto", e)
    })?;
    // The rename is durable only once the folder entry is: fsync the folder (best effort on
    // systems where a directory cannot be opened for syncing).
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if let Ok(d) = File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Reads and checks the header of the table file at `path`, and that the file length matches
/// it. Does not read or check the values (see [`read`]).
pub fn read_header(path: &Path) -> Result<Header> {
    let (mut file, file_len) = open_with_len(path)?;
    read_header_from(&mut file, file_len, path)
}

/// Opens `path` for reading and tells its length.
fn open_with_len(path: &Path) -> Result<(File, u64)> {
    let file = File::open(path).map_err(|e| io_error(path, "open", e))?;
    let len = file
        .metadata()
        .map_err(|e| io_error(path, "read", e))?
        .len();
    Ok((file, len))
}

/// Reads the header at the start of `file` (`file_len` bytes long) and checks it and the
/// file length, in the order a damaged file is most usefully described: what the file is,
/// whether the header is whole and intact, what it claims, and whether the values are all
/// there.
fn read_header_from(file: &mut File, file_len: u64, path: &Path) -> Result<Header> {
    let mut first = [0u8; 16];
    let header_len = read_prefix(file, &mut first, path)?;
    if file_len < header_len as u64 {
        return Err(invalid(path, "truncated (the header is incomplete)"));
    }
    let h = read_whole_header(file, &first, header_len, path)?;
    let header = decode_header(&h, path)?;
    check_file_len(&header, file_len, path)?;
    Ok(header)
}

/// Reads the first 16 bytes into `first` and checks the magic, the version and the header
/// length, which it returns.
fn read_prefix(file: &mut File, first: &mut [u8; 16], path: &Path) -> Result<usize> {
    let got = read_up_to(file, first).map_err(|e| io_error(path, "read", e))?;
    if got < 8 || &first[0..8] != MAGIC {
        return Err(invalid(
            path,
            "not a nimsquare table file (it does not start with NIMSQTBL)",
        ));
    }
    if got < 16 {
        return Err(invalid(path, "truncated (the header is incomplete)"));
    }
    let version = le_u32(first, 8);
    if version > FORMAT_VERSION {
        return Err(invalid(
            path,
            &format!(
                "written by a newer nimsquare: format version {version}, this build reads {FORMAT_VERSION}"
            ),
        ));
    }
    if version == 0 {
        return Err(invalid(path, "damaged (format version 0)"));
    }
    let header_len = le_u32(first, 12) as usize;
    if header_len < HEADER_BYTES || !header_len.is_multiple_of(HEADER_BYTES) || header_len > 1 << 24
    {
        return Err(invalid(
            path,
            &format!("damaged header (header length {header_len})"),
        ));
    }
    Ok(header_len)
}

/// The whole `header_len`-byte header (`first` and the rest read from `file`), its checksum
/// verified; the checksum field is left zeroed.
fn read_whole_header(
    file: &mut File,
    first: &[u8; 16],
    header_len: usize,
    path: &Path,
) -> Result<Vec<u8>> {
    let mut h = vec![0u8; header_len];
    h[..16].copy_from_slice(first);
    file.read_exact(&mut h[16..])
        .map_err(|e| io_error(path, "read", e))?;
    let stored_sum = le_u64(&h, HEADER_SUM_AT);
    h[HEADER_SUM_AT..HEADER_SUM_AT + 8].fill(0);
    if fnv1a64(&h) != stored_sum {
        return Err(invalid(
            path,
            "damaged header (checksum mismatch); delete it and compute the table again",
        ));
    }
    Ok(h)
}

/// The fields of an intact header `h`, refused if they contradict each other or the limits.
fn decode_header(h: &[u8], path: &Path) -> Result<Header> {
    let limit = le_u64(h, 16);
    let done = le_u64(h, 24);
    let max = u16::from_le_bytes([h[32], h[33]]);
    let label_len = le_u32(h, 36) as usize;
    if LABEL_AT + label_len > h.len() {
        return Err(invalid(path, "damaged header (label length)"));
    }
    let moves_label = String::from_utf8(h[LABEL_AT..LABEL_AT + label_len].to_vec())
        .map_err(|_| invalid(path, "damaged header (moves label is not UTF-8)"))?;
    if limit > crate::table::MAX_LIMIT {
        return Err(invalid(
            path,
            &format!("N = {limit} is above the supported maximum"),
        ));
    }
    if done > limit + 1 {
        return Err(invalid(
            path,
            &format!("claims {done} positions for N = {limit} (at most N + 1)"),
        ));
    }
    Ok(Header {
        limit,
        done,
        max,
        moves_label,
        header_bytes: h.len(),
        values_checksum: le_u64(h, VALUES_SUM_AT),
    })
}

/// Refuses a file that does not hold exactly the header and `header.done` values.
fn check_file_len(header: &Header, file_len: u64, path: &Path) -> Result<()> {
    let done = header.done;
    let want_len = header.header_bytes as u64 + 2 * done;
    if file_len < want_len {
        return Err(invalid(
            path,
            &format!("truncated ({file_len} bytes, the header promises {want_len}: {done} values)"),
        ));
    }
    if file_len > want_len {
        return Err(invalid(
            path,
            &format!("damaged ({file_len} bytes, the header promises {want_len})"),
        ));
    }
    Ok(())
}

/// Reads as many bytes as the file has, up to `buf.len()`.
fn read_up_to(file: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match file.read(&mut buf[got..])? {
            0 => break,
            n => got += n,
        }
    }
    Ok(got)
}

/// Reads a table file and checks everything: magic, version, header checksum, length, values
/// checksum and the stored max. Every refusal is one line naming the file and the reason.
pub fn read(path: &Path) -> Result<TableFile> {
    let (mut file, file_len) = open_with_len(path)?;
    let header = read_header_from(&mut file, file_len, path)?;
    let done = usize::try_from(header.done).map_err(|_| invalid(path, "too large"))?;
    let mut values = Vec::with_capacity(done);
    let mut sum = Fnv1a64::default();
    let mut max = 0u16;
    let mut buf = vec![0u8; 2 * CHUNK_VALUES.min(done.max(1))];
    let mut left = done;
    while left > 0 {
        let n = left.min(CHUNK_VALUES);
        let bytes = &mut buf[..2 * n];
        file.read_exact(bytes)
            .map_err(|e| io_error(path, "read", e))?;
        sum.update(bytes);
        for pair in bytes.chunks_exact(2) {
            let v = u16::from_le_bytes([pair[0], pair[1]]);
            max = max.max(v);
            values.push(v);
        }
        left -= n;
    }
    if sum.finish() != header.values_checksum {
        return Err(invalid(
            path,
            "damaged values (checksum mismatch); delete it and compute the table again",
        ));
    }
    if max != header.max {
        return Err(invalid(
            path,
            &format!(
                "damaged (the header says max {}, the values have {max})",
                header.max
            ),
        ));
    }
    Ok(TableFile {
        header,
        values,
        path: path.to_path_buf(),
    })
}

/// Refuses to let a checkpoint for `moves` and N = `limit` replace `path` unless `path` does
/// not exist or is a checkpoint or table for the same moves holding no more positions than the
/// run will (so nothing the user did not ask to lose is overwritten).
pub fn check_overwritable(path: &Path, moves: &Moves, limit: usize) -> Result<()> {
    if !path.exists() {
        return Ok(());
    }
    let header = read_header(path).map_err(|e| {
        Error::Invalid(format!(
            "{e} (refusing to overwrite it; delete it or choose another file)"
        ))
    })?;
    header.check_matches(moves, path)?;
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

/// Reads the complete table in `path` made for `moves`, for a command's `flag` (such as
/// `--load-table`): refuses, naming the flag, a damaged file, one made for other moves, and a
/// checkpoint that is not finished. Its values are not spot-checked: `verify` checks them all,
/// and other users call [`TableFile::check_usable`].
pub fn read_complete(path: &Path, moves: &Moves, flag: &str) -> Result<TableFile> {
    let named = |e: Error| Error::Invalid(format!("{flag}: {e}"));
    let file = read(path).map_err(named)?;
    file.check_matches(moves, path).map_err(named)?;
    if !file.is_complete() {
        return Err(Error::Invalid(format!(
            "{flag} {}: a checkpoint of {} of {} positions; finish it with `solve --checkpoint` first",
            path.display(),
            file.done,
            file.limit + 1
        )));
    }
    Ok(file)
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

/// The bytes of a complete table file for `moves` and N = `limit`: the header and N + 1
/// little-endian u16 values.
pub fn file_bytes(moves: &Moves, limit: u64) -> u64 {
    header_len_for(moves.label().len()) as u64 + 2 * (limit + 1)
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
        let Ok(meta) = std::fs::metadata(folder) else {
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

/// Checks, before hours of work, that a table file can be written at `path`: the checks of
/// [`crate::base::paths::check_output_path`], with the write test made on `path.tmp`, the file
/// [`write_atomic`] writes first.
pub fn check_writable(path: &Path, flag: &str) -> Result<()> {
    crate::base::paths::check_output_path_via(path, &tmp_path(path), flag)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_known_values() {
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn header_length_is_4096_for_short_labels() {
        assert_eq!(header_len_for(0), 4096);
        assert_eq!(header_len_for(MAX_SHORT_LABEL), 4096);
        assert_eq!(header_len_for(MAX_SHORT_LABEL + 1), 8192);
        let h = encode_header(10, 3, 2, "squares", 7);
        assert_eq!(h.len(), HEADER_BYTES);
        assert_eq!(le_u32(&h, 12) as usize, HEADER_BYTES);
    }
}
