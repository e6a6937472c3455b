//! Properties of spec 01 §2.5 at the qdisc level (the 01.V1 checks, sans-IO):
//! a NIC loop pulls from the qdisc whenever its line is idle.

use super::config::{IpgClass, IpgConfig, RateSource, RttEstimator, SizeBasis, SmallGapPolicy};
use super::qdisc::IpgQdisc;
use crate::engine::time::{PS_PER_S, SimTime};
use crate::net::packet::{FlowId, NodeId, IpFields, Packet, PacketKind, TcpHeader};
use crate::net::queue::{Dequeue, FlowSnapshot, FlowView, Qdisc};

const GBE: u64 = 1_000_000_000;
const MAX_RATE: f64 = 125e6;
const WIRE: u64 = 1538;

/// A fixed cwnd and RTT for every flow.
struct Fixed {
    cwnd: f64,
    srtt_s: f64,
}

impl FlowView for Fixed {
    fn flow(&self, _: FlowId, _: u8) -> Option<FlowSnapshot> {
        Some(FlowSnapshot { cwnd_segments: self.cwnd, srtt_s: self.srtt_s, segment_l3_bytes: 1500, in_flight_segments: 1, mss_bytes: 1448, ..Default::default() })
    }
    fn line_rate_bps(&self) -> u64 {
        GBE
    }
}

fn data(dst: NodeId, kind: PacketKind) -> Packet {
    let tcp = TcpHeader { payload: 1448, ..TcpHeader::default() };
    Packet { flow: dst as FlowId, src: 0, dst, kind, dir: 0, l3_bytes: 1500, ip: IpFields::default(), tcp, tstamp: SimTime::ZERO, ingress: 0 }
}

/// What the line carried: real packets (start time ps, dst) and gaps (start, wire bytes).
#[derive(Default, PartialEq, Debug)]
struct Trace {
    real: Vec<(u64, NodeId)>,
    gaps: Vec<(u64, u64)>,
    /// Wire bytes of real and gap frames.
    real_bytes: u64,
    gap_bytes: u64,
    end_ps: u64,
}

/// Drives the line for `secs`, keeping every destination in `dsts` backlogged.
fn drive(q: &mut IpgQdisc, view: &dyn FlowView, dsts: &[NodeId], kind: PacketKind, secs: f64) -> Trace {
    let ps_per_byte = 8 * PS_PER_S / GBE;
    let end = (secs * PS_PER_S as f64) as u64;
    let mut t = 0u64;
    let mut tr = Trace::default();
    // Packets queued per destination: each is kept at 8.
    let mut queued = [0u32; 8];
    while t < end {
        for &d in dsts {
            while queued[d as usize] < 8 {
                q.enqueue(SimTime(t), data(d, kind)).expect("room");
                queued[d as usize] += 1;
            }
        }
        match q.dequeue(SimTime(t), view) {
            Dequeue::Frame(p) => {
                queued[p.dst as usize] -= 1;
                tr.real.push((t, p.dst));
                tr.real_bytes += WIRE;
                t += WIRE * ps_per_byte;
            }
            Dequeue::Gap { wire_bytes, frames } => {
                assert!(frames >= 1 && wire_bytes <= 65_536 && wire_bytes >= 84);
                tr.gaps.push((t, wire_bytes));
                tr.gap_bytes += wire_bytes;
                t += wire_bytes * ps_per_byte;
            }
            Dequeue::WaitUntil(_) | Dequeue::Empty => panic!("a backlogged ipg qdisc always sends"),
        }
    }
    tr.end_ps = t;
    tr
}

fn class(id: u32, dst: &[NodeId], src: RateSource, rate: Option<f64>) -> IpgClass {
    IpgClass { id, dst: dst.to_vec(), rate_source: src, rate_bytes_per_s: rate }
}

/// Spec 01 §2.3 defaults on a GbE NIC with `classes`.
fn config(classes: Vec<IpgClass>) -> IpgConfig {
    IpgConfig {
        limit_packets: 1000,
        line_rate_bps: GBE,
        ipg_bytes: 12,
        gap_pkt_max_bytes: 4096,
        gap_total_max_bytes: 65536,
        gap_pkt_min_bytes: 84,
        fixed_gap_bytes: None,
        size_basis: SizeBasis::Wire,
        rtt_estimator: RttEstimator::Srtt,
        small_gap_policy: SmallGapPolicy::Carry,
        classes,
    }
}

/// Rate of real wire bytes to `dst` over the trace, bytes/s.
fn class_rate(tr: &Trace, dst: NodeId) -> f64 {
    let n = tr.real.iter().filter(|(_, d)| *d == dst).count() as f64;
    n * WIRE as f64 / (tr.end_ps as f64 / PS_PER_S as f64)
}

/// Longest run of consecutive real packets of `dst` with no gap or other packet between.
fn longest_back_to_back(tr: &Trace, dst: NodeId) -> usize {
    let ps_per_byte = 8 * PS_PER_S / GBE;
    let (mut best, mut run, mut last_end) = (0, 0, None);
    for &(t, d) in &tr.real {
        if d == dst {
            run = if last_end == Some(t) { run + 1 } else { 1 };
            best = best.max(run);
            last_end = Some(t + WIRE * ps_per_byte);
        } else {
            last_end = None;
        }
    }
    best
}

#[test]
fn one_class_gap_is_equation_three() {
    // cwnd 300, srtt 200 ms: gap = max_rate·RTT/cwnd − P = 125e6·0.2/300 − 1538 = 81 795.33 B,
    // above the 64 KiB cap; cwnd 1000 gives 23 461.67 B (equation (3)).
    for (cwnd, capped) in [(1000.0, false), (5000.0, false), (300.0, true)] {
        let view = Fixed { cwnd, srtt_s: 0.2 };
        let mut q = IpgQdisc::new(config(vec![class(0, &[], RateSource::TcpEstimate, None)]));
        let tr = drive(&mut q, &view, &[1], PacketKind::Tcp, 0.5);
        let want = (MAX_RATE * 0.2 / cwnd - WIRE as f64).min(65_536.0);
        assert!(tr.gaps.len() > 10);
        // The first two packets after idle leave back to back (§2.5 rule 6 credit);
        // from then on every packet is preceded by one gap of equation (3).
        assert!(tr.real[1].0 == tr.real[0].0 + WIRE * 8000);
        for &(_, g) in &tr.gaps[1..] {
            assert!((g as f64 - want).abs() <= 0.5 + 1e-9, "cwnd {cwnd}: gap {g}, equation (3) {want}");
        }
        assert!(tr.gaps.len() + 2 >= tr.real.len() && tr.gaps.len() < tr.real.len());
        assert_eq!(q.capped_gaps > 0, capped);
    }
}

#[test]
fn fixed_gap_mode_puts_g_after_every_packet() {
    for g in [84u64, 1538, 4097, 65_536] {
        let mut cfg = config(vec![class(0, &[], RateSource::TcpEstimate, None)]);
        cfg.fixed_gap_bytes = Some(g);
        let mut q = IpgQdisc::new(cfg);
        let tr = drive(&mut q, &Fixed { cwnd: 10.0, srtt_s: 0.1 }, &[1], PacketKind::Udp, 0.05);
        assert!(tr.gaps.iter().all(|&(_, x)| x == g), "g {g}");
        // Equation (2): the real packets' share of the line is P / (P + G).
        let share = tr.real_bytes as f64 / (tr.real_bytes + tr.gap_bytes) as f64;
        let want = WIRE as f64 / (WIRE + g) as f64;
        assert!((share - want).abs() / want < 0.005 || tr.real.len() < 10, "g {g}: {share} vs {want}");
    }
}

#[test]
fn v1a_single_class_equals_plain_gap_pacing() {
    let view = Fixed { cwnd: 2000.0, srtt_s: 0.2 };
    let mut plain = IpgQdisc::new(config(vec![class(0, &[], RateSource::TcpEstimate, None)]));
    // The same traffic classified into an explicit class 1 instead of the default class.
    let mut classful = IpgQdisc::new(config(vec![class(0, &[], RateSource::TcpEstimate, None), class(1, &[1], RateSource::TcpEstimate, None)]));
    let a = drive(&mut plain, &view, &[1], PacketKind::Tcp, 0.3);
    let b = drive(&mut classful, &view, &[1], PacketKind::Tcp, 0.3);
    assert!(a.gaps.len() > 100);
    assert_eq!(a, b);
}

#[test]
fn v1b_classes_below_line_rate_get_their_rates() {
    let mut q = IpgQdisc::new(config(vec![
        class(0, &[], RateSource::TcpEstimate, None),
        class(1, &[1], RateSource::Fixed, Some(40e6)),
        class(2, &[2], RateSource::Fixed, Some(25e6)),
    ]));
    let tr = drive(&mut q, &Fixed { cwnd: 1.0, srtt_s: 1.0 }, &[1, 2], PacketKind::Udp, 1.0);
    for (dst, want) in [(1, 40e6), (2, 25e6)] {
        let got = class_rate(&tr, dst);
        assert!((got - want).abs() / want < 0.01, "class to {dst}: {got} B/s, want {want}");
        assert!(longest_back_to_back(&tr, dst) <= 2);
    }
    // Gap frames fill the rest of the line.
    let line = (tr.real_bytes + tr.gap_bytes) as f64 / (tr.end_ps as f64 / PS_PER_S as f64);
    assert!((line - MAX_RATE).abs() / MAX_RATE < 1e-3, "{line}");
    assert!(tr.gap_bytes > 0);
}

#[test]
fn v1c_oversubscribed_classes_send_no_gaps() {
    let mut q = IpgQdisc::new(config(vec![
        class(0, &[], RateSource::TcpEstimate, None),
        class(1, &[1], RateSource::Fixed, Some(100e6)),
        class(2, &[2], RateSource::Fixed, Some(50e6)),
    ]));
    let tr = drive(&mut q, &Fixed { cwnd: 1.0, srtt_s: 1.0 }, &[1, 2], PacketKind::Udp, 1.0);
    assert!(tr.gaps.is_empty(), "{} gaps", tr.gaps.len());
    let total = class_rate(&tr, 1) + class_rate(&tr, 2);
    assert!((total - MAX_RATE).abs() / MAX_RATE < 1e-3, "line {total}");
    for (dst, cap) in [(1, 100e6), (2, 50e6)] {
        let got = class_rate(&tr, dst);
        assert!(got <= cap * 1.01, "class to {dst}: {got} above {cap}");
    }
}

#[test]
fn at_most_two_back_to_back_after_contention() {
    // Three classes near the line rate: contention makes classes late, and the
    // one-interval credit lets each catch up by at most one extra packet.
    let mut q = IpgQdisc::new(config(vec![
        class(0, &[], RateSource::TcpEstimate, None),
        class(1, &[1], RateSource::Fixed, Some(50e6)),
        class(2, &[2], RateSource::Fixed, Some(40e6)),
        class(3, &[3], RateSource::Fixed, Some(30e6)),
    ]));
    let tr = drive(&mut q, &Fixed { cwnd: 1.0, srtt_s: 1.0 }, &[1, 2, 3], PacketKind::Udp, 1.0);
    for (dst, want) in [(1, 50e6), (2, 40e6), (3, 30e6)] {
        assert!(longest_back_to_back(&tr, dst) <= 2, "class to {dst}");
        let got = class_rate(&tr, dst);
        assert!((got - want).abs() / want < 0.01, "class to {dst}: {got}");
    }
}

#[test]
fn pure_acks_are_never_paced_or_gapped() {
    let mut q = IpgQdisc::new(config(vec![class(0, &[], RateSource::TcpEstimate, None)]));
    let view = Fixed { cwnd: 10.0, srtt_s: 0.2 };
    let mut ack = data(1, PacketKind::Tcp);
    ack.tcp.payload = 0;
    ack.l3_bytes = 52;
    for _ in 0..5 {
        q.enqueue(SimTime(0), ack).unwrap();
    }
    for _ in 0..5 {
        assert!(matches!(q.dequeue(SimTime(0), &view), Dequeue::Frame(p) if p.tcp.payload == 0));
    }
    assert!(matches!(q.dequeue(SimTime(0), &view), Dequeue::Empty));
}

#[test]
fn no_rtt_sample_means_unpaced() {
    let mut q = IpgQdisc::new(config(vec![class(0, &[], RateSource::TcpEstimate, None)]));
    let tr = drive(&mut q, &Fixed { cwnd: 10.0, srtt_s: 0.0 }, &[1], PacketKind::Tcp, 0.01);
    assert!(tr.gaps.is_empty());
}

