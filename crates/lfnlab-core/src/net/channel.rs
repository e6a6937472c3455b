//! One direction of a link: frames being serialized or propagating. The
//! channel holds its frames itself, in arrival order, and the engine keeps one
//! pending event per channel (the head's arrival), never one per frame.

use std::collections::VecDeque;

use super::packet::{NodeId, Packet};
use crate::engine::time::{SimTime, Span};

pub struct Channel {
    pub from: NodeId,
    pub to: NodeId,
    pub rate_bps: u64,
    pub delay: Span,
    /// Frames and the time their last bit reaches `to`, non-decreasing.
    in_flight: VecDeque<(SimTime, Packet)>,
    /// L3 bytes currently on the channel (conservation is kept in L3 bytes).
    pub bytes_on_link: u64,
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
            in_flight: VecDeque::with_capacity(64),
            bytes_on_link: 0,
            frames_delivered: 0,
            bytes_delivered: 0,
        }
    }

    /// Put a frame on the wire; returns true if it became the head (the caller
    /// then schedules the channel's arrival event).
    pub fn push(&mut self, arrival: SimTime, pkt: Packet) -> bool {
        debug_assert!(self.in_flight.back().is_none_or(|(t, _)| *t <= arrival), "channel arrivals must be monotone");
        self.bytes_on_link += pkt.l3_bytes as u64;
        self.in_flight.push_back((arrival, pkt));
        self.in_flight.len() == 1
    }

    /// Take the head frame if its last bit has arrived by `now`.
    pub fn pop_arrived(&mut self, now: SimTime) -> Option<Packet> {
        match self.in_flight.front() {
            Some((t, _)) if *t <= now => {
                let (_, p) = self.in_flight.pop_front().unwrap();
                let w = p.l3_bytes as u64;
                self.bytes_on_link -= w;
                self.frames_delivered += 1;
                self.bytes_delivered += w;
                Some(p)
            }
            _ => None,
        }
    }

    pub fn head_arrival(&self) -> Option<SimTime> {
        self.in_flight.front().map(|(t, _)| *t)
    }

    pub fn frames_on_link(&self) -> u64 {
        self.in_flight.len() as u64
    }
}
