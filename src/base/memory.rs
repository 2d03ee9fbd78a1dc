//! Memory: what a run would need, what the machine has, and what the process used.
//!
//! Linux only, read from `/proc` (no extra crate): `MemAvailable` from `/proc/meminfo` and the
//! peak resident set `VmHWM` from `/proc/self/status`. Elsewhere both are unknown and the
//! guard lets the run proceed.

use crate::base::error::{Error, Result};

/// Environment variable that overrides `MemAvailable` (in bytes), so the refusal can be
/// exercised in tests without exhausting a machine.
pub const AVAILABLE_OVERRIDE: &str = "NIMSQUARE_MEM_AVAILABLE_BYTES";

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
    fn this_process_has_a_peak() {
        if cfg!(target_os = "linux") {
            assert!(peak_rss_bytes().unwrap() > 0);
        }
    }
}
