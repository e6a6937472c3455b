//! Defaults and semantic checks (spec 00 §2.2): turns a deserialized scenario
//! into a resolved one, in which every `Option` that has a default is `Some`,
//! so the `scenario.toml` written with the results shows every value used
//! (spec 00 §2.4). Resolving a resolved scenario changes nothing.

use std::path::Path;

use super::flows::resolve_flows;
use super::net::links::{resolve_links, Graph};
use super::model::{MonitorSpec, Scenario, SimSpec, TraceMode, TraceSpec};
use super::nodes::{check_nodes, resolve_hosts, resolve_node_qs};
use super::host::pacing::resolve_host_qdiscs;
use super::units::TimeSpan;
use crate::engine::time::Span;
use crate::error::InputError;

/// CHOICE: the master seed of a scenario that names none.
const DEFAULT_SEED: u64 = 1;
/// Bin width of `tcp.parquet` (spec 06 §6).
const DEFAULT_TRACE_BIN: TimeSpan = TimeSpan::from_span(Span::from_ms(10));

/// Where errors come from: the file (or origin) named in every `InputError`.
pub struct Ctx<'a> {
    pub file: &'a str,
}

impl Ctx<'_> {
    pub fn err(&self, key_path: impl Into<String>, message: impl Into<String>) -> InputError {
        InputError::new(self.file, key_path, message)
    }
}

/// Checks `s` and fills in every default. `origin` names the file in errors
/// and gives the default scenario name.
pub fn resolve(mut s: Scenario, origin: &str) -> Result<Scenario, InputError> {
    let ctx = Ctx { file: origin };
    let duration = resolve_sim(&mut s.sim, origin, &ctx)?;
    check_nodes(&s.node, &ctx)?;
    resolve_node_qs(&mut s.node, &ctx)?;
    let mut graph = Graph::new(&s.node);
    resolve_links(&mut s.link, &s.node, &mut graph, duration, &ctx)?;
    super::net::switch::resolve_switches(&mut s.node, &s.link, s.sim.seed.unwrap_or(DEFAULT_SEED), &ctx)?;
    resolve_hosts(&mut s.node, &s.link, &ctx)?;
    resolve_flows(&mut s.flow, &s.node, &graph, duration, &ctx)?;
    resolve_host_qdiscs(&mut s.node, &s.flow, &ctx)?;
    super::host::memory::resolve_memory(&mut s.node, &ctx)?;
    super::host::nic::resolve_host_nics(&mut s.node, &s.link, &ctx)?;
    super::host::cpu::resolve_host_cpus(&mut s.node, &s.flow, &ctx)?;
    resolve_monitors(&mut s.monitor, &graph, &ctx)?;
    super::monitor::capture::resolve_captures(&mut s.capture, &s.flow, &graph, duration, &ctx)?;
    super::monitor::bins::check_bin_counts(&s, duration, &ctx)?;
    Ok(s)
}

/// The default scenario name: the origin's file stem, or "scenario" when the
/// origin is not a file (`<dict>`, `-`).
pub fn default_name(origin: &str) -> String {
    if origin.starts_with('<') || origin == "-" {
        return "scenario".into();
    }
    match Path::new(origin).file_stem().and_then(|s| s.to_str()) {
        Some(stem) if !stem.is_empty() => stem.to_string(),
        _ => "scenario".into(),
    }
}

fn resolve_sim(sim: &mut SimSpec, origin: &str, ctx: &Ctx) -> Result<TimeSpan, InputError> {
    let name = sim.name.get_or_insert_with(|| default_name(origin));
    // The name becomes the output directory `out/<name>` (spec 00 §2.3).
    if name.is_empty() || name.contains(['/', '\\']) || name == "." || name == ".." {
        return Err(ctx.err(
            "sim.name",
            format!("expected a non-empty name usable as a directory name (no '/' or '\\'), got \"{name}\""),
        ));
    }
    let Some(duration) = sim.duration else {
        return Err(ctx.err(
            "sim.duration",
            "missing required key: the simulated duration, such as \"60s\"",
        ));
    };
    if duration.ps() == 0 {
        return Err(ctx.err(
            "sim.duration",
            "the simulated duration must be greater than zero",
        ));
    }
    sim.seed.get_or_insert(DEFAULT_SEED);
    // Resource limits (issue 12) stay as given: their defaults apply at run time
    // (`sim::limits`), so that a limit never reached leaves scenario.toml unchanged.
    if sim.max_events == Some(0) {
        return Err(ctx.err("sim.max_events", "expected at least 1 event"));
    }
    if sim.wall_timeout.is_some_and(|t| t.ps() == 0) {
        return Err(ctx.err("sim.wall_timeout", "expected a wall-clock time greater than zero, such as \"3600s\""));
    }
    if sim.max_memory.is_some_and(|m| m.bytes == 0) {
        return Err(ctx.err("sim.max_memory", "expected a size greater than zero, such as \"8GiB\""));
    }
    let trace = sim.trace.get_or_insert_with(TraceSpec::default);
    trace.mode.get_or_insert(TraceMode::Bin);
    // CHOICE: `bin` is filled in for every mode (used only by `bin`), so that
    // switching the mode with --set keeps the 10 ms default.
    let bin = *trace.bin.get_or_insert(DEFAULT_TRACE_BIN);
    if bin.ps() == 0 {
        return Err(ctx.err("sim.trace.bin", "the bin width must be greater than zero"));
    }
    Ok(duration)
}

/// `link = "a->b"` names the egress of a toward b on an existing link.
fn resolve_monitors(monitors: &mut [MonitorSpec], graph: &Graph, ctx: &Ctx) -> Result<(), InputError> {
    for (i, m) in monitors.iter_mut().enumerate() {
        m.capture_packets.get_or_insert(0);
        m.capture_from.get_or_insert(TimeSpan::from_span(Span::ZERO));
        let at = |key: &str| format!("monitor[{i}].{key}");
        let Some((a, b)) = m.link.split_once("->") else {
            return Err(ctx.err(
                at("link"),
                format!(
                    "expected \"a->b\", the egress of node a toward node b, got \"{}\"",
                    m.link
                ),
            ));
        };
        let node = |name: &str| {
            graph
                .find(name)
                .ok_or_else(|| ctx.err(at("link"), graph.unknown(name)))
        };
        let (na, nb) = (node(a)?, node(b)?);
        if graph.link_between(na, nb).is_none() {
            return Err(ctx.err(at("link"), format!("no link joins \"{a}\" and \"{b}\"")));
        }
        let point = m.point.get_or_insert_with(|| "egress".into());
        if point != "egress" && point != "ingress" {
            return Err(ctx.err(at("point"), format!("expected \"egress\" (frames leaving a) or \"ingress\" (frames arriving at b), got \"{point}\"")));
        }
        if m.bin.ps() == 0 {
            return Err(ctx.err(at("bin"), "the bin width must be greater than zero"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_from_origins() {
        assert_eq!(default_name("examples/dumbbell.toml"), "dumbbell");
        assert_eq!(default_name("run.json"), "run");
        assert_eq!(default_name("<dict>"), "scenario");
        assert_eq!(default_name("-"), "scenario");
        assert_eq!(default_name(""), "scenario");
    }
}
