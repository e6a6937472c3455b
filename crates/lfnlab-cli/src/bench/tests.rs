//! The catalogue says what it names: each scenario loads, with the rate, RTT,
//! queue, congestion control, pacing and socket buffers its name states.

use lfnlab_core::engine::time::Span;
use lfnlab_core::scenario::model::{FlowKind, NodeKind, Scenario, TraceMode};

use super::workload::{Bulk, FLOW_STAGGER_MS};
use super::*;

fn load(name: &str) -> Scenario {
    let b = select(&[name.to_string()]).unwrap()[0];
    scenario::load_str(&b.toml(), b.name, &[]).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn names_are_unique_and_selectable() {
    let all = select(&[]).unwrap();
    assert_eq!(all.len(), SCENARIOS.len());
    for (i, s) in SCENARIOS.iter().enumerate() {
        assert!(SCENARIOS[..i].iter().all(|o| o.name != s.name), "{} twice", s.name);
        assert_eq!(select(&[s.name.to_string()]).unwrap()[0].name, s.name);
    }
    assert!(matches!(select(&["x".to_string()]), Err(Error::Input(_))));
}

/// `RATE-RTT-QUEUE-CC[-fq]`: (rate bit/s, RTT ms, queue bytes, cc, pacing).
fn parse_name(name: &str) -> Option<(u64, u64, u64, &str, &str)> {
    let parts: Vec<&str> = name.split('-').collect();
    let rate = match parts.first()? {
        &"1g" => 1_000_000_000,
        &"10g" => 10_000_000_000,
        &"100g" => 100_000_000_000,
        _ => return None,
    };
    let rtt: u64 = parts.get(1)?.strip_suffix("ms")?.parse().ok()?;
    let queue: u64 = match *parts.get(2)? {
        "128KiB" => 128 << 10,
        "8MiB" => 8 << 20,
        "16MiB" => 16 << 20,
        _ => return None,
    };
    let pacing = if parts.get(4) == Some(&"fq") { "fq" } else { "off" };
    Some((rate, rtt, queue, parts.get(3)?, pacing))
}

#[test]
fn bulk_scenarios_have_the_shape_their_name_states() {
    let mut checked = 0;
    for b in SCENARIOS {
        let Some((rate_bps, rtt_ms, queue_bytes, cc, pacing)) = parse_name(b.name) else { continue };
        let s = load(b.name);
        assert_eq!(s.sim.name.as_deref(), Some(format!("bench-{}", b.name).as_str()));
        assert_eq!(s.sim.duration.unwrap().span, Span::from_secs(60), "{}", b.name);
        assert_eq!(s.sim.trace.as_ref().and_then(|t| t.mode), Some(TraceMode::Off));
        assert!(s.monitor.is_empty());
        let (access, bottleneck) = (&s.link[0], &s.link[1]);
        assert_eq!(access.rate.unwrap().bps, 10 * rate_bps);
        assert_eq!(access.delay.span, Span::ZERO);
        assert_eq!(bottleneck.rate.unwrap().bps, rate_bps);
        assert_eq!(bottleneck.delay.span, Span::from_ms(rtt_ms / 2));
        let queue = bottleneck.queue.as_ref().unwrap();
        assert_eq!((queue.kind.as_str(), queue.limit.unwrap().bytes), ("droptail", queue_bytes), "{}", b.name);
        let [flow] = &s.flow[..] else { panic!("{}: one flow expected", b.name) };
        assert_eq!(flow.cc.as_deref(), Some(cc), "{}", b.name);
        assert_eq!(flow.pacing.as_ref().map(|p| p.kind.as_str()), Some(pacing), "{}", b.name);
        // Socket buffers 4·BDP (decimal bytes).
        let four_bdp = 4 * rate_bps / 8 * rtt_ms / 1000;
        assert_eq!(flow.sndbuf.unwrap().bytes, four_bdp, "{}", b.name);
        assert_eq!(flow.rcvbuf.unwrap().bytes, four_bdp);
        checked += 1;
    }
    // Issue 9's eight 1 Gbit/s cases and four at 10 Gbit/s × 500 ms.
    assert_eq!(checked, 12);
}

#[test]
fn bdp_series_spans_1_to_600_mb_at_one_rate() {
    let mut bdps = Vec::new();
    for b in SCENARIOS.iter().filter(|b| b.bdp_series) {
        let s = load(b.name);
        let bottleneck = &s.link[1];
        let rate = bottleneck.rate.unwrap().bps;
        assert_eq!(rate, 10_000_000_000);
        let bdp_bytes = rate as f64 / 8.0 * 2.0 * bottleneck.delay.span.as_secs_f64();
        assert_eq!(s.flow[0].rcvbuf.unwrap().bytes as f64, (4.0 * bdp_bytes).round(), "{}", b.name);
        bdps.push(bdp_bytes);
    }
    assert!(bdps.windows(2).all(|w| w[0] < w[1]), "{bdps:?}");
    assert!((bdps[0] - 1e6).abs() < 1.0 && (bdps[bdps.len() - 1] - 600e6).abs() < 1.0, "{bdps:?}");
}

#[test]
fn fifty_flows_share_the_path_with_staggered_starts() {
    let s = load("50flows-1g-100ms");
    assert_eq!(s.flow.len(), 50);
    for (i, f) in s.flow.iter().enumerate() {
        assert_eq!(f.name, format!("bulk{i}"));
        assert_eq!(f.start.unwrap().span, Span::from_ms(i as u64 * u64::from(FLOW_STAGGER_MS)));
        assert_eq!((f.from.as_str(), f.to.as_str()), ("snd", "rcv"));
    }
}

#[test]
fn switch_scenarios_are_the_spec_05_bench() {
    for name in ["e52-1000-1000-oq", "e52-1000-1000-voq"] {
        let s = load(name);
        assert_eq!(s.node[2].kind, NodeKind::Switch);
        assert_eq!(s.flow.len(), 2);
        assert!(s.flow.iter().all(|f| f.rate.unwrap().bps == 1_000_000_000));
    }
}

#[test]
fn web_scenario_is_the_t0_web_workload() {
    let s = load("web-30u-http10-1h");
    let [flow] = &s.flow[..] else { panic!("one flow expected") };
    assert!(matches!(flow.kind, FlowKind::Web));
    assert_eq!(flow.users, Some(30));
    assert_eq!(s.sim.duration.unwrap().span, Span::from_secs(3600));
}

/// A small bulk scenario outside the catalogue, and its loaded form.
fn tiny(bulk: Bulk) -> (BenchScenario, Scenario) {
    let b = BenchScenario { name: "tiny", about: "", workload: Workload::Bulk(bulk), bdp_series: false };
    let s = scenario::load_str(&b.toml(), b.name, &[]).unwrap();
    (b, s)
}

#[test]
fn a_sweep_times_equal_runs_both_ways() {
    let (_, s) = tiny(Bulk::engine("100Mbps", "1Gbps", "5ms", "1MB", "cubic", "off").lasting("200ms"));
    let m = sweep::measure("tiny", &s, 4, 2).unwrap();
    assert_eq!((m.runs, m.workers), (4, 2));
    assert!(m.serial_wall_s > 0.0 && m.parallel_wall_s > 0.0);
    // The arithmetic ceiling is measured beside it (its size depends on the load:
    // other tests run on the same cores).
    assert!(m.machine_speedup.is_finite() && m.machine_speedup > 0.0, "machine speed-up {}", m.machine_speedup);
}

#[test]
fn one_measured_run_reads_its_memory() {
    let _one = memory::RSS_TESTS.lock().unwrap_or_else(|e| e.into_inner());
    let (b, s) = tiny(Bulk::engine("1Gbps", "10Gbps", "10ms", "10MB", "cubic", "off").lasting("1s"));
    let m = measure_once(&b, &s, true).unwrap();
    assert!(m.data_packets > 10_000 && m.frames_in_network_max > 100, "{m:?}");
    assert!(m.frames_in_network_max < m.data_packets);
    if let (Some(before), Some(peak)) = (m.rss_before, m.rss_peak_bytes) {
        assert!(peak >= before.now_bytes, "{m:?}");
    }
}

#[test]
fn a_later_run_reports_no_memory() {
    let (b, s) = tiny(Bulk::engine("100Mbps", "1Gbps", "5ms", "1MB", "cubic", "off").lasting("200ms"));
    let m = measure_once(&b, &s, false).unwrap();
    assert_eq!((m.rss_before, m.rss_peak_bytes, m.bytes_per_in_flight_packet()), (None, None, None));
}

#[test]
fn repeat_zero_is_invalid_input() {
    let a = BenchArgs { scenarios: vec!["bdp-1MB".into()], json: None, repeat: 0, list: false };
    assert!(matches!(bench(&a), Err(Error::Input(_))));
}
