//! The 32-bit IPG counter word of one stream (spec 03 §2.7.4).
//!
//! | bits (defaults) | field |
//! |---|---|
//! | 31..9 | remaining IPG, in ticks |
//! | 8 | Active |
//! | 7 | Ready |
//! | 6..0 | wait counter |
//!
//! The counter is analytic: a stream stores the time it becomes Ready
//! (`ready_at`) and the field is derived from it, so nothing ticks every 64 ns.
//! Bits 8..0 are the 9-bit comparator input of the scheduler (§2.7.5).

use crate::engine::time::{SimTime, Span};

/// The four fields of a counter word.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CounterFields {
    /// Ticks until the stream's IPG has elapsed.
    pub remaining: u32,
    pub active: bool,
    pub ready: bool,
    pub wait: u8,
}

impl CounterFields {
    /// The word with a `wait_bits`-wide wait counter (remaining starts at bit wait_bits + 2).
    pub fn pack(self, wait_bits: u32) -> u32 {
        debug_assert!(u32::from(self.wait) < (1 << wait_bits));
        (self.remaining << (wait_bits + 2)) | (u32::from(self.active) << (wait_bits + 1)) | (u32::from(self.ready) << wait_bits) | u32::from(self.wait)
    }

    pub fn unpack(word: u32, wait_bits: u32) -> CounterFields {
        CounterFields {
            remaining: word >> (wait_bits + 2),
            active: word >> (wait_bits + 1) & 1 == 1,
            ready: word >> wait_bits & 1 == 1,
            wait: (word & ((1 << wait_bits) - 1)) as u8,
        }
    }

    /// The comparator input: Ready above the wait counter (§2.7.5).
    pub fn priority(self, wait_bits: u32) -> u32 {
        (u32::from(self.ready) << wait_bits) | u32::from(self.wait)
    }
}

/// Remaining-IPG field at `now` for a stream Ready at `ready_at`:
/// ceil((ready_at − now) / tick), clamped to `max_count`. While the stream's own
/// frame is on the wire this reads above the n loaded at its end.
pub fn remaining_ticks(ready_at: SimTime, now: SimTime, tick: Span, max_count: u32) -> u32 {
    debug_assert!(tick > Span::ZERO);
    let left = ready_at.since(now).0;
    left.div_ceil(tick.0).min(max_count as u64) as u32
}
