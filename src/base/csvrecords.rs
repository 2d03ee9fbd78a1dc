//! The records of a CSV text, read by a parser built once per thread and reused.
//!
//! `csv::ReaderBuilder::from_reader` builds its parser's state machine (a table over the
//! 256 byte values for each state) every time it is called, which costs some hundred times
//! the parse of a short row; the readers of row files (census rows, study logs) parse one
//! line, or one small text, at a time. Here each thread keeps a built `csv_core` parser,
//! which [`Records`] borrows, resets and gives back when dropped (a second [`Records`] alive
//! at once builds its own). `csv_core::Reader`'s `Clone` cannot stand in: it copies only part
//! of the machine (csv-core 0.1.13). Cost: linear in the text.
//!
//! Invariant: [`Records`] yields the records, and [`first`] the first record, that
//! `csv::ReaderBuilder::new().has_headers(false).flexible(true)` yields for the same text
//! (the csv crate's defaults otherwise: `,` between fields, `"` quoting with doubled quotes,
//! any of `\r`, `\n`, `\r\n` ending a record, lines with nothing on them skipped, a leading
//! byte-order mark dropped); the tests check it on random texts. Record length is not
//! checked here: each caller says what a wrong length means.

use std::cell::Cell;

thread_local! {
    /// The thread's built parser, while no [`Records`] holds it.
    static SPARE: Cell<Option<Box<csv_core::Reader>>> = const { Cell::new(None) };
}

/// The records of a text, each with the line its reading began on, counted from 1 (the csv
/// crate's position): the line the record before it ended on, so blank lines just before a
/// record are not counted.
pub struct Records<'a> {
    parser: Option<Box<csv_core::Reader>>,
    rest: &'a [u8],
    ended: bool,
}

/// The records of `text`.
pub fn records(text: &str) -> Records<'_> {
    let parser = match SPARE.take() {
        Some(mut built) => {
            built.reset();
            built
        }
        None => Box::new(csv_core::Reader::new()),
    };
    Records {
        parser: Some(parser),
        rest: text.as_bytes(),
        ended: false,
    }
}

/// The first record of `text` (a line of a rows file), or none if it holds none.
pub fn first(text: &str) -> Option<csv::StringRecord> {
    records(text).next().map(|(_, record)| record)
}

impl Drop for Records<'_> {
    fn drop(&mut self) {
        SPARE.set(self.parser.take());
    }
}

impl Iterator for Records<'_> {
    type Item = (u64, csv::StringRecord);

    fn next(&mut self) -> Option<Self::Item> {
        use csv_core::ReadRecordResult::*;
        let parser = self.parser.as_mut()?;
        if self.ended {
            return None;
        }
        let line = parser.line();
        let mut bytes = vec![0u8; 256];
        let mut ends = vec![0usize; 16];
        let (mut wrote, mut ended) = (0, 0);
        loop {
            let (result, read, out, fields) =
                parser.read_record(self.rest, &mut bytes[wrote..], &mut ends[ended..]);
            self.rest = &self.rest[read..];
            wrote += out;
            ended += fields;
            match result {
                // An empty input is the end of the text: the next call says so to the parser.
                InputEmpty => continue,
                OutputFull => bytes.resize(2 * bytes.len(), 0),
                OutputEndsFull => ends.resize(2 * ends.len(), 0),
                Record => break,
                End => {
                    self.ended = true;
                    return None;
                }
            }
        }
        let mut record = csv::ByteRecord::with_capacity(wrote, ended);
        let mut start = 0;
        for &end in &ends[..ended] {
            record.push_field(&bytes[start..end]);
            start = end;
        }
        // The text was UTF-8 and fields are cut only at ASCII bytes, so nothing is replaced.
        Some((line, csv::StringRecord::from_byte_record_lossy(record)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The csv crate's records of `text`, with their lines.
    fn crate_records(text: &str) -> Vec<(u64, csv::StringRecord)> {
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(text.as_bytes());
        let mut found = Vec::new();
        let mut record = csv::StringRecord::new();
        loop {
            let line = reader.position().line();
            match reader.read_record(&mut record) {
                Ok(true) => found.push((line, record.clone())),
                Ok(false) => return found,
                Err(e) => panic!("the csv crate refused {text:?}: {e}"),
            }
        }
    }

    #[test]
    fn known_records() {
        let text = "a,\"b,\"\"c\"\"\",\r\n\n\nx\n\"multi\nline\",é\n";
        let found: Vec<_> = records(text)
            .map(|(line, r)| (line, r.iter().map(str::to_string).collect::<Vec<_>>()))
            .collect();
        let fields = |f: &[&str]| f.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            found,
            vec![
                (1, fields(&["a", "b,\"c\"", ""])),
                (1, fields(&["x"])),
                (5, fields(&["multi\nline", "é"])),
            ]
        );
        assert!(first("").is_none());
        assert!(first("\r\n\n").is_none());
        assert_eq!(first("1,2\n3").unwrap().len(), 2);
    }

    #[test]
    fn records_alive_at_once_do_not_share_a_parser() {
        let mut outer = records("a\nb\n");
        assert_eq!(outer.next().unwrap().1.get(0), Some("a"));
        assert_eq!(first("c,d").unwrap().get(1), Some("d"));
        assert_eq!(
            outer.next().unwrap(),
            (2, csv::StringRecord::from(vec!["b"]))
        );
        assert!(outer.next().is_none());
        assert_eq!(first("\u{feff}e").unwrap().get(0), Some("e"));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn agrees_with_the_csv_crate(text in "\u{feff}?[a\",\r\n é]{0,40}") {
            let ours: Vec<_> = records(&text).collect();
            prop_assert_eq!(ours, crate_records(&text));
        }
    }
}
