//! Random (Bernoulli) loss of one direction, sans-IO: the simulator's
//! `link.loss = { kind = "bernoulli", p, applies_to }` on the link from the
//! emulator to a host (spec 06 §1.2; `lfnlab-core` `net::link::loss`).
//!
//! Where it acts: the simulator applies a link's loss to frames as they
//! *arrive* at the far end, that is after the emulator's queue and line.
//! The relay does the same: a frame the [`crate::shaper::Shaper`] accepted
//! has taken its place in the queue and its time on the line; if it is lost
//! it is then not sent. Its trace row keeps its start and departure and says
//! `drop:link_loss`.
//!
//! Which frames: with `applies_to = data` (the simulator's default) only
//! frames that carry data (`Packet::is_data`: a TCP segment with payload, or
//! any UDP datagram) may be lost; the random stream is drawn only for them,
//! as in the simulator. With `all`, every frame.

use etherparse::{SlicedPacket, TransportSlice};
use lfnlab_core::engine::rng::Stream;

/// One direction's loss settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LossConfig {
    /// Drop probability per frame it applies to, in [0, 1].
    pub p: f64,
    /// Only frames carrying data may be lost (`applies_to = "data"`).
    pub data_only: bool,
}

impl LossConfig {
    /// No loss.
    pub const NONE: LossConfig = LossConfig { p: 0.0, data_only: true };

    pub fn is_active(&self) -> bool {
        self.p > 0.0
    }
}

/// A direction's loss model with its own random stream.
pub struct FrameLoss {
    cfg: LossConfig,
    rng: Stream,
}

impl FrameLoss {
    /// The model drawing from the stream `stream` under `seed`
    /// (`lfnlab_core::engine::rng::Stream::derive`). Given the simulator's
    /// seed and its name for the link's loss stream (`link[1].loss`), the
    /// relay draws the simulator's sequence: the n-th data frame after the
    /// queue is lost on both sides or on neither (common random numbers).
    pub fn new(cfg: LossConfig, seed: u64, stream: &str) -> FrameLoss {
        FrameLoss { cfg, rng: Stream::derive(seed, stream) }
    }

    /// Is this frame (Ethernet, from the destination address, no FCS) lost?
    #[inline]
    pub fn drops(&mut self, frame: &[u8]) -> bool {
        self.cfg.is_active() && (!self.cfg.data_only || carries_data(frame)) && self.rng.bernoulli(self.cfg.p)
    }
}

/// A TCP segment with payload or a UDP datagram (the simulator's
/// `Packet::is_data`), over IPv4 or IPv6, with or without VLAN tags. A frame
/// that does not parse carries no data that TCP or UDP would see.
pub fn carries_data(frame: &[u8]) -> bool {
    match SlicedPacket::from_ethernet(frame) {
        Ok(p) => match p.transport {
            Some(TransportSlice::Tcp(tcp)) => !tcp.payload().is_empty(),
            Some(TransportSlice::Udp(_)) => true,
            _ => false,
        },
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use etherparse::PacketBuilder;

    fn tcp_frame(payload: &[u8]) -> Vec<u8> {
        let b = PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2]).ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64).tcp(5201, 40000, 1, 65535).ack(1);
        let mut out = Vec::with_capacity(b.size(payload.len()));
        b.write(&mut out, payload).unwrap();
        out
    }

    fn udp6_frame() -> Vec<u8> {
        let b = PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2]).ipv6([1; 16], [2; 16], 64).udp(1, 2);
        let mut out = Vec::new();
        b.write(&mut out, &[0u8; 100]).unwrap();
        out
    }

    #[test]
    fn only_data_carrying_frames_are_data() {
        assert!(carries_data(&tcp_frame(&[0u8; 1448])));
        assert!(!carries_data(&tcp_frame(&[])), "a pure ACK carries no data");
        assert!(carries_data(&udp6_frame()));
        assert!(!carries_data(&[0u8; 10]), "a runt does not parse");
        let mut arp = vec![0u8; 60];
        arp[12..14].copy_from_slice(&[0x08, 0x06]);
        assert!(!carries_data(&arp));
    }

    #[test]
    fn data_only_never_loses_an_ack_nor_draws_for_it() {
        let cfg = LossConfig { p: 1.0, data_only: true };
        let mut a = FrameLoss::new(cfg, 7, "x");
        let ack = tcp_frame(&[]);
        assert!((0..100).all(|_| !a.drops(&ack)));
        assert!(a.drops(&tcp_frame(&[1; 10])));
        let mut all = FrameLoss::new(LossConfig { p: 1.0, data_only: false }, 7, "x");
        assert!(all.drops(&ack));
    }

    #[test]
    fn the_loss_rate_is_p_and_the_stream_is_reproducible() {
        let data = tcp_frame(&[0u8; 1448]);
        let run = |seed| {
            let mut l = FrameLoss::new(LossConfig { p: 1e-2, data_only: true }, seed, "link[1].loss");
            (0..200_000).map(|_| l.drops(&data)).collect::<Vec<bool>>()
        };
        let a = run(1);
        assert_eq!(a, run(1), "same seed, same losses");
        assert_ne!(a, run(2));
        let lost = a.iter().filter(|x| **x).count() as f64;
        // Binomial(200 000, 0.01): mean 2000, sd 44.5; ± 5 sd.
        assert!((lost - 2000.0).abs() < 225.0, "{lost}");
        let mut none = FrameLoss::new(LossConfig::NONE, 1, "x");
        assert!(!none.drops(&data));
        // The simulator's stream of that name draws the same sequence.
        let mut sim = Stream::derive(1, "link[1].loss");
        assert!(a.iter().all(|lost| *lost == sim.bernoulli(1e-2)));
    }
}
