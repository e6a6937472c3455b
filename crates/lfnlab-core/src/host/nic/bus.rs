//! The host I/O bus (spec 04 §2.4 rule 1): one half-duplex DMA server per
//! host, shared by RX and TX, serving transfers one at a time in request order.
//! A transfer of a frame takes `t_dma = 8·(L2 − 4 + o) / (η_bus·R_bus)`: the
//! NIC makes the FCS on transmit and strips it on receive.

use crate::engine::time::{SimTime, Span};

/// FCS bytes, which never cross the bus.
pub const FCS_BYTES: u64 = 4;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BusConfig {
    /// η_bus · R_bus in bit/s.
    pub rate_bps: u64,
    /// Per-frame overheads o_rx and o_tx in bytes.
    pub o_rx_bytes: u64,
    pub o_tx_bytes: u64,
}

/// Which way a DMA transfer goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    Rx,
    Tx,
}

pub struct Bus {
    pub cfg: BusConfig,
    /// The server is busy until then.
    free_at: SimTime,
    /// Total busy time, and transfers per direction.
    pub busy: Span,
    pub transfers_rx: u64,
    pub transfers_tx: u64,
}

impl Bus {
    pub fn new(cfg: BusConfig) -> Bus {
        Bus { cfg, free_at: SimTime::ZERO, busy: Span::ZERO, transfers_rx: 0, transfers_tx: 0 }
    }

    /// The time one transfer of an `l2`-byte frame takes.
    pub fn t_dma(&self, l2_bytes: u64, dir: Dir) -> Span {
        let o = match dir {
            Dir::Rx => self.cfg.o_rx_bytes,
            Dir::Tx => self.cfg.o_tx_bytes,
        };
        Span::serialization(l2_bytes - FCS_BYTES + o, self.cfg.rate_bps)
    }

    /// A transfer requested at `now`: it starts when the earlier ones are done;
    /// returns its completion time.
    pub fn reserve(&mut self, now: SimTime, l2_bytes: u64, dir: Dir) -> SimTime {
        let d = self.t_dma(l2_bytes, dir);
        let start = self.free_at.max(now);
        self.free_at = start + d;
        self.busy = self.busy + d;
        match dir {
            Dir::Rx => self.transfers_rx += 1,
            Dir::Tx => self.transfers_tx += 1,
        }
        self.free_at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pcix() -> Bus {
        Bus::new(BusConfig { rate_bps: 8_533_000_000, o_rx_bytes: 64, o_tx_bytes: 32 })
    }

    #[test]
    fn dma_time_follows_rule_one() {
        let b = pcix();
        // 9216-byte frame (MTU 9198): 8·(9216 − 4 + 64)/8.533e9 = 8.6965 µs.
        let t = b.t_dma(9216, Dir::Rx);
        assert!((t.as_secs_f64() - 8.0 * 9276.0 / 8.533e9).abs() < 1e-12, "{t:?}");
        assert!(b.t_dma(9216, Dir::Tx) < t, "o_rx > o_tx: receive is the slower direction");
    }

    #[test]
    fn transfers_are_served_in_request_order() {
        let mut b = pcix();
        let rx = b.t_dma(1518, Dir::Rx);
        let tx = b.t_dma(90, Dir::Tx);
        let e1 = b.reserve(SimTime(0), 1518, Dir::Rx);
        let e2 = b.reserve(SimTime(10), 90, Dir::Tx);
        assert_eq!(e1, SimTime(0) + rx);
        assert_eq!(e2, e1 + tx, "the second waits for the first");
        let later = SimTime(1_000_000_000);
        assert_eq!(b.reserve(later, 1518, Dir::Rx), later + rx, "an idle bus starts at once");
        assert_eq!(b.busy, rx + tx + rx);
        assert_eq!((b.transfers_rx, b.transfers_tx), (2, 1));
    }
}
