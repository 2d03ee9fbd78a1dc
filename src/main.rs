//! The `nimsquare` binary: a thin layer over the library; see `nimsquare --help`.

fn main() {
    std::process::exit(nimsquare::cli::main());
}
