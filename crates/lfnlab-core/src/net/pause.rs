//! IEEE 802.3x PAUSE (spec 04 §2.5): the one PAUSE model of lfnlab.
//!
//! - [`pause_span`] converts quanta (512 bit times) to time at a MAC rate.
//! - [`PauseHonour`] is the state of a port that obeys PAUSE: a PAUSE(q)
//!   received at t stops new data frames until t + (react + q) quanta; a later
//!   PAUSE restarts the timer; q = 0 clears a pause in effect and otherwise does
//!   nothing, so spec 01's gap frames (PAUSE with pause_time 0) stay harmless.
//! - [`XoffGenerator`] decides when a receiver sends PAUSE from its buffer
//!   occupancy: XOFF at `xoff`, refresh every `refresh` while above `xon`,
//!   PAUSE(0) at `xon` or below.
//!
//! Both are sans-IO: the world sends and delivers the frames.

use crate::engine::time::{SimTime, Span};

/// One pause quantum is 512 bit times (51.2 ns at 10 Gbit/s).
pub const QUANTUM_BITS: u64 = 512;
/// A PAUSE frame is a 64-byte MAC control frame.
pub const PAUSE_L2_BYTES: u64 = 64;
/// Its wire footprint: 64 + preamble/SFD + gap = 84 B.
pub const PAUSE_WIRE_BYTES: u64 = PAUSE_L2_BYTES + super::phy::PREAMBLE_AND_GAP_BYTES;

/// `q` quanta at `rate_bps`: q·512 / R_mac.
pub fn pause_span(quanta: u64, rate_bps: u64) -> Span {
    Span::serialization(quanta * QUANTUM_BITS / 8, rate_bps)
}

/// Headroom `H = 2·W(MTU) + 84 + (2·d_prop·R_mac + react·512)/8` bytes
/// (spec 04 §2.5): the frame in flight, one the peer may have started, the
/// PAUSE itself, the cable round trip and the peer's reaction time.
pub fn headroom_bytes(mtu_wire_bytes: u64, d_prop: Span, rate_bps: u64, react_quanta: u64) -> u64 {
    let cable_bits = (2 * d_prop.0 as u128 * rate_bps as u128).div_ceil(crate::engine::time::PS_PER_S as u128) as u64;
    2 * mtu_wire_bytes + PAUSE_WIRE_BYTES + (cable_bits + react_quanta * QUANTUM_BITS).div_ceil(8)
}

/// A port that honours PAUSE (`fc.honour`).
#[derive(Clone, Debug, Default)]
pub struct PauseHonour {
    /// No new data frame starts before this time.
    pub paused_until: SimTime,
    /// Start of the current (or last) paused interval.
    since: SimTime,
    /// Paused time of the intervals already closed.
    closed: Span,
    /// PAUSE frames received with q > 0, and with q = 0.
    pub received_xoff: u64,
    pub received_xon: u64,
}

impl PauseHonour {
    /// A PAUSE(q) arrived at `now`; `react` is the reaction delay and `quantum`
    /// the time of one quantum at the port's rate.
    pub fn on_pause(&mut self, now: SimTime, quanta: u16, react: Span, quantum: Span) {
        if quanta == 0 {
            self.received_xon += 1;
            if self.paused_until > now {
                self.paused_until = now;
            }
            return;
        }
        self.received_xoff += 1;
        if self.paused_until <= now {
            // A new paused interval: close the last one.
            self.closed = self.closed + self.paused_until.since(self.since);
            self.since = now;
        }
        self.paused_until = now + react + quantum.saturating_mul(quanta as u64);
    }

    #[inline]
    pub fn is_paused(&self, now: SimTime) -> bool {
        self.paused_until > now
    }

    /// Total paused time up to `end`.
    pub fn paused_time(&self, end: SimTime) -> Span {
        self.closed + self.paused_until.min(end).since(self.since)
    }
}

/// Thresholds of a PAUSE generator (bytes of buffer occupancy).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct XoffConfig {
    pub xoff_bytes: u64,
    pub xon_bytes: u64,
    pub pause_quanta: u16,
    pub refresh: Span,
}

/// The generator side of flow control (spec 04 §2.5 generation rules 1–3).
#[derive(Clone, Debug)]
pub struct XoffGenerator {
    pub cfg: XoffConfig,
    xoff: bool,
    /// When the next refresh is due while in XOFF.
    refresh_at: Option<SimTime>,
    pub sent_xoff: u64,
    pub sent_xon: u64,
}

impl XoffGenerator {
    pub fn new(cfg: XoffConfig) -> XoffGenerator {
        debug_assert!(cfg.xon_bytes < cfg.xoff_bytes, "xon below xoff");
        XoffGenerator { cfg, xoff: false, refresh_at: None, sent_xoff: 0, sent_xon: 0 }
    }

    /// Occupancy changed to `bytes` at `now`: the PAUSE to send, if any.
    pub fn on_level(&mut self, now: SimTime, bytes: u64) -> Option<u16> {
        if !self.xoff && bytes >= self.cfg.xoff_bytes {
            self.xoff = true;
            self.sent_xoff += 1;
            self.refresh_at = Some(now + self.cfg.refresh);
            return Some(self.cfg.pause_quanta);
        }
        if self.xoff && bytes <= self.cfg.xon_bytes {
            self.xoff = false;
            self.refresh_at = None;
            self.sent_xon += 1;
            return Some(0);
        }
        None
    }

    /// The refresh timer fired at `now` with occupancy `bytes` (rule 2).
    pub fn on_refresh(&mut self, now: SimTime, bytes: u64) -> Option<u16> {
        if self.refresh_at.is_none_or(|t| t > now) {
            return None;
        }
        if self.xoff && bytes > self.cfg.xon_bytes {
            self.sent_xoff += 1;
            self.refresh_at = Some(now + self.cfg.refresh);
            return Some(self.cfg.pause_quanta);
        }
        self.refresh_at = None;
        None
    }

    pub fn refresh_at(&self) -> Option<SimTime> {
        self.refresh_at
    }

    pub fn in_xoff(&self) -> bool {
        self.xoff
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quanta_convert_at_one_and_ten_gigabit() {
        // One quantum: 512 bit times = 51.2 ns at 10 Gbit/s, 512 ns at 1 Gbit/s.
        assert_eq!(pause_span(1, 10_000_000_000), Span(51_200));
        assert_eq!(pause_span(1, 1_000_000_000), Span(512_000));
        // The largest pause: 65535 quanta = 3.355392 ms at 10 Gbit/s, 33.55392 ms at 1 Gbit/s.
        assert_eq!(pause_span(65_535, 10_000_000_000), Span(3_355_392_000));
        assert_eq!(pause_span(65_535, 1_000_000_000), Span(33_553_920_000));
        // The default reaction delay, 60 quanta, is 3.072 µs at 10 Gbit/s.
        assert_eq!(pause_span(60, 10_000_000_000), Span::from_ns(3_072));
    }

    #[test]
    fn headroom_of_the_default_host() {
        // MTU 9198: W = 9236; 10 m of cable at 5 ns/m; 60 quanta at 10 Gbit/s.
        // 2·9236 + 84 + (1000 + 30720)/8 = 18556 + 3965 = 22521 B.
        assert_eq!(headroom_bytes(9236, Span::from_ns(50), 10_000_000_000, 60), 22_521);
    }

    #[test]
    fn a_later_pause_restarts_the_timer_and_zero_clears() {
        let q = pause_span(1, 10_000_000_000);
        let react = pause_span(60, 10_000_000_000);
        let mut h = PauseHonour::default();
        h.on_pause(SimTime(1_000), 100, react, q);
        assert_eq!(h.paused_until, SimTime(1_000) + react + Span(100 * 51_200));
        h.on_pause(SimTime(2_000), 10, react, q);
        assert_eq!(h.paused_until, SimTime(2_000) + react + Span(10 * 51_200), "restarts, even if shorter");
        assert!(h.is_paused(SimTime(2_001)));
        h.on_pause(SimTime(3_000), 0, react, q);
        assert!(!h.is_paused(SimTime(3_000)), "PAUSE(0) clears");
        assert_eq!(h.paused_time(SimTime(10_000)), Span(2_000));
        // PAUSE(0) with no pause in effect does nothing (spec 01 gap frames).
        let before = h.paused_until;
        h.on_pause(SimTime(20_000), 0, react, q);
        assert_eq!(h.paused_until, before);
        assert_eq!((h.received_xoff, h.received_xon), (2, 2));
    }

    #[test]
    fn generator_hysteresis_and_refresh() {
        let cfg = XoffConfig { xoff_bytes: 200, xon_bytes: 100, pause_quanta: 65_535, refresh: Span(50) };
        let mut g = XoffGenerator::new(cfg);
        assert_eq!(g.on_level(SimTime(0), 199), None);
        assert_eq!(g.on_level(SimTime(1), 200), Some(65_535));
        assert_eq!(g.on_level(SimTime(2), 250), None, "once per XOFF episode");
        assert_eq!(g.refresh_at(), Some(SimTime(51)));
        assert_eq!(g.on_refresh(SimTime(50), 150), None, "not due yet");
        assert_eq!(g.on_refresh(SimTime(51), 150), Some(65_535), "above xon: repeat");
        assert_eq!(g.refresh_at(), Some(SimTime(101)));
        assert_eq!(g.on_level(SimTime(60), 101), None);
        assert_eq!(g.on_level(SimTime(61), 100), Some(0), "at xon: PAUSE(0)");
        assert!(!g.in_xoff() && g.refresh_at().is_none());
        assert_eq!((g.sent_xoff, g.sent_xon), (2, 1));
    }
}
