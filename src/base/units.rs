//! Seconds in the unit a person reads (`736 ns`, `7.36 µs`, `12.4 ms`, `3.21 s`), three
//! significant digits, for every command's text lines (`tune`, `compare`, `verify`, the
//! games); where a script reads the line, the exact value goes beside it in a `seconds=`
//! field.

/// The unit `seconds` reads best in: (its size in seconds, its symbol).
pub fn unit_of(seconds: f64) -> (f64, &'static str) {
    let s = seconds.abs();
    if s < 1e-6 {
        (1e-9, "ns")
    } else if s < 1e-3 {
        (1e-6, "µs")
    } else if s < 1.0 {
        (1e-3, "ms")
    } else {
        (1.0, "s")
    }
}

/// `x` (already in some unit) with three significant digits, and no decimals from 100 on.
fn digits(x: f64) -> String {
    let a = x.abs();
    if a >= 99.95 || a == 0.0 {
        format!("{x:.0}")
    } else if a >= 9.995 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

/// `seconds` with three significant digits in its own unit: `7.36 µs`, `12.4 ms`, `3.21 s`.
pub fn human_seconds(seconds: f64) -> String {
    if !seconds.is_finite() {
        return format!("{seconds} s");
    }
    let (size, unit) = unit_of(seconds);
    format!("{} {unit}", digits(seconds / size))
}

/// The range `low`..`high` in the unit of `like` (so it reads beside it): `690-712 ms`.
pub fn human_range(low: f64, high: f64, like: f64) -> String {
    let (size, unit) = unit_of(like);
    format!("{}-{} {unit}", digits(low / size), digits(high / size))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_significant_digits_in_the_readable_unit() {
        assert_eq!(human_seconds(7.364300231967304e-7), "736 ns");
        assert_eq!(human_seconds(7.3643e-6), "7.36 µs");
        assert_eq!(human_seconds(0.012_44), "12.4 ms");
        assert_eq!(human_seconds(3.2109), "3.21 s");
        assert_eq!(human_seconds(0.6978), "698 ms");
        assert_eq!(human_seconds(1448.9), "1449 s");
        assert_eq!(human_seconds(0.0), "0 ns");
        // Rounding up to the next decade keeps three digits, not four.
        assert_eq!(human_seconds(9.999e-3), "10.0 ms");
        assert_eq!(human_range(0.690, 0.712, 0.698), "690-712 ms");
        assert_eq!(human_range(0.9e-3, 1.1e-3, 1.0e-3), "0.90-1.10 ms");
    }
}
