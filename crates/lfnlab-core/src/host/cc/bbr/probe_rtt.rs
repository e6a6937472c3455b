//! ProbeRTT (spec 06 §4.4 "ProbeRTT"): with RTprop 10 s old, cwnd drops to 4;
//! once in_flight ≤ 4 the mode holds for ≥ 200 ms and ≥ 1 round, long enough
//! to drain the bottleneck queue and measure the bare RTT.

use super::super::AckSample;
use super::cwnd::MIN_CWND;
use super::round::RoundMark;
use crate::engine::time::{SimTime, Span};

/// The hold that starts once in_flight has fallen to [`MIN_CWND`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hold {
    /// Earliest exit time.
    pub until: SimTime,
    /// The round that starts with the hold.
    round: RoundMark,
    /// That round is over.
    round_done: bool,
}

/// ProbeRTT's own state: `None` while in_flight is still above 4.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProbeRtt {
    pub hold: Option<Hold>,
}

impl ProbeRtt {
    /// Feed one ACK (`delivered` and `in_flight` after it); true once the
    /// hold has lasted `duration` and a round.
    pub fn update(&mut self, now: SimTime, in_flight: u64, delivered: u64, ack: &AckSample, duration: Span) -> bool {
        match &mut self.hold {
            None => {
                if in_flight as f64 <= MIN_CWND {
                    self.hold = Some(Hold { until: now + duration, round: RoundMark::new(delivered), round_done: false });
                }
                false
            }
            Some(h) => {
                if h.round.passed(ack) {
                    h.round_done = true;
                }
                h.round_done && now >= h.until
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::cc::RateSample;

    const HOLD: Span = Span::from_ms(200);

    fn at(ms: u64) -> SimTime {
        SimTime(Span::from_ms(ms).ps())
    }

    /// An ACK whose rate sample was sent when `delivered` stood at `prior`.
    fn ack(prior: u64) -> AckSample {
        let rate = RateSample { delivery_rate_bytes_per_s: 1e5, interval: Span::from_ms(10), delivered: 1, prior_delivered: prior, is_app_limited: true };
        AckSample { rate: Some(rate), ..AckSample::example(1, 1448) }
    }

    #[test]
    fn the_hold_starts_at_four_in_flight() {
        let mut p = ProbeRtt::default();
        assert!(!p.update(at(0), 50, 1000, &ack(990), HOLD));
        assert!(!p.update(at(1), 5, 1045, &ack(1000), HOLD));
        assert_eq!(p.hold, None);
        assert!(!p.update(at(2), 4, 1046, &ack(1001), HOLD));
        assert_eq!(p.hold.map(|h| h.until), Some(at(202)));
    }

    #[test]
    fn short_rtt_waits_for_200_ms() {
        // RTT 10 ms: the round is over after 10 ms, the hold after 200 ms.
        let mut p = ProbeRtt::default();
        assert!(!p.update(at(0), 4, 1000, &ack(996), HOLD));
        assert!(!p.update(at(10), 4, 1001, &ack(1000), HOLD));
        assert!(!p.update(at(199), 4, 1020, &ack(1019), HOLD));
        assert!(p.update(at(200), 4, 1021, &ack(1020), HOLD));
    }

    #[test]
    fn long_rtt_waits_for_a_round() {
        // RTT 500 ms: 200 ms pass before any segment sent after the hold
        // started (prior_delivered ≥ 1000) is delivered.
        let mut p = ProbeRtt::default();
        assert!(!p.update(at(0), 4, 1000, &ack(996), HOLD));
        assert!(!p.update(at(250), 4, 1001, &ack(997), HOLD));
        assert!(!p.update(at(499), 4, 1003, &ack(999), HOLD));
        assert!(p.update(at(500), 4, 1004, &ack(1000), HOLD));
    }
}
