//! Space accounting of the Send Buffer, a linked list on a ring (spec 03 §2.7.3).
//!
//! Packets are written one after another at the write position; a sent
//! packet's area becomes NULL but is not reclaimed on its own. The write
//! position may only wrap onto space behind the oldest still-unsent packet, so
//! the space in use is everything from that packet's slot to the write
//! position, NULL areas included. The ring is treated as a continuous byte
//! stream (offsets never wrap): `written_total` is the write position, and
//! the slots from the oldest unsent one onward are kept in write order.
//!
//! The packets themselves live in the per-stream lists (`stream.rs`); each
//! carries the id of its slot here.

use std::collections::VecDeque;

/// One written packet: where it starts and whether it is still unsent.
#[derive(Clone, Copy, Debug)]
struct Slot {
    start: u64,
    unsent: bool,
}

pub struct SendBuffer {
    capacity_bytes: u64,
    header_bytes: u64,
    /// Bytes ever written: the write position of the unwrapped ring.
    written_total: u64,
    /// Slots from the oldest unsent one to the newest; the front is unsent.
    slots: VecDeque<Slot>,
    /// Id (write order) of `slots[0]`.
    first_id: u64,
    /// High-water mark of `used_bytes`.
    max_used_bytes: u64,
}

impl SendBuffer {
    pub fn new(capacity_bytes: u64, header_bytes: u64) -> SendBuffer {
        SendBuffer { capacity_bytes, header_bytes, written_total: 0, slots: VecDeque::new(), first_id: 0, max_used_bytes: 0 }
    }

    /// Bytes a frame of `l2_bytes` occupies: the frame and its next-pointer header.
    pub fn slot_bytes(&self, l2_bytes: u64) -> u64 {
        l2_bytes + self.header_bytes
    }

    /// From the oldest unsent slot to the write position (NULL areas included).
    pub fn used_bytes(&self) -> u64 {
        self.slots.front().map_or(0, |s| self.written_total - s.start)
    }

    pub fn free_bytes(&self) -> u64 {
        self.capacity_bytes - self.used_bytes()
    }

    pub fn max_used_bytes(&self) -> u64 {
        self.max_used_bytes
    }

    /// Writes a frame of `l2_bytes`; returns its slot id, or None when the
    /// write position would run into the oldest unsent packet (§2.7.3 CHOICE:
    /// the host-to-NIC transfer blocks).
    pub fn write(&mut self, l2_bytes: u64) -> Option<u64> {
        let size = self.slot_bytes(l2_bytes);
        if self.used_bytes() + size > self.capacity_bytes {
            return None;
        }
        let id = self.first_id + self.slots.len() as u64;
        self.slots.push_back(Slot { start: self.written_total, unsent: true });
        self.written_total += size;
        self.max_used_bytes = self.max_used_bytes.max(self.used_bytes());
        self.check();
        Some(id)
    }

    /// The packet in slot `id` has been sent: its area becomes NULL. Space is
    /// reclaimed only when the oldest unsent slot moves forward (amortized O(1)).
    pub fn release(&mut self, id: u64) {
        let i = (id - self.first_id) as usize;
        debug_assert!(self.slots[i].unsent, "slot {id} released twice");
        self.slots[i].unsent = false;
        while self.slots.front().is_some_and(|s| !s.unsent) {
            self.slots.pop_front();
            self.first_id += 1;
        }
        self.check();
    }

    fn check(&self) {
        debug_assert!(self.used_bytes() <= self.capacity_bytes);
        debug_assert!(self.slots.front().is_none_or(|s| s.unsent));
    }
}
