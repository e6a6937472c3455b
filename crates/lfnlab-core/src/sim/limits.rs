//! Resource limits of a run (issue 12, `[sim] max_events`, `wall_timeout`,
//! `max_memory`): a run that would exceed one stops cleanly at an event
//! boundary, its results are finished as usual and marked partial
//! (`summary.partial`), and the caller fails it (exit status 1).
//!
//! The engine never reads a clock or the process's memory: the driver runs it
//! in chunks of events and checks the limits between chunks.

use std::time::{Duration, Instant};

use crate::scenario::model::Scenario;

/// CHOICE: events a run may execute by default (about 5 hours at 5·10^6 events/s).
pub const DEFAULT_MAX_EVENTS: u64 = 100_000_000_000;
/// CHOICE: wall-clock time a run may take by default.
pub const DEFAULT_WALL_TIMEOUT: Duration = Duration::from_secs(86_400);
/// Events between two checks of the wall clock and memory (a few ms of work).
pub const CHECK_EVERY_EVENTS: u64 = 1 << 16;

/// The limits of one run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub max_events: u64,
    pub wall_timeout: Duration,
    /// Resident memory of the process, bytes; `None` where it cannot be read.
    pub max_memory_bytes: Option<u64>,
}

impl Limits {
    /// The scenario's limits, defaults filled in.
    pub fn of(s: &Scenario) -> Limits {
        let sim = &s.sim;
        Limits {
            max_events: sim.max_events.unwrap_or(DEFAULT_MAX_EVENTS),
            wall_timeout: sim.wall_timeout.map_or(DEFAULT_WALL_TIMEOUT, |t| Duration::from_nanos(t.ps() / 1000)),
            max_memory_bytes: sim.max_memory.map(|m| m.bytes).or_else(|| physical_memory_bytes().map(|b| b / 4 * 3)),
        }
    }
}

/// Why a run stopped early.
#[derive(Clone, Debug, PartialEq)]
pub struct Stop {
    /// `max_events`, `wall_timeout`, `max_memory`, or `interrupted` (the observer of `sim::run_observed` asked to stop).
    pub limit: &'static str,
    /// What was reached, for the message.
    pub detail: String,
}

/// Checks the limits while a run goes on.
pub struct Watch {
    limits: Limits,
    started: Instant,
}

impl Watch {
    pub fn new(limits: Limits) -> Watch {
        Watch { limits, started: Instant::now() }
    }

    /// Events the run may still execute before the next check, `executed` so far.
    pub fn budget(&self, executed: u64) -> u64 {
        self.limits.max_events.saturating_sub(executed).min(CHECK_EVERY_EVENTS)
    }

    /// Has a limit been reached after `executed` events?
    pub fn check(&self, executed: u64) -> Option<Stop> {
        if executed >= self.limits.max_events {
            return Some(Stop { limit: "max_events", detail: format!("{executed} events executed (sim.max_events = {})", self.limits.max_events) });
        }
        let wall = self.started.elapsed();
        if wall > self.limits.wall_timeout {
            return Some(Stop { limit: "wall_timeout", detail: format!("{:.1} s of wall-clock time (sim.wall_timeout = {} s)", wall.as_secs_f64(), self.limits.wall_timeout.as_secs_f64()) });
        }
        let (Some(max), Some(rss)) = (self.limits.max_memory_bytes, resident_bytes()) else { return None };
        (rss > max).then(|| Stop { limit: "max_memory", detail: format!("{} MiB resident (sim.max_memory = {} MiB)", rss >> 20, max >> 20) })
    }
}

/// Resident set size of this process (Linux `/proc/self/statm`), bytes.
pub fn resident_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = text.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// Physical memory of the machine (Linux `/proc/meminfo` MemTotal), bytes.
fn physical_memory_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}
