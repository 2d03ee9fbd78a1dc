//! The census atlas (`census report ROWS --html DIR`): a static site made from a census rows
//! file that works from the file system, with no network (CSS and JS inline, no fonts, no
//! CDN):
//!
//! - `DIR/index.html` ([`index`]): every row, a table sortable by its column headers and
//!   filtered by status, stop and agreement with the published periods; the state lives in
//!   the URL fragment (`#status=periodic&sort=period&order=desc`), applied on load and
//!   written on every click;
//! - `DIR/code/<code>.html` ([`page`], `0.354` as `0-354.html`): one page per code that has
//!   one (`has_page`): every proved (periodic) code, and of the others those a table
//!   publishes a period for, those disagreeing with one (a proved row only, by definition),
//!   and the [`OPEN_LARGEST`] open codes with the largest values. A page shows every column,
//!   the published readings ([`published`]) and the agreement, the equivalent games, the
//!   command that reproduces the row, and a plot of g(n) ([`figure`]).
//!
//! Cost: the rows file is read once; each page builds its code's values with the `auto`
//! back-end on one thread (pages in parallel, a thread a core) up to [`page_limit`]: at
//! least [`MIN_VALUES`], enough for two periods past the preperiod when proved, never past
//! the row's N, and for an open code at most [`OPEN_VALUES`]. The whole atlas of the
//! four-digit census (8 190 rows) builds in a few seconds on 2 cores
//! (results/census/atlas/README.md).
//!
//! Invariant: nothing is written before every refusal (the rows file unreadable or damaged,
//! DIR not empty without `force`); the index holds one `<tr>` per row of the file, each
//! carrying its data in `data-` attributes.

pub mod figure;
pub mod index;
pub mod page;
pub mod published;

use crate::base::error::{Error, Result};
use crate::base::fault;
use crate::octal::Rules;
use crate::run::longrun::censusfile::{self, Fields};
use published::{Agreement, Published, Readings};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// The fewest values a page plots (when the row's N allows): enough to see a code's shape.
pub const MIN_VALUES: usize = 1024;

/// The most values a proved code's page builds: an until-proved census proves periods and
/// preperiods in the hundreds of thousands, whose pages would cost seconds each; past this
/// the page shows the first values and says so (a mark past them is not drawn).
pub const MAX_VALUES: usize = 1 << 15;

/// The most values an open code's page builds: open codes are the costly ones (their rare
/// sets grow, and `octal-pairs` is quadratic), and 2 048 keeps the whole atlas within
/// seconds.
pub const OPEN_VALUES: usize = 2048;

/// The back-end of an open code's page: at a page's few thousand values `octal-pairs`
/// (every option marked in a byte row) beats `auto`, whose choice alone reads g(0..4096)
/// (the measurement over the open pages of the four-digit atlas is in
/// results/census/atlas/README.md).
pub const OPEN_BACKEND: &str = "octal-pairs";

/// How many open codes with the largest values get a page besides the published ones.
pub const OPEN_LARGEST: usize = 32;

/// One row of the census, with what the atlas adds: its agreement with the published tables.
pub struct Entry {
    pub fields: Fields,
    /// Where it stands in census order (the index's `code` sort).
    pub order: usize,
    pub readings: Readings,
    pub agreement: Agreement,
    /// Its page's file name, when it has one.
    pub page: Option<String>,
}

impl Entry {
    /// (preperiod, period) of a proved row.
    pub fn proved(&self) -> Option<(usize, usize)> {
        match (
            self.fields.status.as_str(),
            self.fields.preperiod,
            self.fields.period,
        ) {
            ("periodic", Some(e), Some(p)) => Some((e, p)),
            _ => None,
        }
    }

    /// Digits after the point.
    pub fn digits(&self) -> usize {
        self.fields.code.split_once('.').map_or(0, |(_, d)| d.len())
    }
}

/// What one `census report` made.
pub struct Made {
    pub rows: usize,
    pub pages: usize,
    pub seconds: f64,
    pub index: PathBuf,
}

/// The file name of a code's page: `0.354` is `0-354.html`.
pub fn page_name(code: &str) -> String {
    format!("{}.html", code.replace('.', "-"))
}

/// `text` with the HTML special characters escaped, for text and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The N of a page's values: for a proved row max(e + 2p + t, [`MIN_VALUES`]) (the
/// preperiod, two periods and the longest move, so both marks of the period are drawn;
/// the theorem's whole proof range, 2e' + 2p + t - 1, would double the cost of the long
/// preperiods, 9 081 for the 0.56xx family), at most [`MAX_VALUES`]; for an open one
/// [`OPEN_VALUES`]; never past the row's own N, so the page's values are the row's.
pub fn page_limit(entry: &Entry) -> usize {
    let want = match entry.proved() {
        Some((e, p)) => (e + 2 * p + entry.digits()).clamp(MIN_VALUES, MAX_VALUES),
        None => OPEN_VALUES,
    };
    want.min(entry.fields.limit)
}

/// Whether a row gets a page (see the module doc); `largest_open` is the max value that the
/// [`OPEN_LARGEST`]-th open row reaches.
fn has_page(entry: &Entry, largest_open: usize) -> bool {
    entry.proved().is_some()
        || entry.agreement != Agreement::Unpublished
        || entry.fields.max_value.unwrap_or(0) >= largest_open
}

/// Reads the rows file `rows` (named `ROWS` in errors) into the atlas's entries, in census
/// order, each with its agreement and its page's name.
pub fn entries(rows: &Path, published: &Published) -> Result<(censusfile::Header, Vec<Entry>)> {
    let contents = censusfile::read(rows, "ROWS")?;
    let until = contents.header.max_limit.is_some();
    let mut out = Vec::with_capacity(contents.rows.len());
    for (order, (code, line)) in contents.rows.values().enumerate() {
        let fields = censusfile::fields(contents.format, line, until).map_err(|why| {
            Error::Invalid(format!(
                "ROWS {}: the row of {code} is damaged ({why})",
                rows.display()
            ))
        })?;
        let readings = published.readings(code);
        let mut entry = Entry {
            fields,
            order,
            agreement: Agreement::Unpublished,
            readings,
            page: None,
        };
        entry.agreement = entry.readings.agreement(entry.proved());
        out.push(entry);
    }
    let mut open_values: Vec<usize> = out
        .iter()
        .filter(|e| e.proved().is_none())
        .map(|e| e.fields.max_value.unwrap_or(0))
        .collect();
    open_values.sort_unstable_by(|a, b| b.cmp(a));
    let largest_open = open_values
        .get(OPEN_LARGEST - 1)
        .or(open_values.last())
        .copied()
        .unwrap_or(usize::MAX)
        .max(1);
    for e in &mut out {
        if has_page(e, largest_open) {
            e.page = Some(page_name(&e.fields.code));
        }
    }
    Ok((contents.header, out))
}

/// Refuses a `dir` that exists and is not an empty folder, unless `force`.
fn check_dir(dir: &Path, force: bool) -> Result<()> {
    let refuse = |why: &str| Error::Invalid(format!("--html {}: {why}", dir.display()));
    if !dir.exists() {
        return Ok(());
    }
    if !dir.is_dir() {
        return Err(refuse(
            "exists and is not a folder; name a new or empty folder",
        ));
    }
    let empty = std::fs::read_dir(dir)
        .map_err(|e| refuse(&format!("cannot be read ({e})")))?
        .next()
        .is_none();
    if !empty && !force {
        return Err(refuse(
            "exists and is not empty; pass --force to write the atlas over it, or name a new or empty folder",
        ));
    }
    Ok(())
}

/// Writes the atlas of the rows file `rows` to `dir` (see the module doc). Refused before
/// any work, in one line naming the flag: `rows` unreadable or damaged (the census reader's
/// errors), `dir` not an empty folder without `force`. With `force` the atlas's own files
/// (`index.html`, `code/`) are replaced; nothing else in `dir` is touched.
pub fn report(rows: &Path, dir: &Path, force: bool) -> Result<Made> {
    let start = Instant::now();
    check_dir(dir, force)?;
    let published = Published::embedded();
    let (header, entries) = entries(rows, &published)?;
    let failed =
        |what: &Path, e: std::io::Error| Error::Invalid(format!("--html {}: {e}", what.display()));
    let code_dir = dir.join("code");
    if force && code_dir.is_dir() {
        std::fs::remove_dir_all(&code_dir).map_err(|e| failed(&code_dir, e))?;
    }
    std::fs::create_dir_all(&code_dir).map_err(|e| failed(&code_dir, e))?;
    let source = rows.file_name().map_or_else(
        || rows.display().to_string(),
        |f| f.to_string_lossy().into_owned(),
    );
    let index_path = dir.join("index.html");
    fault::write(&index_path, index::html(&header, &entries, &source))
        .map_err(|e| failed(&index_path, e))?;
    let pages: Vec<&Entry> = entries.iter().filter(|e| e.page.is_some()).collect();
    let with_pages: BTreeSet<&str> = pages.iter().map(|e| e.fields.code.as_str()).collect();
    // The largest pages first, so the last thread is not left with the longest. Plain
    // threads taking the next page in turn, each page's build on a one-thread pool: inside
    // rayon's own workers a thread waiting for its one-thread pool steals other pages and
    // nests them on its stack (the census's `run_each` says the same).
    let mut order: Vec<usize> = (0..pages.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(page_limit(pages[i])));
    let next = AtomicUsize::new(0);
    let work = || -> Result<()> {
        while let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
            let entry = pages[i];
            let values = values_of(entry)?;
            let rules = Rules::parse(&entry.fields.code)?;
            let plot = figure::svg(&rules, &values, entry.proved())?;
            let html = page::html(entry, &plot, values.len(), &with_pages, &published, &source);
            let path = code_dir.join(entry.page.as_deref().expect("a page"));
            fault::write(&path, html).map_err(|e| failed(&path, e))?;
        }
        Ok(())
    };
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers).map(|_| s.spawn(work)).collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect::<Result<Vec<()>>>()
    })?;
    Ok(Made {
        rows: entries.len(),
        pages: pages.len(),
        seconds: start.elapsed().as_secs_f64(),
        index: index_path,
    })
}

/// g(0..=[`page_limit`]) of a page's code, built on this thread: a proved code with `auto`
/// (which copies a period once it is proved), an open one with [`OPEN_BACKEND`].
pub fn values_of(entry: &Entry) -> Result<Vec<u16>> {
    let rules = Rules::parse(&entry.fields.code)?;
    let limit = page_limit(entry);
    let backend = match entry.proved() {
        Some(_) => crate::octal::default_backend(),
        None => crate::octal::find(OPEN_BACKEND)?,
    };
    crate::census::on_one_thread(|| {
        crate::octal::OctalPlan::new(rules, backend, limit as u64)?
            .build()
            .map(|t| t.values().to_vec())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("nimsquare-atlas-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    /// A small rows file written by the census itself (one digit, N = 300).
    fn rows_file(dir: &Path) -> PathBuf {
        use crate::run::longrun::censusfile::{encode, Format, Made as RowsMade};
        let entry = crate::octal::find("octal-sparse").unwrap();
        let rows = crate::census::census(entry, 1, 300, &|_, _| {}).unwrap();
        let header = censusfile::Header {
            version: censusfile::VERSION,
            limit: 300,
            max_limit: None,
            budget: None,
            digits: 1,
            codes: "all".into(),
            selection: "all".into(),
            total: rows.len(),
            backend: "octal-sparse".into(),
            shard: "0/1".into(),
            share: rows.len(),
        };
        let made = RowsMade {
            backend: "octal-sparse".into(),
            build: "b".into(),
            cpu: "a \"cpu\", <x>".into(),
            date: "d".into(),
        };
        std::fs::create_dir_all(dir).unwrap();
        let path = dir.join("rows.csv");
        let file = censusfile::create(&path, Format::Csv, &header).unwrap();
        for r in &rows {
            let line = encode(Format::Csv, r, &made, false);
            file.append(&censusfile::seal(Format::Csv, &line)).unwrap();
        }
        path
    }

    #[test]
    fn the_atlas_has_a_row_per_code_and_a_page_per_proved_code() {
        let scratch = temp_dir("small");
        let rows = rows_file(&scratch);
        let dir = scratch.join("atlas");
        let made = report(&rows, &dir, false).unwrap();
        let text = std::fs::read_to_string(&rows).unwrap();
        let lines: Vec<&str> = text.lines().skip(2).collect();
        assert_eq!(made.rows, lines.len());
        let index = std::fs::read_to_string(dir.join("index.html")).unwrap();
        assert_eq!(index.matches("<tr data-code=").count(), lines.len());
        // Every periodic row of the file has its page.
        for l in lines.iter().filter(|l| l.contains(",periodic,")) {
            let code = l.split(',').next().unwrap();
            assert!(dir.join("code").join(page_name(code)).is_file(), "{code}");
        }
        // The CPU name is escaped, never raw HTML.
        assert!(!index.contains("<x>"));
        // A second report into the same folder is refused without --force, taken with it.
        let e = report(&rows, &dir, false).err().unwrap().to_string();
        assert!(e.starts_with("--html ") && e.contains("--force"), "{e}");
        report(&rows, &dir, true).unwrap();
        let _ = std::fs::remove_dir_all(&scratch);
    }

    #[test]
    fn a_damaged_rows_file_is_refused_naming_rows() {
        let scratch = temp_dir("damaged");
        std::fs::create_dir_all(&scratch).unwrap();
        let rows = scratch.join("rows.csv");
        std::fs::write(&rows, "code,limit\n0.7,100\n").unwrap();
        let e = report(&rows, &scratch.join("atlas"), false)
            .err()
            .unwrap()
            .to_string();
        assert!(e.starts_with("ROWS "), "{e}");
        assert!(!scratch.join("atlas").exists());
        let _ = std::fs::remove_dir_all(&scratch);
    }

    #[test]
    fn page_names_are_file_system_safe() {
        assert_eq!(page_name("0.354"), "0-354.html");
        assert_eq!(escape("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
    }
}
