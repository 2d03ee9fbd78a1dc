//! What the long-run machinery needs to know of a game's rules, read from its [`Rulebook`],
//! so that one driver, one table file format and one spot check serve every workload.
//!
//! Three things: the label written into a table file's header (which refuses a file made for
//! other rules), the work of g(0..p) (chunk sizing and the ETA) and a check of loaded values
//! against the definition at sampled positions.
//!
//! Labels never collide across workloads: a subtraction set's label is `squares` or a list
//! of numbers such as `1,3,4` (bare, as the first files were written), an octal game's is
//! `octal ` and its code (`octal 0.6`, `octal grundy`), any other workload's its game in
//! words. So the subtraction set {1, 2, 3} and the code 0.333, which have the same values,
//! still have different labels, and a table made for one is refused for the other.

use crate::grundy::Rulebook;

/// The rules a long table run is for: what the driver, the table file and its spot check
/// read of a workload's [`Rulebook`], as an object (every workload's rules are one, so a new
/// workload needs nothing here).
pub trait Ruleset: Sync {
    /// The label in a table file's header: equal labels mean equal rules
    /// ([`Rulebook::file_label`]).
    fn label(&self) -> String;

    /// The work of computing g(0..p) from scratch, in the unit the ETA and the chunk sizes
    /// go by (option steps); 0 for p = 0, non-decreasing in p. Must be cheap (the driver
    /// calls it a few dozen times per chunk).
    fn steps_before(&self, p: usize) -> u128;

    /// The first checked position n whose value in `values` (g(0..values.len())) is not
    /// the mex of its options computed from `values` by the definition: `(n, found, mex)`;
    /// `None` when every checked position agrees ([`Rulebook::first_wrong`]).
    fn first_wrong(&self, values: &[u16]) -> Option<(usize, u16, u16)>;
}

impl<R: Rulebook> Ruleset for R {
    fn label(&self) -> String {
        self.file_label()
    }

    fn steps_before(&self, p: usize) -> u128 {
        if p == 0 {
            0
        } else {
            self.option_steps(p - 1)
        }
    }

    fn first_wrong(&self, values: &[u16]) -> Option<(usize, u16, u16)> {
        Rulebook::first_wrong(self, values)
    }
}

/// The prefix of an octal game's file labels.
pub const OCTAL_PREFIX: &str = "octal ";

/// True for the bare label of a subtraction set's table (`squares`, `1,3,4`): the labels of
/// the files written before the other workloads, the only ones without a space; every other
/// workload's label names it in words (`octal 0.6`).
pub fn is_bare(label: &str) -> bool {
    !label.contains(' ')
}

/// A table file's label in words: a subtraction set's as `moves squares`, any other as it is.
pub fn describe(label: &str) -> String {
    if is_bare(label) {
        format!("moves {label}")
    } else {
        label.to_string()
    }
}

/// What to do with a file made for the rules of `label`, asked for rules of the same family
/// (`same_family`) or of the other: the flag or command that uses it.
pub fn use_hint(label: &str, same_family: bool) -> String {
    match (label.strip_prefix(OCTAL_PREFIX), same_family) {
        (Some(code), _) => format!("it serves `nimsquare octal {code}`; give another file"),
        (None, _) if !is_bare(label) => format!("it serves {label}; give another file"),
        (None, true) => format!("give --moves {label} or another file"),
        (None, false) => {
            format!("it serves the Nim Square commands with --moves {label}; give another file")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::moves::Moves;
    use crate::grundy::spot_check::FULL_PREFIX;
    use crate::octal::Rules;

    /// Dawson's Kayles (0.07), g(0..19), from the independent table.
    const DAWSON_20: [u16; 20] = [0, 0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 0, 5, 2, 2, 3];
    /// Officers (0.6), g(0..19), published.
    const OFFICERS_20: [u16; 20] = [0, 0, 1, 2, 0, 1, 2, 3, 1, 2, 3, 4, 0, 3, 4, 2, 1, 3, 2, 1];

    #[test]
    fn octal_published_values_pass_and_a_changed_one_is_found_where_it_is() {
        let dawson = Rules::parse("0.07").unwrap();
        assert_eq!(Ruleset::first_wrong(&dawson, &DAWSON_20), None);
        let officers = Rules::parse("0.6").unwrap();
        assert_eq!(Ruleset::first_wrong(&officers, &OFFICERS_20), None);
        let mut g = OFFICERS_20;
        g[13] = 5;
        // Officers' g(13) = 3: its options 12 (0) and the splits 1+11 (4), 2+10 (2), 3+9 (0),
        // 4+8 (1), 5+7 (2), 6+6 (0) leave 3 as the mex.
        assert_eq!(Ruleset::first_wrong(&officers, &g), Some((13, 5, 3)));
        // n mod 4 for 0.333 (subtract 1, 2 or 3).
        let sub = Rules::parse("0.333").unwrap();
        let g: Vec<u16> = (0..200).map(|n| (n % 4) as u16).collect();
        assert_eq!(Ruleset::first_wrong(&sub, &g), None);
    }

    #[test]
    fn an_octal_wrong_region_past_the_prefix_is_found_by_the_strata() {
        // 0.333: g(n) = n mod 4, cheap positions, so all 2048 strata are drawn; a region of 1%
        // of the rest zeroed covers about 20 strata.
        let sub = Rules::parse("0.333").unwrap();
        let n = FULL_PREFIX + 1_000_000;
        let mut g: Vec<u16> = (0..n).map(|i| (i % 4) as u16).collect();
        assert_eq!(Ruleset::first_wrong(&sub, &g), None);
        let start = FULL_PREFIX + 500_000;
        g[start..start + 10_000].fill(0);
        let (at, _, _) = Ruleset::first_wrong(&sub, &g).expect("found");
        assert!((start..start + 10_004).contains(&at), "{at}");
    }

    #[test]
    fn labels_of_the_two_families_never_meet() {
        let set = Moves::list(vec![1, 2, 3]).unwrap();
        let code = Rules::parse("0.333").unwrap();
        assert_eq!(Ruleset::label(&set), "1,2,3");
        assert_eq!(Ruleset::label(&code), "octal 0.333");
        assert_eq!(
            Ruleset::label(&Rules::parse("grundy").unwrap()),
            "octal grundy"
        );
        assert_eq!(describe("octal 0.6"), "octal 0.6");
        assert_eq!(describe("squares"), "moves squares");
        assert_eq!(describe("subtraction set {1,3}"), "subtraction set {1,3}");
    }

    #[test]
    fn octal_steps_before_counts_the_options_below_p() {
        // 0.6 (Officers) up to 5 has 8 options (see Rules::option_steps's test), g(0..6).
        let officers = Rules::parse("0.6").unwrap();
        assert_eq!(officers.steps_before(0), 0);
        assert_eq!(officers.steps_before(6), 8);
    }
}
