//! A code's page of the atlas (`code/0-354.html`): every column of its row, whether it agrees
//! with the published periods and which, its equivalent games (linked where they have a page),
//! the command that reproduces the row, and the plot of its values ([`super::figure`], made by the caller).
//!
//! Cost: O(values) for the plot's columns plus the text; no state.
//!
//! Invariant: the page names the row's own facts (never recomputed ones); the plot shows the
//! values the page's caption says, g(0..=N') with N' <= the row's N.

use super::index::STYLE;
use super::published::{Agreement, Published};
use super::{escape, Entry};
use std::collections::BTreeSet;
use std::fmt::Write;

/// The whole page of `entry`, with `plot` the SVG of its first `values` values
/// ([`super::figure`]),
/// for the census read from `source`; `with_pages` holds the codes that have pages (for the
/// equivalents' links).
pub fn html(
    entry: &Entry,
    plot: &str,
    values: usize,
    with_pages: &BTreeSet<&str>,
    published: &Published,
    source: &str,
) -> String {
    let f = &entry.fields;
    let code = escape(&f.code);
    let mut out = String::with_capacity(16384);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{code}: census atlas</title><style>{STYLE}</style></head><body>\n<p><a href=\"../index.html\">census atlas</a> ({})</p>\n<h1>Octal game {code}</h1>\n",
        escape(source)
    );
    // The facts: every column of the row.
    let n = |x: Option<usize>| x.map_or_else(|| "-".to_string(), |v| v.to_string());
    let facts: Vec<(&str, String)> = vec![
        ("code", f.code.clone()),
        ("N reached (limit)", f.limit.to_string()),
        ("status", f.status.clone()),
        ("stop", f.stop.clone().unwrap_or_else(|| "-".into())),
        ("preperiod", n(f.preperiod)),
        ("period", n(f.period)),
        ("largest value", n(f.max_value)),
        ("rare positions", n(f.rare)),
        ("back-end", f.backend.clone()),
        ("build", f.build.clone()),
        ("cpu", f.cpu.clone()),
        ("date", f.date.clone()),
        ("seconds", format!("{:.6}", f.seconds)),
        (
            "positions a second",
            format!("{:.0}", f.positions_per_second),
        ),
    ];
    out.push_str("<table id=\"facts\">\n");
    for (name, v) in facts {
        let _ = writeln!(
            out,
            "<tr><th class=\"t\">{name}</th><td class=\"t\">{}</td></tr>",
            escape(&v)
        );
    }
    out.push_str("</table>\n");
    // The published periods.
    let a = entry.agreement;
    let _ = writeln!(
        out,
        "<h2>Published periods</h2>\n<p id=\"agreement\" data-published=\"{}\" class=\"{}\">{}.</p>",
        a.name(),
        a.name(),
        a.words()
    );
    let r = &entry.readings;
    if !r.readings.is_empty() {
        out.push_str("<ul id=\"readings\">\n");
        for reading in &r.readings {
            let verdict = match entry.proved() {
                Some((e, p)) if reading.agrees(e, p) => "agrees".to_string(),
                Some(_) => "differs".to_string(),
                None => format!(
                    "open here; its proof needs N &gt;= {}",
                    reading.needs(entry.digits())
                ),
            };
            let _ = writeln!(
                out,
                "<li>{}: {} &mdash; {verdict}</li>",
                reading.source.name(),
                escape(&reading.text())
            );
        }
        out.push_str("</ul>\n");
    } else if a == Agreement::New || a == Agreement::Unpublished {
        out.push_str(
            "<p>No table states a period for this code, its reductions or its class.</p>\n",
        );
    }
    if let Some(class) = &r.classes_text() {
        let _ = writeln!(out, "<p>{}</p>", escape(class));
    }
    // The equivalent games.
    let equivalents = published.equivalents(&f.code);
    out.push_str("<h2>Equivalent games</h2>\n");
    if equivalents.is_empty() {
        out.push_str("<p>None known (the lookup table covers codes of up to three digits and the games they reduce to).</p>\n");
    } else {
        out.push_str("<p>g(n) of this code is g(n &minus; d) of each of these (a negative heap worth 0):</p>\n<ul id=\"equivalents\">\n");
        for (other, d) in &equivalents {
            let name = escape(other);
            let link = if with_pages.contains(other.as_str()) {
                format!("<a href=\"{}\">{name}</a>", super::page_name(other))
            } else {
                name
            };
            let _ = writeln!(out, "<li>{link}, d = {d}</li>");
        }
        out.push_str("</ul>\n");
    }
    // How to make the row again.
    let _ = writeln!(
        out,
        "<h2>Reproduce</h2>\n<pre id=\"command\">nimsquare octal {code} --limit {}</pre>",
        f.limit
    );
    // The plot.
    let shown = values.saturating_sub(1);
    let _ = writeln!(
        out,
        "<h2>Values</h2>\n<figure id=\"plot\">{plot}<figcaption>g(n) for 0 &lt;= n &lt;= {shown}{}{}</figcaption></figure>",
        if shown < f.limit {
            format!(" (the row reached N = {}; a page builds its first values only)", f.limit)
        } else {
            String::new()
        },
        match entry.proved() {
            Some((e, p)) => format!("; the green lines mark the preperiod, n = {e}, and one period later, n = {}", e + p),
            None => String::new(),
        }
    );
    out.push_str("</body></html>\n");
    out
}

impl super::published::Readings {
    /// The lookup class in words, with the unsolved note, or None when the code has none.
    fn classes_text(&self) -> Option<String> {
        let c = self.class.as_ref()?;
        Some(format!(
            "tczajka's lookup class: {} (offset {:+}, reached through {}){}",
            c.game,
            c.offset,
            c.how,
            if self.unsolved {
                "; that class is on tczajka's list of unsolved games"
            } else {
                ""
            }
        ))
    }
}
