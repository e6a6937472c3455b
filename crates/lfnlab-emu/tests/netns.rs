//! The relay between real network namespaces (needs root and `ip netns`;
//! skipped with a printed reason otherwise).
//!
//! a (10.77.0.1) ↔ veth ↔ m (lfnlab-emu) ↔ veth ↔ b (10.77.0.2).

mod support;

use std::net::Ipv4Addr;
use std::time::Duration;

use serde_json::Value;
use support::{ADDR_B, Lab, icmp, in_netns, read_json, skip, skip_reason};

/// frames_in = delivered + drops (nothing pending after a graceful stop).
fn assert_conserved(dir: &str, d: &Value) {
    let n = |k: &str| d[k].as_u64().unwrap_or_else(|| panic!("{dir}.{k} missing in {d}"));
    assert_eq!(n("pending_at_stop"), 0, "{dir}: the relay drains before it stops");
    assert_eq!(n("frames_in"), n("frames_delivered") + n("drops"), "{dir}: frames in = delivered + drops");
    let by = &d["drops_by_reason"];
    let sum: u64 = ["tail", "oversize", "pool", "send_error"].iter().map(|k| by[k].as_u64().unwrap()).sum();
    assert_eq!(sum, n("drops"), "{dir}: drops by reason add up");
}

#[test]
fn ping_rtt_is_twice_the_one_way_delay() {
    if let Some(reason) = skip_reason() {
        return skip("ping_rtt_is_twice_the_one_way_delay", &reason);
    }
    let _serial = support::serial();
    let mut lab = Lab::new("rtt").expect("lab set up");
    let stats = lab.temp_file("stats.json");
    let stats_arg = stats.to_str().unwrap().to_string();
    lab.start_relay(&["--rate", "100Mbps", "--delay", "10ms", "--limit", "128KiB", "--rt", "--stats", &stats_arg]).expect("relay started");

    let dst: Ipv4Addr = ADDR_B.parse().unwrap();
    let rtts = in_netns(&lab.ns("a"), move || icmp::ping(dst, 20, Duration::from_millis(50), 56, Duration::from_secs(1))).expect("in namespace a").expect("ping");
    let mut got: Vec<u64> = rtts.iter().flatten().map(|d| d.as_nanos() as u64).collect();
    assert!(got.len() >= 19, "replies: {} of 20", got.len());
    got.sort_unstable();
    let median_ns = got[got.len() / 2];
    eprintln!("RTT over {} pings: min {} µs, median {} µs, max {} µs", got.len(), got[0] / 1000, median_ns / 1000, got[got.len() - 1] / 1000);

    let status = lab.stop_relay().expect("relay stopped");
    assert!(status.success(), "relay exit status {status}");
    let s = read_json(&stats).expect("statistics");
    eprintln!("statistics: {}", serde_json::to_string_pretty(&s).unwrap());
    assert_eq!(s["stopped_by"], "signal");
    let mut worst_p99_us: f64 = 0.0;
    for dir in ["a_to_b", "b_to_a"] {
        let d = &s[dir];
        assert!(d["frames_in"].as_u64().unwrap() >= 20, "{dir}: at least the 20 echoes counted");
        assert_eq!(d["drops"], 0, "{dir}: no drops");
        assert_eq!(d["csum_not_ready"], 0, "{dir}: offloads are off");
        let p99 = d["lateness"]["p99_us"].as_f64();
        assert!(p99.is_some(), "{dir}: lateness p99 reported");
        worst_p99_us = worst_p99_us.max(p99.unwrap());
        assert_conserved(dir, d);
    }
    // Issue 11: a relay that ran late measured the host, not the emulator; the
    // RTT is then "invalid: host overloaded", neither a pass nor a fail.
    if worst_p99_us > OVERLOADED_P99_US {
        eprintln!("invalid: host overloaded (relay lateness p99 {worst_p99_us} µs > {OVERLOADED_P99_US} µs); RTT not judged");
        return;
    }
    // 2 × 10 ms, plus 2 × 9.76 µs serialization (98-B echo frame: L2 102, wire 122 B at 100 Mbit/s).
    assert!(median_ns.abs_diff(20_000_000) <= 500_000, "median RTT {median_ns} ns, expected 20 ms ± 0.5 ms");
}

/// Relay lateness p99 above which a timing result is not judged (issue 11).
const OVERLOADED_P99_US: f64 = 200.0;

#[test]
fn a_small_limit_drops_a_flood() {
    if let Some(reason) = skip_reason() {
        return skip("a_small_limit_drops_a_flood", &reason);
    }
    let _serial = support::serial();
    let mut lab = Lab::new("flood").expect("lab set up");
    let stats = lab.temp_file("stats.json");
    let stats_arg = stats.to_str().unwrap().to_string();
    lab.start_relay(&["--rate", "10Mbps", "--delay", "1ms", "--limit", "3000B", "--stats", &stats_arg]).expect("relay started");

    // 200 echo requests of 1400 B back to back: 1442-B frames, L2 1446 B;
    // the queue holds two (2892 B ≤ 3000 B) while one is on the line (1.17 ms each).
    // One echo first: while ARP resolves, the kernel of a holds only ~90
    // such packets (neighbour `unres_qlen_bytes`) and would drop the rest itself.
    let dst: Ipv4Addr = ADDR_B.parse().unwrap();
    let replies = in_netns(&lab.ns("a"), move || {
        icmp::ping(dst, 1, Duration::ZERO, 56, Duration::from_secs(1))?;
        icmp::flood(dst, 200, 1400, Duration::from_millis(500))
    })
    .expect("in namespace a")
    .expect("flood");
    eprintln!("flood: {replies} replies of 200");

    let status = lab.stop_relay().expect("relay stopped");
    assert!(status.success(), "relay exit status {status}");
    let s = read_json(&stats).expect("statistics");
    let ab = &s["a_to_b"];
    eprintln!("a_to_b: {}", serde_json::to_string(ab).unwrap());
    assert!(ab["frames_in"].as_u64().unwrap() >= 201, "every request reached the relay");
    assert!(ab["drops"].as_u64().unwrap() > 0, "the 3000-B queue overflowed");
    assert_eq!(ab["drops"], ab["drops_by_reason"]["tail"], "only drop-tail drops");
    assert!(ab["max_backlog_bytes"].as_u64().unwrap() <= 3000);
    assert!(u64::from(replies) <= ab["frames_delivered"].as_u64().unwrap());
    for dir in ["a_to_b", "b_to_a"] {
        assert_conserved(dir, &s[dir]);
    }
}
