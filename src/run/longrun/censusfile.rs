//! The census rows file (`census --out FILE`): one line a code, appended and synced as each
//! code finishes, so a killed census keeps every row it finished and `--resume` completes it;
//! and `census merge`, which joins the files of the shards of a job array.
//!
//! Format, CSV: a first line `# census {...}` holding the [`Header`] as JSON, the column
//! names ([`CSV_COLUMNS`] and [`CHECK`]), then one row a line. JSON Lines: a first line
//! `{"census": {...}}`, then one object a row. Every row ends in its check, the FNV-1a hash
//! of the row before it ([`seal`]), so a row edited on disk is refused by `--resume` and
//! `census merge`, naming its line and code; a file of version 2 (no check) is still read by
//! `census merge`, but not resumed. Rows made by another build are kept: each names its build,
//! and the facts of a code do not depend on it. While a census runs the rows come in the order codes finish; a
//! census that completes rewrites its file (a new file renamed over the old) with the rows
//! in code order, so a file completed in several runs, or merged from shards, is the file one
//! uninterrupted run writes.
//!
//! Invariant: every complete line after the header is one row of a code of the header's
//! census, each code at most once, with the header's limit and back-end, as the census wrote
//! it (its check holds); a kill can leave at
//! most a last line without its newline, which [`resume`] drops and [`read`] reports.

use crate::base::error::{Error, Result};
use crate::base::fault;
use crate::census::plan::fingerprint_of;
use crate::census::{order_key, Row};
use crate::octal::method::period::Verdict;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The column names of a CSV rows file (and of `census --csv`).
/// What the table says first, then where the row was made, then its cost (the two columns two
/// runs of one census differ in, with the date).
pub const CSV_COLUMNS: &str = "code,limit,status,preperiod,period,max_value,rare,backend,build,cpu,date,seconds,positions_per_second";

/// The column names of an until-proved census ([`crate::census::until`]): `limit` is the N
/// the code reached, and `stop` says why it stopped there (proved, limit, budget).
pub const CSV_COLUMNS_UNTIL: &str = "code,limit,status,stop,preperiod,period,max_value,rare,backend,build,cpu,date,seconds,positions_per_second";

/// The column names of a census, until-proved or not.
pub fn csv_columns(until: bool) -> &'static str {
    if until {
        CSV_COLUMNS_UNTIL
    } else {
        CSV_COLUMNS
    }
}

/// The version of the format, in every header (2: the rare count and the cost columns; 3:
/// each row sealed by its [`CHECK`] column).
pub const VERSION: u32 = 3;

/// The last column of a version-3 row: the FNV-1a 64-bit hash of the row's text before it
/// (in CSV the fields and commas before `,CHECK`; in JSON Lines the object's text before
/// `,"check":`, with its closing brace), 16 hex digits. It lets a reader tell a row the census
/// wrote from one edited since (a period changed by one digit), so `--resume` and `census
/// merge` never keep an edited row; it is no defence against someone who recomputes it.
pub const CHECK: &str = "check";

/// The FNV-1a 64-bit hash of `bytes`: a row's [`CHECK`].
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// `line` (a row as [`encode`] writes it) with its [`CHECK`] column appended: the row of a
/// rows file.
pub fn seal(format: Format, line: &str) -> String {
    let check = fnv1a64(line.as_bytes());
    match format {
        Format::Csv => format!("{line},{check:016x}"),
        Format::JsonLines => {
            let open = line.strip_suffix('}').expect("a row is a JSON object");
            format!("{open},\"{CHECK}\":\"{check:016x}\"}}")
        }
    }
}

/// True when the row `sealed` ends in its [`CHECK`] column and that is the hash of the rest
/// of the row: false for a row without it, or edited since it was sealed.
fn seal_holds(format: Format, sealed: &str) -> bool {
    let (hashed, check) = match format {
        Format::Csv => match sealed.rsplit_once(',') {
            Some((line, check)) => (line.to_string(), check),
            None => return false,
        },
        Format::JsonLines => {
            let Some((open, rest)) = sealed.rsplit_once(&format!(",\"{CHECK}\":\"")) else {
                return false;
            };
            match rest.strip_suffix("\"}") {
                // The object's text as it was sealed: the part before the check, and its brace.
                Some(check) => (format!("{open}}}"), check),
                None => return false,
            }
        }
    };
    check.len() == 16
        && u64::from_str_radix(check, 16).is_ok_and(|want| want == fnv1a64(hashed.as_bytes()))
}

/// How the rows are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Comma-separated, with the columns of [`CSV_COLUMNS`].
    Csv,
    /// One JSON object a line.
    JsonLines,
}

impl Format {
    fn name(self) -> &'static str {
        match self {
            Format::Csv => "CSV",
            Format::JsonLines => "JSON Lines",
        }
    }
}

/// What census a rows file holds: the first line of the file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// [`VERSION`].
    pub version: u32,
    /// N, the largest heap of every table (where each code starts, until proved).
    pub limit: usize,
    /// `--max-limit` of an until-proved census (absent otherwise, so a census at one N
    /// writes the header it always wrote).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_limit: Option<usize>,
    /// `--budget` of an until-proved census, in seconds, if given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<f64>,
    /// D, the most digits after the point.
    pub digits: usize,
    /// `--codes` as given, or `all`.
    pub codes: String,
    /// The selection's fingerprint (`all`, or the count and hash of its codes).
    pub selection: String,
    /// Codes in the whole selection.
    pub total: usize,
    /// The octal back-end.
    pub backend: String,
    /// `I/K`: this file's shard (`0/1` for a whole census).
    pub shard: String,
    /// Codes in this shard.
    pub share: usize,
}

impl Header {
    /// The parameters in which `self` (a file's) and `want` differ, each as `what (FILE there,
    /// HERE here)`; the shard and its share only when `with_shard`.
    fn differences(&self, want: &Header, with_shard: bool) -> Vec<String> {
        let mut out = Vec::new();
        let mut differ = |what: &str, there: String, here: String| {
            if there != here {
                out.push(format!("{what} ({there} there, {here} here)"));
            }
        };
        differ(
            "format version",
            self.version.to_string(),
            want.version.to_string(),
        );
        differ("limit", self.limit.to_string(), want.limit.to_string());
        let or_none = |x: Option<String>| x.unwrap_or_else(|| "none".into());
        differ(
            "max limit",
            or_none(self.max_limit.map(|m| m.to_string())),
            or_none(want.max_limit.map(|m| m.to_string())),
        );
        differ(
            "budget",
            or_none(self.budget.map(|b| format!("{b} s"))),
            or_none(want.budget.map(|b| format!("{b} s"))),
        );
        differ(
            "digit range",
            format!("1 to {}", self.digits),
            format!("1 to {}", want.digits),
        );
        differ(
            "code selection",
            format!("{} = {}", self.codes, self.selection),
            format!("{} = {}", want.codes, want.selection),
        );
        differ("back-end", self.backend.clone(), want.backend.clone());
        if with_shard {
            differ("shard", self.shard.clone(), want.shard.clone());
        }
        out
    }
}

/// Where a census was made: the same for every row of one run.
#[derive(Debug, Clone)]
pub struct Made {
    /// The back-end's name.
    pub backend: String,
    /// The git revision of the build.
    pub build: String,
    /// The CPU model.
    pub cpu: String,
    /// The UTC date.
    pub date: String,
}

/// The line (without its newline) of `row` in `format`: in CSV with the `stop` column when
/// `until` (an until-proved census, [`CSV_COLUMNS_UNTIL`]); an error row has the status
/// `error`, its message in JSON (in CSV the caller reports it) and no facts.
pub fn encode(format: Format, row: &Row, made: &Made, until: bool) -> String {
    let (status, e, p) = match row.verdict {
        _ if row.error.is_some() => ("error", None, None),
        Verdict::Periodic(p) => ("periodic", Some(p.preperiod), Some(p.period)),
        Verdict::Open => ("open", None, None),
        Verdict::NotApplicable => ("not applicable", None, None),
    };
    let max_value = Some(row.max_value).filter(|_| row.error.is_none());
    match format {
        Format::Csv => {
            let text = |x: Option<usize>| x.map(|v| v.to_string()).unwrap_or_default();
            // The CPU name may hold commas: quoted, with quotes doubled.
            let cpu = format!("\"{}\"", made.cpu.replace('"', "\"\""));
            let status = match (until, row.stop) {
                (true, stop) => format!("{status},{}", stop.map_or("", |s| s.name())),
                (false, _) => status.to_string(),
            };
            format!(
                "{},{},{status},{},{},{},{},{},{},{cpu},{},{:.6},{:.0}",
                row.code,
                row.limit,
                text(e),
                text(p),
                text(max_value.map(usize::from)),
                text(row.rare),
                made.backend,
                made.build,
                made.date,
                row.seconds,
                row.positions_per_second()
            )
        }
        Format::JsonLines => {
            let mut v = serde_json::json!({
                "code": row.code, "limit": row.limit, "status": status,
                "max_value": row.max_value, "rare": row.rare, "backend": made.backend,
                "build": made.build, "cpu": made.cpu, "date": made.date,
                "seconds": row.seconds, "positions_per_second": row.positions_per_second(),
            });
            let o = v.as_object_mut().expect("an object");
            if let (Verdict::Periodic(q), None) = (row.verdict, &row.error) {
                o.insert("preperiod".into(), q.preperiod.into());
                o.insert("period".into(), q.period.into());
                o.insert("proof_from".into(), q.proof.0.into());
                o.insert("proof_to".into(), q.proof.1.into());
            }
            if let Some(stop) = row.stop {
                o.insert("stop".into(), stop.name().into());
            }
            if let Some(error) = &row.error {
                o.insert("error".into(), error.clone().into());
                o.insert("max_value".into(), serde_json::Value::Null);
            }
            v.to_string()
        }
    }
}

/// True when the rows of a file of `header` are sealed by their [`CHECK`] column (version 3
/// on); a file of version 2 is read without it, and never resumed.
fn sealed(header: &Header) -> bool {
    header.version >= 3
}

/// The column names of a CSV rows file of `header`: [`csv_columns`], and [`CHECK`] when its
/// rows are sealed.
fn file_columns(header: &Header) -> String {
    let columns = csv_columns(header.max_limit.is_some());
    if sealed(header) {
        format!("{columns},{CHECK}")
    } else {
        columns.to_string()
    }
}

/// The first line(s) of a file of `format` holding `header`, each with its newline.
fn header_text(format: Format, header: &Header) -> String {
    let json = serde_json::to_string(header).expect("a header serializes");
    match format {
        Format::Csv => format!("# census {json}\n{}\n", file_columns(header)),
        Format::JsonLines => format!("{{\"census\":{json}}}\n"),
    }
}

/// The rows of a census, by code order: (code, line).
pub type Rows = BTreeMap<(usize, u8, u64), (String, String)>;

/// What [`read`] finds in a rows file.
#[derive(Debug)]
pub struct Contents {
    /// Its format.
    pub format: Format,
    /// Its header.
    pub header: Header,
    /// Its complete rows.
    pub rows: Rows,
    /// The byte length of the header and the complete lines: where a last line without its
    /// newline (cut by a kill) starts, if there is one.
    pub complete_len: u64,
    /// True when the file ends in a line without its newline.
    pub cut: bool,
}

/// Reads the rows file `path` (named by `flag` in errors): its header, and every complete row,
/// each checked to be a census code of the header's digits, limit and back-end, each once, and
/// sealed by its [`CHECK`] in a file of version 3 on. Refused in one line naming the line and, where it can be read, the code: a file that is
/// not a census rows file, a damaged line, an edited row, a code twice.
pub fn read(path: &Path, flag: &str) -> Result<Contents> {
    let bytes = std::fs::read(path)
        .map_err(|e| Error::Invalid(format!("{flag} {}: cannot be read ({e})", path.display())))?;
    parse(&bytes, path, flag)
}

/// [`read`] of a file's whole contents `bytes` (`path` only names it in messages; bytes that
/// are not UTF-8 are refused as [`read`] refuses such a file).
pub fn parse(bytes: &[u8], path: &Path, flag: &str) -> Result<Contents> {
    let text = std::str::from_utf8(bytes)
        .map_err(|e| Error::Invalid(format!("{flag} {}: cannot be read ({e})", path.display())))?;
    parse_with(text, path, flag, &|_, _| Ok(()), &|_| true)
}

/// [`parse`] of the file's text `text`, with its format and header first checked by `expect`,
/// and every row's code by `wanted` (the share a resume finishes): a row of a code not wanted
/// is refused, naming it.
fn parse_with(
    text: &str,
    path: &Path,
    flag: &str,
    expect: &dyn Fn(Format, &Header) -> Result<()>,
    wanted: &dyn Fn(&str) -> bool,
) -> Result<Contents> {
    let refuse = |why: String| Error::Invalid(format!("{flag} {}: {why}", path.display()));
    let not_ours = || {
        refuse("is not a census rows file (its first line is no census header); name the file a `census --out` wrote".into())
    };
    let first = text.lines().next().ok_or_else(not_ours)?;
    let (format, header): (Format, Header) = if let Some(json) = first.strip_prefix("# census ") {
        (
            Format::Csv,
            serde_json::from_str(json).map_err(|_| not_ours())?,
        )
    } else {
        #[derive(Deserialize)]
        struct Wrapped {
            census: Header,
        }
        let w: Wrapped = serde_json::from_str(first).map_err(|_| not_ours())?;
        (Format::JsonLines, w.census)
    };
    expect(format, &header)?;
    let cut = !text.is_empty() && !text.ends_with('\n');
    // The complete lines only: a cut last line is no row.
    let complete = match text.rfind('\n') {
        Some(end) if cut => &text[..=end],
        _ if cut => "",
        _ => text,
    };
    let mut rows = Rows::new();
    let until = header.max_limit.is_some();
    let columns = file_columns(&header);
    let sealed = sealed(&header);
    // A row's N: the header's, or in an until-proved census any up to the most it may reach.
    let reach = header.max_limit.unwrap_or(header.limit);
    let skip = match format {
        Format::Csv => 2,
        Format::JsonLines => 1,
    };
    for (i, line) in complete.lines().enumerate() {
        if i == 1 && format == Format::Csv {
            if line != columns {
                return Err(refuse(format!(
                    "line 2 is not the column names '{columns}'"
                )));
            }
            continue;
        }
        if i < skip {
            continue;
        }
        let number = i + 1;
        let damaged = |why: &str| refuse(format!("line {number} is damaged ({why})"));
        let (code, limit, backend) = match format {
            Format::Csv => {
                // The fields before the quoted CPU name hold no comma.
                let cpu = if until { 10 } else { 9 };
                let f: Vec<&str> = line.splitn(cpu + 1, ',').collect();
                if f.len() <= cpu {
                    return Err(damaged("too few fields"));
                }
                (
                    f[0].to_string(),
                    f[1].parse::<usize>().ok(),
                    f[cpu - 2].to_string(),
                )
            }
            Format::JsonLines => {
                let v: serde_json::Value =
                    serde_json::from_str(line).map_err(|_| damaged("not JSON"))?;
                (
                    v["code"].as_str().unwrap_or("").to_string(),
                    v["limit"].as_u64().map(|x| x as usize),
                    v["backend"].as_str().unwrap_or("").to_string(),
                )
            }
        };
        let key = order_key(&code).ok_or_else(|| damaged("no census code"))?;
        let of_code = |why: &str| refuse(format!("line {number} (code {code}) {why}"));
        if sealed && !seal_holds(format, line) {
            return Err(of_code(
                "fails its check: the row was changed after the census wrote it; \
                 restore the file, or start again with --force",
            ));
        }
        if key.0 > header.digits || !wanted(&code) {
            return Err(of_code(
                "is not a code of this census (of its digits, --codes or --shard)",
            ));
        }
        // (A budget may stop a code before it reaches the first N.)
        if !limit.is_some_and(|n| n == header.limit || (until && n <= reach))
            || backend != header.backend
        {
            return Err(of_code(
                "is damaged (its limit or back-end is not the header's)",
            ));
        }
        if rows.insert(key, (code.clone(), line.to_string())).is_some() {
            return Err(refuse(format!(
                "holds the code {code} twice (line {number})"
            )));
        }
    }
    Ok(Contents {
        format,
        header,
        rows,
        complete_len: complete.len() as u64,
        cut,
    })
}

/// The fields of one row of a rows file, read back: what [`encode`] wrote (an empty CSV
/// field is `None`). The atlas (`census report`) reads census files through this, so a rows
/// file has one reader.
#[derive(Debug, Clone, PartialEq)]
pub struct Fields {
    pub code: String,
    /// The N the code's table reached.
    pub limit: usize,
    /// `periodic`, `open` or `not applicable`.
    pub status: String,
    /// Why an until-proved code stopped (`proved`, `limit`, `budget`); None in a census at one
    /// N.
    pub stop: Option<String>,
    pub preperiod: Option<usize>,
    pub period: Option<usize>,
    pub max_value: Option<usize>,
    pub rare: Option<usize>,
    pub backend: String,
    pub build: String,
    pub cpu: String,
    pub date: String,
    pub seconds: f64,
    pub positions_per_second: f64,
}

/// The fields of `line`, a row of a rows file in `format` (with the `stop` column when
/// `until`), or why it is damaged. The CSV quoting of the CPU name is the csv crate's.
pub fn fields(format: Format, line: &str, until: bool) -> std::result::Result<Fields, String> {
    let number = |what: &str, text: &str| -> std::result::Result<Option<usize>, String> {
        match text {
            "" => Ok(None),
            t => t
                .parse()
                .map(Some)
                .map_err(|_| format!("its {what} '{t}' is no number")),
        }
    };
    let real = |what: &str, text: &str| -> std::result::Result<f64, String> {
        text.parse()
            .map_err(|_| format!("its {what} '{text}' is no number"))
    };
    match format {
        Format::Csv => {
            let record = crate::base::csvrecords::first(line).ok_or("an empty line")?;
            let f: Vec<&str> = record.iter().collect();
            let names: Vec<&str> = csv_columns(until).split(',').collect();
            // a row of version 3 on ends in its check, which `read` has held to the row
            if f.len() != names.len() && f.len() != names.len() + 1 {
                return Err(format!("{} fields, not {}", f.len(), names.len()));
            }
            let at = |name: &str| f[names.iter().position(|n| *n == name).expect("a column")];
            Ok(Fields {
                code: at("code").to_string(),
                limit: number("limit", at("limit"))?.ok_or("no limit")?,
                status: at("status").to_string(),
                stop: until
                    .then(|| at("stop").to_string())
                    .filter(|s| !s.is_empty()),
                preperiod: number("preperiod", at("preperiod"))?,
                period: number("period", at("period"))?,
                max_value: number("max_value", at("max_value"))?,
                rare: number("rare", at("rare"))?,
                backend: at("backend").to_string(),
                build: at("build").to_string(),
                cpu: at("cpu").to_string(),
                date: at("date").to_string(),
                seconds: real("seconds", at("seconds"))?,
                positions_per_second: real("positions_per_second", at("positions_per_second"))?,
            })
        }
        Format::JsonLines => {
            let v: serde_json::Value =
                serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
            let text = |k: &str| v[k].as_str().unwrap_or("").to_string();
            let count = |k: &str| v[k].as_u64().map(|x| x as usize);
            Ok(Fields {
                code: text("code"),
                limit: count("limit").ok_or("no limit")?,
                status: text("status"),
                stop: v["stop"].as_str().map(str::to_string),
                preperiod: count("preperiod"),
                period: count("period"),
                max_value: count("max_value"),
                rare: count("rare"),
                backend: text("backend"),
                build: text("build"),
                cpu: text("cpu"),
                date: text("date"),
                seconds: v["seconds"].as_f64().unwrap_or(0.0),
                positions_per_second: v["positions_per_second"].as_f64().unwrap_or(0.0),
            })
        }
    }
}

/// A rows file open for appending.
pub struct RowsFile {
    path: PathBuf,
    file: Mutex<File>,
    /// A failed append whose part-written line could not be cut off (see [`RowsFile::append`]).
    torn: std::sync::atomic::AtomicBool,
}

impl RowsFile {
    /// Appends `line` and its newline, then syncs the file, so the row survives a kill or a
    /// power cut from the moment this returns. Rows from several threads never interleave.
    /// A write that fails after writing part of the line (a disk that fills midway) is cut
    /// off the file again, so a row appended after it by another thread never follows a
    /// torn one on the same line; if even that fails, every later append is refused.
    pub fn append(&self, line: &str) -> Result<()> {
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        let failed = |e: std::io::Error| {
            Error::Unwritten(format!(
                "--out {}: cannot append a row ({e})",
                self.path.display()
            ))
        };
        if self.torn.load(std::sync::atomic::Ordering::SeqCst) {
            return Err(failed(std::io::Error::other(
                "a row before it was torn and could not be cut off",
            )));
        }
        let before = file.metadata().map(|m| m.len());
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        // One write of the whole line, so a kill leaves the line whole or cut, never mixed.
        let written = fault::write_all(&mut *file, &bytes).and_then(|()| fault::sync_data(&file));
        if written.is_err() {
            let cut = before.and_then(|len| file.set_len(len));
            if cut.is_err() {
                self.torn.store(true, std::sync::atomic::Ordering::SeqCst);
            }
        }
        written.map_err(failed)
    }
}

/// Writes `text` to `path` as a new file: `PATH.tmp` written and synced, renamed over `path`,
/// and the folder synced, so a crash leaves the old file or the new one, never a mixture.
fn write_whole(path: &Path, text: &str) -> Result<()> {
    let failed = |e: std::io::Error| Error::Unwritten(format!("--out {}: {e}", path.display()));
    crate::base::paths::replace_atomically(path, |tmp| {
        let mut f = fault::create(tmp).map_err(failed)?;
        fault::write_all(&mut f, text.as_bytes())
            .and_then(|()| fault::sync_all(&f))
            .map_err(failed)
    })
}

/// Opens `path` to append and takes an exclusive lock on it (flock(2), released when the
/// process ends, killed or not), so two censuses never append to one file and mix their
/// rows: a file another process holds is refused in one line.
fn open_append(path: &Path) -> Result<RowsFile> {
    use std::os::unix::io::AsRawFd;
    let refuse = |why: String| Error::Invalid(format!("--out {}: {why}", path.display()));
    // A file that cannot be opened to append is one not written (exit 4), not bad input.
    let file = fault::open(OpenOptions::new().read(true).append(true), path).map_err(|e| {
        Error::Unwritten(format!("--out {}: cannot be opened ({e})", path.display()))
    })?;
    // SAFETY: flock on a file descriptor this `File` owns and keeps open across the call.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        return Err(refuse(
            "another census is writing this file (it is locked); wait for it to end or name another file".into(),
        ));
    }
    Ok(RowsFile {
        path: path.to_path_buf(),
        file: Mutex::new(file),
        torn: std::sync::atomic::AtomicBool::new(false),
    })
}

/// Starts the rows file `path` with `header` and no rows (replacing a file there: the caller
/// has decided it may), open for appending.
pub fn create(path: &Path, format: Format, header: &Header) -> Result<RowsFile> {
    if path.exists() {
        // A file another census is still writing is not replaced under it.
        drop(open_append(path)?);
    }
    write_whole(path, &header_text(format, header))?;
    open_append(path)
}

/// Opens the rows file `path` to finish the census `header` in `format`: refused, in one line
/// naming `--resume` and each parameter that differs, when the file holds another census (or
/// another shard of it, or is in the other format), or a file whose rows carry no check (a
/// version before 3: its rows cannot be told from edited ones, so none is kept); and, naming
/// the line and the code, a row edited since it was written or of a code outside the share
/// (`in_share`); and, naming the code and both builds, a row another build wrote when
/// `build` is given (the build of this run: a row is a fact of the code that made it, so
/// one build's rows are not silently finished by another's). A last line cut by a kill is
/// dropped (cut off the file). Returns the file, open for appending, and its rows.
pub fn resume(
    path: &Path,
    format: Format,
    header: &Header,
    build: Option<&str>,
    in_share: &dyn Fn(&str) -> bool,
) -> Result<(RowsFile, Rows)> {
    // Locked first, so no other census appends between the reading and the appending.
    let file = open_append(path)?;
    let mut text = String::new();
    File::open(path)
        .and_then(|mut f| f.read_to_string(&mut text))
        .map_err(|e| {
            Error::Invalid(format!("--resume {}: cannot be read ({e})", path.display()))
        })?;
    let contents = parse_resume(&text, path, format, header, build, in_share)?;
    if contents.cut {
        let f = file.file.lock().unwrap_or_else(|e| e.into_inner());
        fault::set_len(&f, contents.complete_len)
            .and_then(|()| fault::sync_all(&f))
            .map_err(|e| {
                Error::Unwritten(format!(
                    "--resume {}: cannot drop its cut last line ({e})",
                    path.display()
                ))
            })?;
    }
    Ok((file, contents.rows))
}

/// What [`resume`] reads of the rows file text `text` (at `path`) before it touches the file:
/// its rows, every check of a resume passed (the census `header` and `format` of this run,
/// every row's code in the share `in_share`, every row of build `build` when given).
pub fn parse_resume(
    text: &str,
    path: &Path,
    format: Format,
    header: &Header,
    build: Option<&str>,
    in_share: &dyn Fn(&str) -> bool,
) -> Result<Contents> {
    let refuse = |why: String| {
        Error::Invalid(format!(
            "--resume {}: {why}; rerun with the file's parameters, or name another --out",
            path.display()
        ))
    };
    // The census first, then its rows.
    let expect = |there: Format, theirs: &Header| -> Result<()> {
        if !sealed(theirs) && sealed(header) {
            return Err(Error::Invalid(format!(
                "--resume {}: the file is of format version {}, whose rows carry no check, so an edited row cannot be told from a written one and none is kept; finish it with the build that wrote it, or start again with --force",
                path.display(),
                theirs.version
            )));
        }
        if there != format {
            return Err(refuse(format!(
                "the file is {}, this run writes {} (--csv/--json)",
                there.name(),
                format.name()
            )));
        }
        let differences = theirs.differences(header, true);
        if !differences.is_empty() {
            return Err(refuse(format!(
                "the file holds another census: {}",
                differences.join(", ")
            )));
        }
        Ok(())
    };
    let contents = parse_with(text, path, "--resume", &expect, in_share)?;
    if let Some(here) = build {
        let until = contents.header.max_limit.is_some();
        for (code, line) in contents.rows.values() {
            let there = fields(format, line, until)
                .map_err(|why| refuse(format!("the row of code {code} is damaged ({why})")))?
                .build;
            if there != here {
                return Err(Error::Invalid(format!(
                    "--resume {}: the row of code {code} was written by build {there}, this is build {here}; finish the census with that build, or pass --mixed-builds to keep its rows",
                    path.display()
                )));
            }
        }
    }
    Ok(contents)
}

/// The text of a whole rows file: `header` and `rows` in code order.
pub fn sorted_text(format: Format, header: &Header, rows: &Rows) -> String {
    let mut text = header_text(format, header);
    for (_, line) in rows.values() {
        text.push_str(line);
        text.push('\n');
    }
    text
}

/// Rewrites the completed rows file `path` with its rows in code order (a new file renamed
/// over it), so it equals the file of one uninterrupted run.
pub fn finish(path: &Path, format: Format, header: &Header, rows: &Rows) -> Result<()> {
    write_whole(path, &sorted_text(format, header, rows))
}

/// Joins the rows files of the shards of one census into the whole census: its format, header
/// (shard `0/1`) and rows. Refused, in one line: files of different censuses or formats (the
/// parameter named), a shard given twice or a code in two files (an overlap), a shard missing
/// or a file that has not finished its share (a gap), or rows that are not the census's codes.
/// `all_codes(digits)` lists every code of D digits, for a census of all of them.
pub fn merge(
    paths: &[PathBuf],
    all_codes: &dyn Fn(usize) -> Result<Vec<String>>,
) -> Result<(Format, Header, Rows)> {
    let mut files = Vec::new();
    for path in paths {
        files.push((path.clone(), read(path, "census merge")?));
    }
    merge_contents(&files, all_codes)
}

/// [`merge`] of the files `files` already read (each path and what [`read`] found in it).
pub fn merge_contents(
    files: &[(PathBuf, Contents)],
    all_codes: &dyn Fn(usize) -> Result<Vec<String>>,
) -> Result<(Format, Header, Rows)> {
    let refuse = |why: String| Error::Invalid(format!("census merge: {why}"));
    for (path, c) in files {
        if c.cut {
            return Err(refuse(format!(
                "{} ends in a cut line (its census was stopped); finish it with --resume first",
                path.display()
            )));
        }
    }
    let Some((first_path, first)) = files.first() else {
        return Err(refuse("name the shard files to join".into()));
    };
    let shard_of = |h: &Header| -> Result<(usize, usize)> {
        h.shard
            .split_once('/')
            .and_then(|(i, k)| Some((i.parse().ok()?, k.parse().ok()?)))
            .filter(|&(i, k)| i < k)
            .ok_or_else(|| {
                refuse(format!(
                    "a header names the shard '{}'",
                    h.shard.escape_debug()
                ))
            })
    };
    let (_, k) = shard_of(&first.header)?;
    // The shards found, by index: a map, not a vector of k, since k is a number in the file.
    let mut by_shard: BTreeMap<usize, &PathBuf> = BTreeMap::new();
    let mut rows = Rows::new();
    for (path, c) in files {
        if c.format != first.format {
            return Err(refuse(format!(
                "mismatched parameters: {} is {}, {} is {}",
                first_path.display(),
                first.format.name(),
                path.display(),
                c.format.name()
            )));
        }
        let differences = c.header.differences(&first.header, false);
        if !differences.is_empty() {
            return Err(refuse(format!(
                "mismatched parameters between {} and {}: {}",
                path.display(),
                first_path.display(),
                differences.join(", ")
            )));
        }
        let (i, kk) = shard_of(&c.header)?;
        if kk != k {
            return Err(refuse(format!(
                "mismatched parameters: {} is shard {i}/{kk}, {} is of {k} shards",
                path.display(),
                first_path.display()
            )));
        }
        if let Some(other) = by_shard.get(&i) {
            return Err(refuse(format!(
                "overlap: shard {i}/{k} is both {} and {}",
                other.display(),
                path.display()
            )));
        }
        by_shard.insert(i, path);
        if c.rows.len() != c.header.share {
            return Err(refuse(format!(
                "gap: {} (shard {i}/{k}) holds {} of its {} codes; finish it with `census --resume`",
                path.display(),
                c.rows.len(),
                c.header.share
            )));
        }
        for (key, row) in &c.rows {
            if rows.insert(*key, row.clone()).is_some() {
                return Err(refuse(format!(
                    "overlap: the code {} is in {} and in another file",
                    row.0,
                    path.display()
                )));
            }
        }
    }
    // The first index not found, in as many steps as there are files.
    let missing = (0..k).find(|i| !by_shard.contains_key(i));
    if let Some(missing) = missing {
        return Err(refuse(format!(
            "gap: no file for shard {missing}/{k}; run it with `census --shard {missing}/{k}`"
        )));
    }
    let header = Header {
        shard: "0/1".into(),
        share: first.header.total,
        ..first.header.clone()
    };
    // The union must be the census's selection, code for code.
    let labels: Vec<&str> = rows.values().map(|(code, _)| code.as_str()).collect();
    let expected = if header.selection == "all" {
        let all = all_codes(header.digits)?;
        fingerprint_of(all.iter().map(String::as_str))
    } else {
        header.selection.clone()
    };
    if fingerprint_of(labels.iter().copied()) != expected || rows.len() != header.total {
        return Err(refuse(format!(
            "the shards hold {} codes, not the {} of the census (they are not the shards of one census)",
            rows.len(),
            header.total
        )));
    }
    Ok((first.format, header, rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> Header {
        Header {
            version: VERSION,
            limit: 100,
            max_limit: None,
            budget: None,
            digits: 1,
            codes: "all".into(),
            selection: "all".into(),
            total: 14,
            backend: "octal-block".into(),
            shard: "0/1".into(),
            share: 14,
        }
    }

    /// A scratch file holding `text`, removed when the returned guard drops.
    struct Temp(PathBuf);
    impl Drop for Temp {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }
    fn temp(name: &str, text: &str) -> Temp {
        let path = std::env::temp_dir().join(format!(
            "nimsquare-censusfile-{name}-{}",
            std::process::id()
        ));
        std::fs::write(&path, text).unwrap();
        Temp(path)
    }

    const ROW: &str =
        "0.7,100,periodic,0,2,1,,octal-block,b,\"cpu, with comma\",d,0.000101,1000000";

    #[test]
    fn a_row_is_written_with_its_rare_count_and_cost_and_read_back() {
        use crate::octal::method::period::Period;
        let made = Made {
            backend: "octal-block".into(),
            build: "b".into(),
            cpu: "cpu, with comma".into(),
            date: "d".into(),
        };
        let mut row = Row {
            code: "0.7".into(),
            limit: 100,
            verdict: Verdict::Periodic(Period {
                preperiod: 0,
                period: 2,
                proof: (0, 4),
            }),
            max_value: 1,
            rare: None,
            seconds: 0.000101,
            stop: None,
            error: None,
        };
        assert_eq!(encode(Format::Csv, &row, &made, false), ROW);
        row.rare = Some(3);
        let line = encode(Format::JsonLines, &row, &made, false);
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(
            (v["rare"].as_u64(), v["seconds"].as_f64()),
            (Some(3), Some(0.000101))
        );
        let rate = v["positions_per_second"].as_f64().unwrap();
        assert!((rate - 1e6).abs() < 1e-3, "{rate}");
        // A file of the first version (no rare count, no cost) is another format, whose rows
        // carry no check.
        let old = Header {
            version: 1,
            ..header()
        };
        let f = temp("v1", &header_text(Format::Csv, &old));
        let e = resume(&f.0, Format::Csv, &header(), None, &|_| true)
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("format version 1") && e.contains("no check"),
            "{e}"
        );
    }

    #[test]
    fn the_check_is_fnv1a_64_of_the_row_before_it() {
        // The published FNV-1a 64 test vectors (Fowler, Noll, Vo).
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
        assert_eq!(
            seal(Format::Csv, "a"),
            "a,af63dc4c8601ec8c",
            "the hash of the fields before the check, 16 hex digits"
        );
        assert_eq!(
            seal(Format::JsonLines, "{}").len(),
            "{,\"check\":\"\"}".len() + 16
        );
        assert!(seal_holds(Format::Csv, "a,af63dc4c8601ec8c"));
        assert!(!seal_holds(Format::Csv, "b,af63dc4c8601ec8c"));
        assert!(!seal_holds(Format::Csv, "a,af63dc4c8601ec8"));
        assert!(!seal_holds(Format::Csv, "a"));
    }

    #[test]
    fn an_edited_fact_is_refused_naming_the_line_and_the_code() {
        let head = header_text(Format::Csv, &header());
        assert!(head.ends_with(",positions_per_second,check\n"), "{head}");
        let sealed = seal(Format::Csv, ROW);
        let other = seal(Format::Csv, &ROW.replace("0.7,", "0.6,"));
        let good = temp("sealed", &format!("{head}{other}\n{sealed}\n"));
        assert_eq!(read(&good.0, "--resume").unwrap().rows.len(), 2);
        // ROW is 0.7: preperiod 0, period 2, largest value 1, no rare count.
        for (name, from, to) in [
            ("period", ",0,2,1,,", ",0,3,1,,"),
            ("preperiod", ",0,2,1,,", ",1,2,1,,"),
            ("largest", ",0,2,1,,", ",0,2,2,,"),
            ("rare", ",0,2,1,,", ",0,2,1,5,"),
            ("status", "periodic", "open"),
        ] {
            let edited = sealed.replacen(from, to, 1);
            assert_ne!(edited, sealed, "{name}");
            let f = temp(name, &format!("{head}{other}\n{edited}\n"));
            for e in [
                read(&f.0, "census merge").unwrap_err().to_string(),
                resume(&f.0, Format::Csv, &header(), None, &|_| true)
                    .err()
                    .unwrap()
                    .to_string(),
            ] {
                assert!(
                    e.contains(&f.0.display().to_string())
                        && e.contains("line 4 (code 0.7) fails its check"),
                    "{name}: {e}"
                );
            }
            // Refused before anything was changed.
            assert_eq!(
                std::fs::read_to_string(&f.0).unwrap(),
                format!("{head}{other}\n{edited}\n")
            );
        }
        // A row without its check in a file of version 3.
        let f = temp("unsealed", &format!("{head}{ROW}\n"));
        let e = read(&f.0, "--resume").unwrap_err().to_string();
        assert!(e.contains("line 3 (code 0.7) fails its check"), "{e}");
        // The same in JSON Lines.
        let made = Made {
            backend: "octal-block".into(),
            build: "b".into(),
            cpu: "c".into(),
            date: "d".into(),
        };
        let row = Row {
            code: "0.7".into(),
            limit: 100,
            verdict: Verdict::Periodic(crate::octal::method::period::Period {
                preperiod: 0,
                period: 2,
                proof: (0, 4),
            }),
            max_value: 1,
            rare: None,
            seconds: 0.5,
            stop: None,
            error: None,
        };
        let line = seal(
            Format::JsonLines,
            &encode(Format::JsonLines, &row, &made, false),
        );
        let head = header_text(Format::JsonLines, &header());
        let f = temp("json", &format!("{head}{line}\n"));
        assert_eq!(read(&f.0, "--resume").unwrap().rows.len(), 1);
        let edited = line.replace("\"period\":2", "\"period\":3");
        assert_ne!(edited, line);
        let f = temp("json-edited", &format!("{head}{edited}\n"));
        let e = read(&f.0, "--resume").unwrap_err().to_string();
        assert!(e.contains("line 2 (code 0.7) fails its check"), "{e}");
    }

    #[test]
    fn a_row_of_another_build_is_refused_by_resume_unless_mixed_builds_are_asked() {
        // ROW was written by build "b".
        let head = header_text(Format::Csv, &header());
        let f = temp("build", &format!("{head}{}\n", seal(Format::Csv, ROW)));
        let e = resume(&f.0, Format::Csv, &header(), Some("c"), &|_| true)
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.starts_with("--resume")
                && e.contains("code 0.7 was written by build b, this is build c")
                && e.contains("--mixed-builds"),
            "{e}"
        );
        for build in [Some("b"), None] {
            let (_, rows) = resume(&f.0, Format::Csv, &header(), build, &|_| true).unwrap();
            assert_eq!(rows.len(), 1, "{build:?}");
        }
    }

    #[test]
    fn a_code_outside_the_share_is_refused_by_resume() {
        let head = header_text(Format::Csv, &header());
        let f = temp("share", &format!("{head}{}\n", seal(Format::Csv, ROW)));
        let e = resume(&f.0, Format::Csv, &header(), None, &|code| code != "0.7")
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("--resume") && e.contains("line 3 (code 0.7) is not a code of this census"),
            "{e}"
        );
        // Nor a code of more digits than the header's, in any reader.
        let two = seal(Format::Csv, &ROW.replace("0.7,", "0.77,"));
        let f = temp("digits", &format!("{head}{two}\n"));
        let e = read(&f.0, "census merge").unwrap_err().to_string();
        assert!(e.contains("line 3 (code 0.77) is not a code"), "{e}");
    }

    #[test]
    fn a_version_2_file_is_read_but_not_resumed() {
        // As the census wrote it before rows were sealed: no check column.
        let v2 = Header {
            version: 2,
            ..header()
        };
        let text = format!(
            "# census {}\n{CSV_COLUMNS}\n{ROW}\n",
            serde_json::to_string(&v2).unwrap()
        );
        let f = temp("v2", &text);
        let c = read(&f.0, "census merge").unwrap();
        assert_eq!((c.header.version, c.rows.len()), (2, 1));
        // Written back as it was (what `census merge` of one whole file prints).
        assert_eq!(sorted_text(c.format, &c.header, &c.rows), text);
        let e = resume(&f.0, Format::Csv, &header(), None, &|_| true)
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("--resume") && e.contains("format version 2") && e.contains("--force"),
            "{e}"
        );
        assert_eq!(std::fs::read_to_string(&f.0).unwrap(), text);
    }

    #[test]
    fn the_fields_of_a_row_are_read_back_as_encode_wrote_them() {
        let f = fields(Format::Csv, ROW, false).unwrap();
        assert_eq!(
            (
                f.code.as_str(),
                f.limit,
                f.status.as_str(),
                f.stop.as_deref()
            ),
            ("0.7", 100, "periodic", None)
        );
        assert_eq!(
            (f.preperiod, f.period, f.max_value, f.rare),
            (Some(0), Some(2), Some(1), None)
        );
        assert_eq!((f.cpu.as_str(), f.seconds), ("cpu, with comma", 0.000101));
        let until = "0.6,400,open,budget,,,12,7,auto,b,\"c\",d,5.5,72";
        let f = fields(Format::Csv, until, true).unwrap();
        assert_eq!(
            (f.stop.as_deref(), f.period, f.rare),
            (Some("budget"), None, Some(7))
        );
        assert!(fields(Format::Csv, ROW, true)
            .unwrap_err()
            .contains("fields"));
        let bad = ROW.replace(",0,2,", ",x,2,");
        assert!(fields(Format::Csv, &bad, false)
            .unwrap_err()
            .contains("preperiod"));
    }

    #[test]
    fn damaged_duplicate_and_foreign_rows_are_refused() {
        let head = header_text(Format::Csv, &header());
        let row = seal(Format::Csv, ROW);
        let good = temp("good", &format!("{head}{row}\n"));
        let c = read(&good.0, "--resume").unwrap();
        assert_eq!((c.rows.len(), c.cut), (1, false));
        let sealed = |line: String| seal(Format::Csv, &line) + "\n";
        for (name, body, says) in [
            ("twice", format!("{row}\n{row}\n"), "twice"),
            ("short", "0.7,100\n".to_string(), "line 3 is damaged"),
            (
                "limit",
                sealed(ROW.replace(",100,", ",200,")),
                "limit or back-end",
            ),
            (
                "code",
                sealed(ROW.replace("0.7,", "0.70,")),
                "no census code",
            ),
        ] {
            let f = temp(name, &format!("{head}{body}"));
            let e = read(&f.0, "--resume").unwrap_err().to_string();
            assert!(e.contains(says), "{name}: {e}");
        }
    }

    #[test]
    fn resume_drops_a_cut_last_line_and_keeps_the_rest() {
        let head = header_text(Format::Csv, &header());
        let row = seal(Format::Csv, ROW);
        let f = temp("cut", &format!("{head}{row}\n0.1,100,peri"));
        let (file, rows) = resume(&f.0, Format::Csv, &header(), None, &|_| true).unwrap();
        assert_eq!(rows.len(), 1);
        drop(file);
        assert_eq!(
            std::fs::read_to_string(&f.0).unwrap(),
            format!("{head}{row}\n")
        );
        // The same census with another limit is refused, naming the limit.
        let other = Header {
            limit: 200,
            ..header()
        };
        let e = resume(&f.0, Format::Csv, &other, None, &|_| true)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("limit (100 there, 200 here)"), "{e}");
    }
}
