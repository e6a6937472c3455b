//! Packets in arrival order, each with the time it becomes due (non-decreasing).
//! The holder keeps one pending event for the head only, never one per packet:
//! a link direction (`channel.rs`, due = last bit at the far end) and a
//! processing stage (`proc_stage.rs`, due = processing done) both hold their
//! packets here.

use super::packet::Packet;
use crate::engine::block_ring::BlockRing;
use crate::engine::time::SimTime;

pub struct TimedFifo {
    items: BlockRing<(SimTime, Packet)>,
    /// L3 bytes held (conservation is kept in L3 bytes).
    bytes: u64,
}

impl TimedFifo {
    pub fn new() -> TimedFifo {
        TimedFifo { items: BlockRing::new((SimTime::ZERO, Packet::filler())), bytes: 0 }
    }

    /// Append a packet due at `due`; returns true if it became the head (the
    /// holder then schedules its event).
    #[inline]
    pub fn push(&mut self, due: SimTime, pkt: Packet) -> bool {
        debug_assert!(self.items.back().is_none_or(|(t, _)| *t <= due), "due times must be non-decreasing");
        self.bytes += pkt.l3_bytes as u64;
        self.items.push_back((due, pkt));
        self.items.len() == 1
    }

    /// Take the head packet if it is due by `now`.
    #[inline]
    pub fn pop_due(&mut self, now: SimTime) -> Option<Packet> {
        let (_, p) = self.items.pop_front_if(|(t, _)| *t <= now)?;
        self.bytes -= p.l3_bytes as u64;
        Some(p)
    }

    /// The head packet, if any.
    #[inline]
    pub fn head(&self) -> Option<&Packet> {
        self.items.front().map(|(_, p)| p)
    }

    #[inline]
    pub fn head_due(&self) -> Option<SimTime> {
        self.items.front().map(|(t, _)| *t)
    }

    pub fn len(&self) -> u64 {
        self.items.len() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// L3 bytes held.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}

impl Default for TimedFifo {
    fn default() -> Self {
        TimedFifo::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn releases_in_order_when_due_and_keeps_the_bytes() {
        let mut f = TimedFifo::new();
        assert!(f.push(SimTime(10), Packet::test_udp(100)), "the first packet is the head");
        assert!(!f.push(SimTime(10), Packet::test_udp(200)));
        assert!(!f.push(SimTime(30), Packet::test_udp(300)));
        assert_eq!((f.len(), f.bytes(), f.head_due()), (3, 600, Some(SimTime(10))));
        assert_eq!(f.pop_due(SimTime(9)), None);
        let due: Vec<u32> = std::iter::from_fn(|| f.pop_due(SimTime(29)).map(|p| p.l3_bytes)).collect();
        assert_eq!(due, [100, 200]);
        assert_eq!((f.len(), f.bytes(), f.head_due()), (1, 300, Some(SimTime(30))));
        assert_eq!(f.pop_due(SimTime(30)).map(|p| p.l3_bytes), Some(300));
        assert!(f.is_empty() && f.bytes() == 0 && f.head_due().is_none());
    }
}
