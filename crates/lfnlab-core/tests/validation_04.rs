//! Tier (c): the ten-gigabit end host of spec 04 end to end — PHY rates
//! (§2.2), the I/O bus and NIC FIFOs (§2.4), 802.3x PAUSE (§2.5), the sender
//! rate cap (§2.6) and the advertised-window rule (§2.8). Expected values come
//! from the spec's formulas, never from a run.

mod common;
use common::*;
use lfnlab_core::engine::time::{SimTime, Span};
use lfnlab_core::host::tcp::receiver::{AckNeed, Receiver};
use lfnlab_core::net::packet::TcpHeader;
use lfnlab_core::scenario;
use lfnlab_core::sim::RunOutput;

/// Topology T4-P of spec 04 §2.11 with passthrough edges: hs — rs — rr — hr,
/// all `10g_lan`, one-way `one_way` between the routers (the delay emulator),
/// 10 m of cable (50 ns) at the hosts, 256 MiB router buffers that honour
/// PAUSE. Both hosts: MTU 9198, IPv6, the default NIC pipeline.
fn t4p(duration: &str, one_way: &str, host_fc: &str, sender_nic: &str, extra: &str) -> String {
    format!(
        r#"
[sim]
duration = "{duration}"
trace = {{ mode = "off" }}
[[node]]
name = "hs"
kind = "host"
mtu = 9198
ip_version = 6
txqueuelen = 10000
nic = {sender_nic}
fc = {host_fc}
[[node]]
name = "rs"
kind = "router"
fc = {{ honour = true }}
[[node]]
name = "rr"
kind = "router"
fc = {{ honour = true }}
[[node]]
name = "hr"
kind = "host"
mtu = 9198
ip_version = 6
nic = {{}}
fc = {host_fc}
[[link]]
from = "hs"
to = "rs"
phy = "10g_lan"
delay = "50ns"
[[link]]
from = "rs"
to = "rr"
phy = "10g_lan"
delay = "{one_way}"
queue = {{ kind = "droptail", limit = "256MiB" }}
[[link]]
from = "rr"
to = "hr"
phy = "10g_lan"
delay = "50ns"
queue = {{ kind = "droptail", limit = "256MiB" }}
[[flow]]
name = "bulk"
kind = "tcp_bulk"
from = "hs"
to = "hr"
cc = "bic"
profile = "linux-2.6"
sndbuf = "64MiB"
rcvbuf = "64MiB"
{extra}
"#
    )
}

fn nic<'a>(out: &'a RunOutput, host: &str) -> &'a lfnlab_core::results::summary::HostNicSummary {
    out.summary.host_nics.iter().find(|n| n.host == host).unwrap()
}

fn queue_max(out: &RunOutput, name: &str) -> u64 {
    out.summary.queues.iter().find(|q| q.name == name).unwrap().max_bytes
}

/// The receiver's bus time per data frame: its own DMA (o_rx) plus, with one
/// ACK per two segments, half an ACK's transmit DMA (o_tx) (spec 04 §2.4 rule 1).
fn receiver_limit_bps() -> f64 {
    let r_bus = 8.533e9;
    let data_l2 = 9198.0 + 18.0;
    let ack_l2 = 40.0 + 32.0 + 18.0;
    let per_frame_bits = 8.0 * (data_l2 - 4.0 + 64.0) + 0.5 * 8.0 * (ack_l2 - 4.0 + 32.0);
    let mss_eff = 9198.0 - 40.0 - 32.0;
    r_bus * 8.0 * mss_eff / per_frame_bits
}

/// Acceptance (issue 7): a receiver limited by its I/O bus, with PAUSE on,
/// loses no packet at its NIC; the excess waits in the upstream router.
#[test]
fn pause_on_no_nic_loss_and_the_upstream_queue_grows() {
    let out = run_toml(&t4p("3s", "5ms", "{ send = true, honour = true }", "{}", ""));
    let hr = nic(&out, "hr");
    assert_eq!(hr.rx_fifo_drop, 0, "PAUSE keeps the RX FIFO from overflowing");
    assert!(hr.pause_xoff_sent > 0 && hr.pause_xon_sent > 0, "{hr:?}");
    assert!(hr.rx_fifo_max_bytes <= 256 << 10);
    // The router port toward hr obeyed every PAUSE and held the excess.
    let port = out.summary.pause_ports.iter().find(|p| p.name == "rr->hr").unwrap();
    assert_eq!(port.pause_received, hr.pause_xoff_sent);
    assert!(port.paused_s > 0.0);
    assert!(queue_max(&out, "rr->hr") > 256 << 10, "the upstream queue grew beyond the NIC FIFO: {}", queue_max(&out, "rr->hr"));
    let f = &out.summary.flows[0];
    assert_eq!((f.retransmitted_segments, f.timeouts), (0, 0));
    assert!(out.summary.conservation.holds);
}

/// Acceptance (issue 7): with PAUSE off the same overload drops frames at the
/// receiver's RX FIFO, and TCP retransmits them.
#[test]
fn pause_off_the_receiver_drops_at_its_fifo() {
    let out = run_toml(&t4p("3s", "5ms", "{ send = false, honour = true }", "{}", ""));
    let hr = nic(&out, "hr");
    assert!(hr.rx_fifo_drop > 0, "{hr:?}");
    assert_eq!(hr.pause_xoff_sent, 0);
    assert!(out.summary.flows[0].retransmitted_segments >= hr.rx_fifo_drop);
    assert!(queue_max(&out, "rr->hr") < 4 * 9216, "without PAUSE the router never holds a queue toward hr");
}

/// spec 04 §2.4: with backpressure and a short path, the steady goodput is the
/// receiver's bus limit R_bus·MSS_eff / (bus bytes per frame): never above it,
/// and close to it once slow start is over.
#[test]
fn goodput_meets_the_receiver_bus_limit() {
    let text = t4p("4s", "500us", "{ send = true, honour = true }", "{}", "").replace("trace = { mode = \"off\" }", "");
    let out = run_toml(&text);
    let limit = receiver_limit_bps();
    let steady = goodput_bps(&out.tcp, 2.0, 3.99);
    assert!(steady <= limit * 1.0005, "goodput {steady} above the bus limit {limit}");
    assert!(steady >= 0.98 * limit, "goodput {steady} below 98 % of the bus limit {limit}");
}

/// spec 04 §2.6: a capped sender's frames start at least 8·W/cap apart and the
/// rate is the cap; a request below `tx_rate_cap_min` is raised to it, unless that floor is
/// set to 0 (spec 04 §3 E4.6).
#[test]
fn rate_cap_spaces_frame_starts_by_wire_bytes() {
    let capture = "[[monitor]]\nlink = \"hs->rs\"\nbin = \"1s\"\ncapture_packets = 20000";
    for (cap, floor, eff, clamped) in [("7Gbps", "6Gbps", 7e9, false), ("2Gbps", "6Gbps", 6e9, true), ("2Gbps", "0Gbps", 2e9, false)] {
        let nic_keys = format!("{{ tx_rate_cap = \"{cap}\", tx_rate_cap_min = \"{floor}\" }}");
        let out = run_toml(&t4p("1s", "500us", "{ send = true, honour = true }", &nic_keys, capture));
        let hs = nic(&out, "hs");
        assert_eq!((hs.tx_rate_cap_bps, hs.tx_rate_cap_clamped), (Some(eff as u64), clamped));
        let t = f64s(&out.packets, "t");
        let l3 = u64s(&out.packets, "l3_bytes");
        let gap_min = 8.0 * (9198.0 + 18.0 + 20.0) / eff;
        let mut full = 0;
        for i in 1..t.len() {
            // A frame start after a full-size frame waits 8·W/cap.
            if l3[i - 1] == 9198 {
                assert!(t[i] - t[i - 1] >= gap_min - 1e-12, "{cap}: starts {} s apart < {gap_min}", t[i] - t[i - 1]);
                full += 1;
            }
        }
        assert!(full > 1000);
        // Back-to-back full frames run at the cap exactly.
        let runs: Vec<f64> = (1..t.len()).filter(|&i| l3[i - 1] == 9198 && l3[i] == 9198).map(|i| t[i] - t[i - 1]).collect();
        let typical = runs.iter().cloned().fold(f64::INFINITY, f64::min);
        assert!((typical - gap_min).abs() < 1e-11, "{cap}: {typical} vs {gap_min}");
    }
}

/// spec 04 §2.2: a `10g_wan` port serializes at R_mac = 10 Gbit/s × 13/14.
#[test]
fn wan_phy_frames_leave_at_thirteen_fourteenths() {
    let text = r#"
[sim]
duration = "100ms"
[[node]]
name = "a"
kind = "host"
mtu = 9198
txqueuelen = 100
[[node]]
name = "b"
kind = "host"
[[link]]
from = "a"
to = "b"
phy = "10g_wan"
delay = "0s"
[[flow]]
name = "u"
kind = "udp_cbr"
from = "a"
to = "b"
rate = "20Gbps"
size = 9198
[[monitor]]
link = "a->b"
bin = "100ms"
capture_packets = 100
"#;
    let out = run_toml(text);
    let t = f64s(&out.packets, "t");
    let spacing = 8.0 * 9236.0 / (10e9 * 13.0 / 14.0);
    for w in t.windows(2) {
        assert!(((w[1] - w[0]) - spacing).abs() < 1e-11, "{} vs {spacing}", w[1] - w[0]);
    }
    let sc = scenario::load_str(text, "t.toml", &[]).unwrap();
    assert_eq!(sc.link[0].rate.unwrap().bps(), 9_285_714_286);
}

/// Acceptance (issue 7): the advertised window follows spec 04 §2.8 rule 2 —
/// `round_down(φ·(B_rcv − M_used), 2^s_w)` capped at 65535·2^s_w, the right edge never
/// moving left — for several buffers and both φ with `window_rounding = "down"`; with
/// `up` (the linux-2.6 profile: 2.6.12.1 net/ipv4/tcp_output.c `__tcp_select_window`)
/// the same window rounded up to 2^s_w.
#[test]
fn advertised_window_follows_the_rule_for_several_buffers() {
    for rounding in ["down", "up"] {
        for b_rcv in [1u64 << 20, 64 << 20, 768 << 20] {
            for s in [1i32, 2] {
                let phi = 1.0 - 0.5f64.powi(s);
                let text = format!(
                    "[sim]\nduration = \"1s\"\n[[node]]\nname = \"a\"\nkind = \"host\"\n[[node]]\nname = \"b\"\nkind = \"host\"\n[[link]]\nfrom = \"a\"\nto = \"b\"\nrate = \"10Gbps\"\ndelay = \"1ms\"\n[[flow]]\nname = \"f\"\nkind = \"tcp_bulk\"\nfrom = \"a\"\nto = \"b\"\nprofile = \"linux-2.6\"\nrcvbuf = \"{b_rcv}B\"\ntcp = {{ adv_win_scale = {s}, buffer_semantics = \"kernel\", window_rounding = \"{rounding}\" }}\n"
                );
                let sc = scenario::load_str(&text, "t.toml", &[]).unwrap();
                let cfg = scenario::tcp_config(&sc, 0);
                assert_eq!(cfg.rcvbuf_bytes, b_rcv);
                let mut r = Receiver::new(&cfg, true);
                // s_w: the smallest value with 65535·2^s_w ≥ φ·B_rcv.
                let s_w = (0..=14).find(|k| 65535.0 * (1u64 << k) as f64 >= phi * b_rcv as f64).unwrap();
                let unit = 1u64 << s_w;
                let rule = |m_used: u64| {
                    let free = (phi * (b_rcv - m_used) as f64) as u64;
                    let w = if rounding == "down" { free / unit * unit } else { free.div_ceil(unit) * unit };
                    w.min(65535 * unit)
                };
                assert_eq!(r.advertised_window(), rule(0), "{rounding} B {b_rcv} s {s}: empty buffer");
                let seg = 9126u64;
                let seg_at = |r: &mut Receiver, at: u64, n: u64| {
                    for k in 0..n {
                        let h = TcpHeader { seq: at + k * seg, payload: seg as u16, ..TcpHeader::default() };
                        r.on_data(SimTime(1), &h, 9216, Span::from_ms(200));
                    }
                };
                // 10 segments held out of order behind a hole: M_used = 10·9126.
                seg_at(&mut r, 30 * seg, 10);
                assert_eq!(r.m_used, 10 * seg);
                let before = r.advertised_window();
                assert_eq!(before, rule(0), "the right edge never moves left");
                // 20 in-order segments: rcv_nxt moves past the old edge's slack.
                seg_at(&mut r, 0, 20);
                assert_eq!(r.rcv_nxt, 20 * seg);
                assert_eq!(r.advertised_window(), rule(10 * seg).max(rule(0) - 20 * seg), "{rounding} B {b_rcv} s {s}: {} held", 10 * seg);
                // Fill the hole: the held data goes to the application, M_used = 0.
                seg_at(&mut r, 20 * seg, 10);
                assert_eq!((r.rcv_nxt, r.m_used), (40 * seg, 0));
                assert_eq!(r.advertised_window(), rule(0));
            }
        }
    }
}

/// Issue 39 (found by the full 04.E4.1 at 1e743fa, where every MTU 1500 run with a locked
/// B ≥ 512 MiB sent nothing). A 512 MiB buffer at φ = ½ needs window scale 13
/// (65535·2^12 < 256 MiB), a unit of 8192 B. Two source rules, both in 2.6.12.1
/// net/ipv4/tcp_output.c:
/// - `tcp_select_initial_window` (:159) starts rcv_ssthresh at min(space, 32767) and caps
///   it at 4·MSS only when the MSS exceeds the unit (:197); with MSS 1428 < 8192 it stays
///   32767 (the old model took 4·MSS = 5712 regardless);
/// - `__tcp_select_window` (:876) rounds a scaled window up to the unit ("prevent zero
///   window announcement if 1<<rcv_wscale > mss"), where spec 04 §2.8 rule 2 rounds down;
///   a free space under one MSS and under half the buffer still gives 0.
/// Jumbo frames (MSS 9126) at 1 MiB (scale 4, a unit of 16 B) keep the 2·MSS start.
#[test]
fn a_large_locked_buffer_opens_from_32767_and_rounds_its_scaled_window_up_on_linux_26() {
    let receiver = |rcvbuf: &str, rounding: &str, mss: u32| {
        let text = format!(
            "[sim]\nduration = \"1s\"\n[[node]]\nname = \"a\"\nkind = \"host\"\n[[node]]\nname = \"b\"\nkind = \"host\"\n[[link]]\nfrom = \"a\"\nto = \"b\"\nrate = \"10Gbps\"\ndelay = \"1ms\"\n[[flow]]\nname = \"f\"\nkind = \"tcp_bulk\"\nfrom = \"a\"\nto = \"b\"\nprofile = \"linux-2.6\"\nrcvbuf = \"{rcvbuf}\"\ntcp = {{ adv_win_scale = 1, buffer_semantics = \"kernel\", window_rounding = \"{rounding}\" }}\n"
        );
        let sc = scenario::load_str(&text, "t.toml", &[]).unwrap();
        let cfg = scenario::tcp_config(&sc, 0);
        let mut r = Receiver::new(&cfg, true);
        r.mss = mss;
        r.enable_autotuning(cfg.rcv_autotune, mss);
        r
    };
    let r = receiver("512MiB", "down", 1428);
    assert_eq!((r.wscale, r.window_cap()), (13, Some(32767)));
    assert_eq!(receiver("512MiB", "down", 1428).advertised_window(), 3 * 8192);
    assert_eq!(receiver("512MiB", "up", 1428).advertised_window(), 4 * 8192);
    // MSS above the unit: RFC 1414's cap (2 segments above 4380 B).
    let r = receiver("1MiB", "up", 9126);
    assert_eq!((r.wscale, r.window_cap()), (4, Some(2 * 9126)));
    // Nearly full (free space φ·2000 B = 1000 B, under one MSS and half the buffer): 0.
    let mut r = receiver("512MiB", "up", 1428);
    r.m_used = r.b_rcv - 2000;
    assert_eq!(r.advertised_window(), 0);
}

/// `examples/t4p.toml` loads and resolves (README, docs/ten-gig-hosts.md).
#[test]
fn the_t4p_example_validates() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/t4p.toml");
    let s = scenario::load_file(&path, &[]).unwrap();
    assert!(s.node.iter().filter(|n| n.nic.is_some()).count() == 2);
}

/// Issue 39 item 7: Linux `tcp_grow_window` sets `quick |= 1` whenever it raises
/// rcv_ssthresh (2.6.12.1 net/ipv4/tcp_input.c:278, 2.6.20 :270), so a 2.6 receiver
/// whose window is still opening ACKs every in-order segment; once rcv_ssthresh
/// reaches window_clamp (the full space φ·B of a locked buffer) it ACKs every
/// second one. With the key off the budget n = ⌊W_adv/(2·MSS)⌋ (≤ 16) runs out first.
#[test]
fn a_linux_26_receiver_acks_every_segment_while_its_window_grows() {
    let acks_for = |extra: &str| {
        let text = format!(
            "[sim]\nduration = \"1s\"\n[[node]]\nname = \"a\"\nkind = \"host\"\n[[node]]\nname = \"b\"\nkind = \"host\"\n[[link]]\nfrom = \"a\"\nto = \"b\"\nrate = \"1Gbps\"\ndelay = \"1ms\"\n[[flow]]\nname = \"f\"\nkind = \"tcp_bulk\"\nfrom = \"a\"\nto = \"b\"\nprofile = \"linux-2.6\"\nrcvbuf = \"1MiB\"\ntcp = {{ buffer_semantics = \"kernel\"{extra} }}\n"
        );
        let sc = scenario::load_str(&text, "t.toml", &[]).unwrap();
        let cfg = scenario::tcp_config(&sc, 0);
        let mut r = Receiver::new(&cfg, true);
        let mss = 1448u64;
        r.mss = mss as u32;
        r.enable_autotuning(cfg.rcv_autotune, mss as u32);
        // One immediate-ACK flag per segment: the index of each segment ACKed at once.
        let mut now_acked = Vec::new();
        for k in 0..800u64 {
            let h = TcpHeader { seq: k * mss, payload: mss as u16, ..TcpHeader::default() };
            if r.on_data(SimTime(1 + k * 1_000_000), &h, mss + 70, Span::from_ms(200)) == AckNeed::Now {
                now_acked.push(k);
                let mut ack = TcpHeader::default();
                r.fill_ack(&mut ack);
            }
        }
        (now_acked, r.window_cap())
    };
    // On (the linux-2.6 profile): rcv_ssthresh starts at 4·MSS (tcp_select_initial_window's
    // init_cwnd for MSS ≤ 1460) and grows 2·MSS per segment up to φ·B = ¾ MiB, which it
    // reaches with the ⌈(786 432 − 5792)/2896⌉ = 270th segment (index 269): every segment
    // up to there is ACKed at once, then every second one.
    let (on, cap) = acks_for("");
    let clamp = 3 * (1u64 << 20) / 4;
    assert_eq!(cap, Some(clamp));
    let last_growing = (clamp - 4 * 1448).div_ceil(2 * 1448) - 1;
    assert_eq!(last_growing, 269);
    assert_eq!(&on[..=last_growing as usize], &(0..=last_growing).collect::<Vec<_>>()[..], "every segment while rcv_ssthresh grows");
    let after: Vec<u64> = on.iter().copied().filter(|&k| k > last_growing + 1).collect();
    assert!(after.windows(2).all(|w| w[1] - w[0] == 2), "then every second segment: {:?}", &after[..6]);
    // A truesize that does not fit (`pow2`: 2048 + 256 B for a 1518-byte frame, ¾ of it
    // above 1448): __tcp_grow_window lets rcv_ssthresh grow only while it is within φ·B/2
    // (2.6.12.1 tcp_input.c:242), so segments 0..=133 (5792 + 2896·133 ≤ 393 216) are
    // ACKed at once.
    let (pow2, cap2) = acks_for(", truesize_model = \"pow2\"");
    assert_eq!(&pow2[..134], &(0..134).collect::<Vec<_>>()[..]);
    assert!(!pow2.contains(&135) || !pow2.contains(&136), "every second segment after the limit");
    assert_eq!(cap2, Some(5792 + 2896 * 134));
    // Off: the budget (at most 16) runs out and every second segment is ACKed from then on.
    let (off, cap_off) = acks_for(", quickack_on_window_growth = false");
    assert_eq!(cap_off, None, "a locked buffer's window is not tracked without the key");
    assert!(off.len() < on.len() && off.iter().filter(|&&k| k < 100).count() <= 16 + 100 / 2);
}
