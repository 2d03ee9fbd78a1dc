//! Output files decided before any work. `--out` of `census`, `sequence`, `profile`, `scale`
//! and `growth`, `--plot` and `tune`'s `--wisdom`: `-`, a FIFO or a character device is
//! written in place and never replaced by a regular file; a symlink is written through to its
//! target (and stays a symlink) or refused when its target is missing; an existing file is
//! replaced only with `--force` (never by `sequence`). `--checkpoint` and `--save-table`, files
//! renamed into place: a symlink written through, a FIFO or a device refused before any work.
//! The cases where privilege matters (/dev/null, read-only folders) run as an ordinary user
//! ([`common::as_ordinary_user`]).

mod common;

use common::{assert_refused, nimsquare};
use std::os::unix::fs::FileTypeExt;
use std::path::Path;

fn scratch(name: &str) -> common::Scratch {
    common::Scratch::new(format!("nimsquare-outputs-{name}-{}", std::process::id()))
}

/// A quick census as CSV: header and 14 rows (the codes of one digit).
const CENSUS: [&str; 6] = ["census", "--digits", "1", "--limit", "100", "--csv"];

fn mkfifo(path: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path that outlives the call.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// Runs `args` with `--out FIFO` while a thread reads the FIFO; returns what was read and
/// the run's output. The FIFO must still be a FIFO afterwards.
fn through_fifo(fifo: &Path, args: &[&str]) -> (String, std::process::Output) {
    through_fifo_as(fifo, "--out", args)
}

/// [`through_fifo`] with the FIFO named by `flag` (`--out`, `--plot`, `--wisdom`), placed
/// last. The run is given 60 seconds: one that opens the FIFO twice (once to check it, once
/// to write) would otherwise wait for ever for a second reader.
fn through_fifo_as(fifo: &Path, flag: &str, args: &[&str]) -> (String, std::process::Output) {
    let path = fifo.to_path_buf();
    let reader = std::thread::spawn(move || std::fs::read_to_string(path).unwrap());
    let out = nimsquare()
        .args(args)
        .arg(flag)
        .arg(fifo)
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    // Had the run never opened the FIFO, the reader would wait for ever: open it for writing
    // (without waiting) to end its read.
    {
        use std::os::unix::fs::OpenOptionsExt;
        let _ = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(fifo);
    }
    let text = reader.join().unwrap();
    let kind = std::fs::symlink_metadata(fifo).unwrap().file_type();
    assert!(kind.is_fifo(), "{} was replaced: {kind:?}", fifo.display());
    (text, out)
}

#[test]
fn a_fifo_is_written_in_place_and_stays_a_fifo() {
    let dir = scratch("fifo");
    let fifo = dir.join("pipe");
    mkfifo(&fifo);
    // An existing FIFO needs no --force: nothing is replaced.
    let (text, out) = through_fifo(&fifo, &CENSUS);
    assert!(out.status.success(), "{out:?}");
    // A FIFO gets the CSV at the end (no census line: it cannot be resumed).
    assert!(text.starts_with("code,limit,status"), "{text}");
    assert_eq!(text.lines().count(), 15, "{text}");
    let (text, out) = through_fifo(&fifo, &["sequence", "values", "--limit", "9"]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(text, "0 0\n1 1\n2 0\n3 1\n4 2\n5 0\n6 1\n7 0\n8 1\n9 2\n");
}

#[test]
fn a_character_device_is_written_in_place_and_dash_is_stdout() {
    let null = Path::new("/dev/null");
    for force in [false, true] {
        let mut cmd = nimsquare();
        cmd.args(CENSUS).args(["--out", "/dev/null"]);
        if force {
            cmd.arg("--force");
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{out:?}");
        assert!(out.stdout.is_empty());
        assert!(std::fs::metadata(null)
            .unwrap()
            .file_type()
            .is_char_device());
    }
    let out = nimsquare()
        .args(["sequence", "values", "--limit", "9", "--out", "/dev/null"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(std::fs::metadata(null)
        .unwrap()
        .file_type()
        .is_char_device());
    // `-` is standard output, not a file named `-`.
    let dir = scratch("dash");
    let out = nimsquare()
        .current_dir(&dir)
        .args(CENSUS)
        .args(["--out", "-"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8(out.stdout)
        .unwrap()
        .starts_with("code,limit,status"));
    assert!(!dir.join("-").exists());
}

#[test]
fn a_symlink_is_written_through_to_its_target_and_stays_a_symlink() {
    let dir = scratch("link");
    let target = dir.join("target.csv");
    let link = dir.join("link.csv");
    std::fs::write(&target, "old\n").unwrap();
    std::os::unix::fs::symlink(&target, &link).unwrap();
    // Without --force the existing target is not replaced.
    let l = link.to_str().unwrap();
    let e = assert_refused(&[&CENSUS[..], &["--out", l]].concat());
    assert!(e.contains("--out") && e.contains("already exists"), "{e}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "old\n");
    let out = nimsquare()
        .args(CENSUS)
        .args(["--out", l, "--force"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read_link(&link).unwrap(), target);
    let text = std::fs::read_to_string(&target).unwrap();
    // A census rows file: its census line, then the column names.
    assert!(text.starts_with("# census {"), "{text}");
    assert!(
        text.lines()
            .nth(1)
            .unwrap()
            .starts_with("code,limit,status"),
        "{text}"
    );
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        2,
        "a .tmp was left"
    );
    // `sequence` has no --force: a symlink to an existing file is refused.
    let e = assert_refused(&["sequence", "values", "--limit", "9", "--out", l]);
    assert!(e.contains("already exists"), "{e}");
}

#[test]
fn a_dangling_symlink_is_refused_before_any_work() {
    let dir = scratch("dangling");
    let link = dir.join("link");
    std::os::unix::fs::symlink(dir.join("missing"), &link).unwrap();
    let l = link.to_str().unwrap();
    // The whole census of 3 digits takes tens of seconds: a refusal must come first.
    let started = std::time::Instant::now();
    let e = assert_refused(&["census", "--out", l, "--force"]);
    assert!(started.elapsed().as_secs_f64() < 5.0, "{e}");
    assert!(e.contains("--out") && e.contains("symlink"), "{e}");
    let e = assert_refused(&["sequence", "values", "--limit", "9", "--out", l]);
    assert!(e.contains("symlink"), "{e}");
    let e = assert_refused(&["profile", "--limit", "1000", "--out", l, "--force"]);
    assert!(e.contains("--out") && e.contains("symlink"), "{e}");
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(!dir.join("missing").exists());
}

/// A quick scaling study: one back-end at two N, one round.
const SCALE: [&str; 11] = [
    "scale", "--table", "stamped", "--from", "100", "--to", "1000", "--points", "2", "--repeat",
    "1",
];

/// A quick growth study of the cold count at two N.
const GROWTH: [&str; 8] = [
    "growth",
    "--quantity",
    "cold",
    "--from",
    "100",
    "--to",
    "1000",
    "--points",
];

/// A `tune` of a few seconds (two points, N = 100 and 316, nothing modelled).
const TUNE: [&str; 9] = [
    "tune",
    "--to",
    "316",
    "--model-to",
    "316",
    "--repeat",
    "1",
    "--budget",
    "5",
];

/// The CSV header of a scaling study, as `scale` writes it first.
fn scale_header() -> &'static str {
    nimsquare::instruments::scaling::CSV_HEADER
}

#[test]
fn study_files_and_wisdom_in_a_fifo_are_written_in_place() {
    let dir = scratch("study-fifo");
    let fifo = dir.join("pipe");
    mkfifo(&fifo);
    // The CSV, one flushed row at a time: the header and one row per N.
    let (text, out) = through_fifo(&fifo, &SCALE);
    assert!(out.status.success(), "{out:?}");
    assert!(text.starts_with(scale_header()), "{text}");
    assert_eq!(text.lines().count(), 3, "{text}");
    let (text, out) = through_fifo(&fifo, &[&GROWTH[..], &["2"]].concat());
    assert!(out.status.success(), "{out:?}");
    assert!(text.starts_with("n,cold,cold_share"), "{text}");
    assert_eq!(text.lines().count(), 3, "{text}");
    // The plot, drawn whole and then written into the FIFO.
    let csv = dir.join("s.csv");
    let args = [&SCALE[..], &["--out", csv.to_str().unwrap()]].concat();
    let (text, out) = through_fifo_as(&fifo, "--plot", &args);
    assert!(out.status.success(), "{out:?}");
    assert!(text.starts_with("<svg") && text.trim_end().ends_with("</svg>"));
    // The wisdom: no --force, since nothing is replaced.
    let (text, out) = through_fifo_as(&fifo, "--wisdom", &TUNE);
    assert!(out.status.success(), "{out:?}");
    let wisdom: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(wisdom["measured_up_to"], 316, "{text}");
    // A FIFO cannot hold a resumed study.
    let f = fifo.to_str().unwrap();
    let e = assert_refused(&[&SCALE[..], &["--out", f, "--resume"]].concat());
    assert!(
        e.contains("--resume") && e.contains("not a regular file"),
        "{e}"
    );
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());
}

/// A symlink `link` in `dir` to `target`, whose content is `old`.
fn link_to(
    dir: &Path,
    link: &str,
    target: &str,
    old: &str,
) -> (std::path::PathBuf, std::path::PathBuf) {
    let (link, target) = (dir.join(link), dir.join(target));
    std::fs::write(&target, old).unwrap();
    std::os::unix::fs::symlink(&target, &link).unwrap();
    (link, target)
}

/// Asserts `link` is still a symlink to `target`.
fn still_a_link(link: &Path, target: &Path) {
    let kind = std::fs::symlink_metadata(link).unwrap().file_type();
    assert!(
        kind.is_symlink(),
        "{} was replaced: {kind:?}",
        link.display()
    );
    assert_eq!(std::fs::read_link(link).unwrap(), target);
}

#[test]
fn study_files_and_wisdom_are_written_through_a_symlink() {
    let dir = scratch("study-link");
    let (csv, csv_target) = link_to(&dir, "s.csv", "real.csv", "old\n");
    let (svg, svg_target) = link_to(&dir, "s.svg", "real.svg", "old\n");
    let (json, json_target) = link_to(&dir, "w.json", "real.json", "old\n");
    let (c, s, j) = (
        csv.to_str().unwrap(),
        svg.to_str().unwrap(),
        json.to_str().unwrap(),
    );
    // Existing files, through their links, are not replaced without --force.
    let e = assert_refused(&[&SCALE[..], &["--out", c]].concat());
    assert!(e.contains("--out") && e.contains("--force"), "{e}");
    let other = dir.join("other.csv");
    let o = other.to_str().unwrap();
    let e = assert_refused(&[&SCALE[..], &["--out", o, "--plot", s]].concat());
    assert!(e.contains("--plot") && e.contains("--force"), "{e}");
    let e = assert_refused(&[&TUNE[..], &["--wisdom", j]].concat());
    assert!(e.contains("--wisdom") && e.contains("--force"), "{e}");
    for target in [&csv_target, &svg_target, &json_target] {
        assert_eq!(std::fs::read_to_string(target).unwrap(), "old\n");
    }
    // With --force each is written through its link, which stays one.
    let out = nimsquare()
        .args(SCALE)
        .args(["--out", c, "--plot", s, "--force"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let out = nimsquare()
        .args(TUNE)
        .args(["--wisdom", j, "--force"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    still_a_link(&csv, &csv_target);
    still_a_link(&svg, &svg_target);
    still_a_link(&json, &json_target);
    let text = std::fs::read_to_string(&csv_target).unwrap();
    assert!(
        text.starts_with(scale_header()) && text.lines().count() == 3,
        "{text}"
    );
    assert!(std::fs::read_to_string(&svg_target)
        .unwrap()
        .starts_with("<svg"));
    let wisdom: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json_target).unwrap()).unwrap();
    assert_eq!(wisdom["measured_up_to"], 316);
    // Nothing left beside them (no .tmp), and the plot is never the CSV itself.
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        6,
        "a .tmp was left"
    );
    let e = assert_refused(&[&SCALE[..], &["--out", c, "--plot", c, "--force"]].concat());
    assert!(e.contains("--plot") && e.contains("--out file too"), "{e}");
}

#[test]
fn a_checkpoint_is_written_through_a_symlink_and_resumed_from_it() {
    let dir = scratch("checkpoint-link");
    let target = dir.join("real.tbl");
    let link = dir.join("ck.tbl");
    let l = link.to_str().unwrap();
    let out = nimsquare()
        .args([
            "solve",
            "--limit",
            "1000",
            "--checkpoint",
            target.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let before = std::fs::metadata(&target).unwrap().len();
    let out = nimsquare()
        .args(["solve", "--limit", "2000", "--checkpoint", l])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("resuming from the checkpoint"), "{stderr}");
    still_a_link(&link, &target);
    // The target now holds the table to N = 2000: 1000 more values of 2 bytes.
    assert_eq!(std::fs::metadata(&target).unwrap().len(), before + 2000);
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        2,
        "a .tmp was left"
    );
    // --save-table never replaces a file, also not through a link; a link to nothing is
    // refused rather than replaced by a file.
    let e = assert_refused(&["solve", "--limit", "1000", "--save-table", l]);
    assert!(
        e.contains("--save-table") && e.contains("already exists"),
        "{e}"
    );
    let dangling = dir.join("dangling.tbl");
    std::os::unix::fs::symlink(dir.join("missing.tbl"), &dangling).unwrap();
    let d = dangling.to_str().unwrap();
    for flag in ["--save-table", "--checkpoint"] {
        let e = assert_refused(&["solve", "--limit", "1000", flag, d]);
        assert!(e.contains(flag) && e.contains("symlink"), "{e}");
    }
    assert!(std::fs::symlink_metadata(&dangling)
        .unwrap()
        .file_type()
        .is_symlink());
}

#[test]
fn a_checkpoint_or_table_in_a_fifo_is_refused_at_once() {
    let dir = scratch("checkpoint-fifo");
    let fifo = dir.join("pipe");
    mkfifo(&fifo);
    let f = fifo.to_str().unwrap();
    // Reading the FIFO to check it would wait for a writer for ever: refused without opening.
    for (command, flag) in [
        (&["solve", "--limit", "1000"][..], "--checkpoint"),
        (&["solve", "--limit", "1000"][..], "--save-table"),
        (&["octal", ".6", "--limit", "1000"][..], "--checkpoint"),
    ] {
        let out = nimsquare()
            .args(command)
            .args([flag, f])
            .timeout(std::time::Duration::from_secs(30))
            .output()
            .unwrap();
        let e = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{command:?} {flag}: {e}");
        assert!(e.contains(flag) && e.contains("FIFO"), "{e}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());
}

/// Runs `args` as an ordinary user (in `dir`), or returns None when that cannot be done.
fn run_as_user(dir: &Path, args: &[&str]) -> Option<std::process::Output> {
    let mut cmd = common::as_ordinary_user(dir)?;
    Some(cmd.args(args).output().unwrap())
}

/// Asserts `out` is a refusal: status 2, one line naming `flag` and holding `needle`.
fn refused(out: &std::process::Output, flag: &str, needle: &str) {
    let e = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(
        e.starts_with("error: ") && e.contains(flag) && e.contains(needle),
        "{e}"
    );
}

/// A table build of about ten seconds on a small machine: a refusal that comes within two
/// seconds came before it.
const SLOW_SOLVE: [&str; 3] = ["solve", "--limit", "1e7"];

#[test]
fn dev_null_as_an_ordinary_user_is_written_in_place_or_refused_before_any_work() {
    let dir = scratch("dev-null");
    let null = "/dev/null";
    // Written in place: no temporary file is made in /dev, which an ordinary user cannot do.
    let Some(out) = run_as_user(
        &dir,
        &[&SCALE[..], &["--out", null, "--plot", null]].concat(),
    ) else {
        return;
    };
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("wrote /dev/null (1 back-ends)"), "{stdout}");
    let out = run_as_user(
        &dir,
        &[&GROWTH[..], &["2", "--out", null, "--plot", null]].concat(),
    )
    .unwrap();
    assert!(out.status.success(), "{out:?}");
    // No --force: /dev/null is not a file to replace.
    let out = run_as_user(&dir, &[&TUNE[..], &["--wisdom", null]].concat()).unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("wrote /dev/null"));
    // Files renamed into place cannot be a device: refused before the build.
    for flag in ["--checkpoint", "--save-table"] {
        let started = std::time::Instant::now();
        let out = run_as_user(&dir, &[&SLOW_SOLVE[..], &[flag, null]].concat()).unwrap();
        assert!(started.elapsed().as_secs_f64() < 2.0, "{out:?}");
        refused(&out, flag, "is a device");
    }
    let out = run_as_user(
        &dir,
        &["octal", ".6", "--limit", "1000", "--checkpoint", null],
    )
    .unwrap();
    refused(&out, "--checkpoint", "is a device");
    // A study cannot be resumed from a device, which holds no rows.
    let out = run_as_user(&dir, &[&SCALE[..], &["--out", null, "--resume"]].concat()).unwrap();
    refused(&out, "--resume", "not a regular file");
    assert!(std::fs::metadata(null)
        .unwrap()
        .file_type()
        .is_char_device());
}

#[test]
fn a_missing_or_read_only_folder_is_refused_before_any_work() {
    let dir = scratch("folders");
    let missing = dir.join("no-such-folder");
    // `tune` makes only its default cache folder; a named folder must exist.
    let w = missing.join("w.json");
    let e = assert_refused(&[&TUNE[..], &["--wisdom", w.to_str().unwrap()]].concat());
    assert!(
        e.contains("--wisdom") && e.contains("does not exist"),
        "{e}"
    );
    assert!(!missing.exists(), "the folder was made");
    for flag in ["--checkpoint", "--save-table"] {
        let p = missing.join("t.tbl");
        let started = std::time::Instant::now();
        let e = assert_refused(&[&SLOW_SOLVE[..], &[flag, p.to_str().unwrap()]].concat());
        assert!(started.elapsed().as_secs_f64() < 2.0, "{e}");
        assert!(e.contains(flag) && e.contains("does not exist"), "{e}");
    }
    // A folder an ordinary user cannot write: this scratch folder, made by root, when the
    // tests run as root; a read-only one otherwise.
    let locked = dir.join("locked");
    std::fs::create_dir(&locked).unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o555)).unwrap();
    }
    let in_locked = |name: &str| locked.join(name).to_str().unwrap().to_string();
    let (csv, svg, json, tbl) = (
        in_locked("s.csv"),
        in_locked("s.svg"),
        in_locked("w.json"),
        in_locked("t.tbl"),
    );
    let ok = dir.join("ok.csv");
    let ok = ok.to_str().unwrap();
    let cases: [(Vec<&str>, &str); 6] = [
        ([&SCALE[..], &["--out", &csv]].concat(), "--out"),
        (
            [&SCALE[..], &["--out", ok, "--plot", &svg]].concat(),
            "--plot",
        ),
        ([&GROWTH[..], &["2", "--out", &csv]].concat(), "--out"),
        ([&TUNE[..], &["--wisdom", &json]].concat(), "--wisdom"),
        (
            [&SLOW_SOLVE[..], &["--checkpoint", &tbl]].concat(),
            "--checkpoint",
        ),
        (
            [&SLOW_SOLVE[..], &["--save-table", &tbl]].concat(),
            "--save-table",
        ),
    ];
    if common::switches_user() {
        // The user must be able to reach the folder to be refused by its mode alone.
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    }
    for (args, flag) in cases {
        let started = std::time::Instant::now();
        let Some(out) = run_as_user(&dir, &args) else {
            return;
        };
        assert!(started.elapsed().as_secs_f64() < 2.0, "{args:?}");
        refused(&out, flag, "cannot be written");
    }
    assert_eq!(std::fs::read_dir(&locked).unwrap().count(), 0);
    assert!(!Path::new(ok).exists());
}
