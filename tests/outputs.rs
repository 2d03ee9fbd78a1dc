//! `--out` decided before any work (`census`, `sequence`, `profile`): `-`, a FIFO or a
//! character device is written in place and never replaced by a regular file; a symlink is
//! written through to its target (and stays a symlink) or refused when its target is
//! missing; an existing file is replaced only with `--force` (never by `sequence`).

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
    let path = fifo.to_path_buf();
    let reader = std::thread::spawn(move || std::fs::read_to_string(path).unwrap());
    let out = nimsquare()
        .args(args)
        .arg("--out")
        .arg(fifo)
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
    assert!(text.starts_with("code,limit,status"), "{text}");
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
