//! The `lfnlab-emu` binary: the command line of [`lfnlab_emu::run::run_cli`].
//!
//! Exit status: 0 success; 2 invalid arguments (clap's own errors also exit
//! 2), with `error: --option: what was expected`; 1 any other failure.

use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(lfnlab_emu::run::run_cli(std::env::args_os()))
}
