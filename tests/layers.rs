//! The layering of the library, read from its own source: every `crate::` path in src/ (the
//! binary's `src/main.rs` and `src/cli/` excepted, which sit on top) points to a module of a
//! lower layer, or to its own module; a back-end file never imports another back-end's file;
//! and no two files import each other, directly or round a circle. The layers are the ones
//! the README's source map and `src/lib.rs` show.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The modules from the bottom layer up: a module may import only modules of a lower layer,
/// or itself. Two modules of one layer may not import each other.
const LAYERS: &[(&str, usize)] = &[
    ("base", 0),
    ("kernels", 1),
    ("cost", 2),
    ("registry", 3),
    ("table", 4),
    ("count", 5),
    ("cold", 5),
    ("octal", 5),
    ("games", 6),
    ("instruments::longrun", 7),
    ("instruments::check", 8),
    ("instruments::sequence", 8),
    ("instruments::matrix_report", 8),
    ("instruments::compare", 9),
    ("instruments::matrix_check", 9),
    ("instruments::matrix", 9),
    ("instruments::wisdom", 9),
    ("instruments::planner", 10),
    ("instruments::roofline", 11),
    ("instruments::scaling", 12),
    ("instruments::tune", 13),
];

/// Inside the base layer: `error` at the bottom, the other files above it and beside one
/// another (none imports another but `error`).
const BASE_BOTTOM: &str = "base::error";

/// The module key of a `::`-separated path inside the crate (`table::bitset::X` is `table`,
/// `instruments::check::control` is `instruments::check`), or None for the crate root.
fn module_of(path: &str) -> Option<&'static str> {
    LAYERS
        .iter()
        .map(|&(m, _)| m)
        .filter(|m| path == *m || path.starts_with(&format!("{m}::")))
        .max_by_key(|m| m.len())
}

fn layer(module: &str) -> usize {
    LAYERS
        .iter()
        .find(|(m, _)| *m == module)
        .expect("a listed module")
        .1
}

/// The module path of a file under src/ (`src/table/bitset.rs` is `table::bitset`).
fn file_module(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .filter(|c| c != "mod")
        .collect();
    parts.join("::")
}

/// The code of `text` with comments (line comments and doc comments) removed.
fn code_lines(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) => l[..i].to_string(),
            None => l.to_string(),
        })
        .collect()
}

/// Every `crate::a::b::...` path in `code`, and the items of `use crate::{a, b::c}` groups.
fn crate_paths(code: &[String]) -> Vec<String> {
    let joined = code.join("\n");
    let mut out = Vec::new();
    let mut rest = joined.as_str();
    while let Some(i) = rest.find("crate::") {
        let before = rest[..i].chars().last();
        rest = &rest[i + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // `nimsquare::crate::` cannot occur; `mycrate::` is not ours
        }
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let item = item.trim();
                if !item.is_empty() {
                    out.push(item.split_whitespace().next().unwrap().to_string());
                }
            }
            continue;
        }
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(rest.len());
        out.push(rest[..end].trim_end_matches(':').to_string());
    }
    out
}

/// The `super::NAME` (and `super::{A, B}`) names a file uses.
fn super_names(code: &[String]) -> Vec<String> {
    let joined = code.join("\n");
    let mut out = Vec::new();
    let mut rest = joined.as_str();
    while let Some(i) = rest.find("super::") {
        rest = &rest[i + "super::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            out.extend(
                group[..end]
                    .split(',')
                    .map(|s| s.trim().split("::").next().unwrap().to_string())
                    .filter(|s| !s.is_empty()),
            );
        } else {
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            out.push(rest[..end].to_string());
        }
    }
    out
}

/// Every problem with one file's imports: an arrow up a layer, or across one layer.
fn layer_violations(from_module: &str, paths: &[String]) -> Vec<String> {
    let Some(from) = module_of(from_module) else {
        return Vec::new(); // the crate root (lib.rs) declares the modules
    };
    let mut out = Vec::new();
    for p in paths {
        let Some(to) = module_of(p) else {
            continue; // crate::Error and other root re-exports
        };
        if to == from {
            if from == "base"
                && !from_module.starts_with(BASE_BOTTOM)
                && !p.starts_with(BASE_BOTTOM)
                && p.split("::").nth(1) != from_module.split("::").nth(1)
            {
                out.push(format!(
                    "{from_module} imports {p} (base files import only {BASE_BOTTOM})"
                ));
            }
            continue;
        }
        if layer(to) >= layer(from) {
            out.push(format!(
                "{from_module} (layer {}) imports {p} (layer {})",
                layer(from),
                layer(to)
            ));
        }
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The library's files (not the binary's), with their module paths and code.
fn library() -> Vec<(PathBuf, String, Vec<String>)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    files
        .into_iter()
        .filter(|f| !f.ends_with("main.rs") && !f.starts_with(src.join("cli")))
        .map(|f| {
            let module = file_module(&src, &f);
            let code = code_lines(&std::fs::read_to_string(&f).unwrap());
            (f, module, code)
        })
        .collect()
}

#[test]
fn every_import_of_the_library_points_down() {
    let files = library();
    assert!(files.len() > 40, "found only {} files", files.len());
    let mut problems = Vec::new();
    for (_, module, code) in &files {
        problems.extend(layer_violations(module, &crate_paths(code)));
    }
    assert!(
        problems.is_empty(),
        "imports that point up:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_check_catches_an_import_that_points_up_or_across() {
    // A back-end reaching up into the roofline, a kernel into a stage, count into cold.
    let up = ["instruments::roofline::Model".to_string()];
    assert_eq!(layer_violations("table::bitset", &up).len(), 1);
    assert_eq!(
        layer_violations("kernels::lanes", &["table::Table".into()]).len(),
        1
    );
    assert_eq!(
        layer_violations("count::wht", &["cold::ColdSet".into()]).len(),
        1
    );
    assert_eq!(
        layer_violations("base::moves", &["base::isa::Isa".into()]).len(),
        1
    );
    // Downward and within one module is fine.
    assert!(layer_violations(
        "instruments::scaling::study",
        &["instruments::check::Checker".into()]
    )
    .is_empty());
    assert!(layer_violations(
        "table::bitset",
        &["table::Table".into(), "kernels::masks::dispatch".into()]
    )
    .is_empty());
    assert!(layer_violations("base::moves", &["base::error::Error".into()]).is_empty());
    // The parser sees use groups and inline paths, not comments.
    let code = code_lines(
        "use crate::{cost::Model, table};\n// crate::cli::X\nlet x = crate::base::isa::active();",
    );
    assert_eq!(
        crate_paths(&code),
        ["cost::Model", "table", "base::isa::active"]
    );
}

/// The files of a stage folder that declare a registry entry: its back-ends.
fn back_ends(files: &[(PathBuf, String, Vec<String>)], stage: &str) -> BTreeSet<String> {
    files
        .iter()
        .filter(|(_, m, code)| {
            m.starts_with(&format!("{stage}::"))
                && code.iter().any(|l| l.contains("pub const ENTRY"))
        })
        .map(|(_, m, _)| m.rsplit("::").next().unwrap().to_string())
        .collect()
}

#[test]
fn a_back_end_never_imports_another_back_end() {
    let files = library();
    let mut problems = Vec::new();
    for stage in ["table", "count", "cold"] {
        let backends = back_ends(&files, stage);
        assert!(
            backends.len() >= 2,
            "{stage}: back-end files with an ENTRY: {backends:?}"
        );
        for (_, module, code) in &files {
            let Some(me) = module.strip_prefix(&format!("{stage}::")) else {
                continue;
            };
            if !backends.contains(me) {
                continue;
            }
            let reached: Vec<String> = super_names(code)
                .into_iter()
                .chain(crate_paths(code).into_iter().filter_map(|p| {
                    p.strip_prefix(&format!("{stage}::"))
                        .map(|r| r.split("::").next().unwrap().to_string())
                }))
                .filter(|n| n != me && backends.contains(n))
                .collect();
            for other in reached {
                problems.push(format!("{module} imports the back-end {stage}::{other}"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The file a crate path names: the longest prefix that is a file of the library.
fn file_of(path: &str, by_module: &BTreeMap<String, usize>) -> Option<usize> {
    let parts: Vec<&str> = path.split("::").collect();
    (1..=parts.len())
        .rev()
        .find_map(|k| by_module.get(&parts[..k].join("::")).copied())
}

#[test]
fn no_circle_of_imports_between_files() {
    let files = library();
    let by_module: BTreeMap<String, usize> = files
        .iter()
        .enumerate()
        .map(|(i, (_, m, _))| (m.clone(), i))
        .collect();
    // Arrows between files, leaving out a folder's mod.rs and its own files (the module
    // declares them and they use its trait: that is one room, not a circle).
    let mut arrows: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); files.len()];
    for (i, (_, module, code)) in files.iter().enumerate() {
        // `super::x` in the file of module `a::b::c` (or in `a/b/c/mod.rs`) names `a::b::x`.
        let parent = module.rsplit_once("::").map_or("", |(p, _)| p);
        let supers: Vec<String> = super_names(code)
            .into_iter()
            .map(|n| {
                if parent.is_empty() {
                    n
                } else {
                    format!("{parent}::{n}")
                }
            })
            .collect();
        for p in crate_paths(code).into_iter().chain(supers) {
            let Some(j) = file_of(&p, &by_module) else {
                continue;
            };
            let (a, b) = (module.as_str(), files[j].1.as_str());
            let own_parent = |x: &str, y: &str| x.rsplit_once("::").is_some_and(|(p, _)| p == y);
            if j != i && !own_parent(a, b) && !own_parent(b, a) {
                arrows[i].insert(j);
            }
        }
    }
    // Depth-first search for a back arrow.
    fn visit(
        i: usize,
        arrows: &[BTreeSet<usize>],
        state: &mut [u8],
        stack: &mut Vec<usize>,
    ) -> Option<Vec<usize>> {
        state[i] = 1;
        stack.push(i);
        for &j in &arrows[i] {
            if state[j] == 1 {
                let at = stack.iter().position(|&k| k == j).unwrap();
                return Some(stack[at..].to_vec());
            }
            if state[j] == 0 {
                if let Some(c) = visit(j, arrows, state, stack) {
                    return Some(c);
                }
            }
        }
        stack.pop();
        state[i] = 2;
        None
    }
    let mut state = vec![0u8; files.len()];
    for i in 0..files.len() {
        if state[i] == 0 {
            if let Some(circle) = visit(i, &arrows, &mut state, &mut Vec::new()) {
                let names: Vec<&str> = circle.iter().map(|&k| files[k].1.as_str()).collect();
                panic!("a circle of imports: {}", names.join(" -> "));
            }
        }
    }
}
