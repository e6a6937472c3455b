//! Delivery-rate sampling (spec 06 §4.2; Linux `tcp_rate.c`, the
//! draft-cheng-iccrg-delivery-rate-estimation algorithm): each segment is
//! stamped at send with the connection's delivered count and times, and an
//! ACK that newly delivers segments yields a rate sample from the
//! latest-sent of them.

use super::scoreboard::SegRecord;
use crate::engine::time::{SimTime, Span};
use crate::host::cc::RateSample;

#[derive(Clone, Debug, Default)]
pub struct DeliveryRate {
    /// Segments delivered (cumulatively ACKed or SACKed) so far (`tp->delivered`).
    pub delivered: u64,
    /// When `delivered` last grew (`tp->delivered_mstamp`).
    delivered_time: SimTime,
    /// Send time of the latest-sent segment of the last sample (`first_tx_mstamp`).
    first_sent_time: SimTime,
    /// The application limited sending until this many segments are delivered
    /// (`tp->app_limited`; 0: not limited).
    app_limited_until: u64,
    /// The latest sample, for traces.
    pub last: Option<RateSample>,
}

impl DeliveryRate {
    /// The sender is application-limited: samples until the data in flight
    /// (`pipe` segments) is delivered are marked so (`tcp_rate_check_app_limited`).
    pub fn mark_app_limited(&mut self, pipe: u64) {
        self.app_limited_until = (self.delivered + pipe).max(1);
    }

    pub fn app_limited(&self) -> bool {
        self.app_limited_until > 0
    }

    /// A transmission starts with nothing in flight: the sampling intervals
    /// start now (`tcp_rate_skb_sent`).
    pub fn restart(&mut self, now: SimTime) {
        self.first_sent_time = now;
        self.delivered_time = now;
    }

    /// Stamp a segment (new or retransmitted) with the state at its send.
    pub fn stamp(&self, seg: &mut SegRecord) {
        seg.delivered_lo32 = self.delivered as u32;
        seg.delivered_time = self.delivered_time;
        seg.first_sent_time = self.first_sent_time;
        seg.app_limited = self.app_limited();
    }

    /// An ACK newly delivered `newly_delivered` segments, of which `latest`
    /// was sent last: the sample, if its interval is at least `min_rtt`
    /// (`tcp_rate_gen`). The app-limited mark ends once its data is delivered.
    pub fn on_ack(&mut self, now: SimTime, newly_delivered: u64, latest: Option<SegRecord>, min_rtt: Option<Span>, mss: u32) -> Option<RateSample> {
        self.delivered += newly_delivered;
        let rate = latest.and_then(|p| self.sample(now, &p, min_rtt, mss));
        if rate.is_some() {
            self.last = rate;
        }
        if self.app_limited_until > 0 && self.delivered > self.app_limited_until {
            self.app_limited_until = 0;
        }
        rate
    }

    /// Delivery-rate sample for the latest-sent newly delivered segment `p`
    /// (spec 06 §4.2); `None` when the interval is shorter than min_rtt.
    fn sample(&mut self, now: SimTime, p: &SegRecord, min_rtt: Option<Span>, mss: u32) -> Option<RateSample> {
        let send_elapsed = p.sent_at.since(p.first_sent_time);
        let ack_elapsed = now.since(p.delivered_time);
        let interval = send_elapsed.max(ack_elapsed);
        self.first_sent_time = p.sent_at;
        self.delivered_time = now;
        let prior_delivered = p.delivered(self.delivered);
        let delivered = self.delivered - prior_delivered;
        if interval == Span::ZERO || min_rtt.is_some_and(|m| interval < m) {
            return None;
        }
        Some(RateSample {
            delivery_rate_bytes_per_s: (delivered * mss as u64) as f64 / interval.as_secs_f64(),
            interval,
            delivered,
            prior_delivered,
            is_app_limited: p.app_limited,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_spans_the_longer_of_the_send_and_ack_intervals() {
        // 10 segments of 1000 B sent from 0 to 9 ms, all ACKed at 100 ms: the
        // ACK interval (100 ms since delivered_time 0) is the longer one.
        let mut r = DeliveryRate::default();
        r.restart(SimTime::ZERO);
        let mut last = SegRecord::test_segment(9, 1000);
        last.sent_at = SimTime::ZERO + Span::from_ms(9);
        r.stamp(&mut last);
        let s = r.on_ack(SimTime::ZERO + Span::from_ms(100), 10, Some(last), None, 1000).expect("a sample");
        assert_eq!((s.delivered, s.interval), (10, Span::from_ms(100)));
        assert_eq!(s.delivery_rate_bytes_per_s, 100_000.0);
        // Shorter than min_rtt: no sample, but the count still grows.
        assert!(r.on_ack(SimTime::ZERO + Span::from_ms(101), 1, Some(last), Some(Span::from_ms(200)), 1000).is_none());
        assert_eq!(r.delivered, 11);
    }

    #[test]
    fn the_app_limited_mark_ends_when_its_data_is_delivered() {
        let mut r = DeliveryRate::default();
        r.mark_app_limited(3);
        assert!(r.app_limited());
        r.on_ack(SimTime::ZERO, 3, None, None, 1000);
        assert!(r.app_limited(), "delivered = 3 is not past the mark");
        r.on_ack(SimTime::ZERO, 1, None, None, 1000);
        assert!(!r.app_limited());
    }
}
