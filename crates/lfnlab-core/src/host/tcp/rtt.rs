//! RTT estimation and the retransmission timeout (spec 06 §2.6, RFC 6298).

use super::config::RtoFormula;
use crate::engine::time::Span;

#[derive(Clone, Debug)]
pub struct RttEstimator {
    pub srtt: Option<Span>,
    pub rttvar: Span,
    pub min_rtt: Option<Span>,
    pub latest: Option<Span>,
    /// Base RTO before backoff.
    rto_base: Span,
    /// Exponential backoff count (spec 06 §2.5 RTO step 3).
    pub backoff: u32,
    formula: RtoFormula,
    rto_min: Span,
    rto_max: Span,
}

/// Clock granularity G of RFC 6298 (1 ms, spec 06 §2.6).
const G: Span = Span::from_ms(1);

impl RttEstimator {
    pub fn new(formula: RtoFormula, rto_init: Span, rto_min: Span, rto_max: Span) -> RttEstimator {
        RttEstimator {
            srtt: None,
            rttvar: Span::ZERO,
            min_rtt: None,
            latest: None,
            rto_base: rto_init,
            backoff: 0,
            formula,
            rto_min,
            rto_max,
        }
    }

    /// Feed one valid sample R. Clears the backoff (spec 06 §2.5 RTO step 5).
    pub fn sample(&mut self, r: Span) {
        self.latest = Some(r);
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        match self.srtt {
            None => {
                // RFC 6298 §2.2
                self.srtt = Some(r);
                self.rttvar = Span(r.0 / 2);
            }
            Some(srtt) => {
                // RFC 6298 §2.3: RTTVAR ← ¾·RTTVAR + ¼·|SRTT − R|, SRTT ← ⅞·SRTT + ⅛·R
                let diff = srtt.0.abs_diff(r.0);
                self.rttvar = Span((3 * self.rttvar.0 + diff) / 4);
                self.srtt = Some(Span((7 * srtt.0 + r.0) / 8));
            }
        }
        let srtt = self.srtt.unwrap();
        self.rto_base = match self.formula {
            // max(SRTT + max(G, 4·RTTVAR), rto_min)
            RtoFormula::Rfc6298 => (srtt + G.max(Span(4 * self.rttvar.0))).max(self.rto_min),
            // SRTT + max(4·RTTVAR, rto_min)
            RtoFormula::Linux => srtt + Span(4 * self.rttvar.0).max(self.rto_min),
        };
        self.backoff = 0;
    }

    /// Current RTO including backoff, capped at rto_max.
    pub fn rto(&self) -> Span {
        let base = self.rto_base.min(self.rto_max);
        let mult = 1u64.checked_shl(self.backoff.min(40)).unwrap_or(u64::MAX);
        base.saturating_mul(mult).min(self.rto_max)
    }

    pub fn back_off(&mut self) {
        if self.rto() < self.rto_max {
            self.backoff += 1;
        }
    }

    /// RFC 6298 §5.7: after a retransmitted SYN, RTO is at least 3 s when data starts.
    pub fn raise_to(&mut self, floor: Span) {
        self.rto_base = self.rto_base.max(floor);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_sample_rto() {
        // spec 06 §7 V7: first R = 100 ms → SRTT 100, RTTVAR 50.
        // linux: 100 + max(200, 200) = 300 ms; rfc6298 with 1 s min: 1 s.
        let mut l = RttEstimator::new(RtoFormula::Linux, Span::from_secs(1), Span::from_ms(200), Span::from_secs(120));
        l.sample(Span::from_ms(100));
        assert_eq!(l.rto(), Span::from_ms(300));
        let mut r = RttEstimator::new(RtoFormula::Rfc6298, Span::from_secs(1), Span::from_secs(1), Span::from_secs(60));
        r.sample(Span::from_ms(100));
        assert_eq!(r.rto(), Span::from_secs(1));
        // Doubling up to rto_max.
        for _ in 0..10 {
            l.back_off();
        }
        assert_eq!(l.rto(), Span::from_secs(120));
        l.sample(Span::from_ms(100));
        assert!(l.rto() < Span::from_secs(1));
    }
}
