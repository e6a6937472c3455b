//! `lfnlab run` and `lfnlab validate` (spec 00 §2.3).

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use lfnlab_core::Error;
use lfnlab_core::results::summary::FlowSummary;
use lfnlab_core::results::write::{check_out_dir, write_dir};
use lfnlab_core::scenario::{self, model::Scenario};
use lfnlab_core::sim;

use crate::progress::{ProgressMode, RunProgress};
use crate::{bad_argument, say};

/// The scenario's name as the loader resolved it (file stem by default).
pub fn scenario_name(s: &Scenario) -> &str {
    s.sim.name.as_deref().unwrap_or("scenario")
}

/// `out/<sim.name>` relative to the working directory (spec 00 §2.3).
pub fn default_out_dir(s: &Scenario) -> PathBuf {
    Path::new("out").join(scenario_name(s))
}

/// How a run that did not fail ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// It covered its simulated duration.
    Complete,
    /// Ctrl-C stopped it; the results written cover what ran, marked partial.
    Interrupted,
}

/// Ctrl-C (issue 40): the first SIGINT sets the returned flag, which the run reads
/// between slices (`sim::run_observed`); a second SIGINT, while the flag is set, ends
/// the process at once with the default action (signal-hook's documented pattern).
fn ctrl_c_flag() -> Result<Arc<AtomicBool>, Error> {
    use signal_hook::consts::SIGINT;
    let flag = Arc::new(AtomicBool::new(false));
    let installed = signal_hook::flag::register_conditional_default(SIGINT, Arc::clone(&flag))
        .and_then(|_| signal_hook::flag::register(SIGINT, Arc::clone(&flag)));
    installed.map_err(|e| Error::Runtime(format!("cannot install the Ctrl-C handler: {e}")))?;
    Ok(flag)
}

/// Loads, runs and writes one scenario; prints one line per flow unless `quiet`,
/// and shows its progress on stderr as `progress` says. Ctrl-C stops the run at the
/// next slice of 1/1000 of it: the results of what ran are written, marked partial,
/// and the caller exits 130.
pub fn run(path: &Path, out: Option<&Path>, sets: &[String], quiet: bool, progress: ProgressMode) -> Result<Ended, Error> {
    let scenario = scenario::load_file(path, sets)?;
    let out_dir = out.map_or_else(|| default_out_dir(&scenario), Path::to_path_buf);
    // Refuse a bad --out before a run that may take minutes, not after it.
    check_out_dir(&out_dir).map_err(|why| bad_argument("--out", why))?;

    let interrupted = ctrl_c_flag()?;
    let mut shown = RunProgress::new(progress, quiet, scenario_name(&scenario));
    let output = sim::run_observed(&scenario, &mut |p| {
        shown.observe(p);
        if interrupted.load(Ordering::Relaxed) {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    shown.finish();
    let output = output?;
    write_dir(&out_dir, &output)?;
    if let Some(p) = output.summary.partial.as_ref().filter(|p| p.limit == "interrupted") {
        eprintln!(
            "interrupted at {:.6} s of {} s simulated; the results in {} cover what ran (summary.json: \"partial\")",
            p.stopped_at_s,
            scenario.sim.duration.map_or(0.0, |d| d.span.as_secs_f64()),
            out_dir.display()
        );
        return Ok(Ended::Interrupted);
    }
    if let Some(p) = &output.summary.partial {
        return Err(Error::Runtime(format!(
            "stopped early at {:.6} s of {} s simulated: {} reached ({}); the results in {} are partial (summary.json: \"partial\")",
            p.stopped_at_s,
            scenario.sim.duration.map_or(0.0, |d| d.span.as_secs_f64()),
            p.limit,
            p.reason,
            out_dir.display()
        )));
    }

    if !quiet {
        let s = &output.summary;
        say(format_args!(
            "{}: {} s simulated in {:.2} s",
            s.scenario, s.duration_s, s.wall_seconds
        ));
        for f in &s.flows {
            say(format_args!("  {}", flow_line(f)));
        }
        say(format_args!("results in {}", out_dir.display()));
    }
    Ok(Ended::Complete)
}

/// Loads and checks a scenario without running it.
pub fn validate(path: &Path, sets: &[String]) -> Result<(), Error> {
    let s = scenario::load_file(path, sets)?;
    say(format_args!(
        "ok: {}, {}, {}",
        counted(s.node.len() as u64, "node", "nodes"),
        counted(s.link.len() as u64, "link", "links"),
        counted(s.flow.len() as u64, "flow", "flows")
    ));
    Ok(())
}

/// A flow's line after a run: goodput, what share of the path's wire bound it
/// is, with the path's base RTT and BDP (issue 40: the flagship run said
/// nothing of utilisation), retransmissions and timeouts, and the handshake's
/// retransmissions when there were any (issue 38: a SYN lost on a 1 s path was
/// invisible, though it costs a second and may cut the initial window).
fn flow_line(f: &FlowSummary) -> String {
    let mut head = format!("{}: goodput {:.2} Mbit/s", f.name, f.goodput_bps / 1e6);
    if let Some(p) = &f.path {
        let bdp_bytes = p.bottleneck_bps as f64 * p.base_rtt_s / 8.0;
        head += &format!(
            " = {:.1} % of the {:.2} Mbit/s wire bound (base RTT {:.1} ms, BDP {:.2} MB)",
            100.0 * f.goodput_bps / p.wire_bound_bps.max(1e-9),
            p.wire_bound_bps / 1e6,
            p.base_rtt_s * 1e3,
            bdp_bytes / 1e6
        );
    }
    if f.kind == "udp_cbr" {
        // A datagram flow has no retransmissions or timeouts to report.
        return format!("{head} (UDP)");
    }
    let mut line = format!(
        "{head}, {}, {}",
        counted(f.retransmitted_segments, "retransmit", "retransmits"),
        counted(f.timeouts, "timeout", "timeouts")
    );
    if f.syn_retransmits > 0 {
        line += &format!(", {}", counted(f.syn_retransmits, "SYN retransmit", "SYN retransmits"));
    }
    line
}

/// "1 flow", "2 flows", "0 flows".
fn counted(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;
    use lfnlab_core::results::summary::PathSummary;

    fn flow(kind: &str, syn_retransmits: u64) -> FlowSummary {
        FlowSummary {
            name: "bulk".into(),
            kind: kind.into(),
            goodput_bps: 12.5e6,
            syn_retransmits,
            ..Default::default()
        }
    }

    #[test]
    fn the_flow_line_names_syn_retransmissions_only_when_there_were_some() {
        assert_eq!(flow_line(&flow("tcp_bulk", 0)), "bulk: goodput 12.50 Mbit/s, 0 retransmits, 0 timeouts");
        assert_eq!(flow_line(&flow("tcp_bulk", 1)), "bulk: goodput 12.50 Mbit/s, 0 retransmits, 0 timeouts, 1 SYN retransmit");
        assert_eq!(flow_line(&flow("tcp_bulk", 2)), "bulk: goodput 12.50 Mbit/s, 0 retransmits, 0 timeouts, 2 SYN retransmits");
        assert_eq!(flow_line(&flow("udp_cbr", 0)), "bulk: goodput 12.50 Mbit/s (UDP)");
    }

    #[test]
    fn the_flow_line_gives_utilisation_rtt_and_bdp_when_the_path_is_known() {
        let mut f = flow("tcp_bulk", 0);
        f.path = Some(PathSummary { bottleneck_bps: 100_000_000, wire_bound_bps: 50e6, base_rtt_s: 0.2, ..Default::default() });
        assert_eq!(
            flow_line(&f),
            "bulk: goodput 12.50 Mbit/s = 25.0 % of the 50.00 Mbit/s wire bound (base RTT 200.0 ms, BDP 2.50 MB), 0 retransmits, 0 timeouts"
        );
    }
}
