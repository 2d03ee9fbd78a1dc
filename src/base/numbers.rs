//! Numbers as a person types them on the command line: a count (`20`, `1_000_000`, `1e6`,
//! `1.5e3`) checked against its range, and seconds (`60`, `0.5`). The CLI's parsers call
//! these (src/cli/ only parses and prints), and the fuzz targets (`nimsquare::fuzzing`,
//! feature `testing`) feed them any text: every refusal is one line, the text shown escaped.

/// `text` as the value of `flag`, a count in `min..=max`, or the one-line refusal naming the
/// flag; `why_max`, when given, says why the maximum is what it is. Accepted: a non-negative
/// integer with optional `_` separators (`1_000_000`), or `MeE` with a decimal mantissa
/// whose value is a whole number (`1e6`, `1.5e3`).
pub fn check_count(
    min: u64,
    max: u64,
    why_max: Option<&str>,
    flag: &str,
    text: &str,
) -> std::result::Result<u64, String> {
    let shown = text.escape_debug();
    let out_of_range = |above: bool| {
        let mut msg = format!("{flag} must be between {min} and {max}, got '{shown}'");
        if let (true, Some(why)) = (above, why_max) {
            msg.push_str(&format!(" (the supported maximum {max}: {why})"));
        }
        msg
    };
    match read_count(text) {
        Ok(v) if (min..=max).contains(&v) => Ok(v),
        Ok(v) => Err(out_of_range(v > max)),
        Err(Unreadable::TooLarge) => Err(out_of_range(true)),
        Err(Unreadable::NotWhole) => Err(format!(
            "{flag} takes a non-negative integer (a whole number like 20, 1_000 or 1e6), got '{shown}'"
        )),
    }
}

/// Parses seconds for `flag` (`--checkpoint-every`): non-negative, fractions allowed, at most
/// 10^9.
pub fn parse_seconds(flag: &str, text: &str) -> std::result::Result<std::time::Duration, String> {
    match text.trim().parse::<f64>() {
        Ok(s) if s.is_finite() && (0.0..=1e9).contains(&s) => {
            Ok(std::time::Duration::from_secs_f64(s))
        }
        _ => Err(format!(
            "{flag} takes a number of seconds like 60 or 0.5, got '{}'",
            text.escape_debug()
        )),
    }
}

/// Why a text is not a count.
#[derive(Debug, PartialEq)]
pub enum Unreadable {
    /// Not a non-negative whole number in any accepted form.
    NotWhole,
    /// A whole number past `u64`.
    TooLarge,
}

/// Reads a count in the forms the CLI's `Count` accepts, without its range.
pub fn read_count(text: &str) -> std::result::Result<u64, Unreadable> {
    let clean: String = text.trim().chars().filter(|&c| c != '_').collect();
    if let Some((mantissa, exponent)) = clean.split_once(['e', 'E']) {
        return scientific(mantissa, exponent);
    }
    if clean.is_empty() || !clean.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Unreadable::NotWhole);
    }
    clean.parse::<u64>().map_err(|_| Unreadable::TooLarge)
}

/// `M` times 10^`E` for `MeE` with a decimal mantissa (`1.5e3` is 1500), refused unless the
/// product is a whole number.
fn scientific(mantissa: &str, exponent: &str) -> std::result::Result<u64, Unreadable> {
    if exponent.is_empty() || !exponent.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Unreadable::NotWhole);
    }
    // An exponent past u32 is 10^(huge): too large unless the mantissa is zero.
    let e: u32 = exponent.parse().unwrap_or(u32::MAX);
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{whole}{fraction}");
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Unreadable::NotWhole);
    }
    // mantissa = digits / 10^places; the value is digits * 10^(e - places).
    let places = fraction.len() as u32;
    let digits = digits.trim_start_matches('0');
    if digits.is_empty() {
        return Ok(0);
    }
    let digits: u128 = digits.parse().map_err(|_| Unreadable::TooLarge)?;
    let value = if e >= places {
        10u128
            .checked_pow(e - places)
            .and_then(|p| p.checked_mul(digits))
            .ok_or(Unreadable::TooLarge)?
    } else {
        match 10u128.checked_pow(places - e) {
            Some(divisor) if digits.is_multiple_of(divisor) => digits / divisor,
            _ => return Err(Unreadable::NotWhole),
        }
    };
    u64::try_from(value).map_err(|_| Unreadable::TooLarge)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_accepted_form_reads_as_its_value() {
        for (text, value) in [
            ("0", 0),
            ("20", 20),
            (" 1000000 ", 1_000_000),
            ("1_000_000", 1_000_000),
            ("1e6", 1_000_000),
            ("1E6", 1_000_000),
            ("1.5e3", 1500),
            ("0.25e2", 25),
            ("0e99999999999", 0),
            ("18446744073709551615", u64::MAX),
        ] {
            assert_eq!(read_count(text), Ok(value), "{text}");
        }
        for text in [
            "", "ten", "-1", "+1", "1.5", "1.25e1", "1e-3", "e6", "1e", "0x10",
        ] {
            assert_eq!(read_count(text), Err(Unreadable::NotWhole), "{text}");
        }
        for text in ["18446744073709551616", "1e20", "1e99999999999"] {
            assert_eq!(read_count(text), Err(Unreadable::TooLarge), "{text}");
        }
    }
}
