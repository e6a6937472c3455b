//! Unit tests of `meter.rs` (spec 02 §2.5.2, §2.5.3).

use super::*;

fn at_ms(ms: u64) -> SimTime {
    SimTime(ms * 1_000_000_000)
}

#[test]
fn interval_clock_aligned_and_with_phase() {
    let d = Span::from_secs(1);
    let c = IntervalClock::new(d, Span::ZERO);
    assert_eq!(c.index(at_ms(0)), 0);
    assert_eq!(c.index(at_ms(999)), 0);
    assert_eq!(c.index(at_ms(1000)), 1);
    assert_eq!(c.index(at_ms(2500)), 2);
    // Phase 0.3 s: boundaries at 0.3, 1.3, 2.3 …; [0, 0.3) is the partial interval 0.
    let c = IntervalClock::new(d, Span::from_ms(300));
    assert_eq!(c.index(at_ms(299)), 0);
    assert_eq!(c.index(at_ms(300)), 1);
    assert_eq!(c.index(at_ms(1299)), 1);
    assert_eq!(c.index(at_ms(1300)), 2);
    // A phase of a whole number of intervals is no phase.
    assert_eq!(IntervalClock::new(d, Span::from_secs(3)), IntervalClock::new(d, Span::ZERO));
    // The far future does not overflow.
    assert_eq!(c.index(SimTime::NEVER), ((u64::MAX as u128 + 700_000_000_000) / 1_000_000_000_000) as u64);
}

#[test]
fn byte_meter_freezes_the_previous_interval() {
    let mut m = ByteMeter::new(Span::from_secs(1), Span::ZERO);
    // Interval 0: R_meas = 0 whatever is sent.
    for t in [0, 100, 900] {
        m.advance(at_ms(t));
        m.add(50_000);
    }
    assert_eq!(m.last_rate_bps(), 0.0);
    assert_eq!(m.current_bytes(), 150_000);
    // Interval 1: B_0 = 150 000 bytes → 8·150 000/1 s = 1.2 Mbit/s.
    m.advance(at_ms(1_000));
    assert_eq!(m.last_rate_bps(), 1_200_000.0);
    m.add(25_000);
    // Interval 2: B_1 = 25 000 bytes → 200 kbit/s.
    m.advance(at_ms(2_999));
    assert_eq!(m.last_rate_bps(), 200_000.0);
    assert_eq!(m.index(), 2);
}

#[test]
fn byte_meter_with_skipped_intervals() {
    let mut m = ByteMeter::new(Span::from_secs(1), Span::ZERO);
    m.advance(at_ms(500));
    m.add(125_000); // B_0 = 125 000 bytes = 1 Mbit/s over D = 1 s
    // Next packet at 3.5 s: intervals 1 and 2 were empty, so B_2 = 0.
    m.advance(at_ms(3_500));
    assert_eq!(m.last_rate_bps(), 0.0);
    m.add(62_500);
    // Interval 4: B_3 = 62 500 bytes = 500 kbit/s.
    m.advance(at_ms(4_000));
    assert_eq!(m.last_rate_bps(), 500_000.0);
    // Exactly one empty interval: from interval 4 (no bytes) to 5 → 0.
    m.advance(at_ms(5_000));
    assert_eq!(m.last_rate_bps(), 0.0);
}

#[test]
fn byte_meter_ignores_time_going_backwards() {
    let mut m = ByteMeter::new(Span::from_secs(1), Span::ZERO);
    m.advance(at_ms(1_500));
    m.add(1_000);
    m.advance(at_ms(200));
    m.add(1_000);
    assert_eq!((m.index(), m.current_bytes()), (1, 2_000));
}

#[test]
fn byte_meter_with_half_second_interval() {
    // D = 0.5 s: 31 250 bytes in one interval = 8·31 250/0.5 = 500 kbit/s.
    let mut m = ByteMeter::new(Span::from_ms(500), Span::ZERO);
    m.advance(at_ms(10));
    m.add(31_250);
    m.advance(at_ms(600));
    assert_eq!(m.last_rate_bps(), 500_000.0);
}

#[test]
fn peak_of_the_last_p_samples() {
    // S = 0.15 s, P = 3. 187 500 bytes in sample 0 = 8·187 500/0.15 = 10 Mbit/s.
    let mut p = PeakSampler::new(Span::from_ms(150), 3, Span::ZERO);
    p.advance(at_ms(10));
    p.add(187_500);
    assert_eq!(p.peak_rate_bps(), 0.0); // sample 0 not complete yet
    p.advance(at_ms(160));
    assert_eq!(p.peak_rate_bps(), 10_000_000.0);
    p.add(18_750); // sample 1: 1 Mbit/s
    // At 0.55 s the current sample is 3; completed 2, 1, 0 → peak 10 Mbit/s.
    p.advance(at_ms(550));
    assert_eq!(p.peak_rate_bps(), 10_000_000.0);
    // At 0.6 s the current sample is 4; completed 3, 2, 1 → 1 Mbit/s.
    p.advance(at_ms(600));
    assert_eq!(p.peak_rate_bps(), 1_000_000.0);
    // At 0.9 s: completed 5, 4, 3, all empty.
    p.advance(at_ms(900));
    assert_eq!(p.peak_rate_bps(), 0.0);
}

#[test]
fn peak_forgets_a_sample_after_a_long_gap() {
    let mut p = PeakSampler::new(Span::from_ms(150), 3, Span::ZERO);
    p.advance(at_ms(10));
    p.add(187_500);
    // Sample 10 after sample 0: far more than P boundaries, nothing left.
    p.advance(at_ms(1_510));
    assert_eq!(p.peak_rate_bps(), 0.0);
    // Exactly P boundaries: sample 0 is the oldest of the last 3 (samples 0, 1, 2).
    let mut p = PeakSampler::new(Span::from_ms(150), 3, Span::ZERO);
    p.add(187_500);
    p.advance(at_ms(450));
    assert_eq!(p.peak_rate_bps(), 10_000_000.0);
}

#[test]
fn meter_uses_the_configured_estimator() {
    let mut cfg = RouterConfig::new(10_000_000);
    let mut m = Meter::new(&cfg);
    m.advance(at_ms(0));
    m.add(187_500);
    m.advance(at_ms(1_000));
    // last_interval: 8·187 500/1 s = 1.5 Mbit/s.
    assert_eq!(m.measured_rate_bps(), 1_500_000.0);
    cfg.util_estimator = UtilEstimator::PEAK_DEFAULT;
    let mut m = Meter::new(&cfg);
    m.advance(at_ms(0));
    m.add(187_500);
    m.advance(at_ms(150));
    // peak: the same bytes in 0.15 s = 10 Mbit/s.
    assert_eq!(m.measured_rate_bps(), 10_000_000.0);
    // The D-interval counter runs alongside: still in interval 0.
    assert_eq!(m.bytes().current_bytes(), 187_500);
}

#[test]
fn ring_k2_keeps_an_approval_between_d_and_2d() {
    // Approval early in interval 0 (t = 0): visible until 2 s, i.e. for 2D.
    let mut r = ApprovalRing::new(Span::from_secs(1), Span::ZERO, 2);
    r.advance(at_ms(0));
    r.add(5_120_000);
    for t in [0, 999, 1_000, 1_999] {
        r.advance(at_ms(t));
        assert_eq!(r.sum_bps(), 5_120_000, "t = {t} ms");
    }
    r.advance(at_ms(2_000));
    assert_eq!(r.sum_bps(), 0);
    // Approval late in interval 0 (t = 0.999 s): visible until 2 s, i.e. just over D.
    let mut r = ApprovalRing::new(Span::from_secs(1), Span::ZERO, 2);
    r.advance(at_ms(999));
    r.add(2_560_000);
    r.advance(at_ms(1_999));
    assert_eq!(r.sum_bps(), 2_560_000);
    r.advance(at_ms(2_000));
    assert_eq!(r.sum_bps(), 0);
}

#[test]
fn ring_sums_slots_and_skips_intervals() {
    let mut r = ApprovalRing::new(Span::from_secs(1), Span::ZERO, 3);
    r.advance(at_ms(100));
    r.add(80_000);
    r.advance(at_ms(1_100));
    r.add(160_000);
    r.advance(at_ms(2_100));
    r.add(320_000);
    assert_eq!(r.sum_bps(), 560_000);
    // Interval 3 clears the slot of interval 0.
    r.advance(at_ms(3_000));
    assert_eq!(r.sum_bps(), 480_000);
    // Interval 5 (two boundaries) clears intervals 1 and 2.
    r.advance(at_ms(5_000));
    assert_eq!(r.sum_bps(), 0);
    r.add(640_000);
    // Jump by 100 intervals: everything cleared.
    r.advance(at_ms(105_000));
    assert_eq!(r.sum_bps(), 0);
}

#[test]
fn ring_k1_forgets_at_the_next_boundary() {
    let mut r = ApprovalRing::new(Span::from_secs(1), Span::ZERO, 1);
    r.add(80_000);
    r.advance(at_ms(999));
    assert_eq!(r.sum_bps(), 80_000);
    r.advance(at_ms(1_000));
    assert_eq!(r.sum_bps(), 0);
}
