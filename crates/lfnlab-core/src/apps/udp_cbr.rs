//! `udp_cbr`: a constant-bit-rate UDP source whose rate is a transmission
//! capacity including preamble and IPG (spec 05 §2.5 rule 1): period
//! T = 8·(L3 + 38)/TC. Send times are computed from the start time and the
//! frame count in integer arithmetic, so they never drift. With Poisson
//! arrivals (spec 04 §2.12 background traffic) the gaps are exponential with
//! mean T instead.
//!
//! Optionally a share of the datagrams carries a Quick-Start Rate Request
//! (spec 02 §4.7): datagram k asks when ⌊k·share⌋ > ⌊(k−1)·share⌋, with a
//! random QS TTL and nonce per request (spec 02 §2.3.3), inside the IP length.

use crate::engine::rng::Stream;
use crate::engine::time::{PS_PER_S, SimTime, Span};
use crate::net::packet::Packet;
use crate::quickstart::nonce::random_nonce;
use crate::quickstart::option::IpQs;

/// Quick-Start requests of a CBR source.
pub struct UdpQs {
    /// Fraction of datagrams that carry a request, 0..=1.
    pub share: f64,
    /// Requested rate code.
    pub rate_code: u8,
    /// Draws the QS TTL and nonce of each request.
    pub rng: Stream,
    /// Requests sent.
    pub sent: u64,
}

impl UdpQs {
    /// Does datagram k (1-based) carry a request?
    fn asks(&self, k: u64) -> bool {
        (k as f64 * self.share).floor() > ((k - 1) as f64 * self.share).floor()
    }
}

pub struct UdpCbr {
    pub host: u32,
    pub template: Packet,
    pub rate_bps: u64,
    pub start: SimTime,
    pub stop: SimTime,
    pub sent: u64,
    pub next_at: Option<SimTime>,
    pub qs: Option<UdpQs>,
    /// Poisson arrivals: exponential gaps of mean T drawn from this stream.
    pub poisson: Option<Stream>,
}

impl UdpCbr {
    pub fn new(host: u32, template: Packet, rate_bps: u64, start: SimTime, stop: SimTime) -> UdpCbr {
        UdpCbr { host, template, rate_bps, start, stop, sent: 0, next_at: Some(start), qs: None, poisson: None }
    }

    /// Time of frame k: start + k·8·(L3 + 38)/TC.
    fn time_of(&self, k: u64) -> SimTime {
        let bits = 8 * (self.template.l3_bytes as u128 + 38);
        SimTime(self.start.0 + (k as u128 * bits * PS_PER_S as u128 / self.rate_bps as u128) as u64)
    }

    /// Emit the frame due at `now` and compute the next send time.
    pub fn fire(&mut self, now: SimTime) -> Option<Packet> {
        if now >= self.stop {
            self.next_at = None;
            return None;
        }
        self.sent += 1;
        let next = match self.poisson.as_mut() {
            None => self.time_of(self.sent),
            Some(rng) => {
                let period_ps = 8.0 * (self.template.l3_bytes as f64 + 38.0) * PS_PER_S as f64 / self.rate_bps as f64;
                now + Span((-(1.0 - rng.next_f64()).ln() * period_ps).round() as u64)
            }
        };
        self.next_at = if next < self.stop { Some(next) } else { None };
        let mut p = self.template;
        // The payload carries a per-stream sequence number and the send time
        // (spec 05 §2.5), here in the otherwise unused TCP header fields.
        p.tcp.seq = self.sent - 1;
        p.tcp.ts_val = now;
        if let Some(q) = self.qs.as_mut().filter(|q| q.asks(self.sent)) {
            let qs_ttl = (q.rng.next_u64() & 0xff) as u8;
            let nonce = random_nonce(&mut q.rng);
            p.ip.qs = IpQs::Request { rate: q.rate_code, qs_ttl, nonce }.encode();
            q.sent += 1;
        }
        Some(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poisson_gaps_are_exponential_with_the_cbr_mean() {
        let p = Packet::test_udp(1500);
        let mut a = UdpCbr::new(0, p, 500_000_000, SimTime(0), SimTime::NEVER);
        a.poisson = Some(Stream::derive(5, "bg"));
        let n = 200_000;
        let mut t = SimTime(0);
        let (mut sum, mut sum2) = (0.0, 0.0);
        for _ in 0..n {
            a.fire(t);
            let next = a.next_at.unwrap();
            let gap = next.since(t).as_secs_f64() * 1e6;
            sum += gap;
            sum2 += gap * gap;
            t = next;
        }
        let mean = sum / n as f64;
        let cv = (sum2 / n as f64 - mean * mean).sqrt() / mean;
        // T = 24.608 µs; an exponential gap has coefficient of variation 1.
        assert!((mean / 24.608 - 1.0).abs() < 0.01, "mean gap {mean} µs");
        assert!((cv - 1.0).abs() < 0.02, "cv {cv}");
    }

    #[test]
    fn datagrams_carry_their_sequence_number_and_send_time() {
        let mut a = UdpCbr::new(0, Packet::test_udp(1500), 500_000_000, SimTime(0), SimTime(PS_PER_S));
        let mut t = SimTime(0);
        for k in 0..5u64 {
            let p = a.fire(t).unwrap();
            assert_eq!((p.tcp.seq, p.tcp.ts_val), (k, t));
            t = a.next_at.unwrap();
        }
    }

    #[test]
    fn period_is_wire_time_at_tc() {
        // 1500-byte IP packets at 500 Mbit/s: T = 8·1538/5e8 = 24.608 µs.
        let p = Packet::test_udp(1500);
        let mut a = UdpCbr::new(0, p, 500_000_000, SimTime(0), SimTime(PS_PER_S));
        a.fire(SimTime(0));
        assert_eq!(a.next_at, Some(SimTime(24_608_000)));
    }

    #[test]
    fn request_share_is_exact_and_evenly_spread() {
        let p = Packet::test_udp(50);
        for (share, every) in [(0.01, 100u64), (0.25, 4), (1.0, 1)] {
            let mut a = UdpCbr::new(0, p, 1_000_000_000, SimTime(0), SimTime(PS_PER_S));
            a.qs = Some(UdpQs { share, rate_code: 7, rng: Stream::derive(1, "u"), sent: 0 });
            let asked: Vec<u64> = (1..=1000u64).filter(|_| a.fire(SimTime(0)).unwrap().ip.has_qs()).collect();
            assert_eq!(asked.len() as u64, 1000 / every, "share {share}");
            assert!(asked.iter().enumerate().all(|(i, &k)| k == (i as u64 + 1) * every), "share {share}: every {every}th");
            assert_eq!(a.qs.as_ref().unwrap().sent, 1000 / every);
        }
        let mut a = UdpCbr::new(0, p, 1_000_000_000, SimTime(0), SimTime(PS_PER_S));
        a.qs = Some(UdpQs { share: 0.0, rate_code: 7, rng: Stream::derive(1, "u"), sent: 0 });
        assert!((0..1000).all(|_| !a.fire(SimTime(0)).unwrap().ip.has_qs()));
        // A request decodes with the configured rate code; the datagram keeps its length.
        let mut a = UdpCbr::new(0, p, 1_000_000_000, SimTime(0), SimTime(PS_PER_S));
        a.qs = Some(UdpQs { share: 1.0, rate_code: 9, rng: Stream::derive(1, "u"), sent: 0 });
        let d = a.fire(SimTime(0)).unwrap();
        assert!(matches!(IpQs::decode(&d.ip.qs), Some(IpQs::Request { rate: 9, .. })));
        assert_eq!(d.l3_bytes, 50);
    }
}
