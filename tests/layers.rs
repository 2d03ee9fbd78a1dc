//! The layering of the library, read from its own source: every path in src/ that names a
//! module of the crate (`crate::`, `super::` at any depth, `self::`, in `use` groups nested
//! at any depth; the binary's `src/main.rs` and `src/cli/` excepted, which sit on top)
//! points to a module of a lower layer, or to its own module; every file and every module
//! `src/lib.rs` declares has a layer (a new one fails until it is given one); a back-end
//! file never imports another back-end's file; and no two files import each other,
//! directly or round a circle. The layers are the ones the README's source map and
//! `src/lib.rs` show (the README's map is checked against the folders too).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The modules from the bottom layer up: a module may import only modules of a lower layer,
/// or itself. Two modules of one layer may not import each other.
const LAYERS: &[(&str, usize)] = &[
    ("base", 0),
    ("kernels", 1),
    ("cost", 2),
    ("grundy", 3),
    ("registry", 4),
    ("table", 5),
    ("count", 6),
    ("cold", 6),
    ("octal", 6),
    ("finite", 6),
    ("games", 7),
    ("census", 7),
    ("run::longrun", 8),
    ("run::counted", 8),
    ("run::workload", 8),
    ("run::report", 8),
    ("run::plot", 8),
    ("run::census", 9),
    ("run::session", 9),
    ("run::wisdom", 9),
    ("run::window", 9),
    ("run::planner", 10),
    ("run::atlas", 10),
    ("run::profile", 11),
    ("instruments::check", 11),
    ("instruments::sequence", 11),
    ("instruments::matrix_report", 11),
    ("instruments::compare", 12),
    ("instruments::matrix_check", 12),
    ("instruments::matrix", 12),
    ("instruments::roofline", 13),
    ("instruments::counts", 13),
    ("instruments::scaling", 14),
    ("instruments::tune", 15),
    // The fuzz targets call every reader (feature `testing`).
    ("fuzzing", 16),
];

/// Inside the base layer: `error` and `fault` (the write fault point, which imports nothing of
/// the crate) at the bottom, the other files above them and beside one another (none imports
/// another but these two).
const BASE_BOTTOM: [&str; 2] = ["base::error", "base::fault"];

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

/// The parent of module path `m` (`a::b` for `a::b::c`, the root "" for `a`).
fn parent(m: &str) -> &str {
    m.rsplit_once("::").map_or("", |(p, _)| p)
}

/// `prefix::rest`, or `rest` at the crate root.
fn join(prefix: &str, rest: &str) -> String {
    match (prefix.is_empty(), rest.is_empty()) {
        (true, _) => rest.to_string(),
        (_, true) => prefix.to_string(),
        _ => format!("{prefix}::{rest}"),
    }
}

/// The paths of one use tree starting at `text` (after its root), expanded: `a::{b, c::{d,
/// e}}` gives `a::b`, `a::c::d`, `a::c::e`; `a as b` and `*` keep their prefix. Returns the
/// paths and how many bytes of `text` the tree took.
fn use_tree(text: &str) -> (Vec<String>, usize) {
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut prefix = String::new();
    loop {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        if i < bytes.len() && bytes[i] == b'{' {
            // a group: split at top-level commas, expand each part
            let mut depth = 0;
            let mut part_start = i + 1;
            let mut out = Vec::new();
            let mut j = i;
            while j < bytes.len() {
                match bytes[j] {
                    b'{' => depth += 1,
                    b'}' | b',' if depth == 1 => {
                        let (inner, _) = use_tree(&text[part_start..j]);
                        let inner: Vec<String> = if text[part_start..j].trim().is_empty() {
                            Vec::new()
                        } else {
                            inner
                        };
                        out.extend(inner.into_iter().map(|p| match p.as_str() {
                            "self" | "" => prefix.clone(),
                            _ => join(&prefix, &p),
                        }));
                        part_start = j + 1;
                        if bytes[j] == b'}' {
                            return (out, j + 1);
                        }
                    }
                    b'}' => depth -= 1,
                    _ => {}
                }
                j += 1;
            }
            return (out, j);
        }
        let seg_start = i;
        while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
            i += 1;
        }
        let seg = &text[seg_start..i];
        if !seg.is_empty() {
            prefix = join(&prefix, seg);
        }
        if text[i..].starts_with("::") {
            i += 2;
            continue;
        }
        return (vec![prefix], i);
    }
}

/// Every module path `code` (the code of module `module`) imports, made absolute: each
/// `crate::` path, each `super::` (`super::super::` climbs twice) and `self::` path, with
/// `use` groups expanded at any depth. `crate::x` gives `x`.
fn imports(module: &str, code: &[String]) -> Vec<String> {
    let joined = code.join("\n");
    let text = joined.as_bytes();
    let mut out = Vec::new();
    // Brace depth, and the depths at which inline modules (`mod tests {`) opened: inside
    // one, `super::` names the file's own module.
    let mut depth = 0usize;
    let mut inline: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < joined.len() {
        let rest = &joined[i..];
        match text[i] {
            b'"' => {
                // skip a string literal (its braces are not code)
                i += 1;
                while i < text.len() && text[i] != b'"' {
                    i += if text[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
                continue;
            }
            b'\'' if rest.len() >= 3 && rest.as_bytes()[2] == b'\'' => {
                i += 3; // a char literal such as '{'
                continue;
            }
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                if inline.last() == Some(&depth) {
                    inline.pop();
                }
            }
            _ => {}
        }
        let before = joined[..i].chars().last();
        let at_start = !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':');
        if at_start && rest.starts_with("mod ") {
            let after = rest[4..].trim_start();
            let name_len = after
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            if after[name_len..].trim_start().starts_with('{') {
                inline.push(depth);
            }
        }
        let root = ["crate::", "super::", "self::"]
            .into_iter()
            .find(|r| at_start && rest.starts_with(r));
        let Some(root) = root else {
            i += rest.chars().next().map_or(1, char::len_utf8);
            continue;
        };
        let here = format!("{module}{}", "::inline".repeat(inline.len()));
        let mut base = match root {
            "crate::" => String::new(),
            "super::" => parent(&here).to_string(),
            _ => here.clone(),
        };
        let mut tail = &rest[root.len()..];
        while let Some(t) = tail.strip_prefix("super::") {
            base = parent(&base).to_string();
            tail = t;
        }
        let (paths, used) = use_tree(tail);
        out.extend(paths.into_iter().map(|p| join(&base, &p)));
        i += rest.len() - tail.len() + used.max(1);
    }
    out
}

/// The crate-root names `src/lib.rs` re-exports (`crate::Error`): paths that name no module.
const ROOT_REEXPORTS: &[&str] = &["Error", "Result"];

/// Every problem with one file's imports: an arrow up a layer, or across one layer.
fn layer_violations(from_module: &str, paths: &[String]) -> Vec<String> {
    if from_module == "lib" {
        return Vec::new(); // the crate root declares the modules (checked on its own)
    }
    let is_folder = LAYERS
        .iter()
        .any(|(k, _)| k.starts_with(&format!("{from_module}::")));
    if is_folder && module_of(from_module).is_none() {
        // a folder of rooms (`instruments`): it declares them and may import nothing
        return paths
            .iter()
            .map(|p| format!("{from_module} (a folder of rooms) imports {p}"))
            .collect();
    }
    let Some(from) = module_of(from_module) else {
        return vec![format!(
            "{from_module} is in no layer: add it to LAYERS in tests/layers.rs"
        )];
    };
    let mut out = Vec::new();
    for p in paths {
        let Some(to) = module_of(p) else {
            if !ROOT_REEXPORTS.contains(&p.as_str()) {
                out.push(format!("{from_module} imports {p}, which is in no layer"));
            }
            continue;
        };
        if to == from {
            if from == "base"
                && !BASE_BOTTOM.iter().any(|b| from_module.starts_with(b))
                && !BASE_BOTTOM.iter().any(|b| p.starts_with(b))
                && p.split("::").nth(1) != from_module.split("::").nth(1)
            {
                out.push(format!(
                    "{from_module} imports {p} (base files import only {})",
                    BASE_BOTTOM.join(" and ")
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
        .filter(|f| {
            !f.ends_with("main.rs")
                && !f.starts_with(src.join("cli"))
                && !f.starts_with(src.join("bin"))
        })
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
        problems.extend(layer_violations(module, &imports(module, code)));
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
    // The parser sees use groups (nested too) and inline paths, not comments or strings.
    let code = code_lines(
        "use crate::{cost::Model, table::{self, bitset::{A, B as C}}};\n// crate::cli::X\nlet x = crate::base::isa::active(\"crate::y\");",
    );
    assert_eq!(
        imports("instruments::tune", &code),
        [
            "cost::Model",
            "table",
            "table::bitset::A",
            "table::bitset::B",
            "base::isa::active"
        ]
    );
    // `super::` climbs from the file's module, `super::super::` twice, and inside an inline
    // `mod tests { }` the first `super` is the file's own module.
    let code = code_lines(
        "use super::super::roofline::Row;\nuse super::{x, y::z};\nmod tests {\n use super::*;\n}\nuse self::w::V;",
    );
    assert_eq!(
        imports("instruments::tune::decide", &code),
        [
            "instruments::roofline::Row",
            "instruments::tune::x",
            "instruments::tune::y::z",
            "instruments::tune::decide",
            "instruments::tune::decide::w::V"
        ]
    );
    // A climb out of a low module into a higher one is caught, as is a file in no layer.
    let up = imports(
        "table::bitset",
        &code_lines("use super::super::instruments::X;"),
    );
    assert_eq!(layer_violations("table::bitset", &up).len(), 1);
    assert_eq!(layer_violations("newthing::x", &[]).len(), 1);
    assert_eq!(
        layer_violations("table::bitset", &["nowhere::X".into()]).len(),
        1
    );
}

#[test]
fn the_crate_root_declares_only_modules_that_have_a_layer() {
    let lib =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).unwrap();
    let declared: Vec<&str> = code_lines(&lib)
        .iter()
        .filter_map(|l| {
            let l = l
                .trim()
                .trim_start_matches("pub ")
                .trim_start_matches("pub(crate) ");
            l.strip_prefix("mod ")
                .map(|r| r.trim_end_matches(';').trim().to_string())
        })
        .map(|m| &*m.leak())
        .collect();
    assert!(declared.len() >= 8, "{declared:?}");
    for m in declared {
        assert!(
            LAYERS.iter().any(|(k, _)| k.split("::").next() == Some(m)),
            "src/lib.rs declares `mod {m}`, which is in no layer of tests/layers.rs"
        );
    }
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
    for stage in ["table", "count", "cold", "octal", "finite"] {
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
            let reached: Vec<String> = imports(module, code)
                .into_iter()
                .filter_map(|p| {
                    p.strip_prefix(&format!("{stage}::"))
                        .map(|r| r.split("::").next().unwrap().to_string())
                })
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
        for p in imports(module, code) {
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

/// The backticked words of the README's source map (its rows that name `src/`).
fn readme_map() -> Vec<(String, Vec<String>)> {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    readme
        .lines()
        .filter(|l| l.starts_with('|') && l.contains("`src/"))
        .map(|l| {
            let words = l
                .split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect();
            (l.to_string(), words)
        })
        .collect()
}

#[test]
fn the_readme_source_map_matches_the_folders() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let map = readme_map();
    assert!(map.len() >= 5, "README source map rows: {}", map.len());
    let named: BTreeSet<String> = map.iter().flat_map(|(_, w)| w.clone()).collect();
    // every path the map names exists
    for w in named.iter().filter(|w| w.starts_with("src/")) {
        assert!(
            root.join(w).exists(),
            "README's source map names {w}, which does not exist"
        );
    }
    // every entry of src/ is on the map (lib.rs is the crate root the map describes)
    for e in std::fs::read_dir(root.join("src")).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        let key = if e.path().is_dir() {
            format!("src/{name}/")
        } else {
            format!("src/{name}")
        };
        if name == "lib.rs" {
            continue;
        }
        assert!(
            named.contains(&key),
            "README's source map does not name {key}"
        );
    }
    // the instruments row names every instrument
    let (row, words) = map
        .iter()
        .find(|(_, w)| w.iter().any(|x| x == "src/instruments/"))
        .expect("a map row for src/instruments/");
    for e in std::fs::read_dir(root.join("src/instruments")).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        let name = name.trim_end_matches(".rs");
        if name != "mod" {
            assert!(
                words.iter().any(|w| w == name),
                "README's source map row `{row}` does not name the instrument {name}"
            );
        }
    }
}
