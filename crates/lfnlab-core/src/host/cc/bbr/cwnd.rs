//! The BBR v1 cwnd target (spec 06 §4.4 "cwnd").

/// The smallest cwnd BBR sets outside Recovery, and the ProbeRTT cwnd
/// (spec 06 §4.4 "≥ 4", "ProbeRTT ... cwnd 4"), segments.
pub const MIN_CWND: f64 = 4.0;

/// Segments added to the gained BDP so that delayed and stretched ACKs do not
/// starve the pipe (spec 06 §4.4 "+ 3"; Linux's quantization budget).
const ACK_ALLOWANCE: f64 = 3.0;

/// Relative slack before rounding up, so that f64 noise in BtlBw·RTprop
/// (e.g. 200.00000000000003 for an exact 200) does not add a segment.
const CEIL_SLACK: f64 = 1e-9;

/// cwnd target in segments: ⌈gain·bdp⌉ + 3, rounded up to even, ≥ 4
/// (spec 06 §4.4), where `bdp_segments` = BtlBw·RTprop/MSS.
pub fn target_cwnd(gain: f64, bdp_segments: f64) -> f64 {
    debug_assert!(gain > 0.0 && bdp_segments.is_finite() && bdp_segments >= 0.0);
    let x = gain * bdp_segments;
    let t = (x - x * CEIL_SLACK).ceil() + ACK_ALLOWANCE;
    // Even, as Linux rounds for TSO pairs and delayed ACKs acknowledging two.
    let t = if t % 2.0 == 1.0 { t + 1.0 } else { t };
    t.max(MIN_CWND)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding() {
        // BDP 100.2 segments, gain 2: ⌈200.4⌉ + 3 = 204, already even.
        assert_eq!(target_cwnd(2.0, 100.2), 204.0);
        // BDP 99.6: ⌈199.2⌉ + 3 = 203 → even 204.
        assert_eq!(target_cwnd(2.0, 99.6), 204.0);
        // BDP 100 exactly: 200 + 3 = 203 → 204; f64 noise above 200 changes nothing.
        assert_eq!(target_cwnd(2.0, 100.0), 204.0);
        assert_eq!(target_cwnd(2.0, 100.000_000_000_000_02), 204.0);
        // BDP 100.6: ⌈201.2⌉ + 3 = 205 → 206.
        assert_eq!(target_cwnd(2.0, 100.6), 206.0);
        // Startup gain 2.885 on BDP 10: ⌈28.85⌉ + 3 = 32.
        assert_eq!(target_cwnd(2.885, 10.0), 32.0);
        // Tiny or empty pipe: ⌈0.4⌉ + 3 = 4; 0 + 3 = 3 → 4; never below 4.
        assert_eq!(target_cwnd(2.0, 0.2), 4.0);
        assert_eq!(target_cwnd(2.0, 0.0), 4.0);
        // ⌈1.2⌉ + 3 = 5 → 6.
        assert_eq!(target_cwnd(1.0, 1.2), 6.0);
    }

    #[test]
    fn large_pipes_stay_exact() {
        // 100 Gbit/s × 1 s RTT, MSS 1448: BDP = 1.25e10/1448 = 8_632_596.685
        // segments; ×2 = 17_265_193.37 → ⌈⌉ 17_265_194 + 3 = 17_265_197 → 17_265_198.
        assert_eq!(target_cwnd(2.0, 1.25e10 / 1448.0), 17_265_198.0);
    }
}
