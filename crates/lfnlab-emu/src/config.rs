//! The relay's configuration: typed, validated and defaulted in one place.
//!
//! Rates, sizes and times are read with the simulator's strict unit parsers
//! (`lfnlab_core::scenario::units`, spec 00 §2.1), so `100Mbps`, `128KiB` and
//! `50ms` mean here what they mean in a scenario file. Every error names the
//! option and says what was expected.

use std::path::PathBuf;
use std::str::FromStr;

use lfnlab_core::scenario::units::{ByteSize, Rate, TimeSpan};

use crate::loss::LossConfig;
use crate::shaper::ShaperConfig;

/// Picoseconds per nanosecond (the core's times are picoseconds).
const PS_PER_NS: u64 = 1_000;
/// Linux IFNAMSIZ less the terminating NUL.
const MAX_IFNAME_BYTES: usize = 15;
/// Largest batch of frames per recvmmsg/sendmmsg call.
pub const MAX_BATCH: usize = 1024;

/// A refused option: which one, and what was wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{option}: {message}")]
pub struct ConfigError {
    /// The option as written on the command line, e.g. `--rate`.
    pub option: String,
    /// What was expected and what was given.
    pub message: String,
}

impl ConfigError {
    pub fn new(option: &str, message: impl Into<String>) -> ConfigError {
        ConfigError { option: option.to_string(), message: message.into() }
    }
}

/// When the relay stops by itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunLength {
    /// After this many ns (or earlier on SIGINT/SIGTERM).
    Duration { duration_ns: u64 },
    /// Only on SIGINT/SIGTERM.
    UntilSignal,
}

/// Everything the relay needs to run.
#[derive(Clone, Debug, PartialEq)]
pub struct RelayConfig {
    /// Interface of side A (frames read here go out of `if_b`).
    pub if_a: String,
    /// Interface of side B.
    pub if_b: String,
    /// Shaping of frames from A to B.
    pub a_to_b: ShaperConfig,
    /// Shaping of frames from B to A.
    pub b_to_a: ShaperConfig,
    /// Random loss of frames from A to B, after the queue and the line (`loss`).
    pub loss_a_to_b: LossConfig,
    /// Random loss of frames from B to A.
    pub loss_b_to_a: LossConfig,
    /// Seed of the loss models' random streams.
    pub seed: u64,
    /// Names of the two directions' loss streams (`Stream::derive(seed, name)`).
    pub loss_streams: [String; 2],
    /// Frames per recvmmsg/sendmmsg call.
    pub batch: usize,
    /// SCHED_FIFO at this priority (1–99) when set.
    pub rt_priority: Option<i32>,
    /// mlockall(MCL_CURRENT | MCL_FUTURE) when set.
    pub mlock: bool,
    /// Where the statistics JSON goes.
    pub stats_path: PathBuf,
    /// Optional per-frame CSV trace.
    pub trace_path: Option<PathBuf>,
    pub run_length: RunLength,
    /// Socket receive and send buffer (SO_RCVBUFFORCE/SO_SNDBUFFORCE), bytes.
    pub socket_buffer_bytes: u64,
    /// The relay busy-waits instead of sleeping when the next departure is
    /// this close, ns (a sleeping thread wakes some µs late).
    pub spin_ns: u64,
    /// Frame buffers in the pool; `None`: sized from the limits, rates and delays.
    pub pool_frames: Option<u64>,
}

/// Parses a rate such as `100Mbps` for `option`.
pub fn parse_rate(option: &str, text: &str) -> Result<u64, ConfigError> {
    Rate::from_str(text).map(|r| r.bps).map_err(|e| ConfigError::new(option, e))
}

/// Parses a size such as `128KiB` for `option`.
pub fn parse_size(option: &str, text: &str) -> Result<u64, ConfigError> {
    ByteSize::from_str(text).map(|s| s.bytes).map_err(|e| ConfigError::new(option, e))
}

/// Parses a time such as `50ms` for `option`; it must be a whole number of ns.
pub fn parse_time_ns(option: &str, text: &str) -> Result<u64, ConfigError> {
    let ps = TimeSpan::from_str(text).map_err(|e| ConfigError::new(option, e))?.span.0;
    if ps % PS_PER_NS != 0 {
        return Err(ConfigError::new(option, format!("expected a whole number of nanoseconds, got \"{text}\"")));
    }
    Ok(ps / PS_PER_NS)
}

/// Checks an interface name for `option`.
pub fn check_ifname(option: &str, name: &str) -> Result<(), ConfigError> {
    let ok = !name.is_empty() && name.len() <= MAX_IFNAME_BYTES && !name.contains(['/', ' ', '\0']) && name != "." && name != "..";
    if ok { Ok(()) } else { Err(ConfigError::new(option, format!("expected an interface name of 1 to {MAX_IFNAME_BYTES} bytes without '/', spaces or NUL, got \"{name}\""))) }
}

impl RelayConfig {
    /// Checks the settings that each parser could not check alone.
    pub fn validate(&self) -> Result<(), ConfigError> {
        check_ifname("--if-a", &self.if_a)?;
        check_ifname("--if-b", &self.if_b)?;
        if self.if_a == self.if_b {
            return Err(ConfigError::new("--if-b", format!("expected an interface other than --if-a, got \"{}\" for both", self.if_b)));
        }
        for (suffix, s) in [("", &self.a_to_b), ("-ba", &self.b_to_a)] {
            if let Err(e) = s.validate() {
                let option = match e {
                    crate::shaper::ShaperConfigError::Rate(_) => "--rate",
                    crate::shaper::ShaperConfigError::Delay(_) => "--delay",
                    crate::shaper::ShaperConfigError::Limit(_) => "--limit",
                };
                return Err(ConfigError::new(&format!("{option}{suffix}"), e.to_string()));
            }
        }
        for (option, l) in [("--loss", &self.loss_a_to_b), ("--loss-ba", &self.loss_b_to_a)] {
            if !(0.0..=1.0).contains(&l.p) {
                return Err(ConfigError::new(option, format!("expected a probability from 0 to 1, got {}", l.p)));
            }
        }
        if self.batch == 0 || self.batch > MAX_BATCH {
            return Err(ConfigError::new("--batch", format!("expected 1 to {MAX_BATCH} frames, got {}", self.batch)));
        }
        if let Some(p) = self.rt_priority
            && !(1..=99).contains(&p)
        {
            return Err(ConfigError::new("--rt-priority", format!("expected a SCHED_FIFO priority from 1 to 99, got {p}")));
        }
        if let RunLength::Duration { duration_ns: 0 } = self.run_length {
            return Err(ConfigError::new("--duration", "expected a duration above 0 (leave it out to run until SIGINT/SIGTERM)"));
        }
        if !(64 * 1024..=1 << 30).contains(&self.socket_buffer_bytes) {
            return Err(ConfigError::new("--socket-buffer", format!("expected 64KiB to 1GiB, got {} B", self.socket_buffer_bytes)));
        }
        if self.spin_ns > 10_000_000 {
            return Err(ConfigError::new("--spin", format!("expected at most 10ms, got {} ns", self.spin_ns)));
        }
        if let Some(n) = self.pool_frames
            && !(16..=1 << 22).contains(&n)
        {
            return Err(ConfigError::new("--pool-frames", format!("expected 16 to {} frames, got {n}", 1u64 << 22)));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_parse_as_in_scenarios() {
        assert_eq!(parse_rate("--rate", "100Mbps"), Ok(100_000_000));
        assert_eq!(parse_size("--limit", "128KiB"), Ok(131_072));
        assert_eq!(parse_time_ns("--delay", "50ms"), Ok(50_000_000));
        assert_eq!(parse_time_ns("--delay", "0s"), Ok(0));
    }

    #[test]
    fn errors_name_the_option_and_the_expectation() {
        let e = parse_rate("--rate", "100").unwrap_err();
        assert_eq!(e.option, "--rate");
        assert!(e.to_string().starts_with("--rate: expected"), "{e}");
        let e = parse_time_ns("--delay", "1500ps").unwrap_err();
        assert!(e.message.contains("whole number of nanoseconds"), "{e}");
        assert!(check_ifname("--if-a", "a-very-long-interface-name").unwrap_err().message.contains("1 to 15 bytes"));
    }
}
