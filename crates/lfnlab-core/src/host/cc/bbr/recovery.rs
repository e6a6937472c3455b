//! BBR's loss response (spec 06 §4.4 "Loss"): on entering Recovery save
//! cwnd and set it to in_flight + delivered, conserve packets for one round,
//! and restore the saved cwnd on exit. The same saved cwnd is restored after
//! ProbeRTT (Linux `prior_cwnd`).

use super::super::AckSample;
use super::round::RoundMark;

#[derive(Clone, Debug, Default)]
pub struct Recovery {
    /// cwnd before the last Recovery, Loss or ProbeRTT episode, segments.
    prior_cwnd: f64,
    /// Recovery was entered and no ACK has delivered since.
    entry_pending: bool,
    /// Packet conservation lasts until this round is over.
    conservation: Option<RoundMark>,
}

impl Recovery {
    /// Remember `cwnd` for a later restore. Within an episode (already in
    /// Recovery/Loss, or in ProbeRTT) only a larger value replaces the saved one.
    pub fn save_cwnd(&mut self, cwnd: f64, within_episode: bool) {
        self.prior_cwnd = if within_episode { self.prior_cwnd.max(cwnd) } else { cwnd };
    }

    pub fn prior_cwnd(&self) -> f64 {
        self.prior_cwnd
    }

    /// Recovery entered when `delivered` segments had been delivered.
    pub fn enter(&mut self, delivered: u64) {
        self.entry_pending = true;
        self.conservation = Some(RoundMark::new(delivered));
    }

    /// Recovery or Loss left, or an RTO (which sets cwnd itself).
    pub fn stop(&mut self) {
        self.entry_pending = false;
        self.conservation = None;
    }

    /// Every ACK: end packet conservation once its round is over.
    pub fn observe(&mut self, ack: &AckSample) {
        if let Some(m) = &mut self.conservation
            && m.passed(ack)
        {
            self.conservation = None;
        }
    }

    /// An ACK delivering `acked` > 0 segments with `in_flight` left: the
    /// cwnd under the recovery rules, `None` when the normal rules apply.
    pub fn cwnd(&mut self, cwnd: f64, in_flight: u64, acked: u64) -> Option<f64> {
        debug_assert!(acked > 0);
        let floor = (in_flight + acked) as f64;
        // Entry: send one segment per segment delivered from here on.
        let entering = std::mem::take(&mut self.entry_pending);
        let cwnd = if entering { floor } else { cwnd };
        if self.conservation.is_some() {
            Some(cwnd.max(floor))
        } else if entering {
            Some(cwnd)
        } else {
            None
        }
    }
}
