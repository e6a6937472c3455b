//! Reno and NewReno (spec 06 §4.4): w += credit/w; ssthresh = max(basis/2, 2).
//! The recovery mechanics (RFC 6582 / RFC 6675 / RFC 5681) live in the socket.

use super::{AckSample, CcContext, CongestionControl, SsthreshReason, Window};

/// What the halving starts from (spec 06 §2.1 `ssthresh_basis`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Basis {
    Cwnd,
    FlightSize,
}

pub struct Reno {
    /// `reno`: RFC 5681 recovery; `newreno`: RFC 6582/6675.
    classic: bool,
    basis: Basis,
}

impl Reno {
    pub fn new(classic: bool, basis: Basis) -> Reno {
        Reno { classic, basis }
    }
}

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        if self.classic { "reno" } else { "newreno" }
    }

    fn on_ack(&mut self, _ctx: &CcContext, w: &mut Window, ack: &AckSample) {
        // Additive increase: one segment per window of credit.
        w.cwnd += ack.credit / w.cwnd;
    }

    fn ssthresh(&mut self, ctx: &CcContext, w: &Window, _reason: SsthreshReason) -> f64 {
        let basis = match self.basis {
            Basis::Cwnd => w.cwnd,
            Basis::FlightSize => ctx.flight_size as f64,
        };
        (basis / 2.0).max(2.0)
    }

    fn reno_recovery(&self) -> bool {
        self.classic
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::{SimTime, Span};
    use crate::host::cc::CaState;

    fn ctx() -> CcContext {
        CcContext {
            now: SimTime(0),
            mss_bytes: 1448,
            srtt: Some(Span::from_ms(100)),
            rttvar: Span::ZERO,
            min_rtt: None,
            latest_rtt: None,
            in_flight: 100,
            packets_out: 100,
            flight_size: 100,
            delivered: 0,
            ca_state: CaState::Open,
            app_limited: false,
        }
    }

    #[test]
    fn one_segment_per_rtt_with_per_segment_acks() {
        // spec 06 §4.4: +1.00 ± 0.01 per RTT with per-segment ACKs.
        let mut r = Reno::new(false, Basis::Cwnd);
        let mut w = Window { cwnd: 100.0, ssthresh: 50.0 };
        let start = w.cwnd;
        for _ in 0..100 {
            let a = AckSample { acked_segments: 1, acked_bytes: 1448, credit: 1.0, rtt: None, prior_in_flight: 100 };
            r.on_ack(&ctx(), &mut w, &a);
        }
        assert!((w.cwnd - start - 1.0).abs() < 0.01, "{}", w.cwnd);
        // Delayed ACKs with L = 1: 50 ACKs per RTT each worth credit 1 → +0.50.
        let mut w = Window { cwnd: 100.0, ssthresh: 50.0 };
        for _ in 0..50 {
            let a = AckSample { acked_segments: 2, acked_bytes: 2896, credit: 1.0, rtt: None, prior_in_flight: 100 };
            r.on_ack(&ctx(), &mut w, &a);
        }
        assert!((w.cwnd - 100.5).abs() < 0.01, "{}", w.cwnd);
    }

    #[test]
    fn halves() {
        let mut r = Reno::new(false, Basis::Cwnd);
        let w = Window { cwnd: 100.0, ssthresh: f64::INFINITY };
        assert_eq!(r.ssthresh(&ctx(), &w, SsthreshReason::FastRetransmit), 50.0);
        let w = Window { cwnd: 3.0, ssthresh: f64::INFINITY };
        assert_eq!(r.ssthresh(&ctx(), &w, SsthreshReason::Rto), 2.0);
    }
}
