//! The world: every component of a run in flat arrays, and the event dispatch
//! that moves packets between them. Only the world owns the clock; components
//! are called with `now` (STYLE point 2).

use crate::engine::event_log::EventLog;
use crate::engine::event_queue::{Event, EventQueue};
use crate::engine::time::{SimTime, Span};
use crate::host::tcp::config::Pacing;
use crate::host::tcp::sender::SndLim;
use crate::host::tcp::socket::TcpSocket;
use crate::monitor::busy_idle::BusyIdle;
use crate::monitor::host_io::HostIo;
use crate::monitor::link_monitor::LinkMonitor;
use crate::monitor::pcap::{Hop, PcapTap};
use crate::monitor::tcp_trace::{ConnTrace, TcpColumns};
use crate::net::link::{Channel, Loss};
use crate::host::qdisc::ipg::gap::frame_bytes;
use crate::net::packet::{NodeId, Packet, PacketKind};
use crate::net::packet::FlowId;
use crate::net::queue::{Dequeue, FlowSnapshot, FlowView, NoFlows};
use crate::net::routing::RouteTable;
use crate::apps::request_response::{RequestResponse, ServerAction};
use crate::apps::udp_cbr::UdpCbr;
use crate::host::cpu::HostCpu;
use crate::host::nic::HostNic;
use super::books::Books;
pub use super::port::{Port, PortQueue};

/// What a host qdisc sees of the TCP connections at dequeue (spec 06 §5.3 `view`).
pub(super) struct SocketView<'a> {
    pub(super) sockets: &'a [TcpSocket],
    pub(super) flows: &'a [FlowEnds],
    pub(super) line_rate_bps: u64,
}

impl FlowView for SocketView<'_> {
    fn flow(&self, flow: FlowId, dir: u8) -> Option<FlowSnapshot> {
        let FlowEnds::Tcp(f) = self.flows.get(flow as usize)? else { return None };
        let s = &self.sockets[if dir == 0 { f.initiator } else { f.acceptor } as usize];
        Some(FlowSnapshot {
            cwnd_segments: s.snd.w.cwnd,
            srtt_s: s.rtt.srtt.map_or(0.0, |x| x.as_secs_f64()),
            min_rtt_s: s.rtt.min_rtt.map_or(0.0, |x| x.as_secs_f64()),
            // Only flows paced by the qdisc expose their rate to it (spec 06 §5.3 `fq` pacing).
            pacing_rate_bytes_per_s: if s.pacing() == Pacing::QdiscRate { s.snd.pacing.bytes_per_s } else { 0.0 },
            latest_rtt_s: s.rtt.latest.map_or(0.0, |x| x.as_secs_f64()),
            in_flight_segments: s.snd.sb.pipe(),
            mss_bytes: s.snd.mss,
            segment_l3_bytes: s.segment_l3_bytes(),
        })
    }
    fn line_rate_bps(&self) -> u64 {
        self.line_rate_bps
    }
}

/// Payload bytes the applications on host `h` have written into socket buffers.
pub fn host_written(sockets: &[TcpSocket], socket_host: &[u32], h: u32) -> u64 {
    sockets.iter().zip(socket_host).filter(|(_, sh)| **sh == h).map(|(s, _)| s.snd.app.written).sum()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeRole {
    Host(u32),
    Forwarder,
    /// An Ethernet switch (spec 05): index in `World::switches`.
    Switch(u32),
}

pub struct Host {
    pub node: NodeId,
    pub port: u32,
    /// DMA and memory-bandwidth accounting (spec 01 §2.6).
    pub io: HostIo,
    /// Sockets waiting for IFQ room or TSQ budget.
    pub stalled: Vec<u32>,
    /// The burstiness diagnostic of spec 03 §2.1 (hosts that send TCP, with traces on).
    pub busy: Option<BusyIdle>,
    /// The NIC pipeline of spec 04 §2.4–2.6, if the host has one.
    pub nic: Option<Box<HostNic>>,
    /// The CPU model of spec 04 §2.7 (needs the NIC pipeline).
    pub cpu: Option<Box<HostCpu>>,
}

/// A TCP flow's two endpoints.
#[derive(Clone, Copy, Debug)]
pub struct TcpFlow {
    pub initiator: u32,
    pub acceptor: u32,
    pub start: SimTime,
    /// `request_response` flows: index in `World::rr_apps`.
    pub app: Option<u32>,
}

pub enum FlowEnds {
    Tcp(TcpFlow),
    Udp(u32),
    /// A Web workload: index in `World::web` (spec 02 §3.2).
    Web(u32),
}

pub struct World {
    pub now: SimTime,
    pub end: SimTime,
    pub events: EventQueue,
    pub log: EventLog,
    pub nodes: Vec<NodeRole>,
    pub node_names: Vec<String>,
    pub channels: Vec<Channel>,
    /// Per channel: the egress port at its far end that sends back toward its
    /// near end (where a PAUSE arriving on the channel acts, spec 04 §2.5).
    pub reverse_port: Vec<u32>,
    /// Per channel: the local ingress index at its far node (`Packet::ingress`).
    pub ingress_index: Vec<u8>,
    /// Per node: the ingress accounts of a switch or router that generates
    /// PAUSE (spec 04 §2.5), boxed: rare.
    pub ingress_fc: Vec<Option<Box<super::switch_fc::IngressFc>>>,
    /// Ingress monitor per channel (`[[monitor]] point = "ingress"`).
    pub channel_monitor: Vec<Option<u32>>,
    pub losses: Vec<Option<Loss>>,
    pub ports: Vec<Port>,
    pub hosts: Vec<Host>,
    pub routes: RouteTable,
    pub sockets: Vec<TcpSocket>,
    /// Pending SocketTimer event time per socket.
    pub socket_timer_at: Vec<Option<SimTime>>,
    /// Which host each socket lives on.
    pub socket_host: Vec<u32>,
    pub flows: Vec<FlowEnds>,
    pub flow_names: Vec<String>,
    /// Per flow: (initiator socket, acceptor socket) lookup by packet direction.
    pub udp: Vec<UdpCbr>,
    /// Client/server exchanges (spec 02 §3.1).
    pub rr_apps: Vec<RequestResponse>,
    /// Web workloads (spec 02 §3.2).
    pub web: Vec<super::web::WebRuntime>,
    /// UDP bytes delivered per flow.
    pub udp_delivered: Vec<(u64, u64)>,
    pub monitors: Vec<LinkMonitor>,
    /// pcap captures (`[[capture]]`).
    pub taps: Vec<PcapTap>,
    /// Per node: the IP version of the packets it sends (4 or 6).
    pub node_ip_version: Vec<u8>,
    pub traces: Vec<ConnTrace>,
    /// Trace index per socket (sender endpoints only).
    pub socket_trace: Vec<Option<u32>>,
    pub tcp_cols: TcpColumns,
    pub books: Books,
    /// Application flags per socket at CPU hosts (`sim::cpu::APP_*`).
    pub cpu_app: Vec<u8>,
    /// Scratch buffer for packets produced by a socket (reused, no allocation).
    pub(super) out: Vec<Packet>,
    /// Ethernet switches (spec 05).
    pub switches: Vec<super::switch::SwitchRuntime>,
    /// Per port: its index among its node's ports (a switch's port number).
    pub port_local: Vec<u8>,
    /// Per channel: frames are forwarded when launched (`sim::early`).
    pub early: Vec<bool>,
    /// Per channel: the eager port that feeds it, or `u32::MAX` (`sim::early`);
    /// a port is eager exactly when it is its channel's eager feeder.
    pub eager_feeder: Vec<u32>,
    /// Check every invariant after every event (`sim::invariants`; `BuildOptions`).
    pub check_invariants: bool,
    /// The first invariant found broken; the run stops there.
    pub violation: Option<super::invariants::Violation>,
}

impl World {
    #[allow(clippy::too_many_arguments)]
    pub fn new(end: SimTime, routes: RouteTable) -> World {
        World {
            now: SimTime::ZERO,
            end,
            events: EventQueue::new(),
            log: EventLog::default(),
            nodes: Vec::new(),
            node_names: Vec::new(),
            channels: Vec::new(),
            reverse_port: Vec::new(),
            ingress_index: Vec::new(),
            ingress_fc: Vec::new(),
            channel_monitor: Vec::new(),
            losses: Vec::new(),
            ports: Vec::new(),
            hosts: Vec::new(),
            routes,
            sockets: Vec::new(),
            socket_timer_at: Vec::new(),
            socket_host: Vec::new(),
            flows: Vec::new(),
            flow_names: Vec::new(),
            udp: Vec::new(),
            rr_apps: Vec::new(),
            web: Vec::new(),
            udp_delivered: Vec::new(),
            monitors: Vec::new(),
            taps: Vec::new(),
            node_ip_version: Vec::new(),
            traces: Vec::new(),
            socket_trace: Vec::new(),
            tcp_cols: TcpColumns::default(),
            books: Books::default(),
            cpu_app: Vec::new(),
            out: Vec::with_capacity(64),
            switches: Vec::new(),
            port_local: Vec::new(),
            early: Vec::new(),
            eager_feeder: Vec::new(),
            check_invariants: false,
            violation: None,
        }
    }

    /// Run until the event queue is empty or the next event is after `end`.
    pub fn run(&mut self) {
        self.run_until(self.end);
        self.now = self.end;
    }

    /// Execute every event at or before `limit` (and `end`), leaving the clock
    /// at the last one executed. Running in slices executes the same events in
    /// the same order as one `run` (the observer of `sim::run_observed`).
    pub fn run_until(&mut self, limit: SimTime) {
        self.run_until_or(limit, u64::MAX);
    }

    /// [`Self::run_until`], executing at most `max_events` events. Returns true
    /// when no event at or before `limit` (and `end`) is left.
    pub fn run_until_or(&mut self, limit: SimTime, max_events: u64) -> bool {
        let limit = limit.min(self.end);
        let mut budget = max_events;
        while let Some(t) = self.events.peek_time() {
            if t > limit {
                break;
            }
            if budget == 0 {
                return false;
            }
            budget -= 1;
            let (t, ev) = self.events.pop().unwrap();
            debug_assert!(t >= self.now, "event scheduled in the past");
            let before = self.now;
            self.now = t;
            let (k, i) = ev.code();
            self.log.record(t.0, k, i);
            match ev {
                Event::ChannelArrival(c) => self.on_channel_arrival(c),
                Event::PortWake(p) => {
                    if self.ports[p as usize].wake_at == Some(t) {
                        self.ports[p as usize].wake_at = None;
                        self.kick_port(p);
                    }
                }
                Event::SocketTimer(s) => self.on_socket_timer(s),
                Event::AppTimer(a) => self.on_app_timer(a),
                Event::FlowStart(f) => self.on_flow_start(f),
                Event::WebTimer(wi) => self.on_web_timer(wi),
                Event::ProcRelease(p) => self.on_proc_release(p),
                Event::NicRxDma(h) => self.on_nic_rx_dma(h),
                Event::NicTxDma(h) => self.on_nic_tx_dma(h),
                Event::PauseRefresh(h) => self.on_pause_refresh(h),
                Event::SwitchPauseRefresh(p) => self.on_switch_pause_refresh(p),
                Event::CpuDone(i) => self.on_cpu_done(i / super::cpu::MAX_CORES, i % super::cpu::MAX_CORES),
                Event::IrqTimer(h) => self.on_irq_timer(h),
                Event::SwitchWake(i) => self.on_switch_wake(i),
            }
            if self.check_invariants {
                if let Err(v) = self.check(before) {
                    self.violation = Some(v);
                    return false;
                }
            }
        }
        true
    }

    fn on_channel_arrival(&mut self, c: u32) {
        let now = self.now;
        if !self.channels[c as usize].take_event(now) {
            return; // superseded by an earlier arrival (a held-back frame's)
        }
        while let Some(mut pkt) = self.channels[c as usize].pop_arrived(now) {
            let to = self.channels[c as usize].to;
            pkt.ingress = self.ingress_index[c as usize];
            if pkt.kind == PacketKind::Pause {
                self.on_pause_frame(c, pkt);
                continue;
            }
            if let Some(cause) = self.losses[c as usize].as_mut().and_then(|loss| loss.drops(now, &pkt)) {
                self.books.book_drop(now, now, cause, pkt.l3_bytes as u64);
                continue;
            }
            if let Some(m) = self.channel_monitor[c as usize] {
                let m = &mut self.monitors[m as usize];
                m.advance(now, self.ports[m.port as usize].queue.stats());
                m.on_frame(now, &pkt);
            }
            self.deliver(to, pkt);
        }
        if let Some(t) = self.channels[c as usize].next_event() {
            let as_of = self.head_as_of(c, now);
            self.events.push_as_of(t, Event::ChannelArrival(c), as_of);
        }
    }

    /// A frame reached node `at`.
    fn deliver(&mut self, at: NodeId, pkt: Packet) {
        match self.nodes[at as usize] {
            NodeRole::Forwarder => {
                let now = self.now;
                if let Some((port, pkt)) = self.routing_hop(at, pkt, now) {
                    self.ingress_hold(at as usize, &pkt);
                    self.enqueue_port(port, pkt);
                }
            }
            NodeRole::Switch(sw) => self.switch_receive(sw, pkt),
            NodeRole::Host(h) if self.hosts[h as usize].nic.is_some() => self.nic_rx_arrive(h, pkt),
            NodeRole::Host(h) => {
                debug_assert_eq!(pkt.dst, at);
                self.books.deliver(pkt.l3_bytes as u64);
                self.host_receive(h, pkt);
            }
        }
    }

    /// A frame enters a forwarding egress: the Quick-Start function, then the
    /// processing stage if the port has one, then the queue.
    fn enqueue_port(&mut self, port: u32, mut pkt: Packet) {
        let now = self.now;
        let p = &mut self.ports[port as usize];
        let d = p.quickstart(now, &mut pkt);
        if let Some(stage) = p.proc.as_mut() {
            self.books.enter_processing(pkt.l3_bytes as u64);
            if let Some(t) = stage.admit(now, d, pkt) {
                self.events.push(t, Event::ProcRelease(port));
            }
            return;
        }
        self.enqueue_queue(port, pkt);
    }

    /// Processing is done for the stage's due packets: they enter the queue in
    /// arrival order (spec 02 §2.5.7).
    fn on_proc_release(&mut self, port: u32) {
        let now = self.now;
        while let Some(pkt) = self.ports[port as usize].proc.as_mut().and_then(|s| s.pop_released(now)) {
            self.books.leave_processing(pkt.l3_bytes as u64);
            self.enqueue_queue(port, pkt);
        }
        if let Some(t) = self.ports[port as usize].proc.as_ref().and_then(|s| s.head_release()) {
            self.events.push(t, Event::ProcRelease(port));
        }
    }

    /// Enqueue at a forwarding port's queue; a refused frame is dropped there.
    #[inline(always)]
    fn enqueue_queue(&mut self, port: u32, pkt: Packet) {
        let now = self.now;
        let p = &mut self.ports[port as usize];
        if self.eager_feeder[p.channel as usize] == port {
            self.enqueue_eager(port, pkt, now);
            return;
        }
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

    /// Start the next frame on `port` if the transmitter is free (spec 06 §5.2).
    pub(super) fn kick_port(&mut self, port: u32) {
        let now = self.now;
        let nic_host = self.ports[port as usize].host.filter(|h| self.hosts[*h as usize].nic.is_some());
        if let Some(h) = nic_host {
            // spec 04 §2.4 rule 3: TX completion, the driver and the TX DMA.
            self.nic_tx_advance(h, port);
        }
        let p = &mut self.ports[port as usize];
        if p.busy_until > now {
            p.wake(p.busy_until, port, &mut self.events);
            return;
        }
        if let Some(fc) = p.fc.as_mut() {
            // spec 04 §2.5: a PAUSE goes ahead of any data frame not started yet
            // and is exempt from a pause in effect.
            if let Some(q) = fc.pending.take() {
                self.send_pause_frame(port, q);
                return;
            }
            if let Some(until) = fc.honour.as_ref().map(|h| h.paused_until).filter(|t| *t > now) {
                p.wake(until, port, &mut self.events);
                return;
            }
        }
        if let Some(h) = nic_host {
            self.nic_mac_start(h, port);
            return;
        }
        if let Some(m) = p.monitor {
            self.monitors[m as usize].advance(now, p.queue.stats());
        }
        if let Some(h) = p.host {
            if self.hosts[h as usize].io.due(now) {
                let written = host_written(&self.sockets, &self.socket_host, h);
                self.hosts[h as usize].io.advance(now, written);
            }
        }
        let p = &mut self.ports[port as usize];
        let polled = match p.host {
            Some(_) => p.queue.dequeue(now, &SocketView { sockets: &self.sockets, flows: &self.flows, line_rate_bps: p.rate_bps }),
            None => p.queue.dequeue(now, &NoFlows(p.rate_bps)),
        };
        match polled {
            Dequeue::Frame(pkt) => {
                let more = p.queue.len_packets() > 0;
                let busy_until = self.put_on_wire(port, &pkt);
                if more {
                    let p = &mut self.ports[port as usize];
                    p.wake_at = Some(busy_until);
                    self.events.push(busy_until, Event::PortWake(port));
                }
                if let Some(h) = self.ports[port as usize].host {
                    self.on_host_dequeue(h, &pkt);
                }
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
                if let Some(h) = p.host {
                    let ipg = p.ipg_bytes;
                    self.hosts[h as usize].io.on_gap(frame_bytes(wire_bytes, frames, ipg), wire_bytes, frames);
                }
            }
            Dequeue::WaitUntil(t) => p.wake(t, port, &mut self.events),
            Dequeue::Empty => {}
        }
    }

    /// A data frame starts on `port`'s wire now: the books, the monitor, the
    /// channel and the host's I/O counters. Returns when the port is free again.
    #[inline]
    pub(super) fn put_on_wire(&mut self, port: u32, pkt: &Packet) -> SimTime {
        let now = self.now;
        let p = &self.ports[port as usize];
        let wire = pkt.l2_bytes() + p.framing_bytes as u64;
        let rate_bps = match p.bad_rate_bps {
            Some(r) if self.losses[p.channel as usize].as_mut().is_some_and(|l| l.circuit_bad(now)) => r,
            _ => p.rate_bps,
        };
        self.launch(port, pkt, Span::serialization(wire, rate_bps))
    }

    /// A frame that takes `tx` on the line starts on `port` now.
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
        if let Some(h) = host {
            let host = &mut self.hosts[h as usize];
            host.io.on_real(pkt.l2_bytes());
            if let Some(b) = host.busy.as_mut().filter(|_| pkt.is_data()) {
                b.on_data_frame(now, pkt.payload_bytes(), tx);
            }
        } else {
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
        let wscale = self.packet_socket(pkt, false).map_or(0, |s| self.sockets[s as usize].rcv.wscale);
        let hop = Hop {
            tx: p.node,
            rx: self.channels[p.channel as usize].to,
            ip_version: self.node_ip_version.get(pkt.src as usize).copied().unwrap_or(4),
            wscale,
        };
        self.taps[tap as usize].on_frame(now, pkt, &hop);
    }

    /// A host NIC took a frame from the qdisc: release TSQ budget and retry
    /// stalled sockets (spec 06 §2.8).
    fn on_host_dequeue(&mut self, h: u32, pkt: &Packet) {
        self.tsq_release(pkt);
        self.restart_stalled(h);
    }

    /// The frame left the qdisc: its TSQ budget returns to its socket.
    pub(super) fn tsq_release(&mut self, pkt: &Packet) {
        if let Some(s) = self.packet_socket(pkt, false) {
            self.sockets[s as usize].tsq_release(pkt.l2_bytes());
        }
    }

    /// The qdisc has room again: sockets that stalled on it retry.
    pub(super) fn restart_stalled(&mut self, h: u32) {
        if !self.hosts[h as usize].stalled.is_empty() {
            let stalled = std::mem::take(&mut self.hosts[h as usize].stalled);
            for s in stalled.iter().copied() {
                self.pump(s);
            }
            // Reuse the allocation when nothing re-stalled in between.
            let host = &mut self.hosts[h as usize];
            if host.stalled.is_empty() {
                let mut v = stalled;
                v.clear();
                host.stalled = v;
            }
        }
    }

    pub(super) fn host_receive(&mut self, _h: u32, pkt: Packet) {
        match pkt.kind {
            PacketKind::Pause => debug_assert!(false, "PAUSE frames end at the MAC"),
            PacketKind::Udp => {
                let d = &mut self.udp_delivered[pkt.flow as usize];
                d.0 += pkt.payload_bytes();
                d.1 += 1;
            }
            PacketKind::Tcp => {
                let Some(s) = self.packet_socket(&pkt, true) else { return };
                self.trace_catch_up(s);
                let mut out = std::mem::take(&mut self.out);
                self.sockets[s as usize].on_packet(self.now, &pkt, &mut out);
                self.emit(s, &mut out);
                self.out = out;
                if pkt.tcp.payload > 0 {
                    // The application on top sees the delivery (spec 02 §3.1, §3.2).
                    match self.flows[pkt.flow as usize] {
                        FlowEnds::Tcp(TcpFlow { app: Some(a), .. }) => self.on_app_delivery(a),
                        FlowEnds::Web(wi) => self.on_web_delivery(wi, pkt.tcp.conn),
                        _ => {}
                    }
                }
                self.pump(s);
            }
        }
    }

    /// The socket a TCP packet is for (`receiving`) or came from.
    pub(super) fn packet_socket(&self, pkt: &Packet, receiving: bool) -> Option<u32> {
        if pkt.kind != PacketKind::Tcp {
            return None;
        }
        // dir 0: initiator (client) → acceptor (server).
        let (init, acc) = match self.flows[pkt.flow as usize] {
            FlowEnds::Tcp(f) => (f.initiator, f.acceptor),
            FlowEnds::Web(wi) => *self.web[wi as usize].sockets.get(pkt.tcp.conn as usize)?,
            FlowEnds::Udp(_) => return None,
        };
        Some(if (pkt.dir == 0) == receiving { acc } else { init })
    }

    /// Add a connection's two sockets on hosts `hosts` (initiator, acceptor),
    /// both following trace `trace`; returns the initiator's index.
    pub fn push_socket_pair(&mut self, initiator: TcpSocket, acceptor: TcpSocket, hosts: (u32, u32), trace: Option<u32>) -> u32 {
        let si = self.sockets.len() as u32;
        self.sockets.push(initiator);
        self.sockets.push(acceptor);
        self.socket_host.extend([hosts.0, hosts.1]);
        self.socket_timer_at.extend([None, None]);
        self.socket_trace.extend([trace, trace]);
        self.cpu_app.extend([0, 0]);
        si
    }

    /// Data reached an end of a request/response exchange (spec 02 §3.1).
    fn on_app_delivery(&mut self, a: u32) {
        let app = &mut self.rr_apps[a as usize];
        let (c, sv) = (app.client as usize, app.server as usize);
        let action = app.on_delivery(self.now, self.sockets[sv].rcv.rcv_nxt, self.sockets[c].rcv.rcv_nxt);
        if let ServerAction::Respond(total) = action {
            self.sockets[sv].snd.app_set_total(self.now, total);
            self.pump(sv as u32);
        }
    }

    /// Let socket `s` send what it may, then queue its packets and arm its timer.
    pub fn pump(&mut self, s: u32) {
        let h = self.socket_host[s as usize];
        let host = &self.hosts[h as usize];
        let a = self.sockets[s as usize].addr;
        // Packets a core is still building take qdisc room too (spec 04 §2.7).
        let held = host.cpu.as_ref().map_or(0, |c| c.held_packets());
        let room = self.ports[host.port as usize].queue.room_packets(a.flow, a.dir).saturating_sub(held);
        let mut out = std::mem::take(&mut self.out);
        let lim = self.sockets[s as usize].poll_transmit(self.now, room, &mut out);
        self.emit(s, &mut out);
        self.out = out;
        if lim == SndLim::Stall {
            let st = &mut self.hosts[h as usize].stalled;
            if !st.contains(&s) {
                st.push(s);
            }
        }
        self.arm_socket_timer(s);
        self.trace_observe(s);
    }

    /// Queue a socket's packets at its host's qdisc and start the NIC.
    pub(super) fn emit(&mut self, s: u32, out: &mut Vec<Packet>) {
        if out.is_empty() {
            return;
        }
        let h = self.socket_host[s as usize];
        if self.hosts[h as usize].cpu.is_some() {
            // A core builds them first (spec 04 §2.7 rules 1, 3).
            self.cpu_hold(h, s, out);
            return;
        }
        self.enqueue_host_packets(s, out);
        let port = self.hosts[h as usize].port;
        self.kick_port(port);
    }

    /// Put a socket's packets into its host's qdisc (no kick).
    pub(super) fn enqueue_host_packets(&mut self, s: u32, out: &mut Vec<Packet>) {
        let h = self.socket_host[s as usize];
        let port = self.hosts[h as usize].port;
        self.books.settle_early_drops(self.now);
        for mut pkt in out.drain(..) {
            let p = &mut self.ports[port as usize];
            let d = p.quickstart(self.now, &mut pkt);
            debug_assert_eq!(d, Span::ZERO, "hosts have no processing stage (spec 02 §2.5.7 CHOICE)");
            let l3 = pkt.l3_bytes as u64;
            let data = pkt.is_data();
            let refused = p.queue.enqueue(self.now, pkt).err();
            self.books.on_host_emit(l3, data, refused.as_ref().map(|r| r.cause));
            if let Some(r) = refused {
                // Full IFQ: pure ACKs and SYNs are dropped and counted (spec 06
                // §5.2, CHOICE). Data only gets here past fq's horizon, since
                // poll_transmit respects the room: a local drop that TCP
                // recovers as a loss.
                self.sockets[s as usize].tsq_release(r.pkt.l2_bytes());
            }
        }
    }

    pub(super) fn arm_socket_timer(&mut self, s: u32) {
        if let Some(d) = self.sockets[s as usize].next_deadline() {
            let d = d.max(self.now);
            let at = &mut self.socket_timer_at[s as usize];
            if at.is_none_or(|t| t > d) {
                *at = Some(d);
                self.events.push(d, Event::SocketTimer(s));
            }
        }
    }

    fn on_socket_timer(&mut self, s: u32) {
        if self.socket_timer_at[s as usize] != Some(self.now) {
            return; // superseded by an earlier event
        }
        self.socket_timer_at[s as usize] = None;
        self.trace_catch_up(s);
        let mut out = std::mem::take(&mut self.out);
        self.sockets[s as usize].on_timer(self.now, &mut out);
        self.emit(s, &mut out);
        self.out = out;
        self.pump(s);
    }

    fn on_flow_start(&mut self, f: u32) {
        match self.flows[f as usize] {
            FlowEnds::Tcp(tf) => {
                let s = tf.initiator;
                let mut out = std::mem::take(&mut self.out);
                self.sockets[s as usize].open(self.now, &mut out);
                self.emit(s, &mut out);
                self.out = out;
                self.arm_socket_timer(s);
            }
            FlowEnds::Udp(a) => self.on_app_timer(a),
            FlowEnds::Web(wi) => self.arm_web_timer(wi),
        }
    }

    fn on_app_timer(&mut self, a: u32) {
        let app = &mut self.udp[a as usize];
        let Some(mut pkt) = app.fire(self.now) else { return };
        let next = app.next_at;
        let h = app.host;
        let port = self.hosts[h as usize].port;
        self.books.settle_early_drops(self.now);
        let p = &mut self.ports[port as usize];
        let d = p.quickstart(self.now, &mut pkt);
        debug_assert_eq!(d, Span::ZERO, "hosts have no processing stage (spec 02 §2.5.7 CHOICE)");
        let l3 = pkt.l3_bytes as u64;
        // The datagram was emitted either way; a full IFQ drops it (counted).
        let refused = p.queue.enqueue(self.now, pkt).err();
        self.books.on_host_emit(l3, true, refused.map(|r| r.cause));
        self.kick_port(port);
        if let Some(t) = next {
            self.events.push(t, Event::AppTimer(a));
        }
    }

    fn trace_catch_up(&mut self, s: u32) {
        if let Some(ti) = self.socket_trace[s as usize] {
            let tr = &mut self.traces[ti as usize];
            let (a, b) = (&self.sockets[tr.sender as usize], &self.sockets[tr.receiver as usize]);
            tr.catch_up(self.now, a, b, &mut self.tcp_cols);
        }
    }

    fn trace_observe(&mut self, s: u32) {
        if let Some(ti) = self.socket_trace[s as usize] {
            let tr = &mut self.traces[ti as usize];
            let (a, b) = (&self.sockets[tr.sender as usize], &self.sockets[tr.receiver as usize]);
            tr.observe(self.now, a, b, &mut self.tcp_cols);
        }
    }
}
