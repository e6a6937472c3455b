//! What a benchmark scenario simulates, as scenario TOML (docs/performance.md).
//!
//! Most scenarios are bulk TCP over the spec 06 §7 path, sender —(access link,
//! 0 delay)→ emulator —(bottleneck, RTT/2, drop-tail)→ receiver; the others are
//! the spec 02 Web workload, the spec 04 T4-P path and the spec 05 switch bench.
//! TCP trace off and no monitors (except the switch bench's own), so that the
//! figures measure the engine and not the result writers.

/// A named benchmark scenario.
pub struct BenchScenario {
    pub name: &'static str,
    pub about: &'static str,
    pub workload: Workload,
    /// One of the BDP series whose cost per data packet must stay flat (issue 9).
    pub bdp_series: bool,
}

/// What a benchmark scenario simulates.
pub enum Workload {
    Bulk(Bulk),
    Web(Web),
    TenGig(TenGig),
    Switch(SwitchBench),
    /// `runs` copies of one bulk scenario, one after another and then on
    /// `workers` threads: the sweep-level speed-up.
    Sweep(Sweep),
}

/// Equal runs of one scenario (same seed), serial and then parallel.
pub struct Sweep {
    pub runs: usize,
    pub workers: usize,
    pub of: Bulk,
}

/// The spec 05 bench: two CBR generators into one output of a switch, 1500-byte
/// packets, the monitor at the output in 1-ms bins (one 05.E5.2 grid point).
pub struct SwitchBench {
    pub duration: &'static str,
    /// A named configuration of spec 05 §2.2.
    pub config: &'static str,
    pub tc1: &'static str,
    pub tc2: &'static str,
}

impl SwitchBench {
    fn body(&self) -> String {
        let host = |name: &str| format!("[[node]]\nname = \"{name}\"\nkind = \"host\"\n");
        let link = |a: &str, b: &str| format!("[[link]]\nfrom = \"{a}\"\nto = \"{b}\"\nrate = \"1Gbps\"\ndelay = \"0ns\"\n");
        let flow = |name: &str, from: &str, rate: &str, start: &str| {
            format!("[[flow]]\nname = \"{name}\"\nkind = \"udp_cbr\"\nfrom = \"{from}\"\nto = \"ch0\"\nrate = \"{rate}\"\nsize = 1500\nstart = \"{start}\"\n")
        };
        format!(
            "{}{}[[node]]\nname = \"dut\"\nkind = \"switch\"\nswitch = {{ config = \"{}\" }}\n{}{}{}{}{}{}[[monitor]]\nlink = \"dut->ch0\"\nbin = \"1ms\"\npoint = \"ingress\"\n",
            host("ch2"),
            host("ch3"),
            self.config,
            host("ch0"),
            link("ch2", "dut"),
            link("ch3", "dut"),
            link("dut", "ch0"),
            flow("flow1", "ch2", self.tc1, "0ns"),
            flow("flow2", "ch3", self.tc2, "5us"),
        )
    }
}

/// Topology T4-P of spec 04 §2.11 (passthrough edges): hosts with the spec 04
/// NIC pipeline and PAUSE, 10g_lan links, one BIC stream over IPv6 with MTU 9198.
pub struct TenGig {
    pub duration: &'static str,
    /// One-way delay of the emulator, RTT/2.
    pub one_way: &'static str,
    /// Socket buffers B_snd = B_rcv.
    pub bufs: &'static str,
}

impl TenGig {
    fn body(&self) -> String {
        // As 04.E4.1 since e7e5065 (path04.SENDER_BUS, spec 04 §5 CHOICE): the
        // receiver has the shared PCI-X bus, the sender's bus is unlimited.
        let host = |name: &str, bus: &str| format!("[[node]]\nname = \"{name}\"\nkind = \"host\"\nmtu = 9198\nip_version = 6\ntxqueuelen = 10000\nnic = {{}}\nfc = {{ send = true, honour = true }}\nbus = {{ model = \"{bus}\" }}\n");
        let router = |name: &str| format!("[[node]]\nname = \"{name}\"\nkind = \"router\"\nfc = {{ honour = true }}\n");
        // Router egresses hold 256 MiB (B_router, spec 04 §2.11); a host's egress is its qdisc.
        let link = |a: &str, b: &str, delay: &str| {
            let queue = if a.starts_with('r') { "queue = { kind = \"droptail\", limit = \"256MiB\" }\n" } else { "" };
            format!("[[link]]\nfrom = \"{a}\"\nto = \"{b}\"\nphy = \"10g_lan\"\ndelay = \"{delay}\"\n{queue}")
        };
        format!(
            "{}{}{}{}{}{}{}[[flow]]\nname = \"bulk\"\nkind = \"tcp_bulk\"\nfrom = \"hs\"\nto = \"hr\"\ncc = \"bic\"\nprofile = \"linux-2.6\"\nsndbuf = \"{bufs}\"\nrcvbuf = \"{bufs}\"\n",
            host("hs", "none"),
            router("rs"),
            router("rr"),
            host("hr", "shared"),
            link("hs", "rs", "50ns"),
            link("rs", "rr", self.one_way),
            link("rr", "hr", "50ns"),
            bufs = self.bufs,
        )
    }
}

/// sender —(access link, 0 delay)→ emulator —(bottleneck C, RTT/2,
/// drop-tail)→ receiver, one bulk flow.
pub struct Bulk {
    /// Simulated duration.
    pub duration: &'static str,
    /// Bottleneck rate C.
    pub rate: &'static str,
    /// Access link rate (10 × C, or the NIC of a chapter's host model).
    pub access_rate: &'static str,
    /// Drop-tail limit of the bottleneck queue.
    pub queue: &'static str,
    /// One-way delay of the bottleneck, RTT/2.
    pub one_way: &'static str,
    /// Socket buffers, 4 · BDP.
    pub bufs: &'static str,
    /// Congestion control.
    pub cc: &'static str,
    /// Sender pacing (`kind` of spec 06 §5.3): `off`, `fq` = EDT through the fq
    /// qdisc, or `gap_packets` = the ipg qdisc of spec 01.
    pub pacing: &'static str,
    /// TCP profile (spec 06 §2.1) and overrides as an inline TOML table.
    pub profile: &'static str,
    pub tcp: &'static str,
    /// Bulk flows sharing the path, `bulk0` … `bulk{n-1}`, flow i starting at
    /// i · [`FLOW_STAGGER_MS`] (CHOICE, docs/performance.md).
    pub flows: u32,
}

/// Start offset between consecutive flows of a multi-flow scenario, ms.
pub const FLOW_STAGGER_MS: u32 = 20;

/// Web users on T0 (spec 02 §3.2, §4.1): 10 Mbit/s, RTT 200 ms, the
/// large-files model, Reno of the linux-2.6 profile, Quick-Start on every
/// server connection.
pub struct Web {
    pub users: u32,
    /// `http10`, `http11` or `http11_pipe`.
    pub http: &'static str,
    /// Simulated duration.
    pub duration: &'static str,
}


impl BenchScenario {
    /// The scenario as TOML.
    pub fn toml(&self) -> String {
        let (duration, body) = match &self.workload {
            Workload::Bulk(b) => (b.duration, b.body()),
            Workload::Web(w) => (w.duration, w.body()),
            Workload::TenGig(t) => (t.duration, t.body()),
            Workload::Switch(w) => (w.duration, w.body()),
            Workload::Sweep(w) => (w.of.duration, w.of.body()),
        };
        format!(
            r#"
[sim]
name = "bench-{name}"
duration = "{duration}"
seed = 1

[sim.trace]
mode = "off"
{body}"#,
            name = self.name,
        )
    }
}

impl Web {
    /// Nodes, link and flow of the scenario.
    fn body(&self) -> String {
        format!(
            r#"
[[node]]
name = "S"
kind = "host"
quickstart = {{ capacity = "10Mbps" }}

[[node]]
name = "C"
kind = "host"

[[link]]
from = "S"
to = "C"
rate = "10Mbps"
delay = "100ms"

[[flow]]
name = "web"
kind = "web"
from = "C"
to = "S"
users = {users}
web_model = "large_files"
http = "{http}"
profile = "linux-2.6"
cc = "reno"
sndbuf = "8MiB"
rcvbuf = "8MiB"
tcp = {{ ack_policy = "linux_like", rwnd_policy = "full_buffer" }}
quickstart = {{ rate_code = 7 }}
"#,
            users = self.users,
            http = self.http,
        )
    }
}

impl Bulk {
    /// A 60 s engine scenario: 16 MiB drop-tail bottleneck, the linux-modern
    /// profile without overrides.
    pub const fn engine(
        rate: &'static str,
        access_rate: &'static str,
        one_way: &'static str,
        bufs: &'static str,
        cc: &'static str,
        pacing: &'static str,
    ) -> Bulk {
        Bulk { duration: "60s", rate, access_rate, queue: "16MiB", one_way, bufs, cc, pacing, profile: "linux-modern", tcp: "{}", flows: 1 }
    }

    /// The same with another drop-tail limit, duration or number of flows.
    pub const fn queue(self, queue: &'static str) -> Bulk {
        Bulk { queue, ..self }
    }
    pub const fn lasting(self, duration: &'static str) -> Bulk {
        Bulk { duration, ..self }
    }
    pub const fn flows(self, flows: u32) -> Bulk {
        Bulk { flows, ..self }
    }

    /// Nodes, links and flow of the scenario.
    fn body(&self) -> String {
        format!(
            r#"
[[node]]
name = "snd"
kind = "host"

[[node]]
name = "emu"
kind = "emulator"

[[node]]
name = "rcv"
kind = "host"

[[link]]
from = "snd"
to = "emu"
rate = "{access}"
delay = "0ms"

[[link]]
from = "emu"
to = "rcv"
rate = "{rate}"
delay = "{one_way}"
queue = {{ kind = "droptail", limit = "{queue}" }}

{flows}"#,
            queue = self.queue,
            access = self.access_rate,
            rate = self.rate,
            one_way = self.one_way,
            flows = self.flow_tables(),
        )
    }

    /// One `[[flow]]` table, or `flows` of them named `bulk0`, `bulk1`, ….
    fn flow_tables(&self) -> String {
        let table = |name: &str, start: &str| {
            format!(
                "[[flow]]\nname = \"{name}\"\nkind = \"tcp_bulk\"\nfrom = \"snd\"\nto = \"rcv\"\n{start}cc = \"{cc}\"\nprofile = \"{profile}\"\ntcp = {tcp}\npacing = {{ kind = \"{pacing}\" }}\nsndbuf = \"{bufs}\"\nrcvbuf = \"{bufs}\"\n",
                cc = self.cc,
                profile = self.profile,
                tcp = self.tcp,
                pacing = self.pacing,
                bufs = self.bufs,
            )
        };
        if self.flows == 1 {
            return table("bulk", "");
        }
        (0..self.flows).map(|i| table(&format!("bulk{i}"), &format!("start = \"{}ms\"\n", i * FLOW_STAGGER_MS))).collect()
    }
}

