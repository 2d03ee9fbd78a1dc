//! Memory: what a run would need, what the machine has, and what the process used.
//!
//! Linux only, read from `/proc` (no extra crate): `MemAvailable` from `/proc/meminfo` and the
//! peak resident set `VmHWM` from `/proc/self/status`. Elsewhere both are unknown and the
//! guard lets the run proceed.

use crate::error::{Error, Result};

/// Environment variable that overrides `MemAvailable` (in bytes), so the refusal can be
/// exercised in tests without exhausting a machine.
pub const AVAILABLE_OVERRIDE: &str = "NIMSQUARE_MEM_AVAILABLE_BYTES";

/// Bytes the table stage needs for N = `limit` with the named back-end, before it allocates:
/// the u16 table (2 bytes a position) plus the back-end's scratch. An upper estimate; the
/// count stage needs only O(G) more (G <= 65 536 values).
pub fn table_bytes(limit: usize, backend: &str) -> u64 {
    let n = limit as u64 + 1;
    let moves = (n as f64).sqrt() as u64 + 2;
    let table = 2 * n;
    // 32 lanes of at most 128 KiB of stamps (the widest lane stride, for values near 65 535).
    let lane_scratch = 32 * 131_072;
    let threads = rayon::current_num_threads() as u64;
    let scratch = match backend {
        // Two bitsets of N bits (unassigned positions, current class).
        "value-bounded" => 2 * n.div_ceil(64) * 8,
        // Masks of a super-block (2048 positions, words for every value up to max + 2048),
        // and 32 lanes of stamps per thread.
        "stamped-parallel" => 2048 * ((moves + 2048) / 64 + 2) * 8 + (threads + 1) * lane_scratch,
        "stamped-lanes" => lane_scratch,
        _ => 0,
    };
    // The move list (usize each) and a stamped `seen` array of the same length.
    table + scratch + 16 * moves
}

/// `MemAvailable` in bytes (or the override), if known.
pub fn available_bytes() -> Option<u64> {
    if let Ok(text) = std::env::var(AVAILABLE_OVERRIDE) {
        return text.trim().parse().ok();
    }
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    kib_field(&info, "MemAvailable:")
}

/// The peak resident set size of this process (`VmHWM`) in bytes, if known.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    kib_field(&status, "VmHWM:")
}

/// Parses a `Name:   1234 kB` line of a /proc file into bytes.
fn kib_field(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(name))?;
    let kib: u64 = line[name.len()..].split_whitespace().next()?.parse().ok()?;
    Some(kib * 1024)
}

/// Refuses a run needing `needed` bytes when only `available` are free (unknown: allowed).
pub fn check_fits(needed: u64, available: Option<u64>, what: &str) -> Result<()> {
    match available {
        Some(free) if needed > free => Err(Error::Invalid(format!(
            "{what} would need about {} of memory but only {} is available; choose a smaller N",
            human(needed),
            human(free)
        ))),
        _ => Ok(()),
    }
}

/// Bytes as MiB or GiB with one decimal.
pub fn human(bytes: u64) -> String {
    let mib = bytes as f64 / (1024.0 * 1024.0);
    if mib >= 1024.0 {
        format!("{:.1} GiB", mib / 1024.0)
    } else {
        format!("{mib:.1} MiB")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_proc_fields() {
        let text = "MemTotal:       24000000 kB\nMemAvailable:    1000 kB\n";
        assert_eq!(kib_field(text, "MemAvailable:"), Some(1_024_000));
        assert_eq!(kib_field(text, "VmHWM:"), None);
    }

    #[test]
    fn refuses_only_what_does_not_fit() {
        assert!(check_fits(10, Some(11), "x").is_ok());
        assert!(check_fits(10, None, "x").is_ok());
        let msg = check_fits(3 << 30, Some(1 << 30), "the table")
            .unwrap_err()
            .to_string();
        assert!(msg.contains("3.0 GiB") && msg.contains("1.0 GiB"), "{msg}");
        assert!(!msg.contains('\n'));
    }

    #[test]
    fn table_bytes_is_dominated_by_two_bytes_a_position() {
        let b = table_bytes(100_000_000, "stamped-parallel");
        assert!((200_000_002..220_000_000).contains(&b), "{b}");
    }

    #[test]
    fn this_process_has_a_peak() {
        if cfg!(target_os = "linux") {
            assert!(peak_rss_bytes().unwrap() > 0);
        }
    }
}
