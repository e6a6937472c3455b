//! An egress port: the queue that holds frames for one link direction and the
//! transmitter that starts them on it (spec 06 §5.2), with what may sit in
//! front of the queue at a forwarding node (the Quick-Start router function,
//! a processing stage, spec 02 §2.5) and 802.3x flow control (spec 04 §2.5).
//! The world's transmit step for a port is `World::kick_port` (`sim::world`).

use super::nic::PortFc;
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
    /// pcap tap on this egress (`World::taps`), if any.
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

