//! The plot on a code's page: g(n) against n as inline SVG, drawn by [`crate::run::plot`]
//! (the picture `octal --plot` writes): the values, the rare positions of the code's
//! rare/common split marked one by one (`<circle data-n data-g>`), and a proved period as
//! `<g class="period" data-preperiod="e" data-period="p">` with a line at n = e and one at
//! n = e + p (`data-n`), which is what the browser test reads back.
//!
//! Cost: O(values) to stream them into the plot and to find the split, then a drawing of
//! fixed size (about a thousand columns) whatever N is.
//!
//! Invariant: the SVG is self-contained (text as SVG `<text>`, no font, image or script).

use crate::base::error::Result;
use crate::octal::method::rare_common::SplitSummary;
use crate::octal::Rules;
use crate::run::plot::{Drawing, ValuePlot};

/// The SVG of g(0..values.len()) of `rules`, with the proved `period` (e, p) when there is one.
pub fn svg(rules: &Rules, values: &[u16], period: Option<(usize, usize)>) -> Result<String> {
    let split = SplitSummary::of(rules, values);
    let drawing = Drawing {
        title: format!(
            "octal game {}: g(n) for 0 <= n <= {}",
            rules.label(),
            values.len().saturating_sub(1)
        ),
        mask: split.mask,
        period,
        log_x: false,
    };
    ValuePlot::of(values).svg(&drawing)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_period_is_marked_at_its_positions() {
        // 0.07 (Dawson's Kayles): period 34 from 53.
        let rules = Rules::parse("0.07").unwrap();
        let values = crate::octal::build("octal-sparse", &rules, 400)
            .unwrap()
            .values()
            .to_vec();
        let s = svg(&rules, &values, Some((53, 34))).unwrap();
        assert!(
            s.contains(r#"class="period" data-preperiod="53" data-period="34""#),
            "{s}"
        );
        assert!(s.contains(r#"data-n="53""#) && s.contains(r#"data-n="87""#));
        let open = svg(&rules, &values, None).unwrap();
        assert!(!open.contains(r#"class="period""#));
    }
}
