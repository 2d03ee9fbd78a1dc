//! A table that stops computing once its period is proved: every later value is then the
//! one a period before it, so the rest is a copy.
//!
//! Algorithm: the values are built by a back-end's fill in chunks that end at powers of two
//! (the first at [`FIRST_CHECK`]); after each chunk the values so far, g(0..=n), are searched
//! for a period the theorem of Guy and Smith proves ([`period::find_within`], capped at
//! [`COMPARISONS_PER_VALUE`] comparisons a value so that a table just short of a proof costs
//! no more than its values). Once one is proved, p from e, the rest is g(m) = g(m - p) for
//! m > n, in order.
//!
//! Cost: the fill up to the first power of two past the proof point 2e + p + t, plus the
//! checks (O(n) each, about log2 N of them) and one copy of the rest, N values. A code that
//! is not periodic within N costs the fill and the checks.
//!
//! Invariant: a value is copied only when a period p from e has been proved on g(0..=n)
//! with m > n >= e + p, so g(m) = g(m - p) is the theorem's conclusion, not a guess; the
//! values up to n are the fill's own.

use super::period::{self, Period, Verdict};
use crate::base::error::Result;
use crate::octal::Rules;

/// The first check: a smaller table proves only the shortest periods, which the fill
/// reaches in microseconds anyway.
pub const FIRST_CHECK: usize = 1 << 12;

/// Comparisons a value that one check may spend: a wrong period usually fails within a few
/// comparisons from the top, so this cap binds only where many multiples of a true period
/// scan down to a preperiod the table has not yet passed twice (then the next check proves it).
pub const COMPARISONS_PER_VALUE: usize = 8;

/// Where a fill stopped computing: the period proved, and the last position computed (the
/// values past it are copies).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Proved {
    /// The period the theorem proved on g(0..=`computed_to`).
    pub period: Period,
    /// The last position the fill computed.
    pub computed_to: usize,
}

/// Fills g[from..] given g[..from] final: `fill(g, start)` computes g[start..g.len()] of the
/// slice it is handed (a prefix of `g`, the chunks in order), until a check proves a period,
/// then copies the rest. Returns where it stopped computing, or `None` when it computed every
/// value (no period proved by the last check, or the rules outside the theorem).
pub fn fill_until_proved(
    rules: &Rules,
    g: &mut [u16],
    from: usize,
    mut fill: impl FnMut(&mut [u16], usize) -> Result<()>,
) -> Result<Option<Proved>> {
    let len = g.len();
    if rules.unequal() {
        // Grundy's game is outside the theorem: one fill, no checks
        fill(g, from)?;
        return Ok(None);
    }
    let mut start = from;
    let mut check = FIRST_CHECK.max(from.next_power_of_two());
    while start < len {
        let end = check.min(len);
        if end > start {
            fill(&mut g[..end], start)?;
            start = end;
        }
        if end == len {
            // the last chunk is the caller's to report on
            break;
        }
        if let Verdict::Periodic(period) =
            period::find_within(rules, &g[..end], COMPARISONS_PER_VALUE * end)
        {
            for m in end..len {
                g[m] = g[m - period.period];
            }
            return Ok(Some(Proved {
                period,
                computed_to: end - 1,
            }));
        }
        check *= 2;
    }
    Ok(None)
}

/// Where [`fill_until_proved`], run from 0 (or from any start up to [`FIRST_CHECK`]) on a
/// table of g.len() values, stopped computing: its checks made again on the finished values.
/// Each check reads only the values below it, which the fill had computed, so the answer is
/// the fill's own.
pub fn replay(rules: &Rules, g: &[u16]) -> Option<Proved> {
    if rules.unequal() {
        return None;
    }
    let mut check = FIRST_CHECK;
    while check < g.len() {
        if let Verdict::Periodic(period) =
            period::find_within(rules, &g[..check], COMPARISONS_PER_VALUE * check)
        {
            return Some(Proved {
                period,
                computed_to: check - 1,
            });
        }
        check *= 2;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(code: &str, limit: usize) -> (Vec<u16>, Option<Proved>, Vec<(usize, usize)>) {
        let rules = Rules::parse(code).unwrap();
        let mut g = vec![0u16; limit + 1];
        let mut chunks = Vec::new();
        let proved = fill_until_proved(&rules, &mut g, 0, |g, start| {
            chunks.push((start, g.len()));
            let reference = crate::octal::reference();
            (reference.make)().fill(&rules, g, start)
        })
        .unwrap();
        (g, proved, chunks)
    }

    #[test]
    fn a_code_periodic_early_is_copied_past_its_first_check_and_equals_the_whole_build() {
        // 0.07 (Dawson's Kayles): period 34 from 53, proved by n = 2*53 + 34 + 2 = 142
        for (code, limit) in [("0.07", 20_000), ("0.137", 20_000), ("4.07", 9_000)] {
            let (g, proved, chunks) = build(code, limit);
            let want = crate::octal::control_values(code, limit);
            assert_eq!(g, want, "{code}");
            assert_eq!(replay(&Rules::parse(code).unwrap(), &g), proved, "{code}");
            let proved = proved.expect("periodic within the first check");
            assert_eq!(proved.computed_to, FIRST_CHECK - 1, "{code}");
            assert_eq!(chunks, vec![(0, FIRST_CHECK)], "{code}");
            assert_eq!(
                Verdict::Periodic(proved.period),
                period::find(&Rules::parse(code).unwrap(), &want),
                "{code}"
            );
        }
    }

    #[test]
    fn an_open_code_is_computed_in_doubling_chunks_to_the_end() {
        // Officers: no period proved (nor known); Grundy's game: outside the theorem
        for (code, want_chunks) in [
            ("0.6", vec![(0, 4096), (4096, 8192), (8192, 10_001)]),
            ("grundy", vec![(0, 10_001)]),
        ] {
            let (g, proved, chunks) = build(code, 10_000);
            assert_eq!(g, crate::octal::control_values(code, 10_000), "{code}");
            assert_eq!(proved, None, "{code}");
            assert_eq!(replay(&Rules::parse(code).unwrap(), &g), None, "{code}");
            assert_eq!(chunks, want_chunks, "{code}");
        }
    }

    #[test]
    fn a_fill_from_a_prefix_starts_at_the_next_power_of_two() {
        let rules = Rules::parse("0.6").unwrap();
        let want = crate::octal::control_values("0.6", 12_000);
        let mut g = want.clone();
        g[5000..].iter_mut().for_each(|v| *v = 0);
        let mut chunks = Vec::new();
        fill_until_proved(&rules, &mut g, 5000, |g, start| {
            chunks.push((start, g.len()));
            (crate::octal::reference().make)().fill(&rules, g, start)
        })
        .unwrap();
        assert_eq!(g, want);
        assert_eq!(chunks, vec![(5000, 8192), (8192, 12_001)]);
    }
}
