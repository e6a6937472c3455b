//! The target-rate estimator (spec 01 §2.2): a TCP flow's window spread evenly
//! over one RTT, `target_rate = cwnd × packet_size / RTT` (equation (1)), read
//! from the socket at the moment of the dequeue, and the sender-side queuing
//! time the released PSPacer subtracts from srtt.

use super::config::{RttEstimator, SizeBasis};
use crate::engine::time::{PS_PER_S, SimTime};
use crate::net::queue::FlowSnapshot;

/// Size of a packet of IP length `l3_bytes` in `basis`, for a NIC with `ipg_bytes`:
/// the bytes a class's clock advances by when the packet is sent. With the `mss`
/// basis the rate is applied to wire bytes (PSPacer's `update_clocks`).
#[inline]
pub fn basis_bytes(l3_bytes: u32, basis: SizeBasis, ipg_bytes: u32) -> f64 {
    let l2 = (l3_bytes as u64 + 18).max(64);
    (match basis {
        SizeBasis::Wire | SizeBasis::Mss => l2 + 8 + ipg_bytes as u64,
        SizeBasis::Frame => l2,
        SizeBasis::Ip => l3_bytes as u64,
    }) as f64
}

/// What equation (1) gives for one flow at one dequeue.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Estimate {
    /// No RTT sample yet: the flow is unpaced (§2.2 CHOICE).
    NoSample,
    /// srtt − qtime ≤ 0: the previous rate stays in force (PSPacer's
    /// `estimate_target_rate` returns before it stores a new rate).
    KeepPrevious,
    /// Basis bytes per second.
    Rate(f64),
}

/// Equation (1) for flow `f` in `basis` bytes per second, with `qtime_s` the
/// class's smoothed queuing time (used by `srtt_minus_qtime` only).
pub fn target_rate(f: &FlowSnapshot, basis: SizeBasis, which: RttEstimator, ipg_bytes: u32, qtime_s: f64) -> Estimate {
    let r = match which {
        RttEstimator::SrttMinusQtime | RttEstimator::Srtt => f.srtt_s,
        RttEstimator::MinRtt => f.min_rtt_s,
        RttEstimator::Latest => f.latest_rtt_s,
    };
    if r <= 0.0 {
        return Estimate::NoSample;
    }
    let rtt = if which == RttEstimator::SrttMinusQtime { r - qtime_s } else { r };
    if rtt <= 0.0 {
        return Estimate::KeepPrevious;
    }
    let size = match basis {
        SizeBasis::Mss => f.mss_bytes as f64,
        _ => basis_bytes(f.segment_l3_bytes, basis, ipg_bytes),
    };
    Estimate::Rate(f.cwnd_segments * size / rtt)
}

/// A class's sender-side queuing time, `qtime` of PSPacer 2.2.1's
/// `psp_dequeue`: each real packet's time from enqueue to dequeue, smoothed as
/// qtime ← qtime − qtime/16 + sample/16 (`QTIME_ALPHA` 4), the first sample taken
/// as is. The source samples `do_gettimeofday` in whole microseconds and skips a
/// sample of 0 (`tmp > 0`), so a packet that waited under 1 µs (an idle pacer)
/// does not pull qtime down; the same is done here.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct QueueTime {
    /// Smoothed queuing time, ps; None before the first counted sample.
    smoothed_ps: Option<f64>,
}

/// The source's clock resolution: one microsecond, in ps.
const SAMPLE_RESOLUTION_PS: u64 = PS_PER_S / 1_000_000;

impl QueueTime {
    /// Counts a packet enqueued at `enq` and dequeued at `now`.
    pub fn sample(&mut self, enq: SimTime, now: SimTime) {
        let waited_ps = now.0.saturating_sub(enq.0);
        if waited_ps < SAMPLE_RESOLUTION_PS {
            return;
        }
        let s = waited_ps as f64;
        self.smoothed_ps = Some(match self.smoothed_ps {
            None => s,
            Some(q) => q + (s - q) / 16.0,
        });
    }

    /// The smoothed queuing time, seconds (0 before the first sample).
    pub fn seconds(&self) -> f64 {
        self.smoothed_ps.map_or(0.0, |q| q / PS_PER_S as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flow() -> FlowSnapshot {
        FlowSnapshot { cwnd_segments: 100.0, srtt_s: 0.2, segment_l3_bytes: 1500, mss_bytes: 1448, ..Default::default() }
    }

    #[test]
    fn equation_one() {
        // cwnd 100, srtt 200 ms, 1500-byte segments: 100 × 1538 / 0.2 = 769 000 B/s.
        let f = flow();
        let rate = |b, w| target_rate(&f, b, w, 12, 0.0);
        assert_eq!(rate(SizeBasis::Wire, RttEstimator::Srtt), Estimate::Rate(769_000.0));
        assert_eq!(rate(SizeBasis::Frame, RttEstimator::Srtt), Estimate::Rate(759_000.0));
        assert_eq!(rate(SizeBasis::Ip, RttEstimator::Srtt), Estimate::Rate(750_000.0));
        // The released PSPacer: cwnd × mss_cache / RTT = 100 × 1448 / 0.2.
        assert_eq!(rate(SizeBasis::Mss, RttEstimator::Srtt), Estimate::Rate(724_000.0));
        // No sample for the chosen estimator: unpaced.
        assert_eq!(rate(SizeBasis::Wire, RttEstimator::MinRtt), Estimate::NoSample);
    }

    #[test]
    fn srtt_minus_qtime_removes_the_pacers_own_backlog() {
        // srtt 268 ms of which 68 ms is the pacer's own queue (issue 39 item 1's
        // FAST trace): the rate is that of the 200 ms path.
        let f = FlowSnapshot { srtt_s: 0.268, ..flow() };
        let r = target_rate(&f, SizeBasis::Mss, RttEstimator::SrttMinusQtime, 12, 0.068);
        let Estimate::Rate(r) = r else { panic!("{r:?}") };
        assert!((r - 724_000.0).abs() < 1e-6, "{r}");
        // The bare srtt counts the backlog: a lower rate.
        assert_eq!(target_rate(&f, SizeBasis::Mss, RttEstimator::Srtt, 12, 0.068), Estimate::Rate(100.0 * 1448.0 / 0.268));
        // srtt − qtime ≤ 0: keep the previous rate.
        assert_eq!(target_rate(&f, SizeBasis::Mss, RttEstimator::SrttMinusQtime, 12, 0.3), Estimate::KeepPrevious);
        assert_eq!(target_rate(&FlowSnapshot { srtt_s: 0.0, ..f }, SizeBasis::Mss, RttEstimator::SrttMinusQtime, 12, 0.0), Estimate::NoSample);
    }

    #[test]
    fn the_mss_basis_advances_the_clock_by_wire_bytes() {
        assert_eq!(basis_bytes(1500, SizeBasis::Mss, 12), 1538.0);
    }

    #[test]
    fn qtime_is_an_ewma_of_gain_one_sixteenth_seeded_by_the_first_sample() {
        let us = |n: u64| SimTime(n * SAMPLE_RESOLUTION_PS);
        let mut q = QueueTime::default();
        assert_eq!(q.seconds(), 0.0);
        // A packet that did not wait (under the source's 1 µs resolution) is not counted.
        q.sample(us(10), SimTime(10 * SAMPLE_RESOLUTION_PS + 999_999));
        assert_eq!(q.seconds(), 0.0);
        q.sample(us(0), us(1600));
        assert!((q.seconds() - 1600e-6).abs() < 1e-15);
        // 1600 − 1600/16 + 3200/16 = 1700 µs.
        q.sample(us(0), us(3200));
        assert!((q.seconds() - 1700e-6).abs() < 1e-12);
        // Zero waits leave it alone.
        q.sample(us(5000), us(5000));
        assert!((q.seconds() - 1700e-6).abs() < 1e-12);
        // Steady samples converge on their value.
        for _ in 0..400 {
            q.sample(us(0), us(100));
        }
        assert!((q.seconds() - 100e-6).abs() < 1e-9, "{}", q.seconds());
    }
}
