//! A router (or emulator) node (spec 06 §5.2, spec 02 §2.5): a frame that
//! reached it takes one path, whether it arrived by its channel's arrival
//! event or was forwarded at launch time (`sim::early`, where `at` is its
//! arrival instant ahead of the clock): the routing hop (TTL, route lookup),
//! the ingress PAUSE account (`sim::switch_fc`), then the egress port: the
//! Quick-Start function, a processing stage, the queue. A frame refused there
//! is dropped in the books with the queue's cause.

use super::network::Net;
use crate::engine::event_queue::Event;
use crate::engine::time::{SimTime, Span};
use crate::net::drop::DropCause;
use crate::net::packet::{NodeId, Packet};
use crate::net::routing::NO_ROUTE;

impl Net {
    /// Router `node` receives a frame whose last bit arrived at `at` (now, or
    /// ahead of the clock on an early channel).
    #[inline(always)]
    pub(super) fn router_receive(&mut self, node: NodeId, mut pkt: Packet, at: SimTime) {
        let Some(port) = self.routing_hop(node, &mut pkt, at) else { return };
        self.ingress_hold(node as usize, &pkt);
        self.enqueue_port(port, pkt, at);
    }

    /// A routing hop at `node` for a frame that arrives at `at`: the IP TTL
    /// is decremented and the frame dropped at zero (RFC 791) or without a
    /// route; otherwise its egress port. The frame is changed in place (no
    /// copy of it on the hot path).
    #[inline(always)]
    fn routing_hop(&mut self, node: NodeId, pkt: &mut Packet, at: SimTime) -> Option<u32> {
        if pkt.ip.ttl <= 1 {
            self.books.book_drop(self.now, at, DropCause::Ttl, pkt.l3_bytes as u64);
            return None;
        }
        pkt.ip.ttl -= 1;
        let port = self.routes.port(node, pkt.dst);
        debug_assert_ne!(port, NO_ROUTE, "validated scenarios have routes");
        if port == NO_ROUTE {
            self.books.book_drop(self.now, at, DropCause::NoRoute, pkt.l3_bytes as u64);
            return None;
        }
        Some(port)
    }

    /// A frame enters a forwarding egress: the Quick-Start function and the
    /// processing stage if the port has them (`enqueue_port_qs`), then the
    /// queue. Inlined into the one router path: most ports have neither, and
    /// their frames go straight to the queue.
    #[inline(always)]
    fn enqueue_port(&mut self, port: u32, pkt: Packet, at: SimTime) {
        let p = &self.ports[port as usize];
        // A processing stage exists only with a Quick-Start function (spec 02 §2.5.7).
        debug_assert!(p.qs.is_some() || p.proc.is_none());
        if p.qs.is_some() {
            self.enqueue_port_qs(port, pkt, at);
            return;
        }
        self.enqueue_queue(port, pkt, at);
    }

    /// A port with a Quick-Start function (spec 02 §2.5): the function, then
    /// the processing stage if it has a cost vector, then the queue.
    #[cold]
    #[inline(never)]
    fn enqueue_port_qs(&mut self, port: u32, mut pkt: Packet, at: SimTime) {
        let p = &mut self.ports[port as usize];
        let d = p.quickstart(at, &mut pkt);
        if let Some(stage) = p.proc.as_mut() {
            self.books.enter_processing(pkt.l3_bytes as u64);
            debug_assert_eq!(at, self.now, "an early channel's ports have no processing stage");
            if let Some(t) = stage.admit(at, d, pkt) {
                self.events.push(t, Event::ProcRelease(port));
            }
            return;
        }
        self.enqueue_queue(port, pkt, at);
    }

    /// Processing is done for the stage's due packets: they enter the queue in
    /// arrival order (spec 02 §2.5.7).
    pub(super) fn on_proc_release(&mut self, port: u32) {
        let now = self.now;
        while let Some(pkt) = self.ports[port as usize].proc.as_mut().and_then(|s| s.pop_released(now)) {
            self.books.leave_processing(pkt.l3_bytes as u64);
            self.enqueue_queue(port, pkt, now);
        }
        if let Some(t) = self.ports[port as usize].proc.as_ref().and_then(|s| s.head_release()) {
            self.events.push(t, Event::ProcRelease(port));
        }
    }

    /// Enqueue at a forwarding port's queue; a refused frame is dropped there.
    /// An eager port takes a frame that arrived at `at`; a polled queue takes
    /// it now (only an eager port is reached ahead of time, `sim::early`).
    #[inline(always)]
    fn enqueue_queue(&mut self, port: u32, pkt: Packet, at: SimTime) {
        let p = &mut self.ports[port as usize];
        if self.eager_feeder[p.channel as usize] == port {
            self.enqueue_eager(port, pkt, at);
            return;
        }
        debug_assert_eq!(at, self.now, "only eager ports are reached ahead of time");
        let now = self.now;
        if let Some(m) = p.monitor {
            self.monitors[m as usize].advance(now, p.queue.stats());
        }
        let l3 = pkt.l3_bytes as u64;
        match p.queue.enqueue(now, pkt) {
            Ok(()) => {
                self.books.enter_queue(l3);
                if let Some(m) = p.monitor {
                    self.monitors[m as usize].on_queue(p.queue.stats());
                }
                self.kick_port(port);
            }
            Err(refused) => {
                self.books.book_drop(now, now, refused.cause, l3);
                let node = p.node as usize;
                self.ingress_release(node, &refused.pkt);
            }
        }
    }

    /// An eager port takes a frame that arrived at `at` (now, or later for an
    /// early channel): its start is fixed, it goes to the line at once and the
    /// queue keeps only its occupancy (net::eager_fifo).
    #[inline]
    pub(super) fn enqueue_eager(&mut self, port: u32, pkt: Packet, at: SimTime) {
        let p = &mut self.ports[port as usize];
        let q = p.queue.eager().expect("an eager port holds an EagerFifo");
        q.settle(at);
        let l2 = pkt.l2_bytes();
        if !q.fits(l2) {
            q.drop_tail(l2);
            self.books.book_drop(self.now, at, DropCause::Tail, pkt.l3_bytes as u64);
            return;
        }
        let start = p.busy_until.max(at);
        q.push(start, &pkt);
        p.busy_until = start + Span::serialization(l2 + p.framing_bytes as u64, p.rate_bps);
        let (c, arrival) = (p.channel, p.busy_until + self.channels[p.channel as usize].delay);
        self.to_channel(c, start, arrival, pkt);
    }
}
