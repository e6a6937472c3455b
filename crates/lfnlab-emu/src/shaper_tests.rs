//! Unit tests of the shaper against hand-derived numbers.

use super::*;

const MBPS_100: u64 = 100_000_000;
/// A full 1500-byte IP packet as captured: 14 + 1500 bytes.
const FULL_CAPTURED: u64 = 1514;
/// Its serialization at 100 Mbit/s: L2 1518, wire 1538 B (spec 06 §1.2),
/// 1538 × 8 / 1e8 s = 123.04 µs.
const FULL_SER_NS: u64 = 123_040;

fn shaper(rate_bps: u64, delay_ns: u64, limit_bytes: u64) -> Shaper {
    Shaper::new(ShaperConfig { rate_bps, delay_ns, limit_bytes }).expect("valid config")
}

fn deliver(v: Verdict) -> (u64, u64) {
    match v {
        Verdict::Deliver { start_ns, depart_ns } => (start_ns, depart_ns),
        Verdict::Drop => panic!("expected delivery, got a drop"),
    }
}

#[test]
fn framing_matches_the_simulator() {
    // spec 06 §1.2: a 1500-B packet takes 1538 B on the wire.
    assert_eq!(l2_bytes(FULL_CAPTURED), 1518);
    assert_eq!(wire_bytes(FULL_CAPTURED), 1538);
    // An ARP request is 42 B captured (veth does not pad): L2 is the 64-B minimum, wire 84 B.
    assert_eq!(l2_bytes(42), 64);
    assert_eq!(wire_bytes(42), 84);
    // Same as the core's formula for L3 = 1500 (captured = L3 + 14).
    assert_eq!(l2_bytes(FULL_CAPTURED), lfnlab_core::net::phy::l2_bytes(1500, false));
}

#[test]
fn back_to_back_frames_leave_one_serialization_apart() {
    let mut s = shaper(MBPS_100, 0, 1 << 20);
    let got: Vec<_> = (0..4).map(|_| deliver(s.offer(0, FULL_CAPTURED))).collect();
    for (k, &(start, depart)) in got.iter().enumerate() {
        assert_eq!(start, k as u64 * FULL_SER_NS, "frame {k} starts when the one ahead ends");
        assert_eq!(depart, start + FULL_SER_NS, "frame {k}: no delay configured");
    }
}

#[test]
fn delay_adds_exactly() {
    let delay_ns = 50_000_000;
    let mut s = shaper(MBPS_100, delay_ns, 1 << 20);
    assert_eq!(deliver(s.offer(1_000, FULL_CAPTURED)), (1_000, 1_000 + FULL_SER_NS + delay_ns));
    assert_eq!(deliver(s.offer(1_000, FULL_CAPTURED)), (1_000 + FULL_SER_NS, 1_000 + 2 * FULL_SER_NS + delay_ns));
}

#[test]
fn an_idle_line_starts_a_frame_on_arrival() {
    let mut s = shaper(MBPS_100, 10, 1 << 20);
    deliver(s.offer(0, FULL_CAPTURED));
    // The line is free from 123 040 ns on.
    let t = FULL_SER_NS + 5;
    assert_eq!(deliver(s.offer(t, 42)), (t, t + 84 * 80 + 10), "84 wire bytes at 80 ns/byte");
}

#[test]
fn a_burst_drops_exactly_the_frames_that_do_not_fit() {
    // Room for two full frames (2 × 1518 L2 bytes); five arrive at t = 0.
    //   frame 1: backlog 0 + 1518 ≤ 3036, accepted, starts at 0;
    //   frame 2: frame 1 started at 0 ≤ now, so it left the backlog (a frame
    //            counts until its start); 0 + 1518 fits, starts at 123 040;
    //   frame 3: 1518 + 1518 = 3036 ≤ 3036 fits, starts at 246 080;
    //   frames 4 and 5: 3036 + 1518 > 3036, dropped.
    let mut s = shaper(MBPS_100, 0, 3036);
    let verdicts: Vec<_> = (0..5).map(|_| s.offer(0, FULL_CAPTURED)).collect();
    let drops = verdicts.iter().filter(|v| **v == Verdict::Drop).count();
    assert_eq!(drops, 2);
    assert_eq!(verdicts[3], Verdict::Drop);
    assert_eq!(verdicts[4], Verdict::Drop);
    assert_eq!(s.backlog_bytes(), 3036);
    assert_eq!(s.max_backlog_bytes(), 3036);
    // At 123 040 ns frame 2 starts and frees 1518 bytes: one more fits, after frame 3.
    assert_eq!(deliver(s.offer(FULL_SER_NS, FULL_CAPTURED)).0, 3 * FULL_SER_NS);
    assert_eq!(s.offer(FULL_SER_NS, FULL_CAPTURED), Verdict::Drop);
    // The limit is in L2 bytes: a 64-B frame does not fit on top of 3036 either.
    assert_eq!(s.offer(FULL_SER_NS, 42), Verdict::Drop);
}

#[test]
fn fractional_serialization_does_not_accumulate() {
    // 84 wire bytes at 9.95 Gbit/s: 672e9 / 9.95e9 = 67.5377 ns, not whole.
    // Frame k starts at ceil(k × 672e9 / 9.95e9) ns; rounding each frame up
    // instead would drift by up to 1 ns per frame (680 ns after ten frames).
    let rate_bps = 9_950_000_000u64;
    let mut s = shaper(rate_bps, 0, 1 << 20);
    for k in 0..10u64 {
        let (start, _) = deliver(s.offer(0, 42));
        assert_eq!(start, (k * 672_000_000_000).div_ceil(rate_bps), "frame {k}");
    }
    let (start, depart) = deliver(s.offer(0, 42));
    assert_eq!((start, depart), (676, 743), "exact end of frame 10 is 675.38 ns, of frame 11 742.91 ns");
}

#[test]
fn bad_configurations_are_refused() {
    let ok = ShaperConfig { rate_bps: MBPS_100, delay_ns: 0, limit_bytes: 64 };
    assert!(Shaper::new(ok).is_ok());
    assert_eq!(Shaper::new(ShaperConfig { rate_bps: 0, ..ok }).unwrap_err(), ShaperConfigError::Rate(0));
    assert_eq!(Shaper::new(ShaperConfig { limit_bytes: 0, ..ok }).unwrap_err(), ShaperConfigError::Limit(0));
    assert_eq!(Shaper::new(ShaperConfig { limit_bytes: 63, ..ok }).unwrap_err(), ShaperConfigError::Limit(63));
    assert!(Shaper::new(ShaperConfig { rate_bps: MAX_RATE_BPS + 1, ..ok }).is_err());
    assert!(Shaper::new(ShaperConfig { delay_ns: MAX_DELAY_NS + 1, ..ok }).is_err());
    assert!(ShaperConfigError::Limit(0).to_string().contains("64 B"));
}

/// An independent model: exact times as u128 in units of 1/rate ns, and the
/// backlog recomputed from every accepted frame.
struct Reference {
    rate: u128,
    delay_ns: u64,
    limit_bytes: u64,
    end: u128,
    accepted: Vec<(u64, u64)>,
}

impl Reference {
    fn offer(&mut self, now_ns: u64, captured: u64) -> Verdict {
        let l2 = l2_bytes(captured);
        let backlog: u64 = self.accepted.iter().filter(|(start, _)| *start > now_ns).map(|(_, b)| b).sum();
        if backlog + l2 > self.limit_bytes {
            return Verdict::Drop;
        }
        let start = (now_ns as u128 * self.rate).max(self.end);
        self.end = start + wire_bytes(captured) as u128 * 8 * 1_000_000_000;
        let start_ns = start.div_ceil(self.rate) as u64;
        self.accepted.push((start_ns, l2));
        Verdict::Deliver { start_ns, depart_ns: self.end.div_ceil(self.rate) as u64 + self.delay_ns }
    }
}

#[test]
fn random_arrivals_match_an_independent_model() {
    for seed in 1..=20u64 {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let rate_bps = 100_000_000 + next() % 1_000_000_007;
        let cfg = ShaperConfig { rate_bps, delay_ns: next() % 1_000_000, limit_bytes: 64 + next() % 20_000 };
        let mut s = Shaper::new(cfg).unwrap();
        let mut r = Reference { rate: rate_bps as u128, delay_ns: cfg.delay_ns, limit_bytes: cfg.limit_bytes, end: 0, accepted: Vec::new() };
        let mut now = 0u64;
        let (mut last_start, mut drops) = (0, 0);
        for i in 0..2_000 {
            now += next() % 20_000;
            let captured = 42 + next() % 1473;
            let v = s.offer(now, captured);
            assert_eq!(v, r.offer(now, captured), "seed {seed}, frame {i}");
            assert!(s.backlog_bytes() <= cfg.limit_bytes, "seed {seed}: backlog over the limit");
            match v {
                Verdict::Deliver { start_ns, depart_ns } => {
                    assert!(start_ns >= last_start && start_ns >= now && depart_ns > start_ns, "seed {seed}, frame {i}");
                    last_start = start_ns;
                }
                Verdict::Drop => drops += 1,
            }
        }
        assert_eq!(r.accepted.len() + drops, 2_000, "seed {seed}: every frame accepted or dropped");
    }
}
