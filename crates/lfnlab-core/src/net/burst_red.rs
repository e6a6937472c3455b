//! The authors' network-segment model of spec 03 §2.8: a bandwidth × latency
//! FIFO in which arrivals are dropped at random with a probability that grows
//! with recent burstiness, then by RED, then by overflow.
//!
//! Order on arrival (§2.8): BurstCount += frame_len → random loss with
//! P = (1 + BurstCount/BufferSize)·base_loss → RED early drop → tail drop →
//! enqueue. BurstCount halves at every multiple of the halving period of
//! simulated time; it is brought up to date lazily at each arrival, so the
//! model needs no timer events.

use super::drop::DropCause;
use super::packet::{FlowId, Packet};
use super::queue::{Dequeue, Fifo, FlowView, Qdisc, QueueStats, Refused};
use crate::engine::rng::Stream;
use crate::engine::time::{SimTime, Span};

/// Random early detection (Floyd–Jacobson), bytes mode, with the idle-time
/// correction of the average (spec 03 §2.8, CHOICE for all but θ).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedConfig {
    pub min_th_bytes: f64,
    pub max_th_bytes: f64,
    pub max_p: f64,
    pub w_q: f64,
    /// Transmission time of a typical packet, `s` of the idle correction
    /// m = idle / s (CHOICE: a 1518-byte frame at the segment rate).
    pub idle_packet_time: Span,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BurstRedConfig {
    /// BufferSize_n = b_n/8 × L_n (the FIFO capacity, frame bytes).
    pub buffer_bytes: u64,
    /// Base loss rate, 1e-5 in the paper.
    pub base_loss: f64,
    /// BurstCount halves at every multiple of this period (1 ms).
    pub halving_period: Span,
    pub red: Option<RedConfig>,
}

/// RED's early-drop threshold fraction θ for a segment of one-way latency
/// `latency` (spec 03 §2.8): 0.99 below 3 ms, 0.50 above 55 ms, linear in between (CHOICE).
pub fn red_theta(latency: Span, low: f64, high: f64) -> f64 {
    let ms = latency.as_secs_f64() * 1e3;
    if ms <= 3.0 {
        low
    } else if ms >= 55.0 {
        high
    } else {
        low + (high - low) * (ms - 3.0) / (55.0 - 3.0)
    }
}

pub struct BurstRedQueue {
    cfg: BurstRedConfig,
    fifo: Fifo,
    rng: Stream,
    /// BurstCount_n in bytes and the halving tick it was last brought up to.
    burst_bytes: f64,
    burst_tick: u64,
    /// RED state: average queue in bytes, packets since the last early drop
    /// (−1 below min_th), and when the queue last went empty.
    avg_bytes: f64,
    count: i64,
    idle_since: Option<SimTime>,
}

impl BurstRedQueue {
    pub fn new(cfg: BurstRedConfig, rng: Stream) -> BurstRedQueue {
        assert!(cfg.buffer_bytes > 0 && cfg.halving_period > Span::ZERO);
        BurstRedQueue {
            cfg,
            fifo: Fifo::new(Some(cfg.buffer_bytes), None),
            rng,
            burst_bytes: 0.0,
            burst_tick: 0,
            avg_bytes: 0.0,
            count: -1,
            idle_since: Some(SimTime::ZERO),
        }
    }

    /// BurstCount after the halvings due by `now` (real-valued, §2.8).
    fn decay_burst(&mut self, now: SimTime) {
        let tick = now.ps() / self.cfg.halving_period.ps();
        let halvings = tick - self.burst_tick;
        if halvings > 0 {
            // 2^-1100 underflows to zero, as repeated halving would.
            self.burst_bytes *= 0.5f64.powi(halvings.min(1100) as i32);
            self.burst_tick = tick;
        }
    }

    /// Current BurstCount in bytes (after decay up to the last arrival).
    pub fn burst_bytes(&self) -> f64 {
        self.burst_bytes
    }

    /// Random-loss probability for an arrival once BurstCount includes it.
    pub fn loss_probability(&self) -> f64 {
        ((1.0 + self.burst_bytes / self.cfg.buffer_bytes as f64) * self.cfg.base_loss).min(1.0)
    }

    /// RED's verdict for an arrival at `now`: true = drop early.
    fn red_drops(&mut self, now: SimTime) -> bool {
        let Some(red) = self.cfg.red else { return false };
        let q = self.fifo.stats().bytes as f64;
        match self.idle_since {
            Some(t) if self.fifo.stats().packets == 0 => {
                let m = now.since(t).ps() as f64 / red.idle_packet_time.ps().max(1) as f64;
                self.avg_bytes *= (1.0 - red.w_q).powf(m);
            }
            _ => self.avg_bytes = (1.0 - red.w_q) * self.avg_bytes + red.w_q * q,
        }
        if self.avg_bytes < red.min_th_bytes {
            self.count = -1;
            return false;
        }
        if self.avg_bytes >= red.max_th_bytes {
            self.count = 0;
            return true;
        }
        self.count += 1;
        let p_b = red.max_p * (self.avg_bytes - red.min_th_bytes) / (red.max_th_bytes - red.min_th_bytes);
        let denom = 1.0 - self.count as f64 * p_b;
        let p_a = if denom <= 0.0 { 1.0 } else { (p_b / denom).min(1.0) };
        if self.rng.bernoulli(p_a) {
            self.count = 0;
            true
        } else {
            false
        }
    }

    pub fn avg_bytes(&self) -> f64 {
        self.avg_bytes
    }
}

impl Qdisc for BurstRedQueue {
    fn enqueue(&mut self, now: SimTime, pkt: Packet) -> Result<(), Refused> {
        self.decay_burst(now);
        self.burst_bytes += pkt.l2_bytes() as f64;
        if self.rng.bernoulli(self.loss_probability()) {
            return self.fifo.refuse(pkt, DropCause::RandomLoss);
        }
        if self.red_drops(now) {
            return self.fifo.refuse(pkt, DropCause::Red);
        }
        self.fifo.enqueue(now, pkt)?;
        self.idle_since = None;
        Ok(())
    }

    fn dequeue(&mut self, now: SimTime, view: &dyn FlowView) -> Dequeue {
        let d = self.fifo.dequeue(now, view);
        if self.fifo.stats().packets == 0 && self.idle_since.is_none() {
            self.idle_since = Some(now);
        }
        d
    }

    fn stats(&self) -> &QueueStats {
        self.fifo.stats()
    }

    fn room_packets(&self, flow: FlowId, dir: u8) -> u64 {
        self.fifo.room_packets(flow, dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::queue::NoFlows;

    fn pkt() -> Packet {
        Packet::test_udp(1500)
    }

    fn cfg(base_loss: f64, red: Option<RedConfig>) -> BurstRedConfig {
        BurstRedConfig { buffer_bytes: 1_000_000, base_loss, halving_period: Span::from_ms(1), red }
    }

    fn at_us(us: u64) -> SimTime {
        SimTime::ZERO + Span::from_us(us)
    }

    #[test]
    fn burst_count_halves_every_period() {
        let mut q = BurstRedQueue::new(cfg(0.0, None), Stream::derive(1, "t"));
        q.enqueue(at_us(100), pkt()).unwrap();
        assert_eq!(q.burst_bytes(), 1518.0);
        // Same 1 ms period: no halving.
        q.enqueue(at_us(999), pkt()).unwrap();
        assert_eq!(q.burst_bytes(), 3036.0);
        // One boundary (1 ms) passed: 3036/2 + 1518.
        q.enqueue(at_us(1000), pkt()).unwrap();
        assert_eq!(q.burst_bytes(), 1518.0 + 1518.0);
        // Three more boundaries (2, 3, 4 ms): /8, then + 1518.
        q.enqueue(at_us(4500), pkt()).unwrap();
        assert_eq!(q.burst_bytes(), 3036.0 / 8.0 + 1518.0);
    }

    #[test]
    fn loss_probability_formula() {
        let mut q = BurstRedQueue::new(cfg(1e-5, None), Stream::derive(1, "t"));
        q.enqueue(at_us(0), pkt()).ok();
        let expect = (1.0 + 1518.0 / 1_000_000.0) * 1e-5;
        assert!((q.loss_probability() - expect).abs() < 1e-18);
        // Capped at 1.
        let mut q = BurstRedQueue::new(BurstRedConfig { buffer_bytes: 100, ..cfg(0.5, None) }, Stream::derive(1, "t"));
        q.enqueue(at_us(0), pkt()).ok();
        assert_eq!(q.loss_probability(), 1.0);
    }

    #[test]
    fn random_loss_rate_matches_p_for_a_smooth_stream() {
        // One 1518-byte frame every 1 ms: BurstCount converges to 2·1518 just
        // after each arrival, so P = (1 + 3036/1e6)·1e-2.
        let mut q = BurstRedQueue::new(cfg(1e-2, None), Stream::derive(7, "t"));
        let n = 200_000u64;
        let mut lost = 0u64;
        for i in 0..n {
            let t = at_us(i * 1000 + 500);
            match q.enqueue(t, pkt()) {
                Ok(()) => {
                    q.dequeue(t, &NoFlows(1));
                }
                Err(r) => {
                    assert_eq!(r.cause, DropCause::RandomLoss);
                    lost += 1;
                }
            }
        }
        let p = (1.0 + 3036.0 / 1e6) * 1e-2;
        let sd = (n as f64 * p * (1.0 - p)).sqrt();
        assert!(((lost as f64) - n as f64 * p).abs() < 4.0 * sd, "lost {lost}, expected {}", n as f64 * p);
    }

    #[test]
    fn overflow_is_a_tail_drop() {
        let mut q = BurstRedQueue::new(BurstRedConfig { buffer_bytes: 3036, ..cfg(0.0, None) }, Stream::derive(1, "t"));
        assert!(q.enqueue(at_us(0), pkt()).is_ok());
        assert!(q.enqueue(at_us(0), pkt()).is_ok());
        assert_eq!(q.enqueue(at_us(0), pkt()).unwrap_err().cause, DropCause::Tail);
        assert_eq!(q.stats().drops.get(DropCause::Tail), 1, "the queue counts its drop");
    }

    #[test]
    fn red_drops_early_once_the_average_passes_min_th() {
        let red = RedConfig { min_th_bytes: 10_000.0, max_th_bytes: 1_000_000.0, max_p: 0.1, w_q: 0.002, idle_packet_time: Span::from_us(12) };
        let mut q = BurstRedQueue::new(cfg(0.0, Some(red)), Stream::derive(3, "t"));
        // Below min_th: never an early drop.
        for _ in 0..6 {
            assert!(q.enqueue(at_us(0), pkt()).is_ok());
        }
        // A standing queue of ~600 KB: the average climbs past min_th and RED drops some arrivals.
        let mut red_drops = 0;
        for i in 0..3000 {
            if let Err(r) = q.enqueue(at_us(i), pkt()) {
                match r.cause {
                    DropCause::Red => red_drops += 1,
                    c => panic!("unexpected cause {c:?}"),
                }
            }
            if q.stats().bytes > 600_000 {
                q.dequeue(at_us(i), &NoFlows(1));
            }
        }
        assert!(q.avg_bytes() > 10_000.0);
        assert!(red_drops > 0);
    }

    #[test]
    fn red_average_decays_over_idle_time() {
        let red = RedConfig { min_th_bytes: 1e9, max_th_bytes: 2e9, max_p: 0.1, w_q: 0.5, idle_packet_time: Span::from_us(10) };
        let mut q = BurstRedQueue::new(cfg(0.0, Some(red)), Stream::derive(3, "t"));
        q.enqueue(at_us(0), pkt()).unwrap();
        q.enqueue(at_us(0), pkt()).unwrap();
        // avg = 0.5·1518 after the second arrival.
        assert_eq!(q.avg_bytes(), 759.0);
        q.dequeue(at_us(0), &NoFlows(1));
        q.dequeue(at_us(10), &NoFlows(1));
        // Idle from 10 µs to 30 µs: m = 2 packet times, avg × 0.5².
        q.enqueue(at_us(30), pkt()).unwrap();
        assert_eq!(q.avg_bytes(), 759.0 * 0.25);
    }

    #[test]
    fn theta_interpolates_between_3_and_55_ms() {
        assert_eq!(red_theta(Span::from_ms(1), 0.99, 0.5), 0.99);
        assert_eq!(red_theta(Span::from_ms(98), 0.99, 0.5), 0.5);
        assert!((red_theta(Span::from_ms(29), 0.99, 0.5) - 0.745).abs() < 1e-12);
    }
}
