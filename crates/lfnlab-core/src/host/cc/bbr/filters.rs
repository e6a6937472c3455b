//! The two BBR v1 path-model filters (spec 06 §4.4 "Filters"): BtlBw, the
//! maximum delivery rate over a window of rounds, and RTprop, the minimum RTT
//! whose estimate expires after a window of time.

use crate::engine::time::{SimTime, Span};

/// Windowed maximum over the last `window` rounds, one slot per round.
///
/// Exact (not the three-sample Kathleen Nichols approximation): a ring holds
/// the largest sample of each of the last `window` rounds. As in a minmax
/// filter, the window slides only when a sample arrives, so a connection that
/// produces no samples for a while keeps its last estimate instead of
/// decaying to zero.
#[derive(Clone, Debug)]
pub struct MaxFilter {
    /// `(round, largest sample of that round)`; slot `round % window`.
    slots: Vec<Option<(u64, f64)>>,
    /// The maximum over the slots still inside the window.
    best: f64,
}

impl MaxFilter {
    /// A filter over `window` ≥ 1 rounds.
    pub fn new(window: usize) -> MaxFilter {
        assert!(window >= 1, "a max filter needs a window of at least one round");
        MaxFilter { slots: vec![None; window], best: 0.0 }
    }

    /// Record `value` for `round`. Rounds never go backwards. A sample of
    /// round r counts for rounds r..r+window−1 (spec 06 §4.4 "10 rounds").
    pub fn update(&mut self, round: u64, value: f64) {
        debug_assert!(value.is_finite() && value >= 0.0);
        let w = self.slots.len() as u64;
        let slot = &mut self.slots[(round % w) as usize];
        match slot {
            Some((r, v)) if *r == round => *v = v.max(value),
            _ => *slot = Some((round, value)),
        }
        self.best = self
            .slots
            .iter()
            .flatten()
            .filter(|(r, _)| r + w > round)
            .map(|(_, v)| *v)
            .fold(0.0, f64::max);
    }

    /// The current maximum, 0 before the first sample.
    pub fn get(&self) -> f64 {
        self.best
    }
}

/// Minimum RTT with an age: a smaller sample replaces the estimate at once;
/// once the estimate is `window` old, the next sample replaces it whatever its
/// value (Linux `tcp_bbr.c` `bbr_update_min_rtt`). The age is also what
/// triggers ProbeRTT (spec 06 §4.4 "RTprop 10 s old").
#[derive(Clone, Debug)]
pub struct MinRttFilter {
    /// The estimate, `None` before the first sample.
    value: Option<Span>,
    /// When `value` was last set (or refreshed by ProbeRTT).
    stamp: SimTime,
    /// How long an estimate stays valid.
    window: Span,
}

impl MinRttFilter {
    pub fn new(window: Span) -> MinRttFilter {
        MinRttFilter { value: None, stamp: SimTime::ZERO, window }
    }

    /// The estimate has not been lowered or replaced for `window`.
    pub fn expired(&self, now: SimTime) -> bool {
        self.value.is_some() && now.since(self.stamp) >= self.window
    }

    /// Offer a sample. An equal sample does not refresh the age: in a
    /// perfectly steady path the estimate still expires and ProbeRTT runs.
    pub fn update(&mut self, now: SimTime, rtt: Span) {
        let expired = self.expired(now);
        if self.value.is_none_or(|v| rtt < v) || expired {
            self.value = Some(rtt);
            self.stamp = now;
        }
    }

    /// Restart the age of the current estimate (at the end of ProbeRTT).
    pub fn refresh(&mut self, now: SimTime) {
        self.stamp = now;
    }

    pub fn get(&self) -> Option<Span> {
        self.value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn btlbw_sample_expires_after_ten_rounds() {
        // A 100 sample in round 0, then 60 in every later round: the window
        // of 10 rounds covers rounds 0..=9, so round 10 is the first without it.
        let mut f = MaxFilter::new(10);
        f.update(0, 100.0);
        for round in 1..10 {
            f.update(round, 60.0);
            assert_eq!(f.get(), 100.0, "round {round}");
        }
        f.update(10, 60.0);
        assert_eq!(f.get(), 60.0);
    }

    #[test]
    fn btlbw_keeps_the_largest_sample_of_a_round_and_holds_without_samples() {
        let mut f = MaxFilter::new(10);
        assert_eq!(f.get(), 0.0);
        f.update(3, 50.0);
        f.update(3, 80.0);
        f.update(3, 70.0);
        assert_eq!(f.get(), 80.0);
        // Rounds 4..=12 produce no sample: the estimate holds.
        assert_eq!(f.get(), 80.0);
        // Round 13 is 10 rounds after round 3: the 80 leaves the window.
        f.update(13, 40.0);
        assert_eq!(f.get(), 40.0);
        // A gap longer than the window clears every older slot.
        f.update(100, 10.0);
        assert_eq!(f.get(), 10.0);
    }

    #[test]
    fn btlbw_second_best_takes_over() {
        // 100 at round 0, 90 at round 5, 50 after: 90 rules rounds 10..=14.
        let mut f = MaxFilter::new(10);
        f.update(0, 100.0);
        f.update(5, 90.0);
        f.update(9, 50.0);
        assert_eq!(f.get(), 100.0);
        f.update(10, 50.0);
        assert_eq!(f.get(), 90.0);
        f.update(14, 50.0);
        assert_eq!(f.get(), 90.0);
        f.update(15, 50.0);
        assert_eq!(f.get(), 50.0);
    }

    #[test]
    fn rtprop_expires_after_ten_seconds() {
        let ms = Span::from_ms;
        let at = |s: f64| SimTime::from_secs_f64(s);
        let mut f = MinRttFilter::new(Span::from_secs(10));
        assert_eq!(f.get(), None);
        assert!(!f.expired(at(100.0)));
        f.update(at(0.0), ms(50));
        // Larger samples (and an equal one) within 10 s leave 50 ms in place.
        for s in 1..10 {
            f.update(at(s as f64), ms(60));
            assert_eq!(f.get(), Some(ms(50)), "t = {s} s");
        }
        f.update(at(9.5), ms(50));
        assert!(!f.expired(at(9.999)));
        assert!(f.expired(at(10.0)));
        // 10 s after the 50 ms sample the next sample replaces it, larger or not.
        f.update(at(10.0), ms(60));
        assert_eq!(f.get(), Some(ms(60)));
        assert!(!f.expired(at(10.5)));
        // A smaller sample replaces it at once and restarts the age.
        f.update(at(12.0), ms(40));
        assert_eq!(f.get(), Some(ms(40)));
        assert!(!f.expired(at(21.9)));
        f.refresh(at(21.9));
        assert!(!f.expired(at(31.8)));
        assert!(f.expired(at(31.9)));
    }
}
