//! Per-packet delay impairments of a real circuit (spec 04 §2.12): jitter,
//! an extra delay U[0, j_max] that keeps the link's FIFO order, and
//! reordering, where with probability `p_reo` a packet is held back by
//! `Δ_reo` and later packets may overtake it. Sans-IO: it turns a frame's
//! undisturbed arrival time into its actual one.

use crate::engine::rng::Stream;
use crate::engine::time::{SimTime, Span};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImpairConfig {
    pub jitter_max: Span,
    pub p_reorder: f64,
    pub reorder_delay: Span,
}

pub struct Impair {
    cfg: ImpairConfig,
    rng: Stream,
    /// Latest arrival given to an in-order frame (the FIFO bound for jitter).
    last_in_order: SimTime,
    pub reordered: u64,
}

impl Impair {
    pub fn new(cfg: ImpairConfig, rng: Stream) -> Impair {
        Impair { cfg, rng, last_in_order: SimTime::ZERO, reordered: 0 }
    }

    /// The arrival of a frame due at `base` without impairments, and whether
    /// it was held back (it then leaves the FIFO order).
    pub fn arrival(&mut self, base: SimTime) -> (SimTime, bool) {
        let jitter = if self.cfg.jitter_max > Span::ZERO { Span((self.rng.next_f64() * self.cfg.jitter_max.0 as f64) as u64) } else { Span::ZERO };
        if self.cfg.p_reorder > 0.0 && self.rng.bernoulli(self.cfg.p_reorder) {
            self.reordered += 1;
            return (base + jitter + self.cfg.reorder_delay, true);
        }
        let t = (base + jitter).max(self.last_in_order);
        self.last_in_order = t;
        (t, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jitter_never_reorders_and_stays_within_its_bound() {
        let cfg = ImpairConfig { jitter_max: Span::from_us(50), p_reorder: 0.0, reorder_delay: Span::ZERO };
        let mut im = Impair::new(cfg, Stream::derive(3, "j"));
        let mut last = SimTime::ZERO;
        for k in 0..10_000u64 {
            let base = SimTime::ZERO + Span::from_us(k);
            let (t, held) = im.arrival(base);
            assert!(!held && t >= last && t >= base);
            // Bounded by the jitter of this frame or of an earlier one.
            assert!(t <= base + Span::from_us(50));
            last = t;
        }
    }

    #[test]
    fn reordering_holds_back_the_asked_share() {
        let cfg = ImpairConfig { jitter_max: Span::ZERO, p_reorder: 0.01, reorder_delay: Span::from_us(100) };
        let mut im = Impair::new(cfg, Stream::derive(3, "r"));
        let n = 100_000u64;
        for k in 0..n {
            let base = SimTime::ZERO + Span::from_us(k);
            let (t, held) = im.arrival(base);
            assert_eq!(t, if held { base + Span::from_us(100) } else { base });
        }
        let share = im.reordered as f64 / n as f64;
        assert!((share - 0.01).abs() < 0.0015, "{share}");
    }
}
