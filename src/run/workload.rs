//! The workload an instrument times: a [`Game`] (which table to build: Nim Square's
//! subtraction games or an octal game) and the stage whose back-ends build it ([`Backend`]).
//!
//! The bench matrix, `scale`, `roofline` and `profile` iterate a game's back-ends through
//! this one descriptor instead of naming a stage: each value of [`Game`] says which registry
//! serves it, who judges its tables (the stage's control where it affords N, else its
//! reference), how many option steps a table costs (the unit of ns per step), the cost-model
//! workload of a finished table, and the memory a build needs. Both stages return the same
//! [`Table`], so what an instrument does with the values (compare, summarise, price) is
//! shared. A third kind of table is its stage folder, one variant here with its arms, and
//! nothing in the instruments.
//!
//! Invariant: a [`Backend`] found through a game ([`Game::find`], [`Game::fast`],
//! [`Game::judge`]) is of that game's stage, so [`Builder::build`] never meets a mismatch
//! from those; one built by hand for another stage is refused with [`Error::Invalid`].

use crate::base::error::{Error, Result};
use crate::base::moves::Moves;
use crate::cost;
use crate::kernels::Family;
use crate::octal::{self, OctalBuilder, Rules};
use crate::registry::{self, Entry, Role};
use crate::table::{self, Table, TableBuilder};

/// A game whose table of Grundy values an instrument builds and times.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Game {
    /// A subtraction game (Nim Square: the squares), built by the table stage.
    Subtraction(Moves),
    /// An octal game, built by the octal stage.
    Octal(Rules),
}

/// One registry entry of either stage: what an instrument reads of a back-end.
#[derive(Clone, Copy)]
pub enum Backend {
    Table(&'static Entry<dyn TableBuilder>),
    Octal(&'static Entry<dyn OctalBuilder>),
}

/// A constructed back-end of either stage.
pub enum Builder {
    Table(Box<dyn TableBuilder>),
    Octal(Box<dyn OctalBuilder>),
}

impl std::fmt::Debug for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.stage(), self.name())
    }
}

impl PartialEq for Backend {
    fn eq(&self, other: &Backend) -> bool {
        self.stage() == other.stage() && self.name() == other.name()
    }
}

impl Backend {
    /// The stage's name (`table`, `octal`).
    pub fn stage(&self) -> &'static str {
        match self {
            Backend::Table(_) => table::STAGE.name,
            Backend::Octal(_) => octal::STAGE.name,
        }
    }

    /// Its name on the command line.
    pub fn name(&self) -> &'static str {
        match self {
            Backend::Table(e) => e.name,
            Backend::Octal(e) => e.name,
        }
    }

    /// Fast, reference or control.
    pub fn role(&self) -> Role {
        match self {
            Backend::Table(e) => e.role,
            Backend::Octal(e) => e.role,
        }
    }

    /// True for the naive controls.
    pub fn is_control(&self) -> bool {
        self.role() == Role::Control
    }

    /// Its cost model.
    pub fn model(&self) -> cost::Model {
        match self {
            Backend::Table(e) => e.model,
            Backend::Octal(e) => e.model,
        }
    }

    /// The kernel families it runs.
    pub fn kernels(&self) -> &'static [Family] {
        match self {
            Backend::Table(e) => e.kernels,
            Backend::Octal(e) => e.kernels,
        }
    }

    /// True when it has a kernel per `--isa` path ([`Entry::follows_isa`]).
    pub fn follows_isa(&self) -> bool {
        match self {
            Backend::Table(e) => e.follows_isa(),
            Backend::Octal(e) => e.follows_isa(),
        }
    }

    /// Constructs it.
    pub fn make(&self) -> Builder {
        match self {
            Backend::Table(e) => Builder::Table((e.make)()),
            Backend::Octal(e) => Builder::Octal((e.make)()),
        }
    }

    /// The largest N it affords, if it is limited (the quadratic controls).
    pub fn affordable_limit(&self) -> Option<usize> {
        match self.make() {
            Builder::Table(b) => b.affordable_limit(),
            Builder::Octal(b) => b.affordable_limit(),
        }
    }

    /// True when it affords N = `limit`.
    pub fn affords(&self, limit: usize) -> bool {
        self.affordable_limit().is_none_or(|top| limit <= top)
    }
}

impl Builder {
    /// g(0..=limit) of `game` from scratch; an error when the game is not of this
    /// back-end's stage, or when an octal value overflows `u16`.
    pub fn build(&self, game: &Game, limit: usize) -> Result<Table> {
        match (self, game) {
            (Builder::Table(b), Game::Subtraction(moves)) => Ok(b.build(moves, limit)),
            (Builder::Octal(b), Game::Octal(rules)) => b.build(rules, limit),
            _ => Err(Error::Invalid(format!(
                "a back-end of another stage cannot build {}",
                game.describe()
            ))),
        }
    }
}

impl Game {
    /// The octal game of `code` (`0.6`, `.137`, `grundy`), or the parser's one-line refusal.
    pub fn octal(code: &str) -> Result<Game> {
        Rules::parse(code).map(Game::Octal)
    }

    /// The name of the stage that builds it (`table`, `octal`): the group of its bench ids.
    pub fn stage(&self) -> &'static str {
        match self {
            Game::Subtraction(_) => table::STAGE.name,
            Game::Octal(_) => octal::STAGE.name,
        }
    }

    /// Its label in files and settings: the moves' label (`squares`, `1,3,4`) or the octal
    /// code (`0.6`, `grundy`). The two never collide: a move list has no point.
    pub fn label(&self) -> String {
        match self {
            Game::Subtraction(moves) => moves.label(),
            Game::Octal(rules) => rules.label().to_string(),
        }
    }

    /// The game in words, for messages: `moves squares`, `octal game 0.6`.
    pub fn describe(&self) -> String {
        match self {
            Game::Subtraction(moves) => format!("moves {}", moves.label()),
            Game::Octal(rules) => format!("octal game {rules}"),
        }
    }

    /// The subtraction set, for the instruments only the table stage serves (`auto`, the
    /// counts); `None` for an octal game.
    pub fn moves(&self) -> Option<&Moves> {
        match self {
            Game::Subtraction(moves) => Some(moves),
            Game::Octal(_) => None,
        }
    }

    /// Every back-end of its stage, in registry order.
    pub fn backends(&self) -> Vec<Backend> {
        match self {
            Game::Subtraction(_) => table::BACKENDS.iter().map(Backend::Table).collect(),
            Game::Octal(_) => octal::BACKENDS.iter().map(Backend::Octal).collect(),
        }
    }

    /// The back-ends that are not controls: what the instruments time by default.
    pub fn fast(&self) -> Vec<Backend> {
        match self {
            Game::Subtraction(_) => registry::fast(table::BACKENDS)
                .map(Backend::Table)
                .collect(),
            Game::Octal(_) => registry::fast(octal::BACKENDS)
                .map(Backend::Octal)
                .collect(),
        }
    }

    /// The back-end called `name` in its stage, or the stage's error listing the valid names.
    pub fn find(&self, name: &str) -> Result<Backend> {
        match self {
            Game::Subtraction(_) => table::find(name).map(Backend::Table),
            Game::Octal(_) => octal::find(name).map(Backend::Octal),
        }
    }

    /// Its stage's reference back-end.
    pub fn reference(&self) -> Backend {
        match self {
            Game::Subtraction(_) => Backend::Table(table::reference()),
            Game::Octal(_) => Backend::Octal(octal::STAGE.reference()),
        }
    }

    /// The judge of its tables at N: the stage's naive control where it affords N, else
    /// its reference (the rule of [`crate::registry::Role`]).
    pub fn judge(&self, limit: usize) -> Backend {
        self.backends()
            .into_iter()
            .find(|b| b.is_control() && b.affords(limit))
            .unwrap_or_else(|| self.reference())
    }

    /// The option steps of its table up to `limit`: the unit of ns per step and of the bench
    /// throughput (for an octal game every removal and every split pair, [`Rules::option_steps`]).
    pub fn option_steps(&self, limit: usize) -> u128 {
        match self {
            Game::Subtraction(moves) => moves.option_steps(limit),
            Game::Octal(rules) => rules.option_steps(limit),
        }
    }

    /// The removal sizes up to `limit`, ascending (the roofline's span primitive reads the
    /// table at these offsets): the moves, or every k of the octal code's digits.
    pub fn removals(&self, limit: usize) -> Vec<usize> {
        match self {
            Game::Subtraction(moves) => moves.up_to(limit),
            Game::Octal(rules) => {
                let mut all: Vec<usize> = rules
                    .whole()
                    .iter()
                    .chain(rules.one())
                    .chain(rules.split())
                    .copied()
                    .filter(|&k| k <= limit)
                    .collect();
                all.sort_unstable();
                all.dedup();
                all
            }
        }
    }

    /// The shape of building `table` for this game on `threads` threads: what a cost model
    /// counts its primitives from.
    pub fn workload(&self, table: &Table, threads: usize) -> cost::Workload {
        match self {
            Game::Subtraction(moves) => table.workload(moves, threads),
            Game::Octal(rules) => octal::workload(rules, table, threads),
        }
    }

    /// Bytes a build of N = `limit` by `backend` needs on `threads` threads: the u16 table,
    /// its histogram and the back-end's scratch (an upper estimate, what the memory guard
    /// checks before anything is allocated).
    pub fn bytes_needed(&self, backend: Backend, limit: usize, threads: usize) -> u64 {
        match (self, backend.make()) {
            (Game::Subtraction(moves), Builder::Table(b)) => {
                table::bytes_needed(&*b, moves, limit, threads)
            }
            (Game::Octal(rules), Builder::Octal(b)) => {
                // the values, a u64 histogram entry per value (at most u16::MAX + 1) and the
                // scratch
                2 * (limit as u64 + 1)
                    + 8 * (u16::MAX as u64 + 1).min(limit as u64 + 1)
                    + b.scratch_bytes(rules, limit, threads)
            }
            _ => 0,
        }
    }

    /// Refuses, before any work, `backend` at N = `limit` (given by the flag `flag`) when it
    /// is a control past what it affords, naming the flags to change (`instead`).
    pub fn check_affords(
        &self,
        backend: Backend,
        flag: &str,
        limit: usize,
        instead: &str,
    ) -> Result<()> {
        match backend.affordable_limit() {
            Some(most) if limit > most => Err(Error::Unsupported {
                backend: backend.name(),
                what: format!(
                    "{flag} {limit} (it affords N <= {most}): it is a naive control, run only on small inputs (see `nimsquare list`); {instead}"
                ),
            }),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_game_finds_only_its_own_stage_and_judges_by_role() {
        let squares = Game::Subtraction(Moves::Squares);
        let officers = Game::octal("0.6").unwrap();
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
    }

    #[test]
    fn both_stages_build_the_published_starts() {
        // Officers (0.6), g(0..19) = 0 0 1 2 0 1 2 3 1 2 3 4 0 3 4 2 1 3 2 1 (issue 28's
        // facts); subtract-a-square: the cold positions up to 20 are 0, 2, 5, 7, 10, 12, 15,
        // 17, 20 (OEIS A030193).
        let officers = Game::octal("0.6").unwrap();
        let t = officers.reference().make().build(&officers, 19).unwrap();
        assert_eq!(
            t.values(),
            [0, 0, 1, 2, 0, 1, 2, 3, 1, 2, 3, 4, 0, 3, 4, 2, 1, 3, 2, 1]
        );
        let squares = Game::Subtraction(Moves::Squares);
        let t = squares.reference().make().build(&squares, 20).unwrap();
        assert_eq!(t.cold_positions(), [0, 2, 5, 7, 10, 12, 15, 17, 20]);
    }

    #[test]
    fn labels_say_the_game() {
        assert_eq!(Game::Subtraction(Moves::Squares).label(), "squares");
        assert_eq!(Game::octal(".6").unwrap().label(), "0.6");
        assert_eq!(Game::octal("0.6").unwrap().describe(), "octal game 0.6");
        assert!(Game::octal("0.9").is_err());
        // Officers: digit 6 at k = 1 (one heap or two), nothing else.
        assert_eq!(Game::octal("0.6").unwrap().removals(100), [1]);
    }
}
