//! Egress queue disciplines (spec 06 §5.3 interface) and the drop-tail FIFO
//! used by router/emulator ports and by the host `pfifo` qdisc.

use std::any::Any;
use std::collections::VecDeque;

use super::drop::{DropCause, DropCounters};
use super::packet::{FlowId, Packet};
use crate::engine::time::SimTime;

/// What a qdisc may read about a flow at dequeue (spec 06 §5.3 `view`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FlowSnapshot {
    pub cwnd_segments: f64,
    pub srtt_s: f64,
    pub min_rtt_s: f64,
    pub pacing_rate_bytes_per_s: f64,
    /// Latest RTT sample, 0 before the first.
    pub latest_rtt_s: f64,
    pub in_flight_segments: u64,
    pub mss_bytes: u32,
    /// IP length of a full-size data segment (MSS + TCP/IP headers and options).
    pub segment_l3_bytes: u32,
}

/// Read access to the sending host's TCP state, for pacing qdiscs.
pub trait FlowView {
    fn flow(&self, flow: FlowId, dir: u8) -> Option<FlowSnapshot>;
    fn line_rate_bps(&self) -> u64;
}

/// A view with no flows (router ports).
pub struct NoFlows(pub u64);

impl FlowView for NoFlows {
    fn flow(&self, _: FlowId, _: u8) -> Option<FlowSnapshot> {
        None
    }
    fn line_rate_bps(&self) -> u64 {
        self.0
    }
}

/// Outcome of a dequeue poll (spec 06 §5.2 step 2).
#[derive(Debug)]
pub enum Dequeue {
    Frame(Packet),
    /// Synthesized gap frames (spec 01 §2.3): `frames` PAUSE(0) frames, back to
    /// back, occupying `wire_bytes` byte-times of the line in total (preamble and
    /// IPG included). They never leave the access link (the next MAC absorbs them).
    Gap { wire_bytes: u64, frames: u32 },
    /// Nothing may leave before this time; poll again then.
    WaitUntil(SimTime),
    Empty,
}

/// Occupancy and counters every discipline keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueStats {
    pub enqueued: u64,
    pub dequeued: u64,
    pub drops: DropCounters,
    /// Current occupancy.
    pub bytes: u64,
    pub packets: u64,
    /// High-water mark of `bytes`.
    pub max_bytes: u64,
    pub bytes_enqueued: u64,
    pub bytes_dequeued: u64,
    pub bytes_dropped: u64,
}

impl QueueStats {
    /// A frame of `bytes` (L2) entered the queue.
    #[inline]
    pub fn on_enqueue(&mut self, bytes: u64) {
        self.enqueued += 1;
        self.bytes_enqueued += bytes;
        self.packets += 1;
        self.bytes += bytes;
        self.max_bytes = self.max_bytes.max(self.bytes);
    }

    /// A refused frame of `bytes` (L2) is dropped.
    #[inline]
    pub fn on_drop(&mut self, cause: DropCause, bytes: u64) {
        self.drops.add(cause);
        self.bytes_dropped += bytes;
    }

    /// Counters agree with the occupancy: enqueued = dequeued + held.
    pub fn check(&self) -> Result<(), String> {
        if self.enqueued != self.dequeued + self.packets || self.bytes_enqueued != self.bytes_dequeued + self.bytes {
            return Err(format!("counters disagree: {self:?}"));
        }
        Ok(())
    }

    /// Count `pkt` as dropped for `cause` and hand it back refused.
    #[inline]
    pub fn refuse(&mut self, pkt: Packet, cause: DropCause) -> Result<(), Refused> {
        self.on_drop(cause, pkt.l2_bytes());
        Err(Refused { pkt, cause })
    }

    /// A frame of `bytes` (L2) left the queue.
    #[inline]
    pub fn on_dequeue(&mut self, bytes: u64) {
        self.dequeued += 1;
        self.bytes_dequeued += bytes;
        self.packets -= 1;
        self.bytes -= bytes;
    }
}

/// A frame a queue refused, and why. The queue has counted the drop in its
/// `QueueStats` (as ns-3's queue discs do); the caller books it
/// (`sim::books::Books::book_drop`).
#[derive(Debug)]
pub struct Refused {
    pub pkt: Packet,
    pub cause: DropCause,
}

/// An egress discipline. `enqueue` counts and hands back a refused packet with
/// its cause: every refusal is a drop (a host's TCP avoids them by asking
/// `room_packets` first, spec 06 §2.8).
pub trait Qdisc: AsAny {
    fn enqueue(&mut self, now: SimTime, pkt: Packet) -> Result<(), Refused>;
    fn dequeue(&mut self, now: SimTime, view: &dyn FlowView) -> Dequeue;
    fn stats(&self) -> &QueueStats;
    fn len_packets(&self) -> u64 {
        self.stats().packets
    }
    /// How many more packets of (flow, dir) `enqueue` would accept now.
    fn room_packets(&self, _flow: FlowId, _dir: u8) -> u64 {
        u64::MAX
    }
    /// The discipline's own invariants, in words if one is broken (`sim::invariants`):
    /// by default its counters agree (enqueued = dequeued + held, in frames and bytes).
    fn check(&self) -> Result<(), String> {
        self.stats().check()
    }
}

/// Any value as `Any`, so that a caller that knows a discipline's type can
/// read what only that type reports (the TCP-aware NIC's streams), while the
/// [`Qdisc`] trait knows none of its implementations.
pub trait AsAny {
    fn as_any(&self) -> &dyn Any;
}

impl<T: Any> AsAny for T {
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Drop-tail FIFO with an optional byte limit and an optional packet limit.
/// Bytes counted are L2 frame bytes (spec 01 §2.8: "queued frame bytes + frame_len > B").
pub struct Fifo {
    items: VecDeque<Packet>,
    limit: TailLimit,
    stats: QueueStats,
    /// The cause of a refusal: `Tail` at a forwarding port, `IfqFull` as a
    /// host's `pfifo` (spec 06 §5.2).
    full_cause: DropCause,
}

/// A drop-tail limit in L2 bytes and/or packets (spec 01 §2.8).
#[derive(Clone, Copy, Debug, Default)]
pub struct TailLimit {
    pub bytes: Option<u64>,
    pub packets: Option<u64>,
}

impl TailLimit {
    /// The occupancy in `stats` is within the limit (the drop-tail invariant).
    pub fn check(&self, stats: &QueueStats) -> Result<(), String> {
        if self.bytes.is_some_and(|b| stats.bytes > b) || self.packets.is_some_and(|n| stats.packets > n) {
            return Err(format!("holds {} B in {} frames over its limit {self:?}", stats.bytes, stats.packets));
        }
        Ok(())
    }

    /// Does a frame of `bytes` fit on top of the occupancy in `stats`?
    #[inline]
    pub fn fits(&self, stats: &QueueStats, bytes: u64) -> bool {
        self.bytes.is_none_or(|b| stats.bytes + bytes <= b) && self.packets.is_none_or(|p| stats.packets < p)
    }
}

impl Fifo {
    /// A forwarding port's drop-tail FIFO.
    pub fn new(limit_bytes: Option<u64>, limit_packets: Option<u64>) -> Fifo {
        Fifo {
            items: VecDeque::with_capacity(64),
            limit: TailLimit { bytes: limit_bytes, packets: limit_packets },
            stats: QueueStats::default(),
            full_cause: DropCause::Tail,
        }
    }

    /// A host's `pfifo` of `txqueuelen` packets (spec 06 §5.3): a refusal is `IfqFull`.
    pub fn host_ifq(txqueuelen: u64) -> Fifo {
        Fifo { full_cause: DropCause::IfqFull, ..Fifo::new(None, Some(txqueuelen)) }
    }

    fn fits(&self, bytes: u64) -> bool {
        self.limit.fits(&self.stats, bytes)
    }

    pub fn limit(&self) -> TailLimit {
        self.limit
    }

    /// Refuse `pkt` for `cause` (a discipline built on this FIFO drops before it).
    #[inline]
    pub fn refuse(&mut self, pkt: Packet, cause: DropCause) -> Result<(), Refused> {
        self.stats.refuse(pkt, cause)
    }

    /// Invariant: counters agree with contents (checked in debug builds).
    fn check(&self) {
        debug_assert_eq!(self.stats.packets, self.items.len() as u64);
        debug_assert_eq!(self.stats.bytes_enqueued, self.stats.bytes_dequeued + self.stats.bytes);
    }
}

impl Qdisc for Fifo {
    fn check(&self) -> Result<(), String> {
        self.stats.check()?;
        self.limit.check(&self.stats)
    }

    fn enqueue(&mut self, _now: SimTime, pkt: Packet) -> Result<(), Refused> {
        let bytes = pkt.l2_bytes();
        if !self.fits(bytes) {
            return self.stats.refuse(pkt, self.full_cause);
        }
        self.items.push_back(pkt);
        self.stats.on_enqueue(bytes);
        self.check();
        Ok(())
    }

    fn dequeue(&mut self, _now: SimTime, _view: &dyn FlowView) -> Dequeue {
        match self.items.pop_front() {
            Some(p) => {
                self.stats.on_dequeue(p.l2_bytes());
                self.check();
                Dequeue::Frame(p)
            }
            None => Dequeue::Empty,
        }
    }

    fn stats(&self) -> &QueueStats {
        &self.stats
    }

    fn room_packets(&self, _flow: FlowId, _dir: u8) -> u64 {
        self.limit.packets.map_or(u64::MAX, |p| p.saturating_sub(self.stats.packets))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(l3: u32) -> Packet {
        Packet::test_udp(l3)
    }

    #[test]
    fn byte_limit_counts_frame_bytes() {
        // Two 1518-byte frames fit in 3036 B; a third does not.
        let mut q = Fifo::new(Some(3036), None);
        assert!(q.enqueue(SimTime(0), pkt(1500)).is_ok());
        assert!(q.enqueue(SimTime(0), pkt(1500)).is_ok());
        let r = q.enqueue(SimTime(0), pkt(1500)).unwrap_err();
        assert_eq!((r.cause, q.stats().drops.get(DropCause::Tail), q.stats().bytes_dropped), (DropCause::Tail, 1, 1518), "the queue counts its drop");
        assert!(matches!(q.dequeue(SimTime(0), &NoFlows(1)), Dequeue::Frame(_)));
        assert_eq!(q.stats().bytes, 1518);
        assert_eq!(q.stats().max_bytes, 3036);
    }

    #[test]
    fn packet_limit() {
        let mut q = Fifo::host_ifq(1);
        assert!(q.enqueue(SimTime(0), pkt(40)).is_ok());
        assert_eq!(q.enqueue(SimTime(0), pkt(40)).unwrap_err().cause, DropCause::IfqFull, "a host's pfifo refuses as a full IFQ");
    }
}
