//! Generated scenarios under the continuous invariants (issue 12,
//! `sim::invariants`): random small topologies (hosts around a chain of routers
//! and emulators), links, queues, loss, TCP flows of every congestion control
//! with or without pacing, and CBR sources. Every invariant is checked after
//! every event; a broken one fails the run with its name, time and entity, and
//! proptest prints the scenario.

use lfnlab_core::scenario::load_str;
use lfnlab_core::net::drop::DropCause;
use lfnlab_core::sim;
use proptest::prelude::*;

const CCS: [&str; 9] = ["newreno", "reno", "scalable", "highspeed", "bic", "cubic", "vegas", "fast", "bbr"];
const PACINGS: [&str; 3] = ["off", "internal", "fq"];
const RATES: [&str; 5] = ["10Mbps", "100Mbps", "500Mbps", "1Gbps", "10Gbps"];
const DELAYS: [&str; 5] = ["0ms", "100us", "1ms", "5ms", "20ms"];
const LIMITS: [&str; 5] = ["8KiB", "32KiB", "128KiB", "512KiB", "4MiB"];

#[derive(Clone, Debug)]
struct Flow {
    tcp: bool,
    from: usize,
    to: usize,
    cc: usize,
    pacing: usize,
    rate: usize,
}

#[derive(Clone, Debug)]
struct World {
    senders: usize,
    receivers: usize,
    /// Forwarding nodes in a chain: true = emulator, false = router.
    chain: Vec<bool>,
    /// Per link (senders, chain, receivers): rate, delay, queue limit index.
    links: Vec<(usize, usize, usize)>,
    loss: Option<(usize, u32)>,
    flows: Vec<Flow>,
    duration_ms: u32,
    seed: u64,
}

fn world() -> impl Strategy<Value = World> {
    (1usize..=2, 1usize..=2, prop::collection::vec(any::<bool>(), 1..=3), 0u32..=300, 100u32..=400, 0u64..(1 << 62))
        .prop_flat_map(|(senders, receivers, chain, loss_per_mille_x10, duration_ms, seed)| {
            let n_links = senders + chain.len() - 1 + receivers;
            let link = (0..RATES.len(), 0..DELAYS.len(), 0..LIMITS.len());
            let flow = (any::<bool>(), 0..senders, 0..receivers, 0..CCS.len(), 0..PACINGS.len(), 0..RATES.len())
                .prop_map(|(tcp, from, to, cc, pacing, rate)| Flow { tcp: tcp || rate > 3, from, to, cc, pacing, rate });
            (
                Just((senders, receivers, chain, loss_per_mille_x10, duration_ms, seed)),
                prop::collection::vec(link, n_links),
                0..n_links,
                prop::collection::vec(flow, 1..=3),
            )
        })
        .prop_map(|((senders, receivers, chain, loss, duration_ms, seed), links, lossy, flows)| World {
            senders,
            receivers,
            chain,
            links,
            loss: (loss > 150).then(|| (lossy, loss - 150)), // lazily: the subtraction only when it cannot wrap
            flows,
            duration_ms,
            seed,
        })
}

fn toml(w: &World) -> String {
    let mut t = format!("[sim]\nduration = \"{}ms\"\nseed = {}\n", w.duration_ms, w.seed);
    let node = |t: &mut String, name: &str, kind: &str| t.push_str(&format!("\n[[node]]\nname = \"{name}\"\nkind = \"{kind}\"\n"));
    for i in 0..w.senders {
        node(&mut t, &format!("s{i}"), "host");
    }
    for (i, emu) in w.chain.iter().enumerate() {
        node(&mut t, &format!("f{i}"), if *emu { "emulator" } else { "router" });
    }
    for i in 0..w.receivers {
        node(&mut t, &format!("r{i}"), "host");
    }
    let mut ends: Vec<(String, String)> = (0..w.senders).map(|i| (format!("s{i}"), "f0".to_string())).collect();
    ends.extend((1..w.chain.len()).map(|i| (format!("f{}", i - 1), format!("f{i}"))));
    let last = format!("f{}", w.chain.len() - 1);
    ends.extend((0..w.receivers).map(|i| (last.clone(), format!("r{i}"))));
    for (li, ((from, to), (rate, delay, limit))) in ends.iter().zip(&w.links).enumerate() {
        t.push_str(&format!("\n[[link]]\nfrom = \"{from}\"\nto = \"{to}\"\nrate = \"{}\"\ndelay = \"{}\"\n", RATES[*rate], DELAYS[*delay]));
        // A host's egress is its interface queue (txqueuelen); forwarding nodes get a FIFO.
        if from.starts_with('f') {
            t.push_str(&format!("queue = {{ kind = \"droptail\", limit = \"{}\" }}\n", LIMITS[*limit]));
        }
        if let Some((lossy, per_mille_x10)) = w.loss.filter(|(l, _)| *l == li) {
            t.push_str(&format!("loss = {{ kind = \"bernoulli\", p = {} }}\n", per_mille_x10 as f64 / 10_000.0));
            let _ = lossy;
        }
    }
    for (i, f) in w.flows.iter().enumerate() {
        t.push_str(&format!("\n[[flow]]\nname = \"x{i}\"\nfrom = \"s{}\"\nto = \"r{}\"\n", f.from, f.to));
        if f.tcp {
            t.push_str(&format!("kind = \"tcp_bulk\"\ncc = \"{}\"\npacing = {{ kind = \"{}\" }}\n", CCS[f.cc], PACINGS[f.pacing]));
        } else {
            t.push_str(&format!("kind = \"udp_cbr\"\nrate = \"{}\"\n", RATES[f.rate]));
        }
    }
    t
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn generated_scenarios_keep_every_invariant(w in world()) {
        let text = toml(&w);
        // The generator builds valid scenarios only: a refusal is a generator bug.
        let s = load_str(&text, "generated.toml", &[]).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        match sim::run_checked(&s) {
            Ok(out) => {
                let c = &out.summary.conservation;
                prop_assert!(c.holds);
                // The summary's drops by cause are the same books as frames_dropped.
                prop_assert_eq!(c.drops_by_cause.values().sum::<u64>(), c.frames_dropped);
            }
            Err(e) => prop_assert!(false, "{e}\n{text}"),
        }
    }
}

/// A small world (one sender, a router, one receiver, a TCP flow) with every
/// invariant checked, run 50 ms in without a violation.
fn small_world() -> lfnlab_core::sim::world::World {
    let text = toml(&World {
        senders: 1,
        receivers: 1,
        chain: vec![false],
        links: vec![(3, 2, 2), (1, 3, 2)],
        loss: None,
        flows: vec![Flow { tcp: true, from: 0, to: 0, cc: 5, pacing: 0, rate: 0 }],
        duration_ms: 200,
        seed: 1,
    });
    let s = load_str(&text, "generated.toml", &[]).unwrap();
    let mut w = sim::build::build(&s).unwrap();
    w.check_invariants = true;
    w.run_until(lfnlab_core::engine::time::SimTime::from_secs_f64(0.05));
    assert!(w.violation.is_none(), "{:?}", w.violation);
    w
}

/// Breaks one book of a running world; the checker must name it at the next event.
fn caught(break_it: impl FnOnce(&mut lfnlab_core::sim::world::World)) -> lfnlab_core::sim::invariants::Violation {
    let mut w = small_world();
    break_it(&mut w);
    w.run_until(lfnlab_core::engine::time::SimTime::from_secs_f64(0.1));
    let v = w.violation.expect("the checker must notice");
    assert!(v.at.as_secs_f64() > 0.05, "{v:?}");
    v
}

/// The checker can fail: a world whose books are made wrong is caught at the
/// next event, with the invariant, the time and the entity named.
#[test]
fn a_broken_book_is_caught_with_its_name() {
    let v = caught(|w| w.net.books.emitted_frames += 1);
    assert_eq!((v.invariant, v.entity.as_str()), ("conservation", "network"));
    assert!(v.detail.contains("emitted"), "{v:?}");
}

/// A frame a link direction lost track of, and a drop nobody owns, are each caught.
#[test]
fn a_link_that_loses_a_frame_and_a_drop_without_a_place_are_caught() {
    let v = caught(|w| w.net.channels[0].frames_launched += 1);
    assert!(v.invariant == "conservation" && v.detail.starts_with("link direction 0 ("), "{v:?}");
    let v = caught(|w| w.net.books.drops.add(DropCause::Ttl));
    assert!(v.invariant == "conservation" && v.detail.starts_with("drops: books say"), "{v:?}");
    // A balanced drop that its place never counted: a tail drop no queue owns.
    let v = caught(|w| {
        w.net.books.emitted_frames += 1;
        w.net.books.dropped_frames += 1;
        w.net.books.drops.add(DropCause::Tail);
    });
    assert!(v.invariant == "conservation" && v.detail.starts_with("drops of cause tail: books say"), "{v:?}");
}

/// Every example (gap pacing, the TCP-aware NIC, Quick-Start, switches, web
/// traffic, …) keeps every invariant at every event over its first 300 ms.
/// The generated scenarios above cover only routers, emulators and plain hosts.
/// `summary.json` `conservation.drops_by_cause` splits `frames_dropped` by
/// cause from the same books: a lossy link and a small router queue give
/// both `link_loss` (equal to the link's own count) and `tail` drops.
#[test]
fn the_summary_names_each_drop_cause() {
    let text = r#"
[sim]
duration = "2s"
seed = 3

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
queue = { kind = "droptail", limit = "32KiB" }
loss = { kind = "bernoulli", p = 0.001 }

[[flow]]
name = "x"
from = "a"
to = "b"
kind = "tcp_bulk"
cc = "cubic"
"#;
    let out = sim::run_checked(&load_str(text, "drops.toml", &[]).unwrap()).unwrap();
    let c = &out.summary.conservation;
    let link_loss = c.drops_by_cause.get("link_loss").copied().unwrap_or(0);
    assert!(link_loss > 0 && c.drops_by_cause.get("tail").copied().unwrap_or(0) > 0, "{:?}", c.drops_by_cause);
    assert_eq!(c.drops_by_cause.values().sum::<u64>(), c.frames_dropped);
    assert_eq!(link_loss, out.summary.link_losses.iter().map(|l| l.dropped).sum::<u64>());
    assert!(c.drops_by_cause.values().all(|n| *n > 0), "causes without drops are left out");
    assert_eq!(out.summary.flows[0].rcvbuf_drops, 0, "the default buffers never overflow the receiver");
}

#[test]
fn every_example_keeps_every_invariant() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut paths: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    paths.sort();
    let mut checked = 0;
    for path in paths.iter().filter(|p| p.extension().is_some_and(|x| x == "toml")) {
        let text = std::fs::read_to_string(path).unwrap();
        if text.contains("[sweep]") {
            continue;
        }
        let s = load_str(&text, &path.display().to_string(), &["sim.duration=300ms".into()]).unwrap();
        if let Err(e) = sim::run_checked(&s) {
            panic!("{}: {e}", path.display());
        }
        checked += 1;
    }
    assert!(checked >= 7, "only {checked} examples");
}

/// Issue 39 (found by the fuzz seed corpus once P-TM became a drop-tail path): a router
/// port that serves eagerly and feeds an early channel forwards each frame when it
/// accepts it, so frames it has not started yet are booked at the next hop, not on its
/// link: the ledger must not take them off the link's count (it underflowed).
#[test]
fn an_eager_port_feeding_an_early_channel_balances() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions/scenario/eager-port-feeding-early-channel.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let s = load_str(&text, &path.display().to_string(), &[]).unwrap();
    let out = sim::run_checked(&s).unwrap_or_else(|e| panic!("{e}"));
    assert!(out.summary.conservation.holds);
}
