//! The sender NIC rate cap, "clock reduction" (spec 04 §2.6), in wire bytes.
//!
//! `per_frame` is `burst_k` with k = 1: the starts of successive frames are at
//! least 8·W/cap apart, each frame still serialized at R_mac. With k > 1,
//! k frames go back to back and the MAC then idles until the burst's start
//! plus Σ 8·W/cap, which keeps the average at the cap. The cap applies to
//! every frame, retransmissions included (rule 3); MAC control frames are exempt.

use crate::engine::time::{SimTime, Span};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateCapConfig {
    pub cap_bps: u64,
    /// Frames per burst (1 = `per_frame`).
    pub burst_frames: u32,
}

#[derive(Clone, Debug)]
pub struct RateCap {
    pub cfg: RateCapConfig,
    burst_start: SimTime,
    burst_frames: u32,
    /// Σ 8·W/cap of the frames of the current burst.
    burst_budget: Span,
}

impl RateCap {
    pub fn new(cfg: RateCapConfig) -> RateCap {
        debug_assert!(cfg.cap_bps > 0 && cfg.burst_frames > 0);
        // An empty, finished burst at time 0: the first frame may start at once.
        RateCap { cfg, burst_start: SimTime::ZERO, burst_frames: cfg.burst_frames, burst_budget: Span::ZERO }
    }

    /// The earliest time the next frame may start.
    #[inline]
    pub fn next_start(&self) -> SimTime {
        if self.burst_frames < self.cfg.burst_frames {
            SimTime::ZERO
        } else {
            self.burst_start + self.burst_budget
        }
    }

    /// A frame of `wire_bytes` starts at `now` (not before `next_start`).
    #[inline]
    pub fn on_start(&mut self, now: SimTime, wire_bytes: u64) {
        debug_assert!(now >= self.next_start(), "the cap was respected");
        if self.burst_frames >= self.cfg.burst_frames {
            self.burst_start = now;
            self.burst_frames = 0;
            self.burst_budget = Span::ZERO;
        }
        self.burst_frames += 1;
        self.burst_budget = self.burst_budget + Span::serialization(wire_bytes, self.cfg.cap_bps);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_frame_spaces_starts_by_wire_bytes_over_cap() {
        let mut c = RateCap::new(RateCapConfig { cap_bps: 6_000_000_000, burst_frames: 1 });
        assert_eq!(c.next_start(), SimTime::ZERO);
        c.on_start(SimTime(1_000), 9236);
        // 8·9236/6e9 = 12.3147 µs between starts.
        assert_eq!(c.next_start(), SimTime(1_000) + Span::serialization(9236, 6_000_000_000));
        let t = c.next_start();
        c.on_start(t, 9236);
        assert_eq!(c.next_start(), t + Span::serialization(9236, 6_000_000_000));
    }

    #[test]
    fn burst_k_sends_k_then_idles_to_the_average() {
        let mut c = RateCap::new(RateCapConfig { cap_bps: 5_000_000_000, burst_frames: 3 });
        let one = Span::serialization(1538, 5_000_000_000);
        let line = Span::serialization(1538, 10_000_000_000);
        let mut t = SimTime(0);
        for i in 0..3 {
            assert!(c.next_start() <= t, "frame {i} of the burst goes back to back");
            c.on_start(t, 1538);
            t = t + line;
        }
        assert_eq!(c.next_start(), SimTime(0) + one.saturating_mul(3), "then the average is restored");
        // Over many bursts the rate is the cap.
        let mut now = c.next_start();
        for _ in 0..300 {
            now = now.max(c.next_start());
            c.on_start(now, 1538);
            now = now + line;
        }
        let starts = c.next_start().as_secs_f64();
        let rate = 303.0 * 1538.0 * 8.0 / starts;
        assert!((rate / 5e9 - 1.0).abs() < 1e-3, "{rate}");
    }
}
