//! The plot on a code's page: g(n) against n as inline SVG, the preperiod and one period
//! marked when the code is proved periodic.
//!
//! PLACEHOLDER: this is a stand-in drawing until `nimsquare::run::plot` (the streaming plot
//! with the rare positions marked) lands on main; then [`svg`] calls it and this drawing
//! goes. It draws one dot per column of the values' maximum in that column (so any N costs
//! O(N) and the SVG O(width)), and two vertical lines: `class="period-start"` at n = e and
//! `class="period-end"` at n = e + p, each carrying its n in `data-n`, which is what the
//! browser test reads back.
//!
//! Invariant: the SVG is self-contained (no external font, image or script).

/// What the figure marks besides the values.
#[derive(Debug, Clone, Copy, Default)]
pub struct Marks {
    /// (preperiod e, period p) when proved.
    pub period: Option<(usize, usize)>,
}

use std::fmt::Write;

const WIDTH: usize = 720;
const HEIGHT: usize = 240;
const PAD: usize = 30;

/// The SVG text of g(0..values.len()) with `marks`, titled `title`.
pub fn svg(values: &[u16], title: &str, marks: Marks) -> String {
    let n = values.len().max(1);
    let top = values.iter().copied().max().unwrap_or(0).max(1) as f64;
    let plot_w = (WIDTH - 2 * PAD) as f64;
    let plot_h = (HEIGHT - 2 * PAD) as f64;
    let x_of = |i: usize| PAD as f64 + plot_w * i as f64 / n as f64;
    let y_of = |v: f64| (HEIGHT - PAD) as f64 - plot_h * v / top;
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot placeholder\" width=\"{WIDTH}\" height=\"{HEIGHT}\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" data-n=\"{}\">\n<title>{}</title>\n",
        values.len(),
        super::escape(title)
    );
    out.push_str(&format!(
        "<rect x=\"{PAD}\" y=\"{PAD}\" width=\"{}\" height=\"{}\" fill=\"#fafafa\" stroke=\"#999\"/>\n",
        WIDTH - 2 * PAD,
        HEIGHT - 2 * PAD
    ));
    // One column per pixel: the largest value met in it.
    let columns = WIDTH - 2 * PAD;
    let mut path = String::new();
    for c in 0..columns {
        let lo = c * values.len() / columns;
        let hi = ((c + 1) * values.len() / columns)
            .max(lo + 1)
            .min(values.len());
        if let Some(&m) = values.get(lo..hi).and_then(|s| s.iter().max()) {
            // Whole pixels: integers format fast, and a page has one dot per column.
            let _ = write!(path, "M{} {}h1 ", PAD + c, y_of(m as f64).round() as i64);
        }
    }
    out.push_str(&format!(
        "<path d=\"{path}\" stroke=\"#1f5fa8\" stroke-width=\"2\"/>\n"
    ));
    if let Some((e, p)) = marks.period {
        for (class, at, colour) in [("period-start", e, "#c33"), ("period-end", e + p, "#393")] {
            if at <= values.len() {
                let x = x_of(at);
                out.push_str(&format!(
                    "<line class=\"{class}\" data-n=\"{at}\" x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{PAD}\" y2=\"{}\" stroke=\"{colour}\" stroke-dasharray=\"4 3\"/>\n",
                    HEIGHT - PAD
                ));
            }
        }
    }
    out.push_str(&format!(
        "<text x=\"{PAD}\" y=\"{}\" font-size=\"12\">0</text><text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"end\">n = {}</text><text x=\"4\" y=\"{}\" font-size=\"12\">{}</text>\n",
        HEIGHT - 10,
        WIDTH - PAD,
        HEIGHT - 10,
        values.len().saturating_sub(1),
        PAD - 8,
        top as u64
    ));
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_period_is_marked_at_its_positions() {
        let values: Vec<u16> = (0..100).map(|n| (n % 7) as u16).collect();
        let s = svg(
            &values,
            "t",
            Marks {
                period: Some((3, 7)),
            },
        );
        assert!(s.contains("class=\"period-start\" data-n=\"3\""), "{s}");
        assert!(s.contains("class=\"period-end\" data-n=\"10\""), "{s}");
        let open = svg(&values, "t", Marks::default());
        assert!(!open.contains("period-start"));
    }
}
