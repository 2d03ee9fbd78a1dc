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
//!
//! # Files
//!
//! This file holds the format itself: the constants, the checksum, the header and its
//! encoding, and the size of a file. Beside it, in `tablefile/`:
//! - `reader.rs`: reading a table or a checkpoint back, every check, and what a damaged
//!   checkpoint still gives ([`read`], [`read_checkpoint`], [`TableFile`], [`Damage`]);
//! - `writer.rs`: writing one so that the path always holds the old file or the whole new one
//!   ([`write_atomic`], through the `tempfile` crate);
//! - `checks.rs`: what is refused before any work, a file not to write over
//!   ([`check_overwritable`], [`check_absent`]) and files that will not fit on their file
//!   system ([`check_room`]).

mod checks;
mod reader;
mod writer;

pub use checks::{check_absent, check_overwritable, check_room, folder_of, free_bytes};
pub use reader::{
    parse, parse_checkpoint, parse_complete, read, read_checkpoint, read_complete, read_header,
    Damage, TableFile,
};
pub use writer::write_atomic;

use super::ruleset::{self, Ruleset};
use crate::base::error::{Error, Result};
use std::path::Path;

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

    /// The hasher that had reached `state` ([`Fnv1a64::finish`]), to go on from it (a
    /// checkpoint keeps the state of a hash of values it no longer holds).
    pub fn resume(state: u64) -> Fnv1a64 {
        Fnv1a64(state)
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

/// Refuses a file whose label is not `rules.label()`, naming both: `was made for moves
/// 1,3,4, not squares` between two subtraction sets, `was made for octal 0.6, not moves
/// squares` across the families.
fn check_label(label: &str, rules: &dyn Ruleset, path: &Path) -> Result<()> {
    let want = rules.label();
    if label != want {
        // A label is any UTF-8 the header holds: shown escaped, so the refusal stays one line.
        let label = &label.escape_debug().to_string();
        let found = ruleset::describe(label);
        let same_family = ruleset::is_bare(label) == ruleset::is_bare(&want);
        let wanted = if same_family && ruleset::is_bare(&want) {
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

/// The bytes of a complete table file for `rules` and N = `limit`: the header with its block
/// checksums and N + 1 little-endian u16 values.
pub fn file_bytes(rules: &dyn Ruleset, limit: u64) -> u64 {
    let blocks = block_count(limit + 1, BLOCK_VALUES as u64);
    header_len_for(rules.label().len(), blocks) as u64 + 2 * (limit + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_values_hash_by_chunks_is_the_hash_of_all_their_bytes() {
        for len in [0, 1, CHUNK_VALUES - 1, CHUNK_VALUES, 2 * CHUNK_VALUES + 3] {
            let values: Vec<u16> = (0..len as u64)
                .map(|i| (i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 48) as u16)
                .collect();
            let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
            assert_eq!(values_fnv1a64(&values), fnv1a64(&bytes), "{len}");
        }
    }

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
}
