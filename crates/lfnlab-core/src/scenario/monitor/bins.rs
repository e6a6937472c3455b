//! How many bins each binned series of a scenario makes, and the bound on it.
//!
//! A binned series (the TCP trace of `sim.trace.bin`, each `[[monitor]]`, each
//! host CPU's accounting) closes one bin per `bin` of simulated time, whether
//! anything happened in it or not. Bins close lazily inside other events
//! (`monitor::link_monitor`), so neither `max_events` nor `wall_timeout` stops
//! them: a bin of "1ns" over "100ms" would build 10^8 rows per series before
//! the run could notice. The loader refuses such a scenario instead.

use crate::scenario::model::{Scenario, TraceMode};
use crate::scenario::resolve::Ctx;
use crate::scenario::units::TimeSpan;
use crate::error::InputError;

/// CHOICE (docs/choices.md): at most 10^7 bins per series, 1 µs bins over 10 s
/// or 100 µs bins over 1000 s. A series of that length already holds hundreds
/// of MB of rows; more is almost always a typo ("1ns" for "1ms").
pub const MAX_BINS_PER_SERIES: u64 = 10_000_000;

/// Bins of width `bin` that cover `duration` (a partial last bin counts).
pub fn bin_count(duration: TimeSpan, bin: TimeSpan) -> u64 {
    duration.ps().div_ceil(bin.ps().max(1))
}

/// Every binned series of a resolved scenario: (key path of its bin, bin, bins).
pub fn series(s: &Scenario) -> Vec<(String, TimeSpan, u64)> {
    let Some(duration) = s.sim.duration else { return Vec::new() };
    let mut out = Vec::new();
    let mut add = |key: String, bin: TimeSpan| out.push((key, bin, bin_count(duration, bin)));
    if let Some(t) = &s.sim.trace {
        if let (Some(TraceMode::Bin), Some(bin)) = (t.mode, t.bin) {
            add("sim.trace.bin".into(), bin);
        }
    }
    for (i, m) in s.monitor.iter().enumerate() {
        add(format!("monitor[{i}].bin"), m.bin);
    }
    for (i, n) in s.node.iter().enumerate() {
        if let Some(bin) = n.cpu.as_ref().and_then(|c| c.bin) {
            add(format!("node[{i}].cpu.bin"), bin);
        }
    }
    out
}

/// The first series of more than [`MAX_BINS_PER_SERIES`] bins, as an error at
/// its key path.
/// `duration` is the scenario's checked `sim.duration`.
pub fn check_bin_counts(s: &Scenario, duration: TimeSpan, ctx: &Ctx) -> Result<(), InputError> {
    match series(s).into_iter().find(|(_, _, n)| *n > MAX_BINS_PER_SERIES) {
        None => Ok(()),
        Some((key, bin, n)) => Err(ctx.err(
            key,
            format!(
                "a bin of {bin} over sim.duration {duration} makes {n} bins; expected at most {MAX_BINS_PER_SERIES} bins per series: use a wider bin or a shorter run"
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::Span;

    fn t(s: Span) -> TimeSpan {
        TimeSpan::from_span(s)
    }

    #[test]
    fn a_partial_last_bin_counts() {
        assert_eq!(bin_count(t(Span::from_ms(100)), t(Span::from_ms(10))), 10);
        assert_eq!(bin_count(t(Span::from_ms(101)), t(Span::from_ms(10))), 11);
        assert_eq!(bin_count(t(Span::from_ms(1)), t(Span::from_ms(10))), 1);
        assert_eq!(bin_count(t(Span::from_ms(100)), t(Span(1_000))), 100_000_000);
    }
}
