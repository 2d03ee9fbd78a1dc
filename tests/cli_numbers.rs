//! One number parser for every count-like flag (`--limit`, `--terms`, `--pairs`, `--digits`,
//! `--samples`, ...): each accepts the same forms (`1000`, `1_000`, `1e3`, `1.5e3`) and
//! refuses a bad value in the same words, naming the flag, with status 2 before any work.

mod common;

use common::{assert_refused, stdout_of};

#[test]
fn terms_takes_the_forms_limit_takes() {
    // `--terms 1e1` was refused while `--limit 1e1` was accepted.
    let plain = stdout_of(["sequence", "values", "--terms", "10"]);
    assert_eq!(plain.lines().count(), 10, "{plain}");
    for form in ["1e1", "1_0", "0.1e2", "1.0e1"] {
        assert_eq!(
            stdout_of(["sequence", "values", "--terms", form]),
            plain,
            "{form}"
        );
    }
    assert_eq!(
        stdout_of(["sequence", "cold", "--terms", "1e1", "--limit", "1e3"]),
        stdout_of(["sequence", "cold", "--terms", "10", "--limit", "1000"])
    );
}

#[test]
fn pairs_warmup_digits_and_heaps_take_the_same_forms() {
    let text = stdout_of([
        "compare", "stamped", "stamped", "--limit", "1e3", "--pairs", "2e0", "--warmup", "0e1",
        "--quiet",
    ]);
    assert!(text.contains("2 pairs"), "{text}");
    let text = stdout_of([
        "census", "--digits", "1e0", "--limit", "1e2", "--csv", "--quiet",
    ]);
    assert!(text.lines().any(|l| l.starts_with("0.1,")), "{text}");
    assert_eq!(
        stdout_of(["solve", "--limit", "2.9e1", "--heaps", "0.3e1"]),
        "1160\n"
    );
}

/// Each count flag with the arguments that make its command otherwise valid.
const FLAGS: &[(&[&str], &str)] = &[
    (&["solve"], "--limit"),
    (&["solve"], "--heaps"),
    (&["solve"], "--threads"),
    (&["sequence", "values"], "--terms"),
    (&["compare", "stamped", "bitset"], "--pairs"),
    (&["compare", "stamped", "bitset"], "--warmup"),
    (&["census"], "--digits"),
    (&["profile"], "--samples"),
    (&["profile"], "--frequency"),
    (&["scale"], "--points"),
    (&["scale"], "--repeat"),
    (&["scale"], "--to"),
    (&["games", "amalgamation"], "--max"),
];

#[test]
fn every_count_flag_refuses_a_bad_value_in_the_same_words() {
    for (command, flag) in FLAGS {
        for bad in ["ten", "-1", "1.5", "1.25e1", ""] {
            let mut args = command.to_vec();
            args.extend([*flag, bad]);
            let e = assert_refused(&args);
            assert_eq!(
                e,
                format!(
                    "error: {flag} takes a non-negative integer (a whole number like 20, 1_000 \
                     or 1e6), got '{bad}' (see --help)\n"
                ),
                "{args:?}"
            );
        }
        let mut args = command.to_vec();
        args.extend([*flag, "1e30"]);
        let e = assert_refused(&args);
        assert!(
            e.starts_with(&format!("error: {flag} must be between ")) && e.contains("got '1e30'"),
            "{args:?}: {e}"
        );
    }
}
