//! Every workload the harness builds tables of, listed once ([`KINDS`]), and the erased
//! handles the instruments hold ([`Subject`], [`Backend`]; defined in
//! [`crate::registry::workload`]).
//!
//! The bench matrix, `scale`, `roofline`, `profile`, `compare` and the checker iterate a
//! subject's back-ends through these handles instead of naming a stage: a subject says which
//! registry serves it, who judges its tables (the workload's control where it affords N, else
//! its reference), how many option steps a table costs (the unit of ns per step), the
//! cost-model workload of a finished table, and the memory a build needs. Every workload
//! returns the same [`crate::table::Table`], so what an instrument does with the values
//! (compare, summarise, price) is shared. A new kind of table is its folder and one line in
//! [`KINDS`].
//!
//! Invariant: [`KINDS`] holds each workload once, under a distinct name.

use crate::base::error::{Error, Result};
use crate::base::moves::Moves;
use crate::grundy::plan::{self, Plan};
use crate::{finite, octal, table};

pub use crate::registry::workload::{Backend, Kind, Made, Subject};

/// Every workload, in the order `list` shows them: one line per workload.
pub static KINDS: &[&dyn Kind] = &[&table::WORKLOAD, &octal::WORKLOAD, &finite::WORKLOAD];

/// The workload called `name`, or an error listing the names.
pub fn kind(name: &str) -> Result<&'static dyn Kind> {
    KINDS
        .iter()
        .copied()
        .find(|k| k.name() == name)
        .ok_or_else(|| {
            Error::Invalid(format!(
                "unknown workload '{}'; valid names: {}",
                name.escape_debug(),
                names().join(", ")
            ))
        })
}

/// The names of every workload.
pub fn names() -> Vec<&'static str> {
    KINDS.iter().map(|k| k.name()).collect()
}

/// The subject of workload `kind` with rules `rules` (`octal`, `0.6`).
pub fn parse(kind_name: &str, rules: &str) -> Result<Subject> {
    kind(kind_name)?.parse(rules)
}

/// The subject `KIND:RULES` (`octal:0.6`, `table:1,3,4`), or a workload name alone with its
/// example rules (`finite`).
pub fn parse_spec(text: &str) -> Result<Subject> {
    match text.split_once(':') {
        Some((k, rules)) => parse(k.trim(), rules),
        None => {
            let k = kind(text.trim())?;
            k.parse(k.example())
        }
    }
}

/// The table workload's subject of `moves` (Nim Square's squares by default).
pub fn subtraction(moves: Moves) -> Subject {
    table::WORKLOAD.subject(moves)
}

/// The subject every instrument takes when none is named: the squares.
pub fn squares() -> Subject {
    subtraction(Moves::Squares)
}

/// One build decided before any work, of any workload: the subject, the back-end, the
/// checked N and the memory it needs ([`crate::grundy::plan`], the plan every workload
/// shares). [`Plan::new`] refuses, in one line naming N, a limit out of range, a control
/// past what it affords, and a table that does not fit in memory; a command then builds
/// from the plan and checks nothing again.
pub type BuildPlan = Plan<Subject, Backend>;

impl plan::Backend for Backend {
    type Subject = Subject;

    fn name(&self) -> &'static str {
        Backend::name(self)
    }

    fn affordable_limit(&self) -> Option<usize> {
        Backend::affordable_limit(self)
    }

    fn bytes_needed(&self, subject: &Subject, limit: usize, threads: usize) -> u64 {
        subject.bytes_needed(*self, limit, threads)
    }

    fn describe(&self, subject: &Subject) -> String {
        subject.describe()
    }
}

impl BuildPlan {
    /// The table the plan decided.
    pub fn build(&self) -> Result<crate::table::Table> {
        self.subject.build(self.backend, self.limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn officers() -> Subject {
        parse("octal", "0.6").unwrap()
    }

    #[test]
    fn each_subject_finds_only_its_own_stage_and_judges_by_role() {
        let squares = squares();
        let officers = officers();
        assert!(squares.find("octal-sparse").is_err());
        assert!(officers.find("stamped").is_err());
        assert_eq!(officers.find("octal-vector").unwrap().stage(), "octal");
        // The controls judge where they afford N, the references beyond.
        assert_eq!(squares.judge(1000).name(), "naive-mex");
        assert_eq!(squares.judge(1_000_000).name(), "stamped");
        assert_eq!(officers.judge(1000).name(), "octal-naive");
        assert_eq!(officers.judge(100_000).name(), "octal-sparse");
        assert!(officers.fast().iter().all(|b| !b.is_control()));
        // A back-end of the other stage is refused, not run on the wrong rules.
        let wrong = squares.find("stamped").unwrap().make();
        assert!(wrong.build(&officers, 10).is_err());
        assert_eq!(squares.bytes_needed(officers.reference(), 10, 1), 0);
    }

    #[test]
    fn the_erased_plan_and_the_octal_plan_refuse_in_the_same_line() {
        let officers = officers();
        let naive = officers.find("octal-naive").unwrap();
        let past = naive.affordable_limit().unwrap() as u64 + 1;
        let erased = BuildPlan::new(officers, naive, past)
            .expect_err("refused")
            .to_string();
        let rules = crate::octal::Rules::parse("0.6").unwrap();
        let typed = crate::octal::OctalPlan::named(rules, Some("octal-naive"), past)
            .err()
            .expect("refused")
            .to_string();
        assert_eq!(erased, typed);
        assert!(
            erased.contains("--limit") && erased.contains("--backend") && !erased.contains('\n'),
            "{erased}"
        );
        let plan = BuildPlan::new(squares(), squares().reference(), 1000).unwrap();
        assert_eq!(plan.build().unwrap().limit(), 1000);
        assert!(plan.memory_needed >= 2 * 1001);
    }

    #[test]
    fn both_stages_build_the_published_starts() {
        // Officers (0.6), g(0..19) = 0 0 1 2 0 1 2 3 1 2 3 4 0 3 4 2 1 3 2 1 (issue 28's
        // facts); subtract-a-square: the cold positions up to 20 are 0, 2, 5, 7, 10, 12, 15,
        // 17, 20 (OEIS A030193).
        let officers = officers();
        let t = officers.build(officers.reference(), 19).unwrap();
        assert_eq!(
            t.values(),
            [0, 0, 1, 2, 0, 1, 2, 3, 1, 2, 3, 4, 0, 3, 4, 2, 1, 3, 2, 1]
        );
        let squares = squares();
        let t = squares.build(squares.reference(), 20).unwrap();
        assert_eq!(t.cold_positions(), [0, 2, 5, 7, 10, 12, 15, 17, 20]);
    }

    #[test]
    fn labels_say_the_game() {
        assert_eq!(squares().label(), "squares");
        assert_eq!(parse("octal", ".6").unwrap().label(), "0.6");
        assert_eq!(officers().describe(), "octal game 0.6");
        assert_eq!(squares().describe(), "moves squares");
        assert!(parse("octal", "0.9").is_err());
        // Officers: digit 6 at k = 1 (one heap or two), nothing else.
        assert_eq!(officers().removals(100), [1]);
        assert_eq!(parse_spec("octal:0.6").unwrap(), officers());
        assert!(parse_spec("nothing:1").is_err());
    }

    #[test]
    fn the_workloads_have_distinct_names_and_a_reference_each() {
        let mut names = names();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), KINDS.len());
        for k in KINDS {
            let subject = k.parse(k.example()).unwrap();
            assert_eq!(subject.reference().stage(), k.name());
            assert!(!k.backends().is_empty());
        }
    }
}
