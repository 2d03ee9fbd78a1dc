//! The `nimsquare` binary: a thin layer over the library; see `nimsquare --help`.

mod cli;

fn main() {
    restore_sigpipe();
    std::process::exit(cli::main());
}

/// Rust starts programs with SIGPIPE ignored, so writing to a closed pipe (`nimsquare verify |
/// head -1`) makes `println!` panic with "Broken pipe". Restoring the default disposition lets
/// the kernel end the process quietly instead, as it does `ls | head` (status 141 in a shell).
fn restore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called first thing in `main`, before any other thread exists; `signal` with
    // SIG_DFL installs no handler code, it only resets the disposition of one signal.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
