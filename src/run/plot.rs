//! The picture of a table: g(n) against n as an SVG, drawn from the values as they stream
//! past, so a plot of 2^33 values costs no more memory than a plot of 2^10.
//!
//! [`ValuePlot`] takes the values in order ([`ValuePlot::push`]) and keeps, for two sets of
//! columns, what each column saw: the linear columns (`Columns` of 2^s positions each,
//! merged in pairs whenever there are [`MAX_BUCKETS`] of them, so that they always number
//! between [`COLUMNS`] and twice that) and the logarithmic ones (one for each n below 64,
//! then 64 an octave, whatever N is, for `log_x`). A column keeps the least and the largest
//! value it saw and, for the values below [`CLASS_VALUES`], which (value, parity of n) pairs
//! occurred: the rare/common split of an octal game is a function of that pair alone
//! ([`Mask::rare`]), so the rare and the common range of every column can be drawn under the
//! mask the run settles on at its end, which a stream does not know when it starts. Beside
//! the columns, the positions of each (value, parity) class are kept exactly until the
//! classes hold [`POSITIONS_KEPT`] in all; then the largest class is dropped for good (a
//! class that large is common under any mask worth drawing), so the rare positions of a
//! sparse game are drawn one mark each ([`RARE_DRAWN`] at most; past that, as the rare range
//! of each column).
//!
//! Cost: O(1) a value pushed (two column updates and a class test); memory fixed: at most
//! `MAX_BUCKETS` + 64 · 35 columns of `CLASS_VALUES` / 4 bytes each and `POSITIONS_KEPT`
//! positions, under 1.5 MB for any N up to 2^40.
//!
//! Invariant: every value pushed is inside the range of exactly one column of each set, and a
//! position is in the kept classes exactly when its class was never dropped; so what is drawn
//! covers every value and a mark is drawn at n only when n is rare.
//!
//! The drawing ([`ValuePlot::svg`]) uses plotters for the frame, the axes and their labels;
//! the marks are written as SVG elements that carry their data (`data-n`, `data-g` on a rare
//! mark, `data-preperiod`/`data-period` on the period), so a browser shows n and g(n) on
//! hover and a test reads the picture back. Text is SVG `<text>`: no system font is needed.

use crate::base::error::{Error, Result};
use crate::base::paths::{write_output, Output};
use crate::octal::method::period::Verdict;
use crate::octal::method::rare_common::Mask;
use crate::octal::summary::Summary;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::collections::HashMap;
use std::fmt::Write as _;

/// The least number of linear columns once N is past it (the plot is about this wide).
pub const COLUMNS: usize = 1024;
/// The linear columns are merged in pairs when they reach this many.
pub const MAX_BUCKETS: usize = 2 * COLUMNS;
/// Values below this are kept by class (value and parity of n) in every column.
pub const CLASS_VALUES: usize = 512;
/// Positions kept exactly, over all classes.
pub const POSITIONS_KEPT: usize = 1 << 16;
/// Rare positions drawn one mark each; more are drawn as each column's rare range.
pub const RARE_DRAWN: usize = 4096;
/// Runs of values drawn in all (a few hundred kilobytes of SVG); past it each column is
/// drawn from its least to its largest value.
pub const RUNS_DRAWN: usize = 100_000;
/// Logarithmic columns an octave past n = 64.
const LOG_PER_OCTAVE: usize = 64;

/// The class words of a column: bit `2 v + p` set when a value v < [`CLASS_VALUES`] occurred
/// at a position of parity p.
const CLASS_WORDS: usize = 2 * CLASS_VALUES / 64;

/// What one column saw.
#[derive(Clone)]
struct Bucket {
    min: u16,
    max: u16,
    /// The least and largest value at or above [`CLASS_VALUES`] (min > max: none).
    high: (u16, u16),
    classes: [u64; CLASS_WORDS],
}

impl Bucket {
    const EMPTY: Bucket = Bucket {
        min: u16::MAX,
        max: 0,
        high: (u16::MAX, 0),
        classes: [0; CLASS_WORDS],
    };

    #[inline]
    fn add(&mut self, n: usize, v: u16) {
        self.min = self.min.min(v);
        self.max = self.max.max(v);
        if (v as usize) < CLASS_VALUES {
            let bit = 2 * v as usize + (n & 1);
            self.classes[bit / 64] |= 1 << (bit % 64);
        } else {
            self.high = (self.high.0.min(v), self.high.1.max(v));
        }
    }

    fn merge(&mut self, other: &Bucket) {
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        self.high = (self.high.0.min(other.high.0), self.high.1.max(other.high.1));
        for (a, b) in self.classes.iter_mut().zip(&other.classes) {
            *a |= b;
        }
    }

    /// The runs of consecutive values (least, largest) of the column that are rare (`rare`)
    /// or common under `mask` (without a mask: every value is common), in increasing
    /// order; values at or above [`CLASS_VALUES`] count as common (their parity is not
    /// kept) and make one run from their least to their largest.
    fn runs(&self, mask: Option<Mask>, rare: bool) -> Vec<(u16, u16)> {
        let mut runs: Vec<(u16, u16)> = Vec::new();
        for (w, &word) in self.classes.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let bit = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let (v, parity) = ((bit / 2) as u16, bit % 2);
                let is_rare = mask.is_some_and(|m| m.rare(v as u32, parity));
                // both parities of one value come one after the other: added once
                match runs.last_mut() {
                    _ if is_rare != rare => {}
                    Some(last) if last.1 == v => {}
                    Some(last) if last.1 + 1 == v => last.1 = v,
                    _ => runs.push((v, v)),
                }
            }
        }
        if !rare && self.high.0 <= self.high.1 {
            runs.push(self.high);
        }
        runs
    }

    /// The (least, largest) value of [`Bucket::runs`], None when there is none.
    #[cfg(test)]
    fn range(&self, mask: Option<Mask>, rare: bool) -> Option<(u16, u16)> {
        let runs = self.runs(mask, rare);
        Some((runs.first()?.0, runs.last()?.1))
    }
}

/// A set of columns over the positions: linear (2^shift positions each) or logarithmic.
#[derive(Clone)]
struct Columns {
    buckets: Vec<Bucket>,
    /// Linear: log2 of the positions a column; None: logarithmic.
    shift: Option<u32>,
}

impl Columns {
    /// The logarithmic column of position n: n itself below 64, then 64 an octave.
    fn log_index(n: usize) -> usize {
        if n < LOG_PER_OCTAVE {
            return n;
        }
        let k = n.ilog2() as usize;
        let lead = LOG_PER_OCTAVE.ilog2() as usize;
        LOG_PER_OCTAVE + (k - lead) * LOG_PER_OCTAVE + ((n >> (k - lead)) - LOG_PER_OCTAVE)
    }

    /// The positions [lo, hi] of column `i`.
    fn span(&self, i: usize) -> (usize, usize) {
        match self.shift {
            Some(s) => (i << s, ((i + 1) << s) - 1),
            None if i < LOG_PER_OCTAVE => (i, i),
            None => {
                let lead = LOG_PER_OCTAVE.ilog2() as usize;
                let octave = (i - LOG_PER_OCTAVE) / LOG_PER_OCTAVE + lead;
                let within = (i - LOG_PER_OCTAVE) % LOG_PER_OCTAVE + LOG_PER_OCTAVE;
                let width = 1usize << (octave - lead);
                (within * width, (within + 1) * width - 1)
            }
        }
    }

    #[inline]
    fn add(&mut self, n: usize, v: u16) {
        let i = match self.shift {
            Some(s) => n >> s,
            None => Self::log_index(n),
        };
        if i >= self.buckets.len() {
            self.buckets.resize(i + 1, Bucket::EMPTY);
        }
        self.buckets[i].add(n, v);
    }

    /// Halves the linear columns (pairs merged) while they are too many.
    fn settle(&mut self) {
        let Some(shift) = self.shift.as_mut() else {
            return;
        };
        while self.buckets.len() >= MAX_BUCKETS {
            let merged: Vec<Bucket> = self
                .buckets
                .chunks(2)
                .map(|pair| {
                    let mut b = pair[0].clone();
                    if let Some(second) = pair.get(1) {
                        b.merge(second);
                    }
                    b
                })
                .collect();
            self.buckets = merged;
            *shift += 1;
        }
    }
}

/// The exact positions of each (value, parity) class, until a class is dropped.
#[derive(Clone, Default)]
struct Classes {
    kept: HashMap<u32, Vec<u64>>,
    /// The dropped classes below 2 [`CLASS_VALUES`] as bits, the others in `dropped_high`.
    dropped: Vec<u64>,
    dropped_high: std::collections::HashSet<u32>,
    total: usize,
}

impl Classes {
    fn new() -> Classes {
        Classes {
            dropped: vec![0; CLASS_WORDS],
            ..Classes::default()
        }
    }

    fn class(n: usize, v: u16) -> u32 {
        2 * v as u32 + (n & 1) as u32
    }

    fn is_dropped(&self, class: u32) -> bool {
        match self.dropped.get(class as usize / 64) {
            Some(word) => word >> (class % 64) & 1 == 1,
            None => self.dropped_high.contains(&class),
        }
    }

    fn drop_class(&mut self, class: u32) {
        if let Some(positions) = self.kept.remove(&class) {
            self.total -= positions.len();
        }
        match self.dropped.get_mut(class as usize / 64) {
            Some(word) => *word |= 1 << (class % 64),
            None => {
                self.dropped_high.insert(class);
            }
        }
    }

    #[inline]
    fn add(&mut self, n: usize, v: u16) {
        let class = Self::class(n, v);
        if self.is_dropped(class) {
            return;
        }
        self.kept.entry(class).or_default().push(n as u64);
        self.total += 1;
        if self.total > POSITIONS_KEPT {
            let largest = self
                .kept
                .iter()
                .max_by_key(|(c, p)| (p.len(), std::cmp::Reverse(**c)))
                .map(|(c, _)| *c)
                .expect("a class is kept");
            self.drop_class(largest);
        }
    }

    /// The rare positions under `mask` with their values, in order, or None when a rare
    /// class was dropped (they are then more than were kept).
    fn rare(&self, mask: Mask) -> Option<Vec<(u64, u16)>> {
        let is_rare = |class: u32| mask.rare(class / 2, (class % 2) as usize);
        let dropped_rare = (0..(CLASS_WORDS * 64) as u32)
            .filter(|&c| self.is_dropped(c))
            .chain(self.dropped_high.iter().copied())
            .any(is_rare);
        if dropped_rare {
            return None;
        }
        let mut out: Vec<(u64, u16)> = self
            .kept
            .iter()
            .filter(|(c, _)| is_rare(**c))
            .flat_map(|(c, p)| p.iter().map(move |&n| (n, (*c / 2) as u16)))
            .collect();
        out.sort_unstable();
        Some(out)
    }
}

/// The plot of g(0), g(1), ... as the values arrive (see the module doc).
#[derive(Clone)]
pub struct ValuePlot {
    linear: Columns,
    log: Columns,
    classes: Classes,
    len: usize,
    max: u16,
}

impl Default for ValuePlot {
    fn default() -> Self {
        ValuePlot::new()
    }
}

/// How a [`ValuePlot`] is drawn.
#[derive(Debug, Clone, Default)]
pub struct Drawing {
    /// The line above the plot (the game and N).
    pub title: String,
    /// The rare/common split to mark, if the game has one.
    pub mask: Option<Mask>,
    /// The proved period: (preperiod e, period p), g(n + p) = g(n) for n >= e.
    pub period: Option<(usize, usize)>,
    /// A logarithmic n axis (n = 0 is then left out).
    pub log_x: bool,
}

impl Drawing {
    /// The drawing of an octal game's table to N = `limit` whose summary is `summary`: its
    /// rare/common split and, when one was proved, its period.
    pub fn octal(label: &str, limit: usize, summary: &Summary, log_x: bool) -> Drawing {
        let period = match &summary.verdict {
            Some(Verdict::Periodic(p)) => Some((p.preperiod, p.period)),
            _ => None,
        };
        Drawing {
            title: format!("octal game {label}: g(n) for 0 <= n <= {limit}"),
            mask: summary.split.mask,
            period,
            log_x,
        }
    }

    /// The drawing of a game with no rare/common split (a subtraction game), titled with
    /// what the game is.
    pub fn plain(game: &str, limit: usize, log_x: bool) -> Drawing {
        Drawing {
            title: format!("{game}: g(n) for 0 <= n <= {limit}"),
            log_x,
            ..Drawing::default()
        }
    }
}

/// Where `--plot FILE` writes, decided before any work ([`crate::base::paths::decide_output`]
/// without `--force`: an existing file is never replaced); `-` is refused, since standard
/// output carries the report.
pub fn decide_output(path: &std::path::Path) -> Result<Output> {
    if path.as_os_str() == "-" {
        return Err(Error::Invalid(
            "--plot -: standard output carries the report; give the picture a file name, such as values.svg".into(),
        ));
    }
    crate::base::paths::decide_output(path, "--plot", None)
}

/// A column's first and last position and its runs of values.
type ColumnRuns = (usize, usize, Vec<(u16, u16)>);

/// The picture's size in pixels.
const SIZE: (u32, u32) = (1280, 640);
const COMMON: RGBColor = RGBColor(40, 70, 130);
const RARE: RGBColor = RGBColor(215, 40, 40);
const PERIOD: RGBColor = RGBColor(20, 140, 60);
const FONT: (&str, u32) = ("sans-serif", 15);

impl ValuePlot {
    /// An empty plot, before g(0).
    pub fn new() -> ValuePlot {
        ValuePlot {
            linear: Columns {
                buckets: Vec::new(),
                shift: Some(0),
            },
            log: Columns {
                buckets: Vec::new(),
                shift: None,
            },
            classes: Classes::new(),
            len: 0,
            max: 0,
        }
    }

    /// The plot of `values` = g(0..values.len()).
    pub fn of(values: &[u16]) -> ValuePlot {
        let mut plot = ValuePlot::new();
        plot.push(values);
        plot
    }

    /// Values pushed so far: the next value pushed is g(len).
    pub fn len(&self) -> usize {
        self.len
    }

    /// True before any value.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Adds the next values g(len), g(len + 1), ...
    pub fn push(&mut self, values: &[u16]) {
        // At most MAX_BUCKETS / 2 columns are added between two settles, so the linear
        // columns never hold more than 1.5 MAX_BUCKETS.
        let per = (MAX_BUCKETS / 2) << self.linear.shift.unwrap_or(0);
        for chunk in values.chunks(per.max(1)) {
            for (i, &v) in chunk.iter().enumerate() {
                let n = self.len + i;
                self.linear.add(n, v);
                self.log.add(n, v);
                self.classes.add(n, v);
                self.max = self.max.max(v);
            }
            self.len += chunk.len();
            self.linear.settle();
        }
    }

    /// The rare positions under `mask` and their values when every one was kept, else None.
    pub fn rare_positions(&self, mask: Mask) -> Option<Vec<(u64, u16)>> {
        self.classes.rare(mask)
    }

    /// The picture as SVG text. Refused for an empty plot.
    pub fn svg(&self, how: &Drawing) -> Result<String> {
        if self.is_empty() || (how.log_x && self.len < 2) {
            return Err(Error::Invalid(
                "a plot needs at least one value (two on a log axis)".into(),
            ));
        }
        let rare_marks = how
            .mask
            .and_then(|m| self.rare_positions(m))
            .filter(|r| r.len() <= RARE_DRAWN);
        let mut svg = String::new();
        let mut marks = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
            self.draw(&root, how, rare_marks.as_deref(), &mut marks)
                .map_err(|e| Error::Invalid(format!("drawing the plot: {e}")))?;
        }
        // The marks go in last, over the frame and the grid, each carrying its data.
        let end = svg
            .rfind("</svg>")
            .ok_or_else(|| Error::Invalid("the SVG back-end wrote no closing tag".into()))?;
        svg.insert_str(end, &marks);
        Ok(svg)
    }

    /// Writes the picture to `out` (decided before any work, [`crate::base::paths::decide_output`]),
    /// whole or not at all; a failure names `flag`.
    pub fn write(&self, how: &Drawing, out: &Output, flag: &str) -> Result<()> {
        let svg = self.svg(how)?;
        write_output(out, flag, |w| w.write_all(svg.as_bytes()))
    }

    fn draw<'a>(
        &self,
        root: &DrawingArea<SVGBackend<'a>, Shift>,
        how: &Drawing,
        rare_marks: Option<&[(u64, u16)]>,
        marks: &mut String,
    ) -> std::result::Result<(), Box<dyn std::error::Error + 'a>> {
        root.fill(&WHITE)?;
        let last = (self.len - 1) as f64;
        let top = self.max as f64 + 1.0;
        let mut builder = ChartBuilder::on(root);
        builder
            .caption(&how.title, ("sans-serif", 20))
            .margin(14)
            .x_label_area_size(48)
            .y_label_area_size(60);
        let columns = if how.log_x { &self.log } else { &self.linear };
        let legend = self.legend(how, rare_marks);
        if how.log_x {
            let mut ctx = builder.build_cartesian_2d((1.0..last.max(2.0)).log_scale(), 0.0..top)?;
            ctx.configure_mesh()
                .x_desc(format!("n, log scale ({legend}; n = 0 not drawn)"))
                .y_desc("g(n)")
                .light_line_style(TRANSPARENT)
                .axis_desc_style(FONT)
                .x_label_formatter(&|x| format!("{x:.0}"))
                .y_label_formatter(&|y| format!("{y:.0}"))
                .draw()?;
            let at = |x: f64, y: f64| ctx.backend_coord(&(x.max(1.0), y));
            self.marks(columns, how, rare_marks, &at, marks);
        } else {
            let mut ctx = builder.build_cartesian_2d(0.0..last.max(1.0), 0.0..top)?;
            ctx.configure_mesh()
                .x_desc(format!("n ({legend})"))
                .y_desc("g(n)")
                .light_line_style(TRANSPARENT)
                .axis_desc_style(FONT)
                .x_label_formatter(&|x| format!("{x:.0}"))
                .y_label_formatter(&|y| format!("{y:.0}"))
                .draw()?;
            let at = |x: f64, y: f64| ctx.backend_coord(&(x, y));
            self.marks(columns, how, rare_marks, &at, marks);
        }
        root.present()?;
        Ok(())
    }

    /// What the colours mean, one line under the n axis.
    fn legend(&self, how: &Drawing, rare_marks: Option<&[(u64, u16)]>) -> String {
        let mut parts = Vec::new();
        match (how.mask, rare_marks) {
            (Some(m), Some(r)) => parts.push(format!(
                "blue: common values, red dots: the {} rare positions (mask {m})",
                r.len()
            )),
            (Some(m), None) => {
                parts.push(format!("blue: common values, red: rare values (mask {m})"))
            }
            (None, _) => parts.push("the values of each column".into()),
        }
        if let Some((e, p)) = how.period {
            parts.push(format!("green: period {p} from n = {e}"));
        }
        parts.join("; ")
    }

    /// The data marks, in SVG: each column's common values (and its rare ones, when the rare
    /// positions are too many for a dot each) as strokes over each run of values, each kept
    /// rare position as a dot, and the period's start and first repeat as lines.
    fn marks(
        &self,
        columns: &Columns,
        how: &Drawing,
        rare_marks: Option<&[(u64, u16)]>,
        at: &dyn Fn(f64, f64) -> (i32, i32),
        out: &mut String,
    ) {
        let last = self.len - 1;
        let rgb = |c: RGBColor| format!("rgb({},{},{})", c.0, c.1, c.2);
        // one value's height in pixels, for the runs' ends
        let unit = (at(0.0, 0.0).1 - at(0.0, 1.0).1).abs() as f64;
        let half = (unit / 2.0).max(0.5);
        let start = how.log_x as usize;
        // The columns of one set as one path each: a vertical stroke a column wide for each
        // run of values, or for each column's least to largest value when the runs are too
        // many for a file of a few megabytes.
        let column_runs = |rare: bool| -> Vec<ColumnRuns> {
            let mut all: Vec<ColumnRuns> = columns
                .buckets
                .iter()
                .enumerate()
                .map(|(i, b)| (columns.span(i), b))
                .filter(|&((lo, hi), _)| hi >= start && lo <= last)
                .map(|((lo, hi), b)| (lo.max(start), hi.min(last), b.runs(how.mask, rare)))
                .filter(|(_, _, runs)| !runs.is_empty())
                .collect();
            if all.iter().map(|c| c.2.len()).sum::<usize>() > RUNS_DRAWN {
                for (_, _, runs) in &mut all {
                    *runs = vec![(runs[0].0, runs[runs.len() - 1].1)];
                }
            }
            all
        };
        let strokes = |out: &mut String, class: &str, c: RGBColor, rare: bool| {
            let _ = write!(
                out,
                r#"<g class="{class}" stroke="{}" fill="none">"#,
                rgb(c)
            );
            for (lo, hi, runs) in column_runs(rare) {
                let x0 = at(lo as f64, 0.0).0 as f64;
                let x1 = at(hi as f64, 0.0).0 as f64;
                let width = (x1 - x0).max(1.0);
                let _ = write!(out, r#"<path stroke-width="{width}" d=""#);
                // the first run absolute, the others relative to the end of the one before
                let mut y = None;
                for (a, b) in runs {
                    let ya = (at(lo as f64, a as f64).1 as f64 + half).round();
                    let yb = (at(lo as f64, b as f64).1 as f64 - half).round();
                    let _ = match y {
                        None => write!(out, "M{:.1} {ya}v{}", (x0 + x1) / 2.0, yb - ya),
                        Some(y) => write!(out, "m0 {}v{}", ya - y, yb - ya),
                    };
                    y = Some(yb);
                }
                out.push_str("\"/>");
            }
            out.push_str("</g>\n");
        };
        strokes(out, "common", COMMON, false);
        if how.mask.is_some() {
            match rare_marks {
                Some(rare) => {
                    out.push_str(r#"<g class="rare">"#);
                    for &(n, v) in rare {
                        if how.log_x && n == 0 {
                            continue;
                        }
                        let (x, y) = at(n as f64, v as f64);
                        let _ = write!(
                            out,
                            r#"<circle cx="{x}" cy="{y}" r="3" fill="{}" data-n="{n}" data-g="{v}"><title>g({n}) = {v}</title></circle>"#,
                            rgb(RARE)
                        );
                    }
                    out.push_str("</g>\n");
                }
                None => strokes(out, "rare-ranges", RARE, true),
            }
        }
        if let Some((e, p)) = how.period {
            let _ = write!(
                out,
                r#"<g class="period" data-preperiod="{e}" data-period="{p}" stroke="{}" stroke-width="2">"#,
                rgb(PERIOD)
            );
            let top = self.max as f64 + 1.0;
            for (n, what) in [(e, "start of the period"), (e + p, "first repeat")] {
                if n > last || (how.log_x && n == 0) {
                    continue;
                }
                let (x, y0) = at(n as f64, 0.0);
                let (_, y1) = at(n as f64, top);
                let _ = write!(
                    out,
                    r#"<line x1="{x}" y1="{y0}" x2="{x}" y2="{y1}" data-n="{n}"><title>n = {n}: {what} (period {p} from n = {e})</title></line>"#
                );
            }
            out.push_str("</g>\n");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A naive rare list: the positions whose value is rare under `mask`.
    fn rare_naive(values: &[u16], mask: Mask) -> Vec<(u64, u16)> {
        (0..values.len())
            .filter(|&n| mask.rare(values[n] as u32, n))
            .map(|n| (n as u64, values[n]))
            .collect()
    }

    fn values(len: usize, seed: u64) -> Vec<u16> {
        let mut x = seed | 1;
        (0..len)
            .map(|n| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // mostly values with an odd number of bits in 0b11, a few with an even one
                let v = (x % 300) as u16;
                if x.is_multiple_of(97) || n % 1000 == 3 {
                    v & !3
                } else {
                    (v & !3) | 1
                }
            })
            .collect()
    }

    #[test]
    fn log_columns_tile_the_positions_in_order() {
        let cols = Columns {
            buckets: Vec::new(),
            shift: None,
        };
        let mut next = 0usize;
        for i in 0..64 * 20 {
            let (lo, hi) = cols.span(i);
            assert_eq!(lo, next, "column {i}");
            assert!(hi >= lo);
            for n in [lo, hi, (lo + hi) / 2] {
                assert_eq!(Columns::log_index(n), i, "n = {n}");
            }
            next = hi + 1;
        }
    }

    #[test]
    fn every_value_lies_in_its_linear_column_and_columns_stay_bounded() {
        let g = values(300_000, 7);
        let mut plot = ValuePlot::new();
        // pushed in uneven pieces, as a stream's chunks come
        let mut from = 0;
        for step in [1, 999, 65_536, 3, 100_000, 133_461] {
            plot.push(&g[from..from + step]);
            from += step;
        }
        assert_eq!(plot.len(), g.len());
        let cols = &plot.linear;
        assert!(cols.buckets.len() >= COLUMNS / 2 && cols.buckets.len() < MAX_BUCKETS);
        for (n, &v) in g.iter().enumerate() {
            let s = cols.shift.unwrap();
            let b = &cols.buckets[n >> s];
            assert!(b.min <= v && v <= b.max, "n = {n}");
        }
        // each column's range is its values' least and largest, recounted from the values
        let s = cols.shift.unwrap();
        for (i, b) in cols.buckets.iter().enumerate() {
            let (lo, hi) = cols.span(i);
            let part = &g[lo.min(g.len())..(hi + 1).min(g.len())];
            if part.is_empty() {
                continue;
            }
            assert_eq!(
                (b.min, b.max),
                (*part.iter().min().unwrap(), *part.iter().max().unwrap()),
                "column {i} of 2^{s}"
            );
        }
    }

    #[test]
    fn rare_positions_are_the_naive_ones_under_any_mask() {
        let g = values(200_000, 11);
        let plot = ValuePlot::of(&g);
        for mask in [Mask::value(3), Mask::position(2, 1), Mask::position(1, 0)] {
            let naive = rare_naive(&g, mask);
            match plot.rare_positions(mask) {
                Some(kept) => assert_eq!(kept, naive, "mask {mask}"),
                // a class was dropped: only when the rare positions outnumber what is kept
                None => assert!(naive.len() > POSITIONS_KEPT / 2, "mask {mask}"),
            }
        }
        // value mask 3: values with an even popcount of v & 3 are the ~1% rare ones here
        assert!(plot.rare_positions(Mask::value(3)).is_some());
    }

    #[test]
    fn each_columns_runs_are_its_rare_or_common_values_by_the_mask() {
        let g = values(50_000, 5);
        let plot = ValuePlot::of(&g);
        let cols = &plot.linear;
        for mask in [Mask::value(3), Mask::position(2, 1)] {
            for (i, b) in cols.buckets.iter().enumerate() {
                let (lo, hi) = cols.span(i);
                for rare in [true, false] {
                    // the distinct values of the column in this set, recounted, as runs
                    let mut vs: Vec<u16> = (lo..=hi.min(g.len() - 1))
                        .filter(|&n| mask.rare(g[n] as u32, n) == rare)
                        .map(|n| g[n])
                        .collect();
                    vs.sort_unstable();
                    vs.dedup();
                    let mut want: Vec<(u16, u16)> = Vec::new();
                    for v in vs {
                        match want.last_mut() {
                            Some(r) if r.1 + 1 == v => r.1 = v,
                            _ => want.push((v, v)),
                        }
                    }
                    assert_eq!(b.runs(Some(mask), rare), want, "column {i}, rare {rare}");
                    let range = want.first().map(|f| (f.0, want.last().unwrap().1));
                    assert_eq!(b.range(Some(mask), rare), range);
                }
            }
        }
    }

    #[test]
    fn the_svg_carries_every_rare_position_and_the_period() {
        let g = values(20_000, 3);
        let plot = ValuePlot::of(&g);
        let mask = Mask::value(3);
        let how = Drawing {
            title: "test".into(),
            mask: Some(mask),
            period: Some((1234, 56)),
            log_x: false,
        };
        let svg = plot.svg(&how).unwrap();
        let drawn: Vec<u64> = svg
            .split("<circle")
            .skip(1)
            .map(|c| {
                let at = c.find("data-n=\"").unwrap() + 8;
                c[at..at + c[at..].find('"').unwrap()].parse().unwrap()
            })
            .collect();
        let naive: Vec<u64> = rare_naive(&g, mask).iter().map(|r| r.0).collect();
        assert_eq!(drawn, naive);
        assert!(svg.contains(r#"data-preperiod="1234" data-period="56""#));
        assert!(svg.contains(r#"data-n="1290""#));
        assert!(svg.len() < 2_000_000);
        let log = plot
            .svg(&Drawing {
                log_x: true,
                ..how.clone()
            })
            .unwrap();
        assert!(log.contains("<circle") && !log.contains(r#"data-n="0" data-g"#));
    }

    #[test]
    fn an_empty_plot_is_refused() {
        assert!(ValuePlot::new().svg(&Drawing::default()).is_err());
    }
}
