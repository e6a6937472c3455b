//! Tier (c): the real-path elements of spec 04 §2.12 end to end — a
//! Gilbert–Elliott circuit drops exactly the frames that cross it in the Bad
//! state (p_B = 1, p_G = 0), jitter keeps a link's order, and reordering holds
//! back the asked share of frames.

mod common;
use common::*;
use lfnlab_core::sim::RunOutput;

/// A 1 Gbit/s CBR source of 1500-byte datagrams (one every 12.304 µs) over
/// a 10 Gbit/s host link and a 10 Gbit/s "circuit" with the given keys.
fn cbr(circuit: &str, duration: &str) -> String {
    format!(
        r#"
[sim]
duration = "{duration}"
trace = {{ mode = "off" }}
[[node]]
name = "a"
kind = "host"
[[node]]
name = "r"
kind = "router"
[[node]]
name = "b"
kind = "host"
[[link]]
from = "a"
to = "r"
rate = "10Gbps"
delay = "1us"
[[link]]
from = "r"
to = "b"
rate = "10Gbps"
delay = "1ms"
{circuit}
[[flow]]
name = "cbr"
kind = "udp_cbr"
from = "a"
to = "b"
rate = "1Gbps"
size = 1500
"#
    )
}

fn sent_and_delivered(out: &RunOutput) -> (u64, u64) {
    let c = &out.summary.conservation;
    (c.frames_emitted, c.frames_delivered)
}

#[test]
fn a_gilbert_elliott_circuit_drops_exactly_the_frames_of_its_bad_periods() {
    let out = run_toml(&cbr(r#"loss = { kind = "gilbert_elliott", t_good = "200ms", t_bad = "50ms", p_good = 0.0, p_bad = 1.0 }"#, "4s"));
    let l = &out.summary.link_losses[0];
    assert_eq!(l.link, "r->b");
    assert!(l.transitions.len() >= 4, "several Bad periods in 4 s: {:?}", l.transitions);
    // Frame k leaves a at k·T (T = 8·1538 bit / 1 Gbit/s) and its last bit
    // reaches b at k·T + 2·(1538 B at 10 Gbit/s) + 1 µs + 1 ms; it is lost iff
    // that instant lies in a Bad period. (Frames arriving exactly at a change
    // would be ambiguous; with these times none does.)
    let period = 8.0 * 1538.0 / 1e9;
    let transit = 2.0 * 8.0 * 1538.0 / 10e9 + 1e-6 + 1e-3;
    let bad_at = |t: f64| l.transitions.iter().rev().find(|(at, _)| *at <= t).is_some_and(|(_, bad)| *bad);
    let (sent, delivered) = sent_and_delivered(&out);
    let arrived = (0..sent).map(|k| k as f64 * period + transit).filter(|t| *t < 4.0).count() as u64;
    let expected_lost = (0..arrived).filter(|k| bad_at(*k as f64 * period + transit)).count() as u64;
    assert_eq!(l.dropped, expected_lost);
    assert_eq!(delivered, arrived - expected_lost);
    // The Bad share of the run matches the loss share (p_B = 1).
    let share = l.bad_s.unwrap() / 4.0;
    assert!((l.dropped as f64 / arrived as f64 - share).abs() < 0.002);
}

#[test]
fn jitter_keeps_order_and_reordering_holds_back_its_share() {
    // Jitter only: nothing is held back, every frame arrives.
    let out = run_toml(&cbr(r#"impair = { jitter = "50us" }"#, "1s"));
    assert_eq!(out.summary.reordered_frames, 0);
    let (sent, delivered) = sent_and_delivered(&out);
    // Only frames still on the links at the end are missing: at most
    // (1 ms + 1 µs + 50 µs of jitter + two frame times) / 12.304 µs < 86.
    assert!(sent - delivered <= 86, "{sent} sent, {delivered} delivered");
    // 1 % of the frames in each direction are held back 100 µs.
    let out = run_toml(&cbr(r#"impair = { p_reorder = 0.01, reorder_delay = "100us" }"#, "2s"));
    let n = sent_and_delivered(&out).0 as f64;
    let share = out.summary.reordered_frames as f64 / n;
    assert!((share - 0.01).abs() < 0.002, "{share}");
    assert!(out.summary.conservation.holds);
}

/// A TCP stream over a jittered circuit sees no reordering: no duplicate
/// ACKs, no retransmission.
#[test]
fn tcp_over_jitter_without_reordering_never_retransmits() {
    let text = cbr(r#"impair = { jitter = "200us" }"#, "2s")
        .replace("kind = \"udp_cbr\"", "kind = \"tcp_bulk\"\ncc = \"reno\"\nsndbuf = \"8MiB\"\nrcvbuf = \"8MiB\"")
        .replace("rate = \"1Gbps\"\nsize = 1500\n", "");
    let out = run_toml(&text);
    assert_eq!(out.summary.flows[0].retransmitted_segments, 0);
    assert!(out.summary.flows[0].goodput_bps > 1e9);
}

/// spec 04 §2.12 κ_B: while the circuit is Bad its egress serializes at κ_B·R.
/// With κ_B = 0.05 a 10 Gbit/s circuit carries 500 Mbit/s, half the 1 Gbit/s
/// offered, so a backlog grows by one frame per 2·T (T the source's period)
/// for the whole Bad period and drains in Good. The largest backlog is
/// therefore the longest Bad period / 2T frames; without κ_B there is none.
#[test]
fn a_bad_circuit_state_reduces_its_capacity_by_kappa() {
    let ge = r#"loss = { kind = "gilbert_elliott", t_good = "200ms", t_bad = "50ms", p_good = 0.0, p_bad = 0.0, capacity_bad = 0.05 }
queue = { kind = "droptail", limit = "64MiB" }"#;
    let out = run_toml(&cbr(ge, "4s"));
    let l = &out.summary.link_losses[0];
    assert_eq!(l.dropped, 0);
    let period = 8.0 * 1538.0 / 1e9;
    // The longest Bad period that ends before the run does.
    let longest = l.transitions.windows(2).filter(|w| w[0].1).map(|w| w[1].0 - w[0].0).fold(0.0, f64::max);
    assert!(longest > 0.02, "{:?}", l.transitions);
    let q = out.summary.queues.iter().find(|q| q.name == "r->b").unwrap();
    // Queue bytes are L2 (1518 per frame).
    let frames = q.max_bytes as f64 / 1518.0;
    let expected = longest / (2.0 * period);
    assert!((frames - expected).abs() <= 0.01 * expected + 2.0, "backlog {frames:.1} frames, expected {expected:.1}");
    // κ_B = 1 (the default) leaves the circuit at full rate: at most a frame waits.
    let out = run_toml(&cbr(&ge.replace("capacity_bad = 0.05", "capacity_bad = 1.0"), "4s"));
    assert!(out.summary.queues.iter().find(|q| q.name == "r->b").unwrap().max_bytes <= 1518);
}
