//! Quiet slots run as batches must give exactly what running every slot
//! through the scheduler gives (tier b, property): same departures at the same
//! times, same refusals, counters, memory peaks and scheduler state (the
//! random schedulers would diverge at the next draw otherwise).

use proptest::prelude::*;

use super::config::{FabricMode, IqSelect, Sched, SwitchConfig, QUANTUM_INFINITE};
use super::core::{Departure, Frame, Refused, SwitchCore};
use crate::engine::time::{SimTime, Span};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct F {
    l2: u32,
    id: u32,
}

impl Frame for F {
    fn l2_bytes(&self) -> u64 {
        self.l2 as u64
    }
}

/// One arrival: gap since the previous one (ns), input, output, L2 bytes.
type Arrival = (u64, usize, usize, u32);

/// The cell- and packet-mode configurations, with variants that reach the
/// other branches: backpressure from small output buffers at speedup 2,
/// several iterations, random FIFO selection, a quantum, the wavefront in packet mode.
fn configs() -> Vec<(&'static str, SwitchConfig)> {
    let p = |n: &str| SwitchConfig::preset(n).unwrap();
    let mut out: Vec<(&'static str, SwitchConfig)> =
        ["iq_fifo", "voq_islip_pi", "voq_islip_gl", "voq_pim_pi", "voq_pim_gl", "voq_exh", "voq_wfa_pi"].into_iter().map(|n| (n, p(n))).collect();
    let mut c = p("voq_islip_gl");
    c.speedup = 2.0;
    c.out_limit_bytes = 3000;
    out.push(("islip s2 small B_out", c));
    let mut c = p("voq_pim_pi");
    c.iterations = 4;
    c.speedup = 1.5;
    c.out_limit_bytes = 2048;
    out.push(("pim I4 s1.5", c));
    let mut c = p("iq_fifo");
    c.iq_select = IqSelect::Random;
    out.push(("iq random", c));
    let mut c = p("voq_islip_pi");
    c.quantum = 4;
    out.push(("islip Q4", c));
    let mut c = p("voq_wfa_pi");
    c.fabric_mode = FabricMode::Packet;
    c.quantum = QUANTUM_INFINITE;
    out.push(("wfa packet", c));
    let mut c = p("voq_exh");
    c.sched = Sched::Pim;
    c.quantum = 3;
    c.speedup = 2.0;
    c.out_limit_bytes = 4000;
    out.push(("pim packet Q3", c));
    for (_, c) in &mut out {
        c.ports = 6;
        c.total_bytes = c.total_bytes.min(64 * 1024);
        c.queue_limit_bytes = c.queue_limit_bytes.min(32 * 1024);
    }
    out
}

type Trace = (Vec<Departure<F>>, Vec<Refused<F>>, Vec<super::core::PortCounts>, (u64, u64), u64, u64);

fn run(cfg: &SwitchConfig, quiet: bool, arrivals: &[Arrival], seed: u64) -> Trace {
    let mut sw = SwitchCore::new(cfg, &vec![1_000_000_000; cfg.ports as usize], seed, "sw");
    sw.set_quiet_slots(quiet);
    let (mut now, mut deps, mut refused) = (SimTime::ZERO, Vec::new(), Vec::new());
    for (id, &(gap_ns, i, j, l2)) in arrivals.iter().enumerate() {
        now = now + Span::from_ns(gap_ns);
        // The driver's bound: no frame can become eligible before now + L_fwd.
        sw.advance(now + cfg.lookup);
        deps.extend(std::iter::from_fn(|| sw.pop_departure(SimTime::NEVER)));
        refused.extend(sw.take_refused());
        sw.receive(now, i, j, F { l2, id: id as u32 });
    }
    sw.advance(SimTime::NEVER);
    deps.extend(std::iter::from_fn(|| sw.pop_departure(SimTime::NEVER)));
    refused.extend(sw.take_refused());
    (deps, refused, sw.counts.clone(), sw.fabric_counts(), sw.memory_max_bytes(), sw.output_buffer_max_bytes())
}

fn arrivals() -> impl Strategy<Value = Vec<Arrival>> {
    // Gaps from back-to-back (0) to idle (20 µs); a few hot inputs and outputs
    // so that outputs are contended, uncontended and idle in turn.
    let one = (prop_oneof![Just(0u64), 0u64..2_000, 0u64..20_000], 0usize..4, prop_oneof![Just(4usize), Just(5usize), 0usize..6], prop_oneof![Just(1518u32), Just(64u32), 64u32..1519]);
    proptest::collection::vec(one, 1..400).prop_map(|v| v.into_iter().filter(|a| a.1 != a.2).collect())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn batched_quiet_slots_change_nothing(arr in arrivals(), seed in 0u64..1000) {
        for (name, cfg) in configs() {
            let slow = run(&cfg, false, &arr, seed);
            let fast = run(&cfg, true, &arr, seed);
            prop_assert_eq!(&slow.0, &fast.0, "{}: departures", name);
            prop_assert_eq!(&slow.1, &fast.1, "{}: refusals", name);
            prop_assert_eq!(&slow.2, &fast.2, "{}: counts", name);
            prop_assert_eq!(slow.3, fast.3, "{}: slots and cells", name);
            prop_assert_eq!((slow.4, slow.5), (fast.4, fast.5), "{}: memory peaks", name);
        }
    }
}

#[test]
fn a_lone_frame_crosses_in_three_steps_not_24() {
    // 24 cells, no contention: slot 1 through the scheduler, 22 quiet slots in
    // one jump, the last cell through the scheduler (spec 05 §2.3 timing kept).
    let cfg = SwitchConfig::preset("voq_islip_pi").unwrap();
    let arr = [(0u64, 0usize, 1usize, 1518u32)];
    let (fast, slow) = (run(&cfg, true, &arr, 1), run(&cfg, false, &arr, 1));
    assert_eq!(fast.0, slow.0);
    assert_eq!(fast.3, (24, 24), "every slot is still counted");
}
