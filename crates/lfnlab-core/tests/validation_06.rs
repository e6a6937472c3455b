//! Tier (c): the TCP model against analytical results (spec 06 §7, V1–V8).
//! Each test states its expected value from a formula, never from a run.

mod common;
use common::*;

/// V1: 1 Gbit/s, 50 ms, buffer 1·BDP, socket buffers 4·BDP, 60 s:
/// goodput over [20, 60] s ≥ 0.98·(1448/1538)·C and ≤ (1448/1538)·C + 0.1 %.
/// The 4·BDP are what an application passes to setsockopt (CHOICE, see
/// docs/choices.md "V1 socket buffers"): the kernel doubles them.
fn v1_goodput(cc: &'static str) {
    // BDP = 1e9 · 0.05 / 8 = 6.25 MB.
    let out = Path06 {
        duration: "60s",
        buffer: "6250000B",
        bufs: "25000000B",
        tcp: "buffer_semantics = \"setsockopt\"",
        cc,
        ..Default::default()
    }
    .run();
    let g = goodput_bps(&out.tcp, 20.0, 60.0);
    let bound = wire_bound_bps(1e9);
    eprintln!("V1 {cc}: goodput {g:.0} bit/s = {:.4} of the wire bound; losses {}", g / bound, out.summary.flows[0].retransmitted_segments);
    assert!(g >= 0.98 * bound, "goodput {g:.0} < 0.98 × wire bound {bound:.0}");
    assert!(g <= bound * 1.001, "goodput {g:.0} above the wire bound {bound:.0}");
}

#[test]
fn v1_goodput_newreno() {
    v1_goodput("newreno");
}

#[test]
fn v1_goodput_cubic() {
    v1_goodput("cubic");
}

/// Rounds until cwnd ≥ BDP, from the event-mode trace.
fn rounds_to_bdp(tcp: &'static str, bdp_segments: f64) -> u64 {
    // Lossless: a buffer far above the slow-start overshoot.
    let out = Path06 {
        one_way: "50ms",
        duration: "4s",
        buffer: "64MiB",
        // The advertised window (¾ of it with linux-2.6's φ, 48 MiB) stays below
        // the queue, so the run is lossless whatever the window fraction.
        bufs: "64MiB",
        trace: "{ mode = \"event\" }",
        tcp,
        ..Default::default()
    }
    .run();
    let cwnd = f64s(&out.tcp, "cwnd");
    let rounds = u64s(&out.tcp, "rounds");
    let i = cwnd.iter().position(|c| *c >= bdp_segments).expect("cwnd never reached the BDP");
    assert_eq!(out.summary.flows[0].retransmitted_segments, 0, "V2 must be lossless");
    eprintln!("V2 [{}]: cwnd {:.0} ≥ BDP after {} rounds", tcp.replace('\n', "; "), cwnd[i], rounds[i]);
    rounds[i]
}

/// BDP of 1 Gbit/s × 100 ms in wire frames: 1e9·0.1/8/1538 ≈ 8127 segments.
const BDP_SEGS: f64 = 1e9 * 0.1 / 8.0 / 1538.0;

/// ⌈log_g(BDP/IW)⌉.
fn expected_rounds(growth: f64) -> u64 {
    ((BDP_SEGS / 10.0).ln() / growth.ln()).ceil() as u64
}

fn assert_within_one(got: u64, want: u64, what: &str) {
    assert!(got.abs_diff(want) <= 1, "{what}: {got} rounds, expected {want} ± 1");
}

/// V2 (a): per-segment ACKs double cwnd per RTT: ⌈log2(8127/10)⌉ = 10.
#[test]
fn v2a_slow_start_per_segment() {
    assert_eq!(expected_rounds(2.0), 10);
    let r = rounds_to_bdp("iw = \"10\"\nack_policy = \"per_segment\"", BDP_SEGS);
    assert_within_one(r, 10, "per_segment");
}

/// V2 (b): delayed ACKs with L = 1 give ×1.5 per RTT: ⌈log1.5(8127/10)⌉ = 17.
#[test]
fn v2b_slow_start_delayed_l1() {
    assert_eq!(expected_rounds(1.5), 17);
    let r = rounds_to_bdp("iw = \"10\"\nack_policy = \"delayed\"\nabc_l = 1", BDP_SEGS);
    assert_within_one(r, 17, "delayed, L = 1");
}

/// V2 (c): delayed ACKs with L = ∞ double per RTT: 10.
#[test]
fn v2c_slow_start_delayed_abc() {
    let r = rounds_to_bdp("iw = \"10\"\nack_policy = \"delayed\"\nabc_l = 0", BDP_SEGS);
    assert_within_one(r, 10, "delayed, L = ∞");
}

/// V2 (d): linux_quickack, L = 1: iterate w += credit per ACK, one ACK per
/// segment while the quick-ACK budget q lasts (q = min(16, n), n large here),
/// then one per two segments. Spec 06 §3's rule as written: without the
/// window-growth re-arm that the linux-2.6 profile has since issue 39 (V2 (e)).
#[test]
fn v2d_slow_start_quickack() {
    let mut w = 10.0f64;
    let mut q = 16u64;
    let mut want = 0;
    while w < BDP_SEGS {
        let segs = w.floor() as u64;
        let quick = q.min(segs);
        q -= quick;
        let acks = quick + (segs - quick) / 2;
        w += acks as f64; // credit min(acked, 1) = 1 per ACK
        want += 1;
    }
    eprintln!("V2 (d) iterated expectation: {want} rounds");
    let r = rounds_to_bdp("iw = \"10\"\nack_policy = \"linux_quickack\"\nabc_l = 1\nquickack_on_window_growth = false", BDP_SEGS);
    assert_within_one(r, want, "linux_quickack, L = 1");
}

/// V2 (e), issue 39 item 7: linux_quickack with the linux-2.6 profile's
/// `quickack_on_window_growth` (Linux `tcp_grow_window`'s `quick |= 1`). The locked
/// 64 MiB buffer's rcv_ssthresh starts at 4 segments (`tcp_select_initial_window`,
/// MSS ≤ 1460) and grows by 2 per segment received up to φ·B (48 MiB, far above the
/// BDP), so every segment is ACKed at once and cwnd doubles per round, but the first
/// rounds send only what the opening window allows: iterate
/// segs = min(⌊w⌋, rwnd), w += segs, rwnd += 2·segs.
#[test]
fn v2e_slow_start_quickack_on_window_growth() {
    let (mut w, mut rwnd, mut want) = (10.0f64, 4u64, 0);
    while w < BDP_SEGS {
        let segs = (w.floor() as u64).min(rwnd);
        w += segs as f64;
        rwnd += 2 * segs;
        want += 1;
    }
    eprintln!("V2 (e) iterated expectation: {want} rounds");
    let r = rounds_to_bdp("iw = \"10\"\nack_policy = \"linux_quickack\"\nabc_l = 1", BDP_SEGS);
    assert_within_one(r, want, "linux_quickack re-armed by window growth, L = 1");
}

/// V3: Mathis et al.: goodput ≈ (MSS/RTT)·√(3/2)/√p with per-segment ACKs,
/// within ±20 %, with at least 200 losses.
fn mathis(p: f64, duration: &'static str, link_extra: &'static str) {
    let out = Path06 {
        rate: "1Gbps",
        one_way: "10ms",
        duration,
        buffer: "64MiB",
        bufs: "64MiB",
        tcp: "ack_policy = \"per_segment\"",
        link_extra,
        ..Default::default()
    }
    .run();
    let f = &out.summary.flows[0];
    assert!(f.retransmitted_segments >= 200, "only {} losses", f.retransmitted_segments);
    let want = (1448.0 * 8.0 / 0.020) * (1.5f64).sqrt() / p.sqrt();
    let got = f.goodput_bps;
    eprintln!("V3 p = {p}: goodput {got:.0} vs Mathis {want:.0} ({:+.1} %), {} losses", (got / want - 1.0) * 100.0, f.retransmitted_segments);
    assert!((got / want - 1.0).abs() <= 0.20, "goodput {got:.0} vs Mathis {want:.0}");
}

#[test]
fn v3_mathis_p1e3() {
    mathis(1e-3, "150s", "loss = { kind = \"bernoulli\", p = 1e-3 }");
}

#[test]
fn v3_mathis_p1e4() {
    mathis(1e-4, "400s", "loss = { kind = \"bernoulli\", p = 1e-4 }");
}

/// V6: the same seed gives the same event-log hash, summary and tables;
/// tracing on or off changes neither the events nor the summary.
#[test]
fn v6_determinism() {
    let p = Path06 { duration: "5s", buffer: "200000B", link_extra: "loss = { kind = \"bernoulli\", p = 1e-4 }", ..Default::default() };
    let a = p.run();
    let b = p.run();
    assert_eq!(a.summary.event_hash, b.summary.event_hash);
    assert_eq!(a.tcp, b.tcp);
    assert_eq!(a.flows, b.flows);
    let strip = |mut s: lfnlab_core::results::summary::Summary| {
        s.wall_seconds = 0.0;
        serde_json::to_string(&s).unwrap()
    };
    assert_eq!(strip(a.summary.clone()), strip(b.summary.clone()));
    let c = Path06 { trace: "{ mode = \"off\" }", ..p }.run();
    assert_eq!(a.summary.event_hash, c.summary.event_hash);
    assert_eq!(strip(a.summary.clone()), strip(c.summary));
    let d = Path06 { trace: "{ mode = \"event\" }", ..Path06 { duration: "5s", buffer: "200000B", link_extra: "loss = { kind = \"bernoulli\", p = 1e-4 }", ..Default::default() } }.run();
    assert_eq!(strip(a.summary.clone()), strip(d.summary));
    // A different seed changes the loss pattern.
    let e = Path06 { seed: 2, duration: "5s", buffer: "200000B", link_extra: "loss = { kind = \"bernoulli\", p = 1e-4 }", ..Default::default() }.run();
    assert_ne!(a.summary.event_hash, e.summary.event_hash);
}

/// V8: lossless 1 Gbit/s, 50 ms, φ = ½: goodput = min(φ·B_rcv/RTT, wire bound) ± 2 %.
#[test]
fn v8_receive_window() {
    let bdp = 1e9 * 0.05 / 8.0; // bytes
    for (k, bufs) in [(1.0f64, "6250000B"), (2.0, "12500000B"), (3.0, "18750000B")] {
        // spec 06 §7 V8 is specified at φ = ½ (adv_win_scale 1; linux-2.6's own is ¾).
        let out = Path06 { duration: "20s", buffer: "64MiB", bufs, tcp: "adv_win_scale = 1", ..Default::default() }.run();
        assert_eq!(out.summary.flows[0].retransmitted_segments, 0);
        let rtt = 0.050; // base RTT; a window-limited flow below C adds no queueing
        let want = (0.5 * k * bdp * 8.0 / rtt).min(wire_bound_bps(1e9));
        let got = goodput_bps(&out.tcp, 5.0, 20.0);
        eprintln!("V8 B_rcv = {k}·BDP: goodput {got:.0} vs {want:.0} ({:+.2} %)", (got / want - 1.0) * 100.0);
        assert!((got / want - 1.0).abs() <= 0.02, "B_rcv = {k}·BDP: goodput {got:.0} vs {want:.0}");
    }
}

/// The bench's in-flight count (issue 9), `conservation.frames_in_network_max`:
/// when slow start first fills the 1·BDP drop-tail queue, the bottleneck sends
/// back to back, so the network holds the full queue plus the frames its
/// 25 ms link carries, one per 1538-byte wire time (≈ 2031), plus ACKs. It can
/// never hold more than that plus one ACK per data frame on the return path
/// and a full sender qdisc (txqueuelen 1000, the spec 06 §5.1 default).
#[test]
fn in_network_peak_covers_a_full_queue_and_its_link() {
    let out = Path06 { duration: "5s", ..Default::default() }.run();
    let c = &out.summary.conservation;
    let q = out.summary.queues.iter().find(|q| q.name == "wan->rcv").expect("bottleneck queue");
    assert!(q.dropped > 0, "slow start must overflow the queue");
    // Data frames are 1500 L3 bytes (MSS 1448 + 52).
    let queue_frames = q.max_bytes / 1500;
    let link_frames = 25e-3 * 1e9 / (1538.0 * 8.0);
    let peak = c.frames_in_network_max as f64;
    eprintln!("peak in network {peak}, queue max {queue_frames} frames, link {link_frames:.0} frames");
    assert!(peak >= queue_frames as f64 + link_frames - 2.0, "peak {peak} below a full queue and link");
    assert!(peak <= queue_frames as f64 + 2.0 * link_frames + 1000.0 + 64.0, "peak {peak} above queue + link + ACKs + qdisc");
    assert!(c.frames_in_network_max <= c.frames_emitted);
}

/// Two routers in series: snd → r1 → r2 → rcv, the bottleneck at r2 (a chain
/// of early link directions, sim::early).
const CHAIN: &str = r#"
[sim]
duration = "4s"
seed = 3
trace = { mode = "bin", bin = "100ms" }
[[node]]
name = "snd"
kind = "host"
[[node]]
name = "r1"
kind = "router"
[[node]]
name = "r2"
kind = "router"
[[node]]
name = "rcv"
kind = "host"
[[link]]
from = "snd"
to = "r1"
rate = "10Gbps"
delay = "0ms"
[[link]]
from = "r1"
to = "r2"
rate = "10Gbps"
delay = "10ms"
[[link]]
from = "r2"
to = "rcv"
rate = "1Gbps"
delay = "15ms"
queue = { kind = "droptail", limit = "1MB" }
[[flow]]
name = "f"
kind = "tcp_bulk"
from = "snd"
to = "rcv"
cc = "cubic"
sndbuf = "32MiB"
rcvbuf = "32MiB"
"#;

/// Eager router ports (net::eager_fifo) start every frame when it is accepted
/// instead of on a wake event, and early link directions (sim::early) forward
/// a frame into a router when it is launched instead of when it arrives (issue
/// 9). The same frames leave at the same times and events tie as on the woken
/// path, so every result but the event count and hash is unchanged. Checked
/// through slow-start overflow, random loss with CUBIC, a run that ends with a
/// full queue (its frames must still count as queued), a jittered link, a
/// chain of routers, and the gap-pacing and TCP-aware-NIC examples, whose
/// paced senders make events tie at the same picosecond.
#[test]
fn eager_router_ports_change_no_result() {
    use lfnlab_core::sim::build::BuildOptions;
    let strip = |mut s: lfnlab_core::results::summary::Summary| {
        s.wall_seconds = 0.0;
        s.events_executed = 0;
        s.event_hash.clear();
        serde_json::to_string(&s).unwrap()
    };
    let five_s = |t: &str| t.replace("duration = \"60s\"", "duration = \"5s\"");
    let mut cases: Vec<String> = [
        Path06 { duration: "4s", ..Default::default() },
        Path06 { duration: "5s", buffer: "200000B", cc: "cubic", link_extra: "loss = { kind = \"bernoulli\", p = 1e-4 }", ..Default::default() },
        Path06 { duration: "1.013s", buffer: "2MB", bufs: "16MiB", trace: "{ mode = \"event\" }", ..Default::default() },
        Path06 { duration: "3s", link_extra: "impair = { jitter = \"20us\" }", ..Default::default() },
    ]
    .iter()
    .map(|p| p.toml())
    .collect();
    cases.push(CHAIN.to_string());
    cases.push(five_s(include_str!("../../../examples/gap_pacing.toml")));
    cases.push(five_s(include_str!("../../../examples/tcp_nic.toml")));
    let (mut queued_at_end, mut saved) = (0, [0u64; 2]);
    for text in cases {
        let woken = common::run_toml_with(&text, BuildOptions { eager_ports: false, early_channels: false, ..BuildOptions::default() });
        for opts in [BuildOptions { eager_ports: true, early_channels: false, ..BuildOptions::default() }, BuildOptions::default()] {
            let fast = common::run_toml_with(&text, opts);
            assert!(fast.summary.events_executed <= woken.summary.events_executed, "{opts:?} adds events");
            saved[usize::from(opts.early_channels)] += woken.summary.events_executed - fast.summary.events_executed;
            assert_eq!(strip(fast.summary.clone()), strip(woken.summary.clone()), "{opts:?}\n{text}");
            assert_eq!(fast.flows, woken.flows);
            // Debug text compares NaN cells (CUBIC's unset fields) as equal.
            assert!(format!("{:?}", fast.tcp) == format!("{:?}", woken.tcp), "{opts:?}: the TCP trace differs");
            queued_at_end += fast.summary.conservation.frames_queued_at_end;
        }
    }
    assert!(queued_at_end > 0, "some case must end with frames waiting at an eager port");
    assert!(saved[1] > saved[0] && saved[0] > 0, "eager ports save events, early channels more: {saved:?}");
}

/// An observer that asks to stop (Ctrl-C in `lfnlab.run`, issue 40) stops the run
/// at that slice, as a limit does: the results cover what ran, marked partial with
/// `limit = "interrupted"`, and they are those of a run that simply ended there.
#[test]
fn an_observer_can_stop_a_run_and_the_result_says_so() {
    let s = lfnlab_core::scenario::load_str(&Path06 { duration: "3s", ..Default::default() }.toml(), "case.toml", &[]).expect("scenario");
    let mut slices = 0u64;
    let out = lfnlab_core::sim::run_observed(&s, &mut |_| {
        slices += 1;
        if slices == 250 { std::ops::ControlFlow::Break(()) } else { std::ops::ControlFlow::Continue(()) }
    })
    .expect("a stopped run still finishes its results");
    let partial = out.summary.partial.as_ref().expect("marked partial");
    assert_eq!(partial.limit, "interrupted");
    assert!((partial.stopped_at_s - 0.75).abs() < 0.01, "stopped at {} s, a quarter of 3 s", partial.stopped_at_s);
    assert!(out.summary.conservation.holds);
}

/// V6 for the progress observer: a run cut into slices for `lfnlab run`'s
/// progress display (`sim::run_observed`) executes the same events in the same
/// order as one uninterrupted run, so every result is identical, event hash included.
#[test]
fn slicing_a_run_for_its_progress_changes_nothing() {
    let cases = [
        Path06 { duration: "3s", ..Default::default() }.toml(),
        include_str!("../../../examples/gap_pacing.toml").replace("duration = \"60s\"", "duration = \"2s\""),
        CHAIN.to_string(),
    ];
    for text in cases {
        let s = lfnlab_core::scenario::load_str(&text, "case.toml", &[]).expect("scenario");
        let whole = lfnlab_core::sim::run(&s).expect("run");
        let mut seen = Vec::new();
        let sliced = lfnlab_core::sim::run_observed(&s, &mut |p| {
            seen.push(p);
            std::ops::ControlFlow::Continue(())
        })
        .expect("run");
        assert_eq!(seen.len() as u64, lfnlab_core::sim::PROGRESS_SLICES);
        assert!(seen.windows(2).all(|w| w[0].sim_s < w[1].sim_s && w[0].events <= w[1].events));
        assert_eq!(seen.last().map(|p| (p.sim_s, p.events)), Some((s.sim.duration.unwrap().span.as_secs_f64(), whole.summary.events_executed)));
        let (mut a, mut b) = (whole.summary.clone(), sliced.summary.clone());
        (a.wall_seconds, b.wall_seconds) = (0.0, 0.0);
        assert_eq!(a, b, "{text}");
        assert_eq!(whole.flows, sliced.flows);
        assert!(format!("{:?}", whole.tcp) == format!("{:?}", sliced.tcp));
        assert_eq!(whole.queues, sliced.queues);
    }
}

/// The bottleneck drops every frame that reaches its far end in the first 100 ms
/// (an outage, as in spec 06 §7 V7): the SYN, which arrives after the 25 ms
/// delay, is lost and sent again after `rto_init`.
const SYN_OUTAGE: &str = "loss = { kind = \"bernoulli\", p = 1.0, applies_to = \"all\", stop = \"100ms\" }";

/// spec 06 §2.2 step 4 (issue 38 item 5): a SYN retransmitted after `rto_init`
/// (1 s for `linux-modern`) reaches the flow's summary; its data retransmission
/// and timeout counts stay those of the data, and a run without a lost SYN says 0.
#[test]
fn a_lost_syn_is_counted_in_the_summary() {
    let lossy = Path06 { duration: "1500ms", profile: "linux-modern", link_extra: SYN_OUTAGE, ..Default::default() }.run();
    let f = &lossy.summary.flows[0];
    assert_eq!(f.syn_retransmits, 1, "one SYN lost, one sent again");
    assert_eq!((f.retransmitted_segments, f.timeouts), (0, 0), "the handshake is not data");
    assert!(f.bytes_delivered > 0, "the retransmitted SYN opens the connection");
    let clean = Path06 { duration: "1500ms", profile: "linux-modern", ..Default::default() }.run();
    assert_eq!(clean.summary.flows[0].syn_retransmits, 0);
}
