//! The atlas's `index.html`: every row of the census in one table, sortable by clicking a
//! column header and filtered by status, stop (an until-proved census) and agreement with the
//! published periods, in vanilla JS inline in the page (no framework, no network).
//!
//! The page's state is its URL fragment: `status=`, `stop=`, `published=` (each an exact
//! value of the row's attribute, absent for all), `sort=` (a column key: code, status, stop,
//! preperiod, period, max_value, limit, rare, seconds, published) and `order=asc|desc`. The
//! script applies the fragment on load and on every change of it, and a click writes the new
//! state into the fragment, so `index.html#status=periodic&sort=period&order=desc` opens the
//! page sorted and filtered. Rows without a value in the sort column (an open row's period)
//! come last in either order; ties keep census order. The element `#shown` holds how many
//! rows are visible.
//!
//! Cost: O(rows) text; the script sorts in O(rows log rows) and moves every row once a click.
//!
//! Invariant: one `<tr>` per row, each carrying every sortable and filterable value in a
//! `data-` attribute (empty when the row has none), so a reader of the DOM needs no cell.

use super::published::Agreement;
use super::{escape, Entry};
use crate::run::longrun::censusfile::Header;
use std::fmt::Write;

/// The columns: (key, heading, numeric). The key names the `data-` attribute and the fragment's
/// `sort=` value (`code` sorts by census order, `data-order`).
const COLUMNS: &[(&str, &str, bool)] = &[
    ("code", "code", false),
    ("status", "status", false),
    ("stop", "stop", false),
    ("preperiod", "preperiod", true),
    ("period", "period", true),
    ("max_value", "largest value", true),
    ("limit", "N reached", true),
    ("rare", "rare", true),
    ("seconds", "seconds", true),
    ("published", "published", false),
];

/// The CSS both the index and the pages use.
pub const STYLE: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}\
table{border-collapse:collapse}th,td{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right}\
td:first-child,th:first-child,td.t{text-align:left}th{background:#eee;position:sticky;top:0}\
th[data-sort]{cursor:pointer}th[aria-sort=ascending]::after{content:' \\25B2'}\
th[aria-sort=descending]::after{content:' \\25BC'}tr[hidden]{display:none}\
.agrees{color:#175f17}.disagrees{color:#b00;font-weight:bold}.new{color:#6a3d9a;font-weight:bold}\
code,pre{background:#f4f4f4;padding:1px 4px}figure svg{max-width:100%;height:auto}#controls label{margin-right:1em}";

/// The script: the fragment's state applied to the rows (see the module doc).
const SCRIPT: &str = r#"(function () {
  var body = document.getElementById('rows').tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var numeric = {order: 1, preperiod: 1, period: 1, max_value: 1, limit: 1, rare: 1, seconds: 1};
  var filters = ['status', 'stop', 'published'];
  var keys = filters.concat(['sort', 'order']);
  function parse() {
    var s = {};
    location.hash.replace(/^#/, '').split('&').forEach(function (kv) {
      if (!kv) return;
      var i = kv.indexOf('=');
      var k = decodeURIComponent(i < 0 ? kv : kv.slice(0, i));
      s[k] = i < 0 ? '' : decodeURIComponent(kv.slice(i + 1));
    });
    return s;
  }
  function write(s) {
    var parts = [];
    keys.forEach(function (k) { if (s[k]) parts.push(k + '=' + encodeURIComponent(s[k])); });
    var h = parts.join('&');
    if (location.hash.replace(/^#/, '') === h) apply(s); else location.hash = h;
  }
  function apply(s) {
    var key = s.sort === 'code' || !s.sort ? 'order' : s.sort;
    var desc = s.order === 'desc';
    var sorted = rows.slice().sort(function (a, b) {
      var x = a.getAttribute('data-' + key), y = b.getAttribute('data-' + key), c = 0;
      if (x !== y) {
        if (x === '' || x === null) return 1;
        if (y === '' || y === null) return -1;
        c = numeric[key] ? parseFloat(x) - parseFloat(y) : (x < y ? -1 : 1);
        if (desc) c = -c;
      }
      return c || a.getAttribute('data-order') - b.getAttribute('data-order');
    });
    var shown = 0, frag = document.createDocumentFragment();
    sorted.forEach(function (r) {
      var ok = filters.every(function (f) { return !s[f] || r.getAttribute('data-' + f) === s[f]; });
      r.hidden = !ok;
      if (ok) shown++;
      frag.appendChild(r);
    });
    body.appendChild(frag);
    document.getElementById('shown').textContent = shown;
    filters.forEach(function (f) {
      var el = document.getElementById('filter-' + f);
      if (el) el.value = s[f] || '';
    });
    Array.prototype.forEach.call(document.querySelectorAll('th[data-sort]'), function (th) {
      var k = th.getAttribute('data-sort');
      if ((k === 'code' ? 'order' : k) === key && s.sort) th.setAttribute('aria-sort', desc ? 'descending' : 'ascending');
      else th.removeAttribute('aria-sort');
    });
  }
  Array.prototype.forEach.call(document.querySelectorAll('th[data-sort]'), function (th) {
    th.addEventListener('click', function () {
      var s = parse(), k = th.getAttribute('data-sort');
      s.order = s.sort === k && s.order !== 'desc' ? 'desc' : 'asc';
      s.sort = k;
      write(s);
    });
  });
  filters.forEach(function (f) {
    var el = document.getElementById('filter-' + f);
    if (el) el.addEventListener('change', function () { var s = parse(); s[f] = el.value; write(s); });
  });
  window.addEventListener('hashchange', function () { apply(parse()); });
  apply(parse());
})();"#;

/// A `<select>` of a filter: (value, label) options after "all".
fn select(out: &mut String, key: &str, label: &str, options: &[(String, String)]) {
    let _ = write!(
        out,
        "<label>{label} <select id=\"filter-{key}\"><option value=\"\">all</option>"
    );
    for (value, text) in options {
        let _ = write!(
            out,
            "<option value=\"{}\">{}</option>",
            escape(value),
            escape(text)
        );
    }
    out.push_str("</select></label>");
}

/// The value of a column of `entry`, as its attribute holds it.
fn value(entry: &Entry, key: &str) -> String {
    let f = &entry.fields;
    let n = |x: Option<usize>| x.map(|v| v.to_string()).unwrap_or_default();
    match key {
        "code" => f.code.clone(),
        "status" => f.status.clone(),
        "stop" => f.stop.clone().unwrap_or_default(),
        "preperiod" => n(f.preperiod),
        "period" => n(f.period),
        "max_value" => n(f.max_value),
        "limit" => f.limit.to_string(),
        "rare" => n(f.rare),
        "seconds" => format!("{:.6}", f.seconds),
        "published" => entry.agreement.name().to_string(),
        _ => unreachable!("a listed column"),
    }
}

/// The whole `index.html` of `entries` (from the census `header`, read from `source`).
pub fn html(header: &Header, entries: &[Entry], source: &str) -> String {
    let until = header.max_limit.is_some();
    let columns: Vec<&(&str, &str, bool)> = COLUMNS
        .iter()
        .filter(|(k, _, _)| until || *k != "stop")
        .collect();
    let mut out = String::with_capacity(entries.len() * 600 + 16384);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Census atlas: {}</title><style>{STYLE}</style></head><body>\n",
        escape(source)
    );
    let _ = write!(
        out,
        "<h1>Census atlas: {}</h1>\n<p>{} codes of up to {} digits, back-end {}, ",
        escape(source),
        entries.len(),
        header.digits,
        escape(&header.backend)
    );
    match header.max_limit {
        Some(m) => {
            let _ = write!(
                out,
                "until proved from N = {} to at most {m}{}.",
                header.limit,
                header
                    .budget
                    .map(|b| format!(", a budget of {b} s a code"))
                    .unwrap_or_default()
            );
        }
        None => {
            let _ = write!(out, "N = {}.", header.limit);
        }
    }
    // The counts a reader looks for first.
    let count = |f: &dyn Fn(&Entry) -> bool| entries.iter().filter(|e| f(e)).count();
    let _ = write!(
        out,
        " Proved periodic: {}; open: {}. Against the published periods: ",
        count(&|e| e.fields.status == "periodic"),
        count(&|e| e.fields.status == "open")
    );
    let words: Vec<String> = Agreement::ALL
        .iter()
        .map(|a| format!("{} {}", a.words(), count(&|e| e.agreement == *a)))
        .collect();
    let _ = writeln!(
        out,
        "{}. A code links to its page where it has one.</p>",
        words.join(", ")
    );
    out.push_str("<p id=\"controls\">");
    let mut statuses: Vec<String> = entries.iter().map(|e| e.fields.status.clone()).collect();
    statuses.sort();
    statuses.dedup();
    let opts: Vec<(String, String)> = statuses
        .iter()
        .map(|s| {
            let text = if s == "periodic" {
                "proved (periodic)"
            } else {
                s
            };
            (s.clone(), text.to_string())
        })
        .collect();
    select(&mut out, "status", "status", &opts);
    if until {
        let mut stops: Vec<String> = entries
            .iter()
            .filter_map(|e| e.fields.stop.clone())
            .collect();
        stops.sort();
        stops.dedup();
        let opts: Vec<(String, String)> = stops
            .iter()
            .map(|s| {
                let text = if s == "budget" {
                    "stopped by budget"
                } else {
                    s
                };
                (s.clone(), text.to_string())
            })
            .collect();
        select(&mut out, "stop", "stop", &opts);
    }
    let opts: Vec<(String, String)> = Agreement::ALL
        .iter()
        .map(|a| (a.name().to_string(), a.words().to_string()))
        .collect();
    select(&mut out, "published", "published", &opts);
    let _ = writeln!(
        out,
        "<span><span id=\"shown\">{}</span> of <span id=\"total\">{}</span> rows shown</span></p>",
        entries.len(),
        entries.len()
    );
    out.push_str("<table id=\"rows\"><thead><tr>");
    for (key, heading, _) in &columns {
        let _ = write!(out, "<th data-sort=\"{key}\">{heading}</th>");
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for e in entries {
        let _ = write!(
            out,
            "<tr data-code=\"{}\" data-order=\"{}\"",
            escape(&e.fields.code),
            e.order
        );
        for (key, _, _) in COLUMNS.iter().skip(1) {
            let _ = write!(out, " data-{key}=\"{}\"", escape(&value(e, key)));
        }
        out.push('>');
        for (key, _, _) in &columns {
            let v = escape(&value(e, key));
            match *key {
                "code" => match &e.page {
                    Some(page) => {
                        let _ = write!(out, "<td><a href=\"code/{page}\">{v}</a></td>");
                    }
                    None => {
                        let _ = write!(out, "<td>{v}</td>");
                    }
                },
                "published" => {
                    let _ = write!(
                        out,
                        "<td class=\"t {}\">{}</td>",
                        e.agreement.name(),
                        e.agreement.words()
                    );
                }
                "status" | "stop" => {
                    let _ = write!(out, "<td class=\"t\">{v}</td>");
                }
                _ => {
                    let _ = write!(out, "<td>{v}</td>");
                }
            }
        }
        out.push_str("</tr>\n");
    }
    let _ = write!(
        out,
        "</tbody></table>\n<script>{SCRIPT}</script>\n</body></html>\n"
    );
    out
}
