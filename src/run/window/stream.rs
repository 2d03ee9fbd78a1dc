//! What `octal` reports of a table, computed as its values stream past, a chunk at a time,
//! for a run that does not keep the whole table (window mode): the largest value and where
//! it first occurs, the value histogram at each power of two, the rare/common split of the
//! finished table (its mask, rare count and last rare position) and the table's digest.
//!
//! Algorithm: one pass. The histogram of the values so far is copied out whenever the
//! positions seen reach a power of two; the positions n >= 1 are also counted by value and
//! parity (what the mask is chosen from, [`Histogram`]); and for each value and parity the
//! last position holding it is kept, so that the last rare position under the mask chosen
//! at the end is the largest of those of the rare (value, parity) pairs. The digest is
//! FNV-1a 64 of the values as little-endian u16, extended chunk by chunk.
//!
//! Cost: O(1) a value, plus O(V) a power of two and at the end (V the largest value plus
//! one); memory O(V log N), whatever N.
//!
//! Invariant: after values g(0..len) were pushed, in order and in chunks of any sizes,
//! [`Stream::finish`] gives what [`Summary::of`] and the digest of `octal` read off the
//! whole table g(0..len) (the tests hold it to them on random tables and chunkings).
//!
//! [`Summary::of`]: crate::octal::summary::Summary::of

use crate::base::error::Result;
use crate::base::wire::{Reader, Writer};
use crate::octal::method::histogram::Histogram as PowerRow;
use crate::octal::method::rare_common::{Histogram, SplitSummary, SPARSE_FRACTION};
use crate::octal::summary::Summary;
use crate::octal::Rules;
use crate::run::longrun::tablefile::Fnv1a64;

/// The version of the saved stream ([`Stream::save`]).
const VERSION: u8 = 1;

/// The running summary (see the module doc).
#[derive(Debug, Clone, Default)]
pub struct Stream {
    /// Values pushed: g(0..len).
    len: usize,
    max_value: u16,
    max_value_first_at: usize,
    /// The positions n >= 1 by value and parity.
    by_parity: Histogram,
    /// `last[p][v]`: one more than the last position n of parity p with g(n) = v (0: none).
    last: [Vec<usize>; 2],
    /// How many of g(0..len) have each value.
    counts: Vec<u64>,
    /// The histograms copied out at the powers of two so far (each as wide as the values
    /// then; [`Stream::finish`] widens them to the last).
    rows: Vec<PowerRow>,
    digest: Fnv1a64,
    /// Scratch: a chunk's little-endian bytes.
    bytes: Vec<u8>,
}

/// What a stream read off g(0..=N) (see [`Stream::finish`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Streamed {
    /// The positions summarised: N + 1.
    pub len: usize,
    /// The largest value.
    pub max_value: u16,
    /// The least n with g(n) = `max_value`.
    pub max_value_first_at: usize,
    /// The split of the finished table, as [`SplitSummary::of`] reads it.
    pub split: SplitSummary,
    /// The histogram of g(0..L) for L = 1, 2, 4, ... and L = N + 1, every row as wide as
    /// the largest value plus one.
    pub histogram: Vec<PowerRow>,
    /// FNV-1a 64 of g(0..=N) as little-endian u16 (`octal`'s table digest).
    pub digest: u64,
}

impl Streamed {
    /// What `octal` reports of a table, read off the stream: no period is searched (the
    /// whole table is not kept to search it).
    pub fn summary(&self) -> Summary {
        Summary {
            max_value: self.max_value,
            max_value_first_at: self.max_value_first_at,
            verdict: None,
            split: self.split,
            histogram: Some(self.histogram.clone()),
        }
    }
}

impl Stream {
    /// The summary of no values.
    pub fn new() -> Stream {
        Stream::default()
    }

    /// The positions summarised so far.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True before the first value.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// FNV-1a 64 of the values pushed so far, g(0..len) as little-endian u16: what a
    /// resumed run checks its values file against.
    pub fn digest(&self) -> u64 {
        self.digest.finish()
    }

    /// Takes in the next values, g(len..len + values.len()).
    pub fn push(&mut self, values: &[u16]) {
        for &v in values {
            let n = self.len;
            let vi = v as usize;
            if vi >= self.counts.len() {
                self.counts.resize(vi + 1, 0);
            }
            if v > self.max_value || n == 0 {
                self.max_value = v;
                self.max_value_first_at = n;
            }
            self.counts[vi] += 1;
            if n > 0 {
                self.by_parity.add(n, v);
            }
            let last = &mut self.last[n & 1];
            if vi >= last.len() {
                last.resize(vi + 1, 0);
            }
            last[vi] = n + 1;
            self.len = n + 1;
            if self.len.is_power_of_two() {
                self.rows.push(PowerRow {
                    below: self.len,
                    counts: self.counts.clone(),
                });
            }
        }
        self.bytes.clear();
        self.bytes
            .extend(values.iter().flat_map(|v| v.to_le_bytes()));
        self.digest.update(&self.bytes);
    }

    /// What the values pushed say, for the table of `rules` (see [`Streamed`]).
    pub fn finish(&self, rules: &Rules) -> Streamed {
        let width = self.counts.len();
        let mut histogram: Vec<PowerRow> = self
            .rows
            .iter()
            .map(|row| {
                let mut counts = row.counts.clone();
                counts.resize(width, 0);
                PowerRow {
                    below: row.below,
                    counts,
                }
            })
            .collect();
        if self.len > 0 && !self.len.is_power_of_two() {
            histogram.push(PowerRow {
                below: self.len,
                counts: self.counts.clone(),
            });
        }
        Streamed {
            len: self.len,
            max_value: self.max_value,
            max_value_first_at: self.max_value_first_at,
            split: self.split(rules),
            histogram,
            digest: self.digest.finish(),
        }
    }

    /// The stream as bytes, for a checkpoint (see [`Stream::load`]).
    pub fn save(&self) -> Vec<u8> {
        let wide = |v: &[usize]| -> Vec<u64> { v.iter().map(|&x| x as u64).collect() };
        let mut w = Writer::new();
        w.u8(VERSION)
            .u64(self.len as u64)
            .u64(self.max_value as u64)
            .u64(self.max_value_first_at as u64)
            .u64s(&wide(&self.by_parity.counts()[0]))
            .u64s(&wide(&self.by_parity.counts()[1]))
            .u64s(&wide(&self.last[0]))
            .u64s(&wide(&self.last[1]))
            .u64s(&self.counts)
            .u64(self.rows.len() as u64);
        for row in &self.rows {
            w.u64(row.below as u64).u64s(&row.counts);
        }
        w.u64(self.digest.finish());
        w.finish()
    }

    /// The stream [`Stream::save`] wrote, checked: its counts add up to its length.
    pub fn load(bytes: &[u8]) -> Result<Stream> {
        let mut r = Reader::new(bytes, "window stream");
        if r.u8()? != VERSION {
            return Err(r.damaged());
        }
        let narrow = |r: &mut Reader| -> Result<Vec<usize>> {
            r.u64s()?
                .into_iter()
                .map(|x| usize::try_from(x).map_err(|_| r.damaged()))
                .collect()
        };
        let len = r.usize()?;
        let max_value = u16::try_from(r.u64()?).map_err(|_| r.damaged())?;
        let max_value_first_at = r.usize()?;
        let by_parity = Histogram::from_counts([narrow(&mut r)?, narrow(&mut r)?]);
        let last = [narrow(&mut r)?, narrow(&mut r)?];
        let counts = r.u64s()?;
        let rows = (0..r.usize()?)
            .map(|_| {
                Ok(PowerRow {
                    below: r.usize()?,
                    counts: r.u64s()?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let digest = Fnv1a64::resume(r.u64()?);
        r.end()?;
        // Sums of counts read back may overflow: that is damage, not a panic.
        let total = counts.iter().try_fold(0u64, |sum, &c| sum.checked_add(c));
        if total != Some(len as u64) || by_parity.checked_total() != Some(len.saturating_sub(1)) {
            return Err(r.damaged());
        }
        Ok(Stream {
            len,
            max_value,
            max_value_first_at,
            by_parity,
            last,
            counts,
            rows,
            digest,
            bytes: Vec::new(),
        })
    }

    /// [`SplitSummary::of`] of the values pushed, from the counts and last positions.
    fn split(&self, rules: &Rules) -> SplitSummary {
        let none = SplitSummary {
            mask: None,
            rare: 0,
            last_rare: None,
        };
        if self.len < 2 {
            return none;
        }
        let (mask, count) = self.by_parity.best_mask(rules.split_parity());
        if count * SPARSE_FRACTION > self.len - 1 {
            return none;
        }
        let last_rare = (0..2)
            .flat_map(|p| {
                self.last[p]
                    .iter()
                    .enumerate()
                    .filter(move |&(v, &end)| end > 0 && mask.rare(v as u32, p))
                    .map(|(v, &end)| (end - 1, v as u16))
            })
            .max();
        SplitSummary {
            mask: Some(mask),
            rare: count + mask.rare(0, 0) as usize,
            last_rare,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grundy::Table;
    use crate::run::longrun::tablefile::values_fnv1a64;
    use proptest::prelude::*;

    /// Streams `g` in chunks ending at `cuts` (ascending, within g) and compares with the
    /// whole-table readings.
    fn agrees(rules: &Rules, g: &[u16], cuts: &[usize]) {
        let mut s = Stream::new();
        let mut from = 0;
        for &cut in cuts.iter().chain(std::iter::once(&g.len())) {
            let cut = cut.clamp(from, g.len());
            s.push(&g[from..cut]);
            from = cut;
            // saved and loaded back at every cut (a window checkpoint's stream)
            let saved = s.save();
            s = Stream::load(&saved).unwrap();
            assert_eq!(s.save(), saved);
        }
        let got = s.finish(rules);
        assert_eq!(got.len, g.len());
        assert_eq!(got.digest, values_fnv1a64(g));
        if g.is_empty() {
            assert!(got.histogram.is_empty());
            return;
        }
        let whole = Summary::of(rules, &Table::from_values(g.to_vec()), true);
        assert_eq!(
            (got.max_value, got.max_value_first_at),
            (whole.max_value, whole.max_value_first_at)
        );
        assert_eq!(got.split, whole.split);
        assert_eq!(Some(got.histogram), whole.histogram);
    }

    #[test]
    fn officers_streamed_in_uneven_chunks_reads_as_the_whole_table() {
        // Officers (0.6, one splitting digit: both kinds of mask tried) is sparse from early
        // on; .354 splits at digits of both parities; Dawson's Kayles (0.07) and 4.07 have
        // few values.
        for (code, n) in [
            ("0.6", 5000),
            ("0.354", 3000),
            ("0.07", 1000),
            ("4.07", 700),
        ] {
            let rules = Rules::parse(code).unwrap();
            let g = crate::octal::control_values(code, n);
            agrees(&rules, &g, &[0, 1, 2, 3, 64, 65, 999, 1024, 1025, 4095]);
            agrees(&rules, &g, &[]);
        }
    }

    #[test]
    fn a_damaged_saved_stream_is_refused() {
        let mut s = Stream::new();
        s.push(&crate::octal::control_values("0.6", 3000));
        let saved = s.save();
        for cut in [0, 1, 20, saved.len() / 2, saved.len() - 1] {
            assert!(Stream::load(&saved[..cut]).is_err(), "cut {cut}");
        }
        // counts that do not add up to the length
        let mut other = Stream::new();
        other.push(&[0, 1]);
        let mut bytes = other.save();
        bytes[1] = 3; // len 2 -> 3
        let e = Stream::load(&bytes).expect_err("inconsistent").to_string();
        assert!(e.contains("window stream"), "{e}");
    }

    proptest! {
        #[test]
        fn any_values_in_any_chunks_read_as_the_whole_table(
            g in proptest::collection::vec(0u16..40, 0..600),
            mut cuts in proptest::collection::vec(0usize..600, 0..8),
            position_kind in any::<bool>(),
        ) {
            cuts.sort_unstable();
            // one splitting digit admits the second kind of mask (0.6); digits of both
            // parities do not (0.354)
            let rules = Rules::parse(if position_kind { "0.6" } else { "0.354" }).unwrap();
            agrees(&rules, &g, &cuts);
        }
    }
}
