//! Where a row was measured, recorded in every row so that rows from different machines or
//! builds are never mistaken for one study.

/// The short git revision of the working directory (`git rev-parse --short HEAD`), with
/// `-dirty` appended when tracked files have uncommitted changes; "unknown" outside a
/// repository or without git.
pub fn git_rev() -> String {
    let run = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .stderr(std::process::Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    match run(&["rev-parse", "--short", "HEAD"]) {
        Some(rev) if !rev.is_empty() => {
            let dirty = run(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            if dirty {
                format!("{rev}-dirty")
            } else {
                rev
            }
        }
        _ => "unknown".into(),
    }
}

/// The CPU's "model name" from /proc/cpuinfo, or "unknown".
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".into())
}

/// The columns every study row shares, in this order: `threads`, `moves`, `git_rev`, `cpu`.
///
/// A row holds it as one field where these columns sit; the csv crate writes a nested
/// struct's fields in place (flat), and reads them back positionally, so the CSV format is
/// that of the flat rows. It is never `#[serde(flatten)]`ed: the csv crate cannot write a
/// flattened struct, and reads its numbers mis-typed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Provenance {
    /// Worker threads.
    pub threads: usize,
    /// The subtraction set, as `--moves` takes it (`squares` or `1,3,4`).
    pub moves: String,
    /// [`git_rev`], read once per study, before its first build.
    pub git_rev: String,
    /// [`cpu_model`].
    pub cpu: String,
}

impl Provenance {
    /// The provenance of a study run here and now under `moves` and `threads`: reads the git
    /// revision and the CPU model once (call it before the first build, so that edits made
    /// while a long run is going do not mark its rows with a revision they were not built
    /// from), then every row clones it.
    pub fn here(moves: &crate::base::moves::Moves, threads: usize) -> Provenance {
        Provenance {
            threads,
            moves: moves.label(),
            git_rev: git_rev(),
            cpu: cpu_model(),
        }
    }
}
