//! PAUSE generation by a switch or router (spec 04 §2.5, "Generation by a
//! switch or router"): the device counts the L2 bytes it currently holds that
//! entered through each ingress port; at `fc.sw_xoff` it sends
//! PAUSE(`pause_quanta`) to the peer on that port, refreshed while above
//! `fc.sw_xon`, and PAUSE(0) once the count falls to `fc.sw_xon`.
//!
//! A frame is held from its arrival (after the TTL and route checks) until it
//! starts serialization on its egress port, or until a queue refuses it
//! (CHOICE: the count drops at the start of transmission, not its end; the
//! difference is one frame). The hysteresis itself is `net::pause::XoffGenerator`,
//! the same state machine a host NIC uses.

use super::network::Net;
use crate::engine::event_queue::Event;
use crate::engine::time::Span;
use crate::net::packet::Packet;
use crate::net::pause::{pause_span, XoffConfig, XoffGenerator};

/// One ingress port of a PAUSE-generating device.
pub struct IngressAccount {
    /// The device's egress port back toward the peer: where its PAUSE goes.
    pub port: u32,
    pub held_bytes: u64,
    pub held_max_bytes: u64,
    pub xoff: XoffGenerator,
}

/// The ingress accounts of one device, by local ingress index
/// (`Packet::ingress`); None for a port whose peer is not in `fc.sw_peers`.
pub struct IngressFc {
    pub ports: Vec<Option<IngressAccount>>,
}

impl IngressFc {
    /// Accounts for the device's `ports` (port, rate, generates): `cfg.refresh`
    /// zero means half the pause duration at that port's rate (§2.5 table).
    pub fn new(cfg: XoffConfig, ports: &[(u32, u64, bool)]) -> IngressFc {
        let ports = ports
            .iter()
            .map(|&(port, rate_bps, generates)| {
                let refresh = if cfg.refresh == Span::ZERO { Span(pause_span(cfg.pause_quanta as u64, rate_bps).0 / 2) } else { cfg.refresh };
                generates.then(|| IngressAccount { port, held_bytes: 0, held_max_bytes: 0, xoff: XoffGenerator::new(XoffConfig { refresh, ..cfg }) })
            })
            .collect();
        IngressFc { ports }
    }
}

impl Net {
    /// A frame entered forwarding node `node` and is now held there. Only a
    /// node that generates PAUSE keeps accounts; for the others this is one
    /// test, inlined into the router path.
    #[inline(always)]
    pub(super) fn ingress_hold(&mut self, node: usize, pkt: &Packet) {
        if self.ingress_fc[node].is_some() {
            self.ingress_hold_account(node, pkt);
        }
    }

    #[inline(never)]
    fn ingress_hold_account(&mut self, node: usize, pkt: &Packet) {
        let Some(fc) = self.ingress_fc[node].as_mut() else { return };
        let Some(a) = fc.ports[pkt.ingress as usize].as_mut() else { return };
        a.held_bytes += pkt.l2_bytes();
        a.held_max_bytes = a.held_max_bytes.max(a.held_bytes);
        if let Some(q) = a.xoff.on_level(self.now, a.held_bytes) {
            let (port, refresh) = (a.port, a.xoff.refresh_at());
            self.request_port_pause(port, q, refresh.map(|t| (t, Event::SwitchPauseRefresh(port))));
            self.kick_port(port);
        }
    }

    /// A frame held at `node` left it (started on its egress wire) or was dropped.
    #[inline]
    pub(super) fn ingress_release(&mut self, node: usize, pkt: &Packet) {
        let Some(fc) = self.ingress_fc[node].as_mut() else { return };
        let Some(a) = fc.ports[pkt.ingress as usize].as_mut() else { return };
        debug_assert!(a.held_bytes >= pkt.l2_bytes(), "held bytes never go negative");
        a.held_bytes -= pkt.l2_bytes();
        if let Some(q) = a.xoff.on_level(self.now, a.held_bytes) {
            let port = a.port;
            self.request_port_pause(port, q, None);
            self.kick_port(port);
        }
    }

    /// The refresh timer of the device port `port` (rule 2 applied per ingress port).
    pub(super) fn on_switch_pause_refresh(&mut self, port: u32) {
        let now = self.now;
        let node = self.ports[port as usize].node as usize;
        let Some(fc) = self.ingress_fc[node].as_mut() else { return };
        let Some(a) = fc.ports.iter_mut().flatten().find(|a| a.port == port) else { return };
        if a.xoff.refresh_at() != Some(now) {
            return; // superseded
        }
        if let Some(q) = a.xoff.on_refresh(now, a.held_bytes) {
            let refresh = a.xoff.refresh_at();
            self.request_port_pause(port, q, refresh.map(|t| (t, Event::SwitchPauseRefresh(port))));
            self.kick_port(port);
        }
    }
}
