//! The `lfnlab-emu` command line as a function: parse, check, relay, write
//! the statistics. The `lfnlab-emu` binary (`main.rs`) and `lfnlab emu` (the
//! Python package, through `lfnlab._native.emu_main`) both call [`run_cli`].
//!
//! Exit status: 0 success (also `--help` and `--version`); 2 invalid
//! arguments (clap's own errors too), with `error: --option: what was
//! expected`; 1 any other failure.

use std::ffi::OsString;

use clap::Parser;

use crate::cli::Cli;
use crate::relay::Relay;
use crate::socket;
use crate::stats::SettingReport;

/// Exit status of a run that went well.
pub const EXIT_OK: u8 = 0;
/// Exit status of a failure other than invalid arguments.
pub const EXIT_FAILURE: u8 = 1;
/// Exit status of invalid arguments.
pub const EXIT_INVALID_INPUT: u8 = 2;

/// Runs the relay with the command line `args` (`args[0]` the program name)
/// and returns the exit status. Never exits the process: a caller embedding
/// the relay (the Python package) gets the status back.
pub fn run_cli<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            // `--help` and `--version` arrive here too (on stdout, status 0).
            let _ = e.print();
            return if e.use_stderr() { EXIT_INVALID_INPUT } else { EXIT_OK };
        }
    };
    let cfg = match cli.to_config() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_INVALID_INPUT;
        }
    };
    for (option, name) in [("--if-a", &cfg.if_a), ("--if-b", &cfg.if_b)] {
        if socket::if_index(name).is_none() {
            eprintln!("error: {option}: expected an existing interface, there is no \"{name}\" in this network namespace");
            return EXIT_INVALID_INPUT;
        }
    }
    let relay = match Relay::open(&cfg) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_FAILURE;
        }
    };
    let show = |s: &SettingReport| match (&s.requested, &s.error) {
        (false, _) => "off".to_string(),
        (true, None) => "on".to_string(),
        (true, Some(e)) => format!("refused ({e})"),
    };
    eprintln!(
        "lfnlab-emu: relaying {} <-> {}: {} frame buffers of {} B, rt {}, mlock {}; stop with SIGINT or SIGTERM",
        cfg.if_a,
        cfg.if_b,
        relay.pool_frames(),
        relay.frame_bytes(),
        show(relay.rt()),
        show(relay.mlock())
    );
    let report = match relay.run() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_FAILURE;
        }
    };
    if let Err(e) = report.write(&cfg.stats_path) {
        eprintln!("error: writing the statistics: {e}");
        return EXIT_FAILURE;
    }
    println!("{}", cfg.stats_path.display());
    EXIT_OK
}
