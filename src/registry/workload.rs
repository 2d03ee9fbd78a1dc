//! The workloads, erased: what the instruments hold instead of naming a stage.
//!
//! A workload is a kind of game whose Grundy table the harness builds (the squares' table,
//! octal games, finite subtraction games). Its folder states the rules ([`Rulebook`]), its
//! back-ends ([`Builder`]s of those rules, listed in a [`Stage`]) and one [`WorkloadKind`]
//! static: its name, what its rules look like on the command line, and how to parse them.
//! `run::workload::KINDS` lists every kind, one line each. An instrument holds a [`Subject`]
//! (the rules of one game of one kind, their type erased) and its [`Backend`]s (registry
//! entries, their type erased), and is written once for every kind: nothing here or above
//! matches on a workload.
//!
//! Invariant: a [`Backend`] found through a subject ([`Subject::find`], [`Subject::fast`],
//! [`Subject::judge`]) is of the subject's kind, so [`Subject::build`] never meets a
//! mismatch from those; one of another kind is refused with [`Error::Invalid`]. A build is
//! one dynamic call into the back-end's `fill`; the per-position loops stay typed.

use super::{Entry, Role, Stage};
use crate::base::error::{Error, Result};
use crate::cost;
use crate::grundy::{Builder, Rulebook, Table};
use crate::kernels::Family;
use std::any::Any;
use std::sync::Arc;

/// The back-end trait object a stage's registry holds, with the rules it builds: ties
/// `Entry<dyn Builder<R>>` to its rules' type.
pub trait BuilderOf: Builder<Self::Rules> {
    /// The rules this back-end builds tables of.
    type Rules: Rulebook;
}

impl<R: Rulebook> BuilderOf for dyn Builder<R> {
    type Rules = R;
}

/// A workload, as its folder declares it (one static, listed once in `run::workload::KINDS`):
/// its name, what its rules look like, how they are parsed, and its back-ends.
pub struct WorkloadKind<B: ?Sized + BuilderOf + 'static> {
    /// One line saying what tables it builds.
    pub about: &'static str,
    /// The heading `list` shows above its back-ends: its name, then how a command chooses
    /// one (`table back-ends (--table NAME):`).
    pub heading: &'static str,
    /// Its rules on the command line, for help and messages (`a move list like 1,3,4`).
    pub syntax: &'static str,
    /// An example of its rules (`0.6`): what a default or a test uses.
    pub example: &'static str,
    /// Parses its rules, or a one-line refusal.
    pub parse: fn(&str) -> Result<B::Rules>,
    /// The back-end a command uses where none is named, for N = its argument.
    pub default: fn(usize) -> &'static Entry<B>,
    /// Its back-ends under its name (the name is the workload's: `table`, `octal`).
    pub stage: &'static Stage<B>,
}

/// A workload kind with its type erased: what `run::workload::KINDS` lists.
pub trait Kind: Sync {
    /// Its name (the stage's: `table`, `octal`, `finite`).
    fn name(&self) -> &'static str;
    /// One line saying what tables it builds.
    fn about(&self) -> &'static str;
    /// The heading `list` shows above its back-ends.
    fn heading(&self) -> &'static str;
    /// Its rules on the command line.
    fn syntax(&self) -> &'static str;
    /// An example of its rules.
    fn example(&self) -> &'static str;
    /// Its rules parsed from `text`, as a subject.
    fn parse(&'static self, text: &str) -> Result<Subject>;
    /// Every back-end, in registry order.
    fn backends(&'static self) -> Vec<Backend>;
    /// The back-end a command uses where none is named, for N = `limit`.
    fn default_backend(&'static self, limit: usize) -> Backend;
}

impl<B: ?Sized + BuilderOf + 'static> Kind for WorkloadKind<B> {
    fn name(&self) -> &'static str {
        self.stage.name
    }

    fn about(&self) -> &'static str {
        self.about
    }

    fn heading(&self) -> &'static str {
        self.heading
    }

    fn syntax(&self) -> &'static str {
        self.syntax
    }

    fn example(&self) -> &'static str {
        self.example
    }

    fn parse(&'static self, text: &str) -> Result<Subject> {
        (self.parse)(text).map(|rules| self.subject(rules))
    }

    fn backends(&'static self) -> Vec<Backend> {
        self.stage
            .entries
            .iter()
            .map(|e| Backend {
                stage: self.stage.name,
                entry: e,
            })
            .collect()
    }

    fn default_backend(&'static self, limit: usize) -> Backend {
        self.backend((self.default)(limit))
    }
}

impl<B: ?Sized + BuilderOf + 'static> WorkloadKind<B> {
    /// Its entry `entry` as an erased back-end (one its planner chose, or a test's fixture
    /// outside its list).
    pub fn backend(&'static self, entry: &'static Entry<B>) -> Backend {
        Backend {
            stage: self.stage.name,
            entry,
        }
    }

    /// The subject of `rules` of this kind.
    pub fn subject(&'static self, rules: B::Rules) -> Subject {
        Subject {
            kind: self,
            rules: Arc::new(rules),
        }
    }
}

/// Rules of some workload, their type erased: [`Rulebook`] as an object.
trait AnyRules: Send + Sync + std::fmt::Debug {
    fn label(&self) -> String;
    fn describe(&self) -> String;
    fn option_steps(&self, limit: usize) -> u128;
    fn removals(&self, limit: usize) -> Vec<usize>;
    fn cost_workload(&self, table: &Table, threads: usize) -> cost::Workload;
    fn counts(&self) -> Option<&crate::base::moves::Moves>;
    fn as_any(&self) -> &dyn Any;
}

impl<R: Rulebook> AnyRules for R {
    fn label(&self) -> String {
        Rulebook::label(self)
    }
    fn describe(&self) -> String {
        Rulebook::describe(self)
    }
    fn option_steps(&self, limit: usize) -> u128 {
        Rulebook::option_steps(self, limit)
    }
    fn removals(&self, limit: usize) -> Vec<usize> {
        Rulebook::removals(self, limit)
    }
    fn cost_workload(&self, table: &Table, threads: usize) -> cost::Workload {
        Rulebook::cost_workload(self, table, threads)
    }
    fn counts(&self) -> Option<&crate::base::moves::Moves> {
        Rulebook::counts(self)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// A constructed back-end, its rules' type erased: builds when handed rules of its own type.
trait AnyMade: Send + Sync {
    /// g(0..=limit) of `rules`, or `None` when they are not this back-end's kind of rules.
    fn build(&self, rules: &dyn Any, limit: usize) -> Option<Result<Table>>;
    /// The bytes a build needs ([`crate::grundy::bytes_needed`]), or `None` for rules of
    /// another kind.
    fn bytes_needed(&self, rules: &dyn Any, limit: usize, threads: usize) -> Option<u64>;
    fn affordable_limit(&self) -> Option<usize>;
    fn resumable(&self) -> bool;
}

impl<B: ?Sized + BuilderOf> AnyMade for Box<B> {
    fn build(&self, rules: &dyn Any, limit: usize) -> Option<Result<Table>> {
        let rules = rules.downcast_ref::<B::Rules>()?;
        Some(Builder::build(&**self, rules, limit))
    }
    fn bytes_needed(&self, rules: &dyn Any, limit: usize, threads: usize) -> Option<u64> {
        let rules = rules.downcast_ref::<B::Rules>()?;
        Some(crate::grundy::bytes_needed(&**self, rules, limit, threads))
    }
    fn affordable_limit(&self) -> Option<usize> {
        Builder::affordable_limit(&**self)
    }
    fn resumable(&self) -> bool {
        Builder::resumable(&**self)
    }
}

/// A registry entry of some workload, its rules' type erased.
trait AnyEntry: Sync {
    fn name(&self) -> &'static str;
    fn description(&self) -> &'static str;
    fn cost(&self) -> &'static str;
    fn role(&self) -> Role;
    fn model(&self) -> cost::Model;
    fn kernels(&self) -> &'static [Family];
    fn make(&self) -> Box<dyn AnyMade>;
}

impl<B: ?Sized + BuilderOf + 'static> AnyEntry for Entry<B> {
    fn name(&self) -> &'static str {
        self.name
    }
    fn description(&self) -> &'static str {
        self.description
    }
    fn cost(&self) -> &'static str {
        self.cost
    }
    fn role(&self) -> Role {
        self.role
    }
    fn model(&self) -> cost::Model {
        self.model
    }
    fn kernels(&self) -> &'static [Family] {
        self.kernels
    }
    fn make(&self) -> Box<dyn AnyMade> {
        Box::new((self.make)())
    }
}

/// One registry entry of some workload: what an instrument reads of a back-end.
#[derive(Clone, Copy)]
pub struct Backend {
    stage: &'static str,
    entry: &'static dyn AnyEntry,
}

impl std::fmt::Debug for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.stage, self.name())
    }
}

impl PartialEq for Backend {
    fn eq(&self, other: &Backend) -> bool {
        self.stage == other.stage && self.name() == other.name()
    }
}

impl Backend {
    /// Its workload's name (`table`, `octal`).
    pub fn stage(&self) -> &'static str {
        self.stage
    }

    /// Its name on the command line.
    pub fn name(&self) -> &'static str {
        self.entry.name()
    }

    /// Its one-line description.
    pub fn description(&self) -> &'static str {
        self.entry.description()
    }

    /// Its cost in time, in the README's notation.
    pub fn cost(&self) -> &'static str {
        self.entry.cost()
    }

    /// Fast, reference or control.
    pub fn role(&self) -> Role {
        self.entry.role()
    }

    /// True for the naive controls.
    pub fn is_control(&self) -> bool {
        self.role() == Role::Control
    }

    /// Its cost model.
    pub fn model(&self) -> cost::Model {
        self.entry.model()
    }

    /// The kernel families it runs.
    pub fn kernels(&self) -> &'static [Family] {
        self.entry.kernels()
    }

    /// True when it has a kernel per `--isa` path ([`Entry::follows_isa`]).
    pub fn follows_isa(&self) -> bool {
        self.kernels().iter().any(|f| f.follows_isa())
    }

    /// Constructs it.
    pub fn make(&self) -> Made {
        Made {
            stage: self.stage,
            inner: self.entry.make(),
        }
    }

    /// The largest N it affords, if it is limited (the quadratic controls).
    pub fn affordable_limit(&self) -> Option<usize> {
        self.entry.make().affordable_limit()
    }

    /// True when it affords N = `limit`.
    pub fn affords(&self, limit: usize) -> bool {
        self.affordable_limit().is_none_or(|top| limit <= top)
    }

    /// True when it builds in position order, so a run can be checkpointed and resumed.
    pub fn resumable(&self) -> bool {
        self.entry.make().resumable()
    }
}

/// A constructed back-end of some workload.
pub struct Made {
    stage: &'static str,
    inner: Box<dyn AnyMade>,
}

impl Made {
    /// g(0..=limit) of `subject` from scratch; an error when the subject is of another
    /// workload, or when a value overflows `u16`.
    pub fn build(&self, subject: &Subject, limit: usize) -> Result<Table> {
        self.inner
            .build(subject.rules.as_any(), limit)
            .unwrap_or_else(|| Err(self.mismatch(subject)))
    }

    fn mismatch(&self, subject: &Subject) -> Error {
        Error::Invalid(format!(
            "a back-end of the {} workload cannot build {}",
            self.stage,
            subject.describe()
        ))
    }
}

/// The rules of one game of one workload, their type erased: what an instrument times,
/// checks and prices, written once for every workload.
///
/// Invariant: two subjects are equal when they are of one workload with one label (labels
/// are canonical, [`Rulebook`]).
#[derive(Clone)]
pub struct Subject {
    kind: &'static dyn Kind,
    rules: Arc<dyn AnyRules>,
}

impl std::fmt::Debug for Subject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {:?}", self.kind.name(), self.rules)
    }
}

impl PartialEq for Subject {
    fn eq(&self, other: &Subject) -> bool {
        self.kind.name() == other.kind.name() && self.label() == other.label()
    }
}

impl Eq for Subject {}

impl Subject {
    /// Its workload.
    pub fn kind(&self) -> &'static dyn Kind {
        self.kind
    }

    /// The name of its workload (`table`, `octal`): the group of its bench ids.
    pub fn stage(&self) -> &'static str {
        self.kind.name()
    }

    /// The subtraction set the count stage reads, when its workload declares that
    /// capability ([`Rulebook::counts`]): what the counts, the planner, the forecasts and
    /// the roofline's model ask instead of which workload they hold.
    pub fn counts(&self) -> Option<&crate::base::moves::Moves> {
        self.rules.counts()
    }

    /// Its rules, when they are of type `R` (an octal code's [`crate::octal::Rules`]): what
    /// a caller with a path of its own for one workload (window mode) reads them by.
    pub fn rules_as<R: 'static>(&self) -> Option<&R> {
        self.rules.as_any().downcast_ref()
    }

    /// Its label in files and settings ([`Rulebook::label`]).
    pub fn label(&self) -> String {
        self.rules.label()
    }

    /// The game in words, for messages ([`Rulebook::describe`]).
    pub fn describe(&self) -> String {
        self.rules.describe()
    }

    /// Every back-end of its workload, in registry order.
    pub fn backends(&self) -> Vec<Backend> {
        self.kind.backends()
    }

    /// The back-ends that are not controls: what the instruments time by default.
    pub fn fast(&self) -> Vec<Backend> {
        self.backends()
            .into_iter()
            .filter(|b| !b.is_control())
            .collect()
    }

    /// The back-end called `name` in its workload, or the error listing the valid names.
    pub fn find(&self, name: &str) -> Result<Backend> {
        let all = self.backends();
        all.iter()
            .find(|b| b.name() == name)
            .copied()
            .ok_or_else(|| Error::UnknownBackend {
                stage: self.stage(),
                name: name.to_string(),
                valid: all.iter().map(|b| b.name()).collect(),
            })
    }

    /// The back-end a command uses where none is named, for N = `limit`.
    pub fn default_backend(&self, limit: usize) -> Backend {
        self.kind.default_backend(limit)
    }

    /// Its workload's reference back-end.
    pub fn reference(&self) -> Backend {
        self.backends()
            .into_iter()
            .find(|b| b.role() == Role::Reference)
            .expect("every workload registers exactly one reference back-end")
    }

    /// The judge of its tables at N: the workload's naive control where it affords N, else
    /// its reference (the rule of [`Role`]).
    pub fn judge(&self, limit: usize) -> Backend {
        self.backends()
            .into_iter()
            .find(|b| b.is_control() && b.affords(limit))
            .unwrap_or_else(|| self.reference())
    }

    /// g(0..=limit) built by `backend`: one dynamic call, then the back-end's own loops.
    pub fn build(&self, backend: Backend, limit: usize) -> Result<Table> {
        backend.make().build(self, limit)
    }

    /// The option steps of its table up to `limit` ([`Rulebook::option_steps`]).
    pub fn option_steps(&self, limit: usize) -> u128 {
        self.rules.option_steps(limit)
    }

    /// The removal sizes up to `limit`, ascending ([`Rulebook::removals`]).
    pub fn removals(&self, limit: usize) -> Vec<usize> {
        self.rules.removals(limit)
    }

    /// The shape of building `table` on `threads` threads: what a cost model counts its
    /// primitives from ([`Rulebook::cost_workload`]).
    pub fn workload(&self, table: &Table, threads: usize) -> cost::Workload {
        self.rules.cost_workload(table, threads)
    }

    /// Bytes a build of N = `limit` by `backend` needs on `threads` threads: the u16 table,
    /// its histogram and the back-end's scratch (an upper estimate, what the memory guard
    /// checks before anything is allocated); 0 for a back-end of another workload.
    pub fn bytes_needed(&self, backend: Backend, limit: usize, threads: usize) -> u64 {
        backend
            .make()
            .inner
            .bytes_needed(self.rules.as_any(), limit, threads)
            .unwrap_or(0)
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
        crate::grundy::check_affords(
            backend.name(),
            backend.affordable_limit(),
            flag,
            limit,
            instead,
        )
    }
}
