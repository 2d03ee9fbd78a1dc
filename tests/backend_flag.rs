//! One flag name for choosing a back-end (issue 41): `--backend` in every command that
//! chooses one, `--table` kept as the older name where it was the flag.
//!
//! - `backend_is_accepted_where_table_was`: `solve`, `profile`, `scale` and `roofline` take
//!   `--backend` (their `--help` shows it) and still take `--table`; `solve` gives the same JSON
//!   answer and table back-end through either name.
//! - `backend_reaches_the_back_end_check`: an unknown name given as `--backend` is refused by
//!   the back-end check, naming it, not by the parser as an unknown flag.
//! - `the_octal_commands_keep_backend`: `octal`, `census` and `sequence` take `--backend`.

mod common;

use common::{json_of, nimsquare};

const TABLE_COMMANDS: [&str; 4] = ["solve", "profile", "scale", "roofline"];

fn help_of(command: &str) -> String {
    let out = nimsquare().args([command, "--help"]).output().unwrap();
    assert!(out.status.success(), "{command} --help");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn backend_is_accepted_where_table_was() {
    for command in TABLE_COMMANDS {
        let help = help_of(command);
        assert!(
            help.contains("--backend") && help.contains("--table"),
            "{command} --help names both --backend and --table:\n{help}"
        );
    }
    let answer = |flag: &str| {
        let v = json_of(["solve", "--limit", "2000", flag, "stamped", "--json"]);
        (v["answer"].to_string(), v["table"].to_string())
    };
    let (by_backend, by_table) = (answer("--backend"), answer("--table"));
    assert_eq!(by_backend, by_table);
    assert!(by_backend.1.contains("stamped"), "{by_backend:?}");
}

#[test]
fn backend_reaches_the_back_end_check() {
    // In a folder of its own: a command that got past the check would write its files here.
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("backend-flag");
    std::fs::create_dir_all(&dir).unwrap();
    for command in TABLE_COMMANDS {
        let size: &[&str] = if command == "scale" {
            &["--from", "100", "--to", "1000"]
        } else {
            &["--limit", "1000"]
        };
        let out = nimsquare()
            .current_dir(&dir)
            .arg(command)
            .args(size)
            .args(["--backend", "no-such-backend"])
            .output()
            .unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(!out.status.success(), "{command}: {stderr}");
        assert!(
            !stderr.contains("unexpected argument") && stderr.contains("no-such-backend"),
            "{command} --backend no-such-backend: {stderr}"
        );
    }
}

#[test]
fn the_octal_commands_keep_backend() {
    for command in ["octal", "census", "sequence"] {
        assert!(help_of(command).contains("--backend <NAME>"), "{command}");
    }
}
