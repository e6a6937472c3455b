//! The spec 05 generator bench, run directly (docs/switches.md "Bench runs",
//! CHOICE): CBR generators on their own links into one switch, whose outputs
//! end at hosts. The scenario is built like any other (`build::build`: the
//! same switch core, seeds, generators and monitors); only the event loop is
//! replaced. A CBR generator's frames are known in advance (spec 05 §2.5), so
//! the loop hands the switch every frame that arrives in the next slice of
//! time and takes the switch's one step through the slice
//! (`SwitchRuntime::accept`, `step`: the driver the event loop uses), and its
//! `Receivers` book what left. Results do not depend on how far each step
//! runs the core (its `advance` contract), so the
//! flows table is the one `sim::run` writes: `gen_bench_tests` checks this
//! byte for byte for every named configuration.
//!
//! A scenario of any other shape is refused with the reason; run it with
//! `sim::run`.

use super::network::Net;
use super::switch::{summary as switch_summary, SwitchOutputs};
use crate::net::switch::core::Departure;
use super::world::{NodeRole, World};
use crate::engine::time::{SimTime, Span};
use crate::error::Error;
use crate::monitor::link_monitor::{FlowsColumns, QueuesColumns};
use crate::net::packet::Packet;
use crate::net::routing::NO_ROUTE;
use crate::results::summary::SwitchSummary;
use crate::results::table::Table;
use crate::scenario::model::{FlowKind, NodeKind, Scenario};
use serde::Serialize;

/// How far the loop runs the switch core at a time. Results do not depend on
/// it; it bounds the frames waiting between the generators and the core.
const SLICE: Span = Span(100_000_000); // 100 µs

/// What a bench run produces: its summary and the `flows` table of `sim::run`.
#[derive(Clone, Debug)]
pub struct BenchOutput {
    pub summary: BenchSummary,
    pub flows: Table,
}

impl BenchOutput {
    /// The summary as JSON text.
    pub fn summary_json(&self) -> Result<String, Error> {
        serde_json::to_string_pretty(&self.summary).map_err(|e| Error::Runtime(format!("bench summary: {e}")))
    }
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct BenchSummary {
    pub scenario: String,
    pub seed: u64,
    pub duration_s: f64,
    /// Wall-clock seconds of the run: the one field that differs between two runs.
    pub wall_seconds: f64,
    pub flows: Vec<BenchFlow>,
    pub switch: SwitchSummary,
    pub conservation: BenchBooks,
}

/// One generator's frames (spec 05 §2.6 counts).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct BenchFlow {
    pub name: String,
    /// Frames the generator emitted.
    pub sent: u64,
    /// Frames whose last bit reached the receiving host by the end.
    pub delivered: u64,
    /// Their UDP payload bytes (`bytes_delivered` of `summary.json`).
    pub bytes_delivered: u64,
    /// Frames the switch refused.
    pub dropped: u64,
}

/// Frames: emitted = delivered + dropped + in the switch + on links or in a
/// generator's queue at the end.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct BenchBooks {
    pub emitted: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub in_switch: u64,
    pub elsewhere: u64,
    pub holds: bool,
}

/// A generator: its app, the host port it leaves by, and where its frames go.
struct Source {
    app: usize,
    port: u32,
    /// The switch's port the frames arrive on, and the switch's port they leave by.
    input: usize,
    out: usize,
    /// A frame's time on the generator's line, and the line's delay.
    tx: Span,
    delay: Span,
    /// The generator's line is busy until then (its queue holds at most one frame).
    busy_until: SimTime,
}

/// Why `s` is not a generator bench, if it is not (checked on the scenario;
/// the built world is checked by `sources`).
fn scenario_shape(s: &Scenario) -> Result<(), String> {
    let switches = s.node.iter().filter(|n| n.kind == NodeKind::Switch).count();
    if switches != 1 {
        return Err(format!("it has {switches} switches, not one"));
    }
    for (i, n) in s.node.iter().enumerate() {
        let extras = [
            ("qdisc", n.qdisc.as_ref().is_some_and(|q| q.kind != "pfifo")),
            ("pacing", n.pacing.is_some()),
            ("quickstart", n.quickstart.is_some()),
            ("nic", n.nic.is_some()),
            ("bus", n.bus.is_some()),
            ("fc", n.fc.is_some()),
            ("cpu", n.cpu.is_some()),
            ("arbiter", n.arbiter.is_some()),
        ];
        if let Some((k, _)) = extras.iter().find(|(_, on)| *on) {
            return Err(format!("node[{i}].{k} is set"));
        }
    }
    for (i, l) in s.link.iter().enumerate() {
        let extras = [
            ("queue", l.queue.is_some()),
            ("reverse_queue", l.reverse_queue.is_some()),
            ("loss", l.loss.is_some()),
            ("impair", l.impair.is_some()),
            ("quickstart", l.quickstart.is_some() || l.reverse_quickstart.is_some()),
        ];
        if let Some((k, _)) = extras.iter().find(|(_, on)| *on) {
            return Err(format!("link[{i}].{k} is set"));
        }
    }
    for (i, f) in s.flow.iter().enumerate() {
        if f.kind != FlowKind::UdpCbr || f.pacing.is_some() || f.quickstart.is_some() {
            return Err(format!("flow[{i}] is not a plain udp_cbr flow"));
        }
    }
    if let Some(i) = s.monitor.iter().position(|m| m.capture_packets.unwrap_or(0) > 0) {
        return Err(format!("monitor[{i}] captures packets"));
    }
    Ok(())
}

/// The generators, checked against the built world: each on a host whose
/// only link goes into the switch, at most at its line rate, sending to a
/// host on another switch port.
fn sources(w: &World) -> Result<Vec<Source>, String> {
    let sw = &w.switches[0];
    if sw.config.jitter != Span::ZERO {
        return Err("the switch has forwarding jitter (its draws follow the arrival order of simultaneous frames)".into());
    }
    if !w.hosts.sockets.is_empty() || !w.hosts.rr_apps.is_empty() || !w.hosts.web.is_empty() {
        return Err("it has TCP flows".into());
    }
    let mut out = Vec::new();
    for (a, app) in w.hosts.udp.iter().enumerate() {
        let name = &w.hosts.flow_names[app.template.flow as usize];
        if app.poisson.is_some() || app.qs.is_some() {
            return Err(format!("flow {name} is not plain CBR"));
        }
        let host = &w.hosts.nodes[app.host as usize];
        let port = &w.net.ports[host.port as usize];
        if app.rate_bps > port.rate_bps {
            return Err(format!("flow {name} offers more than its line rate"));
        }
        let ch = port.channel as usize;
        if w.net.nodes[w.net.channels[ch].to as usize] != NodeRole::Switch(0) {
            return Err(format!("flow {name}'s host is not linked to the switch"));
        }
        let input = w.net.ingress_index[ch] as usize;
        let p_out = w.net.routes.port(sw.node, app.template.dst);
        if p_out == NO_ROUTE {
            return Err(format!("flow {name} has no route through the switch"));
        }
        let to = w.net.channels[w.net.ports[p_out as usize].channel as usize].to;
        if !matches!(w.net.nodes[to as usize], NodeRole::Host(_)) || to != app.template.dst {
            return Err(format!("flow {name}'s receiver is not on a switch port"));
        }
        // Every frame of a CBR generator is its template's size.
        let tx = Span::serialization(app.template.l2_bytes() + port.framing_bytes as u64, port.rate_bps);
        out.push(Source {
            app: a,
            port: host.port,
            input,
            out: w.net.port_local[p_out as usize] as usize,
            tx,
            delay: w.net.channels[ch].delay,
            busy_until: SimTime::ZERO,
        });
    }
    let plain = |p: usize| {
        let port = &w.net.ports[p];
        port.fc.is_none() && port.proc.is_none() && port.qs.is_none() && port.bad_rate_bps.is_none()
    };
    let clean = |c: usize| w.net.losses[c].is_none() && w.net.channels[c].impaired.is_none();
    if !(0..w.net.ports.len()).all(plain) || !(0..w.net.channels.len()).all(clean) || w.hosts.nodes.iter().any(|h| h.nic.is_some() || h.cpu.is_some()) {
        return Err("a port, link or host has a model the bench loop does not drive".into());
    }
    Ok(out)
}

/// Run a generator bench scenario (see the module notes).
pub fn run(s: &Scenario) -> Result<BenchOutput, Error> {
    let wall = std::time::Instant::now();
    let name = s.sim.name.clone().unwrap_or_default();
    let refuse = |why: String| Error::Runtime(format!("scenario {name} is not a generator bench: {why}"));
    scenario_shape(s).map_err(refuse)?;
    let mut w = super::build::build(s)?;
    let mut src = sources(&w).map_err(refuse)?;
    let end = w.net.end;
    let n_flows = w.hosts.flow_names.len();
    let mut flows = vec![BenchFlow::default(); n_flows];
    for (f, name) in flows.iter_mut().zip(&w.hosts.flow_names) {
        f.name = name.clone();
    }
    let mut elsewhere = 0u64;
    let mut h = SimTime::ZERO;
    // Events at the end itself still happen (`World::run`).
    while h <= end {
        h = (h + SLICE).min(SimTime(end.0 + 1));
        // Frames that reach the switch before h: out of each generator, over its link.
        for g in src.iter_mut() {
            while let Some(t) = w.hosts.udp[g.app].next_at.filter(|&t| t <= end) {
                let start = t.max(g.busy_until);
                if start >= h && start <= end {
                    break; // a later slice
                }
                let Some(mut pkt) = w.hosts.udp[g.app].fire(t) else { break };
                if start > end {
                    elsewhere += 1; // emitted, still in the generator's queue
                    continue;
                }
                g.busy_until = start + g.tx;
                let arrival = g.busy_until + g.delay;
                pass_monitors(&mut w.net, g.port, start, arrival, &pkt);
                if arrival > end {
                    elsewhere += 1;
                    continue;
                }
                pkt.ingress = g.input as u8;
                w.switches[0].accept(arrival, g.input, g.out, pkt);
            }
        }
        // Nothing not yet received becomes eligible before h; frames that
        // started on an output before h (and by the end) reach their hosts.
        let mut to = Receivers { net: &mut w.net, flows: &mut flows, elsewhere: &mut elsewhere };
        w.switches[0].step(h, SimTime(h.0 - 1), &mut to);
    }
    for g in &src {
        let app = &w.hosts.udp[g.app];
        flows[app.template.flow as usize].sent = app.sent;
    }
    for (f, d) in flows.iter_mut().zip(&w.switches[0].dropped_by_flow) {
        f.dropped = *d;
    }
    let in_switch = w.switches[0].core.frames_held();
    let books = BenchBooks {
        emitted: flows.iter().map(|f| f.sent).sum(),
        delivered: flows.iter().map(|f| f.delivered).sum(),
        dropped: flows.iter().map(|f| f.dropped).sum(),
        in_switch,
        elsewhere,
        holds: false,
    };
    let holds = books.emitted == books.delivered + books.dropped + books.in_switch + books.elsewhere;
    let mut fc = FlowsColumns::default();
    let mut qc = QueuesColumns::default();
    for m in w.net.monitors.iter_mut() {
        let q = w.net.ports[m.port as usize].queue.stats();
        m.finish(end, q);
        m.drain_into(&w.hosts.flow_names, &mut fc, &mut qc);
    }
    let summary = BenchSummary {
        scenario: name.clone(),
        seed: s.sim.seed.unwrap_or(1),
        duration_s: end.as_secs_f64(),
        wall_seconds: wall.elapsed().as_secs_f64(),
        flows,
        switch: switch_summary(&w.switches[0], &w.net.ports, &w.hosts.flow_names),
        conservation: BenchBooks { holds, ..books },
    };
    if !holds {
        return Err(Error::Runtime(format!("bench run {name}: frame conservation fails: {:?}", summary.conservation)));
    }
    Ok(BenchOutput { summary, flows: fc.into_table() })
}

/// Frame `pkt` starts on `port` at `start` and its last bit reaches the far
/// end at `arrival`: the egress monitor of the port and the ingress monitor
/// of its link count it (an ingress count after the end is never made).
fn pass_monitors(net: &mut Net, port: u32, start: SimTime, arrival: SimTime, pkt: &Packet) {
    let p = &net.ports[port as usize];
    if let Some(m) = p.monitor {
        let m = &mut net.monitors[m as usize];
        if !m.ingress {
            m.advance(start, p.queue.stats());
            m.on_frame(start, pkt);
        }
    }
    if arrival > net.end {
        return;
    }
    if let Some(m) = net.channel_monitor[p.channel as usize] {
        let m = &mut net.monitors[m as usize];
        m.advance(arrival, net.ports[m.port as usize].queue.stats());
        m.on_frame(arrival, pkt);
    }
}

/// The bench's side of the switch's outputs: a frame the switch starts goes
/// over its link to the receiving host, counted by the monitors it passes.
struct Receivers<'a> {
    net: &'a mut Net,
    flows: &'a mut [BenchFlow],
    /// Frames emitted but not delivered by the end, outside the switch.
    elsewhere: &'a mut u64,
}

impl SwitchOutputs for Receivers<'_> {
    /// Counted per flow by the switch (`SwitchRuntime::dropped_by_flow`).
    fn refused(&mut self, _: &Packet) {}

    #[inline(always)]
    fn depart(&mut self, port: u32, d: &Departure<Packet>) -> bool {
        let end = self.net.end;
        if d.start > end {
            // Computed, but after the end: still in the switch.
            return false;
        }
        let arrival = d.start + d.tx + self.net.channels[self.net.ports[port as usize].channel as usize].delay;
        pass_monitors(self.net, port, d.start, arrival, &d.frame);
        if arrival > end {
            *self.elsewhere += 1;
        } else {
            let f = &mut self.flows[d.frame.flow as usize];
            f.delivered += 1;
            f.bytes_delivered += d.frame.payload_bytes();
        }
        true
    }
}
