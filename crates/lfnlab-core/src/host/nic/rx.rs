//! The receive side of a host NIC (spec 04 §2.4 rule 2): a frame whose last
//! bit arrived enters the RX FIFO if `L2` bytes are free, else it is dropped
//! (`rx_fifo_drop`); the head leaves by DMA only while a free RX descriptor
//! exists, and the descriptor comes back when the host has processed the frame.
//! CHOICE: a frame's FIFO bytes are freed when its DMA completes.

use std::collections::VecDeque;

use crate::net::packet::Packet;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RxStats {
    pub frames: u64,
    pub fifo_drops: u64,
    pub fifo_max_bytes: u64,
    pub ring_max: u32,
}

pub struct RxPath {
    fifo: VecDeque<Packet>,
    /// L2 bytes in the FIFO.
    fifo_bytes: u64,
    fifo_cap_bytes: u64,
    descriptors: u32,
    /// Descriptors holding a frame the host has not finished.
    ring_used: u32,
    dma_busy: bool,
    pub stats: RxStats,
}

impl RxPath {
    pub fn new(fifo_cap_bytes: u64, descriptors: u32) -> RxPath {
        RxPath { fifo: VecDeque::with_capacity(64), fifo_bytes: 0, fifo_cap_bytes, descriptors, ring_used: 0, dma_busy: false, stats: RxStats::default() }
    }

    /// A frame's last bit arrived: admitted, or returned as an `rx_fifo_drop`.
    pub fn arrive(&mut self, pkt: Packet) -> Result<(), Packet> {
        let l2 = pkt.l2_bytes();
        if self.fifo_bytes + l2 > self.fifo_cap_bytes {
            self.stats.fifo_drops += 1;
            return Err(pkt);
        }
        self.fifo_bytes += l2;
        self.stats.fifo_max_bytes = self.stats.fifo_max_bytes.max(self.fifo_bytes);
        self.fifo.push_back(pkt);
        Ok(())
    }

    /// The L2 bytes of the head frame if its DMA may start now.
    pub fn dma_candidate(&self) -> Option<u64> {
        if self.dma_busy || self.ring_used >= self.descriptors {
            return None;
        }
        self.fifo.front().map(|p| p.l2_bytes())
    }

    pub fn dma_started(&mut self) {
        debug_assert!(!self.dma_busy);
        self.dma_busy = true;
    }

    /// The head frame's DMA finished: it is in host memory and holds a descriptor.
    pub fn dma_done(&mut self) -> Packet {
        debug_assert!(self.dma_busy);
        self.dma_busy = false;
        let pkt = self.fifo.pop_front().expect("a DMA was running for the head frame");
        self.fifo_bytes -= pkt.l2_bytes();
        self.ring_used += 1;
        self.stats.ring_max = self.stats.ring_max.max(self.ring_used);
        self.stats.frames += 1;
        pkt
    }

    /// The host finished a frame: its descriptor is refilled.
    pub fn release_descriptor(&mut self) {
        debug_assert!(self.ring_used > 0);
        self.ring_used -= 1;
    }

    pub fn fifo_bytes(&self) -> u64 {
        self.fifo_bytes
    }

    pub fn fifo_frames(&self) -> u64 {
        self.fifo.len() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifo_admits_what_fits_and_dma_needs_a_descriptor() {
        let mut rx = RxPath::new(3 * 1518, 2);
        for _ in 0..3 {
            rx.arrive(Packet::test_udp(1500)).unwrap();
        }
        assert!(rx.arrive(Packet::test_udp(1500)).is_err(), "no L2 room: rx_fifo_drop");
        assert_eq!(rx.stats.fifo_drops, 1);
        assert_eq!(rx.dma_candidate(), Some(1518));
        rx.dma_started();
        assert_eq!(rx.dma_candidate(), None, "one transfer at a time");
        rx.dma_done();
        rx.dma_started();
        rx.dma_done();
        assert_eq!(rx.dma_candidate(), None, "both descriptors are held by the host");
        rx.release_descriptor();
        assert_eq!(rx.dma_candidate(), Some(1518));
        assert_eq!((rx.fifo_bytes(), rx.stats.fifo_max_bytes, rx.stats.ring_max), (1518, 3 * 1518, 2));
    }
}
