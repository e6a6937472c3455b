//! The route between two nodes as the routing table gives it (`net::routing`):
//! its egress ports in order, the one-way propagation delay, and the slowest
//! port, the path's bottleneck. `lfnlab explain` (issue 40) reads a flow's path
//! from the summary; the build uses the delay for the initial RTT guesses.

use super::world::World;
use crate::engine::time::Span;
use crate::net::packet::NodeId;
use crate::net::routing::NO_ROUTE;

/// The ports a packet from `from` to `to` leaves through, in order.
pub struct Route {
    pub ports: Vec<u32>,
    /// Sum of the links' propagation delays, one way.
    pub one_way: Span,
}

impl Route {
    /// The first slowest port: where a queue builds when every hop is busy.
    pub fn bottleneck(&self, w: &World) -> Option<u32> {
        let rate = |p: &u32| w.net.ports[*p as usize].rate_bps;
        let slowest = self.ports.iter().map(rate).min()?;
        self.ports.iter().copied().find(|p| rate(p) == slowest)
    }
}

/// The route from `from` to `to`, or None when there is none.
pub fn route(w: &World, from: NodeId, to: NodeId) -> Option<Route> {
    let mut at = from;
    let mut r = Route { ports: Vec::new(), one_way: Span::ZERO };
    // A route visits each node at most once.
    for _ in 0..w.net.nodes.len() {
        if at == to {
            return Some(r);
        }
        let port = w.net.routes.port(at, to);
        if port == NO_ROUTE {
            return None;
        }
        let ch = &w.net.channels[w.net.ports[port as usize].channel as usize];
        r.ports.push(port);
        r.one_way = r.one_way + ch.delay;
        at = ch.to;
    }
    None
}
