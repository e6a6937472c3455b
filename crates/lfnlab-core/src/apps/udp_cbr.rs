//! `udp_cbr`: a constant-bit-rate UDP source whose rate is a transmission
//! capacity including preamble and IPG (spec 05 §2.5 rule 1): period
//! T = 8·(L3 + 38)/TC. Send times are computed from the start time and the
//! frame count in integer arithmetic, so they never drift.

use crate::engine::time::{PS_PER_S, SimTime};
use crate::net::packet::Packet;

pub struct UdpCbr {
    pub host: u32,
    pub template: Packet,
    pub rate_bps: u64,
    pub start: SimTime,
    pub stop: SimTime,
    pub sent: u64,
    pub next_at: Option<SimTime>,
}

impl UdpCbr {
    pub fn new(host: u32, template: Packet, rate_bps: u64, start: SimTime, stop: SimTime) -> UdpCbr {
        UdpCbr { host, template, rate_bps, start, stop, sent: 0, next_at: Some(start) }
    }

    /// Time of frame k: start + k·8·(L3 + 38)/TC.
    fn time_of(&self, k: u64) -> SimTime {
        let bits = 8 * (self.template.l3_bytes as u128 + 38);
        SimTime(self.start.0 + (k as u128 * bits * PS_PER_S as u128 / self.rate_bps as u128) as u64)
    }

    /// Emit the frame due at `now` and compute the next send time.
    pub fn fire(&mut self, now: SimTime) -> Option<Packet> {
        if now >= self.stop {
            self.next_at = None;
            return None;
        }
        self.sent += 1;
        let next = self.time_of(self.sent);
        self.next_at = if next < self.stop { Some(next) } else { None };
        Some(self.template)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{IpFields, PacketKind, TcpHeader};

    #[test]
    fn period_is_wire_time_at_tc() {
        // 1500-byte IP packets at 500 Mbit/s: T = 8·1538/5e8 = 24.608 µs.
        let p = Packet { flow: 0, src: 0, dst: 1, kind: PacketKind::Udp, dir: 0, l3_bytes: 1500, ip: IpFields::default(), tcp: TcpHeader::default(), tstamp: SimTime::ZERO };
        let mut a = UdpCbr::new(0, p, 500_000_000, SimTime(0), SimTime(PS_PER_S));
        a.fire(SimTime(0));
        assert_eq!(a.next_at, Some(SimTime(24_608_000)));
    }
}
