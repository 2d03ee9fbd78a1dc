//! One binary format for a finished table and for a checkpoint, so that a run at N = 10^9
//! can be stopped and resumed, a table computed once can be reused (also for a larger N, since
//! a prefix of g does not depend on N), and other tools can read the values without this crate.
//!
//! A checkpoint is a table file whose `done` is less than N + 1; nothing else differs.
//!
//! # Layout (version 2, all integers little-endian)
//!
//! | offset | size | field |
//! | ---: | ---: | --- |
//! | 0 | 8 | magic `NIMSQTBL` |
//! | 8 | 4 | format version, u32 = 2 |
//! | 12 | 4 | header length H in bytes, u32, a multiple of 4096 (see below) |
//! | 16 | 8 | N, the limit the table was made for, u64 |
//! | 24 | 8 | done, u64: g(0), ..., g(done - 1) are stored; done <= N + 1 |
//! | 32 | 2 | max of the stored values, u16 (0 when done = 0) |
//! | 34 | 2 | zero |
//! | 36 | 4 | L, length of the rules label in bytes, u32 |
//! | 40 | 4 | B, values per block, u32 ([`BLOCK_VALUES`] = 2^20 when this build writes) |
//! | 44 | 4 | zero |
//! | 48 | 8 | header checksum: FNV-1a 64 of the first S bytes with this field set to zero |
//! | 56 | 8 | zero |
//! | 64 | L | the rules label, UTF-8 ([`Ruleset::label`]): a subtraction set's `squares` or sorted list such as `1,3,4`, an octal game's `octal ` and its code (`octal 0.6`) |
//! | 64 + L | ... | zero up to S = 64 + L rounded up to a multiple of 8 |
//! | S | 8 · ceil(done / B) | block checksums: FNV-1a 64 of the value bytes of g(kB..min((k+1)B, done)), block k = 0, 1, ... |
//! | ... | ... | zero up to H |
//! | H | 2 * done | g(0), g(1), ..., g(done - 1), each u16 little-endian |
//!
//! H is the smallest multiple of 4096 that holds S and the block checksums: 4096 for a moves
//! label of a few dozen bytes up to done ≈ 5 · 10^8, 8192 at 10^9; a long label grows it (the
//! 2000 moves 1, 4, ..., 5998 give 12 288 bytes). Read H from byte 12, never assume it. numpy
//! reads the values with H taken from the file:
//!
//! ```text
//! g = numpy.fromfile(path, dtype='<u2', offset=int(numpy.fromfile(path, dtype='<u4', count=4)[3]))
//! ```
//!
//! One checksum per block rather than one over all values, so a damage is located: a
//! checkpoint whose block k is damaged (or cut short) still holds g(0..kB), and a resumed run
//! keeps that prefix and computes again from g(kB) ([`read_checkpoint`]); a finished table
//! ([`read`]) is refused naming the first bad block. The header checksum covers the fields and
//! the label, not the block checksums: a damaged block checksum only marks its block bad.
//! Version 1 (one checksum over all values, before blocks) is refused in one line: its
//! tables are computed again.
//!
//! The octal games' tables use the same layout, version 2 unchanged: only their label differs
//! (`octal 0.6`), and no subtraction set's label starts with `octal `, so a Nim Square table
//! is never taken for an octal game's or the reverse ([`super::ruleset`]).
//!
//! FNV-1a 64 (offset basis 0xcbf29ce484222325, prime 0x100000001b3, one byte at a time) is
//! used for all checksums: it is a few lines, needs no dependency, and catches the damage
//! that matters here (a torn or truncated write, a flipped byte); it is not a defence against
//! deliberate tampering.

use super::ruleset::{self, Ruleset};
use crate::base::error::{Error, Result};
use std::fs::{self, File};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The first 8 bytes of every table file.
pub const MAGIC: &[u8; 8] = b"NIMSQTBL";
/// The format version this build writes and the only one it reads.
pub const FORMAT_VERSION: u32 = 2;
/// The header length for a short moves label and up to about 5 · 10^8 values: the byte
/// offset of g(0) in most files, and the unit every header length is a multiple of.
pub const HEADER_BYTES: usize = 4096;
/// Values per checksummed block in the files this build writes (2 MiB of values): a damaged
/// checkpoint loses at most one block's work beyond the damage, and the checksums of a
/// 10^9 table take 8 KB.
pub const BLOCK_VALUES: usize = 1 << 20;

const LABEL_AT: usize = 64;
const BLOCK_VALUES_AT: usize = 40;
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
/// block size and the room for the block checksums. [`read_header`] also checks that the
/// file length holds exactly `done` values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// N, the limit the file was made for.
    pub limit: u64,
    /// g(0..done) are stored.
    pub done: u64,
    /// The largest stored value (0 when `done` = 0).
    pub max: u16,
    /// [`Ruleset::label`] of the rules the values are for (a subtraction set or an octal
    /// code; the name is older than the octal games).
    pub moves_label: String,
    /// The byte offset of g(0).
    pub header_bytes: usize,
    /// B, the values per checksummed block (at least 1).
    pub block_values: u64,
    /// FNV-1a 64 of the value bytes of each block, ceil(done / B) of them.
    pub block_sums: Vec<u64>,
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

    /// Refuses a file made for other rules: "was made for moves 1,3,4, not squares", "was
    /// made for moves squares, not octal 0.6".
    pub fn check_matches(&self, rules: &dyn Ruleset, path: &Path) -> Result<()> {
        check_label(&self.moves_label, rules, path)
    }

    /// The positions g(a..b) of block `k`.
    fn block_span(&self, k: usize) -> (u64, u64) {
        let a = k as u64 * self.block_values;
        (a, (a + self.block_values).min(self.done))
    }
}

impl TableFile {
    /// Refuses a file made for other rules ([`Header::check_matches`]), and one whose values
    /// break the rules at a spot-checked position ([`Ruleset::first_wrong`]): what every use
    /// of a loaded table goes through.
    pub fn check_usable(&self, rules: &dyn Ruleset) -> Result<()> {
        let path = &self.path;
        self.header.check_matches(rules, path)?;
        match rules.first_wrong(&self.values) {
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

/// A table or checkpoint read back, every check passed. It reads as its [`Header`]
/// (`file.limit`, `file.done`, `file.max`, `file.moves_label`, `file.provides(n)`, ...)
/// through `Deref`, so the two never describe a file twice; `max` has been checked against
/// the values. From [`read_checkpoint`] the header describes the good prefix kept, not the
/// file (`damage` says what was dropped).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableFile {
    /// The checked header.
    pub header: Header,
    /// g(0), ..., g(done - 1).
    pub values: Vec<u16>,
    /// The file it was read from (for messages).
    pub path: PathBuf,
    /// The first bad block of a checkpoint whose good prefix was kept ([`read_checkpoint`]);
    /// always `None` from [`read`].
    pub damage: Option<Damage>,
}

impl std::ops::Deref for TableFile {
    type Target = Header;

    fn deref(&self) -> &Header {
        &self.header
    }
}

/// The first bad block of a checkpoint: block `block` of `blocks`, positions g(from..to),
/// damaged (`cut_short` false: its checksum does not match) or missing in part (the file is
/// shorter than its header says). Everything from `from` on was dropped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Damage {
    /// The bad block's index, from 0.
    pub block: usize,
    /// How many blocks the file's header promises.
    pub blocks: usize,
    /// Its first position: the length of the good prefix kept.
    pub from: u64,
    /// One past its last position.
    pub to: u64,
    /// The file ends inside or before this block (rather than a checksum mismatch).
    pub cut_short: bool,
}

impl std::fmt::Display for Damage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "block {} of {} (g({}..{})) is {}",
            self.block,
            self.blocks,
            self.from,
            self.to,
            if self.cut_short {
                "cut short"
            } else {
                "damaged (checksum mismatch)"
            }
        )
    }
}

/// Refuses a file whose label is not `rules.label()`, naming both: `was made for moves
/// 1,3,4, not squares` between two subtraction sets, `was made for octal 0.6, not moves
/// squares` across the families.
fn check_label(label: &str, rules: &dyn Ruleset, path: &Path) -> Result<()> {
    let want = rules.label();
    if label != want {
        let found = ruleset::describe(label);
        let same_family =
            label.starts_with(ruleset::OCTAL_PREFIX) == want.starts_with(ruleset::OCTAL_PREFIX);
        let wanted = if same_family && !want.starts_with(ruleset::OCTAL_PREFIX) {
            want.clone()
        } else {
            ruleset::describe(&want)
        };
        return Err(invalid(
            path,
            &format!(
                "was made for {found}, not {wanted}; {}",
                ruleset::use_hint(label, same_family)
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

/// S, the offset of the block checksums for a label of `label_len` bytes.
fn sums_at(label_len: usize) -> usize {
    (LABEL_AT + label_len).next_multiple_of(8)
}

/// The number of blocks of `block_values` that hold `done` values.
fn block_count(done: u64, block_values: u64) -> usize {
    done.div_ceil(block_values) as usize
}

/// The header length for a label of `label_len` bytes and `blocks` block checksums: the
/// smallest multiple of 4096 that holds them.
fn header_len_for(label_len: usize, blocks: usize) -> usize {
    (sums_at(label_len) + 8 * blocks).div_ceil(HEADER_BYTES) * HEADER_BYTES
}

fn encode_header(limit: u64, done: u64, max: u16, label: &str, block_sums: &[u64]) -> Vec<u8> {
    let len = header_len_for(label.len(), block_sums.len());
    let mut h = vec![0u8; len];
    h[0..8].copy_from_slice(MAGIC);
    h[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    h[12..16].copy_from_slice(&(len as u32).to_le_bytes());
    h[16..24].copy_from_slice(&limit.to_le_bytes());
    h[24..32].copy_from_slice(&done.to_le_bytes());
    h[32..34].copy_from_slice(&max.to_le_bytes());
    h[36..40].copy_from_slice(&(label.len() as u32).to_le_bytes());
    h[BLOCK_VALUES_AT..BLOCK_VALUES_AT + 4].copy_from_slice(&(BLOCK_VALUES as u32).to_le_bytes());
    h[LABEL_AT..LABEL_AT + label.len()].copy_from_slice(label.as_bytes());
    let s = sums_at(label.len());
    for (k, sum) in block_sums.iter().enumerate() {
        h[s + 8 * k..s + 8 * k + 8].copy_from_slice(&sum.to_le_bytes());
    }
    let sum = fnv1a64(&h[..s]);
    h[HEADER_SUM_AT..HEADER_SUM_AT + 8].copy_from_slice(&sum.to_le_bytes());
    h
}

fn le_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn le_u64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// Converts values to little-endian bytes into `buf` (cleared first; the callers reuse one
/// buffer for every chunk, so it grows during the first chunk only).
fn values_to_le(values: &[u16], buf: &mut Vec<u8>) {
    buf.clear();
    for &v in values {
        buf.extend_from_slice(&v.to_le_bytes());
    }
}

/// The FNV-1a 64 of the little-endian bytes of `values` ([`fnv1a64`] of them), hashed a
/// chunk at a time so that no byte copy of the table is made: a table of half the memory
/// would otherwise need the other half at its very end.
pub fn values_fnv1a64(values: &[u16]) -> u64 {
    let mut h = Fnv1a64::default();
    let mut buf = Vec::new();
    for chunk in values.chunks(CHUNK_VALUES) {
        values_to_le(chunk, &mut buf);
        h.update(&buf);
    }
    h.finish()
}

/// The block checksums of `values` as this build stores them: FNV-1a 64 of the little-endian
/// bytes of each [`BLOCK_VALUES`] values.
pub fn block_sums(values: &[u16]) -> Vec<u64> {
    let mut buf = Vec::new();
    values
        .chunks(BLOCK_VALUES)
        .map(|block| {
            let mut h = Fnv1a64::default();
            for chunk in block.chunks(CHUNK_VALUES) {
                values_to_le(chunk, &mut buf);
                h.update(&buf);
            }
            h.finish()
        })
        .collect()
}

/// The temporary file next to `path` that [`write_atomic`] writes first.
pub fn tmp_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    path.with_file_name(name)
}

/// Writes g(0..values_done.len()) for `rules` and N = `limit` to `path` so that `path` is always
/// either the old file or the whole new one: write `path.tmp` in the same folder, fsync it,
/// rename it over `path`, fsync the folder. `max` must be the largest value in `values_done`
/// (0 when empty). Overwrites `path` without asking: callers check first
/// ([`check_overwritable`]).
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
    let label = rules.label();
    let tmp = tmp_path(path);
    let write = || -> std::io::Result<()> {
        let mut file = File::create(&tmp)?;
        // The header is written last, once the block checksums are known: one pass over g.
        let blocks = block_count(done, BLOCK_VALUES as u64);
        let placeholder = vec![0u8; header_len_for(label.len(), blocks)];
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
    if let Ok(d) = File::open(folder_of(path)) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Reads and checks the header of the table file at `path`, and that the file length matches
/// it. Does not read or check the values (see [`read`]).
pub fn read_header(path: &Path) -> Result<Header> {
    let (mut file, file_len) = open_with_len(path)?;
    let header = read_header_from(&mut file, file_len, path)?;
    check_file_len(&header, file_len, path)?;
    Ok(header)
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

/// Reads the header at the start of `file` (`file_len` bytes long) and checks it, in the
/// order a damaged file is most usefully described: what the file is, whether the header is
/// whole and intact, what it claims. The file length is left to the caller.
fn read_header_from(file: &mut File, file_len: u64, path: &Path) -> Result<Header> {
    let mut first = [0u8; 16];
    let header_len = read_prefix(file, &mut first, path)?;
    if file_len < header_len as u64 {
        return Err(invalid(path, "truncated (the header is incomplete)"));
    }
    let h = read_whole_header(file, &first, header_len, path)?;
    decode_header(&h, path)
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
    if version == 1 {
        return Err(invalid(
            path,
            "format version 1 (one checksum over all values), which this build no longer reads; compute the table again",
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

/// The whole `header_len`-byte header (`first` and the rest read from `file`), its label
/// length within it and its checksum verified; the checksum field is left zeroed.
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
    let label_len = le_u32(&h, 36) as usize;
    if sums_at(label_len) > h.len() {
        return Err(invalid(path, "damaged header (label length)"));
    }
    let stored_sum = le_u64(&h, HEADER_SUM_AT);
    h[HEADER_SUM_AT..HEADER_SUM_AT + 8].fill(0);
    if fnv1a64(&h[..sums_at(label_len)]) != stored_sum {
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
    let block_values = le_u32(h, BLOCK_VALUES_AT) as u64;
    if block_values == 0 {
        return Err(invalid(path, "damaged header (block size 0)"));
    }
    let blocks = block_count(done, block_values);
    let s = sums_at(label_len);
    if s + 8 * blocks > h.len() {
        return Err(invalid(
            path,
            &format!(
                "damaged header ({blocks} block checksums do not fit in {} bytes)",
                h.len()
            ),
        ));
    }
    Ok(Header {
        limit,
        done,
        max,
        moves_label,
        header_bytes: h.len(),
        block_values,
        block_sums: (0..blocks).map(|k| le_u64(h, s + 8 * k)).collect(),
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
    check_not_longer(header, file_len, path)
}

/// Refuses a file longer than the header and its `done` values: something else was written
/// to it.
fn check_not_longer(header: &Header, file_len: u64, path: &Path) -> Result<()> {
    let want_len = header.header_bytes as u64 + 2 * header.done;
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

/// Reads a table file and checks everything: magic, version, header checksum, length, every
/// block checksum (a mismatch is refused naming the first bad block) and the stored max.
/// Every refusal is one line naming the file and the reason.
pub fn read(path: &Path) -> Result<TableFile> {
    let (mut file, file_len) = open_with_len(path)?;
    let header = read_header_from(&mut file, file_len, path)?;
    check_file_len(&header, file_len, path)?;
    let (values, max, damage) = read_blocks(&mut file, &header, file_len, path)?;
    if let Some(d) = damage {
        return Err(invalid(
            path,
            &format!("damaged values: {d}; delete it and compute the table again"),
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
        damage: None,
    })
}

/// Reads a checkpoint to resume from: like [`read`], except that values damaged or cut short
/// do not refuse the file. The blocks before the first bad one are kept, the header then
/// describes that prefix (its `done`, `max` and block checksums), and `damage` names the bad
/// block. A damaged header, a file for another format and a file longer than its header
/// says are still refused: nothing in them can be trusted.
pub fn read_checkpoint(path: &Path) -> Result<TableFile> {
    let (mut file, file_len) = open_with_len(path)?;
    let mut header = read_header_from(&mut file, file_len, path)?;
    check_not_longer(&header, file_len, path)?;
    let (values, max, damage) = read_blocks(&mut file, &header, file_len, path)?;
    if damage.is_none() && max != header.max {
        return Err(invalid(
            path,
            &format!(
                "damaged (the header says max {}, the values have {max})",
                header.max
            ),
        ));
    }
    if let Some(d) = &damage {
        header.done = d.from;
        header.max = max;
        header.block_sums.truncate(d.block);
    }
    Ok(TableFile {
        header,
        values,
        path: path.to_path_buf(),
        damage,
    })
}

/// Reads the values after the header block by block, checking each block's checksum, until
/// the first block that is damaged or not wholly in the file (`file_len` bytes). Returns the
/// values of the good blocks before it, their max, and the bad block if there is one.
fn read_blocks(
    file: &mut File,
    header: &Header,
    file_len: u64,
    path: &Path,
) -> Result<(Vec<u16>, u16, Option<Damage>)> {
    let done = usize::try_from(header.done).map_err(|_| invalid(path, "too large"))?;
    let in_file = ((file_len - header.header_bytes as u64) / 2).min(header.done);
    let mut values = Vec::with_capacity(done);
    let mut max = 0u16;
    let mut buf = vec![0u8; 2 * CHUNK_VALUES.min(done.max(1))];
    let blocks = header.block_sums.len();
    for (k, &stored) in header.block_sums.iter().enumerate() {
        let (from, to) = header.block_span(k);
        let damage = |cut_short| Damage {
            block: k,
            blocks,
            from,
            to,
            cut_short,
        };
        if to > in_file {
            return Ok((values, max, Some(damage(true))));
        }
        let mut sum = Fnv1a64::default();
        let mut block_max = 0u16;
        let mut left = (to - from) as usize;
        while left > 0 {
            let n = left.min(CHUNK_VALUES);
            let bytes = &mut buf[..2 * n];
            file.read_exact(bytes)
                .map_err(|e| io_error(path, "read", e))?;
            sum.update(bytes);
            for pair in bytes.chunks_exact(2) {
                let v = u16::from_le_bytes([pair[0], pair[1]]);
                block_max = block_max.max(v);
                values.push(v);
            }
            left -= n;
        }
        if sum.finish() != stored {
            values.truncate(from as usize);
            return Ok((values, max, Some(damage(false))));
        }
        max = max.max(block_max);
    }
    Ok((values, max, None))
}

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

/// Reads the complete table in `path` made for `rules`, for a command's `flag` (such as
/// `--load-table`): refuses, naming the flag, a damaged file, one made for other rules, and a
/// checkpoint that is not finished. Its values are not spot-checked: `verify` checks them all,
/// and other users call [`TableFile::check_usable`].
pub fn read_complete(path: &Path, rules: &dyn Ruleset, flag: &str) -> Result<TableFile> {
    let named = |e: Error| Error::Invalid(format!("{flag}: {e}"));
    let file = read(path).map_err(named)?;
    file.check_matches(rules, path).map_err(named)?;
    if !file.is_complete() {
        return Err(Error::Invalid(format!(
            "{flag} {}: a checkpoint of {} of {} positions; finish it first (run the command that keeps it with --checkpoint again)",
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

/// The bytes of a complete table file for `rules` and N = `limit`: the header with its block
/// checksums and N + 1 little-endian u16 values.
pub fn file_bytes(rules: &dyn Ruleset, limit: u64) -> u64 {
    let blocks = block_count(limit + 1, BLOCK_VALUES as u64);
    header_len_for(rules.label().len(), blocks) as u64 + 2 * (limit + 1)
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
    #[test]
    fn the_values_hash_by_chunks_is_the_hash_of_all_their_bytes() {
        for len in [0, 1, CHUNK_VALUES - 1, CHUNK_VALUES, 2 * CHUNK_VALUES + 3] {
            let values: Vec<u16> = (0..len as u64)
                .map(|i| (i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 48) as u16)
                .collect();
            let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
            assert_eq!(
                super::values_fnv1a64(&values),
                super::fnv1a64(&bytes),
                "{len}"
            );
        }
    }

    use super::*;

    #[test]
    fn fnv_known_values() {
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn header_length_grows_by_4096_with_the_label_and_the_blocks() {
        // 64 fixed bytes + the label rounded up to 8 + 8 bytes per block, in 4096-byte pages.
        assert_eq!(header_len_for(0, 0), 4096);
        assert_eq!(header_len_for(7, 503), 4096); // 64 + 8 + 503 * 8 = 4096
        assert_eq!(header_len_for(7, 504), 8192);
        assert_eq!(header_len_for(4032, 0), 4096);
        assert_eq!(header_len_for(4033, 0), 8192);
        let h = encode_header(10, 3, 2, "squares", &[7]);
        assert_eq!(h.len(), HEADER_BYTES);
        assert_eq!(le_u32(&h, 12) as usize, HEADER_BYTES);
        assert_eq!(le_u64(&h, 72), 7);
    }

    #[test]
    fn a_table_files_size_is_its_header_and_two_bytes_a_value() {
        // `squares` (7 bytes) puts the block checksums at byte 72; 4096 bytes hold 503 of
        // them, so 503 · 2^20 values take one page and one value more takes two.
        let m = crate::base::moves::Moves::Squares;
        assert_eq!(file_bytes(&m, 1000), 4096 + 2 * 1001);
        let full = 503 * (1u64 << 20);
        assert_eq!(file_bytes(&m, full - 1), 4096 + 2 * full);
        assert_eq!(file_bytes(&m, full), 8192 + 2 * (full + 1));
    }

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
