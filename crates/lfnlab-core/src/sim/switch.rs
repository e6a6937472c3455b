//! A switch node's driver (spec 05): `SwitchRuntime` holds the sans-IO
//! switch core and the network ports of its links, and drives the core over
//! the network it is handed (`Net`). A frame reaching the switch
//! is handed to the core at the end of its reception; the core is then run up
//! to the earliest time at which a frame not yet received could become
//! eligible (the frame already on an input link, or on an idle link one that
//! would start on it now), so it never has to undo work. Frames the core starts on an output go
//! onto that link with the core's own serialization time (its clock, §2.4).
//! The switch wakes itself for a computed departure, or at the time of its
//! next internal work when no arriving frame will run it before then.

use super::network::Net;
use super::world::{Port, World};
use crate::net::link::channel::Channel;
use crate::scenario::node_config::SwitchNodeConfig;
use crate::engine::event_queue::Event;
use crate::engine::time::{SimTime, Span};
use crate::net::drop::DropCause;
use crate::net::packet::{NodeId, Packet};
use crate::net::routing::NO_ROUTE;
use crate::net::switch::core::Departure;
use crate::net::switch::{SwitchConfig, SwitchCore};
use crate::results::summary::{SwitchPortSummary, SwitchSummary};

/// The smallest frame that can arrive: 64 bytes of L2 (spec 05 §2.1).
const MIN_FRAME_BYTES: u64 = 64;

pub struct SwitchRuntime {
    pub node: NodeId,
    pub name: String,
    pub config: SwitchConfig,
    /// The named configuration it started from (`switch.config`).
    pub config_name: String,
    pub core: SwitchCore<Packet>,
    /// The world egress port of each switch port.
    pub ports: Vec<u32>,
    /// Channels into the switch, each with the least time from a frame's first
    /// bit leaving the far end to its last bit arriving here.
    pub inputs: Vec<(u32, Span)>,
    pub wake_at: Option<SimTime>,
    /// Frames refused by admission, per flow.
    pub dropped_by_flow: Vec<u64>,
    /// Every frame the switch refused (any flow; `sim::invariants` drops).
    pub refused_frames: u64,
}

impl SwitchRuntime {
    /// The switch of node `i` with its ports `ports` (world port indices, in
    /// the node's port order): every port runs at its link's rate and ports
    /// without a link at the fastest one (they idle).
    #[allow(clippy::too_many_arguments)]
    pub fn build(i: usize, name: &str, sw: &SwitchNodeConfig, ports: &[u32], all_ports: &[Port], channels: &[Channel], seed: u64, n_flows: usize) -> SwitchRuntime {
        let config = sw.switch.clone();
        let mut rates: Vec<u64> = ports.iter().map(|&p| all_ports[p as usize].rate_bps).collect();
        let fastest = rates.iter().copied().max().unwrap_or(1_000_000_000);
        rates.resize(config.ports as usize, fastest);
        // The reverse channel of each egress brings frames in.
        let inputs = ports
            .iter()
            .map(|&p| {
                let c = all_ports[p as usize].channel ^ 1;
                let ch = &channels[c as usize];
                (c, Span(Span::serialization(MIN_FRAME_BYTES, ch.rate_bps).ps() + ch.delay.ps()))
            })
            .collect();
        let core = SwitchCore::new(&config, &rates, seed, &format!("node[{i}].switch"));
        let config_name = sw.preset.clone();
        SwitchRuntime {
            node: i as NodeId,
            name: name.to_string(),
            config,
            config_name,
            core,
            ports: ports.to_vec(),
            inputs,
            wake_at: None,
            dropped_by_flow: vec![0; n_flows],
            refused_frames: 0,
        }
    }
}

impl SwitchRuntime {
    /// Frames the core refused since the last call: each is counted in
    /// `dropped_by_flow`, then shown to `each`.
    pub fn book_refused(&mut self, mut each: impl FnMut(&Packet)) {
        for r in self.core.take_refused() {
            self.refused_frames += 1;
            if let Some(d) = self.dropped_by_flow.get_mut(r.frame.flow as usize) {
                *d += 1;
            }
            each(&r.frame);
        }
    }
}

/// Where a switch's frames go after its step: the network of the event loop
/// (`Net`) or the generator bench's own books (`sim::gen_bench`).
pub trait SwitchOutputs {
    /// The core refused `frame` (already counted per flow).
    fn refused(&mut self, frame: &Packet);
    /// Frame `d` starts on the world port `port`; false stops the hand-over
    /// (the frame stays unsent).
    fn depart(&mut self, port: u32, d: &Departure<Packet>) -> bool;
}

impl SwitchOutputs for Net {
    #[inline]
    fn refused(&mut self, frame: &Packet) {
        let l3 = frame.l3_bytes as u64;
        self.books.leave_queue(l3);
        self.books.book_drop(self.now, self.now, DropCause::SwitchMemory, l3);
    }

    #[inline]
    fn depart(&mut self, port: u32, d: &Departure<Packet>) -> bool {
        if let Some(m) = self.ports[port as usize].monitor {
            let p = &self.ports[port as usize];
            self.monitors[m as usize].advance(self.now, p.queue.stats());
        }
        self.launch(port, &d.frame, d.tx);
        true
    }
}

impl SwitchRuntime {
    /// A frame's last bit reaches switch input `input` at `at`, bound for
    /// switch output `out`.
    #[inline(always)]
    pub fn accept(&mut self, at: SimTime, input: usize, out: usize, pkt: Packet) {
        self.core.receive(at, input, out, pkt);
    }

    /// The one step of a switch, taken by both of its drivers (the event
    /// loop's `service` below and the generator bench's time slices): run the
    /// core through `until`, book the frames it refused, then hand `to` each
    /// frame that starts on an output at or before `by`, in start order.
    #[inline(always)]
    pub fn step(&mut self, until: SimTime, by: SimTime, to: &mut impl SwitchOutputs) {
        self.core.advance(until);
        self.book_refused(|frame| to.refused(frame));
        while let Some(d) = self.core.pop_departure(by) {
            if !to.depart(self.ports[d.out], &d) {
                break;
            }
        }
    }

    /// A frame's last bit reached this switch, switch `s` of the world.
    pub(super) fn receive(&mut self, net: &mut Net, s: u32, pkt: Packet) {
        let port = net.routes.port(self.node, pkt.dst);
        if port == NO_ROUTE {
            debug_assert!(false, "validated scenarios have routes");
            net.books.book_drop(net.now, net.now, DropCause::NoRoute, pkt.l3_bytes as u64);
            return;
        }
        // The frame is inside the switch until it starts on its output or is refused.
        net.books.enter_queue(pkt.l3_bytes as u64);
        let out = net.port_local[port as usize] as usize;
        self.accept(net.now, pkt.ingress as usize, out, pkt);
        self.service(net, s);
    }

    /// Its wake event (switch `s`).
    pub(super) fn on_wake(&mut self, net: &mut Net, s: u32) {
        if self.wake_at != Some(net.now) {
            return; // superseded
        }
        self.wake_at = None;
        self.service(net, s);
    }

    /// Run the core as far as is safe, send what starts now, book the refused
    /// frames and arrange the next wake.
    fn service(&mut self, net: &mut Net, s: u32) {
        let now = net.now;
        // The earliest time a frame not yet received could arrive, and the
        // earliest frame already on an input link.
        let (mut safe, mut first_head) = (SimTime::NEVER, SimTime::NEVER);
        for &(c, least) in &self.inputs {
            let ch = &net.channels[c as usize];
            let head = ch.head_arrival();
            // A line sends one frame after another, so on a channel without
            // jitter or reordering nothing arrives before the frame already on
            // it; otherwise a frame that starts now could be first.
            safe = safe.min(match head {
                Some(h) if ch.impaired.is_none() => h,
                Some(h) => h.min(now + least),
                None => now + least,
            });
            first_head = first_head.min(head.unwrap_or(SimTime::NEVER));
        }
        let until = if safe == SimTime::NEVER { safe } else { safe + self.config.lookup };
        self.step(until, now, net);
        let mut wake = self.core.next_departure().unwrap_or(SimTime::NEVER);
        let t = self.core.next_time();
        // Work the core holds can start nothing on a line before t, and at a wake
        // at t the core runs past t. A frame on an input link that arrives before t
        // runs the core itself, so then no wake is needed.
        if t != SimTime::NEVER && first_head >= t {
            wake = wake.min(t);
        }
        // A wake at or before now is not needed: a frame already on an input
        // link arrives first and runs the core again.
        if wake != SimTime::NEVER && wake > now && self.wake_at.is_none_or(|w| w > wake) {
            self.wake_at = Some(wake);
            net.events.push(wake, Event::SwitchWake(s));
        }
    }
}

impl World {
    /// Frames inside switches (for the end-of-run books).
    pub fn switch_frames_held(&self) -> u64 {
        self.switches.iter().map(|rt| rt.core.frames_held()).sum()
    }
}

/// The summary entry of a switch (spec 05).
pub fn summary(rt: &SwitchRuntime, ports: &[super::world::Port], flow_names: &[String]) -> SwitchSummary {
    let (slots, cells) = rt.core.fabric_counts();
    SwitchSummary {
        name: rt.name.clone(),
        config: rt.config_name.clone(),
        clock_ppm: rt.config.clock_ppm,
        ports: rt
            .ports
            .iter()
            .enumerate()
            .map(|(k, &p)| {
                let c = rt.core.counts[k];
                SwitchPortSummary { name: ports[p as usize].name.clone(), received: c.received, dropped: c.dropped, sent: c.sent }
            })
            .collect(),
        memory_max_bytes: rt.core.memory_max_bytes(),
        output_buffer_max_bytes: rt.core.output_buffer_max_bytes(),
        fabric_slots: slots,
        fabric_cells: cells,
        dropped_by_flow: rt
            .dropped_by_flow
            .iter()
            .enumerate()
            .filter(|(_, d)| **d > 0)
            .map(|(f, d)| (flow_names.get(f).cloned().unwrap_or_else(|| f.to_string()), *d))
            .collect(),
    }
}
