//! An egress port: the queue that holds frames for one link direction and the
//! transmitter that starts them on it (spec 06 §5.2), with what may sit in
//! front of the queue at a forwarding node (the Quick-Start router function,
//! a processing stage, spec 02 §2.5) and 802.3x flow control (spec 04 §2.5).
//! Its transmit step is `Net::kick_port` below: it starts the next frame
//! when the transmitter is free (`port_may_start`), `transmit` puts what the
//! queue gave on the line and `launch` a frame on the link. A host's port
//! takes the same steps from its host (`Hosts::kick_host_port`, `sim::host`).

use super::nic::PortFc;
use super::network::Net;
use crate::monitor::pcap::Hop;
use crate::net::queue::NoFlows;
use crate::engine::event_queue::{Event, EventQueue};
use crate::engine::time::{SimTime, Span};
use crate::net::drop::DropCause;
use crate::net::eager_fifo::EagerFifo;
use crate::net::packet::{FlowId, NodeId, Packet};
use crate::net::proc_stage::ProcStage;
use crate::net::queue::{Dequeue, FlowView, Qdisc, QueueStats, Refused};
use crate::quickstart::option::OPT_BYTES;
use crate::quickstart::router::QsRouter;

/// What holds a port's frames. A forwarding port whose FIFO is served at a
/// fixed rate with nobody watching it over time is eager: its frames go on
/// the line the moment they are accepted (`net::eager_fifo`, `sim::early`);
/// every other port has a queue discipline that the transmitter polls.
pub enum PortQueue {
    Eager(EagerFifo),
    Disc(Box<dyn Qdisc>),
}

impl PortQueue {
    #[inline]
    pub fn stats(&self) -> &QueueStats {
        match self {
            PortQueue::Eager(q) => q.stats(),
            PortQueue::Disc(q) => q.stats(),
        }
    }

    /// Enqueue at a polled discipline. An eager FIFO takes frames through
    /// `EagerFifo::push` instead: a wrong caller loses a counted frame rather
    /// than leave one that nobody serves.
    #[inline]
    pub fn enqueue(&mut self, now: SimTime, pkt: Packet) -> Result<(), Refused> {
        match self {
            PortQueue::Disc(q) => q.enqueue(now, pkt),
            PortQueue::Eager(q) => {
                debug_assert!(false, "an eager FIFO takes frames through push()");
                q.drop_tail(pkt.l2_bytes());
                Err(Refused { pkt, cause: DropCause::Tail })
            }
        }
    }

    /// The transmitter polls for its next frame; an eager FIFO's frames are on
    /// the line already.
    #[inline]
    pub fn dequeue(&mut self, now: SimTime, view: &dyn FlowView) -> Dequeue {
        match self {
            PortQueue::Disc(q) => q.dequeue(now, view),
            PortQueue::Eager(_) => Dequeue::Empty,
        }
    }

    #[inline]
    pub fn len_packets(&self) -> u64 {
        match self {
            PortQueue::Disc(q) => q.len_packets(),
            PortQueue::Eager(q) => q.stats().packets,
        }
    }

    /// How many more packets of (flow, dir) `enqueue` would accept now.
    #[inline]
    pub fn room_packets(&self, flow: FlowId, dir: u8) -> u64 {
        match self {
            PortQueue::Disc(q) => q.room_packets(flow, dir),
            PortQueue::Eager(_) => u64::MAX,
        }
    }

    /// The eager FIFO, if the port is eager.
    #[inline]
    pub fn eager(&mut self) -> Option<&mut EagerFifo> {
        match self {
            PortQueue::Eager(q) => Some(q),
            PortQueue::Disc(_) => None,
        }
    }

    /// The polled discipline, if the port has one.
    pub fn disc(&self) -> Option<&dyn Qdisc> {
        match self {
            PortQueue::Disc(q) => Some(&**q),
            PortQueue::Eager(_) => None,
        }
    }

    /// The queue's own invariants (counters, limits), in words if broken.
    pub fn check(&self) -> Result<(), String> {
        match self {
            PortQueue::Disc(q) => q.check(),
            PortQueue::Eager(q) => q.check_limits(),
        }
    }
}

/// An egress port: a queue discipline feeding one link direction.
pub struct Port {
    pub node: NodeId,
    pub channel: u32,
    pub rate_bps: u64,
    pub ipg_bytes: u32,
    /// Line bytes a frame takes beyond its L2 bytes: preamble/SFD and IPG
    /// (8 + ipg_bytes), or 0 on a spec 03 §2.8 network segment.
    pub framing_bytes: u32,
    /// What holds the port's frames until they start on the line.
    pub queue: PortQueue,
    /// The transmitter is busy until then.
    pub busy_until: SimTime,
    /// Time of the pending PortWake event, if any.
    pub wake_at: Option<SimTime>,
    /// Host NIC ports: the host index.
    pub host: Option<u32>,
    /// Link monitor on this egress, if any.
    pub monitor: Option<u32>,
    /// pcap tap on this egress (`Net::taps`), if any.
    pub capture: Option<u32>,
    pub name: String,
    /// Quick-Start router function on this egress (spec 02 §2.5), boxed: rare.
    pub qs: Option<Box<QsRouter>>,
    /// Processing stage ahead of the queue, present only when the router
    /// function has a non-zero cost vector (spec 02 §2.5.7).
    pub proc: Option<Box<ProcStage>>,
    /// IP-TTL decrement at this node: 1 at a routing hop, 0 at a host (spec 02 §2.5.5).
    pub ttl_decrement: u8,
    /// 802.3x flow control of this port (spec 04 §2.5), boxed: rare.
    pub fc: Option<Box<PortFc>>,
    /// κ_B·rate while the Gilbert–Elliott circuit on this port's channel is
    /// Bad (spec 04 §2.12), when κ_B < 1.
    pub bad_rate_bps: Option<u64>,
}

impl Port {
    /// Have a PortWake at `t` (or earlier) pending.
    #[inline]
    pub(super) fn wake(&mut self, t: SimTime, port: u32, events: &mut EventQueue) {
        if self.wake_at.is_none_or(|w| w > t) {
            self.wake_at = Some(t);
            events.push(t, Event::PortWake(port));
        }
    }

    /// The Quick-Start function sees a packet entering this egress (spec 02
    /// §2.5): it meters it and applies admission control to a request. Returns
    /// the packet's processing delay (§2.5.7; zero without a cost vector).
    #[inline]
    pub(super) fn quickstart(&mut self, now: SimTime, pkt: &mut Packet) -> Span {
        match self.qs.as_mut() {
            Some(r) => {
                let out = r.on_packet(now, pkt.l3_bytes, &mut pkt.ip.qs, self.ttl_decrement);
                if out.option_deleted {
                    pkt.l3_bytes -= OPT_BYTES;
                }
                out.proc_delay
            }
            None => Span::ZERO,
        }
    }
}

/// What a port's transmit step put on the line.
pub(super) enum Sent {
    /// A frame, taking `tx` on the line.
    Frame(Packet, Span),
    /// Gap frames of `wire_bytes` in all (spec 01 §2.3).
    Gap { wire_bytes: u64, frames: u32 },
    /// Nothing: the queue is empty or asked to be polled later.
    Nothing,
}

impl Net {
    /// The transmit step of a forwarding port (a router's, an emulator's or a
    /// switch's): start its next frame if the transmitter is free (spec 06
    /// §5.2). A host's port takes its own step (`sim::host`), which sees the
    /// host's sockets and NIC.
    pub(super) fn kick_port(&mut self, port: u32) {
        debug_assert!(self.ports[port as usize].host.is_none(), "a host's port is kicked by its host");
        if !self.port_may_start(port) {
            return;
        }
        let now = self.now;
        let p = &mut self.ports[port as usize];
        if let Some(m) = p.monitor {
            self.monitors[m as usize].advance(now, p.queue.stats());
        }
        let polled = p.queue.dequeue(now, &NoFlows(p.rate_bps));
        self.transmit(port, polled);
    }

    /// May `port` start a frame now? Not while its transmitter is busy or a
    /// PAUSE holds it (it wakes when that ends); and a pending PAUSE frame
    /// goes first (spec 04 §2.5: ahead of any data frame not started yet, and
    /// exempt from a pause in effect).
    #[inline(always)]
    pub(super) fn port_may_start(&mut self, port: u32) -> bool {
        let now = self.now;
        let p = &mut self.ports[port as usize];
        if p.busy_until > now {
            p.wake(p.busy_until, port, &mut self.events);
            return false;
        }
        if let Some(fc) = p.fc.as_mut() {
            if let Some(q) = fc.pending.take() {
                self.send_pause_frame(port, q);
                return false;
            }
            if let Some(until) = fc.honour.as_ref().map(|h| h.paused_until).filter(|t| *t > now) {
                p.wake(until, port, &mut self.events);
                return false;
            }
        }
        true
    }

    /// Put what the port's queue gave (`polled`) on the line and have the
    /// port woken when it can send again. Returns what left.
    #[inline(always)]
    pub(super) fn transmit(&mut self, port: u32, polled: Dequeue) -> Sent {
        let now = self.now;
        let p = &mut self.ports[port as usize];
        match polled {
            Dequeue::Frame(pkt) => {
                let more = p.queue.len_packets() > 0;
                let (busy_until, tx) = self.put_on_wire(port, &pkt);
                if more {
                    let p = &mut self.ports[port as usize];
                    p.wake_at = Some(busy_until);
                    self.events.push(busy_until, Event::PortWake(port));
                }
                Sent::Frame(pkt, tx)
            }
            Dequeue::Gap { wire_bytes, frames } => {
                // Gap frames hold the line and are absorbed by the next MAC
                // (spec 01 §2.3): they never enter the channel, a queue or a
                // monitor; a pcap tap sees them as the PAUSE(0) frames they are.
                if let Some(c) = p.capture {
                    self.taps[c as usize].on_gap(now, wire_bytes, frames, p.framing_bytes, p.rate_bps, p.node);
                }
                p.busy_until = now + Span::serialization(wire_bytes, p.rate_bps);
                p.wake_at = Some(p.busy_until);
                self.events.push(p.busy_until, Event::PortWake(port));
                Sent::Gap { wire_bytes, frames }
            }
            Dequeue::WaitUntil(t) => {
                p.wake(t, port, &mut self.events);
                Sent::Nothing
            }
            Dequeue::Empty => Sent::Nothing,
        }
    }

    /// A data frame starts on `port`'s wire now: the books, the monitor and
    /// the channel. Returns when the port is free again and the frame's time
    /// on the line.
    #[inline]
    pub(super) fn put_on_wire(&mut self, port: u32, pkt: &Packet) -> (SimTime, Span) {
        let now = self.now;
        let p = &self.ports[port as usize];
        let wire = pkt.l2_bytes() + p.framing_bytes as u64;
        let rate_bps = match p.bad_rate_bps {
            Some(r) if self.losses[p.channel as usize].as_mut().is_some_and(|l| l.circuit_bad(now)) => r,
            _ => p.rate_bps,
        };
        let tx = Span::serialization(wire, rate_bps);
        (self.launch(port, pkt, tx), tx)
    }

    /// A frame that takes `tx` on the line starts on `port` now. A forwarding
    /// node no longer holds it (`sim::switch_fc`); a host counts it itself.
    #[inline]
    pub(super) fn launch(&mut self, port: u32, pkt: &Packet, tx: Span) -> SimTime {
        let now = self.now;
        self.books.leave_queue(pkt.l3_bytes as u64);
        let p = &mut self.ports[port as usize];
        p.busy_until = now + tx;
        if let Some(m) = p.monitor {
            let m = &mut self.monitors[m as usize];
            if !m.ingress {
                m.on_frame(now, pkt);
            }
        }
        let busy_until = p.busy_until;
        let host = p.host;
        let node = p.node as usize;
        let c = p.channel;
        if let Some(tap) = p.capture {
            self.capture_frame(tap, port, pkt);
        }
        let arrival = busy_until + self.channels[c as usize].delay;
        self.to_channel(c, now, arrival, *pkt);
        if host.is_none() {
            self.ingress_release(node, pkt);
        }
        busy_until
    }

    /// Frame `pkt` starts on `port`'s wire now, and the port has pcap tap `tap`.
    #[cold]
    #[inline(never)]
    pub(super) fn capture_frame(&mut self, tap: u32, port: u32, pkt: &Packet) {
        let now = self.now;
        if !self.taps[tap as usize].wants(now, pkt) {
            return;
        }
        let p = &self.ports[port as usize];
        let hop = Hop {
            tx: p.node,
            rx: self.channels[p.channel as usize].to,
            ip_version: self.node_ip_version.get(pkt.src as usize).copied().unwrap_or(4),
        };
        self.taps[tap as usize].on_frame(now, pkt, &hop);
    }
}
