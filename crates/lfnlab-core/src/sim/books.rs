//! The network's books: frames and L3 bytes emitted, delivered, dropped, queued,
//! in a processing stage and (by difference) on links, the conservation
//! identity of spec 06 §7 V5. Every change of a frame's state goes through one
//! method here, and every drop through [`Books::book_drop`]: the one function
//! that books a drop, by cause, at the moment the place that decided it
//! (`net::drop::DropPlace`) has counted it.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::engine::time::SimTime;
use crate::net::drop::{DropCause, DropCounters, DropPlace};

/// Network-level conservation counters in frames and L3 bytes (spec 06 §7 V5).
#[derive(Clone, Debug, Default)]
pub struct Books {
    pub emitted_frames: u64,
    pub emitted_bytes: u64,
    pub delivered_frames: u64,
    pub delivered_bytes: u64,
    pub dropped_frames: u64,
    pub dropped_bytes: u64,
    /// The dropped frames by cause (their sum is `dropped_frames`).
    pub drops: DropCounters,
    pub queued_frames: u64,
    pub queued_bytes: u64,
    /// In a processing stage ahead of a queue (spec 02 §2.5.7).
    pub processing_frames: u64,
    pub processing_bytes: u64,
    pub data_packets: u64,
    /// PAUSE frames (MAC control, not traffic) on links right now.
    pub control_frames_on_links: u64,
    pub control_bytes_on_links: u64,
    /// Most frames in the network at once (queued, processing or on links),
    /// the denominator of the bench's bytes per in-flight packet (issue 9).
    pub peak_in_network_frames: u64,
    /// Arrival times of frames dropped early (`sim::early`: booked when
    /// launched toward the hop that drops them) whose arrival is still ahead:
    /// until then they still count as in the network.
    early_drops: BinaryHeap<Reverse<SimTime>>,
}

impl Books {
    /// A host handed a frame of `l3` bytes to its qdisc, which `accepted` it or
    /// refused it (a drop at the sender, booked here with `refused`).
    #[inline]
    pub fn on_host_emit(&mut self, l3: u64, data: bool, refused: Option<DropCause>) {
        self.emitted_frames += 1;
        self.emitted_bytes += l3;
        self.data_packets += u64::from(data);
        match refused {
            None => {
                self.queued_frames += 1;
                self.queued_bytes += l3;
                // Only an accepted emission raises the count held (spec 06 §7 V5 identity).
                let held = self.emitted_frames - self.delivered_frames - self.dropped_frames + self.early_drops.len() as u64;
                self.peak_in_network_frames = self.peak_in_network_frames.max(held);
            }
            Some(cause) => self.count_drop(cause, l3),
        }
    }

    /// The one booking of a dropped frame of `l3` bytes, decided at `at` (now,
    /// or later for a frame forwarded early, `sim::early`) by a place of the
    /// cause's kind, which has counted it already.
    #[inline]
    pub fn book_drop(&mut self, now: SimTime, at: SimTime, cause: DropCause, l3: u64) {
        debug_assert_ne!(cause.place(), DropPlace::Socket, "a socket's discards are delivered frames");
        self.count_drop(cause, l3);
        if at > now {
            self.early_drops.push(Reverse(at));
        }
    }

    #[inline]
    fn count_drop(&mut self, cause: DropCause, l3: u64) {
        self.dropped_frames += 1;
        self.dropped_bytes += l3;
        self.drops.add(cause);
    }

    /// Drops taken early whose time has come stop counting as ahead.
    #[inline]
    pub fn settle_early_drops(&mut self, now: SimTime) {
        while self.early_drops.peek().is_some_and(|Reverse(t)| *t <= now) {
            self.early_drops.pop();
        }
    }

    /// A frame entered a queue, a NIC or a switch.
    #[inline]
    pub fn enter_queue(&mut self, l3: u64) {
        self.queued_frames += 1;
        self.queued_bytes += l3;
    }

    /// A queued frame left (it starts on a line, or reaches its host).
    #[inline]
    pub fn leave_queue(&mut self, l3: u64) {
        self.queued_frames -= 1;
        self.queued_bytes -= l3;
    }

    /// A frame reached its destination host's TCP/UDP input.
    #[inline]
    pub fn deliver(&mut self, l3: u64) {
        self.delivered_frames += 1;
        self.delivered_bytes += l3;
    }

    /// A frame entered a processing stage ahead of a queue (spec 02 §2.5.7).
    #[inline]
    pub fn enter_processing(&mut self, l3: u64) {
        self.processing_frames += 1;
        self.processing_bytes += l3;
    }

    #[inline]
    pub fn leave_processing(&mut self, l3: u64) {
        self.processing_frames -= 1;
        self.processing_bytes -= l3;
    }

    /// A PAUSE frame went onto a link (MAC control, outside the traffic books).
    #[inline]
    pub fn pause_on_link(&mut self, l3: u64) {
        self.control_frames_on_links += 1;
        self.control_bytes_on_links += l3;
    }

    #[inline]
    pub fn pause_off_link(&mut self, l3: u64) {
        self.control_frames_on_links -= 1;
        self.control_bytes_on_links -= l3;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drop_booked_ahead_counts_as_held_until_its_time() {
        let mut b = Books::default();
        b.on_host_emit(100, true, None);
        b.leave_queue(100);
        // Launched at 0 toward a hop that drops it when it arrives at 10.
        b.book_drop(SimTime(0), SimTime(10), DropCause::Ttl, 100);
        assert_eq!((b.dropped_frames, b.drops.get(DropCause::Ttl)), (1, 1));
        b.on_host_emit(100, true, None);
        assert_eq!(b.peak_in_network_frames, 2, "the dropped frame is still on its way");
        b.settle_early_drops(SimTime(10));
        b.on_host_emit(100, false, Some(DropCause::IfqFull));
        assert_eq!((b.dropped_frames, b.drops.get(DropCause::IfqFull), b.data_packets), (2, 1, 2));
        assert_eq!(b.drops.total(), b.dropped_frames);
    }
}
