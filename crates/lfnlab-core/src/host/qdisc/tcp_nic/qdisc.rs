//! Connection Manager and Packet Send Scheduler of the TCP-aware NIC
//! (spec 03 §2.7.1–2.7.5), as a `Qdisc` the host port pulls from when its MAC
//! is idle. The port itself keeps the MAC's minimum gap between frames (its
//! own IPG), so `nic_min_ifg` is not added here.

use super::config::{NicMode, RttPoint, TcpNicConfig};
use super::counter::{CounterFields, remaining_ticks};
use super::ipg_count::{dynamic_count, fixed_count};
use super::report::TcpNicReport;
use super::send_buffer::SendBuffer;
use super::stream::{Queued, Stream};
use crate::engine::time::{SimTime, Span};
use crate::net::drop::DropCause;
use crate::net::packet::{FlowId, Packet, PacketKind};
use crate::net::queue::{Dequeue, FlowView, Qdisc, QueueStats, Refused};

/// CAM slot not yet looked up.
const NO_ENTRY: u16 = u16::MAX;
/// The shared entry (non-TCP traffic and CAM overflow, §2.7.2).
const SHARED: usize = 0;

pub struct TcpNicQdisc {
    cfg: TcpNicConfig,
    /// Entry 0 (shared) and entries 1..=max_streams.
    streams: Vec<Stream>,
    /// The CAM: entry per (flow, dir), indexed by flow id. Overflowed keys map to 0.
    cam: Vec<[u16; 2]>,
    /// Highest entry handed out; entries are given in order and never freed.
    allocated: usize,
    ring: SendBuffer,
    stats: QueueStats,
    ring_blocks: u64,
    shared_packets: u64,
}

impl TcpNicQdisc {
    pub fn new(cfg: TcpNicConfig) -> TcpNicQdisc {
        cfg.validate();
        let streams = (0..=cfg.max_streams).map(|_| Stream::new(u32::MAX, 0)).collect();
        TcpNicQdisc {
            cfg,
            streams,
            cam: Vec::new(),
            allocated: 0,
            ring: SendBuffer::new(cfg.send_buffer_bytes, cfg.slot_header_bytes),
            stats: QueueStats::default(),
            ring_blocks: 0,
            shared_packets: 0,
        }
    }

    pub fn config(&self) -> &TcpNicConfig {
        &self.cfg
    }

    /// CAM entry of a TCP stream, if it has one (0 = it overflowed to the shared entry).
    pub fn entry_of(&self, flow: FlowId, dir: u8) -> Option<u32> {
        let e = self.cam.get(flow as usize)?[dir as usize];
        (e != NO_ENTRY).then_some(e as u32)
    }

    /// The stream's 32-bit IPG counter word at `now` (§2.7.4).
    pub fn counter_word(&self, entry: usize, now: SimTime) -> u32 {
        let s = &self.streams[entry];
        let remaining = remaining_ticks(s.ready_at, now, self.cfg.tick, self.cfg.max_ipg_count());
        let ready = s.active && remaining == 0 && !s.q.is_empty();
        debug_assert_eq!(ready, s.is_ready(now));
        CounterFields { remaining, active: s.active, ready, wait: s.wait }.pack(self.cfg.wait_bits)
    }

    /// Send Buffer bytes in use (oldest unsent slot to the write position).
    pub fn ring_used_bytes(&self) -> u64 {
        self.ring.used_bytes()
    }

    /// High-water mark of `ring_used_bytes`.
    pub fn ring_max_used_bytes(&self) -> u64 {
        self.ring.max_used_bytes()
    }

    pub fn report(&self) -> TcpNicReport {
        let shared = &self.streams[SHARED];
        let first = if shared.active { 0 } else { 1 };
        TcpNicReport {
            ring_blocks: self.ring_blocks,
            shared_packets: self.shared_packets,
            streams: (first..=self.allocated).map(|e| self.streams[e].report(e as u32)).collect(),
        }
    }

    /// The Connection Manager's lookup (§2.7.1 step 3): a new TCP stream takes
    /// the lowest free entry at its first packet and keeps it for the whole run
    /// (CHOICE: lfnlab models no connection close, so entries are never
    /// released); without a free entry, or for non-TCP traffic, entry 0.
    fn lookup(&mut self, p: &Packet) -> usize {
        if p.kind != PacketKind::Tcp {
            return SHARED;
        }
        debug_assert!(p.dir <= 1);
        let f = p.flow as usize;
        if f >= self.cam.len() {
            self.cam.resize(f + 1, [NO_ENTRY; 2]);
        }
        let e = self.cam[f][p.dir as usize];
        if e != NO_ENTRY {
            return e as usize;
        }
        let e = if self.allocated < self.cfg.max_streams as usize {
            self.allocated += 1;
            let s = &mut self.streams[self.allocated];
            s.flow = p.flow;
            s.dir = p.dir;
            self.allocated
        } else {
            SHARED
        };
        self.cam[f][p.dir as usize] = e as u16;
        e
    }

    /// IPG count n after a frame of `l2_bytes` of entry `e` (§2.7.6). CHOICE:
    /// computed from cwnd/srtt at the start of the frame rather than at its end
    /// (§2.7.1 step 8); the two differ by at most one frame time.
    fn ipg_count(&self, e: usize, l2_bytes: u64, view: &dyn FlowView) -> u32 {
        let (rate, tick, max) = (self.cfg.line_rate_bps, self.cfg.tick, self.cfg.max_ipg_count());
        if e == SHARED {
            return fixed_count(self.cfg.shared_ipg_bytes, rate, tick, max);
        }
        match self.cfg.mode {
            NicMode::Fixed { ipg_bytes } => fixed_count(ipg_bytes, rate, tick, max),
            NicMode::Dynamic => {
                let s = &self.streams[e];
                dynamic_count(view.flow(s.flow, s.dir), l2_bytes, rate, tick, max)
            }
        }
    }

    /// Invariants: counters agree with contents (checked in debug builds).
    fn check(&self) {
        debug_assert_eq!(self.stats.packets, self.streams.iter().map(|s| s.q.len() as u64).sum::<u64>());
        debug_assert_eq!(self.stats.bytes_enqueued, self.stats.bytes_dequeued + self.stats.bytes);
        debug_assert!(self.ring.used_bytes() <= self.cfg.send_buffer_bytes);
        debug_assert!(self.stats.packets > 0 || self.ring.used_bytes() == 0);
    }
}

impl Qdisc for TcpNicQdisc {
    /// §2.7.1 steps 1–5: write into the Send Buffer, look up the CAM, append
    /// to the stream's list. A full ring refuses the packet (host transfer blocks).
    fn enqueue(&mut self, now: SimTime, pkt: Packet) -> Result<(), Refused> {
        let bytes = pkt.l2_bytes();
        let Some(slot) = self.ring.write(bytes) else {
            self.ring_blocks += 1;
            // The Send Buffer is the host's interface queue (spec 03 §2.7.2).
            return self.stats.refuse(pkt, DropCause::IfqFull);
        };
        let e = self.lookup(&pkt);
        self.shared_packets += u64::from(e == SHARED);
        let s = &mut self.streams[e];
        s.active = true;
        if s.q.is_empty() {
            s.nonempty_since = now;
        }
        s.q.push_back(Queued { pkt, slot });
        self.stats.on_enqueue(bytes);
        self.check();
        Ok(())
    }

    /// §2.7.5: the MAC is idle; the Ready stream with the largest 9-bit
    /// (Ready, wait) value sends its head packet (ties: lowest entry).
    fn dequeue(&mut self, now: SimTime, view: &dyn FlowView) -> Dequeue {
        let mut winner: Option<usize> = None;
        let mut earliest = SimTime::NEVER;
        for e in 0..=self.allocated {
            let s = &self.streams[e];
            if s.q.is_empty() {
                continue;
            }
            if s.is_ready(now) {
                if winner.is_none_or(|w| s.wait > self.streams[w].wait) {
                    winner = Some(e);
                }
            } else {
                earliest = earliest.min(s.ready_at);
            }
        }
        let Some(w) = winner else {
            return if earliest == SimTime::NEVER { Dequeue::Empty } else { Dequeue::WaitUntil(earliest) };
        };
        // Ready losers count one more wait (saturating, CHOICE); the winner's resets.
        let max_wait = self.cfg.max_wait();
        for e in 0..=self.allocated {
            let s = &mut self.streams[e];
            if e != w && s.is_ready(now) {
                s.wait = (s.wait + 1).min(max_wait);
                s.lost += 1;
            }
        }
        let head = self.streams[w].q.front().expect("the winner has data").pkt;
        let l2 = head.l2_bytes();
        let n = self.ipg_count(w, l2, view);
        // The frame (preamble included) starts now; the counter is loaded with n at its end.
        let frame_end = now + Span::serialization(l2 + 8, self.cfg.line_rate_bps);
        let s = &mut self.streams[w];
        let Queued { mut pkt, slot } = s.q.pop_front().expect("the winner has data");
        s.max_ready_wait = s.max_ready_wait.max(now.since(s.ready_since()));
        s.wait = 0;
        s.won += 1;
        s.frames += 1;
        s.bytes += l2;
        s.last_ipg_count = n;
        s.ready_at = frame_end + self.cfg.tick.saturating_mul(n as u64);
        self.ring.release(slot);
        self.stats.on_dequeue(l2);
        // `rtt_timestamp_point = wire_departure` (§2.7.6, open point 10).
        if self.cfg.rtt_point == RttPoint::WireDeparture && pkt.kind == PacketKind::Tcp && pkt.tcp.ts_val != SimTime::ZERO {
            pkt.tcp.ts_val = now;
        }
        self.check();
        Dequeue::Frame(pkt)
    }

    fn stats(&self) -> &QueueStats {
        &self.stats
    }

    /// Full-size frames that still fit in the Send Buffer.
    fn room_packets(&self, _flow: FlowId, _dir: u8) -> u64 {
        self.ring.free_bytes() / (super::config::FULL_FRAME_L2_BYTES + 8 + self.cfg.slot_header_bytes)
    }
}
