//! Properties of spec 03 §2.7 at the qdisc level, sans-IO: a NIC loop pulls
//! from the qdisc whenever its MAC is idle, keeping the 8-byte minimum gap the
//! port adds after every frame.

use super::config::{NicMode, RttPoint, TcpNicConfig};
use super::counter::CounterFields;
use super::ipg_count::{dynamic_count, fixed_count};
use super::qdisc::TcpNicQdisc;
use crate::engine::time::{PS_PER_S, SimTime, Span};
use crate::net::packet::{FlowId, IpFields, Packet, PacketKind, TcpHeader};
use crate::net::queue::{Dequeue, FlowSnapshot, FlowView, Qdisc};

const GBE: u64 = 1_000_000_000;
/// One byte-time at 1 Gbit/s, ps.
const BYTE_PS: u64 = 8_000;
/// A full frame with preamble: 1518 + 8 wire bytes.
const F: u64 = 1526;
/// The port's minimum gap between frames (`nic_min_ifg`), bytes.
const MIN_GAP: u64 = 8;
const TICK_PS: u64 = 64_000;

/// cwnd/srtt per flow id; None = no snapshot.
struct View(Vec<Option<FlowSnapshot>>);

impl View {
    fn none() -> View {
        View(Vec::new())
    }
    fn uniform(cwnd: f64, srtt_s: f64) -> View {
        View(vec![Some(snap(cwnd, srtt_s)); 256])
    }
}

fn snap(cwnd: f64, srtt_s: f64) -> FlowSnapshot {
    FlowSnapshot { cwnd_segments: cwnd, srtt_s, segment_l3_bytes: 1500, mss_bytes: 1448, ..Default::default() }
}

impl FlowView for View {
    fn flow(&self, flow: FlowId, _: u8) -> Option<FlowSnapshot> {
        self.0.get(flow as usize).copied().flatten()
    }
    fn line_rate_bps(&self) -> u64 {
        GBE
    }
}

fn tcp(flow: FlowId, l3: u32) -> Packet {
    let tcp = TcpHeader { payload: l3.saturating_sub(52) as u16, ..TcpHeader::default() };
    Packet { flow, src: 0, dst: 1, kind: PacketKind::Tcp, dir: 0, l3_bytes: l3, ip: IpFields::default(), tcp, tstamp: SimTime::ZERO, ingress: 0 }
}

fn udp(flow: FlowId) -> Packet {
    Packet { kind: PacketKind::Udp, ..tcp(flow, 1500) }
}

fn fixed(ipg_bytes: u64) -> TcpNicConfig {
    TcpNicConfig { mode: NicMode::Fixed { ipg_bytes }, ..TcpNicConfig::new(GBE) }
}

fn frame(d: Dequeue) -> Packet {
    match d {
        Dequeue::Frame(p) => p,
        other => panic!("expected a frame, got {other:?}"),
    }
}

fn fields(q: &TcpNicQdisc, entry: usize, t: u64) -> CounterFields {
    CounterFields::unpack(q.counter_word(entry, SimTime(t)), 7)
}

/// Frame starts: (time ps, flow).
type Trace = Vec<(u64, FlowId)>;

/// Drives the MAC for `frames` frames with every packet template in `backlog`
/// kept at 4 queued packets; a poll after a frame happens at frame end + the
/// minimum gap, or at the time the qdisc asks for.
fn drive(q: &mut TcpNicQdisc, view: &dyn FlowView, backlog: &[Packet], frames: usize) -> Trace {
    let mut queued = vec![0u32; backlog.len()];
    let mut t = 0u64;
    let mut tr = Trace::new();
    while tr.len() < frames {
        for (i, p) in backlog.iter().enumerate() {
            while queued[i] < 4 {
                q.enqueue(SimTime(t), *p).expect("room");
                queued[i] += 1;
            }
        }
        match q.dequeue(SimTime(t), view) {
            Dequeue::Frame(p) => {
                let i = backlog.iter().position(|b| b.flow == p.flow && b.kind == p.kind).unwrap();
                queued[i] -= 1;
                tr.push((t, p.flow));
                t += (p.l2_bytes() + 8 + MIN_GAP) * BYTE_PS;
            }
            Dequeue::WaitUntil(w) => {
                assert!(w.0 > t, "WaitUntil must lie in the future");
                t = w.0;
            }
            other => panic!("backlogged NIC returned {other:?}"),
        }
    }
    tr
}

#[test]
fn counter_decrements_once_per_tick() {
    // Fixed IPG 1024 B at 1 Gbit/s: 8192 ns = 128 ticks of 64 ns (§2.7.6).
    let mut q = TcpNicQdisc::new(fixed(1024));
    q.enqueue(SimTime(0), tcp(0, 1500)).unwrap();
    q.enqueue(SimTime(0), tcp(0, 1500)).unwrap();
    frame(q.dequeue(SimTime(0), &View::none()));
    let frame_end = F * BYTE_PS;
    for k in 0..=128u64 {
        let at = frame_end + k * TICK_PS;
        let word = q.counter_word(1, SimTime(at));
        assert_eq!(word >> 9, 128 - k as u32, "k {k}");
        // Within a tick the field holds its value (ceil): it drops only at the next tick.
        if k < 128 {
            assert_eq!(q.counter_word(1, SimTime(at + TICK_PS - 1)) >> 9, 128 - k as u32);
        }
        let f = CounterFields::unpack(word, 7);
        assert!(f.active);
        assert_eq!(f.ready, k == 128, "k {k}");
    }
    assert_eq!(q.report().streams[0].totals.last_ipg_count, 128);
}

#[test]
fn max_ipg_is_536_9_ms_and_clamps_dynamic_ipg() {
    let cfg = TcpNicConfig::new(GBE);
    // (2^23 − 1) × 64 ns = 536 870 848 ns (§2.7.4).
    assert_eq!(cfg.max_ipg_count(), (1 << 23) - 1);
    assert_eq!(cfg.max_ipg(), Span(8_388_607 * TICK_PS));
    assert!((cfg.max_ipg().as_secs_f64() - 0.5369).abs() < 1e-4);
    // cwnd 1, srtt 10 s: IPG ≈ 10 s, above the field → 2^23 − 1.
    let mut q = TcpNicQdisc::new(cfg);
    q.enqueue(SimTime(0), tcp(0, 1500)).unwrap();
    q.enqueue(SimTime(0), tcp(0, 1500)).unwrap();
    let view = View::uniform(1.0, 10.0);
    frame(q.dequeue(SimTime(0), &view));
    let frame_end = F * BYTE_PS;
    match q.dequeue(SimTime(frame_end), &view) {
        Dequeue::WaitUntil(w) => assert_eq!(w, SimTime(frame_end) + cfg.max_ipg()),
        other => panic!("{other:?}"),
    }
    assert_eq!(q.counter_word(1, SimTime(frame_end)) >> 9, 8_388_607);
    assert_eq!(q.report().streams[0].totals.last_ipg_count, 8_388_607);
    // A vanishing window (X_i → 0, IPG → ∞) clamps too; NaN inputs give 1.
    let tiny = Some(snap(1e-300, 1.0));
    assert_eq!(dynamic_count(tiny, 1518, GBE, cfg.tick, cfg.max_ipg_count()), 8_388_607);
    assert_eq!(dynamic_count(Some(snap(f64::NAN, 1.0)), 1518, GBE, cfg.tick, cfg.max_ipg_count()), 1);
}

#[test]
fn ready_needs_zero_remaining_and_data() {
    let mut q = TcpNicQdisc::new(fixed(1024));
    // An entry that never had traffic: all zero.
    assert_eq!(q.counter_word(1, SimTime(0)), 0);
    q.enqueue(SimTime(0), tcp(0, 1500)).unwrap();
    assert_eq!(fields(&q, 1, 0), CounterFields { remaining: 0, active: true, ready: true, wait: 0 });
    frame(q.dequeue(SimTime(0), &View::none()));
    let ready_at = F * BYTE_PS + 128 * TICK_PS;
    // Remaining > 0, no data.
    let f = fields(&q, 1, ready_at - 1);
    assert!(f.active && !f.ready && f.remaining == 1);
    // Remaining > 0 with data → not Ready.
    q.enqueue(SimTime(ready_at - 10 * TICK_PS), tcp(0, 1500)).unwrap();
    let f = fields(&q, 1, ready_at - 1);
    assert!(f.active && !f.ready && f.remaining == 1);
    // Both → Ready.
    let f = fields(&q, 1, ready_at);
    assert!(f.active && f.ready && f.remaining == 0);
    assert_eq!(q.counter_word(1, SimTime(ready_at)), 1 << 8 | 1 << 7);
    // Remaining 0 without data → not Ready.
    frame(q.dequeue(SimTime(ready_at), &View::none()));
    let later = ready_at + (F * BYTE_PS + 128 * TICK_PS) * 2;
    let f = fields(&q, 1, later);
    assert!(f.active && !f.ready && f.remaining == 0);
    // A packet arriving after the IPG ran out makes the stream Ready at its
    // arrival: the starvation metric counts from there (§2.7.5).
    assert_eq!(q.report().streams[0].totals.max_ready_wait_s, 0.0);
    q.enqueue(SimTime(later), tcp(0, 1500)).unwrap();
    frame(q.dequeue(SimTime(later + 100_000), &View::none()));
    assert_eq!(q.report().streams[0].totals.max_ready_wait_s, 100e-9);
}

#[test]
fn fixed_ipg_count_rounds_up_to_the_tick() {
    let max = (1 << 23) - 1;
    // n = IPG / 8 at 1 Gbit/s; 1023 B → 127.875 → 128; 4196 B → 525 (open point 2).
    for (ipg, n) in [(8, 1), (256, 32), (1023, 128), (1024, 128), (4196, 525), (16384, 2048), (0, 1)] {
        assert_eq!(fixed_count(ipg, GBE, Span::from_ns(64), max), n, "ipg {ipg}");
    }
    // 100 Mbit/s: 8 B last 640 ns = 10 ticks.
    assert_eq!(fixed_count(8, GBE / 10, Span::from_ns(64), max), 10);
}

#[test]
fn fixed_ipg_spacing_is_exact() {
    for ipg in [8u64, 256, 1024, 16384] {
        for l3 in [1500u32, 52] {
            let mut q = TcpNicQdisc::new(fixed(ipg));
            let tr = drive(&mut q, &View::none(), &[tcp(0, l3)], 200);
            let fr = (l3 as u64 + 18).max(64) + 8;
            for w in tr.windows(2) {
                assert_eq!(w[1].0 - w[0].0, (fr + ipg) * BYTE_PS, "ipg {ipg} l3 {l3}");
            }
            // Y' = Y·F/(F + IPG) (§2.3 check formula, exact with F = L2 + 8).
            let span_ps = tr.last().unwrap().0 - tr[0].0;
            let rate = (tr.len() as u64 - 1) as f64 * (fr * 8) as f64 * PS_PER_S as f64 / span_ps as f64;
            let want = GBE as f64 * fr as f64 / (fr + ipg) as f64;
            assert!((rate - want).abs() / want < 1e-12, "ipg {ipg}: {rate} vs {want}");
        }
    }
}

#[test]
fn dynamic_spacing_is_rtt_over_cwnd() {
    // cwnd 100, srtt 0.2 s: X = 100 × 1526 / 0.2 = 763 000 B/s; full frames start
    // every srtt/cwnd = 2 ms, rounded up to the 64 ns tick.
    let mut q = TcpNicQdisc::new(TcpNicConfig::new(GBE));
    let tr = drive(&mut q, &View::uniform(100.0, 0.2), &[tcp(0, 1500)], 50);
    for w in tr.windows(2) {
        let d = w[1].0 - w[0].0;
        assert!((2 * PS_PER_S / 1000..2 * PS_PER_S / 1000 + TICK_PS).contains(&d), "spacing {d} ps");
    }
    // IPG = 1526 × (1/763 000 − 1/1.25e8) s = 1 987 792 ns → 31 059.25 → 31 060 ticks.
    assert_eq!(q.report().streams[0].totals.last_ipg_count, 31_060);
    // X_i ≥ Y: n = 1, frames leave every frame + 8 B.
    let mut q = TcpNicQdisc::new(TcpNicConfig::new(GBE));
    let tr = drive(&mut q, &View::uniform(100_000.0, 0.01), &[tcp(0, 1500)], 20);
    assert!(tr.windows(2).all(|w| w[1].0 - w[0].0 == (F + 8) * BYTE_PS));
    assert_eq!(q.report().streams[0].totals.last_ipg_count, 1);
    // An IPG that is an exact multiple of the tick gets exactly that many ticks:
    // srtt/cwnd = 12.208 µs + k × 64 ns leaves a gap of k ticks after a full frame.
    for k in 1..300u64 {
        let srtt_s = (12_208 + 64 * k) as f64 * 1e-6;
        assert_eq!(dynamic_count(Some(snap(1000.0, srtt_s)), 1518, GBE, Span::from_ns(64), (1 << 23) - 1), k as u32, "k {k}");
    }
    // No snapshot: n = 1 as well.
    let mut q = TcpNicQdisc::new(TcpNicConfig::new(GBE));
    drive(&mut q, &View::none(), &[tcp(0, 1500)], 3);
    assert_eq!(q.report().streams[0].totals.last_ipg_count, 1);
}

#[test]
fn two_streams_at_half_the_line_alternate() {
    // IPG 1526 B: each stream wants F/(F + F) = half the line.
    let mut q = TcpNicQdisc::new(fixed(F));
    let tr = drive(&mut q, &View::none(), &[tcp(0, 1500), tcp(1, 1500)], 1000);
    for w in tr.windows(2) {
        assert_ne!(w[0].1, w[1].1, "wins alternate");
    }
    let r = q.report();
    let frame_s = (F * BYTE_PS) as f64 / PS_PER_S as f64;
    for s in &r.streams {
        assert!(s.totals.frames >= 499, "{s:?}");
        assert!(s.totals.max_ready_wait_s <= 2.0 * frame_s, "{s:?}");
    }
}

#[test]
fn paced_stream_next_to_greedy_one_waits_at_most_a_frame() {
    // Flow 0 greedy (X ≥ Y, n = 1); flow 1 paced at 1 ms (cwnd 10, srtt 10 ms).
    let view = View(vec![Some(snap(1e6, 0.01)), Some(snap(10.0, 0.01))]);
    let frame_s = (F * BYTE_PS) as f64 / PS_PER_S as f64;
    let gap_s = (MIN_GAP * BYTE_PS) as f64 / PS_PER_S as f64;
    // The paced stream has the lower entry: it wins the tie with the greedy one.
    let mut q = TcpNicQdisc::new(TcpNicConfig::new(GBE));
    let tr = drive(&mut q, &view, &[tcp(1, 1500), tcp(0, 1500)], 20_000);
    let r = q.report();
    let paced = r.streams.iter().find(|s| s.flow == 1).unwrap();
    assert_eq!(paced.entry, 1);
    assert!(paced.totals.max_ready_wait_s <= frame_s + gap_s, "{paced:?}");
    let dur_s = tr.last().unwrap().0 as f64 / PS_PER_S as f64;
    assert!(paced.totals.frames as f64 >= dur_s / 1.02e-3, "{paced:?} over {dur_s} s");
    // The paced stream has the higher entry: it loses one tie, then its wait
    // counter beats the greedy stream's (reset at each of its wins).
    let mut q = TcpNicQdisc::new(TcpNicConfig::new(GBE));
    drive(&mut q, &view, &[tcp(0, 1500), tcp(1, 1500)], 20_000);
    let r = q.report();
    let paced = r.streams.iter().find(|s| s.flow == 1).unwrap();
    assert_eq!(paced.entry, 2);
    assert!(paced.totals.lost > 0 && paced.totals.max_ready_wait_s <= 2.0 * (frame_s + gap_s), "{paced:?}");
    let greedy = r.streams.iter().find(|s| s.flow == 0).unwrap();
    assert!(greedy.totals.frames > 10 * paced.totals.frames);
}

#[test]
fn ties_go_to_the_lowest_entry_and_wait_saturates() {
    let mut q = TcpNicQdisc::new(fixed(8));
    // Flow 7 arrives first and takes entry 1.
    q.enqueue(SimTime(0), tcp(7, 1500)).unwrap();
    q.enqueue(SimTime(0), tcp(3, 1500)).unwrap();
    assert_eq!(frame(q.dequeue(SimTime(0), &View::none())).flow, 7);
    assert_eq!(fields(&q, 2, 0).wait, 1);
    assert_eq!(fields(&q, 1, 0).wait, 0);

    // 130 Ready streams with one packet each: entry k loses k − 1 times before
    // its win, so entry 130's wait counter would reach 129; it saturates at 127.
    let cfg = TcpNicConfig { max_streams: 200, ..fixed(8) };
    let mut q = TcpNicQdisc::new(cfg);
    for f in 0..130 {
        q.enqueue(SimTime(0), tcp(f, 1500)).unwrap();
    }
    let mut t = 0;
    for k in 0..129 {
        let p = frame(q.dequeue(SimTime(t), &View::none()));
        assert_eq!(p.flow, k);
        t += (F + MIN_GAP) * BYTE_PS;
    }
    assert_eq!(fields(&q, 130, t).wait, 127);
    assert_eq!(q.counter_word(130, SimTime(t)) & 0x7f, 127);
    assert_eq!(q.report().streams[129].totals.lost, 129);
    assert_eq!(frame(q.dequeue(SimTime(t), &View::none())).flow, 129);
}

#[test]
fn send_buffer_reclaims_only_from_the_oldest_unsent_slot() {
    // 10 000 B ring, 1526-byte slots (1518 + 8 header): six fit (9156 B).
    let cfg = TcpNicConfig { send_buffer_bytes: 10_000, ..fixed(16384) };
    let mut q = TcpNicQdisc::new(cfg);
    let view = View::none();
    let (a, b) = (tcp(0, 1500), tcp(1, 1500));
    for p in [a, a, b, b, b, b] {
        q.enqueue(SimTime(0), p).unwrap();
    }
    assert_eq!(q.ring_used_bytes(), 9156);
    assert_eq!(q.room_packets(0, 0), 0);
    assert!(q.enqueue(SimTime(0), b).is_err());
    assert_eq!(q.report().ring_blocks, 1);
    // A1 leaves: the oldest unsent slot is now A2, 1526 B are free again.
    assert_eq!(frame(q.dequeue(SimTime(0), &view)).flow, 0);
    assert_eq!(q.ring_used_bytes(), 7630);
    q.enqueue(SimTime(0), b).unwrap(); // B5
    assert!(q.enqueue(SimTime(0), b).is_err());
    assert_eq!(q.ring_used_bytes(), 9156);
    // B1 leaves while the older A2 is unsent: its area is NULL but not free.
    let t1 = (F + MIN_GAP) * BYTE_PS;
    assert_eq!(frame(q.dequeue(SimTime(t1), &view)).flow, 1);
    assert_eq!(q.ring_used_bytes(), 9156);
    assert_eq!(q.stats().bytes, 5 * 1518);
    assert!(q.enqueue(SimTime(t1), b).is_err());
    assert_eq!(q.report().ring_blocks, 3);
    // A2 leaves: the oldest unsent is B2 at offset 4578; written 10 682.
    let Dequeue::WaitUntil(t2) = q.dequeue(SimTime(2 * t1), &view) else { panic!() };
    assert_eq!(frame(q.dequeue(t2, &view)).flow, 0);
    assert_eq!(q.ring_used_bytes(), 10_682 - 4578);
    assert_eq!(q.room_packets(0, 0), (10_000 - 6104) / 1534);
    assert_eq!(q.ring_max_used_bytes(), 9156);
}

#[test]
fn cam_overflow_and_udp_use_shared_entry_zero() {
    let cfg = TcpNicConfig { max_streams: 2, shared_ipg_bytes: 1024, ..fixed(8) };
    let mut q = TcpNicQdisc::new(cfg);
    for f in 0..3 {
        q.enqueue(SimTime(0), tcp(f, 1500)).unwrap();
    }
    q.enqueue(SimTime(0), udp(9)).unwrap();
    assert_eq!(q.entry_of(0, 0), Some(1));
    assert_eq!(q.entry_of(1, 0), Some(2));
    assert_eq!(q.entry_of(2, 0), Some(0));
    assert_eq!(q.entry_of(3, 0), None);
    // Entry 0 wins the first tie (lowest id) and sends the overflowed TCP packet.
    let p = frame(q.dequeue(SimTime(0), &View::none()));
    assert_eq!((p.flow, p.kind), (2, PacketKind::Tcp));
    // Shared IPG 1024 B = 128 ticks, not the streams' 8 B.
    assert_eq!(fields(&q, 0, F * BYTE_PS).remaining, 128);
    let mut t = (F + MIN_GAP) * BYTE_PS;
    while q.len_packets() > 0 {
        match q.dequeue(SimTime(t), &View::none()) {
            Dequeue::Frame(p) => t += (p.l2_bytes() + 8 + MIN_GAP) * BYTE_PS,
            Dequeue::WaitUntil(w) => t = w.0,
            Dequeue::Empty | Dequeue::Gap { .. } => unreachable!(),
        }
    }
    assert!(matches!(q.dequeue(SimTime(t), &View::none()), Dequeue::Empty));
    let r = q.report();
    assert_eq!(r.shared_packets, 2);
    let e: Vec<_> = r.streams.iter().map(|s| (s.entry, s.flow, s.totals.frames, s.totals.last_ipg_count)).collect();
    assert_eq!(e, vec![(0, u32::MAX, 2, 128), (1, 0, 1, 1), (2, 1, 1, 1)]);
    assert_eq!(q.stats().enqueued, 4);
    assert_eq!(q.stats().dequeued, 4);
    assert_eq!(q.ring_used_bytes(), 0);
}

#[test]
fn wire_departure_rewrites_ts_val() {
    for (point, want) in [(RttPoint::TcpHandoff, 5), (RttPoint::WireDeparture, 1000)] {
        let cfg = TcpNicConfig { rtt_point: point, ..TcpNicConfig::new(GBE) };
        let mut q = TcpNicQdisc::new(cfg);
        let mut p = tcp(0, 1500);
        p.tcp.ts_val = SimTime(5);
        q.enqueue(SimTime(5), p).unwrap();
        // No timestamp option: never touched.
        q.enqueue(SimTime(5), tcp(1, 1500)).unwrap();
        assert_eq!(frame(q.dequeue(SimTime(1000), &View::none())).tcp.ts_val, SimTime(want), "{point:?}");
        let t = 1000 + (F + MIN_GAP) * BYTE_PS;
        assert_eq!(frame(q.dequeue(SimTime(t), &View::none())).tcp.ts_val, SimTime::ZERO);
    }
}

#[test]
fn random_traffic_keeps_order_pacing_and_conservation() {
    // A seeded sequence of enqueues (TCP on 6 flows × 2 directions, UDP) and MAC
    // polls; max_streams 8 so some TCP overflows to entry 0. Checks: per-stream
    // FIFO order, no frame before its stream's IPG ran out, polls never wait
    // into the past, and the counters balance (debug asserts run inside too).
    let seed = 0x5eed_u64;
    let mut x = seed;
    let mut rnd = move |m: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % m
    };
    let view = View((0..6).map(|f| Some(snap(1.0 + 40.0 * f as f64, 0.001 + 0.002 * f as f64))).collect());
    let cfg = TcpNicConfig { max_streams: 8, send_buffer_bytes: 40_000, ..TcpNicConfig::new(GBE) };
    let mut q = TcpNicQdisc::new(cfg);
    let mut seq = [[0u64; 2]; 8];
    let mut last_seq = [[None::<u64>; 2]; 8];
    // Per (flow, dir): earliest next start.
    let mut next_ok = [[0u64; 2]; 8];
    let (mut t, mut mac_free, mut sent, mut accepted) = (0u64, 0u64, 0u64, 0u64);
    for _ in 0..200_000 {
        t += rnd(3000) * 1000;
        if rnd(3) > 0 {
            let (f, d) = (rnd(7) as usize, rnd(2) as usize);
            let mut p = if f == 6 { udp(6) } else { tcp(f as u32, if rnd(4) == 0 { 52 } else { 1500 }) };
            p.dir = d as u8;
            p.tcp.seq = seq[f][d];
            if q.enqueue(SimTime(t), p).is_ok() {
                seq[f][d] += 1;
                accepted += 1;
            }
        }
        if t < mac_free {
            continue;
        }
        match q.dequeue(SimTime(t), &view) {
            Dequeue::Frame(p) => {
                let (f, d) = (p.flow as usize, p.dir as usize);
                assert!(last_seq[f][d].is_none_or(|s| p.tcp.seq == s + 1), "seed {seed}: FIFO per stream");
                last_seq[f][d] = Some(p.tcp.seq);
                if p.kind == PacketKind::Tcp && q.entry_of(p.flow, p.dir) != Some(0) {
                    assert!(t >= next_ok[f][d], "seed {seed}: flow {f}/{d} sent inside its IPG");
                    let n = dynamic_count(view.flow(p.flow, p.dir), p.l2_bytes(), GBE, cfg.tick, cfg.max_ipg_count());
                    next_ok[f][d] = t + (p.l2_bytes() + 8) * BYTE_PS + n as u64 * TICK_PS;
                }
                mac_free = t + (p.l2_bytes() + 8 + MIN_GAP) * BYTE_PS;
                sent += 1;
            }
            Dequeue::WaitUntil(w) => assert!(w.0 > t && q.len_packets() > 0, "seed {seed}"),
            Dequeue::Empty => assert_eq!(q.len_packets(), 0, "seed {seed}"),
            Dequeue::Gap { .. } => unreachable!(),
        }
    }
    let st = *q.stats();
    assert_eq!(st.enqueued, accepted);
    assert_eq!(st.dequeued, sent);
    assert_eq!(st.enqueued, st.dequeued + st.packets);
    let r = q.report();
    assert_eq!(r.streams.iter().map(|s| s.totals.frames).sum::<u64>(), sent);
    assert!(r.shared_packets > 0 && r.streams[0].entry == 0 && r.streams.len() == 9);
    assert!(sent > 5_000 && r.ring_blocks > 0, "seed {seed}: {sent} frames, {} ring blocks", r.ring_blocks);
}
