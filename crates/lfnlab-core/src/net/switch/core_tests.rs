//! Scripted timing tests of the switch core (tier a/b): every expected time is
//! derived in a comment from spec 05 §2.1–2.4.

use super::config::SwitchConfig;
use super::core::{Departure, Frame, SwitchCore};
use crate::engine::rng::Stream;
use crate::engine::time::{SimTime, Span, PS_PER_US};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct F {
    l2: u32,
    input: u8,
    seq: u32,
}

impl Frame for F {
    fn l2_bytes(&self) -> u64 {
        self.l2 as u64
    }
}

const G: u64 = 1_000_000_000;

fn core(name: &str, f: impl FnOnce(&mut SwitchConfig)) -> SwitchCore<F> {
    let mut c = SwitchConfig::preset(name).unwrap();
    f(&mut c);
    SwitchCore::new(&c, &vec![G; c.ports as usize], 1, "sw")
}

fn drain(sw: &mut SwitchCore<F>, until: SimTime) -> Vec<Departure<F>> {
    sw.advance(until);
    std::iter::from_fn(|| sw.pop_departure(until)).collect()
}

#[test]
fn output_queued_frame_leaves_after_lookup_and_takes_its_wire_time() {
    let mut sw = core("oq_cs", |_| {});
    sw.receive(SimTime::ZERO, 0, 1, F { l2: 1518, input: 0, seq: 0 });
    let d = drain(&mut sw, SimTime(100 * PS_PER_US));
    // L_fwd = 2 µs; 1538 wire bytes at 1 Gbit/s = 12.304 µs.
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].start, SimTime(2 * PS_PER_US));
    assert_eq!(d[0].tx, Span::from_ns(12_304));
    assert_eq!(sw.frames_held(), 0);
}

#[test]
fn a_cell_fabric_reassembles_before_the_line() {
    let mut sw = core("voq_islip_pi", |_| {});
    sw.receive(SimTime::ZERO, 0, 1, F { l2: 1518, input: 0, seq: 0 });
    let d = drain(&mut sw, SimTime(100 * PS_PER_US));
    // τ = 8·64 B / 1 Gbit/s = 512 ns. Eligible at 2 µs; first slot at or after
    // it is k = 4 (2.048 µs); 24 cells cross in slots 4..27; reassembled at the
    // end of slot 27 = 28·512 ns = 14.336 µs.
    assert_eq!(d[0].start, SimTime(14_336_000));
}

#[test]
fn the_switch_clock_scales_serialization() {
    let mut sw = core("oq_cs", |c| c.clock_ppm = 50.0);
    sw.receive(SimTime::ZERO, 0, 1, F { l2: 1518, input: 0, seq: 0 });
    let d = drain(&mut sw, SimTime(100 * PS_PER_US));
    // 12.304 µs / 1.00005 = 12 303.385 ns.
    assert_eq!(d[0].tx, Span(12_303_385));
}

/// Two inputs at line rate into output 2 for `frames` frames each; returns the departures.
fn two_line_rate_inputs(sw: &mut SwitchCore<F>, frames: u32) -> Vec<Departure<F>> {
    let period = 12_304_000u64;
    let mut out = Vec::new();
    for k in 0..frames {
        let t = SimTime(k as u64 * period);
        for i in 0..2u8 {
            sw.receive(t, i as usize, 2, F { l2: 1518, input: i, seq: k });
        }
        out.extend(drain(sw, SimTime(t.0 + period)));
    }
    out.extend(drain(sw, SimTime(frames as u64 * period + 1_000 * PS_PER_US)));
    out
}

#[test]
fn round_robin_switch_splits_a_saturated_output_evenly_and_alternates() {
    let mut sw = core("rr_simple", |_| {});
    let d = two_line_rate_inputs(&mut sw, 2000);
    let from0 = d.iter().filter(|d| d.input == 0).count();
    // One output frame per period while both inputs send; each 16-KiB
    // sub-queue holds at most 10 frames (10·1518 = 15 180 B), so at most 20
    // are left to drain when the inputs stop.
    assert!((2000..=2020).contains(&d.len()), "{}", d.len());
    assert!(d.windows(2).all(|w| w[0].input != w[1].input), "output frames alternate between the inputs");
    assert!((from0 as f64 / d.len() as f64 - 0.5).abs() < 0.005, "{from0}");
    assert_eq!(sw.counts[0].dropped + sw.counts[1].dropped, 4000 - d.len() as u64);
}

#[test]
fn jitter_never_reorders_an_input() {
    let mut sw = core("oq_cs", |c| c.jitter = Span::from_us(1));
    let mut d = Vec::new();
    for k in 0..1000u32 {
        // 64-byte frames every 0.672 µs on input 0, with up to 1 µs of jitter each.
        let t = SimTime(k as u64 * 672_000);
        sw.receive(t, 0, 1, F { l2: 64, input: 0, seq: k });
        d.extend(drain(&mut sw, t));
    }
    d.extend(drain(&mut sw, SimTime(10_000 * PS_PER_US)));
    assert_eq!(d.len(), 1000);
    assert!(d.windows(2).all(|w| w[0].frame.seq < w[1].frame.seq));
}

#[test]
fn frames_are_conserved_in_every_configuration() {
    for name in super::config::PRESETS {
        let mut c = SwitchConfig::preset(name).unwrap();
        c.ports = 4;
        c.total_bytes = 64 * 1024;
        c.queue_limit_bytes = 8 * 1024;
        let mut sw: SwitchCore<F> = SwitchCore::new(&c, &[G; 4], 7, "sw");
        let mut rng = Stream::derive(3, name);
        let mut sent = 0u64;
        let mut t = SimTime::ZERO;
        for k in 0..20_000u32 {
            t = SimTime(t.0 + rng.next_u64() % 3_000_000);
            let i = (rng.next_u64() % 4) as usize;
            let l2 = 64 + (rng.next_u64() % 1455) as u32;
            sw.receive(t, i, (i + 1 + (rng.next_u64() % 3) as usize) % 4, F { l2, input: i as u8, seq: k });
            sw.advance(t);
            sent += std::iter::from_fn(|| sw.pop_departure(t)).count() as u64;
            let received: u64 = sw.counts.iter().map(|c| c.received).sum();
            let dropped: u64 = sw.counts.iter().map(|c| c.dropped).sum();
            assert_eq!(received, sent + dropped + sw.frames_held(), "{name} at frame {k}");
        }
        let end = SimTime(t.0 + 1_000_000 * PS_PER_US);
        sw.advance(end);
        sent += std::iter::from_fn(|| sw.pop_departure(end)).count() as u64;
        let dropped: u64 = sw.counts.iter().map(|c| c.dropped).sum();
        assert!(dropped > 0, "{name}: the load overflows 8 KiB queues");
        assert_eq!(sw.frames_held(), 0, "{name}: everything drains");
        assert_eq!(sent + dropped, 20_000, "{name}");
        assert_eq!(sw.take_refused().count() as u64, dropped, "{name}");
    }
}

/// M4's memory (spec 05 §2.2): the static split lets one input's burst to one output
/// hold at most B_sub = 16 KiB (10 full-size frames); the shared-pool variant
/// (`mem_policy = "CS"`, issue 39 item 6) lets it use all of B_total = 512 KiB.
#[test]
fn rr_simple_static_split_and_shared_pool() {
    let burst = |policy: super::config::SharePolicy| {
        let mut sw = core("rr_simple", |c| c.policy = policy);
        for seq in 0..400 {
            sw.receive(SimTime::ZERO, 0, 1, F { l2: 1518, input: 0, seq });
        }
        sw.advance(SimTime(10 * PS_PER_US));
        sw.counts[0].dropped
    };
    // All 400 become eligible together (2 µs) and are admitted before any leaves.
    // Static: 10 · 1518 = 15 180 ≤ 16 384 < 11 · 1518, so 390 are dropped.
    assert_eq!(burst(super::config::SharePolicy::Sp), 390);
    // Shared: ⌊524 288 / 1518⌋ = 345 fit, so 55 are dropped.
    assert_eq!(burst(super::config::SharePolicy::Cs), 55);
}
