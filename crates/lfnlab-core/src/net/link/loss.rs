//! Random loss on a link direction, applied to frames as they arrive (spec 06
//! §1.2 `link.loss`; the Gilbert–Elliott circuit of spec 04 §2.12). Sans-IO:
//! the world asks [`Loss::drops`] for each arriving frame; the model counts
//! its own drops.

use super::gilbert::GilbertElliott;
use crate::engine::rng::Stream;
use crate::engine::time::SimTime;
use crate::net::drop::DropCause;
use crate::net::packet::Packet;

pub struct Loss {
    /// Per-frame loss probability (Bernoulli), when there is no circuit.
    pub p: f64,
    /// A Gilbert–Elliott circuit sets p over time instead (spec 04 §2.12).
    pub ge: Option<GilbertElliott>,
    /// Frames this loss dropped (`circuit_loss`, spec 04 §2.13).
    pub dropped: u64,
    /// Only data frames are lost (`applies_to = "data"`, the default).
    pub data_only: bool,
    /// Active for arrivals in [start, stop).
    pub start: SimTime,
    pub stop: SimTime,
    pub rng: Stream,
}

impl Loss {
    /// Is `pkt`, arriving at `now`, lost? Counts the drop and says why. The
    /// random stream is drawn only for frames the loss applies to.
    #[inline]
    pub fn drops(&mut self, now: SimTime, pkt: &Packet) -> Option<DropCause> {
        let p = match self.ge.as_mut() {
            Some(g) => g.loss_p(now),
            None => self.p,
        };
        if (!self.data_only || pkt.is_data()) && now >= self.start && now < self.stop && self.rng.bernoulli(p) {
            self.dropped += 1;
            return Some(self.cause());
        }
        None
    }

    /// The cause of this model's drops.
    pub fn cause(&self) -> DropCause {
        if self.ge.is_some() {
            DropCause::CircuitLoss
        } else {
            DropCause::LinkLoss
        }
    }

    /// The circuit is in its Bad state at `now` (the link then runs at κ_B·rate, spec 04 §2.12).
    pub fn circuit_bad(&mut self, now: SimTime) -> bool {
        self.ge.as_mut().is_some_and(|g| g.is_bad(now))
    }
}
