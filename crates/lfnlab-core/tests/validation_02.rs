//! Tier (b)/(c): Quick-Start (spec 02) end to end — the sender's request in
//! the SYN/ACK, the receiver's echo, the interface function (admission,
//! reduction, ring), the Quick-Start window and its timer pacing, the
//! refusals (non-QS hop, lost response, denial), loss in QS mode, explicit
//! and idle-restart triggers, determinism and the input checks.
//!
//! Expected values come from the spec formulas and from the wire times of
//! the frames (T0, spec 02 §4.1: 10 Mbit/s, Ethernet framing of 38 bytes per
//! frame), derived in comments; never from a run.

mod common;
use common::*;
use lfnlab_core::engine::rng::Stream;
use lfnlab_core::engine::time::{SimTime, Span};
use lfnlab_core::quickstart::option::IpQs;
use lfnlab_core::quickstart::sender::QsSender;
use lfnlab_core::results::summary::{QsFlowSummary, QsInterfaceSummary};
use lfnlab_core::scenario::load_str;
use lfnlab_core::scenario::model::QsFlowSpec;
use lfnlab_core::sim::RunOutput;
use lfnlab_core::{scenario, InputError};

// ---------------------------------------------------------------------------
// Constants of T0 (spec 02 §4.1, §2.6.1) and frame sizes.
// ---------------------------------------------------------------------------

/// Link rate of T0, bit/s.
const C_BPS: f64 = 10e6;
/// MSS payload (spec 02 §2.6.1: MTU 1500 − IP 20 − TCP 20 − timestamps 12).
const MSS: u64 = 1448;
/// IP + TCP header of a data segment with timestamps (H, spec 02 §2.3.1).
const HDR: u64 = 52;
/// The IPv4 Quick-Start option (spec 02 §2.2.2) and the TCP response option (§2.2.5).
const OPT: u64 = 8;
/// RFC 3390 initial window for MSS 1448 (spec 02 §2.6.1).
const IW: u64 = 3;
/// IP lengths of the control frames: a SYN or SYN/ACK carries 20 bytes of
/// TCP options (MSS, SACK-permitted, timestamps, window scale, padding); a
/// pure ACK carries the 12-byte timestamp option; the request is 100 bytes.
const L3_SYN: u64 = 20 + 20 + 20;
const L3_ACK: u64 = HDR;
const L3_REQUEST: u64 = HDR + 100;

/// Wire time of a frame of IP length `l3` at `rate_bps`: Ethernet adds 18
/// bytes of header and FCS (64-byte minimum frame), 8 of preamble and 12 of
/// inter-packet gap — the 38 bytes per frame of spec 02 §4.1 and §2.8 (O).
fn wire_s(l3: u64, rate_bps: f64) -> f64 {
    ((l3 + 18).max(64) + 20) as f64 * 8.0 / rate_bps
}

/// δ of spec 02 §2.8: 8·(M + H + O)/C = 8·1538/10⁷ = 1.2304 ms.
fn delta_s(rate_bps: f64) -> f64 {
    wire_s(MSS + HDR, rate_bps)
}

/// Rate(N) = 40 000 · 2^N bit/s (spec 02 §2.2.1).
fn rate_bps(n: u8) -> f64 {
    if n == 0 { 0.0 } else { 40_000.0 * f64::from(1u32 << n) }
}

/// W_qs = ⌊(Rate(K)/8) · T / (MSS + H)⌋ (spec 02 §2.3.6).
fn w_qs(code: u8, t_s: f64) -> u64 {
    (rate_bps(code) / 8.0 * t_s / (MSS + HDR) as f64).floor() as u64
}

/// The handshake RTT sample of the server (request in the SYN/ACK): SYN/ACK
/// sent → handshake ACK received = 2·one-way + wire(SYN/ACK + request option)
/// + wire(handshake ACK + echo option) (spec 02 §2.3.6: "the single sample").
fn handshake_sample_s(one_way_s: f64, rate: f64) -> f64 {
    2.0 * one_way_s + wire_s(L3_SYN + OPT, rate) + wire_s(L3_ACK + OPT, rate)
}

// ---------------------------------------------------------------------------
// The §2.8 reference model (γ≈2: per-segment ACKs, W_th = ∞ for Reno).
// ---------------------------------------------------------------------------

struct ModelOut {
    rounds: Vec<u64>,
    t_s: f64,
}

/// spec 02 §2.8: N = ⌈S/M⌉; w_{j+1} = w_j + a_j with a_j = n_j (Q = ∞);
/// β_j = n_j·δ (QS: β_1 = n_1·max(δ, 8(M+H)/q)); D = Σβ_j + Σ_{j<K} max(0, τ + δ − β_j);
/// T = 2τ + D. `qs`: (W_qs, q in bit/s).
fn model(s_bytes: u64, tau_s: f64, rate: f64, qs: Option<(u64, f64)>) -> ModelOut {
    let n_total = s_bytes.div_ceil(MSS);
    let delta = delta_s(rate);
    let mut w = qs.map_or(IW, |(wq, _)| wq.max(IW));
    let (mut sent, mut rounds, mut betas) = (0u64, Vec::new(), Vec::new());
    while sent < n_total {
        let n = w.min(n_total - sent);
        let beta = match (rounds.is_empty(), qs) {
            (true, Some((_, q))) => n as f64 * delta.max(8.0 * (MSS + HDR) as f64 / q),
            _ => n as f64 * delta,
        };
        rounds.push(n);
        betas.push(beta);
        sent += n;
        w += n;
    }
    let k = betas.len();
    let d: f64 = betas.iter().sum::<f64>() + betas[..k - 1].iter().map(|b| (tau_s + delta - b).max(0.0)).sum::<f64>();
    ModelOut { rounds, t_s: 2.0 * tau_s + d }
}

// ---------------------------------------------------------------------------
// Scenario builder: T0 (S —— C) and its variants.
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq)]
enum Path {
    /// One link S → C (`loss` acts on S → C).
    Direct,
    /// The same link written C → S (`loss` acts on C → S, the ACK direction).
    Reversed,
    /// S —(1 Gbit/s, 0 ms)— R —(rate, one-way)— C; `router_qs` on R.
    ViaRouter,
}

#[derive(Clone)]
struct Flow {
    name: &'static str,
    start: &'static str,
    /// `response` of the request_response flow; "" = unlimited.
    response: &'static str,
    /// The flow's `quickstart` inline table; "" = none.
    qs: String,
}

#[derive(Clone)]
struct T0 {
    seed: u64,
    duration: &'static str,
    one_way: &'static str,
    rate: &'static str,
    /// S's `quickstart` inline table; "" = none.
    node_qs: String,
    /// R's `quickstart` inline table (ViaRouter); "" = none.
    router_qs: String,
    path: Path,
    /// Extra `key = value` lines of the (last) link, e.g. `loss`.
    link_extra: String,
    flows: Vec<Flow>,
    trace: &'static str,
    capture: u64,
}

impl Default for T0 {
    fn default() -> T0 {
        T0 {
            seed: 1,
            duration: "1s",
            one_way: "50ms",
            rate: "10Mbps",
            node_qs: r#"{ capacity = "10Mbps" }"#.into(),
            router_qs: String::new(),
            path: Path::Direct,
            link_extra: String::new(),
            flows: vec![Flow { name: "rr", start: "0s", response: "200kB", qs: String::new() }],
            trace: r#"{ mode = "off" }"#,
            capture: 400,
        }
    }
}

impl T0 {
    fn qs(mut self, table: &str) -> T0 {
        self.flows[0].qs = table.into();
        self
    }

    fn toml(&self) -> String {
        let kv = |k: &str, v: &str| if v.is_empty() { String::new() } else { format!("{k} = {v}\n") };
        let mut s = format!(
            "[sim]\nduration = \"{}\"\nseed = {}\ntrace = {}\n\n[[node]]\nname = \"S\"\nkind = \"host\"\n{}\n[[node]]\nname = \"C\"\nkind = \"host\"\n\n",
            self.duration,
            self.seed,
            self.trace,
            kv("quickstart", &self.node_qs)
        );
        let (data_link, monitor) = match self.path {
            Path::Direct => ("from = \"S\"\nto = \"C\"\n".to_string(), "S->C"),
            Path::Reversed => ("from = \"C\"\nto = \"S\"\n".to_string(), "S->C"),
            Path::ViaRouter => {
                s += &format!("[[node]]\nname = \"R\"\nkind = \"router\"\n{}\n", kv("quickstart", &self.router_qs));
                s += "[[link]]\nfrom = \"S\"\nto = \"R\"\nrate = \"1Gbps\"\ndelay = \"0ms\"\n\n";
                ("from = \"R\"\nto = \"C\"\n".to_string(), "R->C")
            }
        };
        s += &format!("[[link]]\n{data_link}rate = \"{}\"\ndelay = \"{}\"\n{}\n", self.rate, self.one_way, self.link_extra);
        for f in &self.flows {
            s += &format!(
                "[[flow]]\nname = \"{}\"\nkind = \"request_response\"\nfrom = \"C\"\nto = \"S\"\nstart = \"{}\"\n{}{CH02_TCP}{}\n",
                f.name,
                f.start,
                if f.response.is_empty() { String::new() } else { format!("response = \"{}\"\n", f.response) },
                kv("quickstart", &f.qs)
            );
        }
        if self.capture > 0 {
            for m in [monitor, "C->S"] {
                let m = if self.path == Path::ViaRouter && m == "C->S" { "C->R" } else { m };
                s += &format!("[[monitor]]\nlink = \"{m}\"\nbin = \"1s\"\ncapture_packets = {}\n\n", self.capture);
            }
        }
        s
    }

    fn run(&self) -> RunOutput {
        run_toml(&self.toml())
    }
}

fn flow_qs(out: &RunOutput, i: usize) -> &QsFlowSummary {
    out.summary.flows[i].quickstart.as_ref().expect("the flow has a Quick-Start summary")
}

fn iface<'a>(out: &'a RunOutput, name: &str) -> &'a QsInterfaceSummary {
    out.summary
        .quickstart_interfaces
        .iter()
        .find(|q| q.name == name)
        .unwrap_or_else(|| panic!("no Quick-Start interface {name} in {:?}", out.summary.quickstart_interfaces.iter().map(|q| &q.name).collect::<Vec<_>>()))
}

fn response_time(out: &RunOutput, i: usize) -> f64 {
    out.summary.flows[i].response_time_s.expect("the response completed")
}

/// A captured frame.
#[derive(Clone, Copy, Debug)]
struct Frame {
    t: f64,
    data: bool,
    l3: u64,
    payload: u64,
    seq: u64,
}

/// Frames captured by monitor `name`, in departure order.
fn frames(out: &RunOutput, name: &str) -> Vec<Frame> {
    let (m, t, k) = (strs(&out.packets, "monitor"), f64s(&out.packets, "t"), strs(&out.packets, "kind"));
    let (l3, pl, seq) = (u64s(&out.packets, "l3_bytes"), u64s(&out.packets, "payload"), u64s(&out.packets, "seq"));
    (0..t.len())
        .filter(|&i| m[i] == name)
        .map(|i| Frame { t: t[i], data: k[i] == "data", l3: l3[i], payload: pl[i], seq: seq[i] })
        .collect()
}

fn data_frames(out: &RunOutput, name: &str) -> Vec<Frame> {
    frames(out, name).into_iter().filter(|f| f.data).collect()
}

/// Groups of departures separated by more than `gap_s`.
fn clusters(times: &[f64], gap_s: f64) -> Vec<(f64, u64)> {
    let mut out: Vec<(f64, u64)> = Vec::new();
    let mut last = f64::NEG_INFINITY;
    for &t in times {
        if t - last > gap_s {
            out.push((t, 1));
        } else if let Some(c) = out.last_mut() {
            c.1 += 1;
        }
        last = t;
    }
    out
}

const NS: f64 = 1e-9;

// ---------------------------------------------------------------------------
// Timeline of the T0 exchange, shared by several tests (one-way delay τ/2).
//
// t = 0      the client's SYN (60 B) leaves C;
// + w(SYN) + τ/2: S answers with the SYN/ACK (60 B, + 8 with a request);
// + w(SYN/ACK) + τ/2: C sends the handshake ACK (52 B, + 8 with the echo)
//            and at once the 100-byte request (152 B), back to back;
// + w(ACK) + w(request) + τ/2: the request is at S — this is t0, the start of
//            QS mode (qs_start_s). S first ACKs the request (a pure ACK of
//            52 B, quick-ACK rule), then its data leaves: the first data frame
//            departs at t0 + w(52).
// ---------------------------------------------------------------------------

/// t0 of the timeline above, for a request (`qs`) or none.
fn t_request_at_server(one_way_s: f64, rate: f64, qs: bool) -> f64 {
    let o = if qs { OPT } else { 0 };
    2.0 * one_way_s + one_way_s
        + wire_s(L3_SYN, rate)
        + wire_s(L3_SYN + o, rate)
        + wire_s(L3_ACK + o, rate)
        + wire_s(L3_REQUEST, rate)
}

// ===========================================================================
// 1. No Quick-Start: slow start's round structure and the §2.8 response time.
// ===========================================================================

/// A request_response on T0 without `quickstart`: S's interface function
/// sees no option at all, and the 200 kB response follows slow start with
/// per-segment ACKs (spec 02 §2.6.2 `linux_like` (b): all 200 kB < rcvbuf/2
/// = 4 MiB): rounds 3, 6, 12, 24, 48, 46 (§2.8 recursion, γ≈2, N = ⌈200000/1448⌉
/// = 139). T must equal 2τ + D of §2.8 (0.76275 s) within one packet time δ.
#[test]
fn no_quickstart_is_slow_start_with_the_model_response_time() {
    let out = T0::default().run();
    let f = &out.summary.flows[0];
    assert!(f.quickstart.is_none(), "no quickstart key → no QS summary");
    let q = iface(&out, "S:ifq").counters;
    assert_eq!((q.qs_requests_seen, q.qs_reports_seen, q.qs_approved_full, q.qs_denied), (0, 0, 0, 0));
    // The meter counts every packet leaving S (spec 02 §2.5.2): as many as the capture saw.
    let sent = frames(&out, "S->C");
    assert_eq!(q.packets, sent.len() as u64);
    assert_eq!(q.meter_updates, q.packets);
    assert_eq!(q.bytes, sent.iter().map(|f| f.l3).sum::<u64>());
    // No option anywhere: no reduced data segment, every SYN/ACK and ACK of the plain size.
    assert!(sent.iter().all(|f| !f.data || f.payload == MSS || f.seq + f.payload == 200_000));
    assert_eq!(sent[0].l3, L3_SYN);
    assert!(sent[1..].iter().all(|f| f.data || f.l3 == L3_ACK));
    let back = frames(&out, "C->S");
    assert!(back[0].l3 == L3_SYN && back[1..].iter().all(|f| f.l3 == L3_ACK || f.l3 == L3_REQUEST));

    // Rounds: within a round the frames leave back to back (δ apart); between
    // rounds the sender waits for the ACK clock: a gap of τ + δ + w(52) −
    // (n_j − 1)·δ ≥ 43 ms for n_j ≤ 48.
    let tau = 0.1;
    let delta = delta_s(C_BPS);
    let m = model(200_000, tau, C_BPS, None);
    assert_eq!(m.rounds, vec![3, 6, 12, 24, 48, 46]);
    let data: Vec<f64> = data_frames(&out, "S->C").iter().map(|f| f.t).collect();
    let rounds: Vec<u64> = clusters(&data, 2.0 * delta).iter().map(|c| c.1).collect();
    assert_eq!(rounds, m.rounds, "slow-start round structure");

    // §2.8: T = 2τ + D = 0.2 + Σβ + Σ_{j<6}(τ + δ − β_j) = 0.76275 s.
    let t = response_time(&out, 0);
    assert!((m.t_s - 0.762_75).abs() < 1e-5, "model {}", m.t_s);
    assert!((t - m.t_s).abs() < delta, "T = {t} s, model 2τ + D = {} s (bound δ = {delta} s)", m.t_s);

    // Exact wire accounting of what the model neglects: the control frames
    // before the first data frame, one ACK wire time a = w(52) per round
    // trip, and the 176-byte last segment (200000 − 138·1448).
    let a = wire_s(L3_ACK, C_BPS);
    let first_data = t_request_at_server(tau / 2.0, C_BPS, false) + a;
    assert!((data[0] - first_data).abs() < NS, "first data at {} s, expected {first_data} s", data[0]);
    let exact = first_data + 5.0 * (tau + delta + a) + 45.0 * delta + wire_s(HDR + 176, C_BPS) + tau / 2.0;
    assert!((t - exact).abs() < NS, "T = {t} s, exact wire accounting {exact} s");
}

// ===========================================================================
// 2. A granted request.
// ===========================================================================

/// T0 with `rate_code = 7`: S's own interface approves 5.12 Mbit/s in full
/// (budget θ·C − R_meas − R_recent = 10 Mbit/s in interval 0), the client
/// echoes it on the handshake ACK, and the server uses it.
#[test]
fn granted_request_is_used_and_beats_slow_start() {
    let out = T0::default().qs("{ rate_code = 7 }").run();
    let q = flow_qs(&out, 0);
    assert_eq!(q.outcome.as_deref(), Some("used"));
    assert_eq!(q.state, "done");
    assert_eq!((q.requests, q.approvals, q.nonce_failures, q.not_useful), (1, 1, 0, 0));
    assert_eq!((q.requested_code, q.approved_code), (7, 7));
    assert_eq!((q.echoed, q.echo_no_space), (1, 0));
    // Exactly one report, Report(7) on the first QS data packet (spec 02 §2.3.11).
    assert_eq!(q.reports_sent, 1);

    // W_qs with the handshake sample T̂ = 100 ms + w(68 B) + w(60 B) = 100.1632 ms:
    // ⌊640000 · 0.1001632 / 1500⌋ = ⌊42.74⌋ = 42.
    let tau = 0.1;
    let sample = handshake_sample_s(tau / 2.0, C_BPS);
    let w = w_qs(7, sample);
    assert_eq!(w, 42);
    assert_eq!(q.w_qs as u64, w);
    // All 42 are sent in QS mode: the last of the n = 14 timers fires at most
    // 92 ticks (92 ms) after t0, the first ACK of QS data comes back after
    // w(52) + δ + τ + w(52) ≈ 101.4 ms.
    assert_eq!(q.qs_pkts_sent as u64, w);
    let t0 = t_request_at_server(tau / 2.0, C_BPS, true);
    let qs_start = q.qs_start_s.expect("QS mode started");
    assert!((qs_start - t0).abs() < NS, "QS mode at {qs_start} s, expected {t0} s");

    // Router: one request approved in full at the host's own egress (d = 0:
    // no QS TTL change, no checksum update), one Report of Approved Rate seen.
    let r = iface(&out, "S:ifq").counters;
    assert_eq!((r.qs_requests_seen, r.qs_approved_full, r.qs_approved_reduced, r.qs_denied), (1, 1, 0, 0));
    assert_eq!((r.qs_reports_seen, r.nonce_fields_rerandomized, r.ip_csum_updates), (1, 0, 0));

    // The SYN/ACK carries the request option; the first data packet carries
    // the report and so at most MSS − 8 = 1440 payload bytes (spec 02 §2.2.7);
    // no other data packet is reduced.
    let sent = frames(&out, "S->C");
    assert_eq!(sent[0].l3, L3_SYN + OPT);
    let data = data_frames(&out, "S->C");
    assert_eq!((data[0].payload, data[0].l3), (MSS - OPT, MSS + HDR));
    assert!(data[1..].iter().all(|f| f.payload == MSS || f.seq + f.payload == 200_000));
    // The handshake ACK from the client carries the echo (52 + 8).
    let back = frames(&out, "C->S");
    assert_eq!(back[1].l3, L3_ACK + OPT, "handshake ACK with the kind-27 option");

    // Response time. The §2.8 model with q = 5.12 Mbit/s, W_qs = 42:
    // β_1 = 42 · 8·1500/5.12e6 = 98.44 ms, rounds 42, 84, 13 → T = 0.42058 s.
    let t = response_time(&out, 0);
    let m = model(200_000, tau, C_BPS, Some((w, rate_bps(7))));
    assert_eq!(m.rounds, vec![42, 84, 13]);
    assert!((m.t_s - 0.420_58).abs() < 1e-5, "model {}", m.t_s);
    let delta = delta_s(C_BPS);
    assert!((t - m.t_s).abs() < delta, "T_QS = {t} s, model {} s", m.t_s);
    // Exact: from the ACK of the first QS packet (at t0 + a + δ + τ + a) the
    // link stays busy to the end — each ACK of round 1 releases two segments
    // (a chunk of 3 ACKs → 6δ = 7.38 ms of work against 7 or 8 ticks between
    // chunks, with the backlog of the 7-tick gaps covering the 8-tick one),
    // and round 2 (84·δ = 103 ms) outlasts a round trip. The remaining
    // 97 segments are 96 full ones and the last 184 bytes
    // (200000 − 1440 − 137·1448 = 184).
    let a = wire_s(L3_ACK, C_BPS);
    let exact = t0 + a + delta + tau + a + 96.0 * delta + wire_s(HDR + 184, C_BPS) + tau / 2.0;
    assert!((t - exact).abs() < NS, "T_QS = {t} s, exact {exact} s");
    // Slow start on the same path (test 1): T_SS ≈ 0.7625 s.
    let t_ss = response_time(&T0::default().run(), 0);
    assert!(t < t_ss - 0.3, "T_QS {t} s vs T_SS {t_ss} s");
}

/// spec 02 §2.4 rule 4 `linux_like`: a receiver that opens its window
/// gradually from 4·MSS would hide the approval (4 segments against W_qs = 42);
/// echoing the approval raises the window to ⌈Rate(7)/8 · RTT_r⌉ + 4·MSS, RTT_r
/// the client's handshake sample, so the transfer runs exactly as with the
/// full buffer. Without a request the gradual window (+2·MSS per segment) stays
/// ahead of slow start and changes nothing either.
#[test]
fn linux_like_receive_window_shows_the_approval() {
    let run = |qs: &str| T0 { trace: r#"{ mode = "event" }"#, ..T0::default() }.qs(qs).run();
    let gradual = run(r#"{ rate_code = 7, recv_rwnd_policy = "linux_like" }"#);
    let full = run("{ rate_code = 7 }");
    assert_eq!(flow_qs(&gradual, 0).outcome.as_deref(), Some("used"));
    assert_eq!(flow_qs(&gradual, 0).qs_pkts_sent, flow_qs(&full, 0).qs_pkts_sent);
    let (tg, tf) = (response_time(&gradual, 0), response_time(&full, 0));
    assert!((tg - tf).abs() < NS, "linux_like {tg} s, full_buffer {tf} s");

    // The window the server first sees: the client's handshake ACK echoes
    // code 7. RTT_r = 100 ms + w(60 B) + w(68 B) = 100.1632 ms →
    // ⌈640 000 B/s · 0.1001632 s⌉ + 4·1448 = 64 105 + 5 792 = 69 897 B, rounded
    // up to the window-scale unit (an 8 MiB buffer with φ = 1 needs scale 8, as
    // 65 535·2^7 < 8 MiB: 256 B; linux-modern's `window_rounding = "up"`, 6.8
    // `__tcp_select_window`): 70 144 B.
    let rtt_r = 0.1 + wire_s(L3_SYN, C_BPS) + wire_s(L3_SYN + OPT, C_BPS);
    let floor = (rate_bps(7) / 8.0 * rtt_r).ceil() as u64 + 4 * MSS;
    assert_eq!(floor, 69_897);
    // The server's window when its first data leaves (the trace's first row
    // with data sent); the full buffer advertises all 8 MiB instead.
    let first_data_window = |out: &RunOutput| {
        let (rwnd, snd_max) = (u64s(&out.tcp, "rwnd"), u64s(&out.tcp, "snd_max"));
        rwnd[snd_max.iter().position(|&m| m > 0).expect("data was sent")]
    };
    assert_eq!(first_data_window(&gradual), floor.div_ceil(256) * 256);
    assert!(first_data_window(&full) > 8_000_000, "{}", first_data_window(&full));

    // A request in the SYN (tcp_bulk): the SYN/ACK echoes it before the client
    // has an RTT sample and advertises the largest unscaled window, 65 535 B,
    // which holds W_qs = 42 segments of 1500 B (63 000 B): the QS window is sent
    // in full, as with the full buffer, whose SYN/ACK carries the same 65 535 B.
    let bulk_qs = |p: &str| {
        let out = run_toml(&bulk("1s", &format!(r#"quickstart = {{ rate_code = 7, recv_rwnd_policy = "{p}" }}"#), 0));
        let q = flow_qs(&out, 0).clone();
        (q.outcome, q.qs_pkts_sent, out.summary.flows[0].goodput_bps)
    };
    let (g, f) = (bulk_qs("linux_like"), bulk_qs("full_buffer"));
    assert_eq!(g.0.as_deref(), Some("used"));
    assert_eq!((g.0, g.1), (f.0, f.1));
    assert!(g.1 >= 42, "QS segments {}", g.1);
    assert!((g.2 - f.2).abs() < 1e-6 * f.2, "goodput linux_like {} vs full_buffer {}", g.2, f.2);

    // No request: identical to the full buffer.
    let no_qs = |p: &str| response_time(&run(&format!(r#"{{ on_connect = false, recv_rwnd_policy = "{p}" }}"#)), 0);
    let (g, f) = (no_qs("linux_like"), no_qs("full_buffer"));
    assert!((g - f).abs() < NS, "slow start: linux_like {g} s, full_buffer {f} s");
}

// ===========================================================================
// 3. Reduced requests.
// ===========================================================================

/// spec 02 §2.5.4 target_reduce: a code-9 request (20.48 Mbit/s) against
/// C = 10 Mbit/s, idle meter and ring → grant 10 Mbit/s → N_app =
/// code_floor(10 Mbit/s) = 7 (5.12 ≤ 10 < 10.24). The node re-randomizes the
/// nonce fields of steps 9→8 and 8→7 (2 fields), leaves the rightmost 2·7 bits,
/// so the sender's check (§2.3.5) passes and it uses code 7.
#[test]
fn reduced_request_is_lowered_to_what_fits_and_passes_the_nonce_check() {
    let out = T0::default().qs("{ rate_code = 9 }").run();
    let q = flow_qs(&out, 0);
    assert_eq!(q.outcome.as_deref(), Some("used"));
    assert_eq!((q.requested_code, q.approved_code, q.nonce_failures), (9, 7, 0));
    assert_eq!(q.w_qs as u64, w_qs(7, handshake_sample_s(0.05, C_BPS)));
    let r = iface(&out, "S:ifq").counters;
    assert_eq!((r.qs_approved_full, r.qs_approved_reduced, r.qs_denied), (0, 1, 0));
    assert_eq!(r.nonce_fields_rerandomized, 9 - 7);
    // A reduced approval rewrites the option: one checksum update (§2.5.5).
    assert_eq!(r.ip_csum_updates, 1);
}

/// spec 02 §4.6 note: θ = 0.5 on an idle link: budget 0.5·10 = 5 Mbit/s <
/// 5.12 → grant 5 Mbit/s → code_floor = 6 (2.56 ≤ 5 < 5.12); one nonce field
/// (7→6) re-randomized; W_qs = ⌊320000 · 0.1001632/1500⌋ = ⌊21.37⌋ = 21.
#[test]
fn thresh_half_lowers_a_code_7_request_to_6() {
    let out = T0 { node_qs: r#"{ capacity = "10Mbps", thresh = 0.5 }"#.into(), ..T0::default() }.qs("{ rate_code = 7 }").run();
    let q = flow_qs(&out, 0);
    assert_eq!(q.outcome.as_deref(), Some("used"));
    assert_eq!((q.requested_code, q.approved_code), (7, 6));
    let w = w_qs(6, handshake_sample_s(0.05, C_BPS));
    assert_eq!(w, 21);
    assert_eq!((q.w_qs as u64, q.qs_pkts_sent as u64), (w, w));
    let r = iface(&out, "S:ifq").counters;
    assert_eq!((r.qs_approved_reduced, r.nonce_fields_rerandomized), (1, 1));
}

/// A valid approval that is not useful (spec 02 §2.3.4 row 5, §2.3.6): code
/// 3 (320 kbit/s) gives W_qs = ⌊40000 · 0.1001632/1500⌋ = ⌊2.67⌋ = 2 ≤ cwnd
/// = IW = 3 → "not_useful", Report(0), no QS mode: slow start within one
/// packet time (the option bytes on three control frames: 19 µs).
#[test]
fn approval_below_the_initial_window_is_not_useful() {
    let out = T0::default().qs("{ rate_code = 3 }").run();
    let q = flow_qs(&out, 0);
    assert_eq!(w_qs(3, handshake_sample_s(0.05, C_BPS)), 2);
    assert_eq!(q.outcome.as_deref(), Some("not_useful"));
    assert_eq!((q.approvals, q.approved_code, q.not_useful, q.reports_sent, q.qs_pkts_sent), (1, 3, 1, 1, 0));
    assert_eq!(q.qs_start_s, None);
    assert_eq!(iface(&out, "S:ifq").counters.qs_reports_seen, 1);
    let t_ss = response_time(&T0::default().run(), 0);
    assert!((response_time(&out, 0) - t_ss).abs() < delta_s(C_BPS));
}

// ===========================================================================
// 4. A non-QS router on the path.
// ===========================================================================

/// S —(1 Gbit/s)— R —(10 Mbit/s, 50 ms)— C, QS function only on S's egress.
/// S approves, R forwards the option untouched but decrements the IP TTL, so
/// the client's TTL Diff is one less than the sender stored (spec 02 §2.5.6):
/// the echo fails check 1 of §2.3.5 → refused, Report(0), slow start. The
/// response time equals slow start's on the same path within one packet
/// time (the extra option bytes are 8 per frame on three frames: 19 µs).
#[test]
fn non_qs_router_makes_the_ttl_diff_check_refuse() {
    let base = T0 { path: Path::ViaRouter, ..T0::default() };
    let out = base.clone().qs("{ rate_code = 7 }").run();
    let q = flow_qs(&out, 0);
    assert_eq!(q.outcome.as_deref(), Some("refused"));
    assert_eq!((q.requests, q.approvals, q.approved_code, q.echoed, q.reports_sent), (1, 0, 0, 1, 1));
    assert_eq!((q.w_qs, q.qs_pkts_sent, q.qs_start_s), (0, 0, None));
    let r = iface(&out, "S:ifq").counters;
    assert_eq!((r.qs_requests_seen, r.qs_approved_full, r.qs_reports_seen), (1, 1, 1));
    assert_eq!(out.summary.quickstart_interfaces.len(), 1, "R has no QS function");
    // No data packet is reduced: the Report(0) rides on S's pure ACK of the request.
    let data = data_frames(&out, "R->C");
    assert!(data.iter().all(|f| f.payload == MSS || f.seq + f.payload == 200_000));
    let t_qs = response_time(&out, 0);
    let t_ss = response_time(&base.run(), 0);
    let delta = delta_s(C_BPS);
    assert!((t_qs - t_ss).abs() < delta, "refused QS {t_qs} s vs slow start {t_ss} s");
}

/// The positive control: the same path with a QS function on R too. R's
/// approval decrements the QS TTL with the IP TTL (d = 1, one checksum
/// update, spec 02 §2.5.5), the TTL Diff matches and the request is used.
#[test]
fn qs_router_on_the_path_keeps_the_ttl_diff() {
    let out = T0 { path: Path::ViaRouter, router_qs: r#"{ capacity = "10Mbps" }"#.into(), ..T0::default() }.qs("{ rate_code = 7 }").run();
    let q = flow_qs(&out, 0);
    assert_eq!(q.outcome.as_deref(), Some("used"));
    assert_eq!(q.approved_code, 7);
    let r = iface(&out, "R->C").counters;
    assert_eq!((r.qs_requests_seen, r.qs_approved_full, r.ip_csum_updates, r.qs_reports_seen), (1, 1, 1, 1));
    let s = iface(&out, "S:ifq").counters;
    assert_eq!((s.qs_approved_full, s.ip_csum_updates), (1, 0));
    // R's other egress (toward S) sees no request: the client only echoes.
    assert_eq!(iface(&out, "R->S").counters.qs_requests_seen, 0);
}

// ===========================================================================
// 5. A lost Quick-Start response.
// ===========================================================================

/// The echo rides on the client's handshake ACK; a loss window on C → S that
/// covers only that frame's arrival at S drops it. Arrivals at S: handshake
/// ACK at 1.5τ + w(60) + w(68) + w(60) = 150.2416 ms, the request right
/// behind it at + w(152) = 150.3936 ms; window [150.20, 150.30) ms. The
/// request segment (flag ACK, acknowledging the SYN/ACK) completes the
/// handshake without a kind-27 option → "no_response", Report(0) on S's
/// next packet (its pure ACK of the request: 52 + 8 bytes), never resent,
/// no further request; the transfer is plain slow start.
#[test]
fn lost_response_is_no_response_and_a_single_report_zero() {
    let loss = r#"loss = { kind = "bernoulli", p = 1.0, applies_to = "all", start = "150.2ms", stop = "150.3ms" }"#;
    let base = T0 { path: Path::Reversed, link_extra: loss.into(), ..T0::default() };
    let ack_at = 0.15 + wire_s(L3_SYN, C_BPS) + wire_s(L3_SYN + OPT, C_BPS) + wire_s(L3_ACK + OPT, C_BPS);
    assert!(ack_at > 0.1502 && ack_at + wire_s(L3_REQUEST, C_BPS) > 0.1503 && ack_at < 0.1503);
    let out = base.clone().qs("{ rate_code = 7 }").run();
    assert_eq!(out.summary.conservation.frames_dropped, 1, "only the handshake ACK is lost");
    let q = flow_qs(&out, 0);
    assert_eq!(q.outcome.as_deref(), Some("no_response"));
    assert_eq!(q.state, "done");
    assert_eq!((q.requests, q.approvals, q.echoed, q.reports_sent), (1, 0, 1, 1));
    let r = iface(&out, "S:ifq").counters;
    assert_eq!((r.qs_requests_seen, r.qs_reports_seen), (1, 1));
    // The frame after the SYN/ACK is S's pure ACK of the request with Report(0).
    let sent = frames(&out, "S->C");
    assert!(!sent[1].data && sent[1].l3 == L3_ACK + OPT, "Report(0) on the pure ACK: {:?}", sent[1]);
    assert!(sent[2..].iter().all(|f| f.l3 != L3_ACK + OPT && (!f.data || f.payload == MSS || f.seq + f.payload == 200_000)));
    // Slow start with the same lost ACK, without Quick-Start.
    let t_ss = response_time(&base.run(), 0);
    assert!((response_time(&out, 0) - t_ss).abs() < delta_s(C_BPS));
}

// ===========================================================================
// 6. A packet lost in QS mode.
// ===========================================================================

/// The T0 run of test 6: the first QS data packet leaves S at t0 + w(52) =
/// 150.4656 ms and reaches C δ + 50 ms later, at 201.696 ms; the second
/// arrives δ after it (202.93 ms). A loss window [201.0, 202.0) ms on S → C
/// drops the first only.
fn run_loss_in_qs() -> RunOutput {
    let first_arrival = t_request_at_server(0.05, C_BPS, true) + wire_s(L3_ACK, C_BPS) + delta_s(C_BPS) + 0.05;
    assert!((first_arrival - 0.201_696).abs() < NS);
    let loss = r#"loss = { kind = "bernoulli", p = 1.0, applies_to = "data", start = "201ms", stop = "202ms" }"#;
    let out = T0 { link_extra: loss.into(), trace: r#"{ mode = "event" }"#, duration: "3s", ..T0::default() }.qs("{ rate_code = 7 }").run();
    assert_eq!(out.summary.conservation.frames_dropped, 1);
    out
}

/// Index of the tcp.parquet (event mode) row where fast recovery is entered.
fn recovery_row(out: &RunOutput) -> usize {
    let st = strs(&out.tcp, "ca_state");
    (0..st.len()).find(|&i| st[i] == "recovery").expect("a loss detection")
}

/// spec 02 §2.3.10: the loss is detected (dupacks/SACK of the later QS
/// packets) while still in QS mode (no ACK beyond qs_first_seq can come):
/// outcome "loss_in_qs", state DISABLED, cwnd ← IW = 3, ssthresh ←
/// min(ssthresh, max(2, ⌊Q_ok/2⌋)) = 2 with Q_ok = 0. The response is then
/// slower than plain slow start.
#[test]
fn loss_in_qs_mode_reverts_to_the_initial_window() {
    let out = run_loss_in_qs();
    let q = flow_qs(&out, 0);
    assert_eq!(q.outcome.as_deref(), Some("loss_in_qs"));
    assert_eq!(q.state, "disabled");
    assert_eq!((q.requests, q.approvals, q.approved_code), (1, 1, 7));
    assert!(out.summary.flows[0].retransmitted_segments >= 1);
    let i = recovery_row(&out);
    let (cwnd, ssthresh) = (f64s(&out.tcp, "cwnd")[i], f64s(&out.tcp, "ssthresh")[i]);
    assert_eq!((cwnd, ssthresh), (IW as f64, 2.0), "cwnd/ssthresh at the loss detection in QS mode");
    // Reverting costs time: the response is no faster than plain slow start.
    let t_ss = response_time(&T0::default().run(), 0);
    let t_loss = response_time(&out, 0);
    assert!(t_loss >= t_ss, "loss in QS {t_loss} s vs slow start {t_ss} s");
}

/// spec 02 §2.3.10: "Loss recovery itself (fast retransmit, SACK, RTO)
/// follows the congestion-control module": the QS revert must not hold back
/// the fast retransmit. When recovery is entered (the third dupack, about
/// 257.7 ms), 44 QS segments are out and 4 are SACKed, so pipe ≈ 39; the
/// linux-2.6 module (rate halving: cwnd ← min(cwnd, pipe + 1)) would send
/// the retransmission of the lost head at once. Expected: the retransmission
/// leaves in the same event (fast_retrans = 1 on the recovery row), it is
/// acknowledged one RTT later, no retransmission timeout, exactly one
/// retransmitted segment.
#[test]

fn loss_in_qs_mode_still_fast_retransmits_at_once() {
    let out = run_loss_in_qs();
    let i = recovery_row(&out);
    assert_eq!(u64s(&out.tcp, "fast_retrans")[i], 1, "fast retransmit when recovery is entered (t = {} s)", f64s(&out.tcp, "t")[i]);
    let f = &out.summary.flows[0];
    assert_eq!((f.timeouts, f.retransmitted_segments), (0, 1));
}

// ===========================================================================
// 7. A too-high request; strict admission.
// ===========================================================================

/// Code 15 (1310.72 Mbit/s) against C = 10 Mbit/s, θ = 1: target_reduce
/// grants what fits, code_floor(10 Mbit/s) = 7, re-randomizing the fields of
/// the 8 steps 15→14 … 8→7.
#[test]
fn too_high_request_is_granted_only_what_fits() {
    let out = T0::default().qs("{ rate_code = 15 }").run();
    let q = flow_qs(&out, 0);
    assert_eq!(q.outcome.as_deref(), Some("used"));
    assert_eq!((q.requested_code, q.approved_code, q.nonce_failures), (15, 7, 0));
    assert_eq!(q.w_qs as u64, 42);
    let r = iface(&out, "S:ifq").counters;
    assert_eq!((r.qs_approved_reduced, r.nonce_fields_rerandomized), (1, 15 - 7));
}

/// The same request under `target_strict` (spec 02 §2.5.4: grant only if
/// Rate(N_req) ≤ budget): denied; `deny_action = zero` sets the rate to 0,
/// and a rate-0 request gets no response from the receiver (§2.4 rule 2), so
/// the sender sees an ACK without kind-27 option (§2.3.4 row 2): a refusal
/// reported as "no_response", Report(0), slow start. `delete` removes the
/// option (the SYN/ACK leaves 8 bytes shorter) with the same result.
#[test]
fn strict_admission_denies_a_request_that_does_not_fit() {
    let t_ss = response_time(&T0::default().run(), 0);
    for (deny, syn_ack_l3) in [("zero", L3_SYN + OPT), ("delete", L3_SYN)] {
        let node_qs = format!(r#"{{ capacity = "10Mbps", admission = "target_strict", deny_action = "{deny}" }}"#);
        let out = T0 { node_qs, ..T0::default() }.qs("{ rate_code = 15 }").run();
        let q = flow_qs(&out, 0);
        assert_eq!(q.outcome.as_deref(), Some("no_response"), "deny_action {deny}");
        assert_eq!((q.requests, q.approvals, q.approved_code, q.echoed, q.reports_sent), (1, 0, 0, 0, 1), "deny_action {deny}");
        let r = iface(&out, "S:ifq").counters;
        assert_eq!((r.qs_requests_seen, r.qs_denied, r.qs_approved_full, r.qs_approved_reduced), (1, 1, 0, 0));
        assert_eq!(frames(&out, "S->C")[0].l3, syn_ack_l3, "deny_action {deny}");
        assert!((response_time(&out, 0) - t_ss).abs() < delta_s(C_BPS));
    }
    // A request that fits passes strict admission unchanged.
    let out = T0 { node_qs: r#"{ capacity = "10Mbps", admission = "target_strict" }"#.into(), ..T0::default() }.qs("{ rate_code = 7 }").run();
    assert_eq!(flow_qs(&out, 0).approved_code, 7);
}

// ===========================================================================
// 8. RTT and pacing.
// ===========================================================================

/// Expected pacing clusters of spec 02 §2.3.7: n = max(1, min(⌊W/M⌋, rtt_ticks)),
/// c = ⌊W/n⌋, e = W − n·c, timer i at tick offset k_i = ⌊(i−1)·rtt_ticks/n⌋
/// with allowance A_i = i·c + min(i, e). cwnd starts at IW (it is raised to
/// max(cwnd, A_i)), no ACK arrives before the last timer and data is
/// unlimited, so timer i releases max(IW, A_i) − max(IW, A_{i−1}) segments;
/// timers that release nothing merge into no cluster. Returns (k_i, size).
fn expected_clusters(w: u64, rtt_ticks: u64, m: u64) -> Vec<(u64, u64)> {
    let n = (w / m).min(rtt_ticks).max(1);
    let (c, e) = (w / n, w - n * (w / n));
    let mut prev = 0;
    let mut out = Vec::new();
    for i in 1..=n {
        let k = (i - 1) * rtt_ticks / n;
        let cum = (i * c + i.min(e)).max(IW);
        if cum > prev {
            out.push((k, cum - prev));
        }
        prev = cum;
    }
    assert_eq!(prev, w);
    out
}

/// Runs T0 (RTT 2·`one_way_ms`, link and capacity `rate`) with a request of
/// `code` and chunk minimum `m`, and checks the first-round pacing against
/// §2.3.6–§2.3.7 frame by frame. Returns (W_qs, timers that released data).
fn check_pacing(one_way_ms: u64, rate: &'static str, rate_bps_link: f64, code: u8, m: u64) -> (u64, usize) {
    let one_way: &'static str = Box::leak(format!("{one_way_ms}ms").into_boxed_str());
    let out = T0 {
        one_way,
        rate,
        node_qs: format!(r#"{{ capacity = "{rate}" }}"#),
        flows: vec![Flow { name: "rr", start: "0s", response: "1MB", qs: format!("{{ rate_code = {code}, chunk_min = {m} }}") }],
        duration: "0.9s",
        ..T0::default()
    }
    .run();
    let tau_hat = handshake_sample_s(one_way_ms as f64 / 1e3, rate_bps_link);
    let w = w_qs(code, tau_hat);
    // rtt_ticks = max(1, ⌊T · HZ⌋), HZ = 1000.
    let rtt_ticks = ((tau_hat * 1000.0).floor() as u64).max(1);
    let q = flow_qs(&out, 0);
    let ctx = format!("RTT {} ms, {rate}, code {code}, M {m}", 2 * one_way_ms);
    assert_eq!(q.outcome.as_deref(), Some("used"), "{ctx}");
    assert_eq!(q.approved_code, code, "{ctx}");
    assert_eq!((q.w_qs as u64, q.qs_pkts_sent as u64), (w, w), "{ctx}");
    let t0 = q.qs_start_s.expect("QS mode");
    assert!((t0 - t_request_at_server(one_way_ms as f64 / 1e3, rate_bps_link, true)).abs() < NS, "{ctx}");

    let delta = delta_s(rate_bps_link);
    let a = wire_s(L3_ACK, rate_bps_link);
    let all: Vec<f64> = data_frames(&out, "S->C").iter().map(|f| f.t).collect();
    assert!(all.len() as u64 > w, "{ctx}: capture too short");
    let qs_times = &all[..w as usize];
    let want = expected_clusters(w, rtt_ticks, m);
    // Timer 1 fires at t0; timer i at the k_i-th tick boundary after t0, i.e.
    // t0 + (k_i − 1)·tick + φ with one host tick phase φ ∈ (0, tick] for all
    // timers. φ is read off the last timer's first packet (one packet or one
    // chunk per timer: the port is idle again by then).
    let tick = 1e-3;
    let (k_last, n_last) = want[want.len() - 1];
    let phi = qs_times[(w - n_last) as usize] - t0 - (k_last - 1) as f64 * tick;
    assert!(phi > 0.0 && phi <= tick + NS, "{ctx}: tick phase {phi}");
    // Every QS packet leaves at max(its timer, the end of the frame before
    // it) — segments released by one timer leave back to back at line rate —
    // behind S's pure ACK of the request (a = w(52)) at t0.
    let mut free = t0 + a;
    let mut j = 0;
    for &(k, n) in &want {
        let fire = if k == 0 { t0 } else { t0 + (k - 1) as f64 * tick + phi };
        for _ in 0..n {
            let d = fire.max(free);
            assert!((qs_times[j] - d).abs() < NS, "{ctx}: QS packet {j} (timer at offset {k}) left at {} s, expected {d} s", qs_times[j]);
            free = d + delta;
            j += 1;
        }
    }
    // The whole first round leaves within one RTT; the next segment only
    // after the first ACK of QS data (t0 + a + δ + τ + a).
    assert!(qs_times[w as usize - 1] - t0 < tau_hat, "{ctx}");
    assert!(all[w as usize] >= t0 + a + delta + 2.0 * one_way_ms as f64 / 1e3 + a - NS, "{ctx}");
    (w, want.len())
}

/// W_qs scales with the RTT sample and the pacing spreads it over
/// rtt_ticks = ⌊T·HZ⌋ ticks (spec 02 §2.3.6–2.3.7, M = 3):
/// RTT 50 ms: T̂ = 50.1632 ms, W = ⌊640000·T̂/1500⌋ = ⌊21.40⌋ = 21,
/// rtt_ticks = 50, n = min(7, 50) = 7 chunks of 3 at offsets 0, 7, …, 42;
/// RTT 100 ms: T̂ = 100.1632 ms, W = 42, n = min(14, 100) = 14 chunks of 3
/// at 0, 7, 14, 21, 28, 35, 42, 50, … 92 (the spec's first test vector).
#[test]
fn qs_window_and_pacing_follow_the_rtt() {
    assert_eq!(check_pacing(25, "10Mbps", C_BPS, 7, 3), (21, 7));
    assert_eq!(check_pacing(50, "10Mbps", C_BPS, 7, 3), (42, 14));
}

/// RTT 200 ms: T̂ = 200.1632 ms, W = ⌊640000·T̂/1500⌋ = ⌊85.40⌋ = 85,
/// rtt_ticks = 200, n = min(28, 200) = 28, c = 3, e = 1 (the first chunk is
/// 4): all 85 leave in QS mode (the last timer at ≤ 192 ms < the first ACK
/// at ≈ 201.4 ms). And case 2 with a large window: code 9 on a 100 Mbit/s
/// T0 at RTT 100 ms: T̂ = 100 ms + w(68) + w(60) at 100 Mbit/s = 100.01632 ms,
/// W = ⌊2560000·T̂/1500⌋ = 170, n = 100 timers one tick apart, c = 1, e = 70:
/// A_1 = 2 < IW → 3 at t0, then 1, then 2 per tick up to timer 70, then 1
/// per tick: all 100 timers release data.
///
/// Both windows exceed 65535 bytes (45 segments of 1448). The client
/// advertises its 8 MiB buffer in the (scaled) window of its handshake ACK
/// and of its request (spec 02 §2.4 rule 4: "flow control must not hide the
/// approval"; RFC 9293 §3.10.7.4: SND.WND ← SEG.WND when the SYN-RECEIVED
/// server accepts the ACK).
#[test]

fn qs_window_above_64_kib_is_sent_in_full() {
    assert_eq!(check_pacing(100, "10Mbps", C_BPS, 7, 3), (85, 28));
    assert_eq!(check_pacing(50, "100Mbps", 100e6, 9, 1), (170, 100));
}

/// The three regimes of spec 02 §2.3.7:
/// case 3, M = 3, RTT 100 ms, W = 42: n = 14 chunks of 3;
/// case 1, M = 1, RTT 100 ms, W = 42 < rtt_ticks = 100: 42 timers of one
/// segment — the first three allowances (1, 2, 3) are covered by IW = 3, so
/// 3 leave at t0 and then one per timer from timer 4: 1 + 39 = 40 clusters,
/// 2 or 3 ticks apart (offsets ⌊(i−1)·100/42⌋);
/// case 2, M = 1, W ≥ rtt_ticks: code 9 on a 100 Mbit/s T0 at RTT 20 ms:
/// T̂ = 20 ms + w(68) + w(60) at 100 Mbit/s = 20.01632 ms, W =
/// ⌊2560000·T̂/1500⌋ = ⌊34.16⌋ = 34, rtt_ticks = 20: n = 20 timers one tick
/// apart, c = 1, e = 14: A_1 = 2 < IW → 3 at t0, A_2 = 4 → 1, then 2 per
/// tick up to timer 14 (A_i = 2i), then 1 per tick (A_i = i + 14): all 20
/// timers release data (a timer that fires while the port still sends the
/// previous chunk queues its segments right behind it).
#[test]
fn pacing_regimes() {
    assert_eq!(check_pacing(50, "10Mbps", C_BPS, 7, 3), (42, 14));
    assert_eq!(check_pacing(50, "10Mbps", C_BPS, 7, 1), (42, 40));
    assert_eq!(check_pacing(10, "100Mbps", 100e6, 9, 1), (34, 20));
}

// ===========================================================================
// 9. The approval history (ring) expires after 2 intervals.
// ===========================================================================

/// Two connections to S, the first at 0 s with a 10 kB response (7
/// segments, finished by ≈ 0.35 s, after which S sends nothing), the second
/// at `t2`. The first approval (5.12 Mbit/s) goes into the ring slot of
/// interval 0 ([0, 1 s), D = 1 s, K = 2).
/// - t2 = 0.5 s: its SYN/ACK leaves S at ≈ 0.55 s, still interval 0:
///   R_meas = 0 (no completed interval), R_recent = 5.12 → budget 4.88 Mbit/s
///   → code_floor = 6 (reduced).
/// - t2 = 1.5 s: interval 1: R_meas = 8·B_0/D (S's ≈ 11 kB of interval 0:
///   ≈ 0.09 Mbit/s), R_recent still 5.12 (the ring holds intervals 0 and 1)
///   → budget ≈ 4.79 → 6.
/// - t2 = 2.5 s: interval 2: the slot of interval 0 is cleared and interval 1
///   was silent (R_meas = 0) → budget 10 → 7 in full.
///
/// With C = 5.12 Mbit/s the first request just fits and the second is denied
/// while the first approval is remembered (budget ≤ 0).
#[test]
fn approval_ring_holds_an_approval_for_at_least_one_and_at_most_two_intervals() {
    for (cap, t2, want2, reduced, denied) in [
        ("10Mbps", "0.5s", 6u8, 1u64, 0u64),
        ("10Mbps", "1.5s", 6, 1, 0),
        ("10Mbps", "2.5s", 7, 0, 0),
        ("5.12Mbps", "0.5s", 0, 0, 1),
        ("5.12Mbps", "1.5s", 0, 0, 1),
        ("5.12Mbps", "2.5s", 7, 0, 0),
    ] {
        let flows = vec![
            Flow { name: "rr1", start: "0s", response: "10kB", qs: "{ rate_code = 7 }".into() },
            Flow { name: "rr2", start: t2, response: "10kB", qs: "{ rate_code = 7 }".into() },
        ];
        let out = T0 { node_qs: format!(r#"{{ capacity = "{cap}" }}"#), flows, duration: "3s", capture: 0, ..T0::default() }.run();
        let ctx = format!("C = {cap}, t2 = {t2}");
        let (q1, q2) = (flow_qs(&out, 0), flow_qs(&out, 1));
        assert_eq!((q1.approved_code, q1.outcome.as_deref()), (7, Some("used")), "{ctx}");
        assert_eq!(q2.approved_code, want2, "{ctx}");
        let want_outcome = if want2 == 0 { "no_response" } else { "used" };
        assert_eq!(q2.outcome.as_deref(), Some(want_outcome), "{ctx}");
        let r = iface(&out, "S:ifq").counters;
        assert_eq!((r.qs_requests_seen, r.qs_approved_full, r.qs_approved_reduced, r.qs_denied), (2, 2 - reduced - denied, reduced, denied), "{ctx}");
        if want2 > 0 {
            // W_qs of the second connection from its own handshake sample.
            assert_eq!(q2.w_qs as u64, w_qs(want2, handshake_sample_s(0.05, C_BPS)), "{ctx}");
        }
    }
}

// ===========================================================================
// Explicit requests and idle restart (tcp_bulk from S).
// ===========================================================================

/// A tcp_bulk S → C on T0 with the given flow keys.
fn bulk(duration: &str, flow_extra: &str, capture: u64) -> String {
    format!(
        "{}[[flow]]\nname = \"b\"\nkind = \"tcp_bulk\"\nfrom = \"S\"\nto = \"C\"\n{CH02_TCP}{flow_extra}\n[[monitor]]\nlink = \"S->C\"\nbin = \"1s\"\ncapture_packets = {capture}\n",
        t0_head(duration, 1, "50ms")
    )
}

/// `request_at` on a busy long-lived connection (no request at connect):
/// the first new data segment at or after 0.25 s carries the request and so
/// at most MSS − 8 payload bytes. At that time slow start has cwnd ≈ 10 ≪
/// W_qs. SRTT is then between τ + δ + w(52) = 101.30 ms (no queue) and
/// 102.5 ms (one segment queued: slow start sends two per ACK): W_qs =
/// ⌊640000·SRTT/1500⌋ = 43 for SRTT ∈ [100.78, 103.13) ms. The approval is
/// used at once (the ACK that brings the echo also clocks out new data).
#[test]
fn explicit_request_on_a_busy_connection_is_used() {
    let out = run_toml(&bulk("1s", r#"quickstart = { on_connect = false, request_at = ["0.25s"] }"#, 400));
    let q = flow_qs(&out, 0);
    assert_eq!(q.outcome.as_deref(), Some("used"));
    assert_eq!((q.requests, q.approvals, q.approved_code, q.reports_sent), (1, 1, 7, 1));
    assert_eq!(q.w_qs, 43);
    // The request's ACK comes back one RTT after the carrying segment left.
    let data = data_frames(&out, "S->C");
    let reduced: Vec<&Frame> = data.iter().filter(|f| f.payload == MSS - OPT).collect();
    assert_eq!(reduced.len(), 2, "the request and the Report(7) ride on reduced segments");
    assert!(reduced[0].t >= 0.25 && reduced[0].t < 0.25 + 2.0 * delta_s(C_BPS) + 0.1, "request at {}", reduced[0].t);
    let qs_start = q.qs_start_s.expect("QS mode");
    assert!((reduced[1].t - qs_start).abs() < 0.002, "Report on the first QS packet");
    assert!(qs_start > reduced[0].t + 0.1 && qs_start < reduced[0].t + 0.103, "QS mode one RTT after the request: {qs_start}");
    // No handshake request.
    assert_eq!(frames(&out, "S->C")[0].l3, L3_SYN);
}

/// An application that produces one 1448-byte segment per second
/// (`app_rate` = 11584 bit/s) keeps the connection idle for ~1 s > RTO
/// between segments. An explicit request for 2.5 s rides on the segment at
/// ≈ 3.1 s; it is approved (W_qs = 43 > cwnd), but no new data comes within
/// min(SRTT, 3 s) ≈ 0.1 s: the approval expires (spec 02 §2.3.4
/// APPROVED_WAIT_DATA) and Report(0) goes on the next packet (the segment at
/// ≈ 4.1 s). No QS mode, exactly one request and one report.
#[test]
fn explicit_request_after_idle_expires_without_data() {
    let out = run_toml(&bulk(
        "4.5s",
        r#"app_rate = "11584bps"
quickstart = { on_connect = false, on_idle_restart = false, request_at = ["2.5s"] }"#,
        50,
    ));
    let q = flow_qs(&out, 0);
    assert_eq!(q.outcome.as_deref(), Some("expired"));
    assert_eq!((q.requests, q.approvals, q.approved_code, q.reports_sent), (1, 1, 7, 1));
    assert_eq!((q.qs_pkts_sent, q.qs_start_s), (0, None));
    let data = data_frames(&out, "S->C");
    let reduced: Vec<f64> = data.iter().filter(|f| f.payload == MSS - OPT).map(|f| f.t).collect();
    assert_eq!(reduced.len(), 2, "request then Report(0): {reduced:?}");
    assert!(reduced[0] > 2.5 && reduced[0] < 3.5 && (reduced[1] - reduced[0] - 1.0).abs() < 0.01, "{reduced:?}");
}

/// `on_idle_restart` (spec 02 §2.3.2, §2.6.4) with the same once-a-second
/// application and no request at connect. `cwnd_limited_growth = false`
/// lets the ACK of the first segment (≈ 1.1 s) raise cwnd from IW = 3 to 4
/// (slow start, +1 per ACK), so the next segment (≈ 2.1 s), after ~1 s of
/// idle > RTO (≈ 0.3 s), finds the idle-restart rule cutting cwnd (halved per
/// RTO of idle, not below W_r = min(IW, cwnd) = 3): 4 → 3. That arms the
/// trigger: the segment carries a request with the configured code 7 (no
/// congestion event yet), W_qs = ⌊640000·SRTT/1500⌋ = 43 > 3. It is approved
/// and expires for lack of data; Report(0) rides on the ≈ 3.1 s segment
/// (which therefore carries no new request). With `on_idle_restart = false`
/// nothing is requested.
#[test]
fn idle_restart_triggers_a_request() {
    let keys = |on: bool| {
        format!("app_rate = \"11584bps\"\nquickstart = {{ on_connect = false, on_idle_restart = {on} }}")
    };
    let growth = r#"tcp = { ack_policy = "linux_like", rwnd_policy = "full_buffer" }"#;
    let text = |on: bool| bulk("3.5s", &keys(on), 50).replace(growth, r#"tcp = { ack_policy = "linux_like", rwnd_policy = "full_buffer", cwnd_limited_growth = false }"#);
    let on = run_toml(&text(true));
    let q = flow_qs(&on, 0);
    assert_eq!((q.requests, q.approvals, q.approved_code, q.reports_sent), (1, 1, 7, 1));
    assert_eq!(q.outcome.as_deref(), Some("expired"));
    let reduced: Vec<f64> = data_frames(&on, "S->C").iter().filter(|f| f.payload == MSS - OPT).map(|f| f.t).collect();
    assert_eq!(reduced.len(), 2, "{reduced:?}");
    assert!(reduced[0] > 2.0 && reduced[0] < 2.2, "{reduced:?}");
    let off = run_toml(&text(false));
    let q = flow_qs(&off, 0);
    assert_eq!((q.requests, q.reports_sent, q.outcome.as_deref()), (0, 0, None));
}

/// The trigger needs the idle-restart rule to have lowered cwnd (spec 02
/// §2.3.1 "when the idle-restart rule has cut cwnd", §2.3.2 point 4, §2.6.4).
/// With the profile's `cwnd_limited_growth = true` the application-limited
/// connection keeps cwnd = IW = 3; the idle restart at ≈ 2.1 s computes W_r =
/// min(IW, cwnd) = 3 and leaves cwnd at 3: not lowered, so no request
/// (in the 2.5 s run: requests = 0).
#[test]

fn idle_restart_that_does_not_lower_cwnd_sends_no_request() {
    let out = run_toml(&bulk("2.5s", "app_rate = \"11584bps\"\nquickstart = { on_connect = false }", 50));
    let q = flow_qs(&out, 0);
    assert_eq!((q.requests, q.reports_sent, q.outcome.as_deref()), (0, 0, None));
}

// ===========================================================================
// Determinism (spec 02 §2.7).
// ===========================================================================

/// Same seed → bit-identical run (event hash, every summary figure but the
/// wall time). Another seed → other tick phase (so another event hash) and
/// other QS TTL and nonce draws, but the same outcome, approval and W_qs.
/// cwnd per RTT of the server (10 ms trace rows) from the end of QS mode:
/// the largest increase over one RTT among windows that start above 100.
fn largest_growth_per_rtt_above(out: &RunOutput, floor: f64, rtt_s: f64) -> (f64, usize) {
    let (t, cwnd) = (f64s(&out.tcp, "t"), f64s(&out.tcp, "cwnd"));
    let flows = strs(&out.tcp, "flow");
    let rows: Vec<(f64, f64)> = (0..t.len()).filter(|&i| flows[i] == "rr").map(|i| (t[i], cwnd[i])).collect();
    let (mut top, mut n) = (0.0f64, 0);
    for (i, &(ti, ci)) in rows.iter().enumerate() {
        if ci <= floor {
            continue;
        }
        if let Some(&(_, cj)) = rows[i..].iter().find(|&&(tj, _)| tj >= ti + rtt_s - 1e-9) {
            top = top.max(cj - ci);
            n += 1;
        }
    }
    (top, n)
}

/// spec 02 §2.3.1 `limited_slow_start` (RFC 3742, max_ssthresh 100): after
/// a used QS episode (W_qs = 85 at 200 ms), slow start above 100 segments
/// adds 1/K per ACK, K = ⌊cwnd/50⌋, so at most cwnd/K < 50·(K+1)/K ≤ 75
/// segments per RTT; plain slow start adds one per ACK (≈ cwnd per RTT).
#[test]
fn limited_slow_start_after_quick_start_caps_growth_per_rtt() {
    let run = |lss: bool| {
        let mut t0 = T0 {
            one_way: "100ms",
            duration: "4s",
            trace: r#"{ mode = "bin", bin = "10ms" }"#,
            capture: 0,
            ..T0::default()
        };
        t0.flows[0].response = "";
        t0.qs(&format!("{{ rate_code = 7, limited_slow_start = {lss} }}")).run()
    };
    let (plain, limited) = (run(false), run(true));
    for out in [&plain, &limited] {
        assert_eq!(flow_qs(out, 0).outcome.as_deref(), Some("used"));
        assert_eq!(flow_qs(out, 0).w_qs, 85);
    }
    let (top_plain, n_plain) = largest_growth_per_rtt_above(&plain, 100.0, 0.2);
    let (top_lss, n_lss) = largest_growth_per_rtt_above(&limited, 100.0, 0.2);
    assert!(n_plain > 0 && n_lss > 0, "windows above 100 segments: {n_plain}, {n_lss}");
    assert!(top_lss <= 75.0 + 1.0, "limited slow start grew {top_lss} segments in one RTT");
    assert!(top_plain >= 100.0, "plain slow start grew only {top_plain} segments in one RTT");
}

#[test]
fn runs_are_deterministic_per_seed() {
    let a = T0::default().qs("{ rate_code = 7 }");
    let (r1, r2) = (a.run(), a.run());
    assert_eq!(r1.summary.event_hash, r2.summary.event_hash);
    let strip = |o: &RunOutput| {
        let mut s = o.summary.clone();
        s.wall_seconds = 0.0;
        serde_json::to_string(&s).unwrap_or_default()
    };
    assert_eq!(strip(&r1), strip(&r2));
    let r3 = T0 { seed: 2, ..a.clone() }.run();
    assert_ne!(r1.summary.event_hash, r3.summary.event_hash, "the host tick phase depends on the seed");
    let (q1, q3) = (flow_qs(&r1, 0), flow_qs(&r3, 0));
    assert_eq!(
        (q1.outcome.clone(), q1.approved_code, q1.w_qs, q1.qs_pkts_sent, q1.qs_start_s),
        (q3.outcome.clone(), q3.approved_code, q3.w_qs, q3.qs_pkts_sent, q3.qs_start_s)
    );
    // The request of the flow's sender drawn from the seeded stream: QS TTL
    // and nonce differ between seeds, and repeat for one seed. The
    // configuration is the resolved flow table of the run.
    let mut spec = QsFlowSpec { rate_code: Some(7), ..QsFlowSpec::default() };
    spec.header_bytes = Some(HDR as u32);
    let cfg = scenario::flow_qs_config(&spec);
    let draw = |seed: u64| {
        let mut s = QsSender::new(cfg.clone(), Span::ZERO, Stream::derive(seed, "flow[0].quickstart"));
        let opt = s.handshake_request(SimTime::ZERO, 64).expect("a handshake request");
        match IpQs::decode(&opt) {
            Some(IpQs::Request { rate, qs_ttl, nonce }) => (rate, qs_ttl, nonce),
            other => panic!("not a request: {other:?}"),
        }
    };
    let (d1, d1b, d2) = (draw(1), draw(1), draw(2));
    assert_eq!(d1, d1b);
    assert_eq!((d1.0, d2.0), (7, 7));
    assert_ne!((d1.1, d1.2), (d2.1, d2.2), "QS TTL / nonce depend on the seed");
}

// ===========================================================================
// Bad input: every invalid quickstart key names its key path.
// ===========================================================================

#[track_caller]
fn assert_input_err(text: &str, key_path: &str, fragment: &str) {
    let e: InputError = match load_str(text, "qs.toml", &[]) {
        Ok(_) => panic!("expected an InputError at {key_path}"),
        Err(e) => e,
    };
    assert_eq!(e.file, "qs.toml");
    assert_eq!(e.key_path, key_path, "key path of {e}");
    assert!(e.message.contains(fragment), "message of {e} should contain {fragment:?}");
}

#[test]
fn invalid_quickstart_keys_name_their_key_path() {
    let flow = |qs: &str| T0::default().qs(qs).toml();
    let node = |qs: &str| T0 { node_qs: qs.into(), ..T0::default() }.toml();
    assert_input_err(&flow("{ rate_code = 16 }"), "flow[0].quickstart.rate_code", "rate code from 1 to 15");
    assert_input_err(&flow("{ rate_code = 0 }"), "flow[0].quickstart.rate_code", "rate code from 1 to 15");
    assert_input_err(&flow(r#"{ rate_code = 7, rate = "5Mbps" }"#), "flow[0].quickstart.rate_code", "not both");
    assert_input_err(&flow(r#"{ rate = "50kbps" }"#), "flow[0].quickstart.rate", "80kbps");
    assert_input_err(&flow(r#"{ ssthresh_policy = "x" }"#), "flow[0].quickstart.ssthresh_policy", "none, qs_window");
    assert_input_err(&flow("{ ssthresh_factor = 0.0 }"), "flow[0].quickstart.ssthresh_factor", "positive");
    assert_input_err(&flow("{ limited_slow_start = true, max_ssthresh = 1 }"), "flow[0].quickstart.max_ssthresh", "at least 2");
    assert_input_err(&flow("{ chunk_min = 0 }"), "flow[0].quickstart.chunk_min", "at least 1");
    assert_input_err(&flow("{ hz = 0 }"), "flow[0].quickstart.hz", "timer rate");
    assert_input_err(&flow(r#"{ request_at = ["2s", "1s"] }"#), "flow[0].quickstart.request_at", "increasing");
    assert_input_err(&flow("{ recv_max_rate_code = 16 }"), "flow[0].quickstart.recv_max_rate_code", "rate code");
    assert_input_err(&flow(r#"{ recv_rwnd_policy = "gradual" }"#), "flow[0].quickstart.recv_rwnd_policy", "full_buffer, linux_like");
    assert_input_err(&node("{ }"), "node[0].quickstart.capacity", "missing required key");
    assert_input_err(&node(r#"{ capacity = "10Mbps", admission = "x" }"#), "node[0].quickstart.admission", "target_reduce");
    assert_input_err(&node(r#"{ capacity = "10Mbps", deny_action = "x" }"#), "node[0].quickstart.deny_action", "zero");
    assert_input_err(&node(r#"{ capacity = "10Mbps", util_estimator = "x" }"#), "node[0].quickstart.util_estimator", "last_interval");
    assert_input_err(&node(r#"{ capacity = "10Mbps", ring_slots = 0 }"#), "node[0].quickstart.ring_slots", "history slots");
    let link = |extra: &str| T0 { link_extra: extra.into(), ..T0::default() }.toml();
    assert_input_err(&link(r#"quickstart = { capacity = "10Mbps", thresh = 1.5 }"#), "link[0].quickstart.thresh", "(0, 1]");
    assert_input_err(&link(r#"reverse_quickstart = { thresh = 0.5 }"#), "link[0].reverse_quickstart.capacity", "missing required key");
    assert_input_err(&link(r#"quickstart = { capacity = "10Mbps", meter_interval = "1s", meter_phase = "1s" }"#), "link[0].quickstart.meter_phase", "below the metering interval");
}




