//! Scenario input (spec 00 §2.1–2.3): every malformed input is an `InputError`
//! naming the file, the exact key path and what was expected.

use std::path::{Path, PathBuf};

use lfnlab_core::engine::time::Span;
use lfnlab_core::host::tcp::config::{AckPolicy, BufferSemantics, InitialWindow, RecoveryCwnd};
use lfnlab_core::scenario::model::{FlowKind, NodeKind, TraceMode};
use lfnlab_core::scenario::units::{ByteSize, Rate, TimeSpan};
use lfnlab_core::scenario::{
    load_file, load_json, load_str, tcp_config, to_toml, Scenario, PROFILES,
};
use lfnlab_core::InputError;

fn dumbbell_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/dumbbell.toml")
}

fn dumbbell_text() -> String {
    std::fs::read_to_string(dumbbell_path()).expect("examples/dumbbell.toml")
}

/// A small valid scenario: host a — router r — host b.
const BASE: &str = r#"
[sim]
duration = "10s"

[[node]]
name = "a"
kind = "host"

[[node]]
name = "r"
kind = "router"

[[node]]
name = "b"
kind = "host"

[[link]]
from = "a"
to = "r"
rate = "1Gbps"
delay = "1ms"

[[link]]
from = "r"
to = "b"
rate = "100Mbps"
delay = "10ms"

[[flow]]
name = "f"
kind = "tcp_bulk"
from = "a"
to = "b"
cc = "newreno"
"#;

fn load(text: &str) -> Result<Scenario, InputError> {
    load_str(text, "test.toml", &[])
}

fn load_with(text: &str, sets: &[&str]) -> Result<Scenario, InputError> {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    load_str(text, "test.toml", &sets)
}

/// Asserts an error's file, exact key path and a fragment of its message.
#[track_caller]
fn assert_err(result: Result<Scenario, InputError>, file: &str, key_path: &str, fragment: &str) {
    let e = result.expect_err("expected an InputError");
    assert_eq!(e.file, file, "file of {e}");
    assert_eq!(e.key_path, key_path, "key path of {e}");
    assert!(
        e.message.contains(fragment),
        "message of {e} should contain {fragment:?}"
    );
}

/// BASE with `text` replaced by `with` (which must occur).
fn edit(text: &str, with: &str) -> String {
    assert!(BASE.contains(text), "{text:?} not in BASE");
    BASE.replacen(text, with, 1)
}

#[test]
fn base_resolves_with_every_default() {
    let s = load(BASE).unwrap();
    assert_eq!(s.sim.name.as_deref(), Some("test"));
    assert_eq!(s.sim.seed, Some(1));
    let trace = s.sim.trace.as_ref().unwrap();
    assert_eq!(
        (trace.mode, trace.bin),
        (
            Some(TraceMode::Bin),
            Some(TimeSpan::from_span(Span::from_ms(10)))
        )
    );
    let a = &s.node[0];
    assert_eq!(a.nic_rate, Some(Rate::from_bps(1_000_000_000)));
    assert_eq!(
        (a.txqueuelen, a.ipg_bytes, a.mtu, a.ip_version),
        (Some(1000), Some(12), Some(1500), Some(4))
    );
    // linux-modern paces with EDT + fq (spec 06 §2.1), so the sender's qdisc is fq;
    // the receiver sends only ACKs through pfifo.
    let q = a.qdisc.as_ref().unwrap();
    assert_eq!((q.kind.as_str(), q.limit, q.flow_limit), ("fq", Some(10_000), Some(100)));
    assert_eq!(q.quantum, Some(ByteSize::from_bytes(3000)));
    assert_eq!(s.node[2].qdisc.as_ref().unwrap().kind, "pfifo");
    let pacing = s.flow[0].pacing.as_ref().unwrap();
    assert_eq!((pacing.kind.as_str(), pacing.mode.as_deref(), pacing.max_rate), ("fq", Some("edt"), None));
    assert_eq!(a.profile, None);
    let r = &s.node[1];
    assert_eq!(
        (r.kind, r.nic_rate, r.txqueuelen),
        (NodeKind::Router, None, None)
    );
    // a->r: the host side has no link queue; r's reverse egress never drops.
    assert_eq!(s.link[0].queue, None);
    let rev = s.link[0].reverse_queue.as_ref().unwrap();
    assert_eq!(
        (rev.kind.as_str(), rev.limit, rev.limit_packets),
        ("droptail", None, None)
    );
    let q = s.link[1].queue.as_ref().unwrap();
    assert_eq!(
        (q.kind.as_str(), q.limit, q.limit_packets),
        ("droptail", None, Some(1000))
    );
    assert_eq!(s.link[1].reverse_queue, None);
    let f = &s.flow[0];
    assert_eq!(f.profile.as_deref(), Some("linux-modern"));
    assert_eq!(f.start, Some(TimeSpan::ZERO));
    assert_eq!(f.sndbuf, Some(ByteSize::from_bytes(4 << 20)));
    assert_eq!(f.rcvbuf, Some(ByteSize::from_bytes(6 << 20)));
    assert_eq!((f.bytes, f.stop, f.rate, f.size), (None, None, None, None));
    let tcp = f.tcp.as_ref().unwrap();
    assert_eq!(tcp.iw.as_deref(), Some("10"));
    assert_eq!(tcp.recovery_cwnd.as_deref(), Some("prr_linux"));
    assert_eq!(tcp.rto_init, Some(TimeSpan::from_span(Span::from_secs(1))));
}

#[test]
fn unknown_key() {
    let text = edit("delay = \"1ms\"\n", "delay = \"1ms\"\ncolour = \"red\"\n");
    assert_err(
        load(&text),
        "test.toml",
        "link[0].colour",
        "unknown key \"colour\"",
    );
    let text = edit("[sim]\n", "[sim]\nseeds = 3\n");
    assert_err(
        load(&text),
        "test.toml",
        "sim.seeds",
        "unknown key \"seeds\"",
    );
    assert_err(
        load(&format!("{BASE}\n[extra]\nx = 1\n")),
        "test.toml",
        "extra",
        "unknown key \"extra\"",
    );
    let text = format!("{BASE}tcp = {{ ack_polcy = \"delayed\" }}\n");
    assert_err(
        load(&text),
        "test.toml",
        "flow[0].tcp.ack_polcy",
        "expected",
    );
}

#[test]
fn bare_number() {
    let text = edit("rate = \"1Gbps\"", "rate = 500");
    assert_err(
        load(&text),
        "test.toml",
        "link[0].rate",
        "expected a rate string with a unit, such as \"500Mbps\" or \"62.5MB/s\", got the bare number 500",
    );
    let text = edit("delay = \"10ms\"", "delay = 0.01");
    assert_err(
        load(&text),
        "test.toml",
        "link[1].delay",
        "expected a time string with a unit",
    );
}

#[test]
fn wrong_unit() {
    let text = edit("rate = \"1Gbps\"", "rate = \"500Mb\"");
    assert_err(
        load(&text),
        "test.toml",
        "link[0].rate",
        "unknown unit \"Mb\"",
    );
    let e = load(&text).unwrap_err();
    assert!(
        e.message.contains("Mbps") && e.message.contains("MB/s"),
        "{e}"
    );
    let text = edit("delay = \"1ms\"", "delay = \"1\"");
    assert_err(load(&text), "test.toml", "link[0].delay", "no unit");
    let text = edit("rate = \"1Gbps\"", "rate = \"0.5bps\"");
    assert_err(
        load(&text),
        "test.toml",
        "link[0].rate",
        "not a whole number of bit/s",
    );
}

#[test]
fn negative_delay() {
    let text = edit("delay = \"10ms\"", "delay = \"-5ms\"");
    assert_err(
        load(&text),
        "test.toml",
        "link[1].delay",
        "must not be negative",
    );
}

#[test]
fn link_to_unknown_node() {
    let text = edit("to = \"b\"\nrate", "to = \"x\"\nrate");
    assert_err(
        load(&text),
        "test.toml",
        "link[1].to",
        "no node named \"x\"",
    );
    let text = edit("from = \"a\"\nto = \"r\"", "from = \"q\"\nto = \"r\"");
    assert_err(
        load(&text),
        "test.toml",
        "link[0].from",
        "no node named \"q\"",
    );
}

#[test]
fn missing_required_field() {
    let text = edit("rate = \"100Mbps\"\n", "");
    assert_err(
        load(&text),
        "test.toml",
        "link[1].rate",
        "missing required key \"rate\"",
    );
    let text = edit("duration = \"10s\"\n", "");
    assert_err(
        load(&text),
        "test.toml",
        "sim.duration",
        "missing required key",
    );
    let text = edit("[sim]\nduration = \"10s\"\n", "");
    assert_err(
        load(&text),
        "test.toml",
        "sim",
        "missing required key \"sim\"",
    );
    let text = edit("kind = \"router\"\n", "");
    assert_err(
        load(&text),
        "test.toml",
        "node[1].kind",
        "missing required key \"kind\"",
    );
}

#[test]
fn toml_syntax_error() {
    let text = edit("delay = \"1ms\"", "delay = \"1ms");
    let e = load(&text).unwrap_err();
    assert_eq!((e.file.as_str(), e.key_path.as_str()), ("test.toml", ""));
    // `delay = "1ms` is on line 21 of BASE.
    assert_eq!(
        text.lines()
            .position(|l| l == "delay = \"1ms")
            .map(|i| i + 1),
        Some(21)
    );
    assert!(
        e.message
            .starts_with("TOML syntax error at line 21, column"),
        "{e}"
    );
}

#[test]
fn unknown_congestion_control() {
    let text = edit("cc = \"newreno\"", "cc = \"cubix\"");
    assert_err(
        load(&text),
        "test.toml",
        "flow[0].cc",
        "unknown congestion control \"cubix\"; expected one of",
    );
}

#[test]
fn profile_default_cc_must_exist() {
    // spec 06 §2.1 "Default CC" row.
    for (profile, cc) in [("linux-2.4", "newreno"), ("linux-2.6", "bic"), ("linux-modern", "cubic")] {
        let text = edit("cc = \"newreno\"", &format!("profile = \"{profile}\""));
        let s = load(&text).unwrap();
        assert_eq!(s.flow[0].cc.as_deref(), Some(cc));
    }
    let text = edit("cc = \"newreno\"\n", "");
    assert_eq!(load(&text).unwrap().flow[0].cc.as_deref(), Some("cubic"));
    let text = edit(
        "cc = \"newreno\"",
        "cc = \"newreno\"\nprofile = \"linux-3\"",
    );
    assert_err(
        load(&text),
        "test.toml",
        "flow[0].profile",
        "unknown TCP profile \"linux-3\"",
    );
}

#[test]
fn duplicate_node_name() {
    let text = edit("name = \"r\"", "name = \"a\"");
    assert_err(
        load(&text),
        "test.toml",
        "node[1].name",
        "duplicate node name \"a\": node[0]",
    );
}

#[test]
fn a_switch_resolves_from_its_named_configuration() {
    let s = load(&edit("kind = \"router\"", "kind = \"switch\"\nswitch = { config = \"voq_islip_gl\", jitter = \"100ns\" }")).unwrap();
    let sw = s.node[1].switch.as_ref().unwrap();
    // spec 05 §2.2 table: iSLIP I = 1, global 4 MiB, cell mode, Q = 1; the override stays.
    assert_eq!((sw.model.as_deref(), sw.sched.as_deref(), sw.pool.as_deref()), (Some("voq"), Some("islip"), Some("global")));
    assert_eq!((sw.memory, sw.iterations, sw.fabric.as_deref()), (Some(ByteSize::from_bytes(4 << 20)), Some(1), Some("cell")));
    assert_eq!(sw.jitter, Some(TimeSpan::from_span(Span::from_ns(100))));
    // δ_sw is drawn from U[−50, 50] ppm with the seed and written down.
    let ppm = sw.clock_ppm.unwrap();
    assert!(ppm.abs() <= 50.0, "{ppm}");
    let again = load(&to_toml(&s)).unwrap();
    assert_eq!(again, s, "a resolved switch resolves to itself");
    let other_seed = load_with(&edit("kind = \"router\"", "kind = \"switch\""), &["sim.seed=2"]).unwrap();
    assert_ne!(other_seed.node[1].switch.as_ref().unwrap().clock_ppm, Some(ppm));
    // A switch egress has no link queue.
    assert_eq!(s.link[1].queue, None);
}

#[test]
fn bad_switch_keys_name_their_key() {
    let sw = |body: &str| edit("kind = \"router\"", &format!("kind = \"switch\"\n{body}"));
    assert_err(load(&sw("switch = { config = \"foundry\" }")), "test.toml", "node[1].switch.config", "\"voq_islip_gl\"");
    assert_err(load(&sw("switch = { quantum = 0 }")), "test.toml", "node[1].switch.quantum", "positive integer");
    assert_err(load(&sw("switch = { speedup = 0.5 }")), "test.toml", "node[1].switch.speedup", "speedup from 1 to 16");
    assert_err(load(&sw("switch = { sched = \"slip\" }")), "test.toml", "node[1].switch.sched", "\"islip\"");
    assert_err(load(&sw("switch = { ports = 1 }")), "test.toml", "node[1].switch.ports", "from 2 to 64");
    assert_err(load(&sw("arbiter = \"pim\"\nswitch = { sched = \"islip\" }")), "test.toml", "node[1].arbiter", "disagree");
    assert_err(load(&sw("fc = { honour = true }")), "test.toml", "node[1].fc", "not modelled on a switch");
    let queued = sw("").replace("delay = \"10ms\"", "delay = \"10ms\"\nqueue = { kind = \"droptail\", limit = \"64KiB\" }");
    assert_err(load(&queued), "test.toml", "link[1].queue", "set by its model");
    assert_err(load(&edit("kind = \"router\"", "kind = \"router\"\narbiter = \"islip\"")), "test.toml", "node[1].arbiter", "switches only");
}

#[test]
fn host_keys_on_a_router() {
    let text = edit("kind = \"router\"", "kind = \"router\"\ntxqueuelen = 100");
    assert_err(
        load(&text),
        "test.toml",
        "node[1].txqueuelen",
        "applies to hosts only",
    );
}

#[test]
fn queue_at_a_host_egress() {
    let text = edit(
        "delay = \"1ms\"",
        "delay = \"1ms\"\nqueue = { kind = \"droptail\", limit = \"64KiB\" }",
    );
    assert_err(
        load(&text),
        "test.toml",
        "link[0].queue",
        "set txqueuelen on the node",
    );
}

#[test]
fn no_route_between_flow_ends() {
    // Hosts carry exactly one link, so a host never joins two others: the
    // unroutable case is two islands, a—r and s—b.
    let text = BASE
        .replacen("from = \"r\"\nto = \"b\"", "from = \"s\"\nto = \"b\"", 1)
        .replacen(
            "[[node]]\nname = \"b\"",
            "[[node]]\nname = \"s\"\nkind = \"router\"\n\n[[node]]\nname = \"b\"",
            1,
        );
    assert_err(
        load(&text),
        "test.toml",
        "flow[0]",
        "no route from \"a\" to \"b\"",
    );
    // A host in the middle is refused on its own account: it has two links.
    let text = edit("kind = \"router\"", "kind = \"host\"");
    assert_err(
        load(&text),
        "test.toml",
        "node[1]",
        "must have exactly one link",
    );
}

#[test]
fn flow_ends_must_be_hosts() {
    let text = edit("to = \"b\"\ncc", "to = \"r\"\ncc");
    assert_err(load(&text), "test.toml", "flow[0].to", "\"r\" is a router");
}

#[test]
fn a_flow_that_starts_after_the_run_is_refused() {
    let text = edit("to = \"b\"\ncc", "to = \"b\"\nstart = \"10s\"\ncc");
    assert_err(load(&text), "test.toml", "flow[0].start", "must be before the end of the run (sim.duration = 10s): the flow would never send");
    assert!(load(&edit("to = \"b\"\ncc", "to = \"b\"\nstart = \"9s\"\ncc")).is_ok());
}

#[test]
fn a_message_names_the_kind_with_its_article() {
    let text = edit("to = \"b\"\ncc", "to = \"r\"\ncc").replace("kind = \"router\"", "kind = \"emulator\"");
    assert_err(load(&text), "test.toml", "flow[0].to", "\"r\" is an emulator");
}

#[test]
fn tcp_keys_are_checked_where_they_are_written() {
    let text = format!("{BASE}tcp = {{ recovery_cwnd = \"fast\" }}\n");
    assert_err(
        load(&text),
        "test.toml",
        "flow[0].tcp.recovery_cwnd",
        "got \"fast\"",
    );
    let text = edit(
        "kind = \"host\"\n",
        "kind = \"host\"\ntcp = { ack_policy = \"sometimes\" }\n",
    );
    assert_err(
        load(&text),
        "test.toml",
        "node[0].tcp.ack_policy",
        "\"per_segment\"",
    );
    let text = format!("{BASE}tcp = {{ rto_min = \"200s\" }}\n");
    assert_err(
        load(&text),
        "test.toml",
        "flow[0].tcp.rto_min",
        "must not exceed rto_max",
    );
}

#[test]
fn udp_cbr_flows() {
    let udp = "\n[[flow]]\nname = \"u\"\nkind = \"udp_cbr\"\nfrom = \"b\"\nto = \"a\"\n";
    assert_err(
        load(&format!("{BASE}{udp}")),
        "test.toml",
        "flow[1].rate",
        "needs a rate",
    );
    let s = load(&format!("{BASE}{udp}rate = \"10Mbps\"\n")).unwrap();
    assert_eq!(s.flow[1].kind, FlowKind::UdpCbr);
    assert_eq!(
        (s.flow[1].size, s.flow[1].stop),
        (Some(1500), s.sim.duration)
    );
    assert_eq!(s.flow[1].tcp, None);
    assert_err(
        load(&format!("{BASE}{udp}rate = \"10Mbps\"\ncc = \"reno\"\n")),
        "test.toml",
        "flow[1].cc",
        "tcp_bulk flows only",
    );
    assert_err(
        load(&format!("{BASE}{udp}rate = \"10Mbps\"\nsize = 9000\n")),
        "test.toml",
        "flow[1].size",
        "28 to 1500",
    );
    assert_err(
        load(&format!("{BASE}stop = \"1s\"\n")),
        "test.toml",
        "flow[0].stop",
        "udp_cbr flows only",
    );
}

#[test]
fn monitors_name_an_existing_link() {
    let ok = load(&format!(
        "{BASE}\n[[monitor]]\nlink = \"b->r\"\nbin = \"1ms\"\n"
    ))
    .unwrap();
    assert_eq!(ok.monitor[0].link, "b->r");
    let text = format!("{BASE}\n[[monitor]]\nlink = \"a->b\"\nbin = \"1ms\"\n");
    assert_err(
        load(&text),
        "test.toml",
        "monitor[0].link",
        "no link joins \"a\" and \"b\"",
    );
    let text = format!("{BASE}\n[[monitor]]\nlink = \"a-b\"\nbin = \"1ms\"\n");
    assert_err(
        load(&text),
        "test.toml",
        "monitor[0].link",
        "expected \"a->b\"",
    );
}

/// A bin so narrow that its series would hold more than 10^7 bins is refused at
/// its key path: bins close inside other events, beyond the run's limits.
#[test]
fn bins_per_series_are_bounded() {
    let bound = lfnlab_core::scenario::monitor::bins::MAX_BINS_PER_SERIES;
    // BASE runs 10 s: 1 µs bins make exactly the bound, 999 ns one bin more.
    let monitor = |bin: &str| format!("{BASE}\n[[monitor]]\nlink = \"a->r\"\nbin = \"{bin}\"\n");
    let ok = load(&monitor("1us")).unwrap();
    assert_eq!(lfnlab_core::scenario::monitor::bins::series(&ok).iter().map(|x| x.2).max(), Some(bound));
    assert_err(load(&monitor("999ns")), "test.toml", "monitor[0].bin", "at most 10000000 bins per series");
    assert_err(load(&monitor("1ns")), "test.toml", "monitor[0].bin", "makes 10000000000 bins");
    let trace = edit("duration = \"10s\"\n", "duration = \"10s\"\ntrace = { mode = \"bin\", bin = \"100ns\" }\n");
    assert_err(load(&trace), "test.toml", "sim.trace.bin", "over sim.duration 10s");
    let off = edit("duration = \"10s\"\n", "duration = \"10s\"\ntrace = { mode = \"off\", bin = \"100ns\" }\n");
    assert!(load(&off).is_ok(), "a trace that is off makes no bins");
    let cpu = edit("name = \"a\"\nkind = \"host\"\n", "name = \"a\"\nkind = \"host\"\ncpu = { bin = \"100ns\" }\n");
    assert_err(load(&cpu), "test.toml", "node[0].cpu.bin", "bins per series");
    // The bound follows the duration as overridden.
    assert!(load_with(&monitor("100ns"), &["sim.duration=1s"]).is_ok());
    assert_err(load_with(&monitor("100ns"), &["sim.duration=2s"]), "test.toml", "monitor[0].bin", "over sim.duration 2s");
}

#[test]
fn set_is_applied() {
    let text = dumbbell_text();
    let sets = [
        "link[1].queue.limit=256KiB",
        "sim.duration=10s",
        "flow[0].tcp.ack_policy=per_segment",
        "sim.seed=7",
    ];
    let s = load_with(&text, &sets).unwrap();
    assert_eq!(
        s.link[1].queue.as_ref().unwrap().limit,
        Some(ByteSize::from_bytes(256 << 10))
    );
    assert_eq!(
        s.sim.duration,
        Some(TimeSpan::from_span(Span::from_secs(10)))
    );
    assert_eq!(s.sim.seed, Some(7));
    assert_eq!(
        s.flow[0].tcp.as_ref().unwrap().ack_policy.as_deref(),
        Some("per_segment")
    );
    let s = load_with(
        &text,
        &["link[1].queue={ kind = \"droptail\", limit_packets = 50 }"],
    )
    .unwrap();
    let q = s.link[1].queue.as_ref().unwrap();
    assert_eq!((q.limit, q.limit_packets), (None, Some(50)));
}

#[test]
fn set_errors() {
    let text = dumbbell_text();
    assert_err(
        load_with(&text, &["link[2].rate=1Gbps"]),
        "--set",
        "link[2].rate",
        "out of range: link has 2 entries",
    );
    assert_err(
        load_with(&text, &["sim.duration.x=1"]),
        "--set",
        "sim.duration.x",
        "not a table",
    );
    assert_err(
        load_with(&text, &["sim.duration"]),
        "--set",
        "",
        "expected KEY=VALUE",
    );
    assert_err(
        load_with(&text, &["link[x].rate=1"]),
        "--set",
        "link[x].rate",
        "malformed key",
    );
    assert_err(load_with(&text, &["=1"]), "--set", "", "malformed key");
    // A bad value given with --set is reported against --set, at its key path.
    assert_err(
        load_with(&text, &["link[1].queue.limit=256"]),
        "--set",
        "link[1].queue.limit",
        "bare number 256",
    );
    assert_err(
        load_with(&text, &["flow[0].cc=cubix"]),
        "--set",
        "flow[0].cc",
        "unknown congestion control",
    );
    assert_err(
        load_with(&text, &["link[0].colour=red"]),
        "--set",
        "link[0].colour",
        "unknown key",
    );
}

#[test]
fn dumbbell_loads_and_round_trips() {
    let path = dumbbell_path();
    let s = load_file(&path, &[]).unwrap();
    assert_eq!(s.sim.name.as_deref(), Some("dumbbell"));
    assert_eq!(s.link[1].rate, Some(Rate::from_bps(500_000_000)));
    assert_eq!(
        s.link[1].queue.as_ref().unwrap().limit,
        Some(ByteSize::from_bytes(128 << 10))
    );
    assert_eq!(s.flow[0].sndbuf, Some(ByteSize::from_bytes(32 << 20)));
    let text = to_toml(&s);
    let again = load_str(&text, "elsewhere.toml", &[]).unwrap();
    assert_eq!(again, s, "round trip through:\n{text}");
    assert_eq!(to_toml(&again), text);
    // Every resolved value is visible.
    for key in [
        "seed = 1",
        "mode = \"bin\"",
        "txqueuelen = 1000",
        "rto_init = \"1s\"",
        "limit = \"128KiB\"",
    ] {
        assert!(text.contains(key), "{key} missing from:\n{text}");
    }
}

#[test]
fn every_profile_round_trips() {
    for profile in PROFILES {
        let text = edit(
            "cc = \"newreno\"",
            &format!("cc = \"reno\"\nprofile = \"{profile}\"\nbytes = \"10MB\""),
        );
        let s = load(&text).unwrap();
        assert_eq!(load(&to_toml(&s)).unwrap(), s, "{profile}");
        // No buffer given: the profile's tcp_wmem[2] / tcp_rmem[2], unlocked, from
        // tcp_wmem[1] / tcp_rmem[1] (issue 38 item 4, docs/profiles-from-source.md).
        let cfg = tcp_config(&s, 0);
        let want = match *profile {
            "linux-2.4" => (128 << 10, 2 * 87380, 16 << 10, 87380),
            "linux-2.6" => (1 << 20, 1 << 20, 16 << 10, 87380),
            _ => (4 << 20, 6 << 20, 16 << 10, 128 << 10),
        };
        assert_eq!((cfg.sndbuf_bytes, cfg.rcvbuf_bytes, cfg.wmem_default_bytes, cfg.rmem_default_bytes), want, "{profile}");
        assert!(!cfg.sndbuf_lock && !cfg.rcvbuf_lock);
    }
}

#[test]
fn json_equals_toml() {
    let path = dumbbell_path();
    let from_file = load_file(&path, &[]).unwrap();
    let value: toml::Value = toml::from_str(&dumbbell_text()).unwrap();
    let json = serde_json::to_string(&value).unwrap();
    assert_eq!(load_json(&json, "dumbbell.json", &[]).unwrap(), from_file);
    // Same checks, same key paths.
    let bad = json.replace("\"500Mbps\"", "500");
    assert_ne!(bad, json);
    assert_err(
        load_json(&bad, "<dict>", &[]),
        "<dict>",
        "link[1].rate",
        "got the bare number 500",
    );
    let sets = vec!["sim.seed=3".to_string()];
    assert_eq!(load_json(&json, "<dict>", &sets).unwrap().sim.seed, Some(3));
}

#[test]
fn tcp_config_of_a_resolved_flow() {
    let text = edit(
        "cc = \"newreno\"",
        "cc = \"newreno\"\nprofile = \"linux-2.6\"\nsndbuf = \"1MiB\"\ntcp = { buffer_semantics = \"setsockopt\", abc_l = 0 }",
    );
    let s = load(&text).unwrap();
    let cfg = tcp_config(&s, 0);
    assert_eq!(cfg.iw, InitialWindow::Rfc3390);
    assert_eq!(cfg.recovery_cwnd, RecoveryCwnd::RateHalving);
    assert_eq!(cfg.ack_policy, AckPolicy::LinuxQuickack);
    assert_eq!(cfg.abc_l, u32::MAX);
    // The given sndbuf is locked and doubled by setsockopt; the unset rcvbuf is
    // linux-2.6's tcp_rmem[2], a kernel value, unlocked.
    assert_eq!(cfg.sndbuf_bytes, 2 << 20);
    assert!(cfg.sndbuf_lock);
    assert_eq!(cfg.rcvbuf_bytes, 1 << 20);
    assert!(!cfg.rcvbuf_lock);
    assert_eq!(cfg.rto_init, Span::from_secs(3));
    assert_eq!(
        s.flow[0].tcp.as_ref().unwrap().buffer_semantics.as_deref(),
        Some(BufferSemantics::Setsockopt.as_str())
    );
}

#[test]
fn host_profile_and_tcp_reach_the_flow() {
    let text = edit(
        "kind = \"host\"\n",
        "kind = \"host\"\nprofile = \"linux-2.4\"\ntcp = { ack_policy = \"per_segment\", abc_l = 2 }\n",
    );
    let text = text.replacen(
        "cc = \"newreno\"",
        "cc = \"newreno\"\ntcp = { abc_l = 3 }",
        1,
    );
    let s = load(&text).unwrap();
    let tcp = s.flow[0].tcp.as_ref().unwrap();
    assert_eq!(s.flow[0].profile.as_deref(), Some("linux-2.4"));
    assert_eq!(
        (tcp.ack_policy.as_deref(), tcp.abc_l, tcp.iw.as_deref()),
        (Some("per_segment"), Some(3), Some("2"))
    );
}

#[test]
fn malformed_inputs_never_panic() {
    let text = dumbbell_text();
    // Every prefix of a valid file and a few mutations: errors, never panics.
    for cut in (0..text.len()).filter(|&i| text.is_char_boundary(i)) {
        let _ = load(&text[..cut]);
    }
    for (from, to) in [
        ("\"", ""),
        ("=", "=="),
        ("]", ""),
        ("1", "-1"),
        ("s\"", "\""),
        ("kind", "knd"),
    ] {
        let _ = load(&text.replacen(from, to, 3));
    }
    let _ = load_json("{\"sim\": {\"duration\": [null]}}", "<dict>", &[]);
    let _ = load_json(
        "{\"node\": [{\"name\": \"a\", \"kind\": {}}]}",
        "<dict>",
        &[],
    );
}

mod never_panics {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Any single-character edit of a valid file loads or fails with an InputError.
        #[test]
        fn mutated_file(at in 0usize..2000, with in "[ -~\n]{0,3}") {
            let text = dumbbell_text();
            let mut at = at % (text.len() + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            let end = (at + 1..=text.len()).find(|&i| text.is_char_boundary(i)).unwrap_or(text.len());
            let mutated = format!("{}{with}{}", &text[..at], &text[end..]);
            let _ = load(&mutated);
        }

        /// Any --set argument loads or fails with an InputError.
        #[test]
        fn arbitrary_set(arg in "[a-z_\\[\\]0-9.=\"{} ,-]{0,40}") {
            let _ = load_with(&dumbbell_text(), &[arg.as_str()]);
        }
    }
}

#[test]
fn cc_params_are_checked_and_filled_in() {
    // Every parameter of the algorithm appears in the resolved scenario.
    let text = edit("cc = \"newreno\"", "cc = \"cubic\"\ncc_params = { beta = 0.8 }");
    let s = load(&text).unwrap();
    let p = s.flow[0].cc_params.as_ref().unwrap();
    assert_eq!(p.get("beta").and_then(|v| v.as_float()), Some(0.8));
    assert!(p.len() > 3, "{p:?}");
    // The filled-in scenario reloads to the same thing.
    let again = load(&to_toml(&s)).unwrap();
    assert_eq!(again, s);
    let text = edit("cc = \"newreno\"", "cc = \"cubic\"\ncc_params = { betta = 0.8 }");
    assert_err(load(&text), "test.toml", "flow[0].cc_params.betta", "unknown parameter \"betta\"; expected one of");
    let text = edit("cc = \"newreno\"", "cc = \"cubic\"\ncc_params = { beta = \"high\" }");
    assert_err(load(&text), "test.toml", "flow[0].cc_params.beta", "expected a number");
    let text = edit("cc = \"newreno\"", "cc = \"cubic\"\ncc_params = { beta = [1] }");
    assert_err(load(&text), "test.toml", "flow[0].cc_params.beta", "got a value of type array");
    let text = edit("cc = \"newreno\"", "cc = \"newreno\"\ncc_params = { beta = 0.5 }");
    assert_err(load(&text), "test.toml", "flow[0].cc_params.beta", "this algorithm has no parameters");
}

#[test]
fn pacing_keys() {
    let text = edit("cc = \"newreno\"", "cc = \"newreno\"\npacing = { kind = \"internal\", max_rate = \"100Mbps\" }");
    let s = load(&text).unwrap();
    assert_eq!(s.node[0].qdisc.as_ref().unwrap().kind, "pfifo");
    let cfg = tcp_config(&s, 0);
    assert_eq!(cfg.pacing, lfnlab_core::host::tcp::config::Pacing::Internal);
    assert_eq!(cfg.max_pacing_rate_bytes_per_s, 12.5e6);
    let text = edit("cc = \"newreno\"", "cc = \"newreno\"\npacing = { kind = \"fast\" }");
    assert_err(load(&text), "test.toml", "flow[0].pacing.kind", "expected one of \"off\", \"internal\", \"fq\", \"gap_packets\"");
    let text = edit("cc = \"newreno\"", "cc = \"newreno\"\npacing = { kind = \"internal\", mode = \"edt\" }");
    assert_err(load(&text), "test.toml", "flow[0].pacing.mode", "applies only to kind = \"fq\"");
    let text = edit("cc = \"newreno\"", "cc = \"newreno\"\npacing = { kind = \"fq\", mode = \"later\" }");
    assert_err(load(&text), "test.toml", "flow[0].pacing.mode", "\"edt\", \"fq\"");
    // fq pacing needs the fq qdisc.
    let text = edit("kind = \"host\"\n", "kind = \"host\"\nqdisc = { kind = \"pfifo\" }\n");
    assert_err(load(&text), "test.toml", "flow[0].pacing.kind", "needs the fq qdisc on host \"a\"");
    let text = edit("kind = \"host\"\n", "kind = \"host\"\nqdisc = { kind = \"pfifo\", limit = 5 }\npacing = { kind = \"off\" }\n");
    assert_err(load(&text), "test.toml", "node[0].qdisc.limit", "does not apply to kind = \"pfifo\"");
    // A host default reaches the flow; BBR without fq paces internally (CHOICE, as Linux).
    let text = edit("kind = \"host\"\n", "kind = \"host\"\npacing = { kind = \"off\" }\n");
    let text = text.replacen("cc = \"newreno\"", "cc = \"bbr\"", 1);
    let s = load(&text).unwrap();
    assert_eq!(s.flow[0].pacing.as_ref().unwrap().kind, "internal");
}

#[test]
fn gap_packet_keys() {
    // Gap-packet pacing installs the ipg qdisc with the spec 01 §2.3 defaults.
    let text = edit("cc = \"newreno\"", "cc = \"scalable\"\npacing = { kind = \"gap_packets\" }");
    let s = load(&text).unwrap();
    let q = s.node[0].qdisc.as_ref().unwrap();
    assert_eq!(q.kind, "ipg");
    assert_eq!(q.gap_pkt_max.unwrap().bytes(), 4096);
    assert_eq!(q.gap_total_max.unwrap().bytes(), 65536);
    assert_eq!(q.gap_pkt_min.unwrap().bytes(), 84);
    assert_eq!(q.rate_source.as_deref(), Some("tcp_estimate"));
    assert_eq!(tcp_config(&s, 0).pacing, lfnlab_core::host::tcp::config::Pacing::Off);
    assert_eq!(load(&to_toml(&s)).unwrap(), s);
    // Every host gets the memory model of spec 01 §2.6.
    let m = s.node[0].memory.as_ref().unwrap();
    assert_eq!((m.m0.unwrap().bps, m.k_dma, m.k_copy), (25_600_000_000, Some(1.0), Some(2.0)));

    let with_qdisc = |q: &str| edit("kind = \"host\"\n", &format!("kind = \"host\"\nqdisc = {q}\npacing = {{ kind = \"off\" }}\n"));
    let t = with_qdisc("{ kind = \"pfifo\" }").replacen("cc = \"newreno\"", "cc = \"newreno\"\npacing = { kind = \"gap_packets\" }", 1);
    assert!(t.contains("gap_packets"));
    assert_err(load(&t), "test.toml", "flow[0].pacing.kind", "needs the ipg qdisc on host \"a\"");
    assert_err(load(&with_qdisc("{ kind = \"pfifo\", gap_pkt_max = \"4KiB\" }")), "test.toml", "node[0].qdisc.gap_pkt_max", "does not apply to kind = \"pfifo\"");
    assert_err(load(&with_qdisc("{ kind = \"fq\", classes = [] }")), "test.toml", "node[0].qdisc.classes", "does not apply to kind = \"fq\"");
    assert_err(load(&with_qdisc("{ kind = \"ipg\", flow_limit = 3 }")), "test.toml", "node[0].qdisc.flow_limit", "does not apply to kind = \"ipg\"");
    assert_err(load(&with_qdisc("{ kind = \"ipg\", limit = 3 }")), "test.toml", "node[0].qdisc.limit", "txqueuelen");
    assert_err(load(&with_qdisc("{ kind = \"ipg\", gap_pkt_min = \"60B\" }")), "test.toml", "node[0].qdisc.gap_pkt_min", "expected at least 84 B");
    assert_err(load(&with_qdisc("{ kind = \"ipg\", gap_pkt_max = \"100B\" }")), "test.toml", "node[0].qdisc.gap_pkt_max", "at least twice gap_pkt_min");
    assert_err(load(&with_qdisc("{ kind = \"ipg\", size_basis = \"bits\" }")), "test.toml", "node[0].qdisc.size_basis", "\"mss\", \"wire\", \"frame\", \"ip\"");
    assert_err(load(&with_qdisc("{ kind = \"ipg\", rate_source = \"fixed\" }")), "test.toml", "node[0].qdisc.rate", "needs a rate");
    assert_err(load(&with_qdisc("{ kind = \"ipg\", rate = \"1MB/s\" }")), "test.toml", "node[0].qdisc.rate", "applies only to rate_source");
    let classes = |c: &str| with_qdisc(&format!("{{ kind = \"ipg\", classes = [{c}] }}"));
    assert_err(load(&classes("{ id = 0, dst = [\"b\"] }")), "test.toml", "node[0].qdisc.classes[0].id", "1 or more");
    assert_err(load(&classes("{ id = 1, dst = [\"zz\"] }")), "test.toml", "node[0].qdisc.classes[0].dst[0]", "no node is named \"zz\"");
    assert_err(load(&classes("{ id = 1, dst = [\"r\"] }")), "test.toml", "node[0].qdisc.classes[0].dst[0]", "not a host");
    assert_err(load(&classes("{ id = 1, dst = [\"b\"] }, { id = 1, dst = [\"a\"] }")), "test.toml", "node[0].qdisc.classes[1].id", "already used");
    assert_err(load(&classes("{ id = 1, dst = [\"b\"] }, { id = 2, dst = [\"b\"] }")), "test.toml", "node[0].qdisc.classes[1].dst[0]", "already in classes[0]");
    assert_err(load(&classes("{ id = 2, dst = [\"b\"], rate_source = \"min\" }")), "test.toml", "node[0].qdisc.classes[0].rate", "needs a rate");
    assert_err(load(&classes("{ id = 2, dst = [\"b\"], rate_source = \"fixed\", rate = \"0bps\" }")), "test.toml", "node[0].qdisc.classes[0].rate", "greater than zero");
    let t = edit("cc = \"newreno\"", "cc = \"newreno\"\npacing = { kind = \"gap_packets\", max_rate = \"1Gbps\" }");
    assert_err(load(&t), "test.toml", "flow[0].pacing.max_rate", "kind \"gap_packets\" does not use it");
    // Memory model and monitor point.
    let t = edit("kind = \"router\"\n", "kind = \"router\"\nmemory = { k_dma = 1.0 }\n");
    assert_err(load(&t), "test.toml", "node[1].memory", "hosts only");
    let t = edit("kind = \"host\"\n", "kind = \"host\"\nmemory = { k_copy = -1.0 }\n");
    assert_err(load(&t), "test.toml", "node[0].memory.k_copy", "finite number");
    let t = format!("{text}\n[[monitor]]\nlink = \"a->r\"\nbin = \"1ms\"\npoint = \"middle\"\n");
    assert_err(load(&t), "test.toml", "monitor[0].point", "\"egress\"");
}

#[test]
fn reverse_rate_defaults_to_rate_and_sets_the_receivers_nic() {
    let s = load(BASE).unwrap();
    assert_eq!(s.link[1].reverse_rate, s.link[1].rate);
    let t = BASE.replacen("rate = \"100Mbps\"", "rate = \"100Mbps\"\nreverse_rate = \"1Gbps\"", 1);
    let s = load(&t).unwrap();
    assert_eq!(s.link[1].reverse_rate.unwrap().bps, 1_000_000_000);
    // Host b sends on the reverse direction of link[1].
    assert_eq!(s.node[2].nic_rate.unwrap().bps, 1_000_000_000);
    assert_eq!(load(&to_toml(&s)).unwrap(), s);
    let t = BASE.replacen("rate = \"100Mbps\"", "rate = \"100Mbps\"\nreverse_rate = \"fast\"", 1);
    assert_err(load(&t), "test.toml", "link[1].reverse_rate", "expected a rate");
}

#[test]
fn every_example_loads() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "toml") {
            // A sweep plan (a [sweep] table, docs/sweep.md) names a scenario; it is not one.
            let text = std::fs::read_to_string(&p).unwrap();
            if toml::from_str::<toml::Table>(&text).is_ok_and(|t| t.contains_key("sweep")) {
                continue;
            }
            load_file(&p, &[]).unwrap_or_else(|err| panic!("{}: {err}", p.display()));
            n += 1;
        }
    }
    assert!(n >= 2, "examples found: {n}");
}

#[test]
fn chapter_03_keys() {
    // spec 03 §2.8: a burst_red segment gets BufferSize = rate/8 × delay and θ from the delay.
    let seg = |q: &str| edit("delay = \"10ms\"\n", &format!("delay = \"10ms\"\nqueue = {q}\n"));
    let s = load(&seg("{ kind = \"burst_red\" }")).unwrap();
    let q = s.link[1].queue.as_ref().unwrap();
    assert_eq!(q.limit.unwrap().bytes(), 125_000);
    assert_eq!((q.base_loss, q.red, q.red_max_p, q.red_w_q), (Some(1e-5), Some(true), Some(0.1), Some(0.002)));
    assert!((q.red_theta.unwrap() - (0.99 - 0.49 * 7.0 / 52.0)).abs() < 1e-12);
    assert_eq!(load(&to_toml(&s)).unwrap(), s);
    assert_err(load(&seg("{ kind = \"droptail\", base_loss = 0.1 }")), "test.toml", "link[1].queue.base_loss", "belongs to kind = \"burst_red\"");
    assert_err(load(&seg("{ kind = \"burst_red\", base_loss = 2.0 }")), "test.toml", "link[1].queue.base_loss", "from 0 to 1");
    assert_err(load(&seg("{ kind = \"burst_red\", red_w_q = 0.0 }")), "test.toml", "link[1].queue.red_w_q", "in (0, 1]");
    assert_err(load(&seg("{ kind = \"burst_red\", limit_packets = 10 }")), "test.toml", "link[1].queue.limit_packets", "limited in bytes");
    assert_err(load(&seg("{ kind = \"burst_red\", burst_halving_period = \"0s\" }")), "test.toml", "link[1].queue.burst_halving_period", "positive");
    assert_err(load(&seg("{ kind = \"red\" }")), "test.toml", "link[1].queue.kind", "\"burst_red\"");
    let short = edit("delay = \"1ms\"\n", "delay = \"1us\"\nqueue = { kind = \"burst_red\" }\n");
    assert_err(load(&short.replacen("from = \"a\"\nto = \"r\"", "from = \"r\"\nto = \"a\"", 1)), "test.toml", "link[0].queue.limit", "at least one full frame");

    // spec 03 §2.5: CPS with its default timer; cps_t only with kind = "cps".
    let pacing = |p: &str| edit("cc = \"newreno\"", &format!("cc = \"newreno\"\npacing = {p}"));
    let s = load(&pacing("{ kind = \"cps\" }")).unwrap();
    assert_eq!(s.flow[0].pacing.as_ref().unwrap().cps_t.unwrap().span(), lfnlab_core::engine::time::Span::from_ms(10));
    assert_eq!(tcp_config(&s, 0).cps_tick, Some(lfnlab_core::engine::time::Span::from_ms(10)));
    assert_err(load(&pacing("{ kind = \"fq\", cps_t = \"1ms\" }")), "test.toml", "flow[0].pacing.cps_t", "only to kind = \"cps\"");
    assert_err(load(&pacing("{ kind = \"cps\", cps_t = \"0ms\" }")), "test.toml", "flow[0].pacing.cps_t", "greater than zero");

    // spec 03 §2.7: the TCP-aware NIC, installed by its pacing kind, with every default.
    let s = load(&pacing("{ kind = \"tcp_nic\" }")).unwrap();
    let q = s.node[0].qdisc.as_ref().unwrap();
    assert_eq!((q.kind.as_str(), q.nic_mode.as_deref(), q.nic_max_streams), ("tcp_nic", Some("dynamic"), Some(64)));
    assert_eq!(q.nic_send_buffer.unwrap().bytes(), 128 << 20);
    assert_eq!(q.rtt_timestamp_point.as_deref(), Some("wire_departure"));
    assert_eq!(load(&to_toml(&s)).unwrap(), s);
    let nic = |q: &str| edit("kind = \"host\"\n", &format!("kind = \"host\"\nnic_rate = \"1Gbps\"\nqdisc = {q}\npacing = {{ kind = \"off\" }}\n"));
    assert_err(load(&nic("{ kind = \"tcp_nic\", nic_mode = \"fixed\" }")), "test.toml", "node[0].qdisc.fixed_ipg", "needs an IPG");
    assert_err(load(&nic("{ kind = \"tcp_nic\", fixed_ipg = \"8B\" }")), "test.toml", "node[0].qdisc.fixed_ipg", "only to nic_mode = \"fixed\"");
    assert_err(load(&nic("{ kind = \"tcp_nic\", nic_mode = \"fixed\", fixed_ipg = \"80MB\" }")), "test.toml", "node[0].qdisc.fixed_ipg", "beyond the counter's largest");
    assert_err(load(&nic("{ kind = \"tcp_nic\", nic_mode = \"slow\" }")), "test.toml", "node[0].qdisc.nic_mode", "\"dynamic\" or \"fixed\"");
    assert_err(load(&nic("{ kind = \"tcp_nic\", nic_send_buffer = \"1KiB\" }")), "test.toml", "node[0].qdisc.nic_send_buffer", "one full frame slot");
    assert_err(load(&nic("{ kind = \"tcp_nic\", rtt_timestamp_point = \"dma\" }")), "test.toml", "node[0].qdisc.rtt_timestamp_point", "wire_departure");
    assert_err(load(&nic("{ kind = \"tcp_nic\", gap_pkt_max = \"4KiB\" }")), "test.toml", "node[0].qdisc.gap_pkt_max", "does not apply to kind = \"tcp_nic\"");
    assert_err(load(&nic("{ kind = \"ipg\", nic_tick = \"64ns\" }")), "test.toml", "node[0].qdisc.nic_tick", "does not apply to kind = \"ipg\"");
    let t = nic("{ kind = \"pfifo\" }").replacen("cc = \"newreno\"", "cc = \"newreno\"\npacing = { kind = \"tcp_nic\" }", 1);
    assert_err(load(&t), "test.toml", "flow[0].pacing.kind", "needs the tcp_nic qdisc");

    // F3's disk rate is a tcp_bulk key.
    let s = load(&edit("cc = \"newreno\"", "cc = \"newreno\"\napp_rate = \"500Mbps\"")).unwrap();
    assert_eq!(s.flow[0].app_rate.unwrap().bps(), 500_000_000);
}

/// spec 04 §2.2, §2.4–2.6: PHY keys, the NIC pipeline, the bus and PAUSE, with
/// every default filled in and every contradiction named by key path.
#[test]
fn ten_gigabit_host_keys() {
    let host = |keys: &str| edit("name = \"a\"\nkind = \"host\"\n", &format!("name = \"a\"\nkind = \"host\"\n{keys}\n"));
    let link0 = "from = \"a\"\nto = \"r\"\nrate = \"1Gbps\"\ndelay = \"1ms\"\n";
    // 1 ms of link at 1 Gbit/s: H = 2·9236 + 84 + (2·1 ms·1e9 + 60·512)/8 = 272 396 B, more
    // than the 256 KiB FIFO: no XOFF threshold is left, and the error says so.
    assert_err(load(&host("mtu = 9198\nfc = { send = true }")), "test.toml", "node[0].fc.xoff", "headroom 272396 B");
    // A 10g_lan host on 10 m of cable: every default (spec 04 §2.4 table, §2.5 thresholds).
    let t4 = edit(link0, "from = \"a\"\nto = \"r\"\nphy = \"10g_lan\"\ndelay = \"50ns\"\n");
    let t4 = t4.replacen("name = \"a\"\nkind = \"host\"\n", "name = \"a\"\nkind = \"host\"\nmtu = 9198\nfc = { send = true, honour = true }\n", 1);
    let s = load(&t4).unwrap();
    assert_eq!(s.link[0].rate.unwrap().bps(), 10_000_000_000);
    let n = &s.node[0];
    let x = n.nic.as_ref().unwrap();
    assert_eq!((x.profile.as_deref(), x.rx_fifo.unwrap().bytes(), x.rx_descriptors), (Some("chelsio_t110"), 256 << 10, Some(1024)));
    let b = n.bus.as_ref().unwrap();
    assert_eq!((b.model.as_deref(), b.rate.unwrap().bps(), b.o_rx.unwrap().bytes(), b.o_tx.unwrap().bytes()), (Some("shared"), 8_533_000_000, 64, 32));
    let fc = n.fc.as_ref().unwrap();
    // H = 22 521 B < 32 KiB: headroom 32 KiB, xoff 224 KiB, xon 160 KiB; refresh = half of
    // 65535 quanta at 10 Gbit/s = 1.677696 ms.
    assert_eq!((fc.headroom.unwrap().bytes(), fc.xoff.unwrap().bytes(), fc.xon.unwrap().bytes()), (32 << 10, 224 << 10, 160 << 10));
    assert_eq!((fc.pause_quanta, fc.react_quanta), (Some(65_535), Some(60)));
    assert_eq!(fc.refresh.unwrap().span(), Span(1_677_696_000));
    assert_eq!(load(&to_toml(&s)).unwrap(), s, "resolving twice changes nothing");
    // A PHY sets the rate; a contradicting rate is refused.
    assert_err(load(&edit(link0, "from = \"a\"\nto = \"r\"\nphy = \"10g_wan\"\nrate = \"1Gbps\"\ndelay = \"1ms\"\n")), "test.toml", "link[0].rate", "R_mac = 9285714286");
    assert_err(load(&edit(link0, "from = \"a\"\nto = \"r\"\nphy = \"10G\"\ndelay = \"1ms\"\n")), "test.toml", "link[0].phy", "\"10g_lan\"");
    assert_err(load(&edit(link0, "from = \"a\"\nto = \"r\"\ndelay = \"1ms\"\n")), "test.toml", "link[0].rate", "missing required key");
    // Keys that belong elsewhere or contradict each other.
    let router = |keys: &str| edit("name = \"r\"\nkind = \"router\"\n", &format!("name = \"r\"\nkind = \"router\"\n{keys}\n"));
    assert_err(load(&router("nic = {}")), "test.toml", "node[1].nic", "hosts only");
    // A router generates PAUSE per ingress port (spec 04 §2.5): its own thresholds, defaults filled.
    let sc = load(&router("fc = { send = true }")).unwrap();
    let fc = sc.node[1].fc.as_ref().unwrap();
    assert_eq!((fc.sw_xoff.unwrap().bytes(), fc.sw_xon.unwrap().bytes(), fc.pause_quanta, fc.honour), (512 << 10, 256 << 10, Some(65_535), Some(false)));
    assert_err(load(&router("fc = { send = true, xoff = \"100KiB\" }")), "test.toml", "node[1].fc.xoff", "fc.sw_xoff");
    assert_err(load(&router("fc = { send = true, sw_xoff = \"100KiB\", sw_xon = \"100KiB\" }")), "test.toml", "node[1].fc.sw_xon", "less than fc.sw_xoff");
    assert_err(load(&router("fc = { send = true, sw_xoff = \"0B\" }")), "test.toml", "node[1].fc.sw_xoff", "greater than 0");
    assert_err(load(&router("fc = { honour = true, sw_xoff = \"100KiB\" }")), "test.toml", "node[1].fc.sw_xoff", "fc.send = true");
    assert_err(load(&host("fc = { send = true, sw_xoff = \"100KiB\" }")), "test.toml", "node[0].fc.sw_xoff", "a switch or router");
    assert_eq!(fc.sw_peers.as_deref(), Some(&["a".to_string(), "b".to_string()][..]), "every neighbour by default");
    assert_err(load(&router("fc = { send = true, sw_peers = [\"b\", \"zz\"] }")), "test.toml", "node[1].fc.sw_peers[1]", "a neighbour of r");
    assert_err(load(&host("fc = { honour = true, xoff = \"100KiB\" }")), "test.toml", "node[0].fc.xoff", "fc.send = true");
    assert_err(load(&host("nic = { profile = \"intel_pro10gbe_sr\", tx_rate_cap = \"6Gbps\" }")), "test.toml", "node[0].nic.tx_rate_cap", "no rate cap");
    assert_err(load(&host("nic = { tx_rate_cap = \"9Gbps\" }")), "test.toml", "node[0].nic.tx_rate_cap", "at most the NIC rate");
    assert_err(load(&host("nic = { profile = \"3com\" }")), "test.toml", "node[0].nic.profile", "\"chelsio_t110\"");
    assert_err(load(&host("nic = { tx_pacing = \"smooth\" }")), "test.toml", "node[0].nic.tx_pacing", "\"burst_k\"");
    assert_err(load(&host("nic = { rx_fifo = \"4KiB\" }")), "test.toml", "node[0].nic.rx_fifo", "at least 9618 B");
    assert_err(load(&host("bus = { efficiency = 1.5 }")), "test.toml", "node[0].bus.efficiency", "(0, 1]");
    assert_err(load(&host("bus = { model = \"pcie\" }")), "test.toml", "node[0].bus.model", "\"shared\" or \"none\"");
    assert_err(load(&host("fc = { send = true, xoff = \"200KiB\", xon = \"200KiB\" }")), "test.toml", "node[0].fc.xon", "less than fc.xoff");
    assert_err(load(&host("fc = { send = true, pause_quanta = 70000 }")), "test.toml", "node[0].fc.pause_quanta", "16-bit");
    assert_err(load(&host("nic = {}\nqdisc = { kind = \"ipg\" }\npacing = { kind = \"off\" }")), "test.toml", "node[0].qdisc.kind", "cancel the NIC's own XOFF");
}

/// spec 04 §2.7: `node.cpu` fills every default, takes the interrupt settings
/// from the NIC profile, and names the key of every bad value.
#[test]
fn host_cpu_keys() {
    let host = |keys: &str| edit("name = \"a\"\nkind = \"host\"\n", &format!("name = \"a\"\nkind = \"host\"\n{keys}\n"));
    let s = load(&host("cpu = {}")).unwrap();
    let n = &s.node[0];
    let c = n.cpu.as_ref().unwrap();
    assert_eq!((c.freq, c.cores, c.irq_core, c.app_core, c.jitter), (Some(2.2), Some(2), Some(0), Some(0), Some(0.05)));
    assert_eq!((c.c_seg_tx, c.c_seg_rx, c.c_ack_rx, c.c_ack_tx, c.c_copy_rx), (Some(4000.0), Some(4500.0), Some(2500.0), Some(1500.0), Some(1.2)));
    assert_eq!((c.c_irq, c.k_irq, c.t_irq.unwrap().span()), (Some(2000.0), Some(16), Span::from_us(10)));
    assert_eq!(c.write_size.unwrap().bytes(), 128 << 10);
    assert!(n.nic.is_some() && n.bus.is_some(), "a CPU host gets the NIC pipeline");
    assert_eq!(load(&to_toml(&s)).unwrap(), s, "resolving twice changes nothing");
    let intel = load(&host("nic = { profile = \"intel_pro10gbe_sr\" }\ncpu = { k_irq = 1 }")).unwrap();
    let c = intel.node[0].cpu.as_ref().unwrap();
    assert_eq!((c.c_irq, c.k_irq, c.t_irq.unwrap().span()), (Some(4000.0), Some(1), Span::from_us(50)));
    assert_err(load(&host("cpu = { cores = 0 }")), "test.toml", "node[0].cpu.cores", "1 to 16 cores");
    assert_err(load(&host("cpu = { app_core = 2 }")), "test.toml", "node[0].cpu.app_core", "below cpu.cores (2)");
    assert_err(load(&host("cpu = { freq = -1.0 }")), "test.toml", "node[0].cpu.freq", "GHz");
    assert_err(load(&host("cpu = { jitter = 1.0 }")), "test.toml", "node[0].cpu.jitter", "[0, 1)");
    assert_err(load(&host("cpu = { c_seg_rx = -5.0 }")), "test.toml", "node[0].cpu.c_seg_rx", "at least 0");
    assert_err(load(&host("cpu = { k_irq = 0 }")), "test.toml", "node[0].cpu.k_irq", "at least 1 frame");
    assert_err(load(&host("cpu = { read_size = \"0B\" }")), "test.toml", "node[0].cpu.read_size", "at least 1 B");
    assert_err(load(&host("cpu = { clock = 3 }")), "test.toml", "node[0].cpu.clock", "\"freq\"");
    let router = edit("name = \"r\"\nkind = \"router\"\n", "name = \"r\"\nkind = \"router\"\ncpu = {}\n");
    assert_err(load(&router), "test.toml", "node[1].cpu", "hosts only");
}

/// spec 04 §2.12: Gilbert–Elliott loss, link impairments and Poisson arrivals.
#[test]
fn real_path_keys() {
    let link0 = "from = \"a\"\nto = \"r\"\nrate = \"1Gbps\"\ndelay = \"1ms\"\n";
    let with = |keys: &str| edit(link0, &format!("{link0}{keys}\n"));
    let s = load(&with("loss = { kind = \"gilbert_elliott\", t_good = \"150s\", t_bad = \"150s\", p_bad = 1e-5 }\nimpair = { jitter = \"50us\" }")).unwrap();
    let l = s.link[0].loss.as_ref().unwrap();
    assert_eq!((l.p_good, l.p_bad, l.p, l.capacity_bad), (Some(0.0), Some(1e-5), None, Some(1.0)));
    let im = s.link[0].impair.as_ref().unwrap();
    assert_eq!((im.p_reorder, im.reorder_delay), (Some(0.0), Some(TimeSpan::ZERO)));
    assert_eq!(load(&to_toml(&s)).unwrap(), s, "resolving twice changes nothing");
    assert_err(load(&with("loss = { kind = \"gilbert_elliott\", t_good = \"1s\", p_bad = 0.1 }")), "test.toml", "link[0].loss.t_bad", "mean stay");
    assert_err(load(&with("loss = { kind = \"gilbert_elliott\", t_good = \"1s\", t_bad = \"1s\" }")), "test.toml", "link[0].loss.p_bad", "Bad state");
    assert_err(load(&with("loss = { kind = \"gilbert_elliott\", t_good = \"1s\", t_bad = \"1s\", p_bad = 0.1, capacity_bad = 0.0 }")), "test.toml", "link[0].loss.capacity_bad", "(0, 1]");
    assert_err(load(&with("loss = { kind = \"bernoulli\", p = 0.1, capacity_bad = 0.5 }")), "test.toml", "link[0].loss.capacity_bad", "does not apply");
    assert_err(load(&with("loss = { kind = \"gilbert_elliott\", t_good = \"1s\", t_bad = \"1s\", p_bad = 0.1, p = 0.1 }")), "test.toml", "link[0].loss.p", "p_good and p_bad");
    assert_err(load(&with("loss = { kind = \"bernoulli\", p = 0.1, p_bad = 0.1 }")), "test.toml", "link[0].loss.p_bad", "does not apply");
    assert_err(load(&with("loss = { kind = \"bernoulli\" }")), "test.toml", "link[0].loss.p", "missing required key");
    assert_err(load(&with("loss = { kind = \"markov\", p = 0.1 }")), "test.toml", "link[0].loss.kind", "\"gilbert_elliott\"");
    assert_err(load(&with("impair = { p_reorder = 0.1 }")), "test.toml", "link[0].impair.reorder_delay", "greater than zero");
    assert_err(load(&with("impair = { p_reorder = 2.0, reorder_delay = \"1ms\" }")), "test.toml", "link[0].impair.p_reorder", "probability");
    let flow = "kind = \"tcp_bulk\"\nfrom = \"a\"\nto = \"b\"\ncc = \"newreno\"\n";
    let udp = edit(flow, "kind = \"udp_cbr\"\nfrom = \"a\"\nto = \"b\"\nrate = \"100Mbps\"\narrivals = \"poisson\"\n");
    assert_eq!(load(&udp).unwrap().flow[0].arrivals.as_deref(), Some("poisson"));
    assert_err(load(&udp.replace("\"poisson\"", "\"pareto\"")), "test.toml", "flow[0].arrivals", "\"cbr\" or \"poisson\"");
    assert_err(load(&edit(flow, &format!("{flow}arrivals = \"poisson\"\n"))), "test.toml", "flow[0].arrivals", "udp_cbr");
}

#[test]
fn captures_resolve_and_reject_bad_keys() {
    let cap = |c: &str| format!("{BASE}\n[[capture]]\n{c}\n");
    let s = load(&cap("link = \"a->r\"")).expect("a minimal capture");
    let c = &s.capture[0];
    assert_eq!(c.name.as_deref(), Some("capture-0"));
    assert_eq!(c.direction.as_deref(), Some("both"));
    assert_eq!(c.until, Some(TimeSpan::from_span(Span::from_secs(10))), "until defaults to the run's end");
    assert_eq!(c.snaplen, Some(ByteSize { bytes: 256 }));
    // Written back and read again: the same capture.
    assert_eq!(load(&to_toml(&s)).expect("round trip").capture, s.capture);
    assert!(!to_toml(&load(BASE).unwrap()).contains("capture"), "no capture, no key in scenario.toml");

    assert_err(load(&cap("link = \"a-r\"")), "test.toml", "capture[0].link", "expected \"a->b\"");
    assert_err(load(&cap("link = \"a->b\"")), "test.toml", "capture[0].link", "no link joins");
    assert_err(load(&cap("link = \"a->zz\"")), "test.toml", "capture[0].link", "zz");
    assert_err(load(&cap("link = \"a->r\"\ndirection = \"up\"")), "test.toml", "capture[0].direction", "\"forward\"");
    assert_err(load(&cap("link = \"a->r\"\nflows = [\"f\", \"g\"]")), "test.toml", "capture[0].flows[1]", "no flow named \"g\"");
    assert_err(load(&cap("link = \"a->r\"\nflows = []")), "test.toml", "capture[0].flows", "at least one flow");
    assert_err(load(&cap("link = \"a->r\"\nfrom = \"2s\"\nuntil = \"1s\"")), "test.toml", "capture[0].until", "after `from`");
    assert_err(load(&cap("link = \"a->r\"\nsnaplen = \"10B\"")), "test.toml", "capture[0].snaplen", "64 B to 256 KiB");
    assert_err(load(&cap("link = \"a->r\"\nsnaplen = 100")), "test.toml", "capture[0].snaplen", "");
    assert_err(load(&cap("link = \"a->r\"\nmax_frames = 0")), "test.toml", "capture[0].max_frames", "at least 1");
    assert_err(load(&cap("link = \"a->r\"\nname = \"../x\"")), "test.toml", "capture[0].name", "file stem");
    assert_err(load(&cap("link = \"a->r\"\nbogus = 1")), "test.toml", "capture[0].bogus", "unknown key");
    let two = format!("{BASE}\n[[capture]]\nlink = \"a->r\"\ndirection = \"forward\"\n\n[[capture]]\nlink = \"r->a\"\nname = \"back\"\n");
    assert_err(load(&two), "test.toml", "capture[1].link", "capture[0] already captures");
    let same = format!("{BASE}\n[[capture]]\nlink = \"a->r\"\nname = \"x\"\n\n[[capture]]\nlink = \"r->b\"\nname = \"x\"\n");
    assert_err(load(&same), "test.toml", "capture[1].name", "already writes \"x.pcap\"");
}
