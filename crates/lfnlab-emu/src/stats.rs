//! Per-direction counters of the relay and the JSON statistics written at
//! the end of a run.
//!
//! Counter identity (checked in `DirStats::check` and by the tests):
//! frames_in = frames_delivered + drops (all reasons) + pending_at_stop.
//! Byte counters count captured frame bytes (Ethernet header to end of
//! payload, no FCS); the backlog is in L2 bytes (captured + FCS, at least
//! 64), as the simulator's queues count it.

use std::io;
use std::path::Path;

use serde::Serialize;

use crate::histogram::LogHistogram;
use crate::shaper::ShaperConfig;

/// Why a frame was not delivered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// The drop-tail limit (the emulated queue's own drops).
    Tail,
    /// Longer than a frame buffer (offloads on, or an MTU larger than the interface's).
    Oversize,
    /// No free frame buffer (the pool is sized too small for this traffic).
    Pool,
    /// The kernel refused to send it.
    SendError,
    /// Random loss after the queue and the line (`--loss`, `loss.rs`).
    LinkLoss,
}

impl DropReason {
    pub fn name(self) -> &'static str {
        match self {
            DropReason::Tail => "tail",
            DropReason::Oversize => "oversize",
            DropReason::Pool => "pool",
            DropReason::SendError => "send_error",
            DropReason::LinkLoss => "link_loss",
        }
    }
}

/// Counters of one direction.
#[derive(Clone, Debug, Default)]
pub struct DirStats {
    pub frames_in: u64,
    pub bytes_in: u64,
    pub frames_delivered: u64,
    pub bytes_delivered: u64,
    pub drops_tail: u64,
    pub drops_oversize: u64,
    pub drops_pool: u64,
    pub drops_send_error: u64,
    pub drops_link_loss: u64,
    pub bytes_dropped: u64,
    /// Frames forwarded with a partial checksum (checksum offload on the sender).
    pub csum_not_ready: u64,
    /// Frames without a kernel timestamp (arrival taken from the clock instead).
    pub missing_timestamps: u64,
    /// Accepted frames still waiting when the relay stopped.
    pub pending_at_stop: u64,
    /// Actual send time − scheduled departure, ns, per delivered frame; the
    /// send time is the clock right after `sendmmsg` returned (an upper bound:
    /// it includes the kernel's send path, which on a veth also runs the
    /// receiving stack).
    pub lateness: LogHistogram,
    /// The same with the clock right before `sendmmsg` was called (a lower bound).
    pub lateness_at_call: LogHistogram,
}

impl DirStats {
    #[inline]
    pub fn on_drop(&mut self, reason: DropReason, bytes: u64) {
        match reason {
            DropReason::Tail => self.drops_tail += 1,
            DropReason::Oversize => self.drops_oversize += 1,
            DropReason::Pool => self.drops_pool += 1,
            DropReason::SendError => self.drops_send_error += 1,
            DropReason::LinkLoss => self.drops_link_loss += 1,
        }
        self.bytes_dropped += bytes;
    }

    pub fn drops(&self) -> u64 {
        self.drops_tail + self.drops_oversize + self.drops_pool + self.drops_send_error + self.drops_link_loss
    }

    /// Frames accepted by the shaper and not yet sent or dropped.
    pub fn in_flight(&self) -> u64 {
        self.frames_in - self.frames_delivered - self.drops()
    }

    /// Every frame read is delivered, dropped or pending (debug builds).
    pub fn check(&self, pending_frames: u64, pending_bytes: u64) {
        debug_assert_eq!(self.frames_in, self.frames_delivered + self.drops() + pending_frames, "frame conservation");
        debug_assert_eq!(self.bytes_in, self.bytes_delivered + self.bytes_dropped + pending_bytes, "byte conservation");
    }
}

/// Lateness quantiles in µs.
#[derive(Clone, Debug, Serialize)]
pub struct LatenessReport {
    pub count: u64,
    pub p50_us: Option<f64>,
    pub p90_us: Option<f64>,
    pub p99_us: Option<f64>,
    pub p99_9_us: Option<f64>,
    pub max_us: Option<f64>,
    pub mean_us: Option<f64>,
}

fn us(ns: u64) -> f64 {
    // Three decimals: whole nanoseconds.
    ns as f64 / 1000.0
}

impl LatenessReport {
    pub fn from_histogram(h: &LogHistogram) -> LatenessReport {
        let q = |num| h.quantile_ns(num, 1000).map(us);
        let any = h.count() > 0;
        LatenessReport {
            count: h.count(),
            p50_us: q(500),
            p90_us: q(900),
            p99_us: q(990),
            p99_9_us: q(999),
            max_us: any.then(|| us(h.max_ns())),
            mean_us: any.then(|| us(h.mean_ns())),
        }
    }
}

/// Drops by reason.
#[derive(Clone, Debug, Serialize)]
pub struct DropsReport {
    pub tail: u64,
    pub oversize: u64,
    pub pool: u64,
    pub send_error: u64,
    pub link_loss: u64,
}

/// One direction in the JSON statistics.
#[derive(Clone, Debug, Serialize)]
pub struct DirReport {
    pub rate_bps: u64,
    pub delay_ns: u64,
    pub limit_bytes: u64,
    pub frames_in: u64,
    pub bytes_in: u64,
    pub frames_delivered: u64,
    pub bytes_delivered: u64,
    /// All drops; `drops_by_reason` splits them.
    pub drops: u64,
    pub drops_by_reason: DropsReport,
    pub bytes_dropped: u64,
    pub pending_at_stop: u64,
    /// High-water mark of the emulated queue, L2 bytes.
    pub max_backlog_bytes: u64,
    pub csum_not_ready: u64,
    pub missing_timestamps: u64,
    /// Send time (after `sendmmsg` returned) − scheduled departure.
    pub lateness: LatenessReport,
    /// Time `sendmmsg` was called − scheduled departure.
    pub lateness_at_call: LatenessReport,
}

impl DirReport {
    pub fn new(cfg: &ShaperConfig, s: &DirStats, max_backlog_bytes: u64) -> DirReport {
        DirReport {
            rate_bps: cfg.rate_bps,
            delay_ns: cfg.delay_ns,
            limit_bytes: cfg.limit_bytes,
            frames_in: s.frames_in,
            bytes_in: s.bytes_in,
            frames_delivered: s.frames_delivered,
            bytes_delivered: s.bytes_delivered,
            drops: s.drops(),
            drops_by_reason: DropsReport { tail: s.drops_tail, oversize: s.drops_oversize, pool: s.drops_pool, send_error: s.drops_send_error, link_loss: s.drops_link_loss },
            bytes_dropped: s.bytes_dropped,
            pending_at_stop: s.pending_at_stop,
            max_backlog_bytes,
            csum_not_ready: s.csum_not_ready,
            missing_timestamps: s.missing_timestamps,
            lateness: LatenessReport::from_histogram(&s.lateness),
            lateness_at_call: LatenessReport::from_histogram(&s.lateness_at_call),
        }
    }
}

/// Whether an optional setting (SCHED_FIFO, mlockall) took effect.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SettingReport {
    pub requested: bool,
    pub active: bool,
    /// Why it did not take effect.
    pub error: Option<String>,
}

impl SettingReport {
    pub fn from_result(requested: bool, r: Option<io::Result<()>>) -> SettingReport {
        match r {
            Some(Ok(())) => SettingReport { requested, active: true, error: None },
            Some(Err(e)) => SettingReport { requested, active: false, error: Some(e.to_string()) },
            None => SettingReport { requested, active: false, error: None },
        }
    }
}

/// The framing the relay charges per frame (spec 06 §1.2).
#[derive(Clone, Debug, Serialize)]
pub struct FramingReport {
    /// Added to the captured length for L2 (the FCS the capture lacks).
    pub fcs_bytes: u64,
    /// L2 is at least this (the shortest Ethernet frame).
    pub min_l2_bytes: u64,
    /// Added to L2 for the wire: preamble/SFD 8 + IPG 12.
    pub preamble_and_gap_bytes: u64,
}

/// The whole statistics file.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub if_a: String,
    pub if_b: String,
    /// The clock of every timestamp: CLOCK_REALTIME (that of SO_TIMESTAMPNS).
    pub clock: &'static str,
    pub started_unix_ns: u64,
    pub stopped_unix_ns: u64,
    /// Why the relay stopped: "signal" or "duration".
    pub stopped_by: &'static str,
    pub framing: FramingReport,
    pub rt: SettingReport,
    pub mlock: SettingReport,
    pub timer_slack_ns: Option<u64>,
    pub batch: usize,
    pub spin_ns: u64,
    /// Time spent busy-waiting, ns.
    pub busy_wait_ns: u64,
    /// 100-ms windows in which the busy-wait budget (20 ms) ran out (`spin`).
    pub busy_wait_budget_exhausted_windows: u64,
    pub pool_frames: usize,
    pub frame_buffer_bytes: usize,
    pub trace_path: Option<String>,
    /// A trace write error, if the trace stopped early.
    pub trace_error: Option<String>,
    pub a_to_b: DirReport,
    pub b_to_a: DirReport,
}

impl Report {
    /// Writes the report as pretty JSON to `path`.
    pub fn write(&self, path: &Path) -> io::Result<()> {
        let text = serde_json::to_string_pretty(self).map_err(io::Error::other)?;
        std::fs::write(path, text + "\n").map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drops_add_up() {
        let mut s = DirStats { frames_in: 5, bytes_in: 5000, frames_delivered: 2, bytes_delivered: 2000, ..DirStats::default() };
        s.on_drop(DropReason::Tail, 1000);
        s.on_drop(DropReason::Pool, 1000);
        assert_eq!((s.drops(), s.in_flight()), (2, 1));
        s.check(1, 1000);
        s.frames_in += 1;
        s.bytes_in += 500;
        s.on_drop(DropReason::LinkLoss, 500);
        s.check(1, 1000);
        s.lateness.record(20_000);
        let r = DirReport::new(&ShaperConfig { rate_bps: 1, delay_ns: 0, limit_bytes: 64 }, &s, 0);
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["drops"], 3);
        assert_eq!(json["drops_by_reason"]["link_loss"], 1);
        assert_eq!(json["drops_by_reason"]["tail"], 1);
        assert_eq!(json["lateness"]["p99_us"], 20.0);
    }
}
