//! The sender's pacing rate (spec 06 §4.3; Linux `tcp_update_pacing_rate`
//! in `net/ipv4/tcp_input.c`): what the pacer (internal EDT pacing or the
//! fq qdisc) is told after each ACK.

use crate::engine::time::Span;
use crate::host::cc::Window;

/// Linux `sysctl_tcp_pacing_ss_ratio` (200 %), used while cwnd < ssthresh / 2.
pub const PACING_SS_RATIO: f64 = 2.0;
/// Linux `sysctl_tcp_pacing_ca_ratio` (120 %), used otherwise.
pub const PACING_CA_RATIO: f64 = 1.2;

/// One sender's pacing rate.
#[derive(Clone, Debug)]
pub struct PacingRate {
    /// The rate in the pacer's charge, bytes/s (0 = unpaced: no RTT sample yet).
    pub bytes_per_s: f64,
    /// `max_pacing_rate` cap (SO_MAX_PACING_RATE), bytes/s (∞ = none).
    max_bytes_per_s: f64,
    /// The pacer's charge of a full segment, L3 + 14 B (spec 06 §4.3).
    charge_per_segment: u32,
    /// Pacing is on (any kind but `off`).
    pub on: bool,
}

impl PacingRate {
    pub fn new(on: bool, max_bytes_per_s: f64) -> PacingRate {
        PacingRate { bytes_per_s: 0.0, max_bytes_per_s, charge_per_segment: 0, on }
    }

    /// The handshake fixed the segment size: a full segment costs `charge` bytes.
    pub fn establish(&mut self, charge: u32) {
        self.charge_per_segment = charge;
    }

    /// The rate after an ACK: the algorithm's own rate `cc_rate` (payload
    /// B/s), else ratio · MSS · max(cwnd, packets_out) / SRTT; capped by
    /// max_pacing_rate.
    pub fn update(&mut self, cc_rate: Option<f64>, srtt: Option<Span>, w: &Window, packets_out: u64, mss: u32) {
        let rate = match cc_rate {
            // The algorithm's rate is in delivery-rate units (payload B/s):
            // convert it to the pacer's charge so that its packet rate is the
            // one the algorithm asked for (as Linux EDT, which charges payload).
            Some(r) => r * self.charge_per_segment as f64 / mss.max(1) as f64,
            None => match srtt {
                None => 0.0,
                Some(srtt) => {
                    let ratio = if w.cwnd < w.ssthresh / 2.0 { PACING_SS_RATIO } else { PACING_CA_RATIO };
                    let segs = w.cwnd.max(packets_out as f64);
                    ratio * mss as f64 * segs / srtt.as_secs_f64().max(1e-12)
                }
            },
        };
        debug_assert!(rate.is_finite() && rate >= 0.0, "pacing rate must be finite and non-negative");
        self.bytes_per_s = rate.min(self.max_bytes_per_s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Span {
        Span(v * 1_000_000_000)
    }

    /// Linux tcp_update_pacing_rate: 200 % of cwnd/SRTT in early slow start,
    /// 120 % after; no SRTT, no rate; max_pacing_rate caps it.
    #[test]
    fn ratios_follow_linux() {
        let mut p = PacingRate::new(true, f64::INFINITY);
        p.establish(1514);
        let w = Window { cwnd: 10.0, ssthresh: 100.0 };
        p.update(None, None, &w, 10, 1448);
        assert_eq!(p.bytes_per_s, 0.0);
        p.update(None, Some(ms(100)), &w, 4, 1448);
        assert!((p.bytes_per_s - 2.0 * 1448.0 * 10.0 / 0.1).abs() < 1e-6);
        let w = Window { cwnd: 60.0, ssthresh: 100.0 };
        p.update(None, Some(ms(100)), &w, 80, 1448);
        assert!((p.bytes_per_s - 1.2 * 1448.0 * 80.0 / 0.1).abs() < 1e-6, "max(cwnd, packets_out) segments");
        let mut capped = PacingRate::new(true, 1e5);
        capped.update(None, Some(ms(100)), &w, 80, 1448);
        assert_eq!(capped.bytes_per_s, 1e5);
    }

    /// An algorithm's own rate is payload B/s; the pacer charges L3 + 14 B.
    #[test]
    fn algorithm_rate_is_converted_to_the_charge() {
        let mut p = PacingRate::new(true, f64::INFINITY);
        p.establish(1514);
        p.update(Some(1448.0 * 1000.0), Some(ms(100)), &Window { cwnd: 10.0, ssthresh: 5.0 }, 0, 1448);
        assert!((p.bytes_per_s - 1514.0 * 1000.0).abs() < 1e-6);
    }
}
