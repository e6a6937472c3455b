//! Virtual time: an integer count of picoseconds (STYLE point 1).
//!
//! Picoseconds keep serialization exact to well under one part in 10^4 even at
//! 100 Gbit/s, where a 1538-byte frame lasts 123.04 ns. A `u64` of picoseconds
//! spans about 213 days of simulated time, far beyond any scenario.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// A point in simulated time, in picoseconds since the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

/// A span of simulated time, in picoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
pub struct Span(pub u64);

pub const PS_PER_NS: u64 = 1_000;
pub const PS_PER_US: u64 = 1_000_000;
pub const PS_PER_MS: u64 = 1_000_000_000;
pub const PS_PER_S: u64 = 1_000_000_000_000;

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    /// A time later than any event; used as "never".
    pub const NEVER: SimTime = SimTime(u64::MAX);

    pub fn from_secs_f64(s: f64) -> SimTime {
        SimTime((s * PS_PER_S as f64).round() as u64)
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_S as f64
    }
    pub fn ps(self) -> u64 {
        self.0
    }
    /// Time since `earlier`, zero if `earlier` is later.
    pub fn since(self, earlier: SimTime) -> Span {
        Span(self.0.saturating_sub(earlier.0))
    }
}

impl Span {
    pub const ZERO: Span = Span(0);
    pub const MAX: Span = Span(u64::MAX);

    pub const fn from_ns(ns: u64) -> Span {
        Span(ns * PS_PER_NS)
    }
    pub const fn from_us(us: u64) -> Span {
        Span(us * PS_PER_US)
    }
    pub const fn from_ms(ms: u64) -> Span {
        Span(ms * PS_PER_MS)
    }
    pub const fn from_secs(s: u64) -> Span {
        Span(s * PS_PER_S)
    }
    pub fn from_secs_f64(s: f64) -> Span {
        Span((s.max(0.0) * PS_PER_S as f64).round() as u64)
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_S as f64
    }
    pub fn ps(self) -> u64 {
        self.0
    }
    /// Time to serialize `bytes` at `rate_bps`, rounded up to the next picosecond.
    pub fn serialization(bytes: u64, rate_bps: u64) -> Span {
        debug_assert!(rate_bps > 0);
        let bits = bytes as u128 * 8 * PS_PER_S as u128;
        Span(bits.div_ceil(rate_bps as u128) as u64)
    }
    pub fn saturating_mul(self, k: u64) -> Span {
        Span(self.0.saturating_mul(k))
    }
}

impl Add<Span> for SimTime {
    type Output = SimTime;
    fn add(self, rhs: Span) -> SimTime {
        SimTime(self.0.saturating_add(rhs.0))
    }
}
impl AddAssign<Span> for SimTime {
    fn add_assign(&mut self, rhs: Span) {
        self.0 = self.0.saturating_add(rhs.0);
    }
}
impl Sub<Span> for SimTime {
    type Output = SimTime;
    fn sub(self, rhs: Span) -> SimTime {
        SimTime(self.0.saturating_sub(rhs.0))
    }
}
impl Add for Span {
    type Output = Span;
    fn add(self, rhs: Span) -> Span {
        Span(self.0.saturating_add(rhs.0))
    }
}
impl Sub for Span {
    type Output = Span;
    fn sub(self, rhs: Span) -> Span {
        Span(self.0.saturating_sub(rhs.0))
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialization_of_a_full_frame() {
        // 1538 wire bytes at 1 Gbit/s: 1538·8/1e9 s = 12.304 µs.
        assert_eq!(Span::serialization(1538, 1_000_000_000), Span(12_304_000));
        // At 100 Gbit/s: 123.04 ns, exact in picoseconds.
        assert_eq!(Span::serialization(1538, 100_000_000_000), Span(123_040));
        // 9.95 Gbit/s does not divide evenly: rounded up.
        assert_eq!(Span::serialization(1, 9_950_000_000), Span(805));
    }
}
