//! Startup's exit test (spec 06 §4.4 "Startup → Drain"): the pipe is full
//! when BtlBw grew by less than 25 % over 3 non-app-limited rounds.

/// Plateau detector for BtlBw, fed once per round.
#[derive(Clone, Debug)]
pub struct FullPipe {
    /// Growth that counts as "still growing" (1.25 = 25 %).
    threshold: f64,
    /// Flat rounds in a row that declare the pipe full (3).
    rounds_needed: u32,
    /// BtlBw at the last growth step, bytes/s.
    baseline_bytes_per_s: f64,
    /// Flat rounds since the last growth step.
    flat_rounds: u32,
    /// Set once; BBR v1 never clears it (no restart of Startup after idle).
    reached: bool,
}

impl FullPipe {
    pub fn new(threshold: f64, rounds_needed: u32) -> FullPipe {
        assert!(threshold >= 1.0 && rounds_needed >= 1);
        FullPipe { threshold, rounds_needed, baseline_bytes_per_s: 0.0, flat_rounds: 0, reached: false }
    }

    pub fn reached(&self) -> bool {
        self.reached
    }

    /// A round ended with BtlBw `btlbw` (bytes/s). App-limited rounds say
    /// nothing about the bottleneck and are skipped.
    pub fn on_round(&mut self, btlbw: f64, app_limited: bool) {
        if self.reached || app_limited {
            return;
        }
        if btlbw >= self.baseline_bytes_per_s * self.threshold {
            // Still growing (always so while BtlBw is 0 and the baseline too:
            // no estimate yet is no plateau).
            self.baseline_bytes_per_s = btlbw;
            self.flat_rounds = 0;
            return;
        }
        self.flat_rounds += 1;
        self.reached = self.flat_rounds >= self.rounds_needed;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_after_exactly_three_flat_rounds() {
        let mut f = FullPipe::new(1.25, 3);
        // Doubling every round is growth (≥ 1.25×).
        for bw in [0.0, 1e6, 2e6, 4e6, 8e6] {
            f.on_round(bw, false);
            assert!(!f.reached());
        }
        // 8 → 9.9 Mbyte/s is +24 %: flat round 1; then 9.9 twice more. After
        // two flat rounds the pipe is not yet full, after the third it is.
        f.on_round(9.9e6, false);
        assert!(!f.reached());
        f.on_round(9.9e6, false);
        assert!(!f.reached());
        f.on_round(9.9e6, false);
        assert!(f.reached());
    }

    #[test]
    fn growth_of_a_quarter_restarts_the_count() {
        let mut f = FullPipe::new(1.25, 3);
        f.on_round(8e6, false);
        f.on_round(8e6, false);
        f.on_round(8e6, false);
        // Exactly +25 % counts as growth: the baseline moves to 10 and the count restarts.
        f.on_round(10e6, false);
        f.on_round(10e6, false);
        f.on_round(10e6, false);
        assert!(!f.reached());
        f.on_round(10e6, false);
        assert!(f.reached());
    }

    #[test]
    fn app_limited_rounds_do_not_count() {
        let mut f = FullPipe::new(1.25, 3);
        f.on_round(8e6, false);
        for _ in 0..10 {
            f.on_round(8e6, true);
        }
        assert!(!f.reached());
        f.on_round(8e6, false);
        f.on_round(8e6, false);
        f.on_round(8e6, false);
        assert!(f.reached());
    }
}
