//! "One round has passed since now" for BBR's own timers (packet conservation
//! in Recovery, the ProbeRTT hold), counted from a moment that need not be
//! the socket's round boundary.

use super::super::AckSample;

/// A round that started when the `delivered` counter stood at `delivered`:
/// it is over once a segment sent after that moment is delivered, i.e. a rate
/// sample's `prior_delivered` reaches the mark (Linux `next_rtt_delivered`).
/// Two socket round ends also close it, so the timer cannot hang on a path
/// whose ACKs carry no rate samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoundMark {
    /// `delivered` (segments) when the round started.
    delivered: u64,
    /// Socket round ends seen since then.
    socket_rounds: u32,
}

impl RoundMark {
    pub fn new(delivered: u64) -> RoundMark {
        RoundMark { delivered, socket_rounds: 0 }
    }

    /// Feed one ACK; true once the round is over.
    pub fn passed(&mut self, ack: &AckSample) -> bool {
        if ack.round_start {
            self.socket_rounds += 1;
        }
        self.reached(ack) || self.socket_rounds >= 2
    }

    /// The ACK's rate sample is of a segment sent after the mark: the
    /// packet-timed test alone, without the socket-round fallback (BBR's own
    /// round counter, Linux `bbr_update_bw`).
    pub fn reached(&self, ack: &AckSample) -> bool {
        ack.rate.is_some_and(|r| r.prior_delivered >= self.delivered)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::Span;
    use crate::host::cc::RateSample;

    fn ack(prior_delivered: Option<u64>, round_start: bool) -> AckSample {
        let rate = prior_delivered.map(|p| RateSample {
            delivery_rate_bytes_per_s: 1e6,
            interval: Span::from_ms(10),
            delivered: 1,
            prior_delivered: p,
            is_app_limited: false,
        });
        AckSample { round_start, rate, ..AckSample::example(1, 1448) }
    }

    #[test]
    fn over_when_a_segment_sent_after_the_mark_is_delivered() {
        let mut m = RoundMark::new(500);
        // Segments sent before the mark (delivered counter 420..499 at send).
        assert!(!m.passed(&ack(Some(420), false)));
        assert!(!m.passed(&ack(Some(499), true)));
        assert!(!m.passed(&ack(None, false)));
        assert!(m.passed(&ack(Some(500), false)));
    }

    #[test]
    fn two_socket_rounds_close_it_without_samples() {
        let mut m = RoundMark::new(500);
        assert!(!m.passed(&ack(None, true)));
        assert!(m.passed(&ack(None, true)));
    }
}
