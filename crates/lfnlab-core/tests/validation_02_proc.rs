//! Tier (b): the processing-cost model of a Quick-Start interface (spec 02
//! §2.5.7): the delay is added before enqueueing, `serial` queues packets
//! behind the processor, `parallel` delays each by its own cost, the cost
//! vector composes per packet as the formula says, packets stay conserved
//! while held, and the input checks.
//!
//! Expected values come from the cost vector, the CBR spacing and the wire
//! times; never from a run.

mod common;
use common::*;
use lfnlab_core::results::summary::QsInterfaceSummary;
use lfnlab_core::scenario::load_str;
use lfnlab_core::sim::RunOutput;
use lfnlab_core::InputError;

/// 50-byte IP packets (spec 02 §4.7): L2 50 + 18 = 68 B, 88 B on the wire
/// with preamble and IPG.
const L3: u64 = 50;
const WIRE_BYTES: f64 = 88.0;

/// Source S, router R with the QS function on R→C, sink C; both links 1 Gbit/s
/// with zero delay. The CBR source sends `pps` packets/s of 50 bytes for `duration`.
fn forwarder(pps: f64, proc: &str, duration: &str) -> String {
    forwarder_with(pps, proc, duration, "")
}

/// [`forwarder`] with extra `key = value` lines on the CBR flow.
fn forwarder_with(pps: f64, proc: &str, duration: &str, flow_extra: &str) -> String {
    let rate_bps = pps * WIRE_BYTES * 8.0;
    format!(
        "[sim]\nduration = \"{duration}\"\nseed = 1\ntrace = {{ mode = \"off\" }}\n\
         [[node]]\nname = \"S\"\nkind = \"host\"\n[[node]]\nname = \"R\"\nkind = \"router\"\n[[node]]\nname = \"C\"\nkind = \"host\"\n\
         [[link]]\nfrom = \"S\"\nto = \"R\"\nrate = \"1Gbps\"\ndelay = \"0ms\"\n\
         [[link]]\nfrom = \"R\"\nto = \"C\"\nrate = \"1Gbps\"\ndelay = \"0ms\"\n\
         quickstart = {{ capacity = \"1Gbps\"{proc} }}\n\
         [[flow]]\nname = \"u\"\nkind = \"udp_cbr\"\nfrom = \"S\"\nto = \"C\"\nrate = \"{rate_bps}bps\"\nsize = {L3}\n{flow_extra}\
         [[monitor]]\nlink = \"R->C\"\nbin = \"10ms\"\ncapture_packets = 100\n"
    )
}

fn iface<'a>(out: &'a RunOutput, name: &str) -> &'a QsInterfaceSummary {
    out.summary.quickstart_interfaces.iter().find(|q| q.name == name).expect("the QS interface")
}

fn departures(out: &RunOutput) -> Vec<f64> {
    f64s(&out.packets, "t").to_vec()
}

#[test]
fn serial_processing_adds_exactly_the_cost_below_saturation() {
    // 100 000 packet/s: 10 µs apart; a 3 µs cost (base 2 + meter 1) never waits.
    let base = run_toml(&forwarder(100_000.0, "", "100ms"));
    let proc = run_toml(&forwarder(100_000.0, ", proc = { base_us = 2.0, meter_us = 1.0 }", "100ms"));
    let (a, b) = (departures(&base), departures(&proc));
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        assert!((y - x - 3e-6).abs() < 1e-12, "each departure is 3 µs later: {x} → {y}");
    }
    let q = iface(&proc, "R->C");
    let n = q.counters.packets as f64;
    assert!(n > 9_990.0, "about 10 000 packets in 100 ms, got {n}");
    assert_eq!(q.proc.proc_packets, q.counters.packets);
    assert!((q.proc.proc_delay_mean_s - 3e-6).abs() < 1e-12 && (q.proc.proc_delay_max_s - 3e-6).abs() < 1e-12);
    // Busy fraction = packets · 3 µs / 100 ms.
    assert!((q.proc.proc_busy_fraction - n * 3e-6 / 0.1).abs() < 1e-9, "{}", q.proc.proc_busy_fraction);
    assert!(q.proc.proc_backlog_max <= 1);
    // Without a cost vector there is no stage and the statistics stay zero.
    assert_eq!(iface(&base, "R->C").proc.proc_packets, 0);
    assert!(proc.summary.conservation.holds);
}

#[test]
fn serial_processor_saturates_and_holds_the_backlog_at_the_end() {
    // Arrivals every 10 µs, 20 µs of work each: the processor releases one packet
    // per 20 µs. Packet k (k = 0, 1, …) arrives at t₀ + 10k µs and leaves at
    // t₀ + 20(k+1) µs, so by the end (100 ms) about 100 ms / 20 µs = 5000 left and
    // the rest are held — conserved, not lost.
    let out = run_toml(&forwarder(100_000.0, ", proc = { base_us = 20.0 }", "100ms"));
    let q = iface(&out, "R->C");
    let released = out.summary.conservation.frames_delivered;
    assert!((4_990..=5_000).contains(&released), "released {released}");
    let held = out.summary.conservation.frames_processing_at_end;
    assert_eq!(held + released, q.proc.proc_packets);
    assert!(held > 4_900, "held {held}");
    assert_eq!(out.summary.conservation.bytes_processing_at_end, held * L3);
    assert!(out.summary.conservation.holds);
    // Work offered = 2 × the run: busy fraction ≈ 2.
    assert!((q.proc.proc_busy_fraction - 2.0).abs() < 0.01, "{}", q.proc.proc_busy_fraction);
    // The longest sojourn is the last arrival's: (k+1)·20 − 10k µs = (k + 2)·10 µs.
    let k = (q.proc.proc_packets - 1) as f64;
    assert!((q.proc.proc_delay_max_s - (k + 2.0) * 10e-6).abs() < 1e-9, "{}", q.proc.proc_delay_max_s);
    // Departures on the wire are 20 µs apart: the processor, not the link, paces them.
    let t = departures(&out);
    for w in t.windows(2) {
        assert!((w[1] - w[0] - 20e-6).abs() < 1e-12);
    }
}

#[test]
fn parallel_processing_delays_each_packet_by_its_own_cost() {
    // The same overload under `parallel`: no waiting, every packet exactly 20 µs.
    let out = run_toml(&forwarder(100_000.0, ", proc = { base_us = 20.0, discipline = \"parallel\" }", "100ms"));
    let q = iface(&out, "R->C");
    assert!((q.proc.proc_delay_mean_s - 20e-6).abs() < 1e-12 && (q.proc.proc_delay_max_s - 20e-6).abs() < 1e-12);
    // Two or three packets are in the stage at once (20 µs / 10 µs spacing).
    assert!((2..=3).contains(&q.proc.proc_backlog_max), "{}", q.proc.proc_backlog_max);
    let base = run_toml(&forwarder(100_000.0, "", "100ms"));
    let (a, b) = (departures(&base), departures(&out));
    for (x, y) in a.iter().zip(&b) {
        assert!((y - x - 20e-6).abs() < 1e-12);
    }
}

#[test]
fn cost_vector_composes_per_packet_as_the_formula_says() {
    // A Quick-Start exchange through the router (spec 02 §2.5.7): every packet
    // pays base + meter, a packet with an option also opt_parse, an approval also
    // update. With distinct powers of two the total work identifies each count.
    let proc = "proc = { base_us = 1.0, meter_us = 2.0, opt_parse_us = 4.0, update_us = 8.0, nonce_field_us = 16.0 }";
    let text = format!(
        "{}[[node]]\nname = \"R\"\nkind = \"router\"\n[[link]]\nfrom = \"C\"\nto = \"R\"\nrate = \"1Gbps\"\ndelay = \"1ms\"\n\
         reverse_quickstart = {{ capacity = \"10Mbps\", {proc} }}\n\
         [[flow]]\nname = \"rr\"\nkind = \"request_response\"\nfrom = \"C\"\nto = \"S\"\nresponse = \"200kB\"\n{CH02_TCP}quickstart = {{ rate_code = 7 }}\n",
        t0_head("2s", 1, "20ms").replace("to = \"C\"\nrate", "to = \"R\"\nrate")
    );
    let out = run_toml(&text);
    let q = iface(&out, "R->C");
    let c = q.counters;
    assert_eq!((c.qs_requests_seen, c.qs_approved_full, c.qs_approved_reduced), (1, 1, 0), "{c:?}");
    // The data sender's report of the approved rate also carries an option.
    let with_option = c.qs_requests_seen + c.qs_reports_seen;
    let work_us = c.packets as f64 * 3.0 + with_option as f64 * 4.0 + 8.0 * c.qs_approved_full as f64;
    let measured_us = q.proc.proc_busy_fraction * 2.0 * 1e6;
    assert!((measured_us - work_us).abs() < 1e-6, "work {measured_us} µs, formula {work_us} µs");
    assert_eq!(q.proc.proc_packets, c.packets);
    assert!(out.summary.flows[0].response_time_s.is_some(), "the transfer completes through the stage");
    assert!(out.summary.conservation.holds);
}

#[test]
fn udp_requests_are_counted_and_charged_at_the_forwarder() {
    // 1 % of 100 000 packet/s ask for code 7 against C = 1 Gbit/s: every request
    // is evaluated (d = 1 at the router, so each decision rewrites the option and
    // its checksum); the cost vector charges exactly the formula's work.
    let proc = ", proc = { base_us = 1.0, meter_us = 0.5, opt_parse_us = 2.0, update_us = 4.0, nonce_field_us = 0.25 }";
    let out = run_toml(&forwarder_with(100_000.0, proc, "100ms", "qs_requests = { share = 0.01 }\n"));
    let q = iface(&out, "R->C");
    let c = q.counters;
    assert_eq!(c.qs_requests_seen, c.packets / 100, "{c:?}");
    assert!(c.qs_requests_seen >= 99);
    assert_eq!(c.qs_approved_full + c.qs_approved_reduced + c.qs_denied, c.qs_requests_seen);
    assert_eq!(c.ip_csum_updates, c.qs_requests_seen);
    assert_eq!(c.bytes, c.packets * L3, "the option sits inside the 50-byte datagram");
    let work_us = c.packets as f64 * 1.5
        + c.qs_requests_seen as f64 * 2.0
        + (c.qs_approved_full + c.qs_approved_reduced) as f64 * 4.0
        + c.nonce_fields_rerandomized as f64 * 0.25;
    assert!((q.proc.proc_busy_fraction * 0.1e6 - work_us).abs() < 1e-6);
    // Costs of at most 7.75 µs against 10 µs spacing: nobody waits, so the mean
    // sojourn is the mean cost.
    assert!((q.proc.proc_delay_mean_s * c.packets as f64 * 1e6 - work_us).abs() < 1e-6);
    // In the first metering interval the meter reads 0 and the ring holds the
    // approvals so far: about 100 × 5.12 Mbit/s = 512 Mbit/s < 1 Gbit/s, so
    // target_reduce approves every one in full (spec 02 §2.5.4).
    assert_eq!(c.qs_approved_full, c.qs_requests_seen, "{c:?}");
}

#[test]
fn processing_is_deterministic() {
    let text = forwarder(300_000.0, ", proc = { base_us = 3.2 }", "50ms");
    let (a, b) = (run_toml(&text), run_toml(&text));
    assert_eq!(a.summary.event_hash, b.summary.event_hash);
    assert_eq!(iface(&a, "R->C"), iface(&b, "R->C"));
}

#[track_caller]
fn assert_input_err(text: &str, key_path: &str, fragment: &str) {
    let e: InputError = match load_str(text, "proc.toml", &[]) {
        Ok(_) => panic!("expected an InputError at {key_path}"),
        Err(e) => e,
    };
    assert_eq!((e.file.as_str(), e.key_path.as_str()), ("proc.toml", key_path), "{e}");
    assert!(e.message.contains(fragment), "message of {e} should contain {fragment:?}");
}

#[test]
fn invalid_processing_keys_name_their_key_path() {
    let with = |p: &str| forwarder(1000.0, p, "10ms");
    assert_input_err(&with(", proc = { base_us = -1.0 }"), "link[1].quickstart.proc.base_us", "from 0 to 1e6");
    assert_input_err(&with(", proc = { discipline = \"fifo\" }"), "link[1].quickstart.proc.discipline", "serial, parallel");
    assert_input_err(&with(", proc = { costs = 1 }"), "link[1].quickstart.proc.costs", "unknown key");
    // A host interface has no processing stage (spec 02 §2.5.7 CHOICE): refused, not ignored.
    let host = t0_head("1s", 1, "1ms").replace("quickstart = { capacity = \"10Mbps\" }", "quickstart = { capacity = \"10Mbps\", proc = { base_us = 1.0 } }");
    assert_input_err(&host, "node[0].quickstart.proc", "forwarding nodes only");
    let link_host = forwarder(1000.0, "", "10ms").replace("delay = \"0ms\"\n[[link]]", "delay = \"0ms\"\nquickstart = { capacity = \"1Gbps\", proc = { meter_us = 1.0 } }\n[[link]]");
    assert_input_err(&link_host, "link[0].quickstart.proc", "\"S\" is a host");
    let udp = |extra: &str| forwarder_with(1000.0, "", "10ms", extra);
    assert_input_err(&udp("qs_requests = { rate_code = 7 }\n"), "flow[0].qs_requests.share", "missing required key");
    assert_input_err(&udp("qs_requests = { share = 1.5 }\n"), "flow[0].qs_requests.share", "from 0 to 1");
    assert_input_err(&udp("qs_requests = { share = 0.5, rate_code = 16 }\n"), "flow[0].qs_requests.rate_code", "from 1 to 15");
    assert_input_err(&udp("qs_requests = { share = 0.5 }\n").replace("size = 50", "size = 30"), "flow[0].size", "at least 36");
}
