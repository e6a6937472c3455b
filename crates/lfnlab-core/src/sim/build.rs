//! From a resolved scenario to a world, in short stages (`build_with`):
//! links (channels, loss models, egress ports), routes, nodes, PAUSE
//! generators, switches, flows (sockets and applications), monitors,
//! captures, then the fast paths that change no result.

use std::collections::HashMap;

use super::host::{FlowEnds, Host, TcpFlow};
use super::world::{NodeRole, Port, PortQueue, World};
use crate::net::link::Loss;
use crate::apps::udp_cbr::{UdpCbr, UdpQs};
use crate::engine::event_queue::Event;
use crate::engine::rng::Stream;
use crate::host::cpu::HostCpu;
use crate::net::link::gilbert::{GilbertConfig, GilbertElliott};
use crate::net::link::impair::{Impair, ImpairConfig};
use crate::engine::time::{SimTime, Span};
use crate::error::Error;
use crate::host::cc;
use crate::host::tcp::config::SsthreshBasis;
use crate::host::tcp::socket::{Addr, TcpSocket};
use crate::monitor::busy_idle::BusyIdle;
use crate::monitor::host_io::HostIo;
use crate::monitor::link_monitor::LinkMonitor;
use crate::monitor::packet_capture::Capture;
use crate::monitor::pcap::{PcapTap, TapConfig};
use crate::monitor::tcp_trace::ConnTrace;
use crate::net::link::channel::Channel;
use crate::net::packet::{ip_header_bytes, IpFields, NodeId, Packet, PacketKind, TcpHeader};
use crate::net::proc_stage::ProcStage;
use crate::host::nic::HostNic;
use super::nic::PortFc;
use super::switch::SwitchRuntime;
use super::switch_fc::IngressFc;
use crate::quickstart::router::QsRouter;
use crate::host::tcp::socket::QsConn;
use crate::apps::request_response::RequestResponse;
use crate::apps::web::{Catalogue, CatalogueConfig, HttpVariant, WebModel, WebWorkload};
use super::web::{ConnTemplate, WebRuntime};
use crate::host::qdisc::fq::Fq;
use crate::host::qdisc::ipg::IpgQdisc;
use crate::host::qdisc::tcp_nic::TcpNicQdisc;
use crate::net::burst_red::BurstRedQueue;
use crate::net::eager_fifo::EagerFifo;
use crate::net::queue::{Fifo, Qdisc, TailLimit};
use crate::net::routing::RouteTable;
use crate::scenario;
use crate::scenario::model::{FlowKind, LossSpec, QueueSpec, Scenario, TraceMode};
use crate::scenario::{HostConfig, HostQdiscConfig, KindConfig, NodeConfig};

/// Router/emulator ports use the standard 12-byte gap (spec 06 §1.2).
const ROUTER_IPG_BYTES: u32 = 12;
/// Preamble and start-of-frame delimiter on an Ethernet line (spec 06 §1.2).
const PREAMBLE_BYTES: u32 = 8;

fn fifo_for(q: Option<&QueueSpec>) -> Fifo {
    match q {
        Some(q) => Fifo::new(q.limit.map(|b| b.bytes), q.limit_packets),
        None => Fifo::new(None, None),
    }
}

/// How a world is built, beyond what the scenario says.
#[derive(Clone, Copy, Debug)]
pub struct BuildOptions {
    /// Router ports that qualify serve their FIFO eagerly (`net::eager_fifo`):
    /// the same frames at the same times with one event fewer per frame. Off
    /// only to check that claim (`tests/validation_06.rs`).
    pub eager_ports: bool,
    /// Routers forward a frame when it is launched on a link direction into
    /// them, where that cannot change a result (`sim::early`; needs eager ports).
    pub early_channels: bool,
    /// Check every invariant after every event (`sim::invariants`): on in debug
    /// builds, and in release through `sim::run_checked`.
    pub check_invariants: bool,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions { eager_ports: true, early_channels: true, check_invariants: cfg!(debug_assertions) }
    }
}

pub fn build(s: &Scenario) -> Result<World, Error> {
    build_with(s, BuildOptions::default())
}

/// A router port may start each frame on arrival when nothing can change its
/// service after that (issue 9): a plain drop-tail FIFO, at a forwarding node
/// that generates no PAUSE, with no PAUSE to honour, no monitor reading its
/// occupancy over time, no Gilbert–Elliott rate change and no jitter or
/// reordering on its line (whose frames' start must be recoverable).
fn make_eager(w: &mut World, fifo_limit: &[Option<TailLimit>]) {
    for (pi, limit) in fifo_limit.iter().enumerate() {
        let Some(limit) = limit else { continue };
        let p = &w.net.ports[pi];
        let node = p.node as usize;
        let qualifies = w.net.nodes[node] == NodeRole::Forwarder
            && w.net.ingress_fc[node].is_none()
            && p.fc.is_none()
            && p.monitor.is_none()
            && p.capture.is_none()
            && p.bad_rate_bps.is_none()
            && p.host.is_none();
        // The channel's frames are due start + serialization + delay exactly,
        // so their start can be recovered (sim::early::head_start).
        let channel = p.channel as usize;
        let plain_line = w.net.channels[channel].impaired.is_none();
        if qualifies && plain_line {
            w.net.ports[pi].queue = PortQueue::Eager(EagerFifo::new(*limit));
            w.net.eager_feeder[channel] = pi as u32;
        }
    }
}

/// A scenario that is not resolved (`scenario::load_*` fills every field a
/// stage reads): an internal error, not bad input.
fn unresolved(m: String) -> Error {
    Error::Runtime(format!("scenario is not resolved: {m}"))
}

/// The scenario being built and what every stage reads of it.
struct Ctx<'a> {
    s: &'a Scenario,
    /// The scenario's nodes, typed per kind (`scenario::node_config`).
    nodes: Vec<NodeConfig>,
    duration: Span,
    seed: u64,
    index: HashMap<&'a str, usize>,
}

impl<'a> Ctx<'a> {
    fn new(s: &'a Scenario) -> Result<Ctx<'a>, Error> {
        let duration = s.sim.duration.ok_or_else(|| unresolved("sim.duration".into()))?.span;
        let index = scenario::node_index(s);
        let nodes = scenario::node_configs(s).map_err(|e| Error::Runtime(e.to_string()))?;
        Ok(Ctx { s, nodes, duration, seed: s.sim.seed.unwrap_or(1), index })
    }

    /// The host on node `i`.
    fn host(&self, i: usize) -> Result<&HostConfig, Error> {
        self.nodes[i].host().ok_or_else(|| unresolved(format!("node {} is not a host", self.nodes[i].name)))
    }

    fn node_of(&self, name: &str) -> Result<usize, Error> {
        self.index.get(name).copied().ok_or_else(|| unresolved(format!("unknown node {name}")))
    }

    /// Both ends of `a->b`, as node indices.
    fn arrow(&self, what: &str, link: &str) -> Result<(usize, usize), Error> {
        let (x, y) = link.split_once("->").ok_or_else(|| unresolved(format!("{what} link {link}")))?;
        Ok((self.node_of(x)?, self.node_of(y)?))
    }
}

/// What the link stage makes: per link two channels and two egress ports,
/// one per direction (channel 2i from → to, 2i + 1 back).
struct Links {
    /// Per node: (neighbour, egress port) for the route table.
    adj: Vec<Vec<(NodeId, u32)>>,
    ports: Vec<Port>,
    channels: Vec<Channel>,
    /// Per channel: its loss model (forward direction only).
    losses: Vec<Option<Loss>>,
    /// Per node: a host's one port.
    host_port: Vec<Option<u32>>,
    /// (from node, to node) → egress port.
    egress: HashMap<(usize, usize), u32>,
    /// Per port: the limit of its plain drop-tail FIFO, if it has one.
    fifo_limit: Vec<Option<TailLimit>>,
}

/// Build a world from a resolved scenario, stage by stage: links (channels,
/// loss models, egress ports), routes, nodes (hosts, routers, switches), the
/// PAUSE generators, flows (sockets and applications), monitors and
/// captures, then the fast paths that change no result (eager ports, early
/// channels).
pub fn build_with(s: &Scenario, opts: BuildOptions) -> Result<World, Error> {
    let cx = Ctx::new(s)?;
    let mut links = links(&cx)?;
    let forwards: Vec<bool> = cx.nodes.iter().map(|nd| nd.host().is_none()).collect();
    let mut w = World::new(SimTime::ZERO + cx.duration, RouteTable::build(&links.adj, &forwards));
    w.net.channel_monitor = vec![None; links.channels.len()];
    // Channels come in pairs per link: 2i (from → to) and 2i + 1 (to → from);
    // a PAUSE arriving on one acts on the egress that sends on the other.
    w.net.reverse_port = (0..links.channels.len() as u32)
        .map(|c| links.ports.iter().position(|p| p.channel == (c ^ 1)).map_or(u32::MAX, |i| i as u32))
        .collect();
    w.net.channels = std::mem::take(&mut links.channels);
    w.net.losses = std::mem::take(&mut links.losses);
    w.net.node_names = cx.nodes.iter().map(|nd| nd.name.clone()).collect();
    let switch_nodes = nodes(&cx, &mut w, &mut links)?;
    let node_ports = number_ports(&mut w, &links.ports, s.node.len());
    w.net.ingress_fc = pause_generators(&cx, &w, &node_ports, &links.ports)?;
    for &i in &switch_nodes {
        let KindConfig::Switch(sw) = &cx.nodes[i].kind else { return Err(unresolved(format!("node[{i}] is not a switch"))) };
        w.switches.push(SwitchRuntime::build(i, &cx.nodes[i].name, sw, &node_ports[i], &links.ports, &w.net.channels, cx.seed, s.flow.len()));
    }
    w.net.ports = std::mem::take(&mut links.ports);
    flows(&cx, &mut w)?;
    monitors(&cx, &mut w, &links.egress)?;
    captures(&cx, &mut w, &links.egress)?;
    w.net.node_ip_version = cx.nodes.iter().map(|nd| nd.host().map_or(4, |h| h.ip_version)).collect();
    fast_paths(&cx, opts, &mut w, &links.fifo_limit);
    Ok(w)
}

/// Two channels and two egress ports per link, with their loss models and
/// Quick-Start functions.
fn links(cx: &Ctx) -> Result<Links, Error> {
    let (s, seed) = (cx.s, cx.seed);
    let n = s.node.len();
    let mut out = Links {
        adj: vec![Vec::new(); n],
        ports: Vec::new(),
        channels: Vec::new(),
        losses: Vec::new(),
        host_port: vec![None; n],
        egress: HashMap::new(),
        fifo_limit: Vec::new(),
    };
    for (li, l) in s.link.iter().enumerate() {
        let (a, b) = (cx.node_of(&l.from)?, cx.node_of(&l.to)?);
        for (dir, (x, y)) in [(a, b), (b, a)].into_iter().enumerate() {
            let ch = out.channels.len() as u32;
            let rate = l.rate.ok_or_else(|| unresolved(format!("link[{li}].rate")))?;
            let rate_bps = if dir == 0 { rate.bps } else { l.reverse_rate.unwrap_or(rate).bps };
            let mut chan = Channel::new(x as NodeId, y as NodeId, rate_bps, l.delay.span);
            if let Some(im) = l.impair.as_ref().filter(|im| im.jitter.is_some_and(|j| j.ps() > 0) || im.p_reorder.is_some_and(|p| p > 0.0)) {
                let cfg = ImpairConfig {
                    jitter_max: im.jitter.map_or(Span::ZERO, |j| j.span),
                    p_reorder: im.p_reorder.unwrap_or(0.0),
                    reorder_delay: im.reorder_delay.map_or(Span::ZERO, |d| d.span),
                };
                chan.impair(Impair::new(cfg, Stream::derive(seed, &format!("link[{li}].impair.{dir}"))));
            }
            out.channels.push(chan);
            out.losses.push(if dir == 0 { l.loss.as_ref().map(|ls| link_loss(ls, li, seed)) } else { None });
            let nd = &cx.nodes[x];
            let pi = out.ports.len() as u32;
            out.fifo_limit.push(None);
            // spec 02 §2.5.1: the interface's own table, else the node's.
            let qs_key = if dir == 0 { "quickstart" } else { "reverse_quickstart" };
            let qs_spec = if dir == 0 { l.quickstart.as_ref() } else { l.reverse_quickstart.as_ref() };
            let qs = match (qs_spec, nd.quickstart) {
                (Some(q), _) => Some((scenario::router_qs_config(q), format!("link[{li}].{qs_key}"))),
                (None, Some(q)) => Some((q, format!("node[{x}].quickstart->{}", cx.nodes[y].name))),
                (None, None) => None,
            }
            .map(|(q, name)| Box::new(QsRouter::new(q, Stream::derive(seed, &name))));
            let mut port = if let Some(host) = nd.host() {
                out.host_port[x] = Some(pi);
                host_port(nd, host, x, ch, qs)
            } else {
                let q = if dir == 0 { l.queue.as_ref() } else { l.reverse_queue.as_ref() };
                let (qdisc, framing_bytes): (Box<dyn Qdisc>, u32) = match q {
                    // A spec 03 §2.8 segment times frame_len bytes only (§2.2, CHOICE).
                    Some(q) if q.kind == "burst_red" => {
                        let key = if dir == 0 { "queue" } else { "reverse_queue" };
                        let rng = Stream::derive(seed, &format!("link[{li}].{key}"));
                        (Box::new(BurstRedQueue::new(scenario::burst_red_config(q, rate_bps), rng)), 0)
                    }
                    q => {
                        let fifo = fifo_for(q);
                        out.fifo_limit[pi as usize] = Some(fifo.limit());
                        (Box::new(fifo), PREAMBLE_BYTES + ROUTER_IPG_BYTES)
                    }
                };
                router_port(nd, x, ch, rate_bps, qdisc, framing_bytes, qs, &cx.nodes[y].name)
            };
            if let Some(k) = l.loss.as_ref().filter(|_| dir == 0).and_then(|ls| ls.capacity_bad).filter(|k| *k < 1.0) {
                // spec 04 §2.12 κ_B: the circuit's sending side slows while Bad.
                port.bad_rate_bps = Some(((port.rate_bps as f64 * k).round() as u64).max(1));
            }
            out.ports.push(port);
            out.adj[x].push((y as NodeId, pi));
            out.egress.insert((x, y), pi);
        }
    }
    Ok(out)
}

/// A link's loss model (spec 06 §5.4 Bernoulli, spec 04 §2.12 Gilbert–Elliott).
fn link_loss(ls: &LossSpec, li: usize, seed: u64) -> Loss {
    Loss {
        p: ls.p.unwrap_or(0.0),
        ge: (ls.kind == "gilbert_elliott").then(|| {
            let cfg = GilbertConfig {
                mean_good: ls.t_good.map_or(Span::ZERO, |t| t.span),
                mean_bad: ls.t_bad.map_or(Span::ZERO, |t| t.span),
                p_good: ls.p_good.unwrap_or(0.0),
                p_bad: ls.p_bad.unwrap_or(0.0),
            };
            GilbertElliott::new(cfg, Stream::derive(seed, &format!("link[{li}].loss.state")))
        }),
        dropped: 0,
        data_only: ls.applies_to.as_deref() != Some("all"),
        start: SimTime::ZERO + ls.start.map_or(Span::ZERO, |t| t.span),
        stop: ls.stop.map_or(SimTime::NEVER, |t| SimTime::ZERO + t.span),
        rng: Stream::derive(seed, &format!("link[{li}].loss")),
    }
}

/// A host's egress port (its NIC): the host qdisc at the NIC rate.
fn host_port(nd: &NodeConfig, host: &HostConfig, x: usize, ch: u32, qs: Option<Box<QsRouter>>) -> Port {
    let rate_bps = host.nic_rate_bps;
    Port {
        node: x as NodeId,
        channel: ch,
        rate_bps,
        ipg_bytes: host.ipg_bytes,
        framing_bytes: PREAMBLE_BYTES + host.ipg_bytes,
        queue: PortQueue::Disc(host_qdisc(&host.qdisc)),
        busy_until: SimTime::ZERO,
        wake_at: None,
        host: None,
        monitor: None,
        capture: None,
        name: format!("{}:ifq", nd.name),
        qs,
        // Hosts have no processing stage (refused at load, spec 02 §2.5.7 CHOICE).
        proc: None,
        ttl_decrement: 0,
        fc: nd.pause_react_quanta.map(|r| Box::new(PortFc::new(rate_bps, Some(r)))),
        bad_rate_bps: None,
    }
}

/// A router's (or switch's) egress port toward `to`.
#[allow(clippy::too_many_arguments)]
fn router_port(nd: &NodeConfig, x: usize, ch: u32, rate_bps: u64, qdisc: Box<dyn Qdisc>, framing_bytes: u32, qs: Option<Box<QsRouter>>, to: &str) -> Port {
    Port {
        node: x as NodeId,
        channel: ch,
        rate_bps,
        ipg_bytes: ROUTER_IPG_BYTES,
        framing_bytes,
        queue: PortQueue::Disc(qdisc),
        busy_until: SimTime::ZERO,
        wake_at: None,
        host: None,
        monitor: None,
        capture: None,
        name: format!("{}->{}", nd.name, to),
        // spec 02 §2.5.7: a stage only where a cost is configured.
        proc: qs.as_ref().map(|q| q.config().proc).filter(|p| !p.is_zero()).map(|p| Box::new(ProcStage::new(p.discipline))),
        qs,
        ttl_decrement: 1,
        fc: nd.pause_react_quanta.map(|r| Box::new(PortFc::new(rate_bps, Some(r)))),
        bad_rate_bps: None,
    }
}

/// Each node's role: hosts get their I/O counters, NIC pipeline and CPU
/// model; switches are numbered (built once their ports are known). Returns
/// the switch nodes.
fn nodes(cx: &Ctx, w: &mut World, links: &mut Links) -> Result<Vec<usize>, Error> {
    let mut switch_nodes: Vec<usize> = Vec::new();
    for (i, nd) in cx.nodes.iter().enumerate() {
        if let Some(host) = nd.host() {
            let port = links.host_port[i].ok_or_else(|| unresolved(format!("host {} has no link", nd.name)))?;
            let h = w.hosts.nodes.len() as u32;
            links.ports[port as usize].host = Some(h);
            let io = HostIo::new(nd.name.clone(), host.memory);
            let mut nic = host.nic.as_ref().map(|c| Box::new(HostNic::new(c)));
            let cpu = host.cpu.map(|(c, bin)| Box::new(HostCpu::new(c, bin, SimTime::ZERO + cx.duration, Stream::derive(cx.seed, &format!("node[{i}].cpu")))));
            if let (Some(n), Some(_)) = (nic.as_mut(), cpu.as_ref()) {
                // spec 04 §2.7 rule 2: the poll loop frees transmitted frames' descriptors.
                n.tx.reclaim_by_cpu = true;
            }
            w.hosts.nodes.push(Host { node: i as NodeId, port, io, stalled: Vec::new(), busy: None, nic, cpu });
            w.net.nodes.push(NodeRole::Host(h));
        } else if let KindConfig::Switch(_) = nd.kind {
            w.net.nodes.push(NodeRole::Switch(switch_nodes.len() as u32));
            switch_nodes.push(i);
        } else {
            w.net.nodes.push(NodeRole::Forwarder);
        }
    }
    Ok(switch_nodes)
}

/// Number each node's ports (a switch's port number, spec 04 §2.5 a frame's
/// ingress index: its arrival channel's reverse port among its node's
/// ports). Returns each node's ports in order.
fn number_ports(w: &mut World, ports: &[Port], n: usize) -> Vec<Vec<u32>> {
    let mut node_ports: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (pi, p) in ports.iter().enumerate() {
        node_ports[p.node as usize].push(pi as u32);
    }
    w.net.port_local = ports
        .iter()
        .enumerate()
        .map(|(pi, p)| node_ports[p.node as usize].iter().position(|&q| q == pi as u32).unwrap_or(0).min(u8::MAX as usize) as u8)
        .collect();
    w.net.ingress_index = w.net.reverse_port.iter().map(|&rp| w.net.port_local.get(rp as usize).copied().unwrap_or(0)).collect();
    node_ports
}

/// The ingress accounts of each switch or router that generates PAUSE
/// (spec 04 §2.5, `sim::switch_fc`).
fn pause_generators(cx: &Ctx, w: &World, node_ports: &[Vec<u32>], ports: &[Port]) -> Result<Vec<Option<Box<IngressFc>>>, Error> {
    let fc: Vec<Option<Box<IngressFc>>> = cx
        .nodes
        .iter()
        .enumerate()
        .map(|(i, nd)| {
            let pause = nd.pause_generation()?;
            let (cfg, peers) = (pause.xoff, &pause.peers);
            let generates = |p: &Port| peers.iter().any(|name| cx.index.get(name.as_str()) == Some(&(w.net.channels[p.channel as usize].to as usize)));
            let accounts: Vec<(u32, u64, bool)> = node_ports[i].iter().map(|&p| (p, ports[p as usize].rate_bps, generates(&ports[p as usize]))).collect();
            Some(Box::new(IngressFc::new(cfg, &accounts)))
        })
        .collect();
    if let Some(i) = (0..fc.len()).find(|&i| fc[i].is_some() && node_ports[i].len() > u8::MAX as usize + 1) {
        return Err(unresolved(format!("node {} generates PAUSE per ingress port but has more than 256 ports", cx.nodes[i].name)));
    }
    Ok(fc)
}

/// The host of flow end `node`.
fn host_of(cx: &Ctx, w: &World, node: usize) -> Result<u32, Error> {
    match w.net.nodes[node] {
        NodeRole::Host(h) => Ok(h),
        _ => Err(unresolved(format!("flow end {} is not a host", cx.nodes[node].name))),
    }
}

/// Every flow's endpoints and application, and its start event.
fn flows(cx: &Ctx, w: &mut World) -> Result<(), Error> {
    let s = cx.s;
    w.hosts.flow_names = s.flow.iter().map(|f| f.name.clone()).collect();
    w.hosts.tcp_cols.flow_names = w.hosts.flow_names.clone();
    w.hosts.udp_delivered = vec![(0, 0); s.flow.len()];
    for (fi, f) in s.flow.iter().enumerate() {
        let (a, b) = (cx.node_of(&f.from)?, cx.node_of(&f.to)?);
        let (ha, hb) = (host_of(cx, w, a)?, host_of(cx, w, b)?);
        let start = SimTime::ZERO + f.start.map_or(Span::ZERO, |t| t.span);
        match f.kind {
            FlowKind::TcpBulk | FlowKind::RequestResponse => tcp_flow(cx, w, fi, (a, b), (ha, hb), start)?,
            FlowKind::Web => web_flow(cx, w, fi, (a, b), (ha, hb), start)?,
            FlowKind::UdpCbr => udp_flow(cx, w, fi, (a, b), ha, start)?,
        }
        w.net.events.push(start, Event::FlowStart(fi as u32));
    }
    Ok(())
}

/// A `tcp_bulk` or `request_response` flow: two sockets, the application on
/// them, Quick-Start, its trace and its host's burstiness diagnostic.
fn tcp_flow(cx: &Ctx, w: &mut World, fi: usize, (a, b): (usize, usize), (ha, hb): (u32, u32), start: SimTime) -> Result<(), Error> {
    let (s, f) = (cx.s, &cx.s.flow[fi]);
    let rr = f.kind == FlowKind::RequestResponse;
    let cfg = scenario::tcp_config(s, fi);
    let (cc_name, params, basis) = flow_cc(s, fi, &cfg)?;
    let seed = Stream::derive(cx.seed, &format!("flow[{fi}].cc")).next_u64();
    let cc_i = cc::create(&cc_name, &params, &cc::CreateCtx { basis, seed }).ok_or_else(|| unresolved(format!("congestion control {cc_name}")))?;
    let cc_a = cc::create(&cc_name, &params, &cc::CreateCtx { basis, seed: seed.rotate_left(1) }).ok_or_else(|| unresolved(format!("congestion control {cc_name}")))?;
    let mut init = TcpSocket::new(socket_addr(cx.host(a)?, fi, a, b, 0), &cfg, cc_i);
    let mut acc = TcpSocket::new(socket_addr(cx.host(b)?, fi, b, a, 1), &cfg, cc_a);
    let si = w.hosts.sockets.len() as u32;
    let app = if rr {
        // spec 02 §3.1: the client writes its request; the server answers once it has it all.
        let req = f.request.map_or(100, |b| b.bytes);
        init.snd.app.set(Some(req), None, false);
        acc.snd.app.set(Some(0), None, false);
        w.hosts.rr_apps.push(RequestResponse::new(si, si + 1, req, f.response.map(|b| b.bytes)));
        Some(w.hosts.rr_apps.len() as u32 - 1)
    } else {
        init.snd.app.set(f.bytes.map(|b| b.bytes), f.app_rate.map(|r| r.bps), false);
        acc.snd.app.set(Some(0), None, false);
        None
    };
    if let Some(q) = &f.quickstart {
        // spec 02 §2.3–2.4: the data sender asks, both ends echo. The tick
        // phase and the Quick-Start stream derive from the flow's cc seed.
        let qcfg = scenario::flow_qs_config(q);
        let phase = host_tick_phase(seed, if rr { hb } else { ha }, qcfg.hz);
        let rng = Stream::derive(seed, &format!("flow[{fi}].quickstart"));
        let (data, other) = if rr { (&mut acc, &mut init) } else { (&mut init, &mut acc) };
        QsConn::attach(data, other, &qcfg, phase, rng);
    }
    let trace = s.sim.trace.clone().unwrap_or_default();
    let trace_mode = trace.mode.unwrap_or(TraceMode::Bin);
    let trace_idx = if trace_mode == TraceMode::Off {
        None
    } else {
        let bin = if trace_mode == TraceMode::Bin { Some(trace.bin.map_or(Span::from_ms(10), |b| b.span)) } else { None };
        // The trace follows the data: server → client for request_response.
        let (snd, rcv) = if rr { (si + 1, si) } else { (si, si + 1) };
        w.hosts.traces.push(ConnTrace::new(fi as u32, snd, rcv, bin, SimTime::ZERO));
        Some(w.hosts.traces.len() as u32 - 1)
    };
    // spec 04 §2.7 rules 3–4: at a host with a CPU model the
    // application's write() and read() calls move the data.
    if w.hosts.nodes[ha as usize].cpu.is_some() {
        init.snd.app.set_external_writer();
    }
    for (sock, h) in [(&mut init, ha), (&mut acc, hb)] {
        if w.hosts.nodes[h as usize].cpu.is_some() {
            sock.rcv.enable_reader();
        }
    }
    w.hosts.push_socket_pair(init, acc, (ha, hb), trace_idx);
    w.hosts.flows.push(FlowEnds::Tcp(TcpFlow { initiator: si, acceptor: si + 1, start, app }));
    // spec 03 §2.1: a sending host's burstiness in windows of its first flow's
    // base RTT, at least MIN_WINDOW.
    let rtt = propagation_rtt(w, a as NodeId, b as NodeId);
    let (data_node, data_host) = if rr { (b, hb) } else { (a, ha) };
    let host = &mut w.hosts.nodes[data_host as usize];
    if trace_mode != TraceMode::Off && host.busy.is_none() && rtt > Span::ZERO {
        let rate = w.net.ports[host.port as usize].rate_bps;
        host.busy = Some(BusyIdle::new(cx.nodes[data_node].name.clone(), rtt.max(crate::monitor::busy_idle::MIN_WINDOW), rate));
    }
    Ok(())
}

/// A `web` flow (spec 02 §3.2): users on `from` (a), the server on `to` (b);
/// its connections open as the workload asks (`sim::web`).
fn web_flow(cx: &Ctx, w: &mut World, fi: usize, (a, b): (usize, usize), (ha, hb): (u32, u32), start: SimTime) -> Result<(), Error> {
    let (s, f, seed) = (cx.s, &cx.s.flow[fi], cx.seed);
    let cfg = scenario::tcp_config(s, fi);
    let (cc_name, cc_params, basis) = flow_cc(s, fi, &cfg)?;
    let model: WebModel = f.web_model.as_deref().unwrap_or("surge_default").parse().map_err(|m: String| unresolved(format!("flow[{fi}].web_model: {m}")))?;
    let variant: HttpVariant = f.http.as_deref().unwrap_or("http10").parse().map_err(|m: String| unresolved(format!("flow[{fi}].http: {m}")))?;
    let catalogue = Catalogue::build(&CatalogueConfig::for_model(model), &mut Stream::derive(seed, &format!("flow[{fi}].web.catalogue")));
    let workload = WebWorkload::new(
        variant,
        catalogue,
        f.users.unwrap_or(1),
        start,
        Stream::derive(seed, &format!("flow[{fi}].web.pick")),
        Stream::derive(seed, &format!("flow[{fi}].web.think")),
    );
    let qs = f.quickstart.as_ref().map(|q| {
        let qcfg = scenario::flow_qs_config(q);
        let phase = host_tick_phase(seed, hb, qcfg.hz);
        (qcfg, phase)
    });
    let template = ConnTemplate {
        flow: fi as u32,
        cfg,
        cc_name,
        cc_params,
        basis,
        client: socket_addr(cx.host(a)?, fi, a, b, 0),
        server: socket_addr(cx.host(b)?, fi, b, a, 1),
        client_host: ha,
        server_host: hb,
        qs,
        seed,
    };
    let wi = w.hosts.web.len() as u32;
    w.hosts.web.push(WebRuntime { workload, template, sockets: Vec::new(), timer_at: None, actions: Vec::new() });
    w.hosts.flows.push(FlowEnds::Web(wi));
    Ok(())
}

/// A `udp_cbr` flow: its source on host `ha`.
fn udp_flow(cx: &Ctx, w: &mut World, fi: usize, (a, b): (usize, usize), ha: u32, start: SimTime) -> Result<(), Error> {
    let (f, seed) = (&cx.s.flow[fi], cx.seed);
    let rate = f.rate.ok_or_else(|| unresolved(format!("flow[{fi}].rate")))?.bps;
    let stop = SimTime::ZERO + f.stop.map_or(cx.duration, |t| t.span);
    let template = Packet {
        flow: fi as u32,
        src: a as NodeId,
        dst: b as NodeId,
        kind: PacketKind::Udp,
        dir: 0,
        l3_bytes: f.size.unwrap_or(1500),
        ip: IpFields { ttl: cx.host(a)?.ip_ttl, ..IpFields::default() },
        tcp: TcpHeader::default(),
        tstamp: SimTime::ZERO,
        ingress: 0,
    };
    let ai = w.hosts.udp.len() as u32;
    let mut app = UdpCbr::new(ha, template, rate, start, stop);
    app.qs = f.qs_requests.as_ref().map(|q| UdpQs {
        share: q.share.unwrap_or(0.0),
        rate_code: q.rate_code.unwrap_or(7),
        rng: Stream::derive(seed, &format!("flow[{fi}].qs_requests")),
        sent: 0,
    });
    if f.arrivals.as_deref() == Some("poisson") {
        app.poisson = Some(Stream::derive(seed, &format!("flow[{fi}].arrivals")));
    }
    w.hosts.udp.push(app);
    w.hosts.flows.push(FlowEnds::Udp(ai));
    Ok(())
}

/// `[[monitor]]`: a link monitor on an egress port (and its channel, at the
/// ingress point).
fn monitors(cx: &Ctx, w: &mut World, egress: &HashMap<(usize, usize), u32>) -> Result<(), Error> {
    for m in &cx.s.monitor {
        let (x, y) = cx.arrow("monitor", &m.link)?;
        let port = *egress.get(&(x, y)).ok_or_else(|| unresolved(format!("monitor link {}", m.link)))?;
        let mi = w.net.monitors.len() as u32;
        let ingress = m.point.as_deref() == Some("ingress");
        let capture = Capture::new(m.capture_packets.unwrap_or(0), SimTime::ZERO + m.capture_from.map_or(Span::ZERO, |t| t.span));
        w.net.monitors.push(LinkMonitor::new(m.link.clone(), port, m.bin.span, cx.s.flow.len(), capture, ingress));
        w.net.ports[port as usize].monitor = Some(mi);
        if ingress {
            let ch = w.net.ports[port as usize].channel;
            w.net.channel_monitor[ch as usize] = Some(mi);
        }
    }
    Ok(())
}

/// `[[capture]]`: a pcap tap on the egress ports of one or both directions.
fn captures(cx: &Ctx, w: &mut World, egress: &HashMap<(usize, usize), u32>) -> Result<(), Error> {
    let s = cx.s;
    for (ci, c) in s.capture.iter().enumerate() {
        let (x, y) = cx.arrow("capture", &c.link)?;
        let mut dirs = vec![(x, y)];
        if c.direction.as_deref() != Some("forward") {
            dirs.push((y, x));
        }
        let flows = c.flows.as_ref().map(|names| s.flow.iter().map(|f| names.contains(&f.name)).collect());
        let cfg = TapConfig {
            name: c.name.clone().unwrap_or_else(|| format!("capture-{ci}")),
            from: SimTime::ZERO + c.from.map_or(Span::ZERO, |t| t.span),
            until: SimTime::ZERO + c.until.map_or(cx.duration, |t| t.span),
            flows,
            snaplen_bytes: c.snaplen.map_or(crate::scenario::monitor::capture::DEFAULT_SNAPLEN_BYTES, |b| b.bytes) as u32,
            max_frames: c.max_frames.unwrap_or(crate::scenario::monitor::capture::DEFAULT_MAX_FRAMES),
        };
        let tap = w.net.taps.len() as u32;
        w.net.taps.push(PcapTap::new(cfg));
        for (a, b) in dirs {
            let port = *egress.get(&(a, b)).ok_or_else(|| unresolved(format!("capture link {}", c.link)))?;
            w.net.ports[port as usize].capture = Some(tap);
        }
    }
    Ok(())
}

/// The fast paths that change no result (issue 9): eager router ports and
/// early channels (`sim::early`), as `opts` allows; and the invariant checks.
fn fast_paths(cx: &Ctx, opts: BuildOptions, w: &mut World, fifo_limit: &[Option<TailLimit>]) {
    w.net.eager_feeder = vec![u32::MAX; w.net.channels.len()];
    w.check_invariants = opts.check_invariants;
    if opts.eager_ports {
        make_eager(w, fifo_limit);
    }
    w.net.early = vec![false; w.net.channels.len()];
    if opts.eager_ports && opts.early_channels {
        let hosts: Vec<NodeId> = (0..cx.nodes.len()).filter(|&i| cx.nodes[i].host().is_some()).map(|i| i as NodeId).collect();
        super::early::mark_early_channels(w, &hosts);
    }
}

/// A TCP flow's congestion control: name, resolved parameters and the basis
/// of Reno-style halving (spec 06 §2.1 `ssthresh_basis`, §4.4).
fn flow_cc(s: &Scenario, fi: usize, cfg: &crate::host::tcp::config::TcpConfig) -> Result<(String, cc::params::CcParams, cc::reno::Basis), Error> {
    let bad = |m: String| Error::Runtime(format!("scenario is not resolved: {m}"));
    let f = &s.flow[fi];
    let name = f.cc.clone().ok_or_else(|| bad(format!("flow[{fi}].cc")))?;
    let basis = match cfg.ssthresh_basis {
        SsthreshBasis::Cwnd => cc::reno::Basis::Cwnd,
        SsthreshBasis::FlightSize => cc::reno::Basis::FlightSize,
    };
    let profile = f.profile.as_deref().unwrap_or(scenario::DEFAULT_PROFILE);
    let given = f.cc_params.as_ref().map(scenario::cc_params_from_table).unwrap_or_default();
    let params = cc::resolve_params(&name, profile, &given).map_err(|e| bad(format!("flow[{fi}].cc_params.{}: {}", e.key, e.message)))?;
    Ok((name, params, basis))
}

/// The addressing of flow `fi`'s endpoint on node `local`, host `host`
/// (connection 0).
fn socket_addr(host: &HostConfig, fi: usize, local: usize, remote: usize, dir: u8) -> Addr {
    Addr {
        flow: fi as u32,
        dir,
        local: local as NodeId,
        remote: remote as NodeId,
        ip_header_bytes: ip_header_bytes(host.ip_version),
        mtu: host.mtu_bytes,
        ip_ttl: host.ip_ttl,
        conn: 0,
    }
}

/// A host's tick-clock phase for Quick-Start pacing timers at `hz`: one
/// uniform draw per host (spec 02 §2.3.7), the same for all its connections.
fn host_tick_phase(seed: u64, host: u32, hz: u32) -> Span {
    let u = Stream::derive(seed, &format!("host[{host}].qs_tick")).next_f64();
    Span((u * (crate::engine::time::PS_PER_S / hz.max(1) as u64) as f64) as u64)
}

/// Twice the one-way propagation delay along the route from `from` to `to`
/// (links have the same delay both ways); zero if there is no route.
fn propagation_rtt(w: &World, from: NodeId, to: NodeId) -> Span {
    super::path::route(w, from, to).map_or(Span::ZERO, |r| r.one_way + r.one_way)
}

/// A host's qdisc (spec 06 §5.3): `pfifo`, `fq`, `ipg` (spec 01) or
/// `tcp_nic` (spec 03 §2.6).
fn host_qdisc(q: &HostQdiscConfig) -> Box<dyn Qdisc> {
    match q {
        HostQdiscConfig::Pfifo { limit_packets } => Box::new(Fifo::host_ifq(*limit_packets)),
        HostQdiscConfig::Fq(c) => Box::new(Fq::new(*c)),
        HostQdiscConfig::Ipg(c) => Box::new(IpgQdisc::new((**c).clone())),
        HostQdiscConfig::TcpNic(c) => Box::new(TcpNicQdisc::new(*c)),
    }
}
