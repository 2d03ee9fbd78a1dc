//! The one error type of the library. Every message is a single line that says what is
//! wrong and, where there is one, what to do instead; the CLI prints it after `error: `.

use std::fmt;

/// Everything the library can refuse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// A subtraction set that is empty, contains 0, or cannot be parsed.
    BadMoves(String),
    /// A limit N beyond what the value type or the index type allows.
    LimitTooLarge { limit: u64, max: u64, why: String },
    /// A back-end name that is not in the registry.
    UnknownBackend {
        stage: &'static str,
        name: String,
        valid: Vec<&'static str>,
    },
    /// A back-end asked to do something it cannot do (it says so instead of answering wrongly).
    Unsupported { backend: &'static str, what: String },
    /// An exact answer that does not fit the type it is returned in (`u128`).
    Overflow(String),
    /// Two back-ends (or a back-end and a control) gave different answers.
    Disagreement(String),
    /// Any other invalid argument.
    Invalid(String),
    /// A file the run was writing could not be written (a full disk, an I/O error) after
    /// work began: one line naming the file; the binary exits 4, as for an answer printed
    /// whose file was not saved.
    Unwritten(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::BadMoves(msg) => write!(f, "bad subtraction set: {msg}"),
            Error::LimitTooLarge { limit, max, why } => write!(
                f,
                "limit {limit} is above the supported maximum {max} ({why}); choose a smaller N"
            ),
            Error::UnknownBackend { stage, name, valid } => write!(
                f,
                "unknown {stage} back-end '{}'; valid names: {}",
                // A name from the command line or a file, escaped: the message stays one line.
                name.escape_debug(),
                valid.join(", ")
            ),
            Error::Unsupported { backend, what } => {
                write!(f, "back-end '{backend}' does not support {what}")
            }
            Error::Overflow(msg) => write!(f, "{msg}"),
            Error::Disagreement(msg) => write!(f, "disagreement: {msg}"),
            Error::Invalid(msg) | Error::Unwritten(msg) => write!(f, "{msg}"),
        }
    }
}

impl std::error::Error for Error {}

/// `text` with its control characters escaped (a newline as `\n`), the rest as it is: a
/// message that quotes a file's or a parser's text stays one line.
pub fn one_line(text: &str) -> String {
    let mut shown = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            shown.extend(c.escape_debug());
        } else {
            shown.push(c);
        }
    }
    shown
}

/// Result alias used across the crate.
pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::one_line;

    #[test]
    fn one_line_escapes_control_characters_only() {
        assert_eq!(one_line("a \"b\"\n\tc\u{c}é\\"), "a \"b\"\\n\\tc\\u{c}é\\");
        assert_eq!(one_line(""), "");
    }
}
