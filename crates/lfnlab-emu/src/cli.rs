//! The `lfnlab-emu` command line: the options as typed, turned into a
//! validated [`RelayConfig`]. Every refused value names its option.

use std::path::{Path, PathBuf};

use clap::Parser;

use crate::config::{self, ConfigError, RelayConfig, RunLength};
use crate::loss::LossConfig;
use crate::shaper::ShaperConfig;

const AFTER_HELP: &str = "\
Turn offloads off on every veth of the path (ethtool -K DEV gro off gso off tso off tx off):
GRO/GSO/TSO make 64 KB super-frames (dropped as oversize), and tx checksum offload leaves
checksums unfinished (counted as csum_not_ready; the receiver drops such frames).
Times are CLOCK_REALTIME (the clock of the kernel receive timestamps).
Exit status: 0 success, 2 invalid arguments, 1 other failure.";

/// Relay Ethernet frames between two interfaces, shaping each direction like
/// the lfnlab simulator's emulator port (drop-tail FIFO, rate, delay).
#[derive(Parser, Debug, Clone)]
#[command(name = "lfnlab-emu", version, about, after_help = AFTER_HELP)]
pub struct Cli {
    /// Interface of side A.
    #[arg(long = "if-a", value_name = "IFACE")]
    pub if_a: String,
    /// Interface of side B.
    #[arg(long = "if-b", value_name = "IFACE")]
    pub if_b: String,
    /// Line rate A→B (and B→A unless --rate-ba), in wire bytes: e.g. 100Mbps.
    #[arg(long, value_name = "RATE")]
    pub rate: String,
    /// Line rate B→A.
    #[arg(long = "rate-ba", value_name = "RATE")]
    pub rate_ba: Option<String>,
    /// One-way delay A→B (and B→A unless --delay-ba): e.g. 50ms.
    #[arg(long, value_name = "TIME")]
    pub delay: String,
    /// One-way delay B→A.
    #[arg(long = "delay-ba", value_name = "TIME")]
    pub delay_ba: Option<String>,
    /// Drop-tail limit A→B (and B→A unless --limit-ba), L2 bytes: e.g. 128KiB.
    #[arg(long, value_name = "SIZE")]
    pub limit: String,
    /// Drop-tail limit B→A.
    #[arg(long = "limit-ba", value_name = "SIZE")]
    pub limit_ba: Option<String>,
    /// Random loss A→B: probability per frame, applied after the queue and the
    /// line (the simulator's `link.loss` on the link from the emulator to B).
    #[arg(long, value_name = "P", default_value_t = 0.0)]
    pub loss: f64,
    /// Random loss B→A.
    #[arg(long = "loss-ba", value_name = "P", default_value_t = 0.0)]
    pub loss_ba: f64,
    /// Which frames the loss may drop: `data` (TCP segments with payload and UDP) or `all`.
    #[arg(long = "loss-applies-to", value_name = "data|all", default_value = "data")]
    pub loss_applies_to: String,
    /// Seed of the loss models' random streams.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub seed: u64,
    /// Name of the A→B loss stream under --seed; the simulator's name of a link's
    /// loss stream (`link[1].loss`) with its seed makes the relay lose the same
    /// data frames, by count, as the simulator.
    #[arg(long = "loss-stream", value_name = "NAME", default_value = "relay.a_to_b.loss")]
    pub loss_stream: String,
    /// Name of the B→A loss stream.
    #[arg(long = "loss-stream-ba", value_name = "NAME", default_value = "relay.b_to_a.loss")]
    pub loss_stream_ba: String,
    /// Stop after this long (default: run until SIGINT/SIGTERM).
    #[arg(long, value_name = "TIME")]
    pub duration: Option<String>,
    /// Statistics JSON file.
    #[arg(long, value_name = "FILE", default_value = "lfnlab-emu-stats.json")]
    pub stats: PathBuf,
    /// Per-frame CSV trace file.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// Run under SCHED_FIFO (reported in the statistics if refused).
    #[arg(long)]
    pub rt: bool,
    /// SCHED_FIFO priority with --rt.
    #[arg(long = "rt-priority", value_name = "1-99", default_value_t = 50)]
    pub rt_priority: i32,
    /// Lock all memory (mlockall; reported in the statistics if refused).
    #[arg(long)]
    pub mlock: bool,
    /// Frames per recvmmsg/sendmmsg call.
    #[arg(long, value_name = "N", default_value_t = 32)]
    pub batch: usize,
    /// Kernel socket buffers (SO_RCVBUFFORCE/SO_SNDBUFFORCE).
    #[arg(long = "socket-buffer", value_name = "SIZE", default_value = "16MiB")]
    pub socket_buffer: String,
    /// Busy-wait instead of sleeping when the next departure is this close.
    #[arg(long, value_name = "TIME", default_value = "50us")]
    pub spin: String,
    /// Frame buffers (default: enough for the limits, rates and delays, at most 262144).
    #[arg(long = "pool-frames", value_name = "N")]
    pub pool_frames: Option<u64>,
}

/// One direction from its options; B→A falls back to the A→B value.
fn direction(rate: &str, delay: &str, limit: &str, suffix: &str) -> Result<ShaperConfig, ConfigError> {
    Ok(ShaperConfig {
        rate_bps: config::parse_rate(&format!("--rate{suffix}"), rate)?,
        delay_ns: config::parse_time_ns(&format!("--delay{suffix}"), delay)?,
        limit_bytes: config::parse_size(&format!("--limit{suffix}"), limit)?,
    })
}

/// The directory `path` goes in must exist.
fn check_parent(option: &str, path: &Path) -> Result<(), ConfigError> {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() && !dir.is_dir() => Err(ConfigError::new(option, format!("expected a file in an existing directory, but \"{}\" is not a directory", dir.display()))),
        _ if path.as_os_str().is_empty() || path.is_dir() => Err(ConfigError::new(option, format!("expected a file name, got \"{}\"", path.display()))),
        _ => Ok(()),
    }
}

impl Cli {
    pub fn to_config(&self) -> Result<RelayConfig, ConfigError> {
        let a_to_b = direction(&self.rate, &self.delay, &self.limit, "")?;
        let b_to_a = direction(
            self.rate_ba.as_deref().unwrap_or(&self.rate),
            self.delay_ba.as_deref().unwrap_or(&self.delay),
            self.limit_ba.as_deref().unwrap_or(&self.limit),
            "-ba",
        )?;
        let run_length = match &self.duration {
            Some(d) => RunLength::Duration { duration_ns: config::parse_time_ns("--duration", d)? },
            None => RunLength::UntilSignal,
        };
        let data_only = match self.loss_applies_to.as_str() {
            "data" => true,
            "all" => false,
            other => return Err(ConfigError::new("--loss-applies-to", format!("expected \"data\" or \"all\", got \"{other}\""))),
        };
        check_parent("--stats", &self.stats)?;
        if let Some(t) = &self.trace {
            check_parent("--trace", t)?;
        }
        let cfg = RelayConfig {
            if_a: self.if_a.clone(),
            if_b: self.if_b.clone(),
            a_to_b,
            b_to_a,
            loss_a_to_b: LossConfig { p: self.loss, data_only },
            loss_b_to_a: LossConfig { p: self.loss_ba, data_only },
            seed: self.seed,
            loss_streams: [self.loss_stream.clone(), self.loss_stream_ba.clone()],
            batch: self.batch,
            rt_priority: self.rt.then_some(self.rt_priority),
            mlock: self.mlock,
            stats_path: self.stats.clone(),
            trace_path: self.trace.clone(),
            run_length,
            socket_buffer_bytes: config::parse_size("--socket-buffer", &self.socket_buffer)?,
            spin_ns: config::parse_time_ns("--spin", &self.spin)?,
            pool_frames: self.pool_frames,
        };
        cfg.validate()?;
        Ok(cfg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(extra: &[&str]) -> Result<RelayConfig, ConfigError> {
        let mut args = vec!["lfnlab-emu", "--if-a", "va", "--if-b", "vb", "--rate", "100Mbps", "--delay", "50ms", "--limit", "128KiB"];
        args.extend_from_slice(extra);
        Cli::try_parse_from(args).expect("clap accepts the arguments").to_config()
    }

    #[test]
    fn the_documented_example_parses() {
        let c = parse(&["--duration", "15s", "--rate-ba", "10Mbps"]).unwrap();
        assert_eq!(c.a_to_b, ShaperConfig { rate_bps: 100_000_000, delay_ns: 50_000_000, limit_bytes: 131_072 });
        assert_eq!(c.b_to_a, ShaperConfig { rate_bps: 10_000_000, ..c.a_to_b });
        assert_eq!(c.run_length, RunLength::Duration { duration_ns: 15_000_000_000 });
        assert_eq!((c.batch, c.rt_priority, c.spin_ns), (32, None, 50_000));
        assert_eq!((c.loss_a_to_b, c.loss_b_to_a, c.seed), (LossConfig::NONE, LossConfig::NONE, 1));
        let l = parse(&["--loss", "1e-3", "--loss-applies-to", "all", "--seed", "9"]).unwrap();
        assert_eq!((l.loss_a_to_b, l.loss_b_to_a.p, l.seed), (LossConfig { p: 1e-3, data_only: false }, 0.0, 9));
    }

    #[test]
    fn refusals_name_the_option() {
        let cases: &[(&[&str], &str)] = &[
            (&["--rate-ba", "0bps"], "--rate-ba"),
            (&["--limit-ba", "0B"], "--limit-ba"),
            (&["--delay-ba", "fast"], "--delay-ba"),
            (&["--batch", "0"], "--batch"),
            (&["--rt", "--rt-priority", "100"], "--rt-priority"),
            (&["--duration", "0s"], "--duration"),
            (&["--stats", "/nonexistent-dir/x.json"], "--stats"),
            (&["--spin", "1s"], "--spin"),
            (&["--loss", "1.5"], "--loss"),
            (&["--loss-ba", "2"], "--loss-ba"),
            (&["--loss-applies-to", "acks"], "--loss-applies-to"),
        ];
        for (extra, option) in cases {
            let e = parse(extra).expect_err(&format!("{extra:?} is refused"));
            assert_eq!(&e.option, option, "{e}");
            assert!(e.message.starts_with("expected") || e.message.contains("must"), "{e}");
        }
        let e = Cli::try_parse_from(["lfnlab-emu", "--if-a", "x", "--if-b", "x", "--rate", "1Gbps", "--delay", "0s", "--limit", "1MiB"]).unwrap().to_config().unwrap_err();
        assert_eq!(e.option, "--if-b");
    }

    #[test]
    fn a_bare_number_is_refused_with_the_expected_form() {
        let e = parse(&["--rate-ba", "100"]).unwrap_err();
        assert!(e.to_string().starts_with("--rate-ba: expected"), "{e}");
    }
}
