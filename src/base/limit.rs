//! The limit N, validated once where it enters (a flag, a library call, a saved file) and
//! carried through as a [`Limit`], so nothing downstream checks it again.

use crate::base::error::{Error, Result};
use std::fmt;

/// The largest supported limit N. Values are stored as `u16`, and for the squares
/// g(n) <= floor(sqrt n), which stays below 65 536 exactly for n < 2^32.
pub const MAX_LIMIT: u64 = u32::MAX as u64;

/// The largest N of an octal build in window mode, which never holds the whole table in
/// memory: 2^40 - 1, the furthest published octal runs go (a values file of 2 TiB). Its
/// values stay `u16` (an octal value past `u16::MAX` ends a build with an error, as below
/// [`MAX_LIMIT`]); what else bounds such a run is its disk and its time.
pub const MAX_WINDOW_LIMIT: u64 = (1 << 40) - 1;

/// `limit` as an N for window mode (up to [`MAX_WINDOW_LIMIT`]), or the refusal naming the
/// maximum and why it exists.
pub fn window_limit(limit: u64) -> Result<usize> {
    match usize::try_from(limit) {
        Ok(n) if limit <= MAX_WINDOW_LIMIT => Ok(n),
        _ => Err(Error::LimitTooLarge {
            limit,
            max: MAX_WINDOW_LIMIT,
            why: "window mode goes to 2^40 - 1, a values file of 2 TiB".into(),
        }),
    }
}

/// A limit N with 0 <= N <= [`MAX_LIMIT`] that fits `usize`: a table of N + 1 values can be
/// indexed, and every count of positions fits `u64`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Limit(usize);

impl Limit {
    /// `limit` as a [`Limit`], or the refusal naming the maximum and why it exists.
    pub fn new(limit: u64) -> Result<Limit> {
        if limit > MAX_LIMIT || usize::try_from(limit).is_err() {
            return Err(Error::LimitTooLarge {
                limit,
                max: MAX_LIMIT,
                why: "values are stored as u16 and for the squares g(n) <= floor(sqrt n) < 65536 only while n < 2^32".into(),
            });
        }
        Ok(Limit(limit as usize))
    }

    /// A limit between two valid ones (`low <= n <= high`, as on a study's grid), which
    /// is valid because they are: no check is needed.
    pub fn between(low: Limit, n: u64, high: Limit) -> Limit {
        assert!(
            low.0 as u64 <= n && n <= high.0 as u64,
            "{n} outside [{low}, {high}]"
        );
        Limit(n as usize)
    }

    /// N, for indexing.
    pub fn get(self) -> usize {
        self.0
    }

    /// N as a `u64`.
    pub fn as_u64(self) -> u64 {
        self.0 as u64
    }
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_maximum_is_accepted_and_one_more_refused() {
        assert_eq!(Limit::new(MAX_LIMIT).unwrap().as_u64(), 4_294_967_295);
        assert_eq!(Limit::new(0).unwrap().get(), 0);
        let e = Limit::new(MAX_LIMIT + 1).unwrap_err().to_string();
        assert!(e.contains("4294967295"), "{e}");
    }

    #[test]
    fn window_mode_goes_past_the_whole_tables_maximum_to_its_own() {
        assert_eq!(window_limit(MAX_LIMIT + 1).unwrap(), 1 << 32);
        assert_eq!(window_limit((1 << 40) - 1).unwrap(), (1 << 40) - 1);
        let e = window_limit(1 << 40).unwrap_err().to_string();
        assert!(e.contains("1099511627775"), "{e}");
    }
}
