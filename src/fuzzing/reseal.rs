//! Resealing: the checksums of a table file, a window checkpoint and census rows recomputed
//! over mutated bytes, so that a fuzzer's mutations reach the checks behind the checksums
//! (a random mutation almost never keeps an FNV-1a 64 right).

use crate::run::longrun::censusfile::{self, Format};
use crate::run::longrun::tablefile::fnv1a64;

/// A table file with its block checksums and header checksum recomputed, where its header
/// says where they are; other bytes are returned as they are.
pub fn reseal_table(bytes: &[u8]) -> Vec<u8> {
    let mut b = bytes.to_vec();
    let word = |b: &[u8], at: usize, n: usize| -> Option<u64> {
        let s = b.get(at..at + n)?;
        let mut v = [0u8; 8];
        v[..n].copy_from_slice(s);
        Some(u64::from_le_bytes(v))
    };
    let (Some(h), Some(done), Some(label_len), Some(block_values)) = (
        word(&b, 12, 4),
        word(&b, 24, 8),
        word(&b, 36, 4),
        word(&b, 40, 4),
    ) else {
        return b;
    };
    let h = h as usize;
    let s = (64 + label_len as usize).next_multiple_of(8);
    if h > b.len() || s > h || block_values == 0 {
        return b;
    }
    let in_file = ((b.len() - h) as u64 / 2).min(done);
    for k in 0..in_file.div_ceil(block_values) {
        let at = s + 8 * k as usize;
        if at + 8 > h {
            break;
        }
        let from = h + 2 * (k * block_values) as usize;
        let to = h + 2 * ((k + 1) * block_values).min(in_file) as usize;
        let sum = fnv1a64(&b[from..to]);
        b[at..at + 8].copy_from_slice(&sum.to_le_bytes());
    }
    b[48..56].fill(0);
    let sum = fnv1a64(&b[..s]);
    b[48..56].copy_from_slice(&sum.to_le_bytes());
    b
}

/// A window checkpoint with its closing checksum recomputed.
pub fn reseal_window(bytes: &[u8]) -> Vec<u8> {
    let mut b = bytes.to_vec();
    if b.len() >= 8 {
        let body = b.len() - 8;
        let sum = fnv1a64(&b[..body]);
        b[body..].copy_from_slice(&sum.to_le_bytes());
    }
    b
}

/// Census rows with each row's check recomputed (a CSV row's last field, a JSON row's
/// `check`); the first line (the header) and lines that hold no check are kept.
pub fn reseal_census(bytes: &[u8]) -> Vec<u8> {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return bytes.to_vec();
    };
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let (body, end) = match line.strip_suffix('\n') {
            Some(b) => (b, "\n"),
            None => (line, ""),
        };
        let resealed = if i == 0 {
            None
        } else if let Some((row, _)) = body.rsplit_once(",\"check\":\"") {
            Some(censusfile::seal(Format::JsonLines, &format!("{row}}}")))
        } else if body.starts_with('{') {
            None
        } else {
            body.rsplit_once(',')
                .map(|(row, _)| censusfile::seal(Format::Csv, row))
        };
        out.push_str(resealed.as_deref().unwrap_or(body));
        out.push_str(end);
    }
    out.into_bytes()
}
