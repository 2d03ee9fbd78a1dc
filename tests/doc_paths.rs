//! Every path a Markdown file of the repository names exists (issue 41, item 6).
//!
//! - `markdown_paths_exist`: every tracked `.md` file (`git ls-files`; without git, every `.md`
//!   below the root outside `target/` and hidden folders) is read paragraph by paragraph,
//!   fenced code blocks left out (the README's console blocks are run by tests/readme.rs). A
//!   *candidate* is the content of an inline code span (which may run over a line break), the
//!   target of a link (`[text](target)`, its `#anchor` dropped), or a word of the prose that
//!   begins with a folder at the top of the repository (`results/...`, `src/...`, `.ci/...`).
//!   A candidate names a path, and must exist, when:
//!   - it is one token: no whitespace (a command line), none of `* ? { } < > [ ] $ | = , ; : @ '
//!     " ( ) \` (globs, placeholders, criterion ids, options), no `...`, no `://` (a URL);
//!   - it is relative: not `/...` (absolute, /tmp), `~`, `-`, `#`, and not under `target/`
//!     (build output, made by the commands the text describes);
//!   - no folder of it is an upper-case placeholder such as `FILE` or `DIR/`;
//!   - it has a `/` and its first folder (after any `./` and `../`) exists beside the Markdown
//!     file or at the top of the repository (so `table/bitset/10000`, a bench id, or `count/`,
//!     a module of src/ named the way the notes name modules, are not claims); or it has no `/`,
//!     the Markdown file is below `results/` (whose notes name the data beside them by its bare
//!     name; elsewhere a bare name is a file a command writes), and it ends in an extension of
//!     the results: `.md .csv .json .jsonl .svg .txt .log .sh .folded .time .err .toml` (a bare
//!     `.rs` name such as `mod.rs` names a module in prose, not a file here).
//!
//!   It exists when it does relative to the Markdown file's folder or to the repository's root;
//!   a candidate ending in `/` must be a folder.
//! - `rules_tell_paths_from_other_text`: the rules above on text made up for them.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const EXTENSIONS: &[&str] = &[
    ".md", ".csv", ".json", ".jsonl", ".svg", ".txt", ".log", ".sh", ".folded", ".time", ".err",
    ".toml",
];

const NOT_IN_A_PATH: &[char] = &[
    '*', '?', '{', '}', '<', '>', '[', ']', '$', '|', '=', ',', ';', ':', '@', '\'', '"', '(', ')',
    '\\',
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The tracked Markdown files, relative to the root.
fn markdown_files(root: &Path) -> Vec<PathBuf> {
    let git = std::process::Command::new("git")
        .args(["ls-files", "-z", "--", "*.md"])
        .current_dir(root)
        .output();
    if let Ok(out) = git {
        if out.status.success() && !out.stdout.is_empty() {
            return out
                .stdout
                .split(|&b| b == 0)
                .filter(|s| !s.is_empty())
                .map(|s| PathBuf::from(String::from_utf8(s.to_vec()).unwrap()))
                .filter(|p| root.join(p).is_file())
                .collect();
        }
    }
    let mut found = Vec::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(root.join(&dir)).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name().to_string_lossy().into_owned();
            let rel = dir.join(&name);
            let build_output = dir.as_os_str().is_empty() && name == "target";
            if entry.file_type().unwrap().is_dir() {
                if !name.starts_with('.') && !build_output {
                    stack.push(rel);
                }
            } else if name.ends_with(".md") {
                found.push(rel);
            }
        }
    }
    found.sort();
    found
}

/// The folders at the top of the repository (`target` and `.git` left out): a prose word
/// beginning with one of them is a candidate.
fn top_folders(root: &Path) -> BTreeSet<String> {
    std::fs::read_dir(root)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().map(|t| t.is_dir()).unwrap_or(false))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "target" && n != ".git")
        .collect()
}

/// The candidates of one paragraph (its lines joined by `\n`), each with the index of the line
/// it starts on: code spans (a line break inside one is a space, as in CommonMark), link
/// targets, and prose words that begin with `TOP/` for a folder TOP of `tops`.
fn candidates(paragraph: &str, tops: &BTreeSet<String>) -> Vec<(usize, String)> {
    let line_of = |at: usize| paragraph[..at].matches('\n').count();
    let mut found = Vec::new();
    // `paragraph` with its code spans and link targets blanked out, byte for byte, so a word's
    // offset in it is its place in `paragraph`.
    let mut prose = String::new();
    let mut at = 0;
    while at < paragraph.len() {
        let rest = &paragraph[at..];
        if let Some(after) = rest.strip_prefix('`') {
            // A code span: up to the next backtick (an unclosed one is text).
            if let Some(end) = after.find('`') {
                found.push((line_of(at), after[..end].replace('\n', " ")));
                prose.push_str(&" ".repeat(end + 2));
                at += end + 2;
                continue;
            }
        }
        if let Some(after) = rest.strip_prefix("](") {
            if let Some(end) = after.find(')') {
                let target = after[..end].split('#').next().unwrap();
                if !target.is_empty() {
                    found.push((line_of(at), target.to_string()));
                }
                prose.push_str(&" ".repeat(end + 3));
                at += end + 3;
                continue;
            }
        }
        let c = rest.chars().next().unwrap();
        prose.push(c);
        at += c.len_utf8();
    }
    for (offset, word) in words(&prose) {
        let word = word.trim_start_matches(['(', '[', '"', '\'']);
        let word = word.trim_end_matches(['.', ',', ';', ':', ')', ']', '"', '\'', '!', '?']);
        if let Some((first, _)) = word.split_once('/') {
            if tops.contains(first) {
                found.push((line_of(offset), word.to_string()));
            }
        }
    }
    found
}

/// The whitespace-separated words of `text` with their byte offsets.
fn words(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                out.push((s, &text[s..i]));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, &text[s..]));
    }
    out
}

/// The paragraphs of a Markdown text outside fenced code blocks (``` or ~~~), each with the
/// index of its first line: runs of non-blank lines, joined by `\n`.
fn paragraphs(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut current: Option<(usize, String)> = None;
    let mut fence: Option<&str> = None;
    for (number, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let opens = trimmed.starts_with("```") || trimmed.starts_with("~~~");
        if fence.is_some() || opens || trimmed.is_empty() {
            out.extend(current.take());
            match fence {
                Some(open) if trimmed.starts_with(open) => fence = None,
                None if opens => fence = Some(&trimmed[..3]),
                _ => {}
            }
            continue;
        }
        match &mut current {
            Some((_, p)) => {
                p.push('\n');
                p.push_str(line);
            }
            None => current = Some((number, line.to_string())),
        }
    }
    out.extend(current);
    out
}

/// Whether a candidate names a path that must exist (the rules of the module's comment), for
/// a Markdown file in `dir` (relative to the root).
fn is_path_claim(candidate: &str, root: &Path, dir: &Path) -> bool {
    let c = candidate;
    if c.is_empty()
        || c.chars().any(char::is_whitespace)
        || c.contains(NOT_IN_A_PATH)
        || c.contains("...")
        || c.contains("://")
        || c.starts_with(['/', '~', '-', '#'])
        || c.starts_with("target/")
    {
        return false;
    }
    let placeholder = |s: &str| {
        s.chars().any(|ch| ch.is_ascii_alphabetic())
            && s.chars()
                .all(|ch| ch.is_ascii_uppercase() || ch == '_' || ch.is_ascii_digit())
    };
    if c.split('/').any(placeholder) {
        return false;
    }
    match c.split_once('/') {
        Some(_) => {
            let mut segments = c.split('/').skip_while(|s| *s == "." || *s == "..");
            let Some(first) = segments.next() else {
                return false;
            };
            c.starts_with("..")
                || first.is_empty()
                || root.join(dir).join(first).exists()
                || root.join(first).exists()
        }
        None => {
            let stem_and_ext = c.rsplit_once('.').is_some_and(|(stem, _)| !stem.is_empty());
            dir.starts_with("results") && stem_and_ext && EXTENSIONS.iter().any(|e| c.ends_with(e))
        }
    }
}

fn exists(candidate: &str, root: &Path, dir: &Path) -> bool {
    let folder = candidate.ends_with('/');
    [root.join(dir).join(candidate), root.join(candidate)]
        .iter()
        .any(|p| if folder { p.is_dir() } else { p.exists() })
}

#[test]
fn markdown_paths_exist() {
    let root = root();
    let tops = top_folders(&root);
    let files = markdown_files(&root);
    assert!(
        files.iter().any(|f| f == Path::new("README.md"))
            && files.iter().any(|f| f == Path::new("MEASURING.md"))
            && files.iter().any(|f| f == Path::new("results/README.md")),
        "{files:?}"
    );
    let mut checked = 0;
    let mut missing = Vec::new();
    for file in &files {
        let dir = file.parent().unwrap_or(Path::new(""));
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        for (first_line, paragraph) in paragraphs(&text) {
            for (line, candidate) in candidates(&paragraph, &tops) {
                if !is_path_claim(&candidate, &root, dir) {
                    continue;
                }
                checked += 1;
                if !exists(&candidate, &root, dir) {
                    let number = first_line + line + 1;
                    missing.push(format!("{}:{number}: {candidate}", file.display()));
                }
            }
        }
    }
    assert!(
        checked > 300,
        "only {checked} paths checked: are the rules still finding them?"
    );
    assert!(
        missing.is_empty(),
        "{} path(s) named in Markdown do not exist (relative to the file's folder or the root):\n{}",
        missing.len(),
        missing.join("\n")
    );
}

#[test]
fn rules_tell_paths_from_other_text() {
    let root = root();
    let tops = top_folders(&root);
    let claims = |text: &str, dir: &str| -> Vec<(usize, String)> {
        candidates(text, &tops)
            .into_iter()
            .filter(|(_, c)| is_path_claim(c, &root, Path::new(dir)))
            .collect()
    };
    let at = |line: usize, path: &str| (line, path.to_string());
    // Code spans (also over a line break), links and prose words under a top folder are claims,
    // each on the line it starts on.
    assert_eq!(
        claims(
            "see `scripts/bench.sh`, [the index](results/README.md#machines) and\nsrc/lib.rs; \
             `a command\nover two lines` then `.ci/run`.",
            ""
        ),
        [
            at(0, "scripts/bench.sh"),
            at(0, "results/README.md"),
            at(2, ".ci/run"),
            at(1, "src/lib.rs")
        ]
    );
    // A data file's bare name is a claim in a note of results/, not elsewhere; a bare module
    // name never is.
    assert_eq!(
        claims("`speed.md` beside `mod.rs` and `.folded`", "results/table"),
        [at(0, "speed.md")]
    );
    assert!(claims("writes `matrix.csv` and `mod.rs`", "").is_empty());
    // Commands, URLs, globs, placeholders, absolute paths, build output and bench ids are not.
    assert!(claims(
        "`nimsquare solve --out x.csv` <https://example.org/a/b.md> [u](https://x.io/y.md) \
         `results/roofline-repeat*.log` `growth-{cold,max}.csv` `table/flamegraphs/<backend>.svg` \
         `--checkpoint FILE` `DIR/matrix.csv` `/tmp/x/y.txt` `target/bench-results/matrix.csv` \
         `table/stamped-lanes/100000` `table/value-bounded@scalar/1000000` `count/` \
         `tczajka/octal-games` `~/.cache/nimsquare/wisdom.json` /tmp/a.md",
        ""
    )
    .is_empty());
    // Fenced blocks are left out; a blank line ends a paragraph.
    let text = "a\n```sh\n`src/none.rs`\n```\n\nb `x`\nc\n";
    assert_eq!(
        paragraphs(text),
        [(0, "a".to_string()), (5, "b `x`\nc".to_string())]
    );
    // A path relative to the Markdown file's folder is found there; a missing one is reported.
    assert!(exists("speed.md", &root, Path::new("results/table")));
    assert!(exists(
        "../scaling/big-n/",
        &root,
        Path::new("results/table")
    ));
    assert!(!exists(
        "no-such-note.md",
        &root,
        Path::new("results/table")
    ));
    assert!(!exists("results/README.md/", &root, Path::new("")));
}
