//! Resource limits (issue 12, `sim::limits`): a run stopped by `[sim]
//! max_events`, `wall_timeout` or `max_memory` ends cleanly at an event boundary,
//! its books still balance, and its output says it is partial.

mod common;

use common::Path06;
use lfnlab_core::scenario::load_str;
use lfnlab_core::sim;

fn scenario(extra_sim: &str) -> lfnlab_core::scenario::Scenario {
    let text = Path06 { duration: "5s", ..Default::default() }.toml().replacen("[sim]\n", &format!("[sim]\n{extra_sim}\n"), 1);
    load_str(&text, "limits.toml", &[]).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

#[test]
fn max_events_stops_at_exactly_that_many_events() {
    let whole = sim::run(&scenario("")).expect("run");
    assert!(whole.summary.partial.is_none());
    let n = whole.summary.events_executed;
    // A limit equal to what the run needs is not reached.
    let exact = sim::run(&scenario(&format!("max_events = {n}"))).expect("run");
    assert!(exact.summary.partial.is_none());
    assert_eq!(exact.summary.event_hash, whole.summary.event_hash);

    let stopped = sim::run(&scenario(&format!("max_events = {}", n / 3))).expect("a stopped run still has an output");
    let p = stopped.summary.partial.as_ref().expect("marked partial");
    assert_eq!(p.limit, "max_events");
    assert_eq!(stopped.summary.events_executed, n / 3);
    assert!(p.stopped_at_s > 0.0 && p.stopped_at_s < 5.0, "{p:?}");
    assert_eq!(stopped.summary.duration_s, p.stopped_at_s, "the results cover what ran");
    assert!(stopped.summary.conservation.holds, "the books balance at any event boundary");
    let f = &stopped.summary.flows[0];
    assert!(f.bytes_delivered > 0 && f.bytes_delivered < whole.summary.flows[0].bytes_delivered);
    // The same limit gives the same partial run.
    let again = sim::run(&scenario(&format!("max_events = {}", n / 3))).expect("run");
    assert_eq!(again.summary.event_hash, stopped.summary.event_hash);
    assert_eq!(again.flows, stopped.flows);
}

#[test]
fn wall_timeout_and_memory_stop_a_run() {
    // 1 ns of wall time: stopped at the first check, after one chunk of events
    // or the first progress slice, whichever ends first.
    let s = sim::run(&scenario("wall_timeout = \"1ns\"")).expect("run");
    let p = s.summary.partial.expect("partial");
    assert_eq!(p.limit, "wall_timeout");
    assert!((1..=sim::limits::CHECK_EVERY_EVENTS).contains(&s.summary.events_executed));
    if sim::limits::resident_bytes().is_some() {
        let s = sim::run(&scenario("max_memory = \"1KiB\"")).expect("run");
        assert_eq!(s.summary.partial.expect("partial").limit, "max_memory");
    }
}

#[test]
fn limits_are_checked_input() {
    let bad = |extra: &str, key: &str| {
        let text = Path06::default().toml().replacen("[sim]\n", &format!("[sim]\n{extra}\n"), 1);
        let e = load_str(&text, "limits.toml", &[]).expect_err("invalid");
        assert_eq!(e.key_path, key, "{e}");
    };
    bad("max_events = 0", "sim.max_events");
    bad("wall_timeout = \"0s\"", "sim.wall_timeout");
    bad("max_memory = \"0B\"", "sim.max_memory");
    bad("max_memory = 5", "sim.max_memory");
    // Not given, a limit is not written into the resolved scenario.
    let s = load_str(&Path06::default().toml(), "limits.toml", &[]).unwrap();
    assert!(!lfnlab_core::scenario::to_toml(&s).contains("max_events"));
}
