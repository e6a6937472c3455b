//! Unit tests of `router.rs` (spec 02 §2.5). Capacity C = 10 Mbit/s as in the
//! testbed T0 (spec 02 §4.1) unless a test says otherwise.

use super::*;
use crate::quickstart::nonce::{echo_matches, step_field_mask};
use crate::quickstart::option::QsResponse;
use crate::quickstart::router_config::{ProcCost, UtilEstimator};

const C_BPS: u64 = 10_000_000;

fn at_ms(ms: u64) -> SimTime {
    SimTime(ms * 1_000_000_000)
}

fn router_with(cfg: RouterConfig, seed: u64) -> QsRouter {
    assert_eq!(cfg.validate(), Ok(()));
    QsRouter::new(cfg, Stream::derive(seed, "qs-router"))
}

fn router() -> QsRouter {
    router_with(RouterConfig::new(C_BPS), 1)
}

fn request(rate: u8, qs_ttl: u8, nonce: u32) -> [u8; 8] {
    IpQs::Request { rate, qs_ttl, nonce }.encode()
}

/// Sends `bytes` of option-less packets (1000 bytes each) at `t_ms`.
fn load(r: &mut QsRouter, t_ms: u64, bytes: u32) {
    for _ in 0..bytes / 1000 {
        let out = r.on_packet(at_ms(t_ms), 1000, &mut [0; 8], 0);
        assert_eq!(out.verdict, Verdict::NoOption);
    }
}

const NONCE: u32 = 0x2ABC_DEF1;

#[test]
fn worked_check_of_2_5_4() {
    // C 10 Mbit/s, θ 1; 125 000 bytes in interval 0 → R_meas = 8·125 000/1 s = 1 Mbit/s;
    // R_recent 0; N_req 8 → budget 9 Mbit/s → grant 9 Mbit/s → N_app = code_floor(9e6) = 7.
    let mut r = router();
    load(&mut r, 400, 125_000);
    assert_eq!(r.measured_rate_bps(at_ms(1_500)), 1_000_000.0);
    assert_eq!(r.recent_approved_bps(at_ms(1_500)), 0.0);
    let mut opt = request(8, 0xAB, NONCE);
    let out = r.on_packet(at_ms(1_500), 60, &mut opt, 0);
    assert_eq!(out, RouterOutcome { verdict: Verdict::Approved { n_req: 8, n_app: 7 }, option_deleted: false, proc_delay: Span::ZERO });
    // The slot gains Rate(7) = 5.12 Mbit/s.
    assert_eq!(r.recent_approved_bps(at_ms(1_500)), 5_120_000.0);
    let Some(IpQs::Request { rate, qs_ttl, nonce }) = IpQs::decode(&opt) else { panic!("{opt:?}") };
    assert_eq!((rate, qs_ttl), (7, 0xAB)); // d = 0: QS TTL unchanged
    // Only the step-8→7 field (nonce bits 14–15 = integer bits 14, 15) may differ.
    assert_eq!((nonce ^ NONCE) & !step_field_mask(8), 0);
    assert_eq!(step_field_mask(8), 0b11 << 14);
    assert!(echo_matches(NONCE, nonce, 7));
    let c = r.counters();
    assert_eq!((c.qs_requests_seen, c.qs_approved_reduced, c.nonce_fields_rerandomized, c.ip_csum_updates), (1, 1, 1, 1));
}

#[test]
fn worked_check_rerandomizes_bits_14_15_only_over_many_seeds() {
    // Each of the two bits differs from the original with probability 1/2.
    let runs = 400;
    let mut flips = [0u32; 2];
    for seed in 0..runs {
        let mut r = router_with(RouterConfig::new(C_BPS), seed);
        load(&mut r, 0, 125_000);
        let mut opt = request(8, 0xAB, NONCE);
        r.on_packet(at_ms(1_000), 60, &mut opt, 0);
        let Some(IpQs::Request { nonce, .. }) = IpQs::decode(&opt) else { panic!() };
        let diff = nonce ^ NONCE;
        assert_eq!(diff & !(0b11 << 14), 0, "seed {seed}");
        flips[0] += (diff >> 14) & 1;
        flips[1] += (diff >> 15) & 1;
    }
    // Binomial(400, 1/2): sd = 10; allow 5 sd around 200.
    for f in flips {
        assert!((f as i64 - 200).abs() < 50, "{f}");
    }
}

#[test]
fn target_strict_refuses_the_worked_check() {
    // r_req = Rate(8) = 10.24 Mbit/s > budget 9 Mbit/s → refuse, option zeroed.
    let mut cfg = RouterConfig::new(C_BPS);
    cfg.admission = Admission::TargetStrict;
    let mut r = router_with(cfg, 1);
    load(&mut r, 400, 125_000);
    let mut opt = request(8, 0xAB, NONCE);
    let out = r.on_packet(at_ms(1_500), 60, &mut opt, 0);
    assert_eq!(out.verdict, Verdict::Denied { n_req: 8 });
    assert_eq!(opt, [25, 8, 0x00, 0, 0, 0, 0, 0]);
    assert_eq!(r.recent_approved_bps(at_ms(1_500)), 0.0);
    // Rate(7) = 5.12 ≤ 9 Mbit/s fits entirely: approved in full.
    let mut opt = request(7, 0xAB, NONCE);
    assert_eq!(r.on_packet(at_ms(1_500), 60, &mut opt, 0).verdict, Verdict::Approved { n_req: 7, n_app: 7 });
    assert_eq!(opt, request(7, 0xAB, NONCE));
    let c = r.counters();
    assert_eq!((c.qs_denied, c.qs_approved_full, c.ip_csum_updates), (1, 1, 1));
}

#[test]
fn denial_when_budget_is_zero_or_negative() {
    // 1 250 000 bytes in interval 0 → R_meas = 10 Mbit/s → budget 0 → deny even Rate(1).
    let mut r = router();
    load(&mut r, 0, 1_250_000);
    let mut opt = request(1, 5, NONCE);
    assert_eq!(r.on_packet(at_ms(1_000), 60, &mut opt, 0).verdict, Verdict::Denied { n_req: 1 });
    // 1 300 000 bytes → 10.4 Mbit/s → budget −0.4 Mbit/s.
    let mut r = router();
    load(&mut r, 0, 1_300_000);
    assert_eq!(r.admit(at_ms(1_000), 15), 0);
    assert_eq!(r.recent_approved_bps(at_ms(1_000)), 0.0);
}

#[test]
fn approvals_fill_the_budget_then_deny() {
    // Idle link, budget 10 Mbit/s, repeated requests for code 7:
    // 5.12 → left 4.88 → code 6 (2.56) → left 2.32 → 5 (1.28) → 1.04 → 4 (0.64)
    // → 0.40 → 3 (0.32) → 0.08 → 1 (0.08) → 0 → deny. Σ = 10 Mbit/s exactly.
    let mut r = router();
    let mut got = Vec::new();
    for _ in 0..7 {
        got.push(r.admit(at_ms(100), 7));
    }
    assert_eq!(got, vec![7, 6, 5, 4, 3, 1, 0]);
    assert_eq!(r.recent_approved_bps(at_ms(100)), 10_000_000.0);
    // admit() alone touches no counters.
    assert_eq!(r.counters(), RouterCounters::default());
    // The same through on_packet: fields re-randomized = 0+1+2+3+4+6 = 16.
    let mut r = router();
    for _ in 0..7 {
        r.on_packet(at_ms(100), 60, &mut request(7, 9, NONCE), 1);
    }
    let c = r.counters();
    assert_eq!((c.qs_requests_seen, c.qs_approved_full, c.qs_approved_reduced, c.qs_denied), (7, 1, 5, 1));
    assert_eq!(c.nonce_fields_rerandomized, 16);
    assert_eq!(c.ip_csum_updates, 7); // d = 1: every packet modified
}

#[test]
fn approval_stays_in_r_recent_between_d_and_2d() {
    // K = 2, D = 1 s. Approved at 0.999 s (end of interval 0): gone at 2 s (≈ D later).
    let mut r = router();
    assert_eq!(r.admit(at_ms(999), 7), 7);
    assert_eq!(r.recent_approved_bps(at_ms(1_000)), 5_120_000.0);
    assert_eq!(r.recent_approved_bps(at_ms(1_999)), 5_120_000.0);
    assert_eq!(r.recent_approved_bps(at_ms(2_000)), 0.0);
    // Approved at 0 s (start of interval 0): still there at 1.999 s (≈ 2D), gone at 2 s.
    let mut r = router();
    assert_eq!(r.admit(at_ms(0), 7), 7);
    assert_eq!(r.recent_approved_bps(at_ms(1_999)), 5_120_000.0);
    assert_eq!(r.recent_approved_bps(at_ms(2_000)), 0.0);
    // While it is recent it lowers the next grant: 10 − 5.12 = 4.88 → code 6.
    let mut r = router();
    r.admit(at_ms(500), 7);
    assert_eq!(r.admit(at_ms(1_500), 7), 6);
    // Once both expired the full budget is back: 5.12 fits entirely.
    assert_eq!(r.admit(at_ms(3_000), 7), 7);
    assert_eq!(r.recent_approved_bps(at_ms(3_000)), 5_120_000.0);
}

#[test]
fn meter_with_skipped_intervals() {
    // Interval 0 at full rate, then silence: at 2.5 s B_1 = 0, so R_meas = 0.
    let mut r = router();
    load(&mut r, 0, 1_250_000);
    assert_eq!(r.measured_rate_bps(at_ms(1_200)), 10_000_000.0);
    assert_eq!(r.measured_rate_bps(at_ms(2_500)), 0.0);
    let mut opt = request(7, 1, NONCE);
    assert_eq!(r.on_packet(at_ms(2_500), 60, &mut opt, 0).verdict, Verdict::Approved { n_req: 7, n_app: 7 });
    // Packets after a gap land in the right interval: 62 500 bytes at 5.1 s → 500 kbit/s during [6, 7) s.
    load(&mut r, 5_100, 62_000);
    r.on_packet(at_ms(5_900), 500, &mut [0; 8], 0);
    assert_eq!(r.measured_rate_bps(at_ms(6_000)), 500_000.0);
    assert_eq!(r.measured_rate_bps(at_ms(7_000)), 0.0);
}

#[test]
fn theta_half_lowers_a_5_12_request_on_an_idle_link_to_code_6() {
    // θ = 0.5: budget = 0.5·10 − 0 = 5 Mbit/s < 5.12 → grant 5 Mbit/s → floor → Rate(6) = 2.56 Mbit/s.
    let mut cfg = RouterConfig::new(C_BPS);
    cfg.thresh = 0.5;
    let mut r = router_with(cfg, 1);
    let mut opt = request(7, 0x10, NONCE);
    assert_eq!(r.on_packet(at_ms(300), 60, &mut opt, 0).verdict, Verdict::Approved { n_req: 7, n_app: 6 });
    assert_eq!(r.recent_approved_bps(at_ms(300)), 2_560_000.0);
    let Some(IpQs::Request { rate, nonce, .. }) = IpQs::decode(&opt) else { panic!() };
    assert_eq!(rate, 6);
    assert_eq!((nonce ^ NONCE) & !step_field_mask(7), 0);
}

#[test]
fn deny_zero_keeps_function_and_reserved_bits() {
    let mut cfg = RouterConfig::new(C_BPS);
    cfg.thresh = 0.0; // budget 0: every request is refused
    let mut r = router_with(cfg, 1);
    let mut opt = request(7, 0xAB, NONCE);
    opt[7] |= 0b11;
    let out = r.on_packet(at_ms(0), 60, &mut opt, 1);
    assert_eq!(out, RouterOutcome { verdict: Verdict::Denied { n_req: 7 }, option_deleted: false, proc_delay: Span::ZERO });
    assert_eq!(opt, [25, 8, 0x00, 0x00, 0, 0, 0, 0b11]);
    assert_eq!(IpQs::decode(&opt), Some(IpQs::Request { rate: 0, qs_ttl: 0, nonce: 0 }));
    assert_eq!(r.counters().bytes, 60);
}

#[test]
fn deny_delete_removes_the_option() {
    let mut cfg = RouterConfig::new(C_BPS);
    cfg.thresh = 0.0;
    cfg.deny_action = DenyAction::Delete;
    let mut r = router_with(cfg, 1);
    let mut opt = request(7, 0xAB, NONCE);
    let out = r.on_packet(at_ms(0), 60, &mut opt, 1);
    assert_eq!(out.verdict, Verdict::Denied { n_req: 7 });
    assert!(out.option_deleted);
    assert_eq!(opt, [0; 8]);
    // The packet leaves (and is metered) 8 bytes shorter.
    let c = r.counters();
    assert_eq!((c.bytes, c.qs_denied, c.ip_csum_updates), (52, 1, 1));
    r.on_packet(at_ms(100), 948, &mut [0; 8], 0);
    // B_0 = 52 + 948 = 1000 bytes → 8 kbit/s.
    assert_eq!(r.measured_rate_bps(at_ms(1_000)), 8_000.0);
}

#[test]
fn request_rate_limit_per_second_window() {
    // At most 2 requests per 1-second window aligned to 0; the third is refused unevaluated.
    let mut cfg = RouterConfig::new(C_BPS);
    cfg.max_requests_per_s = Some(2);
    let mut r = router_with(cfg, 1);
    let verdicts: Vec<Verdict> =
        [100, 200, 300].iter().map(|&t| r.on_packet(at_ms(t), 60, &mut request(1, 0, 0), 0).verdict).collect();
    assert_eq!(verdicts[..2], [Verdict::Approved { n_req: 1, n_app: 1 }; 2]);
    assert_eq!(verdicts[2], Verdict::Denied { n_req: 1 });
    // Not evaluated: only two approvals (2 × 80 kbit/s) in the ring.
    assert_eq!(r.recent_approved_bps(at_ms(300)), 160_000.0);
    // A new window at 1 s; a rate-0 request is not counted against the limit.
    assert_eq!(r.on_packet(at_ms(1_000), 60, &mut request(0, 0, 0), 0).verdict, Verdict::Passed);
    for t in [1_001, 1_999] {
        assert_eq!(r.on_packet(at_ms(t), 60, &mut request(1, 0, 0), 0).verdict, Verdict::Approved { n_req: 1, n_app: 1 });
    }
    let c = r.counters();
    assert_eq!((c.qs_requests_seen, c.qs_rate_limited, c.qs_denied, c.qs_approved_full), (6, 1, 1, 4));
}

#[test]
fn qs_ttl_decrement() {
    // d = 1 at a routing hop: QS TTL 0xAB → 0xAA, nothing else changes; one checksum update.
    let mut r = router();
    let mut opt = request(7, 0xAB, NONCE);
    r.on_packet(at_ms(0), 60, &mut opt, 1);
    assert_eq!(opt, request(7, 0xAA, NONCE));
    assert_eq!(r.counters().ip_csum_updates, 1);
    // d = 0 at the originating host: untouched, no checksum update.
    let mut r = router();
    let mut opt = request(7, 0xAB, NONCE);
    r.on_packet(at_ms(0), 60, &mut opt, 0);
    assert_eq!(opt, request(7, 0xAB, NONCE));
    assert_eq!(r.counters().ip_csum_updates, 0);
    // QS TTL wraps mod 256: 0 − 1 = 255.
    let mut r = router();
    let mut opt = request(3, 0, NONCE);
    r.on_packet(at_ms(0), 60, &mut opt, 1);
    assert_eq!(opt[3], 255);
}

#[test]
fn reports_unknown_functions_and_rate_zero_pass_unchanged() {
    let mut r = router();
    let report = IpQs::Report { rate: 7, nonce: NONCE }.encode();
    let other = [25, 8, 0x47, 0xAB, 1, 2, 3, 4];
    let zero_req = request(0, 0x20, NONCE);
    let response = QsResponse { rate: 7, ttl_diff: 0, nonce: NONCE }.encode(); // a TCP option is no IP option
    for raw in [report, other, zero_req, response, [0; 8]] {
        let mut opt = raw;
        let out = r.on_packet(at_ms(0), 60, &mut opt, 1);
        assert_eq!(opt, raw);
        assert!(!out.option_deleted);
        let expected = if raw[0] == 25 { Verdict::Passed } else { Verdict::NoOption };
        assert_eq!(out.verdict, expected, "{raw:?}");
    }
    assert_eq!(r.recent_approved_bps(at_ms(0)), 0.0);
    let c = r.counters();
    assert_eq!(
        c,
        RouterCounters { packets: 5, bytes: 300, qs_requests_seen: 1, qs_reports_seen: 1, meter_updates: 5, ..Default::default() }
    );
}

#[test]
fn counters_identities_over_a_mixed_run() {
    let mut cfg = RouterConfig::new(C_BPS);
    cfg.max_requests_per_s = Some(5);
    let mut r = router_with(cfg, 3);
    let mut rng = Stream::derive(3, "mix");
    let mut sent_bytes = 0u64;
    for i in 0..5_000u64 {
        let t = SimTime(i * 2_000_000_000); // every 2 ms, 10 s in total
        let len = 40 + (rng.next_u64() % 1461) as u32;
        let mut opt = match rng.next_u64() % 10 {
            0 => request((rng.next_u64() % 16) as u8, 64, random_nonce_for_test(&mut rng)),
            1 => IpQs::Report { rate: 3, nonce: 7 }.encode(),
            _ => [0; 8],
        };
        let out = r.on_packet(t, len, &mut opt, 1);
        sent_bytes += (len - if out.option_deleted { 8 } else { 0 }) as u64;
    }
    let c = r.counters();
    assert_eq!(c.packets, 5_000);
    assert_eq!(c.meter_updates, c.packets);
    assert_eq!(c.bytes, sent_bytes);
    assert!(c.qs_requests_seen >= c.qs_approved_full + c.qs_approved_reduced + c.qs_denied);
    assert!(c.qs_rate_limited > 0 && c.qs_rate_limited <= c.qs_denied);
    assert!(c.nonce_fields_rerandomized >= c.qs_approved_reduced);
    assert!(c.qs_reports_seen > 0);
}

fn random_nonce_for_test(rng: &mut Stream) -> u32 {
    crate::quickstart::nonce::random_nonce(rng)
}

#[test]
fn processing_delay_model() {
    // base 1 + meter 2 = 3 µs per packet; + opt_parse 3 with an option;
    // + update 4 when approved; + 5 per re-randomized field.
    let mut cfg = RouterConfig::new(C_BPS);
    cfg.proc = ProcCost { base_us: 1.0, meter_us: 2.0, opt_parse_us: 3.0, update_us: 4.0, nonce_field_us: 5.0, ..ProcCost::default() };
    cfg.thresh = 0.5; // idle budget 5 Mbit/s
    let mut r = router_with(cfg, 1);
    let us = |r: &mut QsRouter, opt: [u8; 8]| {
        let mut opt = opt;
        r.on_packet(at_ms(0), 60, &mut opt, 0).proc_delay
    };
    assert_eq!(us(&mut r, [0; 8]), Span::from_us(3));
    assert_eq!(us(&mut r, IpQs::Report { rate: 0, nonce: 0 }.encode()), Span::from_us(6));
    // Code 5 (1.28 Mbit/s) fits: 3 + 3 + 4 = 10 µs. Left: 3.72 Mbit/s.
    assert_eq!(us(&mut r, request(5, 1, 1)), Span::from_us(10));
    // Code 8 (10.24) lowered to code_floor(3.72e6) = 6: 10 + 2·5 = 20 µs. Left: 1.16 Mbit/s.
    assert_eq!(us(&mut r, request(8, 1, 1)), Span::from_us(20));
    // Deny: θ·C − (R_meas + R_recent) ≤ 0 after using up the rest; 6 µs.
    assert_eq!(r.admit(at_ms(0), 15), 4); // 0.64 of the 1.16 left
    assert_eq!(r.admit(at_ms(0), 15), 3); // 0.32 of 0.52
    assert_eq!(r.admit(at_ms(0), 15), 2); // 0.16 of 0.20
    assert_eq!(r.admit(at_ms(0), 15), 0); // 0.04 < 0.08
    assert_eq!(us(&mut r, request(1, 1, 1)), Span::from_us(6));
}

#[test]
fn peak_estimator_sees_a_short_burst_that_last_interval_misses() {
    // 187 500 bytes in the first 0.15 s = 10 Mbit/s over S, 1.5 Mbit/s over D = 1 s.
    let mut cfg = RouterConfig::new(C_BPS);
    cfg.util_estimator = UtilEstimator::PEAK_DEFAULT;
    let mut peak = router_with(cfg, 1);
    let mut last = router();
    for r in [&mut peak, &mut last] {
        load(r, 10, 187_000);
        r.on_packet(at_ms(100), 500, &mut [0; 8], 0);
    }
    // At 0.2 s: peak 10 Mbit/s → budget 0 → deny; last_interval still in interval 0 → R_meas 0.
    assert_eq!(peak.measured_rate_bps(at_ms(200)), 10_000_000.0);
    assert_eq!(peak.admit(at_ms(200), 7), 0);
    assert_eq!(last.admit(at_ms(200), 7), 7);
    // At 0.6 s the burst left the last P = 3 samples.
    assert_eq!(peak.admit(at_ms(600), 7), 7);
}

#[test]
fn same_seed_same_nonces() {
    let run = |seed| {
        let mut r = router_with(RouterConfig::new(C_BPS), seed);
        let mut opt = request(15, 1, NONCE);
        r.on_packet(at_ms(0), 60, &mut opt, 0);
        opt
    };
    assert_eq!(run(9), run(9));
    // Code 15 on an idle 10 Mbit/s link: grant 10 Mbit/s < Rate(8) = 10.24 → code 7;
    // the fields of steps 15→14 … 8→7 (integer bits 14..=29) are re-drawn, bits 0..=13 kept.
    let Some(IpQs::Request { rate, nonce, .. }) = IpQs::decode(&run(9)) else { panic!() };
    assert_eq!(rate, 7);
    assert_eq!((nonce ^ NONCE) & ((1 << 14) - 1), 0);
    assert_ne!(run(9), run(10));
}
