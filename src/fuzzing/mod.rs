//! The fuzz targets (feature `testing`): one function per reader and parser, taking any
//! bytes, that panics when the reader breaks its promise. A reader given any bytes returns a
//! value that passes its own checks or a one-line error, never a panic or a hang; where it
//! accepts a table small enough to recompute, the table is right. The fuzz crate (`fuzz/`,
//! cargo-afl) runs these under coverage guidance, and tests/fuzz_corpora.rs replays every
//! saved corpus file through them, so both use this code. [`alloc::Counting`] is the
//! allocator both install to hold every target to an allocation bound
//! ([`alloc::allowance`]).
//!
//! Checksummed formats are fed twice: as given, and resealed (their checksums recomputed
//! over the mutated bytes, [`reseal_table`]), so mutations reach the checks behind them.
//! This module is the top layer of the library (tests/layers.rs): it calls every reader.

pub mod alloc;
mod reseal;

pub use reseal::{reseal_census, reseal_table, reseal_window};

use crate::base::error::Result;
use crate::grundy::Builder;
use crate::octal::rules::Rules;
use crate::run::longrun::censusfile::{self, Format};
use crate::run::longrun::tablefile;
use std::path::{Path, PathBuf};

/// One fuzz target: its name (the fuzz crate's binary and the corpus folder
/// `fuzz/corpus/NAME/`) and its function.
pub struct Target {
    pub name: &'static str,
    pub run: fn(&[u8]),
}

/// Every target, one per reader or parser.
pub static TARGETS: &[Target] = &[
    Target {
        name: "table_file",
        run: table_file,
    },
    Target {
        name: "table_checkpoint",
        run: table_checkpoint,
    },
    Target {
        name: "window_checkpoint",
        run: window_checkpoint,
    },
    Target {
        name: "window_stream",
        run: window_stream,
    },
    Target {
        name: "octal_kept",
        run: octal_kept,
    },
    Target {
        name: "window_values",
        run: window_values,
    },
    Target {
        name: "census_file",
        run: census_file,
    },
    Target {
        name: "census_merge",
        run: census_merge,
    },
    Target {
        name: "census_fields",
        run: census_fields,
    },
    Target {
        name: "wisdom",
        run: wisdom,
    },
    Target {
        name: "study_rows",
        run: study_rows,
    },
    Target {
        name: "counts_baseline",
        run: counts_baseline,
    },
    Target {
        name: "count_arg",
        run: count_arg,
    },
    Target {
        name: "seconds_arg",
        run: seconds_arg,
    },
    Target {
        name: "octal_code",
        run: octal_code,
    },
    Target {
        name: "moves_arg",
        run: moves_arg,
    },
    Target {
        name: "finite_set",
        run: finite_set,
    },
    Target {
        name: "shard_arg",
        run: shard_arg,
    },
    Target {
        name: "isa_arg",
        run: isa_arg,
    },
    Target {
        name: "workload_spec",
        run: workload_spec,
    },
];

/// The target called `name`.
pub fn find(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}

/// The path every message names.
fn path() -> PathBuf {
    PathBuf::from("fuzz-input")
}

/// Panics unless an error's message is one line.
fn one_line<T>(r: &Result<T>) {
    if let Err(e) = r {
        let msg = e.to_string();
        assert!(
            !msg.contains('\n'),
            "an error of more than one line: {msg:?}"
        );
    }
}

/// Same for a parser that refuses with a `String`.
fn one_line_str<T>(r: &std::result::Result<T, String>) {
    if let Err(msg) = r {
        assert!(
            !msg.contains('\n'),
            "an error of more than one line: {msg:?}"
        );
    }
}

/// Subtract-a-square's g(0..len) by the plain mex loop: the control for an accepted table.
pub fn squares_by_mex(len: usize) -> Vec<u16> {
    let mut g = vec![0u16; len];
    let mut seen = Vec::new();
    for n in 0..len {
        seen.clear();
        seen.resize(n.isqrt() + 2, false);
        let mut k = 1;
        while k * k <= n {
            let v = g[n - k * k] as usize;
            if v < seen.len() {
                seen[v] = true;
            }
            k += 1;
        }
        g[n] = seen.iter().position(|&s| !s).expect("a free value") as u16;
    }
    g
}

/// The checks every table read back passes, whatever the reader.
fn table_invariants(f: &tablefile::TableFile) {
    assert_eq!(f.values.len() as u64, f.done, "values and done disagree");
    assert!(f.done <= f.limit + 1, "done past N + 1");
    assert_eq!(
        f.values.iter().copied().max().unwrap_or(0),
        f.max,
        "max and values disagree"
    );
    assert_eq!(
        f.block_sums.len() as u64,
        f.done.div_ceil(f.block_values),
        "block sums and done disagree"
    );
}

/// `tablefile::parse` and `parse_complete` (`--load-table`): an accepted subtract-a-square
/// table of at most 10^5 values, as given (not resealed, which is tampering the checksums do
/// not claim to catch) and passing `check_usable`, equals the mex loop's.
pub fn table_file(bytes: &[u8]) {
    let squares = crate::base::moves::Moves::parse("squares").expect("squares");
    for (given, b) in [(true, bytes.to_vec()), (false, reseal_table(bytes))] {
        let r = tablefile::parse(&b, &path());
        one_line(&r);
        if let Ok(f) = &r {
            table_invariants(f);
        }
        let r = tablefile::parse_complete(&b, &path(), &squares, "--load-table");
        one_line(&r);
        if let Ok(f) = r {
            table_invariants(&f);
            let usable = f.check_usable(&squares);
            one_line(&usable);
            if given && usable.is_ok() && f.values.len() <= 100_000 {
                assert_eq!(
                    f.values,
                    squares_by_mex(f.values.len()),
                    "a wrong table accepted"
                );
            }
        }
    }
}

/// `tablefile::parse_checkpoint` (`--checkpoint` of `solve`, `octal`, `build`).
pub fn table_checkpoint(bytes: &[u8]) {
    for b in [bytes.to_vec(), reseal_table(bytes)] {
        let r = tablefile::parse_checkpoint(&b, &path());
        one_line(&r);
        if let Ok(f) = r {
            table_invariants(&f);
            if let Some(d) = &f.damage {
                assert_eq!(d.from, f.done, "damage and kept prefix disagree");
            }
        }
    }
}

/// The back-end called `name` of the octal games, made.
fn octal_builder(name: &str) -> Option<Box<dyn Builder<Rules>>> {
    crate::octal::find(name).ok().map(|e| (e.make)())
}

/// `window::checkpoint::parse`, then what a resume reads from it: its stream
/// (`Stream::load`) and its back-end's state (`load_kept`), as `window::run` does.
pub fn window_checkpoint(bytes: &[u8]) {
    use crate::run::window::{checkpoint, stream::Stream};
    for b in [bytes.to_vec(), reseal_window(bytes)] {
        let r = checkpoint::parse(&b, &path());
        one_line(&r);
        let Ok(ck) = r else { continue };
        assert_eq!(ck.prefix.len(), ck.done.min(ck.window.prefix));
        one_line(&ck.check(&ck.code, &ck.backend, ck.window, ck.limit));
        one_line(&Stream::load(&ck.stream));
        if let (Ok(rules), Some(builder)) = (Rules::parse(&ck.code), octal_builder(&ck.backend)) {
            one_line(&builder.load_kept(&rules, &ck.kept));
        }
    }
}

/// `Stream::load`: a window run's histograms and digest.
pub fn window_stream(bytes: &[u8]) {
    one_line(&crate::run::window::stream::Stream::load(bytes));
}

/// `load_kept` of the octal back-end chosen by the first byte, for 0.6, 4.7 or .137 (by the
/// second): the state a window checkpoint carries.
pub fn octal_kept(bytes: &[u8]) {
    let [pick, code, rest @ ..] = bytes else {
        return;
    };
    let backends = crate::octal::BACKENDS;
    let entry = &backends[*pick as usize % backends.len()];
    let rules = Rules::parse(["0.6", "4.7", "0.137"][*code as usize % 3]).expect("a code");
    one_line(&(entry.make)().load_kept(&rules, rest));
}

/// `window::replay`: g(0..done) read back from a values file, done from the first two bytes.
pub fn window_values(bytes: &[u8]) {
    let [a, b, file @ ..] = bytes else { return };
    let done = u16::from_le_bytes([*a, *b]) as usize;
    let mut got = 0;
    let r = crate::run::window::replay(&mut &file[..], done, &mut |v| got += v.len());
    assert_eq!(r.is_ok(), file.len() >= 2 * done, "a values file misread");
    if r.is_ok() {
        assert_eq!(got, done);
    }
}

/// All codes of a census of `digits` digits, up to 4 (a harness bound: a header may name
/// any number of digits, and 5 or more would make one execution slow, not wrong).
fn small_census_codes(digits: usize) -> Result<Vec<String>> {
    if digits > 4 {
        return Err(crate::base::error::Error::Invalid("too many digits".into()));
    }
    Ok(crate::census::codes(digits)?
        .iter()
        .map(|r| r.label().to_string())
        .collect())
}

/// `censusfile::parse` (`census --out`, `census report`), then every row's `fields`, and
/// `parse_resume` of the same text against its own header and its first row's build (what
/// `--resume` checks).
pub fn census_file(bytes: &[u8]) {
    for b in [bytes.to_vec(), reseal_census(bytes)] {
        let r = censusfile::parse(&b, &path(), "--resume");
        one_line(&r);
        let Ok(c) = r else { continue };
        let until = c.header.max_limit.is_some();
        let mut first_build = None;
        for (_, line) in c.rows.values() {
            let f = censusfile::fields(c.format, line, until);
            one_line_str(&f);
            if let (None, Ok(f)) = (&first_build, f) {
                first_build = Some(f.build);
            }
        }
        let text = std::str::from_utf8(&b).expect("parsed as UTF-8");
        // Against the build of its first row: rows of another build are refused in one line.
        let again = censusfile::parse_resume(
            text,
            &path(),
            c.format,
            &c.header,
            first_build.as_deref(),
            &|_| true,
        );
        one_line(&again);
        let merged = censusfile::merge_contents(&[(path(), c)], &small_census_codes);
        one_line(&merged);
    }
}

/// `censusfile::merge_contents` (`census merge`) of the files the input holds, split at each
/// 0xff byte (never in UTF-8 text), each resealed.
pub fn census_merge(bytes: &[u8]) {
    let mut files = Vec::new();
    for (i, part) in bytes.split(|&b| b == 0xff).enumerate().take(8) {
        let part = reseal_census(part);
        let p = PathBuf::from(format!("fuzz-input-{i}"));
        match censusfile::parse(&part, &p, "census merge") {
            Ok(c) => files.push((p, c)),
            Err(e) => {
                one_line::<()>(&Err(e));
                return;
            }
        }
    }
    one_line(&censusfile::merge_contents(&files, &small_census_codes));
}

/// `censusfile::fields` of each line (the atlas's reader), in the format and with the
/// columns the first byte picks.
pub fn census_fields(bytes: &[u8]) {
    let [pick, rest @ ..] = bytes else { return };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let format = if pick & 1 == 0 {
        Format::Csv
    } else {
        Format::JsonLines
    };
    for line in text.lines() {
        one_line_str(&censusfile::fields(format, line, pick & 2 != 0));
    }
}

/// `wisdom::parse` (`--wisdom`, the default cache path): a loaded wisdom validates, and
/// choosing from it answers.
pub fn wisdom(bytes: &[u8]) {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let source = crate::run::wisdom::parse(text, Path::new("fuzz-input"));
    if let Some(note) = &source.note {
        assert!(
            !note.contains('\n'),
            "a note of more than one line: {note:?}"
        );
    }
    if let Some(loaded) = &source.loaded {
        assert!(loaded.wisdom.validate().is_ok());
        let squares = crate::base::moves::Moves::parse("squares").expect("squares");
        for limit in [0, 1000, 1 << 20, 1 << 32] {
            let _ = source.choose(crate::base::isa::Isa::Scalar, &squares, limit, 1);
        }
    }
}

/// `log::parse_study_rows` of the three study kinds that `scale` and `growth` resume, and
/// `Row::parse` of every line.
pub fn study_rows(bytes: &[u8]) {
    use crate::instruments::scaling::{growth, log, row::Row};
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    one_line(&log::parse_study_rows::<Row>(text, &path()));
    one_line(&log::parse_study_rows::<growth::ColdRow>(text, &path()));
    one_line(&log::parse_study_rows::<growth::MaxRow>(text, &path()));
    for line in text.lines().take(64) {
        one_line(&Row::parse(line));
    }
}

/// `counts::Baseline::parse` (the count gate's baseline, `--gate`).
pub fn counts_baseline(bytes: &[u8]) {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    one_line(&crate::instruments::counts::Baseline::parse(text, &path()));
}

/// `numbers::check_count` (`--limit 1e8` and every count flag): an accepted count reads
/// back from its decimal form.
pub fn count_arg(bytes: &[u8]) {
    use crate::base::numbers::{check_count, read_count};
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let r = check_count(
        0,
        crate::base::limit::MAX_LIMIT,
        Some("why"),
        "--limit",
        text,
    );
    one_line_str(&r);
    if let Ok(v) = read_count(text) {
        assert_eq!(read_count(&v.to_string()), Ok(v));
    }
}

/// `numbers::parse_seconds` (`--checkpoint-every`).
pub fn seconds_arg(bytes: &[u8]) {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    one_line_str(&crate::base::numbers::parse_seconds(
        "--checkpoint-every",
        text,
    ));
}

/// `Rules::parse` (octal codes): an accepted code parses again from its label to itself.
pub fn octal_code(bytes: &[u8]) {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let r = Rules::parse(text);
    one_line(&r);
    if let Ok(rules) = r {
        let again = Rules::parse(rules.label()).expect("a label parses");
        assert_eq!(again.label(), rules.label());
    }
}

/// `Moves::parse` (`--moves`): an accepted set parses again from its label to itself.
pub fn moves_arg(bytes: &[u8]) {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let r = crate::base::moves::Moves::parse(text);
    one_line(&r);
    if let Ok(m) = r {
        let again = crate::base::moves::Moves::parse(&m.label()).expect("a label parses");
        assert_eq!(again.label(), m.label());
    }
}

/// `finite::Set::parse` (the finite games' sets).
pub fn finite_set(bytes: &[u8]) {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    one_line(&crate::finite::Set::parse(text));
}

/// `Shard::parse` (`--shard I/K`): an accepted shard has I < K.
pub fn shard_arg(bytes: &[u8]) {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let r = crate::census::plan::Shard::parse(text);
    one_line(&r);
    if let Ok(s) = r {
        assert!(s.index < s.count);
    }
}

/// `Isa::parse` (`--isa`, `NAME@PATH`): an accepted path parses again from its name.
pub fn isa_arg(bytes: &[u8]) {
    use crate::base::isa::Isa;
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let r = Isa::parse(text);
    one_line(&r);
    if let Ok(isa) = r {
        assert_eq!(Isa::parse(isa.name()).ok(), Some(isa));
    }
}

/// `workload::parse_spec` (`KIND:RULES`, the workloads' subjects).
pub fn workload_spec(bytes: &[u8]) {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    one_line(&crate::run::workload::parse_spec(text));
}
