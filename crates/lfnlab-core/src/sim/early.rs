//! Forwarding a frame when it is launched instead of when it arrives (issue 9:
//! no arrival event at a router whose outcome is already fixed).
//!
//! A frame on link direction C that reaches router F at time t_a meets, at F,
//! only deterministic steps: the TTL decrement, the route lookup and an eager
//! port's FIFO (`net::eager_fifo`), whose decision depends on the frames it was
//! given before, in order. When every port C's frames can be routed to is
//! eager and is fed by C alone, nothing else can reach those ports, so F's
//! handling of C's frames can run, in C's order, at launch time with t_a as
//! its clock (`Net::router_receive` with `at` = t_a: the one router path
//! of `sim::router`): the same frames leave at the same times. C then holds no frames
//! and needs no arrival event. Which channels qualify is decided once, at
//! build time ([`mark_early_channels`]); a frame arriving after the end of the
//! run still goes onto C, as it would not have been forwarded.
//!
//! A frame F drops is dropped in the books at launch time
//! (`Books::book_drop` with its arrival time). The count of frames in the
//! network (`conservation.frames_in_network_max`) adds back the drops whose
//! arrival is still ahead, so it is what the woken path reports.

use super::network::Net;
use super::world::{NodeRole, World};
use crate::engine::event_queue::Event;
use crate::engine::time::{SimTime, Span};
use crate::net::packet::{NodeId, Packet};
use crate::net::routing::NO_ROUTE;

impl Net {
    /// Put a frame launched at `start` whose last bit reaches the far end of
    /// `c` at `arrival` on that link direction, or forward it there now if `c`
    /// is early. An arrival event is scheduled as of `start`, the instant the
    /// woken path would schedule it (engine::event_queue).
    #[inline]
    pub(super) fn to_channel(&mut self, c: u32, start: SimTime, arrival: SimTime, pkt: Packet) {
        if self.early[c as usize] && arrival <= self.end {
            self.arrive_early(c, arrival, pkt);
            return;
        }
        if let Some(t) = self.channels[c as usize].push(arrival, pkt) {
            self.events.push_as_of(t, Event::ChannelArrival(c), start);
        }
    }

    /// The instant as of which the arrival event of channel `c`'s head is
    /// scheduled at `now`: when its eager feeder started it, if after now (the
    /// woken port launches it then), so that it ties with other events as on
    /// the woken path; otherwise now.
    #[inline]
    pub(super) fn head_as_of(&self, c: u32, now: SimTime) -> SimTime {
        let p = self.eager_feeder[c as usize];
        if p == u32::MAX {
            return now;
        }
        let ch = &self.channels[c as usize];
        let Some((due, pkt)) = ch.head_plain() else { return now };
        // start ≤ due − delay: no need for the serialization time when that is past.
        let sent_by = due - ch.delay;
        if sent_by <= now {
            return now;
        }
        let p = &self.ports[p as usize];
        (sent_by - Span::serialization(pkt.l2_bytes() + p.framing_bytes as u64, p.rate_bps)).max(now)
    }

    /// Router `to` of early channel `c` handles a frame that arrives at `at`.
    fn arrive_early(&mut self, c: u32, at: SimTime, mut pkt: Packet) {
        let ch = &mut self.channels[c as usize];
        ch.pass_through(pkt.l3_bytes as u64);
        let node = ch.to;
        pkt.ingress = self.ingress_index[c as usize];
        self.router_receive(node, pkt, at);
    }
}

/// Decide which link directions are early: C into router F qualifies when C
/// has no loss, impairment or ingress monitor, its sender sends no PAUSE,
/// F generates no PAUSE, and every port a frame on C can be routed to at F is
/// eager, without Quick-Start or processing stage, and fed by C alone.
pub(super) fn mark_early_channels(w: &mut World, hosts: &[NodeId]) {
    let n_ch = w.net.channels.len();
    // The port sending on channel c is the reverse port of its pair c ^ 1.
    let sender = |c: usize| w.net.reverse_port[c ^ 1];
    let eager_port = |p: u32| {
        let port = &w.net.ports[p as usize];
        w.net.eager_feeder[port.channel as usize] == p && port.qs.is_none() && port.proc.is_none()
    };
    // Can a frame for host d travel on channel c? Conservatively yes through a switch.
    let carries = |c: usize, d: NodeId| {
        let from = w.net.channels[c].from;
        if from == d {
            return false;
        }
        match w.net.nodes[from as usize] {
            NodeRole::Switch(_) => true,
            _ => w.net.routes.port(from, d) == sender(c),
        }
    };
    let mut early = vec![false; n_ch];
    for c in 0..n_ch {
        let f = w.net.channels[c].to;
        let plain = w.net.nodes[f as usize] == NodeRole::Forwarder
            && w.net.ingress_fc[f as usize].is_none()
            && w.net.losses[c].is_none()
            && w.net.channels[c].impaired.is_none()
            && w.net.channel_monitor[c].is_none()
            && sender(c) != u32::MAX
            && w.net.ports[sender(c) as usize].fc.is_none();
        if !plain {
            continue;
        }
        let ok = hosts.iter().filter(|&&d| carries(c, d)).all(|&d| {
            let port = w.net.routes.port(f, d);
            if port == NO_ROUTE {
                return true; // dropped at F, whatever the time
            }
            // Fed by c alone: no other channel into f carries a frame routed to this port.
            eager_port(port)
                && (0..n_ch).filter(|&c2| c2 != c && w.net.channels[c2].to == f).all(|c2| {
                    hosts.iter().all(|&d2| !(carries(c2, d2) && w.net.routes.port(f, d2) == port))
                })
        });
        early[c] = ok;
    }
    w.net.early = early;
}
