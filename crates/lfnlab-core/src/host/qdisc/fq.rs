//! `fq`: the Linux sch_fq model of spec 06 §5.3, simplified. One flow per
//! socket direction with deficit round robin (new flows first), per-flow
//! pacing by earliest departure time, and a time-ordered set of throttled
//! flows. Two pacing sources:
//! - `edt`: TCP stamps each data packet (`Packet::tstamp`); fq holds it until then;
//! - `fq`: fq computes each flow's next departure from the flow's pacing rate
//!   (read through the `FlowView` at dequeue).
//!
//! Payload-free packets (pure ACKs, SYNs) go to an internal queue served
//! first and never paced (spec 06 §5.3 "not modelled: pacing of payload-free
//! packets"; issue: pure ACKs are never delayed by pacing).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use crate::net::drop::DropCause;
use crate::net::packet::{FlowId, Packet};
use crate::net::queue::{Dequeue, FlowView, Qdisc, QueueStats, Refused};
use crate::engine::time::{PS_PER_S, SimTime, Span};

/// Linux qdisc packet length: L3 + 14 B (spec 06 §4.3, CHOICE).
#[inline]
pub fn pacing_len_bytes(p: &Packet) -> u64 {
    p.l3_bytes as u64 + 14
}

/// Time to send `bytes` at `rate_bytes_per_s`, in whole picoseconds.
#[inline]
pub fn pacing_gap(bytes: u64, rate_bytes_per_s: f64) -> Span {
    Span((bytes as f64 * PS_PER_S as f64 / rate_bytes_per_s).round() as u64)
}

/// Parameters (scenario `qdisc = { kind = "fq", ... }`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FqConfig {
    pub limit_packets: u64,
    pub flow_limit_packets: u64,
    pub quantum_bytes: u64,
    pub initial_quantum_bytes: u64,
    pub refill_delay: Span,
    pub horizon: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    Detached,
    New,
    Old,
    Throttled,
}

struct Flow {
    q: VecDeque<Packet>,
    credit: i64,
    /// Earliest time the flow's next packet may leave (`time_next_packet`).
    time_next: SimTime,
    /// When the flow last became empty (for the refill rule).
    idle_since: SimTime,
    place: Place,
    seen: bool,
}

impl Flow {
    fn new() -> Flow {
        Flow { q: VecDeque::new(), credit: 0, time_next: SimTime::ZERO, idle_since: SimTime::ZERO, place: Place::Detached, seen: false }
    }
}

pub struct Fq {
    cfg: FqConfig,
    /// Indexed by flow id · 2 + direction.
    flows: Vec<Flow>,
    internal: VecDeque<Packet>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    throttled: BinaryHeap<Reverse<(SimTime, u32)>>,
    stats: QueueStats,
    /// Packets released from the throttled set so far (tests, traces).
    pub throttle_events: u64,
}

fn key(flow: FlowId, dir: u8) -> usize {
    flow as usize * 2 + dir as usize
}

impl Fq {
    pub fn new(cfg: FqConfig) -> Fq {
        Fq {
            cfg,
            flows: Vec::new(),
            internal: VecDeque::new(),
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            throttled: BinaryHeap::new(),
            stats: QueueStats::default(),
            throttle_events: 0,
        }
    }

    fn flow_mut(&mut self, k: usize) -> &mut Flow {
        if k >= self.flows.len() {
            self.flows.resize_with(k + 1, Flow::new);
        }
        &mut self.flows[k]
    }

    fn took(&mut self, p: &Packet) {
        self.stats.on_dequeue(p.l2_bytes());
    }

    /// Move flows whose time has come from the throttled set to the old list.
    fn unthrottle(&mut self, now: SimTime) {
        while let Some(&Reverse((t, k))) = self.throttled.peek() {
            if t > now {
                break;
            }
            self.throttled.pop();
            self.flows[k as usize].place = Place::Old;
            self.old_flows.push_back(k);
            self.throttle_events += 1;
        }
    }

    /// Invariant: counters agree with contents (debug builds).
    fn check(&self) {
        debug_assert_eq!(self.stats.packets, self.internal.len() as u64 + self.flows.iter().map(|f| f.q.len() as u64).sum::<u64>());
        debug_assert_eq!(self.stats.bytes_enqueued, self.stats.bytes_dequeued + self.stats.bytes);
    }
}

impl Qdisc for Fq {
    fn enqueue(&mut self, now: SimTime, pkt: Packet) -> Result<(), Refused> {
        if self.stats.packets >= self.cfg.limit_packets {
            return self.stats.refuse(pkt, DropCause::IfqFull);
        }
        if pkt.tstamp > now + self.cfg.horizon {
            // sch_fq.c fq_packet_beyond_horizon: room was available.
            return self.stats.refuse(pkt, DropCause::Horizon);
        }
        if !pkt.is_data() {
            self.internal.push_back(pkt);
        } else {
            let k = key(pkt.flow, pkt.dir);
            let cfg = self.cfg;
            let f = self.flow_mut(k);
            if f.q.len() as u64 >= cfg.flow_limit_packets {
                return self.stats.refuse(pkt, DropCause::IfqFull);
            }
            if !f.seen {
                f.seen = true;
                f.credit = cfg.initial_quantum_bytes as i64;
            }
            f.q.push_back(pkt);
            if f.place == Place::Detached {
                if now.since(f.idle_since) > cfg.refill_delay {
                    f.credit = f.credit.max(cfg.initial_quantum_bytes as i64);
                }
                f.place = Place::New;
                self.new_flows.push_back(k as u32);
            }
        }
        self.stats.on_enqueue(pkt.l2_bytes());
        self.check();
        Ok(())
    }

    fn dequeue(&mut self, now: SimTime, view: &dyn FlowView) -> Dequeue {
        if let Some(p) = self.internal.pop_front() {
            self.took(&p);
            return Dequeue::Frame(p);
        }
        self.unthrottle(now);
        loop {
            let (k, from_new) = match self.new_flows.front() {
                Some(&k) => (k, true),
                None => match self.old_flows.front() {
                    Some(&k) => (k, false),
                    None => {
                        return match self.throttled.peek() {
                            Some(&Reverse((t, _))) => Dequeue::WaitUntil(t),
                            None => Dequeue::Empty,
                        };
                    }
                },
            };
            let list = if from_new { &mut self.new_flows } else { &mut self.old_flows };
            let f = &mut self.flows[k as usize];
            if f.credit <= 0 {
                f.credit += self.cfg.quantum_bytes as i64;
                list.pop_front();
                f.place = Place::Old;
                self.old_flows.push_back(k);
                continue;
            }
            let Some(head) = f.q.front() else {
                list.pop_front();
                if from_new && !self.old_flows.is_empty() {
                    // Force a pass through the old flows first (no starvation).
                    f.place = Place::Old;
                    self.old_flows.push_back(k);
                } else {
                    f.place = Place::Detached;
                    f.idle_since = now;
                }
                continue;
            };
            let due = head.tstamp.max(f.time_next);
            if due > now {
                list.pop_front();
                f.place = Place::Throttled;
                f.time_next = due;
                self.throttled.push(Reverse((due, k)));
                continue;
            }
            let p = f.q.pop_front().expect("head exists");
            let len = pacing_len_bytes(&p);
            f.credit -= len as i64;
            if p.tstamp == SimTime::ZERO {
                // `fq` pacing from the flow's rate (spec 06 §5.3): time_next =
                // now + min(L/r, 1 s) − min(lateness, L/(2r)).
                let rate = view.flow(p.flow, p.dir).map_or(0.0, |s| s.pacing_rate_bytes_per_s);
                if rate > 0.0 {
                    let gap = pacing_gap(len, rate).min(Span::from_secs(1));
                    let lateness = if f.time_next > SimTime::ZERO && now > f.time_next { now.since(f.time_next) } else { Span::ZERO };
                    f.time_next = now + gap - lateness.min(Span(gap.0 / 2));
                }
            }
            self.took(&p);
            self.check();
            return Dequeue::Frame(p);
        }
    }

    fn stats(&self) -> &QueueStats {
        &self.stats
    }

    fn room_packets(&self, flow: FlowId, dir: u8) -> u64 {
        let total = self.cfg.limit_packets.saturating_sub(self.stats.packets);
        let used = self.flows.get(key(flow, dir)).map_or(0, |f| f.q.len() as u64);
        total.min(self.cfg.flow_limit_packets.saturating_sub(used))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{IpFields, PacketKind, TcpHeader};
    use crate::net::queue::{FlowSnapshot, NoFlows};

    fn cfg() -> FqConfig {
        FqConfig {
            limit_packets: 10_000,
            flow_limit_packets: 100,
            quantum_bytes: 3000,
            initial_quantum_bytes: 15_000,
            refill_delay: Span::from_ms(40),
            horizon: Span::from_secs(10),
        }
    }

    fn data(flow: FlowId, tstamp: SimTime) -> Packet {
        let tcp = TcpHeader { payload: 1448, ..TcpHeader::default() };
        Packet { flow, src: 0, dst: 1, kind: PacketKind::Tcp, dir: 0, l3_bytes: 1500, ip: IpFields::default(), tcp, tstamp, ingress: 0 }
    }

    fn ack(flow: FlowId) -> Packet {
        Packet { flow, src: 0, dst: 1, kind: PacketKind::Tcp, dir: 1, l3_bytes: 52, ip: IpFields::default(), tcp: TcpHeader::default(), tstamp: SimTime::ZERO, ingress: 0 }
    }

    fn t_us(x: u64) -> SimTime {
        SimTime::ZERO + Span::from_us(x)
    }

    #[test]
    fn edt_holds_until_the_stamp_and_acks_pass() {
        let mut q = Fq::new(cfg());
        q.enqueue(t_us(0), data(0, t_us(100))).unwrap();
        q.enqueue(t_us(0), ack(0)).unwrap();
        // The ACK leaves at once although it was queued after a held packet.
        assert!(matches!(q.dequeue(t_us(0), &NoFlows(1)), Dequeue::Frame(p) if p.tcp.payload == 0));
        assert!(matches!(q.dequeue(t_us(0), &NoFlows(1)), Dequeue::WaitUntil(t) if t == t_us(100)));
        assert!(matches!(q.dequeue(t_us(99), &NoFlows(1)), Dequeue::WaitUntil(t) if t == t_us(100)));
        assert!(matches!(q.dequeue(t_us(100), &NoFlows(1)), Dequeue::Frame(_)));
        assert!(matches!(q.dequeue(t_us(100), &NoFlows(1)), Dequeue::Empty));
        assert_eq!(q.stats().packets, 0);
    }

    #[test]
    fn packets_beyond_the_horizon_are_refused_and_counted() {
        let mut q = Fq::new(cfg());
        let r = q.enqueue(t_us(0), data(0, SimTime::ZERO + Span::from_secs(11))).unwrap_err();
        assert_eq!(r.cause, DropCause::Horizon, "room was available: the horizon refused it");
        assert_eq!(q.stats().packets, 0);
        assert_eq!(q.stats().drops.get(DropCause::Horizon), 1, "the queue counts its own drop");
    }

    struct Rate(f64);
    impl FlowView for Rate {
        fn flow(&self, _: FlowId, _: u8) -> Option<FlowSnapshot> {
            Some(FlowSnapshot { pacing_rate_bytes_per_s: self.0, ..FlowSnapshot::default() })
        }
        fn line_rate_bps(&self) -> u64 {
            1_000_000_000
        }
    }

    #[test]
    fn rate_mode_spaces_packets_by_length_over_rate() {
        // 1514 B at 1.514 MB/s: one packet per millisecond.
        let mut q = Fq::new(cfg());
        for _ in 0..3 {
            q.enqueue(t_us(0), data(0, SimTime::ZERO)).unwrap();
        }
        let v = Rate(1.514e6);
        assert!(matches!(q.dequeue(t_us(0), &v), Dequeue::Frame(_)));
        assert!(matches!(q.dequeue(t_us(0), &v), Dequeue::WaitUntil(t) if t == t_us(1000)));
        // Served 200 µs late: the next gap shrinks by the lateness (≤ half a gap).
        assert!(matches!(q.dequeue(t_us(1200), &v), Dequeue::Frame(_)));
        assert!(matches!(q.dequeue(t_us(1200), &v), Dequeue::WaitUntil(t) if t == t_us(2000)));
    }

    #[test]
    fn flows_share_by_deficit_round_robin() {
        // Two backlogged unpaced flows alternate in bursts of about one quantum
        // once their initial quanta are spent.
        let mut q = Fq::new(FqConfig { initial_quantum_bytes: 3000, ..cfg() });
        for _ in 0..20 {
            q.enqueue(t_us(0), data(1, SimTime::ZERO)).unwrap();
            q.enqueue(t_us(0), data(2, SimTime::ZERO)).unwrap();
        }
        let mut order = Vec::new();
        while let Dequeue::Frame(p) = q.dequeue(t_us(0), &NoFlows(1)) {
            order.push(p.flow);
        }
        assert_eq!(order.len(), 40);
        let ones = order[..20].iter().filter(|&&f| f == 1).count();
        assert!((9..=11).contains(&ones), "{order:?}");
    }

    #[test]
    fn per_flow_and_total_limits_refuse() {
        let mut q = Fq::new(FqConfig { flow_limit_packets: 2, limit_packets: 3, ..cfg() });
        assert_eq!(q.room_packets(0, 0), 2);
        q.enqueue(t_us(0), data(0, SimTime::ZERO)).unwrap();
        q.enqueue(t_us(0), data(0, SimTime::ZERO)).unwrap();
        assert_eq!(q.room_packets(0, 0), 0);
        assert_eq!(q.enqueue(t_us(0), data(0, SimTime::ZERO)).unwrap_err().cause, DropCause::IfqFull, "a full flow queue is a full IFQ");
        q.enqueue(t_us(0), data(1, SimTime::ZERO)).unwrap();
        assert_eq!(q.room_packets(2, 0), 0);
    }
}
