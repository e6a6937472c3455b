//! Metering and approval bookkeeping of the QS interface function
//! (spec 02 §2.5.2, §2.5.3), advanced lazily from `now`.
//!
//! Nothing here owns a timer: every call passes the current time, and the
//! structures first roll forward over all interval boundaries passed since the
//! last call. Intervals in which no packet was seen count as empty (B = 0), and
//! approvals older than K intervals are gone. All buffers are allocated once in
//! `new`; the per-packet path does not allocate. Time is expected not to go
//! backwards; a `now` in an interval already left is read as the current one.

use crate::engine::time::{SimTime, Span};

use super::router_config::{RouterConfig, UtilEstimator};

/// Fixed-length intervals [b + kL, b + (k+1)L) with boundaries at the phase b
/// modulo L. Index 0 is the interval that contains time 0 (partial when b > 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntervalClock {
    /// Interval length L in picoseconds (at least 1).
    len_ps: u64,
    /// (L − b mod L) mod L: shifts time so that boundaries fall on multiples of L.
    offset_ps: u64,
}

impl IntervalClock {
    /// Intervals of length `len` (0 is read as 1 ps) with a boundary at `phase`.
    pub fn new(len: Span, phase: Span) -> IntervalClock {
        let len_ps = len.ps().max(1);
        IntervalClock { len_ps, offset_ps: (len_ps - phase.ps() % len_ps) % len_ps }
    }

    /// Index of the interval containing `now`.
    pub fn index(&self, now: SimTime) -> u64 {
        ((now.ps() as u128 + self.offset_ps as u128) / self.len_ps as u128) as u64
    }

    /// The interval length in seconds.
    pub fn len_secs(&self) -> f64 {
        Span(self.len_ps).as_secs_f64()
    }
}

/// Byte counter per metering interval D (spec 02 §2.5.2).
#[derive(Clone, Debug)]
pub struct ByteMeter {
    /// The interval grid.
    clock: IntervalClock,
    /// Index k of the current interval.
    index: u64,
    /// Bytes counted so far in interval k.
    current_bytes: u64,
    /// B_(k−1): bytes of the previous interval (0 if it was empty or k = 0).
    last_bytes: u64,
}

impl ByteMeter {
    /// A meter with interval `interval` and boundaries at `phase` + k·D, empty.
    pub fn new(interval: Span, phase: Span) -> ByteMeter {
        ByteMeter { clock: IntervalClock::new(interval, phase), index: 0, current_bytes: 0, last_bytes: 0 }
    }

    /// Rolls forward to the interval containing `now`: the current count is
    /// frozen as B_k if exactly one boundary passed, otherwise the interval
    /// before `now`'s was empty and B = 0.
    pub fn advance(&mut self, now: SimTime) {
        let k = self.clock.index(now);
        if k > self.index {
            self.last_bytes = if k == self.index + 1 { self.current_bytes } else { 0 };
            self.current_bytes = 0;
            self.index = k;
        }
    }

    /// Counts `bytes` in the current interval (call [`ByteMeter::advance`] first).
    pub fn add(&mut self, bytes: u64) {
        self.current_bytes = self.current_bytes.saturating_add(bytes);
    }

    /// R_meas of `last_interval`: 8·B_(k−1)/D bit/s (0 during interval 0).
    pub fn last_rate_bps(&self) -> f64 {
        8.0 * self.last_bytes as f64 / self.clock.len_secs()
    }

    /// Index of the current interval.
    pub fn index(&self) -> u64 {
        self.index
    }

    /// Bytes counted so far in the current interval.
    pub fn current_bytes(&self) -> u64 {
        self.current_bytes
    }
}

/// Rate samples of length S for the `peak` estimator (spec 02 §2.5.1): the
/// peak over the last P completed samples.
#[derive(Clone, Debug)]
pub struct PeakSampler {
    /// The sample grid.
    clock: IntervalClock,
    /// Index j of the current (incomplete) sample.
    index: u64,
    /// Bytes counted so far in sample j.
    current_bytes: u64,
    /// Bytes of the last P completed samples (a ring; missing samples are 0).
    completed_bytes: Vec<u64>,
    /// Ring position of the most recently completed sample.
    pos: usize,
}

impl PeakSampler {
    /// `samples` (P, at least 1) samples of length `sample`, boundaries at `phase` + j·S.
    pub fn new(sample: Span, samples: u32, phase: Span) -> PeakSampler {
        PeakSampler {
            clock: IntervalClock::new(sample, phase),
            index: 0,
            current_bytes: 0,
            completed_bytes: vec![0; samples.max(1) as usize],
            pos: 0,
        }
    }

    /// Rolls forward to the sample containing `now`; skipped samples are 0.
    pub fn advance(&mut self, now: SimTime) {
        let j = self.clock.index(now);
        if j <= self.index {
            return;
        }
        let p = self.completed_bytes.len();
        let mut fill = self.current_bytes;
        // More than P boundaries: only the last P completed samples matter.
        let steps = (j - self.index).min(p as u64);
        for _ in 0..steps {
            self.pos = (self.pos + 1) % p;
            self.completed_bytes[self.pos] = fill;
            fill = 0;
        }
        if j - self.index > p as u64 {
            // The sample frozen first is older than the last P: forget it too.
            self.completed_bytes.iter_mut().for_each(|b| *b = 0);
        }
        self.current_bytes = 0;
        self.index = j;
    }

    /// Counts `bytes` in the current sample (call [`PeakSampler::advance`] first).
    pub fn add(&mut self, bytes: u64) {
        self.current_bytes = self.current_bytes.saturating_add(bytes);
    }

    /// max over the last P completed samples of 8·bytes/S, bit/s.
    pub fn peak_rate_bps(&self) -> f64 {
        let max = self.completed_bytes.iter().copied().max().unwrap_or(0);
        8.0 * max as f64 / self.clock.len_secs()
    }
}

/// The utilization meter of one interface: the D-interval byte counter plus,
/// with the `peak` estimator, the S-sample peak (spec 02 §2.5.2, §2.5.1).
#[derive(Clone, Debug)]
pub struct Meter {
    /// Bytes per metering interval D.
    bytes: ByteMeter,
    /// Present only with `util_estimator = peak`.
    peak: Option<PeakSampler>,
}

impl Meter {
    /// The meter configured by `cfg` (interval, phase, estimator).
    pub fn new(cfg: &RouterConfig) -> Meter {
        let peak = match cfg.util_estimator {
            UtilEstimator::LastInterval => None,
            UtilEstimator::Peak { sample, samples } => Some(PeakSampler::new(sample, samples, cfg.meter_phase)),
        };
        Meter { bytes: ByteMeter::new(cfg.meter_interval, cfg.meter_phase), peak }
    }

    /// Rolls every grid forward to `now`.
    pub fn advance(&mut self, now: SimTime) {
        self.bytes.advance(now);
        if let Some(p) = &mut self.peak {
            p.advance(now);
        }
    }

    /// Counts one packet's IP total length (call [`Meter::advance`] first).
    pub fn add(&mut self, l3_bytes: u64) {
        self.bytes.add(l3_bytes);
        if let Some(p) = &mut self.peak {
            p.add(l3_bytes);
        }
    }

    /// R_meas per the configured estimator, bit/s.
    pub fn measured_rate_bps(&self) -> f64 {
        match &self.peak {
            None => self.bytes.last_rate_bps(),
            Some(p) => p.peak_rate_bps(),
        }
    }

    /// The D-interval byte counter (for reports such as link utilization).
    pub fn bytes(&self) -> &ByteMeter {
        &self.bytes
    }
}

/// K slots of approved rate, one per metering interval (spec 02 §2.5.3).
/// An approval made during interval k counts until interval k + K begins:
/// between (K−1)·D and K·D after it was made.
#[derive(Clone, Debug)]
pub struct ApprovalRing {
    /// The metering interval grid (the same as the meter's).
    clock: IntervalClock,
    /// Interval index of the current slot.
    index: u64,
    /// Sum of approved rates per slot, bit/s (Rate(N) are integers, so sums are exact).
    slots_bps: Vec<u64>,
    /// Position of the current slot.
    pos: usize,
}

impl ApprovalRing {
    /// `slots` (K, at least 1) empty slots on the interval grid `interval`, `phase`.
    pub fn new(interval: Span, phase: Span, slots: u32) -> ApprovalRing {
        ApprovalRing { clock: IntervalClock::new(interval, phase), index: 0, slots_bps: vec![0; slots.max(1) as usize], pos: 0 }
    }

    /// Advances the pointer once per boundary passed, clearing each new current
    /// slot; after K or more boundaries every slot is clear.
    pub fn advance(&mut self, now: SimTime) {
        let k = self.clock.index(now);
        if k <= self.index {
            return;
        }
        let n = self.slots_bps.len();
        let steps = (k - self.index).min(n as u64);
        for _ in 0..steps {
            self.pos = (self.pos + 1) % n;
            self.slots_bps[self.pos] = 0;
        }
        self.index = k;
    }

    /// Adds an approved rate to the current slot (call [`ApprovalRing::advance`] first).
    pub fn add(&mut self, rate_bps: u64) {
        self.slots_bps[self.pos] = self.slots_bps[self.pos].saturating_add(rate_bps);
    }

    /// R_recent: the sum of all slots, bit/s.
    pub fn sum_bps(&self) -> u64 {
        self.slots_bps.iter().fold(0u64, |a, &s| a.saturating_add(s))
    }
}

#[cfg(test)]
#[path = "meter_tests.rs"]
mod tests;
