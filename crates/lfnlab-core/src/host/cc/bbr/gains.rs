//! BBR v1 gains and the ProbeBW gain cycle (spec 06 §4.4 "Startup → Drain",
//! "ProbeBW").

use crate::engine::rng::Stream;

/// Startup pacing and cwnd gain: 2/ln 2 ≈ 2.885, the smallest gain that still
/// doubles the delivery rate every round (spec 06 §4.4 "Startup → Drain").
pub const HIGH_GAIN: f64 = 2.0 / std::f64::consts::LN_2;

/// ProbeBW cwnd gain (spec 06 §4.4 "ProbeBW").
pub const CWND_GAIN: f64 = 2.0;

/// ProbeBW pacing gains in cycle order (spec 06 §4.4 "ProbeBW"): probe up,
/// drain what the probe queued, then cruise for six phases.
pub const PROBE_BW_CYCLE: [f64; 8] = [5.0 / 4.0, 3.0 / 4.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];

/// Index of the 5/4 (probe up) phase in [`PROBE_BW_CYCLE`].
pub const PHASE_UP: usize = 0;
/// Index of the 3/4 (drain) phase in [`PROBE_BW_CYCLE`].
pub const PHASE_DOWN: usize = 1;

/// The phase after `phase`.
pub fn next_phase(phase: usize) -> usize {
    (phase + 1) % PROBE_BW_CYCLE.len()
}

/// A uniformly random ProbeBW start phase that is never the 3/4 phase
/// (spec 06 §4.4 "seeded random start phase, never 3/4"): starting in 3/4
/// right after Drain would drain a queue that is already gone.
pub fn random_start_phase(rng: &mut Stream) -> usize {
    // Seven allowed phases: 0 and 2..=7. The modulo bias of 2^64 mod 7 is
    // below 1e-18 and irrelevant.
    let k = (rng.next_u64() % (PROBE_BW_CYCLE.len() as u64 - 1)) as usize;
    let phase = if k < PHASE_DOWN { k } else { k + 1 };
    debug_assert!(phase != PHASE_DOWN && phase < PROBE_BW_CYCLE.len());
    phase
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gain_values() {
        // 2/ln 2 = 2/0.693147 = 2.885390; spec 06 §4.4 rounds it to 2.885.
        assert_eq!((HIGH_GAIN * 1000.0).round(), 2885.0);
        // Drain gain 1/2.885 = 0.3466 (spec 06 §4.4 "Drain → ProbeBW").
        assert_eq!((1.0 / HIGH_GAIN * 10_000.0).round(), 3466.0);
        assert_eq!(CWND_GAIN, 2.0);
    }

    #[test]
    fn cycle_order() {
        // spec 06 §4.4: [5/4, 3/4, 1, 1, 1, 1, 1, 1]; the mean gain is 1, so a
        // full cycle neither builds nor drains a queue.
        assert_eq!(PROBE_BW_CYCLE, [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]);
        assert_eq!(PROBE_BW_CYCLE.iter().sum::<f64>(), 8.0);
        assert_eq!(PROBE_BW_CYCLE[PHASE_UP], 1.25);
        assert_eq!(PROBE_BW_CYCLE[PHASE_DOWN], 0.75);
        let mut p = PHASE_UP;
        let mut order = vec![];
        for _ in 0..9 {
            order.push(p);
            p = next_phase(p);
        }
        assert_eq!(order, [0, 1, 2, 3, 4, 5, 6, 7, 0]);
    }

    #[test]
    fn start_phase_is_never_the_drain_phase_and_deterministic_per_seed() {
        let mut seen = [0u32; 8];
        for seed in 0..10_000u64 {
            let a = random_start_phase(&mut Stream::derive(seed, "bbr"));
            let b = random_start_phase(&mut Stream::derive(seed, "bbr"));
            assert_eq!(a, b, "seed {seed}");
            assert_ne!(a, PHASE_DOWN, "seed {seed}");
            seen[a] += 1;
        }
        // The other seven phases are equally likely: 10000/7 ≈ 1429 each,
        // binomial sd ≈ 35; allow ±5 sd.
        assert_eq!(seen[PHASE_DOWN], 0);
        for (phase, n) in seen.iter().enumerate().filter(|(p, _)| *p != PHASE_DOWN) {
            assert!((*n as f64 - 10_000.0 / 7.0).abs() < 5.0 * 35.0, "phase {phase}: {n}");
        }
    }
}
