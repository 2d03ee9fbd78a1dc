//! Builds the git revision of the source tree into the binary, so every record it writes
//! names the code that made it, wherever it is run from (not the revision of the folder it
//! runs in). `NIMSQUARE_BUILD_REV` is the short hash, with `-dirty` when tracked files had
//! uncommitted changes, or `unknown` when built outside a git checkout (a crate tarball).

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let rev = git(&["rev-parse", "--short=12", "HEAD"]).filter(|r| !r.is_empty());
    let value = match rev {
        Some(rev) => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            if dirty {
                format!("{rev}-dirty")
            } else {
                rev
            }
        }
        None => "unknown".to_string(),
    };
    println!("cargo:rustc-env=NIMSQUARE_BUILD_REV={value}");
    // The compiler, for records whose numbers depend on it (the count gate's baseline).
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=NIMSQUARE_RUSTC_VERSION={version}");
    // Again when the sources change (the dirty flag) or the checkout moves to another commit.
    for path in ["src", "tests", "benches", "Cargo.toml", "build.rs"] {
        println!("cargo:rerun-if-changed={path}");
    }
    if let Some(git_dir) = git(&["rev-parse", "--git-dir"]) {
        println!("cargo:rerun-if-changed={git_dir}/HEAD");
        println!("cargo:rerun-if-changed={git_dir}/index");
        if let Some(head_ref) = git(&["symbolic-ref", "-q", "HEAD"]) {
            println!("cargo:rerun-if-changed={git_dir}/{head_ref}");
        }
    }
}
