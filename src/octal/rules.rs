//! The rules of an octal game, parsed from its code `d0.d1d2…dt`.
//!
//! Digit dk says what removing k tokens from one heap may leave: bit 1, nothing (the heap
//! had exactly k); bit 2, one non-empty heap; bit 4, two non-empty heaps. d0 (removing
//! nothing) is 0 or 4: with 4 a heap may be split in two without removing anything. A
//! finite subtraction game is the code with digit 3 at each move. Grundy's game (split one
//! heap into two unequal heaps) is the named extra `grundy`: d0 = 4 with the parts unequal.
//!
//! Invariant: `whole`, `one` and `split` are ascending and hold each k at most once; `whole`
//! and `one` never hold 0.

use crate::base::error::{Error, Result};

/// The most digits a code may have after the point (a move of 4096 tokens is far beyond
/// any published table; the bound keeps a typing slip from asking for a huge rule set).
pub const MAX_DIGITS: usize = 4096;

/// An octal game's moves, grouped by what they leave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rules {
    label: String,
    whole: Vec<usize>,
    one: Vec<usize>,
    split: Vec<usize>,
    unequal: bool,
}

impl Rules {
    /// Parses `0.07`, `.07`, `4.07`, `0.6` or `grundy`. Trailing zero digits are dropped
    /// from the label (`0.070` is `0.07`). A malformed code is refused with a one-line error.
    pub fn parse(text: &str) -> Result<Rules> {
        let t = text.trim();
        if t.eq_ignore_ascii_case("grundy") {
            return Ok(Rules {
                label: "grundy".into(),
                whole: vec![],
                one: vec![],
                split: vec![0],
                unequal: true,
            });
        }
        let bad = |why: String| {
            Error::Invalid(format!(
                "octal code '{}': {why}; write it as 0.d1d2... or 4.d1d2... with octal digits 0-7 (for example 0.07, .6 or 4.07), or 'grundy'",
                text.escape_debug()
            ))
        };
        let Some((before, after)) = t.split_once('.') else {
            return Err(bad("it has no point".into()));
        };
        let d0 = match before {
            "" | "0" => 0u8,
            "4" => 4,
            other => {
                return Err(bad(format!(
                    "before the point only 0 or 4 may stand, not '{}'",
                    other.escape_debug()
                )))
            }
        };
        if after.is_empty() {
            return Err(bad("no digits after the point".into()));
        }
        if after.len() > MAX_DIGITS {
            return Err(bad(format!(
                "{} digits after the point, more than the {MAX_DIGITS} allowed",
                after.len()
            )));
        }
        let mut digits = vec![d0];
        for (i, c) in after.chars().enumerate() {
            match c.to_digit(8) {
                Some(d) => digits.push(d as u8),
                None => {
                    return Err(bad(format!(
                        "'{}' (digit {} after the point) is not an octal digit",
                        c.escape_debug(),
                        i + 1
                    )))
                }
            }
        }
        Ok(Rules::from_digits(&digits))
    }

    /// The rules of digits `digits[k]` = dk (d0 first; only bit 4 of d0 counts).
    pub fn from_digits(digits: &[u8]) -> Rules {
        let mut r = Rules {
            label: String::new(),
            whole: vec![],
            one: vec![],
            split: vec![],
            unequal: false,
        };
        for (k, &d) in digits.iter().enumerate() {
            if k > 0 && d & 1 != 0 {
                r.whole.push(k);
            }
            if k > 0 && d & 2 != 0 {
                r.one.push(k);
            }
            if d & 4 != 0 {
                r.split.push(k);
            }
        }
        r.label = r.code();
        r
    }

    /// The finite subtraction game with move set `moves` (each >= 1): digit 3 at each move.
    pub fn subtraction(moves: &[usize]) -> Result<Rules> {
        let top = moves.iter().copied().max().unwrap_or(0);
        if moves.is_empty() || moves.contains(&0) || top > MAX_DIGITS {
            return Err(Error::Invalid(format!(
                "a subtraction game as an octal code needs moves between 1 and {MAX_DIGITS}"
            )));
        }
        let mut digits = vec![0u8; top + 1];
        for &s in moves {
            digits[s] = 3;
        }
        Ok(Rules::from_digits(&digits))
    }

    /// The code with trailing zeros dropped (`0.07`), or `grundy`.
    pub fn label(&self) -> &str {
        &self.label
    }

    fn code(&self) -> String {
        let top = self.largest_removal();
        let digit = |k: usize| {
            (self.whole.binary_search(&k).is_ok() as u8)
                | ((self.one.binary_search(&k).is_ok() as u8) << 1)
                | ((self.split.binary_search(&k).is_ok() as u8) << 2)
        };
        let mut s = format!("{}.", digit(0));
        for k in 1..=top.max(1) {
            s.push(char::from(b'0' + digit(k)));
        }
        s
    }

    /// The k (>= 1) that may be removed when the heap has exactly k tokens (bit 1).
    pub fn whole(&self) -> &[usize] {
        &self.whole
    }

    /// The k (>= 1) that may be removed leaving one non-empty heap (bit 2).
    pub fn one(&self) -> &[usize] {
        &self.one
    }

    /// The k (>= 0) that may be removed leaving two non-empty heaps (bit 4).
    pub fn split(&self) -> &[usize] {
        &self.split
    }

    /// True when a split must leave two unequal heaps (Grundy's game).
    pub fn unequal(&self) -> bool {
        self.unequal
    }

    /// True when some move splits a heap: the games whose tables need the xor-pair mex.
    pub fn splits(&self) -> bool {
        !self.split.is_empty()
    }

    /// The parity every splitting digit k shares, when they share one (Flammenkamp's second
    /// kind of sparse space needs it: a split of heap n leaves a + b = n - k tokens, so the
    /// parities of the two heaps tell the parity of n only through k mod 2); None when the
    /// digits differ in parity or no move splits.
    pub fn split_parity(&self) -> Option<u8> {
        let first = *self.split.first()? as u8 & 1;
        self.split
            .iter()
            .all(|&k| k as u8 & 1 == first)
            .then_some(first)
    }

    /// The heap sizes (a, m - a) a split of m tokens may leave, a <= m - a: a in 1..=this.
    pub fn split_pairs(&self, m: usize) -> usize {
        let half = m / 2;
        if self.unequal && m.is_multiple_of(2) {
            half.saturating_sub(1)
        } else {
            half
        }
    }

    /// True when heap n may be removed whole (bit 1 of digit n): an option of value 0.
    #[inline]
    pub fn removes_whole(&self, n: usize) -> bool {
        self.whole.contains(&n)
    }

    /// The heap each option of n that leaves one heap leaves: n - k for each k of bit 2
    /// below n, ascending in k.
    #[inline]
    pub fn one_heap_left(&self, n: usize) -> impl Iterator<Item = usize> + '_ {
        self.one
            .iter()
            .filter(move |&&k| n > k)
            .map(move |&k| n - k)
    }

    /// The splits of heap n, per splitting digit k (bit 4) with n >= k + 2, in digit order:
    /// (d, m, p), d the index of k in [`Rules::split`], m = n - k the tokens split and
    /// p = [`Rules::split_pairs`]`(m)`: the options (a, m - a) for 1 <= a <= p.
    #[inline]
    pub fn splits_by_digit(&self, n: usize) -> impl Iterator<Item = (usize, usize, usize)> + '_ {
        self.split
            .iter()
            .enumerate()
            .filter(move |&(_, &k)| n >= k + 2)
            .map(move |(d, &k)| (d, n - k, self.split_pairs(n - k)))
    }

    /// [`Rules::splits_by_digit`] without the digit index: (m, p) per split of heap n.
    #[inline]
    pub fn splits_of(&self, n: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.splits_by_digit(n).map(|(_, m, p)| (m, p))
    }

    /// The definition of the options of heap n, stated once: the value of each option, given
    /// to `each` (a value once per option, split pairs (a, m - a) and (m - a, a) once): 0 for
    /// the whole heap removed, g(n - k) for one heap left, g(a) xor g(m - a) for each split.
    /// Needs g[..n] final. The control and [`crate::grundy::Rulebook::options`] run it as it
    /// is; the fast back-ends search the same options their own way (each says where), and
    /// their tests hold their tables against the control's.
    #[inline]
    pub fn each_option(&self, g: &[u16], n: usize, mut each: impl FnMut(u16)) {
        if self.removes_whole(n) {
            each(0);
        }
        for h in self.one_heap_left(n) {
            each(g[h]);
        }
        for (m, p) in self.splits_of(n) {
            for a in 1..=p {
                each(g[a] ^ g[m - a]);
            }
        }
    }

    /// The values of every option of heap n, into `into` (cleared first): [`Rules::each_option`].
    pub fn options(&self, g: &[u16], n: usize, into: &mut Vec<u16>) {
        into.clear();
        self.each_option(g, n, |v| into.push(v));
    }

    /// The values of the options of heap n that leave at most one heap (the whole heap
    /// removed, one heap of n - k left), into `into` (cleared first): what the back-ends that
    /// search the split pairs separately look at first ([`Rules::each_option`] without the
    /// splits).
    #[inline]
    pub fn single_heap_options(&self, g: &[u16], n: usize, into: &mut Vec<u16>) {
        into.clear();
        if self.removes_whole(n) {
            into.push(0);
        }
        into.extend(self.one_heap_left(n).map(|h| g[h]));
    }

    /// The distinct numbers of tokens a move removes that are at most `limit`, ascending.
    pub fn removals(&self, limit: usize) -> Vec<usize> {
        let mut all: Vec<usize> = self
            .whole
            .iter()
            .chain(&self.one)
            .chain(&self.split)
            .copied()
            .filter(|&k| k <= limit)
            .collect();
        all.sort_unstable();
        all.dedup();
        all
    }

    /// t: the largest number of tokens one move removes (0 for a code whose only digit is d0).
    pub fn largest_removal(&self) -> usize {
        [&self.whole, &self.one, &self.split]
            .iter()
            .filter_map(|v| v.last().copied())
            .max()
            .unwrap_or(0)
    }

    /// The error for a mex past `u16::MAX` at heap `n`.
    pub fn value_overflow(&self, n: usize) -> Error {
        Error::Overflow(format!(
            "octal game {self}: g({n}) exceeds {} (values are stored as u16); use a smaller --limit",
            u16::MAX
        ))
    }

    /// The options a mex from the definition looks at up to `limit`: the sum over n <= limit
    /// of the options of n (each split pair counted once), in closed form (a test holds it
    /// against [`Rules::each_option`]).
    pub fn option_steps(&self, limit: usize) -> u128 {
        let mut steps = 0u128;
        for &k in &self.whole {
            steps += (k <= limit) as u128;
        }
        for &k in &self.one {
            steps += limit.saturating_sub(k) as u128;
        }
        for &k in &self.split {
            // sum over m = n - k in 2..=limit - k of split_pairs(m), in closed form (the
            // long-run driver asks for it a few dozen times per chunk): the sum of floor(m/2)
            // over m <= T is floor(T^2 / 4), and Grundy's game drops the equal split of each
            // even m >= 2, floor(T / 2) of them.
            let top = limit.saturating_sub(k) as u128;
            steps += top * top / 4;
            if self.unequal {
                steps -= top / 2;
            }
        }
        steps
    }
}

impl std::fmt::Display for Rules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.label)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_parse_into_their_moves() {
        let kayles = Rules::parse("0.77").unwrap();
        assert_eq!(kayles.whole(), &[1, 2]);
        assert_eq!(kayles.one(), &[1, 2]);
        assert_eq!(kayles.split(), &[1, 2]);
        let officers = Rules::parse(".6").unwrap();
        assert_eq!(officers.label(), "0.6");
        assert!(officers.whole().is_empty());
        assert_eq!(officers.one(), &[1]);
        assert_eq!(officers.split(), &[1]);
        let four = Rules::parse("4.070").unwrap();
        assert_eq!(four.label(), "4.07");
        assert_eq!(four.split(), &[0, 2]);
        let grundy = Rules::parse("Grundy").unwrap();
        assert!(grundy.unequal() && grundy.split() == [0]);
        assert_eq!(Rules::subtraction(&[1, 3]).unwrap().label(), "0.303");
    }

    #[test]
    fn malformed_codes_are_refused_naming_the_fault() {
        for (code, says) in [
            ("07", "no point"),
            ("0.", "no digits"),
            ("1.07", "only 0 or 4"),
            ("0.08", "'8'"),
            ("0.7a", "'a'"),
            ("", "no point"),
        ] {
            let e = Rules::parse(code).unwrap_err().to_string();
            assert!(e.contains(says), "{code}: {e}");
            assert!(!e.contains('\n'));
        }
    }

    #[test]
    fn the_split_parity_is_the_parity_the_splitting_digits_share() {
        // .127 splits at k = 3 only; Officers at 1; Grundy's game at 0; 4.07 at 0 and 2;
        // 0.77 at 1 and 2 (no shared parity); 0.333 never splits.
        for (code, want) in [
            ("0.127", Some(1)),
            ("0.6", Some(1)),
            ("grundy", Some(0)),
            ("4.07", Some(0)),
            ("0.77", None),
            ("0.333", None),
        ] {
            assert_eq!(Rules::parse(code).unwrap().split_parity(), want, "{code}");
        }
    }

    #[test]
    fn split_pairs_drop_the_equal_split_of_grundys_game() {
        let g = Rules::parse("grundy").unwrap();
        assert_eq!(g.split_pairs(4), 1); // 1+3 only, not 2+2
        assert_eq!(g.split_pairs(5), 2);
        let o = Rules::parse("0.4").unwrap();
        assert_eq!(o.split_pairs(4), 2);
    }

    #[test]
    fn option_steps_count_every_option_once() {
        // 0.6 up to 5: one-heap options n-1 for n=2..5 (4), splits of m = n-1 in 2..=4:
        // pairs 1 + 1 + 2 = 4.
        assert_eq!(Rules::parse("0.6").unwrap().option_steps(5), 8);
        // The closed form against the options the definition enumerates, heap by heap.
        for code in ["0.6", "4.07", "grundy", "0.7777", "4.4"] {
            let r = Rules::parse(code).unwrap();
            let g = vec![0u16; 60];
            let mut counted = 0u128;
            for limit in 0usize..60 {
                r.each_option(&g, limit, |_| counted += 1);
                assert_eq!(r.option_steps(limit), counted, "{code} {limit}");
            }
        }
    }

    #[test]
    fn the_options_are_what_the_digits_of_the_code_say() {
        // Read each digit dk of the code afresh (bit 1: the whole heap of k; bit 2: one heap
        // of n - k; bit 4: two heaps a + b = n - k, a <= b, unequal in Grundy's game) and
        // compare the sorted option values with the one statement's, on a table of made-up
        // values (any table: the options are a function of g).
        let g: Vec<u16> = (0..80u32).map(|i| ((i * 37 + 11) % 23) as u16).collect();
        for code in [
            "0.07", "0.6", "4.07", "0.137", "0.7777", "grundy", "4.4", "0.333",
        ] {
            let r = Rules::parse(code).unwrap();
            let digits: Vec<u8> = if code == "grundy" {
                vec![4]
            } else {
                let (d0, after) = code.split_once('.').unwrap();
                std::iter::once(d0.parse::<u8>().unwrap())
                    .chain(after.bytes().map(|b| b - b'0'))
                    .collect()
            };
            for n in 0..g.len() {
                let mut want = Vec::new();
                for (k, &d) in digits.iter().enumerate() {
                    if k > 0 && d & 1 != 0 && n == k {
                        want.push(0);
                    }
                    if k > 0 && d & 2 != 0 && n > k {
                        want.push(g[n - k]);
                    }
                    if d & 4 != 0 && n >= k + 2 {
                        let m = n - k;
                        for a in 1..=m / 2 {
                            if !(code == "grundy" && 2 * a == m) {
                                want.push(g[a] ^ g[m - a]);
                            }
                        }
                    }
                }
                let mut got = Vec::new();
                r.options(&g, n, &mut got);
                want.sort_unstable();
                got.sort_unstable();
                assert_eq!(got, want, "{code} n = {n}");
                let mut single = Vec::new();
                r.single_heap_options(&g, n, &mut single);
                let splits: usize = r.splits_of(n).map(|(_, p)| p).sum();
                assert_eq!(single.len() + splits, want.len(), "{code} n = {n}");
            }
        }
    }
}
