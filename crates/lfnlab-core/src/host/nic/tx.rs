//! The transmit side of a host NIC (spec 04 §2.4 rule 3): the driver posts
//! frames from the qdisc on the TX ring while a descriptor is free; the NIC
//! moves posted frames into the TX FIFO by DMA while there is room; the MAC
//! starts a frame only when all of it is in the FIFO (store-and-forward),
//! subject to the rate cap (§2.6) and PAUSE (§2.5). The descriptor and the FIFO
//! space are released when the frame has left the MAC (TX completion).

use std::collections::VecDeque;

use super::rate_cap::{RateCap, RateCapConfig};
use crate::engine::time::SimTime;
use crate::net::packet::Packet;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxStats {
    pub frames: u64,
    pub ring_max: u32,
    pub fifo_max_bytes: u64,
}

pub struct TxPath {
    /// Posted frames waiting for their DMA.
    posted: VecDeque<Packet>,
    /// Frames wholly in the FIFO, waiting for the MAC.
    fifo: VecDeque<Packet>,
    /// L2 bytes held in the FIFO, the frame on the wire included.
    fifo_bytes: u64,
    fifo_cap_bytes: u64,
    descriptors: u32,
    /// Descriptors in use: posted until TX completion.
    ring_used: u32,
    dma_busy: bool,
    /// L2 bytes of the frame on the wire.
    on_wire: Option<u64>,
    pub cap: Option<RateCap>,
    /// With the CPU model (spec 04 §2.7), a completed frame's descriptor
    /// returns only when the poll loop has cleaned it (`reclaim`).
    pub reclaim_by_cpu: bool,
    pub stats: TxStats,
}

impl TxPath {
    pub fn new(fifo_cap_bytes: u64, descriptors: u32, cap: Option<RateCapConfig>) -> TxPath {
        TxPath {
            posted: VecDeque::with_capacity(64),
            fifo: VecDeque::with_capacity(64),
            fifo_bytes: 0,
            fifo_cap_bytes,
            descriptors,
            ring_used: 0,
            dma_busy: false,
            on_wire: None,
            cap: cap.map(RateCap::new),
            reclaim_by_cpu: false,
            stats: TxStats::default(),
        }
    }

    /// TX completion: the frame on the wire (if any) has left the MAC and its
    /// FIFO space is free. Returns whether a frame completed.
    pub fn complete(&mut self) -> bool {
        let Some(l2) = self.on_wire.take() else { return false };
        self.fifo_bytes -= l2;
        if !self.reclaim_by_cpu {
            self.ring_used -= 1;
        }
        true
    }

    /// The CPU cleaned a completed frame: its descriptor is free.
    pub fn reclaim(&mut self) {
        debug_assert!(self.reclaim_by_cpu && self.ring_used > 0);
        self.ring_used -= 1;
    }

    pub fn has_descriptor(&self) -> bool {
        self.ring_used < self.descriptors
    }

    /// The driver posts a frame taken from the qdisc.
    pub fn post(&mut self, pkt: Packet) {
        debug_assert!(self.has_descriptor());
        self.ring_used += 1;
        self.stats.ring_max = self.stats.ring_max.max(self.ring_used);
        self.posted.push_back(pkt);
    }

    /// L2 bytes of the next posted frame if its DMA may start now.
    pub fn dma_candidate(&self) -> Option<u64> {
        if self.dma_busy {
            return None;
        }
        let l2 = self.posted.front()?.l2_bytes();
        (self.fifo_bytes + l2 <= self.fifo_cap_bytes).then_some(l2)
    }

    /// The DMA of the next posted frame starts; its FIFO space is reserved.
    pub fn dma_started(&mut self) {
        debug_assert!(!self.dma_busy);
        self.dma_busy = true;
        self.fifo_bytes += self.posted.front().expect("a posted frame").l2_bytes();
        self.stats.fifo_max_bytes = self.stats.fifo_max_bytes.max(self.fifo_bytes);
    }

    /// That frame is wholly in the FIFO.
    pub fn dma_done(&mut self) {
        debug_assert!(self.dma_busy);
        self.dma_busy = false;
        let pkt = self.posted.pop_front().expect("a DMA was running");
        self.fifo.push_back(pkt);
    }

    /// When the MAC may start the head frame (rate cap), if there is one.
    pub fn ready_at(&self) -> Option<SimTime> {
        self.fifo.front()?;
        Some(self.cap.as_ref().map_or(SimTime::ZERO, |c| c.next_start()))
    }

    /// L2 bytes of the frame at the head of the FIFO.
    pub fn head_l2(&self) -> Option<u64> {
        self.fifo.front().map(|p| p.l2_bytes())
    }

    /// The MAC starts the head frame, `wire_bytes` long, at `now`.
    pub fn start(&mut self, now: SimTime, wire_bytes: u64) -> Packet {
        debug_assert!(self.on_wire.is_none(), "one frame on the wire at a time");
        let pkt = self.fifo.pop_front().expect("a frame in the FIFO");
        if let Some(c) = self.cap.as_mut() {
            c.on_start(now, wire_bytes);
        }
        self.on_wire = Some(pkt.l2_bytes());
        self.stats.frames += 1;
        pkt
    }

    /// Frames held between the qdisc and the wire (posted or in the FIFO).
    pub fn frames_held(&self) -> u64 {
        (self.posted.len() + self.fifo.len()) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_fifo_and_completion() {
        let mut tx = TxPath::new(2 * 1518, 3, None);
        for _ in 0..3 {
            tx.post(Packet::test_udp(1500));
        }
        assert!(!tx.has_descriptor(), "three descriptors in use");
        for _ in 0..2 {
            assert_eq!(tx.dma_candidate(), Some(1518));
            tx.dma_started();
            tx.dma_done();
        }
        assert_eq!(tx.dma_candidate(), None, "the FIFO holds two frames");
        assert_eq!(tx.ready_at(), Some(SimTime::ZERO));
        tx.start(SimTime(0), 1538);
        assert_eq!(tx.dma_candidate(), None, "the frame on the wire keeps its FIFO space");
        assert!(!tx.has_descriptor());
        tx.complete();
        assert!(tx.has_descriptor(), "TX completion frees the descriptor");
        assert_eq!(tx.dma_candidate(), Some(1518));
        assert_eq!(tx.frames_held(), 2);
    }
}
