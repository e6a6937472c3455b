//! A circuit's Gilbert–Elliott state (spec 04 §2.12): Good and Bad states with
//! exponential stay times of mean `T_G` and `T_B` and a per-packet loss
//! probability in each. The state evolves in time on its own random stream,
//! whatever the traffic, so two runs that differ only in traffic see the same
//! circuit. Sans-IO: the caller asks for the loss probability at `now`.

use crate::engine::rng::Stream;
use crate::engine::time::{SimTime, Span};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GilbertConfig {
    pub mean_good: Span,
    pub mean_bad: Span,
    pub p_good: f64,
    pub p_bad: f64,
}

pub struct GilbertElliott {
    cfg: GilbertConfig,
    bad: bool,
    /// When the current stay ends.
    next_switch: SimTime,
    since: SimTime,
    rng: Stream,
    bad_time: Span,
    /// (time, entered Bad) for every change of state.
    pub transitions: Vec<(SimTime, bool)>,
}

impl GilbertElliott {
    /// CHOICE: the circuit starts in Good at time 0.
    pub fn new(cfg: GilbertConfig, mut rng: Stream) -> GilbertElliott {
        let first = exp_span(&mut rng, cfg.mean_good);
        GilbertElliott { cfg, bad: false, next_switch: SimTime::ZERO + first, since: SimTime::ZERO, rng, bad_time: Span::ZERO, transitions: Vec::new() }
    }

    fn advance(&mut self, now: SimTime) {
        while self.next_switch <= now {
            let t = self.next_switch;
            if self.bad {
                self.bad_time = self.bad_time + t.since(self.since);
            }
            self.bad = !self.bad;
            self.since = t;
            self.transitions.push((t, self.bad));
            let mean = if self.bad { self.cfg.mean_bad } else { self.cfg.mean_good };
            self.next_switch = t + exp_span(&mut self.rng, mean);
        }
    }

    /// The per-packet loss probability at `now`.
    pub fn loss_p(&mut self, now: SimTime) -> f64 {
        self.advance(now);
        if self.bad { self.cfg.p_bad } else { self.cfg.p_good }
    }

    pub fn is_bad(&mut self, now: SimTime) -> bool {
        self.advance(now);
        self.bad
    }

    /// Time spent in Bad up to `end`.
    pub fn bad_time(&mut self, end: SimTime) -> Span {
        self.advance(end);
        if self.bad { self.bad_time + end.since(self.since) } else { self.bad_time }
    }
}

/// An exponential draw of mean `mean`, at least 1 ps.
fn exp_span(rng: &mut Stream, mean: Span) -> Span {
    let u = rng.next_f64();
    Span(((-(1.0 - u).ln()) * mean.0 as f64).round().max(1.0) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ge(good_s: u64, bad_s: u64) -> GilbertElliott {
        let cfg = GilbertConfig { mean_good: Span::from_secs(good_s), mean_bad: Span::from_secs(bad_s), p_good: 0.0, p_bad: 1e-3 };
        GilbertElliott::new(cfg, Stream::derive(1, "ge"))
    }

    #[test]
    fn the_bad_share_approaches_t_bad_over_the_sum() {
        // Mean stays 3 s and 1 s: Bad a quarter of the time over many cycles.
        let mut g = ge(3, 1);
        let end = SimTime::ZERO + Span::from_secs(40_000);
        let share = g.bad_time(end).as_secs_f64() / 40_000.0;
        assert!((share - 0.25).abs() < 0.01, "bad share {share}");
        // States alternate and times increase.
        assert!(g.transitions.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 != w[1].1));
        assert!(g.transitions[0].1, "the first change enters Bad");
    }

    #[test]
    fn the_loss_probability_follows_the_state() {
        let mut g = ge(3, 1);
        assert_eq!(g.loss_p(SimTime::ZERO), 0.0, "Good at time 0");
        // Find the first switch by stepping.
        let mut t = SimTime::ZERO;
        while !g.is_bad(t) {
            t += Span::from_ms(1);
        }
        assert_eq!(g.loss_p(t), 1e-3);
        assert!(g.transitions[0].0 <= t && t < g.transitions[0].0 + Span::from_ms(1));
    }

    #[test]
    fn the_same_stream_gives_the_same_circuit() {
        let (mut a, mut b) = (ge(2, 2), ge(2, 2));
        let end = SimTime::ZERO + Span::from_secs(100);
        assert_eq!(a.bad_time(end), b.bad_time(end));
        assert_eq!(a.transitions, b.transitions);
    }
}
