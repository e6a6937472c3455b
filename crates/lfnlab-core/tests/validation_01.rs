//! Tier (c): gap-packet pacing end to end (spec 01 §2.3–2.8) against equation
//! (2), the byte accounting of §2.6 and packet conservation. Expected values
//! come from formulas, never from a run.

mod common;
use common::*;
use lfnlab_core::sim::RunOutput;

/// A saturating 1500-byte UDP source behind an ipg qdisc with a fixed gap of
/// `gap` bytes, GbE straight to the receiver, for `secs` (spec 01 §3 E1).
fn fixed_gap(gap: u64, secs: u32) -> RunOutput {
    let text = format!(
        r#"
[sim]
duration = "{secs}s"
[[node]]
name = "snd"
kind = "host"
txqueuelen = 100
qdisc = {{ kind = "ipg", fixed_gap = "{gap}B" }}
[[node]]
name = "rcv"
kind = "host"
[[link]]
from = "snd"
to = "rcv"
rate = "1Gbps"
delay = "0s"
[[flow]]
name = "u"
kind = "udp_cbr"
from = "snd"
to = "rcv"
rate = "1Gbps"
size = 1500
[[monitor]]
link = "snd->rcv"
bin = "{secs}s"
"#
    );
    run_toml(&text)
}

/// Equation (2): real data leaves at max_rate·P/(P + G), P = 1538 wire bytes.
#[test]
fn e1_rate_follows_equation_two() {
    for gap in [0u64, 84, 1538, 4097, 12_288, 65_536] {
        let out = fixed_gap(gap, 1);
        let h = &out.summary.hosts[0].io;
        // Packets started within the run: the line holds P + G per packet after the first.
        let frames = h.frames as f64;
        let theory_frames = 1.0 + ((1e9 / 8.0 - 1538.0) / (1538.0 + gap as f64)).floor();
        assert!((frames - theory_frames).abs() <= 1.0, "gap {gap}: {frames} frames, equation (2) gives {theory_frames}");
        // Gap frames: ceil(G / 4096) per real packet (§2.3 splitting), none for G = 0.
        let per = if gap == 0 { 0 } else { gap.div_ceil(4096) };
        assert!(h.gap_frames.abs_diff(per * h.frames) <= per, "gap {gap}: {} gap frames for {} packets", h.gap_frames, h.frames);
        // Wire accounting of gap frames: L2 + 20 each.
        assert_eq!(h.gap_wire_bytes, h.dma_gap_bytes + 20 * h.gap_frames);
        assert_eq!(h.dma_real_bytes, 1518 * h.frames);
        // The monitor sees real frames only (gap frames never reach a monitor).
        let packets = u64s(&out.flows, "packets").iter().sum::<u64>();
        assert_eq!(packets, h.frames, "gap {gap}");
        eprintln!("E1 gap {gap}: {frames} frames, theory {theory_frames}");
    }
}

/// The §2.8 path with Scalable TCP paced by gap frames: gap frames are absorbed
/// by the emulator (not counted as emitted, dropped or delivered), monitor M
/// at its ingress sees exactly the sender's real frames, and the run is
/// deterministic.
fn paced_path() -> RunOutput {
    let text = r#"
[sim]
duration = "20s"
trace = { mode = "off" }
[[node]]
name = "snd"
kind = "host"
profile = "linux-2.4"
pacing = { kind = "gap_packets" }
[[node]]
name = "wan"
kind = "emulator"
[[node]]
name = "rcv"
kind = "host"
profile = "linux-2.4"
[[link]]
from = "snd"
to = "wan"
rate = "1Gbps"
delay = "0s"
[[link]]
from = "wan"
to = "rcv"
rate = "62.5MB/s"
delay = "100ms"
queue = { kind = "droptail", limit = "128KiB" }
[[flow]]
name = "f"
kind = "tcp_bulk"
from = "snd"
to = "rcv"
cc = "scalable"
sndbuf = "32MiB"
rcvbuf = "32MiB"
tcp = { iw = "2", send_stall_policy = "block" }
[[monitor]]
link = "snd->wan"
bin = "500us"
point = "ingress"
"#;
    run_toml(text)
}

#[test]
fn gap_frames_are_absorbed_and_unseen() {
    let out = paced_path();
    let h = &out.summary.hosts[0].io;
    assert!(h.gap_frames > 0, "the flow was paced");
    let c = &out.summary.conservation;
    assert!(c.holds);
    // Every frame the sender's NIC sent is a real frame that the books count.
    let at_m = u64s(&out.flows, "packets").iter().sum::<u64>();
    assert!(h.frames - at_m <= 1, "monitor M saw {at_m} of {} real frames", h.frames);
    // 500 µs bins at M never exceed the NIC: 62 500 B of line time per bin.
    for (b, p) in u64s(&out.flows, "bytes").iter().zip(u64s(&out.flows, "packets")) {
        assert!(b + 20 * p <= 62_500 + 1538, "a 500 µs bin carried {} wire bytes", b + 20 * p);
    }
    assert_eq!(paced_path().summary.event_hash, out.summary.event_hash);
}
