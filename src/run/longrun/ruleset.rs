//! What the long-run machinery needs to know of a game's rules, so that one driver, one table
//! file format and one spot check serve the Nim Square tables (a subtraction set, [`Moves`])
//! and the octal games ([`Rules`]) alike.
//!
//! Three things: the label written into a table file's header (which refuses a file made for
//! other rules), the work of g(0..p) (chunk sizing and the ETA) and a check of loaded values
//! against the definition at sampled positions.
//!
//! Labels never collide across families: a subtraction set's label is `squares` or a list of
//! numbers such as `1,3,4`, an octal game's is `octal ` and its code (`octal 0.6`,
//! `octal grundy`). So the subtraction set {1, 2, 3} and the code 0.333, which have the same
//! values, still have different labels, and a table made for one is refused for the other.

use crate::base::moves::Moves;
use crate::octal::Rules;

/// The rules a long table run is for.
pub trait Ruleset: Sync {
    /// The label in a table file's header: equal labels mean equal rules.
    fn label(&self) -> String;

    /// The work of computing g(0..p) from scratch, in the unit the ETA and the chunk sizes
    /// go by (option steps); 0 for p = 0, non-decreasing in p. Must be cheap (the driver
    /// calls it a few dozen times per chunk).
    fn steps_before(&self, p: usize) -> u128;

    /// The first checked position n whose value in `values` (g(0..values.len())) is not
    /// the mex of its options computed from `values` by the definition: `(n, found, mex)`;
    /// `None` when every checked position agrees. Checks a sample whose cost stays a small
    /// fraction of building the table.
    fn first_wrong(&self, values: &[u16]) -> Option<(usize, u16, u16)>;
}

/// The prefix of an octal game's labels.
pub const OCTAL_PREFIX: &str = "octal ";

impl Ruleset for Moves {
    fn label(&self) -> String {
        Moves::label(self)
    }

    fn steps_before(&self, p: usize) -> u128 {
        if p == 0 {
            0
        } else {
            self.option_steps(p - 1)
        }
    }

    fn first_wrong(&self, values: &[u16]) -> Option<(usize, u16, u16)> {
        super::spot_check::first_wrong(self, values)
    }
}

impl Ruleset for Rules {
    fn label(&self) -> String {
        format!("{OCTAL_PREFIX}{}", Rules::label(self))
    }

    fn steps_before(&self, p: usize) -> u128 {
        if p == 0 {
            0
        } else {
            self.option_steps(p - 1)
        }
    }

    fn first_wrong(&self, values: &[u16]) -> Option<(usize, u16, u16)> {
        super::spot_check_octal::first_wrong(self, values)
    }
}

/// A table file's label in words: `octal 0.6` as it is, a subtraction set's as
/// `moves squares`.
pub fn describe(label: &str) -> String {
    if label.starts_with(OCTAL_PREFIX) {
        label.to_string()
    } else {
        format!("moves {label}")
    }
}

/// What to do with a file made for the rules of `label`, asked for rules of the same family
/// (`same_family`) or of the other: the flag or command that uses it.
pub fn use_hint(label: &str, same_family: bool) -> String {
    match (label.strip_prefix(OCTAL_PREFIX), same_family) {
        (Some(code), _) => format!("it serves `nimsquare octal {code}`; give another file"),
        (None, true) => format!("give --moves {label} or another file"),
        (None, false) => {
            format!("it serves the Nim Square commands with --moves {label}; give another file")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }

    #[test]
    fn octal_steps_before_counts_the_options_below_p() {
        // 0.6 (Officers) up to 5 has 8 options (see Rules::option_steps's test), g(0..6).
        let officers = Rules::parse("0.6").unwrap();
        assert_eq!(officers.steps_before(0), 0);
        assert_eq!(officers.steps_before(6), 8);
    }
}
