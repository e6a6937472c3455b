//! Tier (c): switches in whole scenarios (spec 05 §2.2–2.5, §3 E5.0). Two
//! hardware-like CBR generators (`udp_cbr`, whose rate is a transmission
//! capacity in wire bytes, §2.5 rule 1) feed ports A and B of the device under
//! test; port C feeds the monitor host. Expected values come from the line
//! rate, the frame size and the generator period, never from a run.

mod common;
use common::*;
use lfnlab_core::sim::RunOutput;

/// 1500-byte IP packets: W = 1538 wire bytes, 12.304 µs at 1 Gbit/s (spec 05 §2.1).
const WIRE_BYTES: f64 = 1538.0;

fn two_flows(config: &str, tc1_mbps: u32, tc2_mbps: u32, duration: &str, seed: u64) -> String {
    format!(
        r#"
[sim]
duration = "{duration}"
seed = {seed}
trace = {{ mode = "off" }}
[[node]]
name = "ch2"
kind = "host"
[[node]]
name = "ch3"
kind = "host"
[[node]]
name = "dut"
kind = "switch"
switch = {{ config = "{config}" }}
[[node]]
name = "ch0"
kind = "host"
[[link]]
from = "ch2"
to = "dut"
rate = "1Gbps"
delay = "0ns"
[[link]]
from = "ch3"
to = "dut"
rate = "1Gbps"
delay = "0ns"
[[link]]
from = "dut"
to = "ch0"
rate = "1Gbps"
delay = "0ns"
[[flow]]
name = "flow1"
kind = "udp_cbr"
from = "ch2"
to = "ch0"
rate = "{tc1_mbps}Mbps"
size = 1500
[[flow]]
name = "flow2"
kind = "udp_cbr"
from = "ch3"
to = "ch0"
rate = "{tc2_mbps}Mbps"
size = 1500
start = "3us"
[[monitor]]
link = "dut->ch0"
bin = "100ms"
"#
    )
}

fn delivered(out: &RunOutput, flow: &str) -> u64 {
    out.summary.flows.iter().find(|f| f.name == flow).map(|f| f.bytes_delivered / 1472).unwrap()
}

#[test]
fn round_robin_shares_a_saturated_output_evenly() {
    // spec 05 §3 E5.0 "Round robin": M4, two inputs at 1000 Mbit/s → each share 0.5 ± 0.005.
    let out = run_toml(&two_flows("rr_simple", 1000, 1000, "2s", 1));
    let (a, b) = (delivered(&out, "flow1") as f64, delivered(&out, "flow2") as f64);
    let share = a / (a + b);
    assert!((share - 0.5).abs() < 0.005, "share {share}");
    // The output is saturated: 2 s at one frame per 12.304 µs, within one frame of each end.
    let line = 2.0 / (8.0 * WIRE_BYTES / 1e9);
    assert!((a + b - line).abs() < 3.0 + 10.0, "{} frames vs {line}", a + b);
    assert!(out.summary.conservation.holds);
}

#[test]
fn below_the_line_rate_every_configuration_forwards_everything() {
    // B5 (spec 05 §2.8): no loss while TC1 + TC2 ≤ R_line.
    for config in ["oq_cs", "oq_dt", "iq_fifo", "voq_islip_pi", "voq_islip_gl", "voq_pim_pi", "voq_pim_gl", "voq_exh", "voq_wfa_pi", "rr_simple"] {
        let out = run_toml(&two_flows(config, 400, 500, "300ms", 2));
        let sw = &out.summary.switches[0];
        assert!(sw.ports.iter().all(|p| p.dropped == 0), "{config}: {:?}", sw.ports);
        let sent: u64 = out.summary.flows.iter().map(|f| f.bytes_delivered).sum();
        assert!(sent > 0 && out.summary.conservation.holds, "{config}");
        // Frames received by the switch = frames it sent (up to those inside it at the end).
        let rx: u64 = sw.ports.iter().map(|p| p.received).sum();
        let tx: u64 = sw.ports.iter().map(|p| p.sent).sum();
        assert!(rx - tx <= 4, "{config}: {rx} in, {tx} out");
    }
}

#[test]
fn the_generator_counts_exactly_tc_in_wire_bytes() {
    // spec 05 §3 E5.0 "Generator": frame k leaves at k·T, T = 8·(L3 + 38)/TC,
    // so [0, 1 s) holds floor(1 s / T) + 1 frames (1 s / T is not a whole
    // number for these TC), and their wire bytes count TC within one frame.
    for (tc, expect) in [(100u32, 8128u64), (500, 40638), (1000, 81275)] {
        let text = two_flows("oq_cs", tc, 0, "1s", 1).replace("rate = \"0Mbps\"", "rate = \"1Mbps\"\nstop = \"4us\"")
            + "[[monitor]]\nlink = \"ch2->dut\"\nbin = \"100ms\"\n";
        let out = run_toml(&text);
        let (mon, flow, packets) = (strs(&out.flows, "monitor"), strs(&out.flows, "flow"), u64s(&out.flows, "packets"));
        let frames: u64 = (0..packets.len()).filter(|&i| mon[i] == "ch2->dut" && flow[i] == "flow1").map(|i| packets[i]).sum();
        assert_eq!(frames, expect, "TC {tc}");
        let wire_mbps = frames as f64 * WIRE_BYTES * 8.0 / 1e6;
        assert!((wire_mbps - tc as f64).abs() <= WIRE_BYTES * 8.0 / 1e6, "TC {tc}: {wire_mbps} Mbit/s of wire bytes");
    }
}

#[test]
fn a_shared_pool_lets_one_flow_win_where_per_input_memory_splits() {
    // The two starvation mechanisms of spec 05 §5 side by side at 900 + 900:
    // shared memory (oq_cs) vs per-input memory (voq_islip_pi). Not a figure:
    // only the direction is asserted, the E5 reports give the numbers.
    let shared = run_toml(&two_flows("oq_cs", 900, 900, "1s", 1));
    let split = run_toml(&two_flows("voq_islip_pi", 900, 900, "1s", 1));
    let share = |o: &RunOutput| {
        let (a, b) = (delivered(o, "flow1") as f64, delivered(o, "flow2") as f64);
        a.min(b) / (a + b)
    };
    assert!(share(&split) > 0.45, "per-input memory splits evenly: {}", share(&split));
    assert!(share(&shared) < share(&split), "{} vs {}", share(&shared), share(&split));
}

#[test]
fn a_switch_run_is_deterministic_and_its_seed_moves_its_clock() {
    let a = run_toml(&two_flows("voq_pim_gl", 1000, 950, "200ms", 5));
    let b = run_toml(&two_flows("voq_pim_gl", 1000, 950, "200ms", 5));
    let c = run_toml(&two_flows("voq_pim_gl", 1000, 950, "200ms", 6));
    assert_eq!(a.summary.event_hash, b.summary.event_hash);
    assert_eq!(a.summary.switches, b.summary.switches);
    assert_ne!(a.summary.switches[0].clock_ppm, c.summary.switches[0].clock_ppm);
}
