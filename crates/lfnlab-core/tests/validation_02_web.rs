//! Tier (c): the Web workload of spec 02 §3.2 over real TCP connections on the
//! T0 testbed (§4.1): connection use per HTTP variant (§3.2.4), keep-alive
//! limits (§3.2.5), Quick-Start bookkeeping and determinism.

mod common;
use common::*;
use lfnlab_core::scenario::load_str;
use lfnlab_core::sim::RunOutput;

fn web(http: &str, users: u32, duration_s: u32, qs: bool, seed: u64) -> RunOutput {
    let qs = if qs { "quickstart = { rate_code = 7 }\n" } else { "" };
    run_toml(&format!(
        "{}[[flow]]\nname = \"web\"\nkind = \"web\"\nfrom = \"C\"\nto = \"S\"\nusers = {users}\nweb_model = \"large_files\"\nhttp = \"{http}\"\n{CH02_TCP}{qs}",
        t0_head(&format!("{duration_s}s"), seed, "100ms")
    ))
}

fn web_block(out: &RunOutput) -> serde_json::Value {
    serde_json::to_value(&out.summary.flows[0]).unwrap()["web"].clone()
}

/// spec 02 §3.2.4 `http10`: one new connection per file, so every object
/// opened exactly as many connections as it has files.
#[test]
fn http10_opens_one_connection_per_file() {
    let out = web("http10", 2, 300, true, 1);
    let files = u64s(&out.objects, "files");
    let conns = u64s(&out.objects, "connections");
    assert!(files.len() >= 20, "too few objects: {}", files.len());
    assert_eq!(files, conns);
    // Each connection asks once, on its SYN-ACK (the server sends the data).
    let w = web_block(&out);
    assert!(w["qs_requests"].as_u64().unwrap() >= w["connections"].as_u64().unwrap() - 2);
}

/// `http11`: one persistent connection per user, reused across objects until
/// the server closes it (16 requests or 5 s idle, spec 02 §3.2.5): never more
/// connections per object than files, and strictly fewer connections than files overall.
#[test]
fn http11_reuses_connections() {
    let out = web("http11", 2, 600, false, 1);
    let files: u64 = u64s(&out.objects, "files").iter().sum();
    let conns = web_block(&out)["connections"].as_u64().unwrap();
    assert!(conns < files, "{conns} connections for {files} files");
    let per_obj = u64s(&out.objects, "connections");
    assert!(per_obj.iter().all(|&c| c <= 2), "an object needs at most a fresh connection plus one after the 16-request limit");
}

/// Object download time runs from the object's first transaction to its
/// last byte: never below one RTT (request out, response back) plus the
/// serialization of its body at 10 Mbit/s.
#[test]
fn download_times_respect_the_path() {
    let out = web("http11_pipe", 3, 300, true, 2);
    let bytes = u64s(&out.objects, "bytes");
    let dl = f64s(&out.objects, "download_s");
    assert!(!dl.is_empty());
    for (b, d) in bytes.iter().zip(dl) {
        let floor = 0.2 + *b as f64 * 8.0 / 10e6;
        assert!(*d >= floor, "object of {b} B in {d} s, below {floor} s");
    }
}

/// Liveness (spec 02 §3.2.1: each user loops until the end). With pipelining
/// the embedded GETs reach the server in several segments and it answers each
/// piece as it arrives; the end-of-run check (no request arrived whole and
/// unanswered) holds, and the user is still fetching in the last quarter.
#[test]
fn pipelined_user_keeps_fetching() {
    let out = web("http11_pipe", 1, 1200, true, 1);
    let last = f64s(&out.objects, "end_s").iter().fold(0.0, |a: f64, &b| a.max(b));
    assert!(last > 900.0, "the last object ended at {last} s of 1200 s");
}

/// Same seed, same run; another seed, another run (spec 02 §2.7).
#[test]
fn same_seed_same_run() {
    let a = web("http10", 2, 120, true, 3);
    let b = web("http10", 2, 120, true, 3);
    assert_eq!(a.summary.event_hash, b.summary.event_hash);
    assert_eq!(f64s(&a.objects, "download_s"), f64s(&b.objects, "download_s"));
    let c = web("http10", 2, 120, true, 4);
    assert_ne!(a.summary.event_hash, c.summary.event_hash);
}

#[test]
fn bad_web_keys_name_the_key() {
    let base = |extra: &str| {
        format!(
            r#"
[sim]
duration = "1s"
[[node]]
name = "S"
kind = "host"
[[node]]
name = "C"
kind = "host"
[[link]]
from = "S"
to = "C"
rate = "10Mbps"
delay = "1ms"
[[flow]]
name = "web"
kind = "web"
from = "C"
to = "S"
{extra}
"#
        )
    };
    for (extra, key) in [
        ("users = 0", "flow[0].users"),
        ("http = \"http2\"", "flow[0].http"),
        ("web_model = \"tiny\"", "flow[0].web_model"),
        ("bytes = \"1MB\"", "flow[0].bytes"),
        ("pacing = { kind = \"fq\" }", "flow[0].pacing.kind"),
    ] {
        let err = load_str(&base(extra), "t.toml", &[]).unwrap_err();
        assert_eq!(err.key_path, key, "{extra}: {err}");
    }
}
