//! The classful IPG-aware qdisc (spec 01 §2.4–2.5). With one class it is plain
//! gap-packet pacing.
//!
//! The NIC pulls on idle; each pull returns the unpaced class's head, or a
//! committed gap sequence, or the real packet the last gap was made for.
//! Nothing here uses a timer: an empty qdisc sends nothing, a backlogged one
//! always returns a frame or a gap.

use std::collections::VecDeque;

use super::config::{IpgConfig, RateSource, SmallGapPolicy};
use super::gap;
use super::rate::{Estimate, QueueTime, basis_bytes, target_rate};
use crate::engine::time::{PS_PER_S, SimTime};
use crate::net::drop::DropCause;
use crate::net::packet::{FlowId, Packet, PacketKind};
use crate::net::queue::{Dequeue, FlowView, Qdisc, QueueStats, Refused};

/// A TCP flow direction seen in a class, with its packets queued there.
#[derive(Clone, Copy, Debug)]
struct FlowSlot {
    flow: FlowId,
    dir: u8,
    queued: u32,
    /// The flow's last rate from equation (1), kept in force while srtt − qtime ≤ 0.
    last_rate: Option<f64>,
}

struct Class {
    rate_source: RateSource,
    fixed_rate_bytes_per_s: Option<f64>,
    /// Each queued packet with its enqueue time (for the queuing-time estimate).
    q: VecDeque<(Packet, SimTime)>,
    /// Smoothed sender-side queuing time of this class (spec 01 §2.2).
    qtime: QueueTime,
    flows: Vec<FlowSlot>,
    /// `base_c` in picoseconds, signed; None = −∞ (§2.5 per-class state).
    base_ps: Option<i64>,
    /// Basis and wire bytes of the class's last real packet (`last_wire_c`).
    last_basis_bytes: f64,
    last_wire_bytes: u64,
}

/// A gap sequence emitted for class `class`: its packet goes next (§2.5 step 5).
#[derive(Clone, Copy, Debug)]
struct Commit {
    class: usize,
    eligible_ps: Option<i64>,
    capped: bool,
}

pub struct IpgQdisc {
    cfg: IpgConfig,
    classes: Vec<Class>,
    /// Class index per destination node; unmatched → 0.
    class_of_dst: Vec<u16>,
    /// Pure ACKs and traffic with no rate: always eligible, served first.
    unpaced: VecDeque<Packet>,
    stats: QueueStats,
    committed: Option<Commit>,
    /// Picoseconds per wire byte at the line rate.
    ps_per_byte: f64,
    /// Gaps cut to `gap_total_max` (pacing incomplete, §2.3 clamping). Gap
    /// frames and bytes are counted per host by the NIC (`HostIo`).
    pub capped_gaps: u64,
}

const NO_CLASS: u16 = u16::MAX;

impl IpgQdisc {
    pub fn new(cfg: IpgConfig) -> IpgQdisc {
        assert!(!cfg.classes.is_empty() && cfg.classes[0].id == 0, "class 0 comes first");
        let max_dst = cfg.classes.iter().flat_map(|c| c.dst.iter()).copied().max().map_or(0, |d| d as usize + 1);
        let mut class_of_dst = vec![NO_CLASS; max_dst];
        for (i, c) in cfg.classes.iter().enumerate() {
            for &d in &c.dst {
                class_of_dst[d as usize] = i as u16;
            }
        }
        let classes = cfg
            .classes
            .iter()
            .map(|c| Class {
                rate_source: c.rate_source,
                fixed_rate_bytes_per_s: c.rate_bytes_per_s,
                q: VecDeque::with_capacity(64),
                qtime: QueueTime::default(),
                flows: Vec::new(),
                base_ps: None,
                last_basis_bytes: 0.0,
                last_wire_bytes: 0,
            })
            .collect();
        let ps_per_byte = 8.0 * PS_PER_S as f64 / cfg.line_rate_bps as f64;
        IpgQdisc { cfg, classes, class_of_dst, unpaced: VecDeque::new(), stats: QueueStats::default(), committed: None, ps_per_byte, capped_gaps: 0 }
    }

    fn wire_bytes(&self, p: &Packet) -> u64 {
        p.wire_bytes(self.cfg.ipg_bytes)
    }

    /// Class index of a packet, or None for the unpaced class (§2.5 classifier;
    /// CHOICE: non-TCP traffic is paced only by a class with a configured rate
    /// or in `fixed_gap` mode, since it has no TCP sending context).
    fn classify(&self, p: &Packet) -> Option<usize> {
        let c = self.class_of_dst.get(p.dst as usize).copied().filter(|&c| c != NO_CLASS).unwrap_or(0) as usize;
        match p.kind {
            PacketKind::Tcp if p.tcp.payload == 0 => None,
            PacketKind::Tcp => Some(c),
            PacketKind::Pause => None,
            PacketKind::Udp => (self.cfg.fixed_gap_bytes.is_some() || self.classes[c].rate_source != RateSource::TcpEstimate).then_some(c),
        }
    }

    /// R_c at this moment, basis bytes per second; None = no rate (unpaced).
    fn class_rate(&mut self, c: usize, view: &dyn FlowView) -> Option<f64> {
        let (basis, which, ipg) = (self.cfg.size_basis, self.cfg.rtt_estimator, self.cfg.ipg_bytes);
        let class = &mut self.classes[c];
        let qtime_s = class.qtime.seconds();
        let mut estimate = || {
            let mut sum: Option<f64> = None;
            for s in class.flows.iter_mut() {
                let Some(f) = view.flow(s.flow, s.dir) else { continue };
                if s.queued == 0 && f.in_flight_segments == 0 {
                    continue;
                }
                let r = match target_rate(&f, basis, which, ipg, qtime_s) {
                    Estimate::NoSample => None,
                    Estimate::KeepPrevious => s.last_rate,
                    Estimate::Rate(r) => {
                        s.last_rate = Some(r);
                        Some(r)
                    }
                };
                if let Some(r) = r {
                    *sum.get_or_insert(0.0) += r;
                }
            }
            sum.filter(|r| *r > 0.0)
        };
        match class.rate_source {
            RateSource::Fixed => class.fixed_rate_bytes_per_s,
            RateSource::TcpEstimate => estimate(),
            RateSource::Min => match (class.fixed_rate_bytes_per_s, estimate()) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
        }
    }

    /// Start-to-start interval after a packet of `basis`/`wire` bytes, ps:
    /// P/R + (W − P)/max_rate, i.e. the per-packet gap G = P·(max_rate/R − 1)
    /// of §2.3 after the packet's own wire time (W/R with the wire basis).
    fn interval_ps(&self, basis: f64, wire: u64, rate: Option<f64>) -> f64 {
        if let Some(g) = self.cfg.fixed_gap_bytes {
            return (wire + g.min(self.cfg.gap_total_max_bytes)) as f64 * self.ps_per_byte;
        }
        let line = wire as f64 - basis;
        match rate {
            Some(r) => basis * PS_PER_S as f64 / r + line * self.ps_per_byte,
            None => wire as f64 * self.ps_per_byte,
        }
    }

    /// e_c = base_c + last_wire_c / R_c (None = −∞), with R_c = `rate`.
    fn eligible_ps(&self, c: usize, rate: Option<f64>) -> Option<i64> {
        let class = &self.classes[c];
        let base = class.base_ps?;
        Some(base + self.interval_ps(class.last_basis_bytes, class.last_wire_bytes, rate).round() as i64)
    }

    /// Sends the head of class `c` starting at `now` and updates its state
    /// (§2.5 step 6); `rate` is R_c evaluated at `now`.
    fn send(&mut self, c: usize, now: SimTime, eligible_ps: Option<i64>, capped: bool, early: bool, rate: Option<f64>) -> Packet {
        let (pkt, enqueued_at) = self.classes[c].q.pop_front().expect("a committed or selected class is backlogged");
        // PSPacer's `psp_dequeue` samples the queuing time as the real packet leaves.
        self.classes[c].qtime.sample(enqueued_at, now);
        let wire = self.wire_bytes(&pkt);
        let basis = basis_bytes(pkt.l3_bytes, self.cfg.size_basis, self.cfg.ipg_bytes);
        let t_s = now.0 as i64;
        let late_floor = t_s - self.interval_ps(basis, wire, rate).round() as i64;
        let skip = early && self.cfg.small_gap_policy == SmallGapPolicy::Skip;
        // Test mode puts its gap after every packet: a late packet gets no credit.
        let no_credit = self.cfg.fixed_gap_bytes.is_some() && !early;
        let class = &mut self.classes[c];
        class.base_ps = Some(if capped || skip || no_credit { t_s } else { eligible_ps.map_or(late_floor, |e| e.max(late_floor)) });
        class.last_basis_bytes = basis;
        class.last_wire_bytes = wire;
        if pkt.kind == PacketKind::Tcp {
            if let Some(s) = class.flows.iter_mut().find(|s| s.flow == pkt.flow && s.dir == pkt.dir) {
                s.queued -= 1;
            }
        }
        self.stats.on_dequeue(pkt.l2_bytes());
        self.check();
        pkt
    }

    /// Invariant: counters agree with contents (checked in debug builds).
    fn check(&self) {
        debug_assert_eq!(
            self.stats.packets,
            self.unpaced.len() as u64 + self.classes.iter().map(|c| c.q.len() as u64).sum::<u64>()
        );
        debug_assert!(self.committed.is_none_or(|cm| !self.classes[cm.class].q.is_empty()));
    }
}

impl Qdisc for IpgQdisc {
    fn enqueue(&mut self, now: SimTime, pkt: Packet) -> Result<(), Refused> {
        if self.stats.packets >= self.cfg.limit_packets {
            return self.stats.refuse(pkt, DropCause::IfqFull);
        }
        let bytes = pkt.l2_bytes();
        match self.classify(&pkt) {
            None => self.unpaced.push_back(pkt),
            Some(c) => {
                let class = &mut self.classes[c];
                if pkt.kind == PacketKind::Tcp {
                    match class.flows.iter_mut().find(|s| s.flow == pkt.flow && s.dir == pkt.dir) {
                        Some(s) => s.queued += 1,
                        None => class.flows.push(FlowSlot { flow: pkt.flow, dir: pkt.dir, queued: 1, last_rate: None }),
                    }
                }
                class.q.push_back((pkt, now));
            }
        }
        self.stats.on_enqueue(bytes);
        self.check();
        Ok(())
    }

    fn dequeue(&mut self, now: SimTime, view: &dyn FlowView) -> Dequeue {
        // §2.5 step 5: no reselection inside a gap sequence.
        if let Some(cm) = self.committed.take() {
            // R_c* is evaluated again at t_s, the end of the gap.
            let rate = self.class_rate(cm.class, view);
            return Dequeue::Frame(self.send(cm.class, now, cm.eligible_ps, cm.capped, false, rate));
        }
        // Step 1: the unpaced class first.
        if let Some(p) = self.unpaced.pop_front() {
            self.stats.on_dequeue(p.l2_bytes());
            self.check();
            return Dequeue::Frame(p);
        }
        // Step 2: the backlogged class with the smallest eligible time (ties: lowest id).
        let mut best: Option<(usize, Option<i64>, Option<f64>)> = None;
        for c in 0..self.classes.len() {
            if self.classes[c].q.is_empty() {
                continue;
            }
            let rate = self.class_rate(c, view);
            let e = self.eligible_ps(c, rate);
            if best.is_none_or(|(_, b, _)| e < b) {
                best = Some((c, e, rate));
            }
        }
        let Some((c, e, rate)) = best else { return Dequeue::Empty };
        // Step 3: the gap that makes the packet start at e_c, in wire bytes.
        let g = e.map_or(f64::NEG_INFINITY, |e| (e - now.0 as i64) as f64 / self.ps_per_byte);
        if g < self.cfg.gap_pkt_min_bytes as f64 {
            // Step 4.
            return Dequeue::Frame(self.send(c, now, e, false, g > 0.0, rate));
        }
        // Step 5.
        let capped = g > self.cfg.gap_total_max_bytes as f64;
        let wire_bytes = (g.round() as u64).min(self.cfg.gap_total_max_bytes);
        let frames = gap::frame_count(wire_bytes, self.cfg.gap_pkt_max_bytes);
        self.committed = Some(Commit { class: c, eligible_ps: e, capped });
        self.capped_gaps += u64::from(capped);
        Dequeue::Gap { wire_bytes, frames }
    }

    fn stats(&self) -> &QueueStats {
        &self.stats
    }

    fn room_packets(&self, _flow: FlowId, _dir: u8) -> u64 {
        self.cfg.limit_packets.saturating_sub(self.stats.packets)
    }
}
