//! ProbeBW's gain cycle (spec 06 §4.4 "ProbeBW").

use super::gains::{PHASE_DOWN, PHASE_UP, PROBE_BW_CYCLE, next_phase};
use crate::engine::time::{SimTime, Span};

/// Where ProbeBW is in its cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProbeBw {
    /// Index into [`PROBE_BW_CYCLE`].
    pub phase: usize,
    /// When the current phase began.
    pub phase_start: SimTime,
}

/// What a phase change looks at, per ACK.
#[derive(Clone, Copy, Debug)]
pub struct PhaseInput {
    pub now: SimTime,
    /// RTprop, the nominal phase length.
    pub rtprop: Span,
    /// Segments in flight after the ACK.
    pub in_flight: u64,
    /// BtlBw·RTprop in segments.
    pub bdp_segments: f64,
    /// The ACK marked segments Lost.
    pub loss: bool,
}

impl ProbeBw {
    pub fn new(phase: usize, now: SimTime) -> ProbeBw {
        debug_assert!(phase < PROBE_BW_CYCLE.len());
        ProbeBw { phase, phase_start: now }
    }

    pub fn pacing_gain(&self) -> f64 {
        PROBE_BW_CYCLE[self.phase]
    }

    /// Advance to the next phase if the current one is over; true if it did.
    pub fn update(&mut self, i: &PhaseInput) -> bool {
        let full_length = i.now.since(self.phase_start) > i.rtprop;
        let in_flight = i.in_flight as f64;
        let over = match self.phase {
            // Probe up: keep going past one RTprop until the extra quarter is
            // actually in flight, unless a loss says the pipe is already full.
            PHASE_UP => full_length && (i.loss || in_flight >= PROBE_BW_CYCLE[PHASE_UP] * i.bdp_segments),
            // Drain the probe's queue: stop early once it is gone.
            PHASE_DOWN => full_length || in_flight <= i.bdp_segments,
            _ => full_length,
        };
        if over {
            self.phase = next_phase(self.phase);
            self.phase_start = i.now;
        }
        over
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RTPROP: Span = Span::from_ms(40);

    fn input(now_ms: u64, in_flight: u64, loss: bool) -> PhaseInput {
        PhaseInput { now: SimTime(Span::from_ms(now_ms).ps()), rtprop: RTPROP, in_flight, bdp_segments: 100.0, loss }
    }

    #[test]
    fn cruise_phases_last_one_rtprop() {
        let mut p = ProbeBw::new(2, SimTime::ZERO);
        assert_eq!(p.pacing_gain(), 1.0);
        assert!(!p.update(&input(40, 100, false)));
        assert!(p.update(&input(41, 100, false)));
        assert_eq!((p.phase, p.phase_start), (3, SimTime(Span::from_ms(41).ps())));
    }

    #[test]
    fn probe_up_continues_until_a_quarter_more_is_in_flight_or_a_loss() {
        let mut p = ProbeBw::new(PHASE_UP, SimTime::ZERO);
        assert_eq!(p.pacing_gain(), 1.25);
        // 1.25 · BDP 100 = 125 segments; 124 in flight after 60 ms is not enough.
        assert!(!p.update(&input(30, 130, false)));
        assert!(!p.update(&input(60, 124, false)));
        assert!(p.update(&input(61, 125, false)));
        assert_eq!(p.phase, PHASE_DOWN);
        // A loss ends it after one RTprop even with little in flight…
        let mut p = ProbeBw::new(PHASE_UP, SimTime::ZERO);
        assert!(p.update(&input(41, 90, true)));
        // …but not before.
        let mut p = ProbeBw::new(PHASE_UP, SimTime::ZERO);
        assert!(!p.update(&input(20, 90, true)));
    }

    #[test]
    fn drain_phase_ends_once_the_queue_is_gone() {
        let mut p = ProbeBw::new(PHASE_DOWN, SimTime::ZERO);
        assert_eq!(p.pacing_gain(), 0.75);
        assert!(!p.update(&input(10, 101, false)));
        assert!(p.update(&input(11, 100, false)));
        assert_eq!(p.phase, 2);
        // Or after one RTprop whatever is in flight.
        let mut p = ProbeBw::new(PHASE_DOWN, SimTime::ZERO);
        assert!(p.update(&input(41, 120, false)));
    }

    #[test]
    fn the_cycle_wraps() {
        let mut p = ProbeBw::new(7, SimTime::ZERO);
        assert!(p.update(&input(41, 100, false)));
        assert_eq!(p.phase, PHASE_UP);
    }
}
