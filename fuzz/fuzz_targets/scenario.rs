//! Fuzz target: the TOML scenario parser, validator and resolver (issue 12 §1).
//!
//! Whatever the text, loading answers a scenario or an `InputError` naming the
//! file; never a panic. A scenario that loads must (1) write out as TOML that
//! loads back to the same scenario (`scenario.toml` of every result is this
//! text), and (2) run: cut to a short, bounded run, with every invariant
//! checked after every event, it finishes or stops at a limit, never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lfnlab_core::scenario::monitor::bins::series;
use lfnlab_core::scenario::{load_str, to_toml};

/// Bounds on the run of a scenario that loads: a fuzz input must take well
/// under libFuzzer's per-input timeout (scripts/fuzz: 10 s).
const BOUNDED: [&str; 3] = ["sim.duration=20ms", "sim.max_events=200000", "sim.wall_timeout=2s"];
/// Bins close inside other events, outside the event and wall-clock limits: a
/// run is skipped when one of its series would close more than this many
/// (the loader's own bound, `scenario::monitor::bins::MAX_BINS_PER_SERIES`, is 10^7,
/// seconds and GB of rows: too much per fuzz input).
const BOUNDED_BINS_PER_SERIES: u64 = 100_000;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let scenario = match load_str(text, "fuzz.toml", &[]) {
        Ok(s) => s,
        Err(e) => {
            assert!(!e.message.is_empty() && e.file == "fuzz.toml", "unhelpful error: {e}");
            return;
        }
    };
    let written = to_toml(&scenario);
    let again = load_str(&written, "scenario.toml", &[])
        .unwrap_or_else(|e| panic!("the written scenario does not load: {e}\n{written}"));
    assert_eq!(to_toml(&again), written, "writing a loaded scenario is not stable");

    let sets: Vec<String> = BOUNDED.iter().map(|s| s.to_string()).collect();
    if let Ok(short) = load_str(text, "fuzz.toml", &sets) {
        if series(&short).iter().all(|(_, _, bins)| *bins <= BOUNDED_BINS_PER_SERIES) {
            let _ = lfnlab_core::sim::run_checked(&short);
        }
    }
});
