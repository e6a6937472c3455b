//! Reno and NewReno (spec 06 §4.4): w += credit/w; ssthresh = max(basis/2, 2).
//! The recovery mechanics (RFC 6582 / RFC 6675 / RFC 5681) live in the socket.

use super::registry::Algorithm;
use super::{AckSample, CcContext, CcParams, CongestionControl, SsthreshReason, Window};

/// `newreno` (spec 06 §4.4): no parameters; `ssthresh_basis` is a TCP parameter.
pub const NEWRENO: Algorithm = Algorithm {
    name: "newreno",
    about: "NewReno: RFC 6582 recovery without SACK, RFC 6675 with",
    params: &[],
    defaults: |_, _| CcParams::new(),
    create: |_, ctx| Box::new(Reno::new(false, ctx.basis)),
};

/// `reno` (spec 06 §4.4): RFC 5681 recovery.
pub const RENO: Algorithm = Algorithm {
    name: "reno",
    about: "Reno: RFC 5681 recovery (exit at the first new ACK)",
    params: &[],
    defaults: |_, _| CcParams::new(),
    create: |_, ctx| Box::new(Reno::new(true, ctx.basis)),
};

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
    
    fn ctx() -> CcContext {
        CcContext { srtt: Some(Span::from_ms(100)), in_flight: 100, packets_out: 100, flight_size: 100, ..CcContext::example(SimTime(0)) }
    }

    #[test]
    fn one_segment_per_rtt_with_per_segment_acks() {
        // spec 06 §4.4: +1.00 ± 0.01 per RTT with per-segment ACKs.
        let mut r = Reno::new(false, Basis::Cwnd);
        let mut w = Window { cwnd: 100.0, ssthresh: 50.0 };
        let start = w.cwnd;
        for _ in 0..100 {
            let a = AckSample::example(1, 1448);
            r.on_ack(&ctx(), &mut w, &a);
        }
        assert!((w.cwnd - start - 1.0).abs() < 0.01, "{}", w.cwnd);
        // Delayed ACKs with L = 1: 50 ACKs per RTT each worth credit 1 → +0.50.
        let mut w = Window { cwnd: 100.0, ssthresh: 50.0 };
        for _ in 0..50 {
            let a = AckSample { credit: 1.0, ..AckSample::example(2, 1448) };
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
