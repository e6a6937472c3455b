//! The world: the network (`sim::network`: clock, events, books, links,
//! ports), the node drivers over it, and the event loop that hands each event
//! to the driver it is for. A frame that reached a node goes to the node's
//! kind: the host driver (`Hosts`, `sim::host`, through `sim::nic` and
//! `sim::cpu` when modelled), a router's forwarding path on the network
//! (`Net::router_receive`, `sim::router`) or the switch's driver
//! (`SwitchRuntime`, `sim::switch`). Frames leave a node through its egress
//! port (`sim::port`) onto a link (`net::link`). A driver is handed the
//! network (`&mut Net`) and reaches no other driver; only the event loop
//! moves the clock (STYLE point 2).

use crate::engine::event_queue::Event;
use crate::engine::time::SimTime;
use crate::net::packet::{NodeId, Packet, PacketKind};
use crate::net::routing::RouteTable;
pub use super::network::Net;
use super::host::Hosts;
pub use super::port::{Port, PortQueue};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeRole {
    Host(u32),
    Forwarder,
    /// An Ethernet switch (spec 05): index in `World::switches`.
    Switch(u32),
}

/// A run: the network and the drivers of its nodes.
pub struct World {
    /// The network every node driver works over (`sim::network`).
    pub net: Net,
    /// The hosts and what runs on them (`sim::host`).
    pub hosts: Hosts,
    /// Ethernet switches (spec 05).
    pub switches: Vec<super::switch::SwitchRuntime>,
    /// Check every invariant after every event (`sim::invariants`; `BuildOptions`).
    pub check_invariants: bool,
    /// The first invariant found broken; the run stops there.
    pub violation: Option<super::invariants::Violation>,
}

impl World {
    #[allow(clippy::too_many_arguments)]
    pub fn new(end: SimTime, routes: RouteTable) -> World {
        World {
            net: Net::new(end, routes),
            hosts: Hosts::default(),
            switches: Vec::new(),
            check_invariants: false,
            violation: None,
        }
    }

    /// Run until the event queue is empty or the next event is after `end`.
    pub fn run(&mut self) {
        self.run_until(self.net.end);
        self.net.now = self.net.end;
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
        let limit = limit.min(self.net.end);
        let mut budget = max_events;
        while let Some(t) = self.net.events.peek_time() {
            if t > limit {
                break;
            }
            if budget == 0 {
                return false;
            }
            budget -= 1;
            let (t, ev) = self.net.events.pop().unwrap();
            debug_assert!(t >= self.net.now, "event scheduled in the past");
            let before = self.net.now;
            self.net.now = t;
            let (k, i) = ev.code();
            self.net.log.record(t.0, k, i);
            match ev {
                Event::ChannelArrival(c) => self.on_channel_arrival(c),
                Event::PortWake(p) => {
                    if self.net.ports[p as usize].wake_at == Some(t) {
                        self.net.ports[p as usize].wake_at = None;
                        self.kick_port(p);
                    }
                }
                Event::SocketTimer(s) => self.hosts.on_socket_timer(&mut self.net, s),
                Event::AppTimer(a) => self.hosts.on_app_timer(&mut self.net, a),
                Event::FlowStart(f) => self.hosts.on_flow_start(&mut self.net, f),
                Event::WebTimer(wi) => self.hosts.on_web_timer(&mut self.net, wi),
                Event::ProcRelease(p) => self.net.on_proc_release(p),
                Event::NicRxDma(h) => self.hosts.on_nic_rx_dma(&mut self.net, h),
                Event::NicTxDma(h) => self.hosts.on_nic_tx_dma(&mut self.net, h),
                Event::PauseRefresh(h) => self.hosts.on_pause_refresh(&mut self.net, h),
                Event::SwitchPauseRefresh(p) => self.net.on_switch_pause_refresh(p),
                Event::CpuDone(i) => self.hosts.on_cpu_done(&mut self.net, i / super::cpu::MAX_CORES, i % super::cpu::MAX_CORES),
                Event::IrqTimer(h) => self.hosts.on_irq_timer(&mut self.net, h),
                Event::SwitchWake(i) => self.switches[i as usize].on_wake(&mut self.net, i),
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
        let now = self.net.now;
        if !self.net.channels[c as usize].take_event(now) {
            return; // superseded by an earlier arrival (a held-back frame's)
        }
        while let Some(mut pkt) = self.net.channels[c as usize].pop_arrived(now) {
            let to = self.net.channels[c as usize].to;
            pkt.ingress = self.net.ingress_index[c as usize];
            if pkt.kind == PacketKind::Pause {
                self.on_pause_frame(c, pkt);
                continue;
            }
            if let Some(cause) = self.net.losses[c as usize].as_mut().and_then(|loss| loss.drops(now, &pkt)) {
                self.net.books.book_drop(now, now, cause, pkt.l3_bytes as u64);
                continue;
            }
            if let Some(m) = self.net.channel_monitor[c as usize] {
                let m = &mut self.net.monitors[m as usize];
                m.advance(now, self.net.ports[m.port as usize].queue.stats());
                m.on_frame(now, &pkt);
            }
            self.deliver(to, pkt);
        }
        if let Some(t) = self.net.channels[c as usize].next_event() {
            let as_of = self.net.head_as_of(c, now);
            self.net.events.push_as_of(t, Event::ChannelArrival(c), as_of);
        }
    }

    /// A PAUSE frame arrived over channel `c`: the far end's port back toward
    /// the sender obeys it (`Net::on_pause_frame`), and starts again when it
    /// resumed it.
    pub(super) fn on_pause_frame(&mut self, c: u32, pkt: Packet) {
        if let Some(port) = self.net.on_pause_frame(c, pkt) {
            self.kick_port(port);
        }
    }

    /// Start the next frame on `port` if it may go: a host's port through its
    /// host (`sim::host`), any other through the network (`sim::port`).
    #[inline]
    pub(super) fn kick_port(&mut self, port: u32) {
        match self.net.ports[port as usize].host {
            Some(h) => self.hosts.kick_host_port(&mut self.net, h, port),
            None => self.net.kick_port(port),
        }
    }

    /// A frame reached node `at`.
    fn deliver(&mut self, at: NodeId, pkt: Packet) {
        match self.net.nodes[at as usize] {
            NodeRole::Forwarder => {
                let now = self.net.now;
                self.net.router_receive(at, pkt, now);
            }
            NodeRole::Switch(sw) => self.switches[sw as usize].receive(&mut self.net, sw, pkt),
            NodeRole::Host(h) if self.hosts.nodes[h as usize].nic.is_some() => self.hosts.nic_rx_arrive(&mut self.net, h, pkt),
            NodeRole::Host(h) => {
                debug_assert_eq!(pkt.dst, at);
                self.net.books.deliver(pkt.l3_bytes as u64);
                self.hosts.host_receive(&mut self.net, h, pkt);
            }
        }
    }

}
