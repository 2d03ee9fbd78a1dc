//! One measured point of the study, a row of the CSV. The csv crate does the quoting (the
//! CPU model and the subtraction set hold commas), serde maps the columns to fields.

use crate::base::error::{Error, Result};
use crate::base::provenance::Provenance;
use serde::{Deserialize, Serialize};

/// The CSV header, in the column order of every row (the field order of [`Row`], with the
/// fields of its [`Provenance`] in place).
pub const CSV_HEADER: &str = "backend,n,seconds_median,seconds_min,repeats,option_steps,ns_per_step,max_value,threads,moves,git_rev,cpu,isa,bound_ns_per_step,bound_resource,efficiency,load_start,load_end";

/// One measured point: a table back-end at one N, with the settings it was measured under.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub backend: String,
    pub n: u64,
    pub seconds_median: f64,
    pub seconds_min: f64,
    pub repeats: usize,
    pub option_steps: u128,
    pub ns_per_step: f64,
    pub max_value: u16,
    /// For the back-end `auto`, the one it picked at this N (printed, not a CSV column).
    #[serde(skip)]
    pub chosen: Option<String>,
    /// The columns `threads`, `moves`, `git_rev`, `cpu`, written in place (see
    /// [`Provenance`]).
    pub provenance: Provenance,
    /// The vector path the kernels took (`crate::base::isa::active().name()`).
    pub isa: String,
    /// The roofline bound of this back-end at this N ([`crate::instruments::roofline`]): its cost model's
    /// primitives at the rates measured at this N, per option step.
    pub bound_ns_per_step: f64,
    /// The resource that sets the bound (`store`, `load`, `bandwidth`, `alu`).
    pub bound_resource: String,
    /// bound_ns_per_step / ns_per_step: 1 at the bound, smaller the further from it.
    pub efficiency: f64,
    /// The machine's one-minute load average before the point's first build and after its
    /// last (NaN where the system reports none): a busy machine shows here.
    pub load_start: f64,
    pub load_end: f64,
}

impl Row {
    /// The row as one CSV line (no newline), in [`CSV_HEADER`]'s column order.
    pub fn to_csv(&self) -> String {
        let mut w = csv::WriterBuilder::new()
            .has_headers(false)
            .terminator(csv::Terminator::Any(b'\n'))
            .from_writer(Vec::new());
        w.serialize(self).expect("a row serializes to memory");
        let bytes = w.into_inner().expect("flushing to memory cannot fail");
        String::from_utf8(bytes)
            .expect("every field is UTF-8")
            .trim_end_matches('\n')
            .to_string()
    }

    /// Parses one line written by [`Row::to_csv`].
    pub fn parse(line: &str) -> Result<Row> {
        let record = crate::base::csvrecords::first(line)
            .ok_or_else(|| Error::Invalid("an empty CSV line".into()))?;
        let columns = CSV_HEADER.split(',').count();
        if record.len() != columns {
            return Err(Error::Invalid(format!(
                "expected {columns} CSV fields, found {}",
                record.len()
            )));
        }
        record
            .deserialize(None)
            .map_err(|e| Error::Invalid(e.to_string()))
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A row with every field filled, the CPU model holding a comma and quotes.
    pub(in crate::instruments::scaling) fn row(backend: &str, n: u64, seconds: f64) -> Row {
        Row {
            backend: backend.into(),
            n,
            seconds_median: seconds,
            seconds_min: seconds * 0.9,
            repeats: 3,
            option_steps: 12345,
            ns_per_step: 1.25,
            max_value: 74,
            chosen: None,
            provenance: Provenance {
                threads: 2,
                moves: "squares".into(),
                git_rev: "abc1234".into(),
                cpu: "AMD EPYC 7B13, \"quoted\" model".into(),
            },
            isa: "avx2".into(),
            bound_ns_per_step: 0.5,
            bound_resource: "store".into(),
            efficiency: 0.4,
            load_start: 1.5,
            load_end: 2.25,
        }
    }

    #[test]
    fn csv_round_trips_including_quoted_fields() {
        let mut r = Row {
            seconds_min: 0.1,
            ..row("value-bounded", 1_000_000, 0.123456789)
        };
        r.provenance.moves = "1,3,4".into();
        let line = r.to_csv();
        assert!(
            line.starts_with("value-bounded,1000000,0.123456789,"),
            "{line}"
        );
        assert!(line.contains(",\"1,3,4\","), "{line}");
        assert_eq!(Row::parse(&line).unwrap(), r);
        assert!(Row::parse("a,1,2").is_err());
        assert!(Row::parse("a,x,1,1,1,1,1,1,1,m,r,c,i,1,s,1").is_err());
        // A row of the version before the roofline columns is refused, not misread.
        assert!(Row::parse("a,1,1,1,1,1,1,1,1,m,r,c").is_err());
        assert!(line.ends_with(",avx2,0.5,store,0.4,1.5,2.25"), "{line}");
        // The load columns: a row of the version before them is refused, not misread.
        assert!(Row::parse(line.trim_end_matches(",1.5,2.25")).is_err());
    }

    #[test]
    fn the_nested_provenance_keeps_the_flat_format() {
        // The flat row, byte for byte: the provenance's four columns in place, between
        // max_value and isa, and the load averages last.
        let line = row("a", 1, 1.0).to_csv();
        assert_eq!(
            line,
            "a,1,1.0,0.9,3,12345,1.25,74,2,squares,abc1234,\"AMD EPYC 7B13, \"\"quoted\"\" model\",avx2,0.5,store,0.4,1.5,2.25"
        );
        assert_eq!(
            csv::ReaderBuilder::new()
                .has_headers(false)
                .from_reader(line.as_bytes())
                .records()
                .next()
                .unwrap()
                .unwrap()
                .len(),
            CSV_HEADER.split(',').count()
        );
    }
}
