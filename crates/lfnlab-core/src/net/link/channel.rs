//! One direction of a link: frames being serialized or propagating. The
//! channel holds its frames itself, in arrival order, and the engine keeps one
//! pending event per channel (the head's arrival), never one per frame.

use std::collections::VecDeque;

use super::impair::Impair;
use crate::net::packet::{NodeId, Packet};
use crate::net::timed_fifo::TimedFifo;
use crate::engine::time::{SimTime, Span};

/// Jitter and reordering of a real circuit (spec 04 §2.12), boxed: rare.
pub struct Impaired {
    pub impair: Impair,
    /// Frames held back, by arrival time (they may overtake nothing; later
    /// frames overtake them).
    held: VecDeque<(SimTime, Packet)>,
    held_bytes: u64,
}

pub struct Channel {
    pub from: NodeId,
    pub to: NodeId,
    pub rate_bps: u64,
    pub delay: Span,
    /// Frames and the time their last bit reaches `to`.
    in_flight: TimedFifo,
    /// Frames/L3 bytes put on the channel, and those that completed it
    /// (per-link conservation, `sim::invariants`).
    pub frames_launched: u64,
    pub bytes_launched: u64,
    pub frames_delivered: u64,
    pub bytes_delivered: u64,
    pub impaired: Option<Box<Impaired>>,
    /// Time of the pending arrival event, if any.
    event_at: Option<SimTime>,
}

impl Channel {
    pub fn new(from: NodeId, to: NodeId, rate_bps: u64, delay: Span) -> Channel {
        Channel {
            from,
            to,
            rate_bps,
            delay,
            in_flight: TimedFifo::new(),
            frames_launched: 0,
            bytes_launched: 0,
            frames_delivered: 0,
            bytes_delivered: 0,
            impaired: None,
            event_at: None,
        }
    }

    pub fn impair(&mut self, impair: Impair) {
        self.impaired = Some(Box::new(Impaired { impair, held: VecDeque::new(), held_bytes: 0 }));
    }

    /// Put a frame on the wire whose last bit reaches `to` at `arrival` (before
    /// impairments). Returns a time for which the caller schedules the
    /// channel's arrival event, when one is needed.
    #[inline]
    pub fn push(&mut self, arrival: SimTime, pkt: Packet) -> Option<SimTime> {
        self.frames_launched += 1;
        self.bytes_launched += pkt.l3_bytes as u64;
        let t = match self.impaired.as_mut() {
            None => arrival,
            Some(im) => {
                let (t, held) = im.impair.arrival(arrival);
                if held {
                    let i = im.held.iter().rposition(|(u, _)| *u <= t).map_or(0, |i| i + 1);
                    im.held_bytes += pkt.l3_bytes as u64;
                    im.held.insert(i, (t, pkt));
                    return self.want_event(t);
                }
                t
            }
        };
        self.in_flight.push(t, pkt);
        self.want_event(t)
    }

    /// A frame of `l3_bytes` handled at the far end when launched (`sim::early`):
    /// launched and arrived at once, never on the link.
    #[inline]
    pub fn pass_through(&mut self, l3_bytes: u64) {
        self.frames_launched += 1;
        self.bytes_launched += l3_bytes;
        self.frames_delivered += 1;
        self.bytes_delivered += l3_bytes;
    }

    fn want_event(&mut self, t: SimTime) -> Option<SimTime> {
        if self.event_at.is_some_and(|e| e <= t) {
            return None;
        }
        self.event_at = Some(t);
        Some(t)
    }

    /// The arrival event for `now` fired: false if a newer one superseded it.
    pub fn take_event(&mut self, now: SimTime) -> bool {
        if self.event_at != Some(now) {
            return false;
        }
        self.event_at = None;
        true
    }

    /// After the due frames were taken: the next event's time, if any.
    pub fn next_event(&mut self) -> Option<SimTime> {
        let t = self.head_arrival()?;
        self.want_event(t)
    }

    /// Take the earliest frame if its last bit has arrived by `now`.
    #[inline]
    pub fn pop_arrived(&mut self, now: SimTime) -> Option<Packet> {
        let from_held = self.impaired.as_ref().and_then(|im| im.held.front()).is_some_and(|(t, _)| *t <= now && self.in_flight.head_due().is_none_or(|h| *t < h));
        let p = if from_held {
            let im = self.impaired.as_mut().expect("held frames");
            let (_, p) = im.held.pop_front().expect("a held frame");
            im.held_bytes -= p.l3_bytes as u64;
            p
        } else {
            self.in_flight.pop_due(now)?
        };
        self.frames_delivered += 1;
        self.bytes_delivered += p.l3_bytes as u64;
        Some(p)
    }

    /// The frame at the head of an unimpaired channel and its arrival time.
    pub fn head_plain(&self) -> Option<(SimTime, &Packet)> {
        debug_assert!(self.impaired.is_none());
        Some((self.in_flight.head_due()?, self.in_flight.head()?))
    }

    pub fn head_arrival(&self) -> Option<SimTime> {
        let held = self.impaired.as_ref().and_then(|im| im.held.front()).map(|(t, _)| *t);
        match (self.in_flight.head_due(), held) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    pub fn frames_on_link(&self) -> u64 {
        self.in_flight.len() + self.impaired.as_ref().map_or(0, |im| im.held.len() as u64)
    }

    /// L3 bytes currently on the channel (conservation is kept in L3 bytes).
    pub fn bytes_on_link(&self) -> u64 {
        self.in_flight.bytes() + self.impaired.as_ref().map_or(0, |im| im.held_bytes)
    }
}
