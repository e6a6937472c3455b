//! The host driver (spec 06 §5, spec 04 §2.4–2.7): `Hosts` holds every
//! host with its sockets and applications, and the path between them and its
//! egress port; its methods are handed the network (`&mut Net`). Going out, a
//! socket's packets are pumped (`pump`: what the window, the pacer and the
//! qdisc's room allow), handed to a core if the host has a CPU model
//! (`sim::cpu`), and put into the host qdisc (`enqueue_host_packets`), whose
//! port then transmits (`sim::port`, through the NIC pipeline of `sim::nic`
//! when the host has one). Coming in, a frame ends at `host_receive` (after
//! the NIC and CPU when modelled), which hands it to its socket and the
//! application above. TSQ budget returns to a socket when its frame leaves
//! the qdisc (`on_host_dequeue`).

use super::port::Sent;
use crate::apps::request_response::RequestResponse;
use crate::apps::udp_cbr::UdpCbr;
use crate::monitor::tcp_trace::{ConnTrace, TcpColumns};
use super::network::Net;
use crate::host::qdisc::ipg::gap::frame_bytes;
use crate::apps::request_response::ServerAction;
use crate::engine::event_queue::Event;
use crate::engine::time::{SimTime, Span};
use crate::host::cpu::HostCpu;
use crate::host::nic::HostNic;
use crate::host::tcp::config::Pacing;
use crate::host::tcp::sender::SndLim;
use crate::host::tcp::socket::TcpSocket;
use crate::monitor::busy_idle::BusyIdle;
use crate::monitor::host_io::HostIo;
use crate::net::packet::{FlowId, NodeId, Packet, PacketKind};
use crate::net::queue::{FlowSnapshot, FlowView};

/// The host driver: every host of the run with its sockets, flows and
/// applications. Its methods are handed the network (`Net`) they send into.
pub struct Hosts {
    pub nodes: Vec<Host>,
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
    pub traces: Vec<ConnTrace>,
    /// Trace index per socket (sender endpoints only).
    pub socket_trace: Vec<Option<u32>>,
    pub tcp_cols: TcpColumns,
    /// Application flags per socket at CPU hosts (`sim::cpu::APP_*`).
    pub cpu_app: Vec<u8>,
    /// Scratch buffer for packets produced by a socket (reused, no allocation).
    pub(super) out: Vec<Packet>,
}

impl Default for Hosts {
    fn default() -> Hosts {
        Hosts {
            nodes: Vec::new(),
            sockets: Vec::new(),
            socket_timer_at: Vec::new(),
            socket_host: Vec::new(),
            flows: Vec::new(),
            flow_names: Vec::new(),
            udp: Vec::new(),
            rr_apps: Vec::new(),
            web: Vec::new(),
            udp_delivered: Vec::new(),
            traces: Vec::new(),
            socket_trace: Vec::new(),
            tcp_cols: TcpColumns::default(),
            cpu_app: Vec::new(),
            out: Vec::with_capacity(64),
        }
    }
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

impl Hosts {
    /// The transmit step of host `h`'s port `port` (spec 06 §5.2): through
    /// the NIC pipeline when the host has one (`sim::nic`, spec 04 §2.4),
    /// otherwise straight from the host qdisc, which sees the host's sockets
    /// (`SocketView`). A frame that leaves returns its TSQ budget and lets
    /// stalled sockets retry.
    pub(super) fn kick_host_port(&mut self, net: &mut Net, h: u32, port: u32) {
        let now = net.now;
        let has_nic = self.nodes[h as usize].nic.is_some();
        if has_nic {
            // spec 04 §2.4 rule 3: TX completion, the driver and the TX DMA.
            self.nic_tx_advance(net, h, port);
        }
        if !net.port_may_start(port) {
            return;
        }
        if has_nic {
            self.nic_mac_start(net, h, port);
            return;
        }
        let p = &net.ports[port as usize];
        if let Some(m) = p.monitor {
            net.monitors[m as usize].advance(now, p.queue.stats());
        }
        if self.nodes[h as usize].io.due(now) {
            let written = host_written(&self.sockets, &self.socket_host, h);
            self.nodes[h as usize].io.advance(now, written);
        }
        let p = &mut net.ports[port as usize];
        let polled = p.queue.dequeue(now, &SocketView { sockets: &self.sockets, flows: &self.flows, line_rate_bps: p.rate_bps });
        match net.transmit(port, polled) {
            Sent::Frame(pkt, tx) => {
                self.on_host_launch(net, h, &pkt, tx);
                self.on_host_dequeue(net, h, &pkt);
            }
            Sent::Gap { wire_bytes, frames } => {
                let ipg = net.ports[port as usize].ipg_bytes;
                self.nodes[h as usize].io.on_gap(frame_bytes(wire_bytes, frames, ipg), wire_bytes, frames);
            }
            Sent::Nothing => {}
        }
    }

    /// A frame that takes `tx` on the line started on host `h`'s wire: its
    /// I/O counters and burstiness diagnostic.
    #[inline(always)]
    pub(super) fn on_host_launch(&mut self, net: &mut Net, h: u32, pkt: &Packet, tx: Span) {
        let host = &mut self.nodes[h as usize];
        host.io.on_real(pkt.l2_bytes());
        if let Some(b) = host.busy.as_mut().filter(|_| pkt.is_data()) {
            b.on_data_frame(net.now, pkt.payload_bytes(), tx);
        }
    }

    /// A host NIC took a frame from the qdisc: release TSQ budget and retry
    /// stalled sockets (spec 06 §2.8).
    pub(super) fn on_host_dequeue(&mut self, net: &mut Net, h: u32, pkt: &Packet) {
        self.tsq_release(pkt);
        self.restart_stalled(net, h);
    }

    /// The frame left the qdisc: its TSQ budget returns to its socket.
    pub(super) fn tsq_release(&mut self, pkt: &Packet) {
        if let Some(s) = self.packet_socket(pkt, false) {
            self.sockets[s as usize].tsq_release(pkt.l2_bytes());
        }
    }

    /// The qdisc has room again: sockets that stalled on it retry.
    pub(super) fn restart_stalled(&mut self, net: &mut Net, h: u32) {
        if !self.nodes[h as usize].stalled.is_empty() {
            let stalled = std::mem::take(&mut self.nodes[h as usize].stalled);
            for s in stalled.iter().copied() {
                self.pump(net, s);
            }
            // Reuse the allocation when nothing re-stalled in between.
            let host = &mut self.nodes[h as usize];
            if host.stalled.is_empty() {
                let mut v = stalled;
                v.clear();
                host.stalled = v;
            }
        }
    }

    pub(super) fn host_receive(&mut self, net: &mut Net, _h: u32, pkt: Packet) {
        match pkt.kind {
            PacketKind::Pause => debug_assert!(false, "PAUSE frames end at the MAC"),
            PacketKind::Udp => {
                let d = &mut self.udp_delivered[pkt.flow as usize];
                d.0 += pkt.payload_bytes();
                d.1 += 1;
            }
            PacketKind::Tcp => {
                let Some(s) = self.packet_socket(&pkt, true) else { return };
                self.trace_catch_up(net, s);
                let mut out = std::mem::take(&mut self.out);
                self.sockets[s as usize].on_packet(net.now, &pkt, &mut out);
                self.emit(net, s, &mut out);
                self.out = out;
                if pkt.tcp.payload > 0 {
                    // The application on top sees the delivery (spec 02 §3.1, §3.2).
                    match self.flows[pkt.flow as usize] {
                        FlowEnds::Tcp(TcpFlow { app: Some(a), .. }) => self.on_app_delivery(net, a),
                        FlowEnds::Web(wi) => self.on_web_delivery(net, wi, pkt.tcp.conn),
                        _ => {}
                    }
                }
                self.pump(net, s);
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
    pub(super) fn on_app_delivery(&mut self, net: &mut Net, a: u32) {
        let app = &mut self.rr_apps[a as usize];
        let (c, sv) = (app.client as usize, app.server as usize);
        let action = app.on_delivery(net.now, self.sockets[sv].rcv.rcv_nxt, self.sockets[c].rcv.rcv_nxt);
        if let ServerAction::Respond(total) = action {
            self.sockets[sv].snd.app_set_total(net.now, total);
            self.pump(net, sv as u32);
        }
    }

    /// Let socket `s` send what it may, then queue its packets and arm its timer.
    pub fn pump(&mut self, net: &mut Net, s: u32) {
        let h = self.socket_host[s as usize];
        let host = &self.nodes[h as usize];
        let a = self.sockets[s as usize].addr;
        // Packets a core is still building take qdisc room too (spec 04 §2.7).
        let held = host.cpu.as_ref().map_or(0, |c| c.held_packets());
        let room = net.ports[host.port as usize].queue.room_packets(a.flow, a.dir).saturating_sub(held);
        let mut out = std::mem::take(&mut self.out);
        let lim = self.sockets[s as usize].poll_transmit(net.now, room, &mut out);
        self.emit(net, s, &mut out);
        self.out = out;
        if lim == SndLim::Stall {
            let st = &mut self.nodes[h as usize].stalled;
            if !st.contains(&s) {
                st.push(s);
            }
        }
        self.arm_socket_timer(net, s);
        self.trace_observe(net, s);
    }

    /// Queue a socket's packets at its host's qdisc and start the NIC.
    pub(super) fn emit(&mut self, net: &mut Net, s: u32, out: &mut Vec<Packet>) {
        if out.is_empty() {
            return;
        }
        let h = self.socket_host[s as usize];
        if self.nodes[h as usize].cpu.is_some() {
            // A core builds them first (spec 04 §2.7 rules 1, 3).
            self.cpu_hold(net, h, s, out);
            return;
        }
        self.enqueue_host_packets(net, s, out);
        let port = self.nodes[h as usize].port;
        self.kick_host_port(net, h, port);
    }

    /// Put a socket's packets into its host's qdisc (no kick).
    pub(super) fn enqueue_host_packets(&mut self, net: &mut Net, s: u32, out: &mut Vec<Packet>) {
        let h = self.socket_host[s as usize];
        let port = self.nodes[h as usize].port;
        net.books.settle_early_drops(net.now);
        for mut pkt in out.drain(..) {
            let p = &mut net.ports[port as usize];
            let d = p.quickstart(net.now, &mut pkt);
            debug_assert_eq!(d, Span::ZERO, "hosts have no processing stage (spec 02 §2.5.7 CHOICE)");
            let l3 = pkt.l3_bytes as u64;
            let data = pkt.is_data();
            let refused = p.queue.enqueue(net.now, pkt).err();
            net.books.on_host_emit(l3, data, refused.as_ref().map(|r| r.cause));
            if let Some(r) = refused {
                // Full IFQ: pure ACKs and SYNs are dropped and counted (spec 06
                // §5.2, CHOICE). Data only gets here past fq's horizon, since
                // poll_transmit respects the room: a local drop that TCP
                // recovers as a loss.
                self.sockets[s as usize].tsq_release(r.pkt.l2_bytes());
            }
        }
    }

    pub(super) fn arm_socket_timer(&mut self, net: &mut Net, s: u32) {
        if let Some(d) = self.sockets[s as usize].next_deadline() {
            let d = d.max(net.now);
            let at = &mut self.socket_timer_at[s as usize];
            if at.is_none_or(|t| t > d) {
                *at = Some(d);
                net.events.push(d, Event::SocketTimer(s));
            }
        }
    }

    pub(super) fn on_socket_timer(&mut self, net: &mut Net, s: u32) {
        if self.socket_timer_at[s as usize] != Some(net.now) {
            return; // superseded by an earlier event
        }
        self.socket_timer_at[s as usize] = None;
        self.trace_catch_up(net, s);
        let mut out = std::mem::take(&mut self.out);
        self.sockets[s as usize].on_timer(net.now, &mut out);
        self.emit(net, s, &mut out);
        self.out = out;
        self.pump(net, s);
    }

    pub(super) fn on_flow_start(&mut self, net: &mut Net, f: u32) {
        match self.flows[f as usize] {
            FlowEnds::Tcp(tf) => {
                let s = tf.initiator;
                let mut out = std::mem::take(&mut self.out);
                self.sockets[s as usize].open(net.now, &mut out);
                self.emit(net, s, &mut out);
                self.out = out;
                self.arm_socket_timer(net, s);
            }
            FlowEnds::Udp(a) => self.on_app_timer(net, a),
            FlowEnds::Web(wi) => self.arm_web_timer(net, wi),
        }
    }

    pub(super) fn on_app_timer(&mut self, net: &mut Net, a: u32) {
        let app = &mut self.udp[a as usize];
        let Some(mut pkt) = app.fire(net.now) else { return };
        let next = app.next_at;
        let h = app.host;
        let port = self.nodes[h as usize].port;
        net.books.settle_early_drops(net.now);
        let p = &mut net.ports[port as usize];
        let d = p.quickstart(net.now, &mut pkt);
        debug_assert_eq!(d, Span::ZERO, "hosts have no processing stage (spec 02 §2.5.7 CHOICE)");
        let l3 = pkt.l3_bytes as u64;
        // The datagram was emitted either way; a full IFQ drops it (counted).
        let refused = p.queue.enqueue(net.now, pkt).err();
        net.books.on_host_emit(l3, true, refused.map(|r| r.cause));
        self.kick_host_port(net, h, port);
        if let Some(t) = next {
            net.events.push(t, Event::AppTimer(a));
        }
    }

    pub(super) fn trace_catch_up(&mut self, net: &mut Net, s: u32) {
        if let Some(ti) = self.socket_trace[s as usize] {
            let tr = &mut self.traces[ti as usize];
            let (a, b) = (&self.sockets[tr.sender as usize], &self.sockets[tr.receiver as usize]);
            tr.catch_up(net.now, a, b, &mut self.tcp_cols);
        }
    }

    pub(super) fn trace_observe(&mut self, net: &mut Net, s: u32) {
        if let Some(ti) = self.socket_trace[s as usize] {
            let tr = &mut self.traces[ti as usize];
            let (a, b) = (&self.sockets[tr.sender as usize], &self.sockets[tr.receiver as usize]);
            tr.observe(net.now, a, b, &mut self.tcp_cols);
        }
    }
}
