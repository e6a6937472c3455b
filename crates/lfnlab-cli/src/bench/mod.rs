//! `lfnlab bench`: how fast the engine simulates long fat networks (issue 9,
//! docs/performance.md). A benchmark, not a test: it prints and writes figures
//! and asserts nothing about them.
//!
//! Per scenario: data packets and events per wall second, events per data
//! packet, simulated/wall time, ns per data packet, peak RSS and bytes per
//! in-flight packet; `--repeat N` runs each N times and reports the median run
//! with every run's wall time. The BDP series adds the cost-per-packet spread,
//! the sweep its speed-up.

mod catalogue;
mod measure;
mod memory;
mod sweep;
mod workload;

use std::path::PathBuf;

use clap::Args;
use lfnlab_core::Error;
use lfnlab_core::scenario;
use lfnlab_core::sim;
use serde_json::{Value, json};

pub use catalogue::SCENARIOS;
use measure::{Measurement, SweepMeasurement};
use workload::{BenchScenario, Workload};

use crate::{bad_argument, say};

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Benchmark scenario to run (repeatable) [default: all]
    #[arg(long = "scenario", value_name = "NAME")]
    scenarios: Vec<String>,
    /// Also write the measurements to FILE as JSON
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Run each scenario N times and report the median run (by wall time)
    #[arg(long, value_name = "N", default_value_t = 1)]
    repeat: usize,
    /// List the benchmark scenarios and exit
    #[arg(long)]
    list: bool,
}

fn build_profile() -> &'static str {
    if cfg!(debug_assertions) { "debug" } else { "release" }
}

fn select(names: &[String]) -> Result<Vec<&'static BenchScenario>, Error> {
    if names.is_empty() {
        return Ok(SCENARIOS.iter().collect());
    }
    names
        .iter()
        .map(|n| {
            SCENARIOS.iter().find(|s| s.name == n).ok_or_else(|| {
                let known: Vec<_> = SCENARIOS.iter().map(|s| s.name).collect();
                bad_argument("--scenario", format!("unknown benchmark scenario {n:?}; known: {}", known.join(", ")))
            })
        })
        .collect()
}

/// One run of a scenario, with its memory readings when `fresh`: the first run
/// in this process. After a run the heap keeps what it grew to, so a later
/// run's RSS growth says nothing of its own footprint.
fn measure_once(b: &BenchScenario, s: &scenario::model::Scenario, fresh: bool) -> Result<Measurement, Error> {
    let before = memory::read();
    let reset = fresh && memory::reset_peak();
    let mut m = Measurement::from_summary(b.name, &sim::run(s)?.summary);
    if reset {
        m.rss_before = before;
        m.rss_peak_bytes = memory::read().map(|r| r.peak_bytes);
    }
    Ok(m)
}

fn print_run(m: &Measurement) {
    let mem = match (m.rss_peak_bytes, m.bytes_per_in_flight_packet()) {
        (Some(peak), Some(per)) => format!(", peak RSS {:.1} MB, {per:.0} B/in-flight packet", peak as f64 / 1e6),
        (Some(peak), None) => format!(", peak RSS {:.1} MB", peak as f64 / 1e6),
        _ => String::new(),
    };
    say(format_args!(
        "{}: {:.0} data packets/s, {:.0} events/s, {:.2} events/data packet, simulated/wall {:.2}, {:.1} ns/data packet ({} data packets, {:.2} s wall{mem})",
        m.name,
        m.data_packets_per_s(),
        m.events_per_s(),
        m.events_per_data_packet(),
        m.simulated_per_wall(),
        m.ns_per_data_packet(),
        m.data_packets,
        m.wall_s
    ));
}

fn print_sweep(m: &SweepMeasurement) {
    say(format_args!(
        "{}: {} runs one after another {:.2} s, on {} threads {:.2} s: speed-up {:.2} (pure arithmetic on {} threads: {:.2})",
        m.name,
        m.runs,
        m.serial_wall_s,
        m.workers,
        m.parallel_wall_s,
        m.speedup(),
        m.workers,
        m.machine_speedup
    ));
}

pub fn bench(a: &BenchArgs) -> Result<(), Error> {
    if a.list {
        for s in SCENARIOS {
            say(format_args!("{:<26} {}", s.name, s.about));
        }
        return Ok(());
    }
    if a.repeat == 0 {
        return Err(bad_argument("--repeat", "expected a positive number of runs, got 0".to_string()));
    }
    let chosen = select(&a.scenarios)?;
    if cfg!(debug_assertions) {
        eprintln!("warning: this is a debug build; benchmark a release build (cargo run --release -p lfnlab-cli)");
    }
    if chosen.len() > 1 || a.repeat > 1 {
        say(format_args!("memory figures come from the first run only; measure one scenario per process for each (--scenario NAME)"));
    }
    let mut fresh = true;
    let mut entries: Vec<Value> = Vec::new();
    let mut sweeps: Vec<Value> = Vec::new();
    let mut series: Vec<Measurement> = Vec::new();
    for b in chosen {
        let s = scenario::load_str(&b.toml(), &format!("<bench {}>", b.name), &[])?;
        if let Workload::Sweep(w) = &b.workload {
            let mut runs = Vec::with_capacity(a.repeat);
            for _ in 0..a.repeat {
                let m = sweep::measure(b.name, &s, w.runs, w.workers)?;
                print_sweep(&m);
                runs.push(m);
            }
            sweeps.push(measure::sweep_repeats_json(&runs));
            continue;
        }
        let mut runs = Vec::with_capacity(a.repeat);
        for _ in 0..a.repeat {
            let m = measure_once(b, &s, fresh)?;
            fresh = false;
            print_run(&m);
            runs.push(m);
        }
        let med = measure::median(&runs);
        if a.repeat > 1 {
            say(format_args!("{}: median of {} runs: {:.2} s wall", b.name, a.repeat, med.wall_s));
        }
        if b.bdp_series {
            series.push(med.clone());
        }
        entries.push(measure::repeats_json(&runs));
    }
    let flatness = measure::flatness_json(&series);
    if let Some(f) = &flatness {
        say(format_args!("BDP series: cost per data packet, largest / smallest = {:.2}", f["max_over_min"].as_f64().unwrap_or(f64::NAN)));
    }
    if let Some(path) = &a.json {
        let doc = json!({
            "lfnlab_version": env!("CARGO_PKG_VERSION"),
            "build": build_profile(),
            "packet_struct_bytes": std::mem::size_of::<lfnlab_core::net::packet::Packet>(),
            "benchmarks": entries,
            "sweeps": sweeps,
            "bdp_flatness": flatness,
        });
        let mut text = serde_json::to_string_pretty(&doc).map_err(|e| Error::Io(format!("{}: {e}", path.display())))?;
        text.push('\n');
        std::fs::write(path, text).map_err(|e| Error::Io(format!("{}: {e}", path.display())))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
