//! Reading a table file or a checkpoint back: every check of the format, and the good prefix
//! a damaged checkpoint still holds.

use super::{
    decode_header, fnv1a64, invalid, io_error, le_u32, le_u64, sums_at, Fnv1a64, Header,
    CHUNK_VALUES, FORMAT_VERSION, HEADER_BYTES, HEADER_SUM_AT, MAGIC,
};
use crate::base::error::{Error, Result};
use crate::run::longrun::ruleset::Ruleset;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

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

/// Reads and checks the header of the table file at `path`, and that the file length matches
/// it. Does not read or check the values (see [`read`]).
pub fn read_header(path: &Path) -> Result<Header> {
    let (mut file, file_len) = open_with_len(path)?;
    let header = read_header_from(&mut file, file_len, path)?;
    check_file_len(&header, file_len, path)?;
    Ok(header)
}

/// Opens `path` for reading and tells its length.
pub(super) fn open_with_len(path: &Path) -> Result<(File, u64)> {
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
pub(super) fn read_header_from(file: &mut impl Read, file_len: u64, path: &Path) -> Result<Header> {
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
fn read_prefix(file: &mut impl Read, first: &mut [u8; 16], path: &Path) -> Result<usize> {
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
    file: &mut impl Read,
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
fn read_up_to(file: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
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
    read_from(&mut file, file_len, path)
}

/// [`read`] of a file's whole contents `bytes` (`path` only names it in messages): the same
/// checks, for a caller that holds the bytes (the fuzz targets, `nimsquare::fuzzing`).
pub fn parse(bytes: &[u8], path: &Path) -> Result<TableFile> {
    read_from(&mut &bytes[..], bytes.len() as u64, path)
}

/// [`read`] from `file`, `file_len` bytes long.
fn read_from(file: &mut impl Read, file_len: u64, path: &Path) -> Result<TableFile> {
    let header = read_header_from(file, file_len, path)?;
    check_file_len(&header, file_len, path)?;
    let (values, max, damage) = read_blocks(file, &header, file_len, path)?;
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
    read_checkpoint_from(&mut file, file_len, path)
}

/// [`read_checkpoint`] of a file's whole contents `bytes` (`path` only names it in messages).
pub fn parse_checkpoint(bytes: &[u8], path: &Path) -> Result<TableFile> {
    read_checkpoint_from(&mut &bytes[..], bytes.len() as u64, path)
}

/// [`read_checkpoint`] from `file`, `file_len` bytes long.
fn read_checkpoint_from(file: &mut impl Read, file_len: u64, path: &Path) -> Result<TableFile> {
    let mut header = read_header_from(file, file_len, path)?;
    check_not_longer(&header, file_len, path)?;
    let (values, max, damage) = read_blocks(file, &header, file_len, path)?;
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
    file: &mut impl Read,
    header: &Header,
    file_len: u64,
    path: &Path,
) -> Result<(Vec<u16>, u16, Option<Damage>)> {
    let in_file = (file_len.saturating_sub(header.header_bytes as u64) / 2).min(header.done);
    // Reserved for the values the file holds, never for what its header claims: a forged
    // `done` of 2^60 in a short checkpoint must not reserve 2^60 values.
    let in_file_values = usize::try_from(in_file).map_err(|_| invalid(path, "too large"))?;
    let mut values = Vec::with_capacity(in_file_values);
    let mut max = 0u16;
    let mut buf = vec![0u8; 2 * CHUNK_VALUES.min(in_file_values.max(1))];
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

/// Reads the complete table in `path` made for `rules`, for a command's `flag` (such as
/// `--load-table`): refuses, naming the flag, a damaged file, one made for other rules, and a
/// checkpoint that is not finished. Its values are not spot-checked: `verify` checks them all,
/// and other users call [`TableFile::check_usable`].
pub fn read_complete(path: &Path, rules: &dyn Ruleset, flag: &str) -> Result<TableFile> {
    let named = |e: Error| Error::Invalid(format!("{flag}: {e}"));
    complete(read(path).map_err(named)?, rules, flag)
}

/// [`read_complete`] of a file's whole contents `bytes` (`path` only names it in messages).
pub fn parse_complete(
    bytes: &[u8],
    path: &Path,
    rules: &dyn Ruleset,
    flag: &str,
) -> Result<TableFile> {
    let named = |e: Error| Error::Invalid(format!("{flag}: {e}"));
    complete(parse(bytes, path).map_err(named)?, rules, flag)
}

/// The checks [`read_complete`] adds to [`read`]: the rules, and a finished table.
fn complete(file: TableFile, rules: &dyn Ruleset, flag: &str) -> Result<TableFile> {
    let named = |e: Error| Error::Invalid(format!("{flag}: {e}"));
    let path = file.path.clone();
    file.check_matches(rules, &path).map_err(named)?;
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
