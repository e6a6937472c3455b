//! The IPG count n loaded into a stream's counter after each of its frames
//! (spec 03 §2.7.6): n ticks of `nic_tick` each, 1 ≤ n ≤ 2^23 − 1.

use crate::engine::time::{PS_PER_S, Span};
use crate::net::queue::FlowSnapshot;

/// Fixed mode: n = ceil(IPG time / tick), IPG time = ipg_bytes × 8 / Y, so
/// n = ipg_bytes / 8 at 1 Gbit/s with a 64 ns tick (open point 2: 4196 → 525).
pub fn fixed_count(ipg_bytes: u64, line_rate_bps: u64, tick: Span, max_count: u32) -> u32 {
    let ipg = Span::serialization(ipg_bytes, line_rate_bps);
    ipg.0.div_ceil(tick.0).clamp(1, max_count as u64) as u32
}

/// Dynamic mode (§2.7.6, the gap-packet rule of spec 01): the start-to-start
/// spacing of the stream's frames is W_k / X_i with X_i = cwnd × W_full / srtt,
/// so the gap after a frame of W_k = frame_l2 + 8 wire bytes is
/// W_k × (1/X_i − 1/Y). No snapshot, no RTT or no window: n = 1; X_i ≥ Y: n = 1.
pub fn dynamic_count(snap: Option<FlowSnapshot>, frame_l2_bytes: u64, line_rate_bps: u64, tick: Span, max_count: u32) -> u32 {
    let Some(f) = snap else { return 1 };
    let (srtt_s, cwnd) = (f.srtt_s, f.cwnd_segments);
    if srtt_s.is_nan() || cwnd.is_nan() || srtt_s <= 0.0 || cwnd <= 0.0 {
        return 1;
    }
    let w_full = (f.segment_l3_bytes as u64 + 18 + 8) as f64;
    let w_k = (frame_l2_bytes + 8) as f64;
    let x = cwnd * w_full / srtt_s;
    let y = line_rate_bps as f64 / 8.0;
    if x.is_nan() || x >= y {
        return 1;
    }
    let ipg_ps = w_k * PS_PER_S as f64 * (1.0 / x - 1.0 / y);
    if ipg_ps.is_nan() || ipg_ps >= max_count as f64 * tick.0 as f64 {
        return max_count; // also +inf (x → 0)
    }
    // Ceil in whole picoseconds; a value within 0.001 ps of an integer is that
    // integer (float noise must not add a tick when the gap is an exact multiple).
    let r = ipg_ps.round();
    let ps = if (ipg_ps - r).abs() < 1e-3 { r } else { ipg_ps.ceil() } as u64;
    ps.div_ceil(tick.0).clamp(1, max_count as u64) as u32
}
