//! The target-rate estimator (spec 01 §2.2): a TCP flow's window spread evenly
//! over one RTT, `target_rate = cwnd × packet_size / RTT` (equation (1)), read
//! from the socket at the moment of the dequeue.

use super::config::{RttEstimator, SizeBasis};
use crate::net::queue::FlowSnapshot;

/// Size of a packet of IP length `l3_bytes` in `basis`, for a NIC with `ipg_bytes`.
#[inline]
pub fn basis_bytes(l3_bytes: u32, basis: SizeBasis, ipg_bytes: u32) -> f64 {
    let l2 = (l3_bytes as u64 + 18).max(64);
    (match basis {
        SizeBasis::Wire => l2 + 8 + ipg_bytes as u64,
        SizeBasis::Frame => l2,
        SizeBasis::Ip => l3_bytes as u64,
    }) as f64
}

/// The RTT the estimator uses, seconds; None before the first sample (the
/// flow is then unpaced, §2.2 CHOICE).
pub fn rtt_s(f: &FlowSnapshot, which: RttEstimator) -> Option<f64> {
    let r = match which {
        RttEstimator::Srtt => f.srtt_s,
        RttEstimator::MinRtt => f.min_rtt_s,
        RttEstimator::Latest => f.latest_rtt_s,
    };
    (r > 0.0).then_some(r)
}

/// Equation (1) in `basis` bytes per second; None without an RTT sample.
pub fn target_rate(f: &FlowSnapshot, basis: SizeBasis, which: RttEstimator, ipg_bytes: u32) -> Option<f64> {
    let rtt = rtt_s(f, which)?;
    Some(f.cwnd_segments * basis_bytes(f.segment_l3_bytes, basis, ipg_bytes) / rtt)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equation_one() {
        // cwnd 100, srtt 200 ms, 1500-byte segments: 100 × 1538 / 0.2 = 769 000 B/s.
        let f = FlowSnapshot { cwnd_segments: 100.0, srtt_s: 0.2, segment_l3_bytes: 1500, ..Default::default() };
        assert_eq!(target_rate(&f, SizeBasis::Wire, RttEstimator::Srtt, 12), Some(769_000.0));
        assert_eq!(target_rate(&f, SizeBasis::Frame, RttEstimator::Srtt, 12), Some(759_000.0));
        assert_eq!(target_rate(&f, SizeBasis::Ip, RttEstimator::Srtt, 12), Some(750_000.0));
        // No sample for the chosen estimator: unpaced.
        assert_eq!(target_rate(&f, SizeBasis::Wire, RttEstimator::MinRtt, 12), None);
    }
}
