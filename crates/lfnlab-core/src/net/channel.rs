//! One direction of a link: frames being serialized or propagating. The
//! channel holds its frames itself, in arrival order, and the engine keeps one
//! pending event per channel (the head's arrival), never one per frame.

use super::packet::{NodeId, Packet};
use super::timed_fifo::TimedFifo;
use crate::engine::time::{SimTime, Span};

pub struct Channel {
    pub from: NodeId,
    pub to: NodeId,
    pub rate_bps: u64,
    pub delay: Span,
    /// Frames and the time their last bit reaches `to`.
    in_flight: TimedFifo,
    /// Frames/bytes that completed the channel.
    pub frames_delivered: u64,
    pub bytes_delivered: u64,
}

impl Channel {
    pub fn new(from: NodeId, to: NodeId, rate_bps: u64, delay: Span) -> Channel {
        Channel {
            from,
            to,
            rate_bps,
            delay,
            in_flight: TimedFifo::new(),
            frames_delivered: 0,
            bytes_delivered: 0,
        }
    }

    /// Put a frame on the wire; returns true if it became the head (the caller
    /// then schedules the channel's arrival event).
    #[inline]
    pub fn push(&mut self, arrival: SimTime, pkt: Packet) -> bool {
        self.in_flight.push(arrival, pkt)
    }

    /// Take the head frame if its last bit has arrived by `now`.
    #[inline]
    pub fn pop_arrived(&mut self, now: SimTime) -> Option<Packet> {
        let p = self.in_flight.pop_due(now)?;
        self.frames_delivered += 1;
        self.bytes_delivered += p.l3_bytes as u64;
        Some(p)
    }

    pub fn head_arrival(&self) -> Option<SimTime> {
        self.in_flight.head_due()
    }

    pub fn frames_on_link(&self) -> u64 {
        self.in_flight.len()
    }

    /// L3 bytes currently on the channel (conservation is kept in L3 bytes).
    pub fn bytes_on_link(&self) -> u64 {
        self.in_flight.bytes()
    }
}
