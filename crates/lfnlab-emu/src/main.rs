//! The `lfnlab-emu` binary: parse, check, relay, write the statistics.
//!
//! Exit status: 0 success; 2 invalid arguments (clap's own errors also exit
//! 2), with `error: --option: what was expected`; 1 any other failure.

use std::process::ExitCode;

use clap::Parser;
use lfnlab_emu::cli::Cli;
use lfnlab_emu::relay::Relay;
use lfnlab_emu::socket;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let cfg = match cli.to_config() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    for (option, name) in [("--if-a", &cfg.if_a), ("--if-b", &cfg.if_b)] {
        if socket::if_index(name).is_none() {
            eprintln!("error: {option}: expected an existing interface, there is no \"{name}\" in this network namespace");
            return ExitCode::from(2);
        }
    }
    let relay = match Relay::open(&cfg) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    let show = |s: &lfnlab_emu::stats::SettingReport| match (&s.requested, &s.error) {
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
            return ExitCode::from(1);
        }
    };
    if let Err(e) = report.write(&cfg.stats_path) {
        eprintln!("error: writing the statistics: {e}");
        return ExitCode::from(1);
    }
    println!("{}", cfg.stats_path.display());
    ExitCode::SUCCESS
}
