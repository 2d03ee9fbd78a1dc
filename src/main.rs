//! The `nimsquare` binary: a thin layer over the library; see `nimsquare --help`.

mod cli;

fn main() {
    restore_sigpipe();
    ignore_sigxfsz();
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

/// A write past the file-size limit (`ulimit -f`) raises SIGXFSZ, whose default kills the
/// process, answer and all, after a run that may have taken hours. Ignored, the write fails
/// with EFBIG instead, which the table writers report like a full disk while the run still
/// prints its answer (exit status 4).
fn ignore_sigxfsz() {
    #[cfg(unix)]
    // SAFETY: as in `restore_sigpipe`; SIG_IGN installs no handler code either.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}
