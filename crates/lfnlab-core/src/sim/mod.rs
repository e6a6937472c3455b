//! Building a world from a resolved scenario and running it.
//!
//! A world is the network (`network::Net`: clock, events, books, ports,
//! channels, monitors) and the drivers of its nodes, each handed the network:
//! the host driver (`host::Hosts`) and one driver per switch
//! (`switch::SwitchRuntime`); a router needs no state beyond the network, so
//! its forwarding path is a method of `Net`.
//!
//! A packet's path, file by file: a socket's segments leave through `host`
//! (pump, the host qdisc; `cpu` and `nic` when the host models them), its
//! egress `port` transmits them onto a link (`net::link`), `world` hands a
//! frame that arrives to its node's kind: `router` (its one forwarding path,
//! which `early` runs at launch time where nothing can change the outcome),
//! `switch` (the switch driver; `switch_fc` PAUSE generation) or `host`
//! again, which gives it to the socket. `books` is the one place a drop is
//! booked. `build` makes the world from the typed node configurations of
//! `scenario::node_config`, and `finish` the run's output, each in short
//! stages; `web` drives the Web workloads, `invariants` the checks, `limits`
//! the resource limits. `gen_bench` runs a spec 05 generator bench without
//! the event loop, through the same switch driver and step.

pub mod books;
pub mod build;
pub mod finish;
mod cpu;
mod early;
pub mod host;
mod router;
pub mod invariants;
pub mod limits;
pub mod network;
pub mod path;
pub mod gen_bench;
#[cfg(test)]
mod gen_bench_tests;
pub use cpu::MAX_CORES;
mod nic;
pub mod port;
mod switch;
mod switch_fc;
pub mod web;
pub mod world;

use std::ops::ControlFlow;

use crate::error::Error;
use crate::engine::time::SimTime;
use crate::results::summary::PartialSummary;
use limits::{Limits, Stop, Watch};
use crate::scenario::model::Scenario;

pub use crate::results::RunOutput;

/// Runs a resolved scenario (see `scenario::load_file`) to completion, or to a
/// resource limit (`limits`: the output is then marked `summary.partial`). Fails
/// with `Error::Runtime` if the end-of-run conservation check does not hold.
pub fn run(scenario: &Scenario) -> Result<RunOutput, Error> {
    run_with(scenario, build::BuildOptions::default())
}

/// [`run`] with explicit build options.
pub fn run_with(scenario: &Scenario, opts: build::BuildOptions) -> Result<RunOutput, Error> {
    run_observed_with(scenario, opts, &mut |_| ControlFlow::Continue(()))
}

/// [`run`] with every invariant checked after every event (`invariants`), as
/// debug builds always do; slower, for tests of a release build.
pub fn run_checked(scenario: &Scenario) -> Result<RunOutput, Error> {
    run_with(scenario, build::BuildOptions { check_invariants: true, ..build::BuildOptions::default() })
}

/// Where a run is, for a progress display (issue 10).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    /// Simulated seconds done.
    pub sim_s: f64,
    /// Simulated seconds in all.
    pub total_s: f64,
    /// Events executed so far.
    pub events: u64,
}

/// Number of slices a run is cut into for its observer.
pub const PROGRESS_SLICES: u64 = 1000;

/// [`run`], calling `observe` after each of [`PROGRESS_SLICES`] equal slices of
/// simulated time. The slices change nothing: the events and results are those
/// of [`run`]. The observer decides how often to show anything (by wall clock).
/// An observer that answers `Break` stops the run there, as a limit does: the
/// results cover what ran and are marked partial (`limit = "interrupted"`), so a
/// caller can honour Ctrl-C without presenting a partial result as complete.
pub fn run_observed(scenario: &Scenario, observe: &mut dyn FnMut(Progress) -> ControlFlow<()>) -> Result<RunOutput, Error> {
    run_observed_with(scenario, build::BuildOptions::default(), observe)
}

/// Build, drive to the end or a limit, finish: every run goes this way.
fn run_observed_with(scenario: &Scenario, opts: build::BuildOptions, observe: &mut dyn FnMut(Progress) -> ControlFlow<()>) -> Result<RunOutput, Error> {
    let wall = std::time::Instant::now();
    let mut world = build::build_with(scenario, opts)?;
    let stop = drive(&mut world, Limits::of(scenario), observe);
    finish_run(scenario, world, wall, stop)
}

/// Runs `world` slice by slice and, within a slice, in chunks of events between
/// which the limits are checked. Stopping between two chunks or going on gives
/// the same events in the same order as one uninterrupted loop.
fn drive(world: &mut world::World, limits: Limits, observe: &mut dyn FnMut(Progress) -> ControlFlow<()>) -> Result<Option<Stop>, invariants::Violation> {
    let watch = Watch::new(limits);
    let end = world.net.end;
    let total_s = end.as_secs_f64();
    let step_ps = (end.ps() / PROGRESS_SLICES).max(1);
    let mut at = SimTime::ZERO;
    while at < end {
        at = SimTime(at.ps().saturating_add(step_ps).min(end.ps()));
        loop {
            let done = world.run_until_or(at, watch.budget(world.net.log.count()));
            if let Some(v) = world.violation.take() {
                return Err(v);
            }
            if done && at == end {
                break;
            }
            if let Some(stop) = watch.check(world.net.log.count()) {
                return Ok(Some(stop));
            }
            if done {
                break;
            }
        }
        if observe(Progress { sim_s: at.as_secs_f64(), total_s, events: world.net.log.count() }).is_break() && at < end {
            return Ok(Some(Stop { limit: "interrupted", detail: "interrupted by the caller (Ctrl-C)".into() }));
        }
    }
    world.run();
    Ok(None)
}

/// The output of a finished or stopped world.
fn finish_run(scenario: &Scenario, mut world: world::World, wall: std::time::Instant, stop: Result<Option<Stop>, invariants::Violation>) -> Result<RunOutput, Error> {
    let stop = stop.map_err(|v| {
        let seed = scenario.sim.seed.unwrap_or(1);
        let name = scenario.sim.name.as_deref().unwrap_or("scenario");
        Error::Runtime(format!(
            "invariant `{}` broken at {:.9} s by {}: {}; seed {seed}; reproduce with: lfnlab run {name}.toml --set sim.seed={seed} (the scenario.toml of this run, in a debug build)",
            v.invariant,
            v.at.as_secs_f64(),
            v.entity,
            v.detail
        ))
    })?;
    let Some(stop) = stop else { return finish::finish(scenario, world, wall) };
    // The results cover what ran: up to the last event executed.
    world.net.end = world.net.now;
    let mut out = finish::finish(scenario, world, wall)?;
    out.summary.partial = Some(PartialSummary { limit: stop.limit.to_string(), reason: stop.detail, stopped_at_s: out.summary.duration_s });
    Ok(out)
}
