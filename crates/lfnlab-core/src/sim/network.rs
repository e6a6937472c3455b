//! The network every node driver works over: the clock, the event queue,
//! the books, and the arenas of what carries frames between nodes (ports,
//! channels with their loss models, routes, monitors, taps), indexed by node,
//! port and channel. A router's forwarding path (`sim::router`) and a port's
//! transmit step (`sim::port`) act on it alone; the host and switch drivers
//! (`sim::host`, `sim::switch`) hold their own state and are handed the
//! network. Only the world's event loop moves the clock (STYLE point 2).

use crate::engine::event_log::EventLog;
use crate::engine::event_queue::EventQueue;
use crate::engine::time::SimTime;
use crate::monitor::link_monitor::LinkMonitor;
use crate::monitor::pcap::PcapTap;
use crate::net::link::{Channel, Loss};
use crate::net::routing::RouteTable;
use super::books::Books;
use super::port::Port;
use super::world::NodeRole;

/// The clock, the event queue, the books and the network's arenas.
pub struct Net {

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
    pub routes: RouteTable,
    pub monitors: Vec<LinkMonitor>,
    /// pcap captures (`[[capture]]`).
    pub taps: Vec<PcapTap>,
    /// Per node: the IP version of the packets it sends (4 or 6).
    pub node_ip_version: Vec<u8>,
    pub books: Books,
    /// Per port: its index among its node's ports (a switch's port number).
    pub port_local: Vec<u8>,
    /// Per channel: frames are forwarded when launched (`sim::early`).
    pub early: Vec<bool>,
    /// Per channel: the eager port that feeds it, or `u32::MAX` (`sim::early`);
    /// a port is eager exactly when it is its channel's eager feeder.
    pub eager_feeder: Vec<u32>,
}

impl Net {
    pub fn new(end: SimTime, routes: RouteTable) -> Net {
        Net {
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
            routes,
            monitors: Vec::new(),
            taps: Vec::new(),
            node_ip_version: Vec::new(),
            books: Books::default(),
            port_local: Vec::new(),
            early: Vec::new(),
            eager_feeder: Vec::new(),
        }
    }
}
