//! The `lfnlab` binary: everything lives in the library so that Python's
//! `lfnlab` console script runs the very same code (`lfnlab._native.cli_main`).

fn main() {
    // Lossy, not `env::args()`: a non-UTF-8 argument must be reported, not panic.
    let args = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    std::process::exit(lfnlab_cli::main_with_args(args));
}
