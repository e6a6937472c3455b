//! The bench loop (`gen_bench`) against the event loop (`sim::run`): the same
//! flows table, byte for byte, and the same deliveries, for every named
//! switch configuration, at loads under and over the output's line rate, with
//! a run end that cuts frames on the links and in the switch.

use super::gen_bench;
use crate::results::table::Table;
use crate::scenario::{load_str, model::Scenario};
use crate::net::switch::config::PRESETS;

/// The spec 05 E5.1 bench (python/lfnlab/reproduce/ch05_switches/path05.py): CH2 → port A,
/// CH3 → port B, port C → CH0, monitors at the output (ingress) and on both
/// generator links (egress).
fn bench(config: &str, tc1_bps: u64, tc2_bps: u64, phase_ns: u64, duration_us: u64, seed: u64, delay: &str) -> Scenario {
    let text = format!(
        r#"
[sim]
name = "b-{config}"
duration = "{duration_us}us"
seed = {seed}
[sim.trace]
mode = "off"
[[node]]
name = "ch2"
kind = "host"
[[node]]
name = "ch3"
kind = "host"
[[node]]
name = "dut"
kind = "switch"
[node.switch]
config = "{config}"
[[node]]
name = "ch0"
kind = "host"
[[link]]
from = "ch2"
to = "dut"
rate = "1Gbps"
delay = "{delay}"
[[link]]
from = "ch3"
to = "dut"
rate = "1Gbps"
delay = "0ns"
[[link]]
from = "dut"
to = "ch0"
rate = "1Gbps"
delay = "{delay}"
[[flow]]
name = "flow1"
kind = "udp_cbr"
from = "ch2"
to = "ch0"
rate = "{tc1_bps}bps"
size = 1500
[[flow]]
name = "flow2"
kind = "udp_cbr"
from = "ch3"
to = "ch0"
rate = "{tc2_bps}bps"
size = 1500
start = "{phase_ns}ns"
[[monitor]]
link = "dut->ch0"
bin = "100us"
point = "ingress"
[[monitor]]
link = "ch2->dut"
bin = "100us"
[[monitor]]
link = "ch3->dut"
bin = "100us"
"#
    );
    load_str(&text, "<bench>", &[]).expect("bench scenario")
}

fn both(s: &Scenario) -> (Table, Vec<u64>, Table, Vec<u64>) {
    let world = super::run(s).expect("event loop");
    let direct = gen_bench::run(s).expect("bench loop");
    let delivered_world = world.summary.flows.iter().map(|f| f.bytes_delivered).collect();
    let delivered_bench = direct.summary.flows.iter().map(|f| f.bytes_delivered).collect();
    (world.flows, delivered_world, direct.flows, delivered_bench)
}

#[test]
fn bench_loop_writes_the_event_loops_flows_table_for_every_configuration() {
    for config in PRESETS {
        // Over the line (both inputs saturate the output) and under it, and a
        // run end that cuts frames in flight (12.3 µs frames, a 4 963 µs run).
        for (tc1, tc2, phase, seed) in [(1_000_000_000, 1_000_000_000, 0, 1), (400_000_000, 700_000_000, 7_777, 2), (999_999_000, 600_000_000, 3_001, 3)] {
            let s = bench(config, tc1, tc2, phase, 4_963, seed, "0ns");
            let (wf, wd, bf, bd) = both(&s);
            assert!(wf.num_rows() > 0, "{config}: the monitors counted frames");
            assert_eq!(bf, wf, "{config} {tc1}+{tc2}: flows table");
            assert_eq!(bd, wd, "{config} {tc1}+{tc2}: frames delivered");
        }
    }
}

#[test]
fn bench_loop_matches_with_link_delays() {
    for config in ["oq_cs", "voq_pim_gl", "rr_simple"] {
        let s = bench(config, 800_000_000, 900_000_000, 12_345, 20_000, 5, "3us");
        let (wf, wd, bf, bd) = both(&s);
        assert_eq!(bf, wf, "{config}: flows table");
        assert_eq!(bd, wd, "{config}: frames delivered");
    }
}

#[test]
fn bench_loop_refuses_other_shapes_with_the_reason() {
    let mut s = bench("oq_cs", 500_000_000, 500_000_000, 0, 1_000, 1, "0ns");
    s.flow[1].kind = crate::scenario::model::FlowKind::TcpBulk;
    let e = gen_bench::run(&s).expect_err("a TCP flow is not a bench").to_string();
    assert!(e.contains("not a generator bench") && e.contains("flow[1]"), "{e}");
}
