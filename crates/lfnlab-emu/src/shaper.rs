//! One direction of the emulator, sans-IO: a drop-tail FIFO served at a fixed
//! line rate, followed by a fixed one-way delay.
//!
//! This is the simulator's eager router/emulator port (`lfnlab-core`
//! `net::eager_fifo` and `sim::early::enqueue_eager`) on a real clock:
//!
//! * a frame counts in the backlog from its acceptance until its transmission
//!   starts (`EagerFifo::settle`), in L2 bytes (`TailLimit`, spec 01 §2.8:
//!   drop if queued frame bytes + frame > limit, docs/choices.md "Drop-tail byte limit");
//! * an accepted frame starts at max(arrival, end of the previous frame),
//!   takes wire bytes × 8 / rate on the line and is delivered at
//!   start + serialization + delay (spec 06 §1.2);
//! * wire bytes = L2 + 8 (preamble/SFD) + 12 (IPG) (docs/choices.md
//!   "Router/emulator port gap"), L2 = max(captured + 4 (FCS), 64); see [`l2_bytes`].
//!
//! Time is integer nanoseconds. The end of the line's busy period is kept
//! exactly, as whole nanoseconds plus a remainder in units of 1/rate ns, so
//! serialization times that are not whole nanoseconds do not accumulate a
//! rounding error; reported starts and departures are rounded up to the next
//! nanosecond (the simulator rounds each serialization up to the picosecond).

use std::collections::VecDeque;

use lfnlab_core::net::phy::{MIN_FRAME_BYTES, PREAMBLE_AND_GAP_BYTES};

/// Frame check sequence: AF_PACKET hands over a frame without it.
pub const FCS_BYTES: u64 = 4;
/// Nanoseconds per second.
const NS_PER_S: u64 = 1_000_000_000;
/// The largest rate accepted (10 Tbit/s): keeps the exact remainder
/// arithmetic inside u64 (remainders stay below 2 × rate).
pub const MAX_RATE_BPS: u64 = 10_000_000_000_000;
/// The longest one-way delay accepted (one hour).
pub const MAX_DELAY_NS: u64 = 3_600 * NS_PER_S;
/// The largest frame the shaper accepts, in captured bytes (the largest
/// packet-socket read); bounds the serialization arithmetic.
pub const MAX_CAPTURED_BYTES: u64 = 1 << 18;

/// L2 frame bytes of a frame captured by AF_PACKET: the capture runs from the
/// destination MAC address to the end of the payload (no FCS, and on a veth
/// no padding), so L2 = max(captured + 4, 64), which is the simulator's
/// max(L3 + 18, 64) (spec 06 §1.2, `net::phy::l2_bytes`) for an untagged frame.
#[inline]
pub fn l2_bytes(captured_bytes: u64) -> u64 {
    (captured_bytes + FCS_BYTES).max(MIN_FRAME_BYTES)
}

/// Bytes a frame occupies on the line: L2 + preamble/SFD + IPG = L2 + 20
/// (spec 06 §1.2, `net::phy::wire_bytes`).
#[inline]
pub fn wire_bytes(captured_bytes: u64) -> u64 {
    l2_bytes(captured_bytes) + PREAMBLE_AND_GAP_BYTES
}

/// The settings of one direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShaperConfig {
    /// Line rate in bit/s, counted in wire bytes (see [`wire_bytes`]).
    pub rate_bps: u64,
    /// One-way delay added after serialization, ns.
    pub delay_ns: u64,
    /// Drop-tail limit on the backlog, L2 bytes.
    pub limit_bytes: u64,
}

/// Why a [`ShaperConfig`] was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShaperConfigError {
    #[error("the rate must be above 0 bit/s and at most 10Tbps, got {0} bit/s")]
    Rate(u64),
    #[error("the delay must be at most 1 hour, got {0} ns")]
    Delay(u64),
    #[error("the limit must hold at least one minimum frame ({MIN_FRAME_BYTES} B), got {0} B")]
    Limit(u64),
}

impl ShaperConfig {
    pub fn validate(&self) -> Result<(), ShaperConfigError> {
        if self.rate_bps == 0 || self.rate_bps > MAX_RATE_BPS {
            return Err(ShaperConfigError::Rate(self.rate_bps));
        }
        if self.delay_ns > MAX_DELAY_NS {
            return Err(ShaperConfigError::Delay(self.delay_ns));
        }
        if self.limit_bytes < MIN_FRAME_BYTES {
            return Err(ShaperConfigError::Limit(self.limit_bytes));
        }
        Ok(())
    }

    /// The most frames the backlog can hold: every frame is at least 64 L2 bytes.
    pub fn max_backlog_frames(&self) -> u64 {
        self.limit_bytes / MIN_FRAME_BYTES
    }
}

/// What happens to an offered frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Accepted: its transmission starts at `start_ns` and its last bit
    /// reaches the far side at `depart_ns` (send it then).
    Deliver { start_ns: u64, depart_ns: u64 },
    /// The backlog plus this frame would exceed the limit (drop-tail).
    Drop,
}

/// A frame accepted whose transmission has not started yet.
#[derive(Clone, Copy, Debug)]
struct Waiting {
    start_ns: u64,
    l2_bytes: u64,
}

/// One direction's FIFO and line.
#[derive(Debug)]
pub struct Shaper {
    cfg: ShaperConfig,
    /// End of the last accepted frame's transmission: `busy_ns + busy_frac / rate_bps` ns exactly.
    busy_ns: u64,
    /// Fraction of a nanosecond beyond `busy_ns`, in units of 1/rate_bps ns; < rate_bps.
    busy_frac: u64,
    /// Accepted frames whose transmission starts after the last `settle`, in start order.
    waiting: VecDeque<Waiting>,
    /// L2 bytes of `waiting`.
    backlog_bytes: u64,
    /// High-water mark of `backlog_bytes`, taken right after each acceptance
    /// (as `QueueStats::max_bytes`).
    max_backlog_bytes: u64,
    /// Start of the last accepted frame (starts are non-decreasing).
    last_start_ns: u64,
}

impl Shaper {
    /// A shaper for a validated configuration. The backlog's storage is
    /// allocated here for the most frames the limit admits, so `offer` never allocates.
    pub fn new(cfg: ShaperConfig) -> Result<Shaper, ShaperConfigError> {
        cfg.validate()?;
        let frames = cfg.max_backlog_frames() as usize + 1;
        Ok(Shaper { cfg, busy_ns: 0, busy_frac: 0, waiting: VecDeque::with_capacity(frames), backlog_bytes: 0, max_backlog_bytes: 0, last_start_ns: 0 })
    }

    pub fn config(&self) -> &ShaperConfig {
        &self.cfg
    }

    /// L2 bytes accepted and not started as of the last `offer`/`settle`.
    pub fn backlog_bytes(&self) -> u64 {
        self.backlog_bytes
    }

    /// High-water mark of the backlog, L2 bytes.
    pub fn max_backlog_bytes(&self) -> u64 {
        self.max_backlog_bytes
    }

    /// Serialization of a frame: whole ns and remainder in units of 1/rate ns.
    #[inline]
    fn serialization(&self, captured_bytes: u64) -> (u64, u64) {
        let bits_ns = wire_bytes(captured_bytes) * 8 * NS_PER_S;
        (bits_ns / self.cfg.rate_bps, bits_ns % self.cfg.rate_bps)
    }

    /// Frames whose transmission started by `now_ns` leave the backlog
    /// (`EagerFifo::settle`).
    #[inline]
    pub fn settle(&mut self, now_ns: u64) {
        while let Some(w) = self.waiting.front().filter(|w| w.start_ns <= now_ns).copied() {
            self.waiting.pop_front();
            self.backlog_bytes -= w.l2_bytes;
        }
    }

    /// A frame of `captured_bytes` (Ethernet header to end of payload) arrives at `now_ns`.
    pub fn offer(&mut self, now_ns: u64, captured_bytes: u64) -> Verdict {
        let captured_bytes = captured_bytes.min(MAX_CAPTURED_BYTES);
        self.settle(now_ns);
        let l2 = l2_bytes(captured_bytes);
        // spec 01 §2.8: drop if queued + frame > limit (`TailLimit::fits`).
        if self.backlog_bytes + l2 > self.cfg.limit_bytes {
            return Verdict::Drop;
        }
        // start = max(arrival, end of the previous frame), compared exactly.
        let (start_ns, start_frac) = if (now_ns, 0) >= (self.busy_ns, self.busy_frac) { (now_ns, 0) } else { (self.busy_ns, self.busy_frac) };
        let (ser_ns, ser_frac) = self.serialization(captured_bytes);
        let frac = start_frac + ser_frac;
        let end_ns = start_ns.saturating_add(ser_ns).saturating_add(frac / self.cfg.rate_bps);
        let end_frac = frac % self.cfg.rate_bps;
        (self.busy_ns, self.busy_frac) = (end_ns, end_frac);

        let start_ceil_ns = start_ns.saturating_add(u64::from(start_frac > 0));
        let depart_ns = end_ns.saturating_add(u64::from(end_frac > 0)).saturating_add(self.cfg.delay_ns);
        debug_assert!(start_ceil_ns >= self.last_start_ns, "FIFO starts are non-decreasing");
        self.last_start_ns = start_ceil_ns;
        self.waiting.push_back(Waiting { start_ns: start_ceil_ns, l2_bytes: l2 });
        self.backlog_bytes += l2;
        self.max_backlog_bytes = self.max_backlog_bytes.max(self.backlog_bytes);
        debug_assert!(self.backlog_bytes <= self.cfg.limit_bytes, "the backlog never exceeds the limit");
        debug_assert!(self.waiting.len() as u64 <= self.cfg.max_backlog_frames() + 1);
        Verdict::Deliver { start_ns: start_ceil_ns, depart_ns }
    }
}

#[cfg(test)]
#[path = "shaper_tests.rs"]
mod tests;
