//! A back-end's state as bytes, for a checkpoint: little-endian integers and length-prefixed
//! runs of them, written by [`Writer`] and read back by [`Reader`], whose every read is
//! checked (a short or damaged state is an error naming what it was reading, never a panic).
//!
//! Cost: one pass over the bytes. Invariant: `Reader` reads back exactly the sequence of
//! values a `Writer` wrote, in the same order and of the same kinds.

use crate::base::error::{Error, Result};

/// Appends values to a byte buffer.
#[derive(Debug, Default)]
pub struct Writer {
    bytes: Vec<u8>,
}

impl Writer {
    pub fn new() -> Writer {
        Writer::default()
    }

    pub fn u8(&mut self, v: u8) -> &mut Self {
        self.bytes.push(v);
        self
    }

    pub fn u64(&mut self, v: u64) -> &mut Self {
        self.bytes.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// A run of u16: its length, then each.
    pub fn u16s(&mut self, vs: &[u16]) -> &mut Self {
        self.u64(vs.len() as u64);
        self.bytes.extend(vs.iter().flat_map(|v| v.to_le_bytes()));
        self
    }

    /// A run of u32: its length, then each.
    pub fn u32s(&mut self, vs: &[u32]) -> &mut Self {
        self.u64(vs.len() as u64);
        self.bytes.extend(vs.iter().flat_map(|v| v.to_le_bytes()));
        self
    }

    /// A run of u64: its length, then each.
    pub fn u64s(&mut self, vs: &[u64]) -> &mut Self {
        self.u64(vs.len() as u64);
        self.bytes.extend(vs.iter().flat_map(|v| v.to_le_bytes()));
        self
    }

    /// Length-prefixed bytes.
    pub fn bytes(&mut self, b: &[u8]) -> &mut Self {
        self.u64(b.len() as u64);
        self.bytes.extend_from_slice(b);
        self
    }

    /// The bytes written.
    pub fn finish(self) -> Vec<u8> {
        self.bytes
    }
}

/// Reads back what a [`Writer`] wrote; `what` names the state in errors.
pub struct Reader<'a> {
    bytes: &'a [u8],
    what: &'static str,
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8], what: &'static str) -> Reader<'a> {
        Reader { bytes, what }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.bytes.len() {
            return Err(Error::Invalid(format!(
                "the saved {} is damaged (it ends early)",
                self.what
            )));
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }

    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }

    pub fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }

    /// A u64 that must fit in usize.
    pub fn usize(&mut self) -> Result<usize> {
        let v = self.u64()?;
        usize::try_from(v).map_err(|_| self.damaged())
    }

    /// The length of a run of `width`-byte items, checked against what is left.
    fn run(&mut self, width: usize) -> Result<usize> {
        let n = self.usize()?;
        if n.checked_mul(width).is_none_or(|b| b > self.bytes.len()) {
            return Err(self.damaged());
        }
        Ok(n)
    }

    pub fn u16s(&mut self) -> Result<Vec<u16>> {
        let n = self.run(2)?;
        let b = self.take(2 * n)?;
        Ok(b.chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect())
    }

    pub fn u32s(&mut self) -> Result<Vec<u32>> {
        let n = self.run(4)?;
        let b = self.take(4 * n)?;
        Ok(b.chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect())
    }

    pub fn u64s(&mut self) -> Result<Vec<u64>> {
        let n = self.run(8)?;
        let b = self.take(8 * n)?;
        Ok(b.chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect())
    }

    pub fn bytes(&mut self) -> Result<&'a [u8]> {
        let n = self.run(1)?;
        self.take(n)
    }

    /// Refuses bytes left over (a state of another format).
    pub fn end(&self) -> Result<()> {
        if self.bytes.is_empty() {
            Ok(())
        } else {
            Err(self.damaged())
        }
    }

    /// The error of a state that does not read as one.
    pub fn damaged(&self) -> Error {
        Error::Invalid(format!("the saved {} is damaged", self.what))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_written_reads_back_and_a_short_or_long_state_is_refused() {
        let mut w = Writer::new();
        w.u8(7)
            .u64(u64::MAX - 3)
            .u16s(&[1, 65535])
            .u32s(&[])
            .u64s(&[5, 6])
            .bytes(b"xyz");
        let bytes = w.finish();
        let mut r = Reader::new(&bytes, "test state");
        assert_eq!(r.u8().unwrap(), 7);
        assert_eq!(r.u64().unwrap(), u64::MAX - 3);
        assert_eq!(r.u16s().unwrap(), [1, 65535]);
        assert_eq!(r.u32s().unwrap(), Vec::<u32>::new());
        assert_eq!(r.u64s().unwrap(), [5, 6]);
        assert_eq!(r.bytes().unwrap(), b"xyz");
        r.end().unwrap();
        for cut in 0..bytes.len() {
            let mut r = Reader::new(&bytes[..cut], "test state");
            let read = (|| -> Result<()> {
                r.u8()?;
                r.u64()?;
                r.u16s()?;
                r.u32s()?;
                r.u64s()?;
                r.bytes()?;
                r.end()
            })();
            let e = read.expect_err("short").to_string();
            assert!(e.contains("test state") && e.contains("damaged"), "{e}");
        }
        let mut long = bytes.clone();
        long.push(0);
        let mut r = Reader::new(&long, "test state");
        r.u8().unwrap();
        r.u64().unwrap();
        r.u16s().unwrap();
        r.u32s().unwrap();
        r.u64s().unwrap();
        r.bytes().unwrap();
        assert!(r.end().is_err());
        // a run length past the bytes left is refused before any allocation
        let mut huge = Writer::new();
        huge.u64(u64::MAX / 2);
        let bytes = huge.finish();
        assert!(Reader::new(&bytes, "test state").u64s().is_err());
    }
}
