//! The checkpoint of a window-mode run: megabytes whatever N, so that a run can stop at the
//! end of a sitting and go on on another machine.
//!
//! It holds the window (the prefix g(0..P) and the tail g(T0..done), T0 on a page edge),
//! the stream of what the report says so far ([`super::stream::Stream::save`]), the
//! back-end's state ([`crate::grundy::Builder::save_kept`]), and what it was made for: the
//! code, the back-end, the window and N. Layout: a magic line, then the fields as
//! [`crate::base::wire`] writes them, then FNV-1a 64 of everything before it. Written to a
//! temporary file beside it, synced, then renamed over it, so a stop while writing leaves
//! the last one whole.
//!
//! Invariant: a checkpoint that reads back ([`read`]) is byte for byte the one written; one
//! of another code, back-end or window, or with more positions than the run's N + 1, is
//! refused ([`Checkpoint::check`]) before any work.

use super::Window;
use crate::base::error::{Error, Result};
use crate::base::fault;
use crate::base::wire::{Reader, Writer};
use crate::run::longrun::tablefile::{fnv1a64, Fnv1a64};
use std::io::Write;
use std::path::Path;

/// The first bytes of every window checkpoint.
const MAGIC: &[u8] = b"nimsquare window checkpoint\n";

/// The layout's version.
const VERSION: u8 = 1;

/// A window-mode run's checkpoint (see the module doc).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpoint {
    /// The code's label (`0.6`, `grundy`).
    pub code: String,
    /// The back-end that built the values and whose state `kept` is.
    pub backend: String,
    /// N of the run that wrote it (a later run may go further).
    pub limit: usize,
    /// g(0..done) are decided.
    pub done: usize,
    pub window: Window,
    /// The stream's bytes.
    pub stream: Vec<u8>,
    /// The back-end's state's bytes.
    pub kept: Vec<u8>,
    /// g(0..prefix.len()), prefix.len() = min(P, done).
    pub prefix: Vec<u16>,
    /// Where the tail starts: a page edge, at least prefix.len().
    pub tail_from: usize,
    /// g(tail_from..done).
    pub tail: Vec<u16>,
}

impl Checkpoint {
    /// The checkpoint's fields, borrowed: what [`write_atomic`] writes.
    pub fn parts(&self) -> Parts<'_> {
        Parts {
            code: &self.code,
            backend: &self.backend,
            limit: self.limit,
            done: self.done,
            window: self.window,
            stream: &self.stream,
            kept: &self.kept,
            prefix: &self.prefix,
            tail_from: self.tail_from,
            tail: &self.tail,
        }
    }

    /// Refuses this checkpoint for a run of `code` with `backend`, `window` and N = `limit`
    /// (one line naming `--checkpoint`).
    pub fn check(&self, code: &str, backend: &str, window: Window, limit: usize) -> Result<()> {
        let refuse = |what: String| {
            Err(Error::Invalid(format!(
                "--checkpoint: the checkpoint is {what}; name another file or run what it was made for"
            )))
        };
        if self.code != code {
            return refuse(format!("of the code {}, not {code}", self.code));
        }
        if self.backend != backend {
            return refuse(format!("of the back-end {}, not {backend}", self.backend));
        }
        if self.window != window {
            return refuse(format!(
                "of a window of {} + {} values, not {} + {}",
                self.window.prefix, self.window.tail, window.prefix, window.tail
            ));
        }
        if self.done > limit.saturating_add(1) {
            return refuse(format!(
                "past N = {limit} (it holds g(0..{})); ask for N >= {}",
                self.done,
                self.done - 1
            ));
        }
        Ok(())
    }
}

/// A checkpoint's fields, borrowed (the window's values straight from the run's table, so
/// that writing one costs no copy of them): see [`Checkpoint`].
#[derive(Debug, Clone, Copy)]
pub struct Parts<'a> {
    pub code: &'a str,
    pub backend: &'a str,
    pub limit: usize,
    pub done: usize,
    pub window: Window,
    pub stream: &'a [u8],
    pub kept: &'a [u8],
    pub prefix: &'a [u16],
    pub tail_from: usize,
    pub tail: &'a [u16],
}

/// The values written a piece at a time (their bytes are never all in memory at once).
const PIECE_VALUES: usize = 1 << 16;

/// Writes the checkpoint `ck` at `path`: a temporary file beside it, synced, renamed over
/// it, the folder synced. The layout is the module doc's, written in pieces with the sum kept
/// as they go. On any failure the temporary file is removed and `path` is as it was.
pub fn write_atomic(path: &Path, ck: &Parts) -> Result<()> {
    let tmp = path.with_extension("tmp-window-checkpoint");
    let written = write_to(path, &tmp, ck);
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    } else {
        // Makes the rename durable (`.` for a bare name too); nothing to do where the folder
        // cannot be synced.
        let _ = fault::sync_folder(crate::base::paths::folder_of(path));
    }
    written
}

/// [`write_atomic`]'s file `tmp`, then its rename onto `path`.
fn write_to(path: &Path, tmp: &Path, ck: &Parts) -> Result<()> {
    let io = |e: std::io::Error| {
        Error::Unwritten(format!(
            "--checkpoint: cannot write {}: {e}",
            path.display()
        ))
    };
    let mut f = std::io::BufWriter::new(fault::Writer(fault::create(tmp).map_err(io)?));
    let mut sum = Fnv1a64::default();
    let mut head = Writer::new();
    head.u8(VERSION)
        .bytes(ck.code.as_bytes())
        .bytes(ck.backend.as_bytes())
        .u64(ck.limit as u64)
        .u64(ck.done as u64)
        .u64(ck.window.prefix as u64)
        .u64(ck.window.tail as u64)
        .bytes(ck.stream)
        .bytes(ck.kept);
    let head = head.finish();
    {
        let mut put = |bytes: &[u8]| -> std::io::Result<()> {
            sum.update(bytes);
            f.write_all(bytes)
        };
        let mut buf = Vec::with_capacity(2 * PIECE_VALUES);
        let mut values = |put: &mut dyn FnMut(&[u8]) -> std::io::Result<()>, vs: &[u16]| {
            put(&(vs.len() as u64).to_le_bytes())?;
            for piece in vs.chunks(PIECE_VALUES) {
                buf.clear();
                buf.extend(piece.iter().flat_map(|v| v.to_le_bytes()));
                put(&buf)?;
            }
            Ok::<(), std::io::Error>(())
        };
        put(MAGIC).map_err(io)?;
        put(&head).map_err(io)?;
        values(&mut put, ck.prefix).map_err(io)?;
        put(&(ck.tail_from as u64).to_le_bytes()).map_err(io)?;
        values(&mut put, ck.tail).map_err(io)?;
    }
    f.write_all(&sum.finish().to_le_bytes()).map_err(io)?;
    let f = f.into_inner().map_err(|e| io(e.into_error()))?.into_inner();
    fault::sync_all(&f).map_err(io)?;
    drop(f);
    fault::rename(tmp, path).map_err(io)
}

/// The checkpoint at `path`, refused when it is not one, or damaged.
pub fn read(path: &Path) -> Result<Checkpoint> {
    let bytes = std::fs::read(path).map_err(|e| {
        Error::Invalid(format!("--checkpoint: cannot read {}: {e}", path.display()))
    })?;
    parse(&bytes, path)
}

/// [`read`] of a file's whole contents `bytes` (`path` only names it in messages).
pub fn parse(bytes: &[u8], path: &Path) -> Result<Checkpoint> {
    let not = || {
        Error::Invalid(format!(
            "--checkpoint: {} is not a window-mode checkpoint (or it is damaged); name another file",
            path.display()
        ))
    };
    if !bytes.starts_with(MAGIC) || bytes.len() < MAGIC.len() + 9 {
        return Err(not());
    }
    // The version first: a newer layout may place its check elsewhere.
    match bytes[MAGIC.len()] {
        VERSION => {}
        newer if newer > VERSION => {
            return Err(Error::Invalid(format!(
                "--checkpoint: {} was written by a newer nimsquare (window checkpoint version {newer}, this build reads {VERSION}); resume it with that build, or name another file",
                path.display()
            )))
        }
        _ => return Err(not()),
    }
    let (body, sum) = bytes.split_at(bytes.len() - 8);
    if fnv1a64(body).to_le_bytes() != sum {
        return Err(not());
    }
    let mut r = Reader::new(&body[MAGIC.len()..], "window checkpoint");
    if r.u8()? != VERSION {
        return Err(not());
    }
    let text = |r: &mut Reader| -> Result<String> {
        String::from_utf8(r.bytes()?.to_vec()).map_err(|_| r.damaged())
    };
    let ck = Checkpoint {
        code: text(&mut r)?,
        backend: text(&mut r)?,
        limit: r.usize()?,
        done: r.usize()?,
        window: Window {
            prefix: r.usize()?,
            tail: r.usize()?,
        },
        stream: r.bytes()?.to_vec(),
        kept: r.bytes()?.to_vec(),
        prefix: r.u16s()?,
        tail_from: r.usize()?,
        tail: r.u16s()?,
    };
    r.end()?;
    let consistent = ck.prefix.len() == ck.done.min(ck.window.prefix)
        && ck.tail_from >= ck.prefix.len()
        && ck.tail_from.checked_add(ck.tail.len()) == Some(ck.done);
    if !consistent {
        return Err(not());
    }
    Ok(ck)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Checkpoint {
        Checkpoint {
            code: "0.6".into(),
            backend: "auto".into(),
            limit: 100,
            done: 60,
            window: Window {
                prefix: 16,
                tail: 20,
            },
            stream: vec![1, 2, 3],
            kept: vec![],
            prefix: (0..16).collect(),
            tail_from: 32,
            tail: (32..60).collect(),
        }
    }

    #[test]
    fn a_checkpoint_reads_back_and_a_damaged_or_foreign_one_is_refused() {
        let dir = std::env::temp_dir().join(format!("nimsquare-wck-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("ck");
        let ck = sample();
        write_atomic(&path, &ck.parts()).unwrap();
        assert_eq!(read(&path).unwrap(), ck);
        ck.check("0.6", "auto", ck.window, 100).unwrap();
        ck.check("0.6", "auto", ck.window, 59).unwrap();
        for (code, backend, window, limit, says) in [
            ("0.7", "auto", ck.window, 100, "code"),
            ("0.6", "octal-block", ck.window, 100, "back-end"),
            (
                "0.6",
                "auto",
                Window {
                    prefix: 16,
                    tail: 21,
                },
                100,
                "window",
            ),
            ("0.6", "auto", ck.window, 58, "past N"),
        ] {
            let e = ck
                .check(code, backend, window, limit)
                .unwrap_err()
                .to_string();
            assert!(e.contains(says) && e.starts_with("--checkpoint"), "{e}");
        }
        let bytes = std::fs::read(&path).unwrap();
        for flip in [0, MAGIC.len() + 3, bytes.len() / 2, bytes.len() - 1] {
            let mut bad = bytes.clone();
            bad[flip] ^= 1;
            std::fs::write(&path, &bad).unwrap();
            let e = read(&path).unwrap_err().to_string();
            assert!(e.contains("not a window-mode checkpoint"), "{e}");
        }
        // Another layout version, its check made good: a newer one is named as such, one
        // before the first is damage.
        for (version, says) in [
            (2u8, "newer nimsquare"),
            (0, "not a window-mode checkpoint"),
        ] {
            let mut other = bytes[..bytes.len() - 8].to_vec();
            other[MAGIC.len()] = version;
            let sum = fnv1a64(&other);
            other.extend_from_slice(&sum.to_le_bytes());
            std::fs::write(&path, &other).unwrap();
            let e = read(&path).unwrap_err().to_string();
            assert!(e.contains(says) && e.starts_with("--checkpoint"), "{e}");
        }
        std::fs::write(&path, b"a table file, say").unwrap();
        assert!(read(&path).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
