//! What `octal-block` keeps between chunks ([`State`]), as bytes and back: the state a
//! window-mode checkpoint carries instead of the whole table.
//!
//! Saved: the mask, the positions recorded, the rare list and the sweep list (positions with
//! their values), the histogram by parity, the largest value and the next mask choice. Not
//! saved, rebuilt on loading: the common flags (a function of the mask) and the witness
//! lists (of the sweep list and the histogram; a stale or rebuilt list only changes which
//! pairs are tried first, never a value, see `Split::list_witnesses`).
//!
//! Cost: O(rare + sweep list + values) bytes. Invariant: a loaded state fills the next chunk
//! exactly as the state it was saved from would: the lists and the histogram are those
//! of g(0..recorded), checked on loading to be ordered, below `recorded` and counting
//! `recorded - 1` positions.

use super::split::{Pos, Split, SWEEP_LIST};
use super::{OctalBlock, State, LANES};
use crate::base::error::Result;
use crate::base::wire::{Reader, Writer};
use crate::octal::method::rare_common::{Histogram, Mask};

/// The format's version, first in the bytes.
const VERSION: u8 = 1;

/// What the errors call the state.
const WHAT: &str = "octal-block state";

impl OctalBlock {
    /// `state` as bytes (see the module doc).
    pub(super) fn save_state(&self, state: &State) -> Vec<u8> {
        let split = &state.split;
        let pairs =
            |list: &[Pos]| -> Vec<u32> { list.iter().flat_map(|e| [e.at, e.value]).collect() };
        let counts = |p: usize| -> Vec<u64> {
            split.histogram.counts()[p]
                .iter()
                .map(|&c| c as u64)
                .collect()
        };
        let mut w = Writer::new();
        w.u8(VERSION)
            .u64(split.mask.bits as u64)
            .u8(split.mask.position.map_or(0, |rho| 1 + rho))
            .u64(split.recorded as u64)
            .u32s(&pairs(&split.rare))
            .u32s(&pairs(&split.sweepers))
            .u64s(&counts(0))
            .u64s(&counts(1))
            .u64(state.max_known as u64)
            .u64(state.next_choice as u64);
        w.finish()
    }

    /// The state [`OctalBlock::save_state`] wrote, checked (see the module doc).
    pub(super) fn load_state(&self, bytes: &[u8]) -> Result<State> {
        let mut r = Reader::new(bytes, WHAT);
        if r.u8()? != VERSION {
            return Err(r.damaged());
        }
        let bits = u16::try_from(r.u64()?).map_err(|_| r.damaged())?;
        let mask = match r.u8()? {
            0 => Mask::value(bits),
            k @ 1..=2 => Mask::position(bits, k - 1),
            _ => return Err(r.damaged()),
        };
        let recorded = r.usize()?;
        let list = |r: &mut Reader, below: usize| -> Result<Vec<Pos>> {
            let flat = r.u32s()?;
            if flat.len() % 2 != 0 {
                return Err(r.damaged());
            }
            let list: Vec<Pos> = flat
                .chunks_exact(2)
                .map(|p| Pos {
                    at: p[0],
                    value: p[1],
                })
                .collect();
            let ordered = list.windows(2).all(|w| w[0].at < w[1].at);
            let inside = list
                .iter()
                .all(|e| e.at >= 1 && (e.at as usize) < below && e.value <= u16::MAX as u32);
            if !(ordered && inside) {
                return Err(r.damaged());
            }
            Ok(list)
        };
        let rare = list(&mut r, recorded)?;
        let sweepers = list(&mut r, recorded.min(SWEEP_LIST))?;
        let counts = |r: &mut Reader| -> Result<Vec<usize>> {
            r.u64s()?
                .into_iter()
                .map(|c| usize::try_from(c).map_err(|_| r.damaged()))
                .collect()
        };
        let even = counts(&mut r)?;
        let odd = counts(&mut r)?;
        let histogram = Histogram::from_counts([even, odd]);
        let max_known = r.usize()?;
        let next_choice = r.usize()?;
        r.end()?;
        // Counts that overflow when summed are damage too, not a panic.
        if histogram.checked_total() != Some(recorded.saturating_sub(1)) {
            return Err(r.damaged());
        }
        let mut split = Split::new();
        split.recorded = recorded;
        split.histogram = histogram;
        if mask.splits() {
            // the common flags of the mask, as taking it sets them, then the lists as saved
            split.take_mask(mask, &[]);
            split.rare = rare;
            split.sweepers = sweepers;
            split.list_witnesses(2 * self.block + 2 * LANES);
        }
        Ok(State {
            split,
            max_known,
            next_choice,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grundy::{Builder, Kept};
    use crate::octal::auto::Auto;
    use crate::octal::Rules;

    /// Fills g(0..=limit) in chunks ending at `cuts`, the state saved and loaded back
    /// (through a fresh builder) at every cut; returns the values.
    fn through_saved_states(
        builder: &dyn Builder<Rules>,
        rules: &Rules,
        limit: usize,
        cuts: &[usize],
    ) -> Vec<u16> {
        let mut g = vec![0u16; limit + 1];
        let mut kept: Kept = None;
        let mut from = 0;
        for &to in cuts.iter().chain(std::iter::once(&(limit + 1))) {
            builder
                .fill_kept(rules, &mut g[..to], from, &mut kept)
                .unwrap();
            let bytes = builder.save_kept(&kept).expect("saves its state");
            kept = builder.load_kept(rules, &bytes).unwrap();
            // saving what was loaded gives the same bytes
            assert_eq!(builder.save_kept(&kept).unwrap(), bytes);
            from = to;
        }
        g
    }

    #[test]
    fn a_fill_resumed_from_a_saved_state_equals_the_uninterrupted_fill() {
        // Officers and .167 (one splitting digit, the lanes), .354 (digits of both
        // parities), Grundy's game (equal splits forbidden), 4.065 (auto proves its period
        // at 2^17 and copies past it).
        let cuts = [1000, 4096, 5000, 40_000, 70_000, 131_072, 150_001];
        for code in ["0.6", "0.167", "0.354", "grundy", "4.065"] {
            let rules = Rules::parse(code).unwrap();
            let limit = 200_000;
            let whole = crate::octal::build("octal-block", &rules, limit as u64).unwrap();
            let block = OctalBlock {
                prefix: 4096,
                block: 512,
                always_mask: false,
            };
            assert_eq!(
                through_saved_states(&block, &rules, limit, &cuts),
                whole.values(),
                "{code}: octal-block"
            );
            assert_eq!(
                through_saved_states(&Auto, &rules, limit, &cuts),
                whole.values(),
                "{code}: auto"
            );
        }
    }

    #[test]
    fn a_damaged_or_foreign_state_is_refused() {
        let rules = Rules::parse("0.6").unwrap();
        let block = OctalBlock::DEFAULT;
        let mut g = vec![0u16; 20_001];
        let mut kept: Kept = None;
        block.fill_kept(&rules, &mut g, 0, &mut kept).unwrap();
        let bytes = block.save_kept(&kept).unwrap();
        for cut in [1, 9, bytes.len() / 2, bytes.len() - 1] {
            let e = block
                .load_kept(&rules, &bytes[..cut])
                .expect_err("short")
                .to_string();
            assert!(e.contains("octal-block state"), "{e}");
        }
        let mut other = bytes.clone();
        other[0] = 9; // another version
        assert!(block.load_kept(&rules, &other).is_err());
        // auto's state names a back-end: an unknown name is refused
        let mut auto_kept: Kept = None;
        Auto.fill_kept(&rules, &mut g, 0, &mut auto_kept).unwrap();
        let mut saved = Auto.save_kept(&auto_kept).unwrap();
        Auto.load_kept(&rules, &saved).unwrap();
        let at = saved
            .windows(11)
            .position(|w| w == b"octal-block")
            .expect("auto names its choice");
        saved[at + 10] = b'X';
        let e = Auto
            .load_kept(&rules, &saved)
            .expect_err("unknown")
            .to_string();
        assert!(e.contains("octal-blocX"), "{e}");
    }
}
