//! A drop-tail FIFO whose frames go to the wire the moment they are accepted
//! (issue 9: no per-frame wake event at a router port).
//!
//! A FIFO served at a fixed line rate, with no PAUSE, no pacing and nobody
//! watching its occupancy over time, starts each frame at a time fixed on
//! arrival: max(now, the end of the frame ahead). The port therefore computes
//! that start, puts the frame on its link direction at once (its last bit
//! arrives at start + serialization + delay, spec 06 §1.2) and keeps here only
//! (start, L2 bytes, L3 bytes) of the frames not yet started. They leave the
//! queue lazily, when the queue is next consulted at or after their start, so
//! the occupancy a drop-tail decision sees is exactly that of a FIFO that
//! releases each frame when its transmission starts. Mechanism only: which
//! ports may be eager is the world's policy (`sim::build`); the port holds it
//! as `sim::port::PortQueue::Eager`, beside the polled disciplines.

use std::collections::VecDeque;

use super::drop::DropCause;
use super::packet::Packet;
use super::queue::{QueueStats, TailLimit};
use crate::engine::time::SimTime;

/// A frame accepted but not yet started on the line.
#[derive(Clone, Copy, Debug)]
struct Waiting {
    start: SimTime,
    l2_bytes: u32,
    l3_bytes: u32,
}

pub struct EagerFifo {
    waiting: VecDeque<Waiting>,
    limit: TailLimit,
    stats: QueueStats,
    /// L3 bytes of the waiting frames (conservation is kept in L3 bytes).
    waiting_l3_bytes: u64,
}

impl EagerFifo {
    pub fn new(limit: TailLimit) -> EagerFifo {
        EagerFifo { waiting: VecDeque::new(), limit, stats: QueueStats::default(), waiting_l3_bytes: 0 }
    }

    /// Frames whose transmission started by `now` leave the queue.
    #[inline]
    pub fn settle(&mut self, now: SimTime) {
        while let Some(w) = self.waiting.front().filter(|w| w.start <= now).copied() {
            self.waiting.pop_front();
            self.stats.on_dequeue(w.l2_bytes as u64);
            self.waiting_l3_bytes -= w.l3_bytes as u64;
        }
        self.check();
    }

    /// Would a frame of `l2_bytes` fit now (after [`settle`](Self::settle))?
    #[inline]
    pub fn fits(&self, l2_bytes: u64) -> bool {
        self.limit.fits(&self.stats, l2_bytes)
    }

    /// A frame of `l2_bytes` that does not [`fit`](Self::fits) is dropped (drop-tail).
    #[inline]
    pub fn drop_tail(&mut self, l2_bytes: u64) {
        self.stats.on_drop(DropCause::Tail, l2_bytes);
    }

    /// An accepted frame that starts on the line at `start` (not before the
    /// start of the frame ahead of it).
    #[inline]
    pub fn push(&mut self, start: SimTime, pkt: &Packet) {
        debug_assert!(self.waiting.back().is_none_or(|w| w.start <= start), "FIFO starts are non-decreasing");
        let l2 = pkt.l2_bytes();
        self.waiting.push_back(Waiting { start, l2_bytes: l2 as u32, l3_bytes: pkt.l3_bytes });
        self.waiting_l3_bytes += pkt.l3_bytes as u64;
        self.stats.on_enqueue(l2);
        self.check();
    }

    /// Frames and L3 bytes accepted but not started (they are already on
    /// the link direction's books; the run's end moves them back to queued).
    pub fn waiting(&self) -> (u64, u64) {
        (self.waiting.len() as u64, self.waiting_l3_bytes)
    }

    /// [`waiting`](Self::waiting) as if settled at `now`, without settling:
    /// frames that started by `now` are on the link, or already delivered, not
    /// queued (the books between events, `sim::invariants`).
    pub fn waiting_at(&self, now: SimTime) -> (u64, u64) {
        let started = self.waiting.partition_point(|w| w.start <= now);
        let (frames, bytes) = self.waiting.range(..started).fold((0u64, 0u64), |(f, b), w| (f + 1, b + w.l3_bytes as u64));
        (self.waiting.len() as u64 - frames, self.waiting_l3_bytes - bytes)
    }

    pub fn stats(&self) -> &QueueStats {
        &self.stats
    }

    /// Counters agree and the occupancy is within the limit (`sim::invariants`).
    pub fn check_limits(&self) -> Result<(), String> {
        self.stats.check()?;
        self.limit.check(&self.stats)
    }

    /// Invariant: counters agree with contents (checked in debug builds).
    fn check(&self) {
        debug_assert_eq!(self.stats.packets, self.waiting.len() as u64);
        debug_assert_eq!(self.stats.bytes_enqueued, self.stats.bytes_dequeued + self.stats.bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn occupancy_counts_frames_until_their_start() {
        // Room for two 1518-byte frames.
        let mut q = EagerFifo::new(TailLimit { bytes: Some(3036), packets: None });
        let p = Packet::test_udp(1500);
        q.push(SimTime(0), &p);
        q.push(SimTime(10), &p);
        assert!(!q.fits(1518), "two frames not started fill the queue");
        q.settle(SimTime(9));
        assert_eq!(q.stats().packets, 1, "the first frame started at 0");
        assert!(q.fits(1518));
        q.settle(SimTime(10));
        assert_eq!((q.stats().packets, q.stats().bytes), (0, 0), "a frame leaves when it starts");
        assert_eq!(q.waiting(), (0, 0));
        assert_eq!((q.stats().enqueued, q.stats().dequeued, q.stats().max_bytes), (2, 2, 3036));
    }

    #[test]
    fn waiting_counts_l3_bytes() {
        let mut q = EagerFifo::new(TailLimit::default());
        q.push(SimTime(5), &Packet::test_udp(40));
        q.push(SimTime(7), &Packet::test_udp(1500));
        assert_eq!(q.waiting_at(SimTime(6)), (1, 1500), "as settled, without settling");
        assert_eq!(q.waiting(), (2, 1540));
        q.settle(SimTime(6));
        assert_eq!(q.waiting(), (1, 1500));
        assert_eq!(q.waiting_at(SimTime(7)), (0, 0));
    }
}
