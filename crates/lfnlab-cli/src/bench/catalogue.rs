//! The benchmark catalogue, in the order `lfnlab bench` runs it: issue 9's list
//! (docs/performance.md gives each scenario's reason and the bars it serves),
//! then the chapter scenarios other issues measure.
//!
//! Naming: `RATE-RTT-QUEUE-CC[-fq]` for bulk TCP; socket buffers are 4·BDP
//! (decimal bytes) unless the name says otherwise.

use super::workload::{BenchScenario, Bulk, SwitchBench, Sweep, TenGig, Web, Workload};

/// 1 Gbit/s × 200 ms: BDP 25 MB, socket buffers 100 MB.
const fn g1(cc: &'static str, pacing: &'static str) -> Bulk {
    Bulk::engine("1Gbps", "10Gbps", "100ms", "100MB", cc, pacing)
}

/// 10 Gbit/s × 500 ms: BDP 625 MB, socket buffers 2500 MB.
const fn g10(cc: &'static str, pacing: &'static str) -> Bulk {
    Bulk::engine("10Gbps", "100Gbps", "250ms", "2500MB", cc, pacing)
}

/// 10 Gbit/s CUBIC at the RTT giving `one_way` × 2 × 10 Gbit/s = BDP, 30 s.
const fn bdp(one_way: &'static str, bufs: &'static str) -> Bulk {
    Bulk::engine("10Gbps", "100Gbps", one_way, bufs, "cubic", "off").lasting("30s")
}

const fn plain(name: &'static str, about: &'static str, workload: Workload) -> BenchScenario {
    BenchScenario { name, about, workload, bdp_series: false }
}

const fn series(name: &'static str, about: &'static str, b: Bulk) -> BenchScenario {
    BenchScenario { name, about, workload: Workload::Bulk(b), bdp_series: true }
}

pub const SCENARIOS: &[BenchScenario] = &[
    // Issue 9: 1 Gbit/s × 200 ms, small and large buffer, NewReno and CUBIC, paced and unpaced.
    plain("1g-200ms-128KiB-newreno", "1 Gbit/s, 200 ms, 128 KiB drop-tail, NewReno, 60 s", Workload::Bulk(g1("newreno", "off").queue("128KiB"))),
    plain("1g-200ms-128KiB-newreno-fq", "1 Gbit/s, 200 ms, 128 KiB drop-tail, NewReno paced by fq/EDT, 60 s", Workload::Bulk(g1("newreno", "fq").queue("128KiB"))),
    plain("1g-200ms-128KiB-cubic", "1 Gbit/s, 200 ms, 128 KiB drop-tail, CUBIC with HyStart, 60 s", Workload::Bulk(g1("cubic", "off").queue("128KiB"))),
    plain("1g-200ms-128KiB-cubic-fq", "1 Gbit/s, 200 ms, 128 KiB drop-tail, CUBIC paced by fq/EDT, 60 s", Workload::Bulk(g1("cubic", "fq").queue("128KiB"))),
    plain("1g-200ms-16MiB-newreno", "1 Gbit/s, 200 ms, 16 MiB drop-tail, NewReno, 60 s", Workload::Bulk(g1("newreno", "off"))),
    plain("1g-200ms-16MiB-newreno-fq", "1 Gbit/s, 200 ms, 16 MiB drop-tail, NewReno paced by fq/EDT, 60 s", Workload::Bulk(g1("newreno", "fq"))),
    plain("1g-200ms-16MiB-cubic", "1 Gbit/s, 200 ms, 16 MiB drop-tail, CUBIC with HyStart, 60 s (issue 9 bar: >= 2M data packets/s)", Workload::Bulk(g1("cubic", "off"))),
    plain("1g-200ms-16MiB-cubic-fq", "1 Gbit/s, 200 ms, 16 MiB drop-tail, CUBIC paced by fq/EDT, 60 s", Workload::Bulk(g1("cubic", "fq"))),
    // Issue 9: 10 Gbit/s × 500 ms.
    plain("10g-500ms-8MiB-cubic", "10 Gbit/s, 500 ms, 8 MiB drop-tail, CUBIC with HyStart, 60 s (issue 9 bars: <= 30 s wall, <= 300 MB RSS)", Workload::Bulk(g10("cubic", "off").queue("8MiB"))),
    plain("10g-500ms-16MiB-newreno", "10 Gbit/s, 500 ms, 16 MiB drop-tail, NewReno, 60 s", Workload::Bulk(g10("newreno", "off"))),
    plain("10g-500ms-16MiB-cubic", "10 Gbit/s, 500 ms, 16 MiB drop-tail, CUBIC with HyStart, 60 s", Workload::Bulk(g10("cubic", "off"))),
    plain("10g-500ms-16MiB-cubic-fq", "10 Gbit/s, 500 ms, 16 MiB drop-tail, CUBIC paced by fq/EDT (linux-modern), 60 s", Workload::Bulk(g10("cubic", "fq"))),
    // spec 04 E4.1 with B = 3·BDP (BDP at the receiver's bus limit, 8.34 Gbit/s × RTT),
    // MTU 9198. At 400 ms: 417 MB, about 5·10^5 frames in flight; issue 7 asks for
    // its 120 s in under 240 s of wall time. At 500 ms (issue 9's "E4.1 at its largest"): 521 MB.
    plain("e41-400ms-3bdp", "04.E4.1 point: T4-P, 10g_lan hosts with PAUSE, the receiver's PCI-X bus (the sender's unlimited), BIC, IPv6 MTU 9198, RTT 400 ms, B = 3·BDP, 120 s", Workload::TenGig(TenGig { duration: "120s", one_way: "200ms", bufs: "1251MB" })),
    plain("e41-500ms-3bdp", "T4-P as e41-400ms-3bdp at RTT 500 ms, B = 3·BDP = 1564 MB, 60 s", Workload::TenGig(TenGig { duration: "60s", one_way: "250ms", bufs: "1564MB" })),
    // Issue 9: 100 Gbit/s × 100 ms, BDP 1.25 GB, socket buffers 5 GB; 20 s.
    plain("100g-100ms-cubic", "100 Gbit/s, 100 ms, 16 MiB drop-tail, CUBIC with HyStart, 20 s", Workload::Bulk(Bulk::engine("100Gbps", "1000Gbps", "50ms", "5GB", "cubic", "off").lasting("20s"))),
    // Issue 9: 50 flows sharing 1 Gbit/s × 100 ms (BDP 12.5 MB; 4·BDP each), starts 20 ms apart.
    plain("50flows-1g-100ms", "50 CUBIC flows sharing 1 Gbit/s, 100 ms, 16 MiB drop-tail, starts 20 ms apart, 60 s (issue 9 bar: >= 1M data packets/s)", Workload::Bulk(Bulk::engine("1Gbps", "10Gbps", "50ms", "50MB", "cubic", "off").flows(50))),
    // Issue 9: cost per data packet across BDPs from 1 MB to 600 MB (within 2×):
    // 10 Gbit/s CUBIC, 16 MiB drop-tail, socket buffers 4·BDP, 30 s.
    series("bdp-1MB", "BDP series: 10 Gbit/s, RTT 0.8 ms (BDP 1 MB), CUBIC, 30 s", bdp("400us", "4MB")),
    series("bdp-10MB", "BDP series: 10 Gbit/s, RTT 8 ms (BDP 10 MB), CUBIC, 30 s", bdp("4ms", "40MB")),
    series("bdp-100MB", "BDP series: 10 Gbit/s, RTT 80 ms (BDP 100 MB), CUBIC, 30 s", bdp("40ms", "400MB")),
    series("bdp-600MB", "BDP series: 10 Gbit/s, RTT 480 ms (BDP 600 MB), CUBIC, 30 s", bdp("240ms", "2400MB")),
    // Issue 9: a 2-core sweep of 8 equal runs (>= 1.8× faster than one after another).
    plain("sweep-8x2", "8 equal runs of 1g-200ms-16MiB-cubic, one after another and then on 2 threads: the speed-up", Workload::Sweep(Sweep { runs: 8, workers: 2, of: g1("cubic", "off") })),
    // spec 05 E5.2: one grid point at 1000 + 1000 (the heaviest), 12 s, in a
    // frame-level switch and in a cell-level crossbar (24 fabric slots a frame).
    plain("e52-1000-1000-oq", "05.E5.2 point: two CBR flows at 1000 Mbit/s into one output of oq_cs (output-queued shared memory), 12 s", Workload::Switch(SwitchBench { duration: "12s", config: "oq_cs", tc1: "1000Mbps", tc2: "1000Mbps" })),
    plain("e52-1000-1000-voq", "05.E5.2 point: two CBR flows at 1000 Mbit/s into one output of voq_islip_gl (VOQ, iSLIP, 64-byte cells), 12 s", Workload::Switch(SwitchBench { duration: "12s", config: "voq_islip_gl", tc1: "1000Mbps", tc2: "1000Mbps" })),
    // One cell of 01.E2 (spec 01 §3): the §2.7 host behind GbE, §2.8 path.
    plain(
        "01e2-gap-300s",
        "01.E2 cell: GbE sender, 62.5 MB/s bottleneck, 200 ms RTT, 128 KiB drop-tail, Scalable paced by gap packets (ipg), linux-2.4, 300 s",
        Workload::Bulk(Bulk {
            duration: "300s",
            rate: "500Mbps",
            access_rate: "1Gbps",
            queue: "128KiB",
            one_way: "100ms",
            bufs: "32MiB",
            cc: "scalable",
            pacing: "gap_packets",
            profile: "linux-2.4",
            tcp: r#"{ iw = "2", send_stall_policy = "block" }"#,
            flows: 1,
        }),
    ),
    // spec 02 acceptance: one simulated hour of 30 Web users (HTTP/1.0, the
    // variant with the most connections) in under 60 s of wall time.
    plain(
        "web-30u-http10-1h",
        "02 Web workload: 30 users, large files, HTTP/1.0 (a connection per file), Quick-Start, T0 10 Mbit/s 200 ms, 3600 s",
        Workload::Web(Web { users: 30, http: "http10", duration: "3600s" }),
    ),
];
