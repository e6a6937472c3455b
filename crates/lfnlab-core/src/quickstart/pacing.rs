//! The Quick-Start window (spec 02 §2.3.6) and the timer-based pacing plan
//! that spreads it over one RTT (spec 02 §2.3.7). Pure arithmetic: the sender
//! owns the tick clock and the timers; this module only says how many timers,
//! at which tick offsets, and how many segments each has released by then.

use super::rate::rate_bps;
use crate::engine::time::{PS_PER_S, Span};

/// RTT in timer ticks: `max(1, ⌊T · HZ⌋)` (spec 02 §2.3.7), computed exactly on
/// picoseconds as ⌊T_ps · HZ / 10^12⌋; saturates at `u32::MAX`.
pub fn rtt_ticks(srtt: Span, hz: u32) -> u32 {
    let ticks = srtt.ps() as u128 * hz as u128 / PS_PER_S as u128;
    ticks.clamp(1, u32::MAX as u128) as u32
}

/// The Quick-Start window in segments (spec 02 §2.3.6):
/// W_qs = ⌊(Rate(K)/8) · T / (MSS + H)⌋, computed exactly as
/// ⌊Rate(K) · T_ps / (8 · 10^12 · (MSS + H))⌋ in `u128`.
///
/// `mss_bytes` is the payload of a full segment and `header_bytes` H the
/// IP + TCP header bytes it travels with. Returns 0 if MSS + H is 0 (a caller
/// bug, not a valid segment size); saturates at `u32::MAX`.
pub fn qs_window(rate_code: u8, srtt: Span, mss_bytes: u32, header_bytes: u32) -> u32 {
    let seg_bytes = mss_bytes as u128 + header_bytes as u128;
    if seg_bytes == 0 {
        return 0;
    }
    let w = rate_bps(rate_code) as u128 * srtt.ps() as u128 / (8 * PS_PER_S as u128 * seg_bytes);
    w.min(u32::MAX as u128) as u32
}

/// How a QS window of `w_qs` segments is released over one RTT (spec 02 §2.3.7).
///
/// Timer i (i = 1..=n) fires `offset_ticks(i)` tick boundaries after QS start
/// (timer 1 at the start itself); after it the sender may have released
/// `allowance(i)` segments in total. Chunks are c segments, the first e timers
/// carry one extra segment, and `allowance(n) == w_qs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PacingPlan {
    /// Number of timers: n = max(1, min(⌊W_qs / M⌋, rtt_ticks)).
    pub n: u32,
    /// Chunk size in segments: c = ⌊W_qs / n⌋.
    pub c: u32,
    /// Carry-over segments: e = W_qs − n·c, 0 ≤ e < n; one each on the first e timers.
    pub e: u32,
    /// The RTT in ticks the timers are spread over (at least 1).
    pub rtt_ticks: u32,
    /// The QS window in segments.
    pub w_qs: u32,
}

impl PacingPlan {
    /// The plan for `w_qs` segments over `rtt_ticks` ticks with chunk minimum
    /// `chunk_min` = M (spec 02 §2.3.7). `rtt_ticks` = 0 is read as 1 and
    /// `chunk_min` = 0 as 1, so every plan has n ≥ 1 and offsets < rtt_ticks.
    pub fn new(w_qs: u32, rtt_ticks: u32, chunk_min: u32) -> PacingPlan {
        let rtt_ticks = rtt_ticks.max(1);
        let m = chunk_min.max(1);
        let n = (w_qs / m).min(rtt_ticks).max(1);
        let c = w_qs / n;
        let e = w_qs - n * c;
        PacingPlan { n, c, e, rtt_ticks, w_qs }
    }

    /// Tick offset of timer `i` after QS start: ⌊(i−1) · rtt_ticks / n⌋
    /// (spec 02 §6 point 2). `i` is clamped to 1..=n.
    pub fn offset_ticks(&self, i: u32) -> u32 {
        let i = i.clamp(1, self.n) as u64;
        ((i - 1) * self.rtt_ticks as u64 / self.n as u64) as u32
    }

    /// Total segments released after timer `i`: A_i = i·c + min(i, e)
    /// (spec 02 §2.3.7). 0 for `i` = 0; `i` above n is clamped to n, where
    /// A_n = n·c + e = W_qs.
    pub fn allowance(&self, i: u32) -> u32 {
        let i = i.min(self.n);
        // i·c ≤ n·c ≤ W_qs, so no overflow.
        i * self.c + i.min(self.e)
    }

    /// Segments added by timer `i` alone: A_i − A_(i−1), i.e. c + 1 on the first
    /// e timers and c on the rest. 0 outside 1..=n.
    pub fn chunk(&self, i: u32) -> u32 {
        if i == 0 || i > self.n {
            return 0;
        }
        self.allowance(i) - self.allowance(i - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offsets(p: &PacingPlan) -> Vec<u32> {
        (1..=p.n).map(|i| p.offset_ticks(i)).collect()
    }

    #[test]
    fn vector_42_100_m3() {
        // n = max(1, min(⌊42/3⌋, 100)) = 14, c = 3, e = 0; k_i = ⌊(i−1)·100/14⌋.
        let p = PacingPlan::new(42, 100, 3);
        assert_eq!((p.n, p.c, p.e), (14, 3, 0));
        assert_eq!(offsets(&p), vec![0, 7, 14, 21, 28, 35, 42, 50, 57, 64, 71, 78, 85, 92]);
        assert!((1..=14).all(|i| p.chunk(i) == 3));
        assert_eq!(p.allowance(14), 42);
    }

    #[test]
    fn vector_250_100_m1() {
        // n = min(250, 100) = 100, c = ⌊250/100⌋ = 2, e = 50: first 50 timers add 3, the rest 2.
        let p = PacingPlan::new(250, 100, 1);
        assert_eq!((p.n, p.c, p.e), (100, 2, 50));
        assert_eq!(offsets(&p), (0..100).collect::<Vec<u32>>());
        assert!((1..=50).all(|i| p.chunk(i) == 3));
        assert!((51..=100).all(|i| p.chunk(i) == 2));
        assert_eq!(p.allowance(50), 150);
        assert_eq!(p.allowance(100), 250);
    }

    #[test]
    fn vector_10_100_m1() {
        // n = 10, c = 1, e = 0; k_i = (i−1)·10.
        let p = PacingPlan::new(10, 100, 1);
        assert_eq!((p.n, p.c, p.e), (10, 1, 0));
        assert_eq!(offsets(&p), vec![0, 10, 20, 30, 40, 50, 60, 70, 80, 90]);
        assert_eq!(p.allowance(10), 10);
    }

    #[test]
    fn vector_2_100_m3() {
        // ⌊2/3⌋ = 0 → n = max(1, 0) = 1, c = 2, e = 0, one timer at t0.
        let p = PacingPlan::new(2, 100, 3);
        assert_eq!((p.n, p.c, p.e), (1, 2, 0));
        assert_eq!(offsets(&p), vec![0]);
        assert_eq!(p.allowance(1), 2);
    }

    #[test]
    fn plan_invariants_over_a_grid() {
        // A_n = W_qs, A non-decreasing, offsets non-decreasing, offset(1) = 0,
        // offsets < rtt_ticks, 0 ≤ e < n, every chunk ≥ min(M, W) when n > 1.
        for w in (0..300u32).chain([1_000, 8_000_000]) {
            for ticks in [0u32, 1, 2, 3, 7, 10, 99, 100, 101, 400, 1000] {
                for m in [0u32, 1, 2, 3, 5, 16] {
                    let p = PacingPlan::new(w, ticks, m);
                    let ctx = format!("W {w} ticks {ticks} M {m}");
                    assert!(p.n >= 1 && p.e < p.n, "{ctx}");
                    assert_eq!(p.allowance(p.n), w, "{ctx}");
                    assert_eq!(p.allowance(0), 0, "{ctx}");
                    assert_eq!(p.offset_ticks(1), 0, "{ctx}");
                    let mut prev = (0u32, 0u32);
                    for i in 1..=p.n.min(2_000) {
                        let (k, a) = (p.offset_ticks(i), p.allowance(i));
                        assert!(k >= prev.0 && a >= prev.1, "{ctx} i {i}");
                        assert!(k < p.rtt_ticks, "{ctx} i {i}");
                        if p.n > 1 {
                            assert!(p.chunk(i) >= m.max(1), "{ctx} i {i}");
                        }
                        prev = (k, a);
                    }
                }
            }
        }
    }

    proptest::proptest! {
        /// Random (W, ticks, M): A_n = W_qs, offsets start at 0, never decrease and
        /// stay below rtt_ticks; 0 ≤ e < n and n ≤ rtt_ticks.
        #[test]
        fn plan_invariants_random(w in 0u32..5_000_000, ticks in 0u32..5_000, m in 0u32..64) {
            let p = PacingPlan::new(w, ticks, m);
            proptest::prop_assert_eq!(p.allowance(p.n), w);
            proptest::prop_assert!(p.e < p.n && p.n <= p.rtt_ticks);
            proptest::prop_assert_eq!(p.offset_ticks(1), 0);
            let mut prev = 0;
            for i in 1..=p.n {
                let k = p.offset_ticks(i);
                proptest::prop_assert!(k >= prev && k < p.rtt_ticks);
                prev = k;
            }
        }
    }

    #[test]
    fn rtt_ticks_examples() {
        // 100 ms at HZ 1000 = 100 ticks; 199.9 ms → 199; 0.4 ms → max(1, 0) = 1.
        assert_eq!(rtt_ticks(Span::from_ms(100), 1000), 100);
        assert_eq!(rtt_ticks(Span::from_us(199_900), 1000), 199);
        assert_eq!(rtt_ticks(Span::from_us(400), 1000), 1);
        assert_eq!(rtt_ticks(Span::ZERO, 1000), 1);
        // 200 ms at HZ 250 = 50 ticks.
        assert_eq!(rtt_ticks(Span::from_ms(200), 250), 50);
    }

    #[test]
    fn qs_window_examples() {
        // Rate(7) = 5.12 Mbit/s, T = 200 ms, MSS 1448, H 52:
        // 5 120 000/8 · 0.2 / 1500 = 128 000 / 1500 = 85.33 → 85.
        assert_eq!(qs_window(7, Span::from_ms(200), 1448, 52), 85);
        // T = 100 ms: 64 000 / 1500 = 42.67 → 42 (the first pacing vector's W).
        assert_eq!(qs_window(7, Span::from_ms(100), 1448, 52), 42);
        // RFC example header 40: 64 000 / 1488 = 43.01 → 43.
        assert_eq!(qs_window(7, Span::from_ms(100), 1448, 40), 43);
        // Exact multiple: Rate(1) = 80 kbit/s, T = 1.5 s, MSS + H = 1000: 15 000 / 1000 = 15.
        assert_eq!(qs_window(1, Span::from_ms(1_500), 960, 40), 15);
        // Rate 0 → 0; degenerate segment size → 0.
        assert_eq!(qs_window(0, Span::from_ms(100), 1448, 52), 0);
        assert_eq!(qs_window(7, Span::from_ms(100), 0, 0), 0);
        // Rate(15) over 1000 s with 1-byte segments saturates instead of overflowing.
        assert_eq!(qs_window(15, Span::from_secs(1_000), 1, 0), u32::MAX);
    }
}
