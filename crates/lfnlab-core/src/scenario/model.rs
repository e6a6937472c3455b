//! The scenario schema (spec 00 §2.2): nodes, links, flows and monitors.
//!
//! One typed definition serves TOML files, `--set` overrides and Python dicts
//! (STYLE point 5). Every optional key is `Option` here; `resolve` fills it in,
//! so the `scenario.toml` written with the results shows every value used
//! (spec 00 §2.4). Unknown keys are rejected everywhere (`deny_unknown_fields`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::units::{ByteSize, Rate, RateOrZero, TimeSpan};

/// A whole scenario file.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Run-wide settings: duration, seed, trace.
    pub sim: SimSpec,
    /// Hosts, routers, emulators and switches.
    #[serde(default)]
    pub node: Vec<NodeSpec>,
    /// Full-duplex links between two nodes.
    #[serde(default)]
    pub link: Vec<LinkSpec>,
    /// Traffic: TCP transfers, request/response, Web users, UDP CBR.
    #[serde(default)]
    pub flow: Vec<FlowSpec>,
    /// Per-bin counters at the egress of a link direction (`flows.parquet`, `queues.parquet`).
    #[serde(default)]
    pub monitor: Vec<MonitorSpec>,
    /// pcap captures (`scenario::monitor::capture`); left out of `scenario.toml` when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub capture: Vec<super::monitor::capture::CaptureSpec>,
}

/// `[sim]`: run-wide settings.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SimSpec {
    /// Scenario name; default: the file stem, or "scenario" for a dict.
    pub name: Option<String>,
    /// Simulated duration (required).
    // `Option` so that `resolve` reports a missing duration with its key path;
    // the schema says required (`with` the inner type: a `$ref`, not an inlined copy).
    #[schemars(with = "TimeSpan")]
    pub duration: Option<TimeSpan>,
    /// The one master seed from which every random stream derives (STYLE point 10).
    pub seed: Option<u64>,
    /// TCP trace settings (spec 06 §6).
    pub trace: Option<TraceSpec>,
    /// Stop the run after this many events (default 10^11); the results written are
    /// marked partial and the run fails (exit status 1). Not filled in by the loader:
    /// a limit that is not reached changes nothing.
    pub max_events: Option<u64>,
    /// Stop the run after this much wall-clock time (default 86400s), as `max_events`.
    pub wall_timeout: Option<TimeSpan>,
    /// Stop the run when the process's resident memory exceeds this (default: ¾ of
    /// the machine's physical memory), as `max_events`.
    pub max_memory: Option<ByteSize>,
}

/// `[sim.trace]`: how `tcp.parquet` is sampled (spec 06 §6).
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TraceSpec {
    /// `bin` (default), `event` or `off`.
    pub mode: Option<TraceMode>,
    /// Bin width for `mode = "bin"`, default 10 ms; at most 10^7 bins per run.
    pub bin: Option<TimeSpan>,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TraceMode {
    Bin,
    Event,
    Off,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    Host,
    Router,
    Emulator,
    Switch,
}

/// `[[node]]`: a host, router, emulator or switch.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    /// Unique node name; links, flows and monitors refer to it.
    pub name: String,
    /// `host`, `router`, `emulator` (GtrcNET-like: forwards, shapes, delays,
    /// drops, monitors) or `switch` (spec 05).
    pub kind: NodeKind,
    /// Host NIC line rate; default: the rate of the host's (single) link.
    pub nic_rate: Option<Rate>,
    /// Interface queue capacity in packets (spec 06 §5.1), default 1000.
    pub txqueuelen: Option<u32>,
    /// Gap after every frame sent by this node's NICs, in bytes (spec 06 §1.2 U2), default 12.
    pub ipg_bytes: Option<u32>,
    /// IP MTU in bytes, default 1500.
    pub mtu: Option<u32>,
    /// IP version of the host's packets: 4 (default) or 6.
    pub ip_version: Option<u8>,
    /// Host qdisc (spec 06 §5.3), default `{ kind = "pfifo" }`.
    pub qdisc: Option<QdiscSpec>,
    /// Default TCP profile for flows leaving this host (spec 06 §2.1).
    pub profile: Option<String>,
    /// Default TCP parameter overrides for flows leaving this host.
    pub tcp: Option<TcpParams>,
    /// Default pacing for TCP flows leaving this host (spec 06 §4.3, §5.3).
    pub pacing: Option<PacingSpec>,
    /// Memory-bandwidth model for `hosts.parquet` (spec 01 §2.6).
    pub memory: Option<MemorySpec>,
    /// IP TTL of the host's packets (spec 02 §2.3.1 `initial_ip_ttl`), default 64.
    pub ip_ttl: Option<u8>,
    /// Quick-Start router function on every egress interface of this node
    /// (spec 02 §2.5); a link's `quickstart` sets one interface instead.
    pub quickstart: Option<QsRouterSpec>,
    /// The NIC pipeline of spec 04 §2.4–2.6 (RX/TX FIFOs, descriptor rings,
    /// rate cap); a host with `nic`, `bus` or `fc.send` gets it, filled in.
    pub nic: Option<NicSpec>,
    /// The host I/O bus (spec 04 §2.4).
    pub bus: Option<BusSpec>,
    /// 802.3x flow control of the node's ports (spec 04 §2.5); off unless given.
    pub fc: Option<FcSpec>,
    /// The host CPU of spec 04 §2.7 (implies the NIC pipeline); off unless given.
    pub cpu: Option<CpuSpec>,
    /// A switch's model and parameters (spec 05 §2.2–2.4, `scenario::net::switch`).
    pub switch: Option<super::net::switch::SwitchSpec>,
    /// Shorthand for `switch.sched` (spec 00 §2.2).
    pub arbiter: Option<String>,
}

/// `node.nic` (spec 04 §2.4, §2.6, §2.7 NIC profiles).
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct NicSpec {
    /// `chelsio_t110` (default), `chelsio_n110` or `intel_pro10gbe_sr`.
    pub profile: Option<String>,
    /// NIC RX FIFO F_rx, default 256 KiB.
    pub rx_fifo: Option<ByteSize>,
    /// NIC TX FIFO F_tx, default 256 KiB.
    pub tx_fifo: Option<ByteSize>,
    /// RX descriptors N_rxd, default 1024.
    pub rx_descriptors: Option<u32>,
    /// TX descriptors N_txd, default 1024.
    pub tx_descriptors: Option<u32>,
    /// Sender rate cap in wire bytes; unset = R_mac (no cap).
    pub tx_rate_cap: Option<Rate>,
    /// Lowest settable cap, default 6 Gbit/s; lower requests are raised to it
    /// (reported as `tx_rate_cap_clamped` in the summary).
    pub tx_rate_cap_min: Option<RateOrZero>,
    /// `per_frame` (default) or `burst_k`.
    pub tx_pacing: Option<String>,
    /// Frames per burst for `burst_k`, default 1.
    pub tx_pacing_k: Option<u32>,
}

/// `node.bus` (spec 04 §2.4).
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BusSpec {
    /// `shared` (default: one half-duplex DMA server for RX and TX) or `none` (unlimited).
    pub model: Option<String>,
    /// Raw bus rate R_bus, default 8.533 Gbit/s (PCI-X 64 bit × 133.33 MHz).
    pub rate: Option<Rate>,
    /// Efficiency η_bus, default 1.0.
    pub efficiency: Option<f64>,
    /// DMA overhead per received frame o_rx, default 64 B.
    pub o_rx: Option<ByteSize>,
    /// DMA overhead per transmitted frame o_tx, default 32 B.
    pub o_tx: Option<ByteSize>,
}

/// `node.fc`: IEEE 802.3x PAUSE (spec 04 §2.5).
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FcSpec {
    /// Generate PAUSE: a host from its RX FIFO occupancy, a switch or router
    /// per ingress port from the bytes it holds that entered there; default false.
    pub send: Option<bool>,
    /// Obey PAUSE received on the node's ports, default false.
    pub honour: Option<bool>,
    /// Headroom, default max(32 KiB, H) (§2.5 formula).
    pub headroom: Option<ByteSize>,
    /// XOFF threshold, default F_rx − headroom.
    pub xoff: Option<ByteSize>,
    /// XON threshold, default xoff − 64 KiB (at least 0).
    pub xon: Option<ByteSize>,
    /// Pause time sent with XOFF, quanta of 512 bit times, default 65535.
    pub pause_quanta: Option<u32>,
    /// Refresh interval while above XON, default half the pause duration.
    pub refresh: Option<TimeSpan>,
    /// Reaction delay of a port receiving PAUSE, quanta, default 60.
    pub react_quanta: Option<u32>,
    /// Switch or router: XOFF when the bytes held from one ingress port reach
    /// this, default 512 KiB.
    pub sw_xoff: Option<ByteSize>,
    /// Switch or router: PAUSE(0) when they fall to this, default 256 KiB.
    pub sw_xon: Option<ByteSize>,
    /// Switch or router: the neighbours whose ingress ports generate PAUSE,
    /// default all (e.g. only the attached hosts, spec 04 §2.12 X).
    pub sw_peers: Option<Vec<String>>,
}

/// `node.cpu`: the host CPU (spec 04 §2.7). Costs are in cycles (per item,
/// or per byte for the copy and checksum costs); `c_irq`, `k_irq` and `t_irq`
/// default to the NIC profile's.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CpuSpec {
    /// Clock in GHz, default 2.2.
    pub freq: Option<f64>,
    /// Cores, default 2.
    pub cores: Option<u32>,
    /// Core taking NIC interrupts and softirq work, default 0.
    pub irq_core: Option<u32>,
    /// Core running the applications, default 0 (the same core).
    pub app_core: Option<u32>,
    /// Each item's cost × U[1 − jitter, 1 + jitter], default 0.05.
    pub jitter: Option<f64>,
    /// Cycles per interrupt, default from the NIC profile.
    pub c_irq: Option<f64>,
    /// Cycles per segment built (TCP/IP output, driver xmit), default 4000.
    pub c_seg_tx: Option<f64>,
    /// Cycles per TX completion (free buffer), default 300.
    pub c_txc: Option<f64>,
    /// Cycles per ACK processed at a sender, default 2500.
    pub c_ack_rx: Option<f64>,
    /// Cycles per SACK block in a received ACK, default 500.
    pub c_sack_blk: Option<f64>,
    /// Cycles per segment of the retransmission queue walked on a SACK, default 0.
    pub c_sack_walk: Option<f64>,
    /// Cycles per data segment received (driver RX, IP, TCP input, descriptor refill), default 4500.
    pub c_seg_rx: Option<f64>,
    /// Cycles per ACK sent, default 1500.
    pub c_ack_tx: Option<f64>,
    /// Cycles per payload byte copied into the kernel by write(), default 1.2.
    pub c_copy_tx: Option<f64>,
    /// Cycles per payload byte copied out by read(), default 1.2.
    pub c_copy_rx: Option<f64>,
    /// Cycles per payload byte checksummed, default 0 (offloaded).
    pub c_csum: Option<f64>,
    /// Cycles per write() or read() call, default 2000.
    pub c_syscall: Option<f64>,
    /// Cycles of application work per call, default 200.
    pub c_app: Option<f64>,
    /// Large-buffer penalty: cycles per segment × log2(max(1, B_sock / 64 MiB)), default 0.
    pub c_mem: Option<f64>,
    /// Interrupt coalescing: frames, default from the NIC profile.
    pub k_irq: Option<u32>,
    /// Interrupt coalescing: delay, default from the NIC profile.
    pub t_irq: Option<TimeSpan>,
    /// The application's write() size w, default 128 KiB (spec 04 §2.8).
    pub write_size: Option<ByteSize>,
    /// The application's read() size r, default 128 KiB.
    pub read_size: Option<ByteSize>,
    /// Bin of the per-core accounting in the summary, default 1 s (spec 04 §2.13);
    /// at most 10^7 bins per run.
    pub bin: Option<TimeSpan>,
}

/// Sender pacing (spec 06 §4.3 rate; §5.3 who enforces it).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PacingSpec {
    /// `off`, `internal` (TCP holds segments until their time), `fq` (the
    /// host's fq qdisc does), `gap_packets` (the host's `ipg` qdisc spaces
    /// packets with gap frames, spec 01), `cps` (Clustered Packet Spacing of
    /// the first slow-start rounds, spec 03 §2.5) or `tcp_nic` (the host's
    /// TCP-aware NIC paces every stream, spec 03 §2.7).
    pub kind: String,
    /// With `kind = "fq"`: `edt` (TCP stamps departure times, the default) or
    /// `fq` (the qdisc computes them from the flow's pacing rate).
    pub mode: Option<String>,
    /// `max_pacing_rate` (SO_MAX_PACING_RATE); unset = no cap.
    pub max_rate: Option<Rate>,
    /// With `kind = "cps"` (Clustered Packet Spacing, spec 03 §2.5): the
    /// kernel timer granularity `cps_T`, default 10 ms.
    pub cps_t: Option<TimeSpan>,
}

/// A host qdisc.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct QdiscSpec {
    /// `pfifo` (capacity `txqueuelen`) or `fq` (spec 06 §5.3); the pacing
    /// qdiscs of later chapters plug in here.
    pub kind: String,
    /// `fq`: packets held in total, default 10000.
    pub limit: Option<u64>,
    /// `fq`: packets held per flow, default 100.
    pub flow_limit: Option<u64>,
    /// `fq`: deficit round-robin quantum, default 2·MTU.
    pub quantum: Option<ByteSize>,
    /// `fq`: quantum of a new or refilled flow, default 10·MTU.
    pub initial_quantum: Option<ByteSize>,
    /// `fq`: idle time after which a flow gets `initial_quantum` again, default 40 ms.
    pub flow_refill_delay: Option<TimeSpan>,
    /// `fq`: packets stamped later than now + horizon are dropped, default 10 s.
    pub horizon: Option<TimeSpan>,
    /// `ipg`: largest single gap frame, wire bytes, default 4096 B (spec 01 §2.3).
    pub gap_pkt_max: Option<ByteSize>,
    /// `ipg`: largest total gap between two real packets, default 64 KiB.
    pub gap_total_max: Option<ByteSize>,
    /// `ipg`: smallest gap frame that can exist, default 84 B (64-byte frame + 20).
    pub gap_pkt_min: Option<ByteSize>,
    /// `ipg` test mode: this gap after every real packet, estimator bypassed (unset by default).
    pub fixed_gap: Option<ByteSize>,
    /// `ipg`: `mss` (default: cwnd × MSS / RTT applied to wire bytes, as the released PSPacer), `wire`, `frame` or `ip`: the bytes `packet_size` counts (spec 01 §2.2, §5.1).
    pub size_basis: Option<String>,
    /// `ipg`: `srtt_minus_qtime` (default: srtt less the class's smoothed queuing time, as the released PSPacer), `srtt`, `min_rtt` or `latest` (spec 01 §2.2).
    pub rtt_estimator: Option<String>,
    /// `ipg`: `carry` (default) or `skip`: a gap below `gap_pkt_min` (spec 01 §5.3).
    pub small_gap_policy: Option<String>,
    /// `ipg`: rate source of class 0 (unmatched traffic): `tcp_estimate` (default), `fixed` or `min`.
    pub rate_source: Option<String>,
    /// `ipg`: configured rate of class 0 for `fixed` and `min`, in wire bytes.
    pub rate: Option<Rate>,
    /// `ipg`: further classes, one per bottleneck (spec 01 §2.5).
    pub classes: Option<Vec<IpgClassSpec>>,
    /// `tcp_nic` (spec 03 §2.7): `dynamic` (default; IPG from each stream's
    /// cwnd and srtt) or `fixed`.
    pub nic_mode: Option<String>,
    /// `tcp_nic` with `nic_mode = "fixed"`: the IPG after each frame of a stream.
    pub fixed_ipg: Option<ByteSize>,
    /// `tcp_nic`: the IPG counter's decrement period, default 64 ns.
    pub nic_tick: Option<TimeSpan>,
    /// `tcp_nic`: CAM entries (streams with their own counter), default 64.
    pub nic_max_streams: Option<u32>,
    /// `tcp_nic`: Send Buffer capacity, default 128 MiB.
    pub nic_send_buffer: Option<ByteSize>,
    /// `tcp_nic`: `wire_departure` (default: the NIC stamps TSval when the frame
    /// leaves) or `tcp_handoff` (RTT samples include the wait in the NIC).
    pub rtt_timestamp_point: Option<String>,
}

/// One class of the `ipg` qdisc (spec 01 §2.5).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct IpgClassSpec {
    /// Class id, 1 or more (0 is the default class, configured on the qdisc itself).
    pub id: u32,
    /// Destination hosts classified into this class (the paper's destination prefixes).
    pub dst: Vec<String>,
    /// `tcp_estimate` (default), `fixed` or `min`.
    pub rate_source: Option<String>,
    /// Configured rate for `fixed` and `min`, in wire bytes.
    pub rate: Option<Rate>,
}

/// The linear memory-bandwidth model of a host (spec 01 §2.6).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MemorySpec {
    /// Memory bandwidth with no network traffic, default 3200 MB/s.
    pub m0: Option<Rate>,
    /// Bus reads per DMA byte, default 1.
    pub k_dma: Option<f64>,
    /// Bus transfers per copied byte, default 2.
    pub k_copy: Option<f64>,
    /// Memory traffic per frame, default 0 B.
    pub k_pkt: Option<ByteSize>,
}

/// `[[link]]`: a full-duplex link (spec 00 §2.2).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// Node at one end; `queue`, `loss` and `quickstart` apply to the direction from → to.
    pub from: String,
    /// Node at the other end; the `reverse_*` keys apply to the direction to → from.
    pub to: String,
    /// Rate of the direction from → to (and of both unless `reverse_rate` is
    /// given); default the R_mac of `phy`. Required without `phy`.
    pub rate: Option<Rate>,
    /// PHY of both directions (spec 04 §2.2): `10g_lan`, `10g_wan` (R_mac =
    /// 10 Gbit/s × 13/14) or `1g`; sets the rate.
    pub phy: Option<String>,
    /// Rate of the direction to → from; default `rate` (spec 01 §2.8: the
    /// emulator's reverse path runs at line rate while the forward one is shaped).
    pub reverse_rate: Option<Rate>,
    /// One-way propagation delay of both directions.
    pub delay: TimeSpan,
    /// Egress queue of `from` toward `to`. Default: drop-tail, 1000 packets.
    /// Stays `None` after resolving when `from` is a host: a host's egress is
    /// its interface queue (`txqueuelen`, spec 06 §5.1).
    pub queue: Option<QueueSpec>,
    /// Egress queue of `to` toward `from`. Default: drop-tail with no limit
    /// (never drops ACKs, spec 00 §2.2); `None` when `to` is a host.
    pub reverse_queue: Option<QueueSpec>,
    /// Random loss applied to frames leaving `from` toward `to`.
    pub loss: Option<LossSpec>,
    /// Jitter and reordering of a real circuit, both directions (spec 04 §2.12).
    pub impair: Option<ImpairSpec>,
    /// Quick-Start router function on the egress of `from` toward `to` (spec 02 §2.5).
    pub quickstart: Option<QsRouterSpec>,
    /// Quick-Start router function on the egress of `to` toward `from`.
    pub reverse_quickstart: Option<QsRouterSpec>,
}

/// A Quick-Start interface ("router function", spec 02 §2.5.1).
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct QsRouterSpec {
    /// Capacity C used by admission control, IP-level bit/s (required: no auto-detection).
    #[schemars(with = "Rate")] // required; `resolve` reports it missing (see `SimSpec::duration`)
    pub capacity: Option<Rate>,
    /// Metering interval D, default 1 s.
    pub meter_interval: Option<TimeSpan>,
    /// Approval history slots K, default 2 (history K·D).
    pub ring_slots: Option<u32>,
    /// Fraction θ of C available to Quick-Start, default 1.0.
    pub thresh: Option<f64>,
    /// `target_reduce` (default, RFC 4782 App. D) or `target_strict`.
    pub admission: Option<String>,
    /// `last_interval` (default) or `peak` (peak of the last `peak_samples` rates over `peak_sample`).
    pub util_estimator: Option<String>,
    /// `peak`: sample length S, default 150 ms.
    pub peak_sample: Option<TimeSpan>,
    /// `peak`: samples P (3..=20), default 3.
    pub peak_samples: Option<u32>,
    /// `zero` (default: zero rate, QS TTL and nonce) or `delete` (remove the option).
    pub deny_action: Option<String>,
    /// Requests beyond this many per second are refused unevaluated; unset = unlimited.
    pub max_requests_per_s: Option<u32>,
    /// Offset of the metering boundaries from time 0, default 0 s.
    pub meter_phase: Option<TimeSpan>,
    /// Per-packet processing-cost model (spec 02 §2.5.7), all 0 µs by default.
    pub proc: Option<QsProcSpec>,
}

/// Processing cost per packet in microseconds (spec 02 §2.5.7).
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct QsProcSpec {
    /// Every packet at the interface, default 0.
    pub base_us: Option<f64>,
    /// Metering of every packet, default 0.
    pub meter_us: Option<f64>,
    /// A packet carrying a Quick-Start option, default 0.
    pub opt_parse_us: Option<f64>,
    /// An approved request, default 0.
    pub update_us: Option<f64>,
    /// Per nonce field re-randomized when a request is reduced, default 0.
    pub nonce_field_us: Option<f64>,
    /// `serial` (default: one processor, packets wait for earlier ones) or
    /// `parallel` (each packet delayed by its own cost, order kept); CHOICE.
    pub discipline: Option<String>,
}

/// Quick-Start on a connection (spec 02 §2.3.1 sender, §2.4 receiver): the
/// data sender asks, the other end echoes.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct QsFlowSpec {
    /// Requested rate, converted to a rate code with `code_floor` (`round_up`: `code_ceil`).
    pub rate: Option<Rate>,
    /// Requested rate code N (1..=15), default 7 (5.12 Mbit/s); exclusive with `rate`.
    pub rate_code: Option<u8>,
    /// Convert `rate` with `code_ceil` instead of `code_floor`, default false.
    pub round_up: Option<bool>,
    /// Ask on connection setup (SYN or SYN/ACK of the data sender), default true.
    pub on_connect: Option<bool>,
    /// Ask again after an idle restart cut cwnd (spec 02 §2.6.4), default true.
    pub on_idle_restart: Option<bool>,
    /// Explicit application requests (the socket option, spec 02 §2.3.1): on the
    /// first new data segment at or after each of these times.
    pub request_at: Option<Vec<TimeSpan>>,
    /// H of the Quick-Start window, bytes; default the actual IP + TCP header of a full segment.
    pub header_bytes: Option<u32>,
    /// Pacing timer rate HZ, default 1000.
    pub hz: Option<u32>,
    /// Smallest chunk M of the pacing timers, default 3 segments.
    pub chunk_min: Option<u32>,
    /// `none` (default) or `qs_window` (spec 02 §2.3.9).
    pub ssthresh_policy: Option<String>,
    /// `qs_window`: ssthresh = max(2, ⌊factor·W_qs⌋), default 1.0.
    pub ssthresh_factor: Option<f64>,
    /// Initial RTO of a SYN or SYN/ACK carrying a request, default 3 s.
    pub syn_rto: Option<TimeSpan>,
    /// Receiver: the highest rate code it echoes, default 15.
    pub recv_max_rate_code: Option<u8>,
    /// Receiver: ACK a segment carrying a request at once, default true.
    pub immediate_ack: Option<bool>,
    /// Receiver: `full_buffer` (default, advertise the free buffer) or
    /// `linux_like` (gradual opening from 4·MSS, bumped on an approval;
    /// spec 02 §2.4 rule 4).
    pub recv_rwnd_policy: Option<String>,
    /// RFC 3742 limited slow start once a Quick-Start episode was used,
    /// default false (spec 02 §2.3.1 `qs.send.limited_slow_start`).
    pub limited_slow_start: Option<bool>,
    /// Its max_ssthresh, segments, default 100.
    pub max_ssthresh: Option<u32>,
}

/// Quick-Start requests on a `udp_cbr` flow (spec 02 §4.7): datagram k (k = 1, 2, …)
/// carries a Rate Request when ⌊k·share⌋ > ⌊(k−1)·share⌋, so exactly the share asks,
/// evenly spread. The option sits inside `size` (the IP length does not change).
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct UdpQsSpec {
    /// Fraction of datagrams with a request, 0 to 1 (required).
    #[schemars(with = "f64")] // required; `resolve` reports it missing (see `SimSpec::duration`)
    pub share: Option<f64>,
    /// Requested rate code, 1 to 15, default 7 (5.12 Mbit/s).
    pub rate_code: Option<u8>,
}

/// A router/emulator egress queue.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct QueueSpec {
    /// `droptail`, or `burst_red`: the network-segment model of spec 03 §2.8
    /// (bandwidth × latency FIFO, burst-scaled random loss, RED; frames take
    /// frame_len byte-times on the segment, no preamble or IPG).
    pub kind: String,
    /// Byte limit: an arriving frame is dropped if queued bytes + its size exceed it.
    /// `burst_red`: BufferSize, default the direction's rate/8 × link delay.
    pub limit: Option<ByteSize>,
    /// Packet limit (`droptail` only).
    pub limit_packets: Option<u64>,
    /// `burst_red`: base loss rate, default 1e-5.
    pub base_loss: Option<f64>,
    /// `burst_red`: BurstCount halves at every multiple of this period, default 1 ms.
    pub burst_halving_period: Option<TimeSpan>,
    /// `burst_red`: RED on (default) or off.
    pub red: Option<bool>,
    /// `burst_red`: RED min_th as a fraction θ of BufferSize; default from the
    /// link delay: 0.99 below 3 ms, 0.50 above 55 ms, linear in between.
    pub red_theta: Option<f64>,
    /// `burst_red`: RED max_p, default 0.1.
    pub red_max_p: Option<f64>,
    /// `burst_red`: RED queue weight w_q, default 0.002.
    pub red_w_q: Option<f64>,
}

/// Random loss on one link direction: Bernoulli (spec 06 §7 V3) or a
/// Gilbert–Elliott circuit (spec 04 §2.12).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LossSpec {
    /// `bernoulli` or `gilbert_elliott`.
    pub kind: String,
    /// `bernoulli`: drop probability per frame, in [0, 1].
    pub p: Option<f64>,
    /// `gilbert_elliott`: mean stay in Good (T_G).
    pub t_good: Option<TimeSpan>,
    /// `gilbert_elliott`: mean stay in Bad (T_B).
    pub t_bad: Option<TimeSpan>,
    /// `gilbert_elliott`: per-frame loss probability in Good, default 0.
    pub p_good: Option<f64>,
    /// `gilbert_elliott`: per-frame loss probability in Bad.
    pub p_bad: Option<f64>,
    /// `gilbert_elliott`: capacity factor κ_B in the Bad state, in (0, 1],
    /// default 1: the circuit's egress serializes at κ_B·R while Bad.
    pub capacity_bad: Option<f64>,
    /// Which frames may be dropped: `data` (default: TCP segments with payload and UDP) or `all`.
    pub applies_to: Option<String>,
    /// Loss applies to frames arriving in [start, stop): default from 0 s to
    /// the end of the run. With p = 1 this is an outage (spec 06 §7 V7).
    pub start: Option<TimeSpan>,
    /// End of the loss window (exclusive), default the end of the run.
    pub stop: Option<TimeSpan>,
}

/// `link.impair`: per-packet delay impairments in both directions (spec 04 §2.12).
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ImpairSpec {
    /// Extra delay U[0, jitter] per frame, FIFO order kept; default 0.
    pub jitter: Option<TimeSpan>,
    /// Share of frames held back by `reorder_delay` (later frames overtake them); default 0.
    pub p_reorder: Option<f64>,
    /// Extra delay of a frame held back; greater than zero when `p_reorder` > 0.
    pub reorder_delay: Option<TimeSpan>,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum FlowKind {
    TcpBulk,
    /// A client (`from`) connects, sends `request` bytes; the server (`to`)
    /// answers with `response` bytes (spec 02 §3.1).
    RequestResponse,
    /// Surge-style Web users on `from` fetching objects from the server `to`
    /// over real TCP connections (spec 02 §3.2).
    Web,
    UdpCbr,
}

/// `[[flow]]`: traffic between two hosts.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    /// Unique flow name; results and `capture.flows` refer to it.
    pub name: String,
    /// `tcp_bulk` (iperf-like: unlimited data from start to end of the run),
    /// `request_response`, `web` or `udp_cbr`.
    pub kind: FlowKind,
    /// Sending host; the client for `request_response` and `web`.
    pub from: String,
    /// Receiving host; the server for `request_response` and `web`.
    pub to: String,
    /// Start time, default 0 s.
    pub start: Option<TimeSpan>,
    /// Stop time (`udp_cbr`), default: end of run.
    pub stop: Option<TimeSpan>,
    /// `tcp_bulk`: bytes to transfer (decimal volume); default unlimited.
    pub bytes: Option<ByteSize>,
    /// `tcp_bulk`: congestion control, default from the profile.
    pub cc: Option<String>,
    /// `tcp_bulk`: TCP profile, default the sending host's, else `linux-modern`.
    pub profile: Option<String>,
    /// `tcp_bulk`: send buffer B_snd (spec 06 §2.3).
    pub sndbuf: Option<ByteSize>,
    /// `tcp_bulk`: receive buffer B_rcv (spec 06 §2.3).
    pub rcvbuf: Option<ByteSize>,
    /// `tcp_bulk`: single-parameter overrides of the profile.
    pub tcp: Option<TcpParams>,
    /// `tcp_bulk`: congestion-control parameters (spec 06 §4.4); every
    /// parameter of `cc` is filled in when resolved.
    // Keys depend on `cc` (checked by `cc_params`), so the schema says only "a table".
    #[schemars(with = "Option<std::collections::BTreeMap<String, serde_json::Value>>")]
    pub cc_params: Option<toml::Table>,
    /// `tcp_bulk`: pacing; default the host's, else the profile's.
    pub pacing: Option<PacingSpec>,
    /// `tcp_bulk`: the application supplies data at most at this rate (a
    /// disk, spec 03 F3 `r_disk`), in whole segments from connection
    /// establishment; unset = as fast as the send buffer allows.
    pub app_rate: Option<Rate>,
    /// `request_response`: request bytes the client sends, default 100 B.
    pub request: Option<ByteSize>,
    /// `request_response`: response bytes the server writes once the whole
    /// request arrived; unset = unlimited (the server always has data).
    pub response: Option<ByteSize>,
    /// `web`: number of users U, default 1.
    pub users: Option<u32>,
    /// `web`: `surge_default` (default) or `large_files` (spec 02 §3.2.3).
    pub web_model: Option<String>,
    /// `web`: `http10` (default), `http11` or `http11_pipe` (spec 02 §3.2.4).
    pub http: Option<String>,
    /// TCP flows: Quick-Start on this connection (spec 02 §2.3–2.4).
    pub quickstart: Option<QsFlowSpec>,
    /// `udp_cbr`: transmission capacity including preamble and IPG (spec 05 §2.5).
    pub rate: Option<Rate>,
    /// `udp_cbr`: IP packet length in bytes, default 1500.
    pub size: Option<u32>,
    /// `udp_cbr`: `cbr` (default, one datagram every period) or `poisson`
    /// (exponential gaps of the same mean: background traffic, spec 04 §2.12).
    pub arrivals: Option<String>,
    /// `udp_cbr`: a share of the datagrams carries a Quick-Start Rate Request
    /// (spec 02 §4.7, router work accounting).
    pub qs_requests: Option<UdpQsSpec>,
}

impl FlowSpec {
    /// The host that sends the flow's data: `to` (the server) for
    /// `request_response` and `web`, else `from`.
    pub fn data_sender(&self) -> &str {
        if matches!(self.kind, FlowKind::RequestResponse | FlowKind::Web) { &self.to } else { &self.from }
    }
}

/// TCP parameters of spec 06 §2–3. A profile fills every one; a flow or host may
/// override any of them. Enumerated values are strings checked by `resolve`.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TcpParams {
    /// Initial window: `rfc3390`, `rfc6928` or a fixed segment count as a string ("10").
    pub iw: Option<String>,
    /// The window after a retransmitted SYN or SYN-ACK (spec 06 §2.2 step 4): `rfc5681`,
    /// 1 segment after any handshake timeout of this end (RFC 5681 §3.1; the `linux-2.4`
    /// and `linux-2.6` profiles, see docs/choices.md); `linux`, 1 segment only after more
    /// than one SYN or SYN-ACK retransmission of which the answer shows no spurious
    /// timeout, else `iw` (Linux 6.x `tcp_init_transfer`).
    pub syn_loss_iw: Option<String>,
    /// ABC limit L in segments; 0 means unlimited (∞).
    pub abc_l: Option<u32>,
    /// What an ACK credits to slow start and congestion avoidance (before the ABC limit):
    /// `acked`, the segments newly covered by the cumulative ACK (Linux 2.4 and 2.6), or
    /// `delivered`, the segments this ACK newly delivered, cumulatively or by SACK, so
    /// data SACKed earlier is not counted again (Linux 6.x `acked_sacked`).
    pub cwnd_credit: Option<String>,
    /// Slow start while `cwnd <= ssthresh` (`le`) or `cwnd < ssthresh` (`lt`).
    pub slow_start_while: Option<String>,
    /// How a SACK sender finds lost segments: `dupthresh` (counting, with
    /// `is_lost`) or `rack` (RFC 8985 RACK: by send time, which also finds lost
    /// retransmissions; Linux 4.4 and later).
    pub loss_detection: Option<String>,
    /// With `dupthresh` and SACK, how a lost retransmission is found: `sacktag`
    /// (in Recovery, once SACKs reach beyond what had been sent when it was
    /// retransmitted, as Linux 2.4–4.3) or `rto` (only by the RTO).
    pub lost_retrans: Option<String>,
    /// Tail loss probes (RFC 8985 §7): in Open, a probe 2·srtt after the last
    /// ACK or send, so a tail loss is repaired without an RTO (Linux 3.10 and later).
    pub tlp: Option<bool>,
    /// `rfc`, `rate_halving`, `prr` (RFC 6937 as spec 06 §2.5) or `prr_linux` (Linux 6.8 `tcp_cwnd_reduction`).
    pub recovery_cwnd: Option<String>,
    /// `rfc6675` or `fack`.
    pub is_lost: Option<String>,
    /// RTO before the first RTT sample, also of SYN and SYN/ACK (spec 06 §2.1 profiles: 3 s or 1 s).
    pub rto_init: Option<TimeSpan>,
    /// Smallest RTO; 200 ms in every profile.
    pub rto_min: Option<TimeSpan>,
    /// Largest RTO, the cap of the backoff doubling; 120 s in every profile.
    pub rto_max: Option<TimeSpan>,
    /// `linux` or `rfc6298`.
    pub rto_formula: Option<String>,
    /// `per_segment`, `delayed`, `linux_quickack` or `linux_like` (spec 02 §2.6.2).
    pub ack_policy: Option<String>,
    /// Delayed-ACK timer: `fixed` or `adaptive`.
    pub delack: Option<String>,
    /// Fixed delayed-ACK timeout, default 40 ms.
    pub delack_timeout: Option<TimeSpan>,
    /// `block`, `cwr` or `cwr_gradual`.
    pub send_stall_policy: Option<String>,
    /// TCP small queues (spec 06 §2.8).
    pub tsq: Option<bool>,
    /// On ACKs in Disorder and on return to Open, cwnd ← min(cwnd, in_flight + 3) (spec 06 §2.4).
    pub burst_moderation: Option<bool>,
    /// `linux`, `rfc5681` or `off`.
    pub idle_restart: Option<String>,
    /// SACK (RFC 2018): offered on the SYN, used only if both ends offer it.
    pub sack: Option<bool>,
    /// Timestamps option: offered on the SYN, used only if both ends offer it.
    pub timestamps: Option<bool>,
    /// Window scaling: offered on the SYN, used only if both ends offer it.
    pub window_scale: Option<bool>,
    /// `cwnd` or `flightsize`.
    pub ssthresh_basis: Option<String>,
    /// Grow cwnd only on ACKs for which in_flight was at least ⌊cwnd⌋ before the ACK.
    pub cwnd_limited_growth: Option<bool>,
    /// With `ack_policy = "linux_quickack"`: an in-order data segment of at least 128 B that raises rcv_ssthresh is ACKed at once (Linux `tcp_grow_window`, `quick |= 1`), and a locked buffer's window opens from the era's initial window too. Default on for `linux-2.4` and `linux-2.6`, off for `linux-modern` (docs/profiles-from-source.md).
    pub quickack_on_window_growth: Option<bool>,
    /// adv_win_scale s (spec 06 §2.3).
    pub adv_win_scale: Option<i32>,
    /// `payload` or `pow2`.
    pub truesize_model: Option<String>,
    /// `linux_fraction` or `full_buffer`.
    pub rwnd_policy: Option<String>,
    /// `setsockopt` doubles the given buffer sizes as Linux does; `kernel` takes them as given.
    pub buffer_semantics: Option<String>,
    /// Where rate halving stops lowering cwnd: `half_ssthresh` (Linux 2.4.20,
    /// 2.6.12) or `cc` (2.6.20: the algorithm's `min_cwnd`).
    pub rate_halving_floor: Option<String>,
    /// Rounding of a scaled receive window to 2^wscale: `down` (Linux 2.4.20
    /// `tcp_select_window`) or `up` (2.6 and 6.x `__tcp_select_window`, which never
    /// scales a non-empty window away to zero).
    pub window_rounding: Option<String>,
    /// Dynamic right-sizing of an unlocked receive buffer: `off` (Linux 2.4),
    /// `linux2` (2.6 `tcp_rcv_space_adjust`) or `linux6` (6.x).
    pub rcv_autotune: Option<String>,
    /// Growth of an unlocked send buffer: `off`, `linux2` (2.x `tcp_new_space`)
    /// or `linux6` (6.x `tcp_sndbuf_expand`).
    pub snd_autotune: Option<String>,
    /// Where an unlocked receive buffer starts (Linux `tcp_rmem[1]`).
    pub rmem_default: Option<ByteSize>,
    /// The flow's `rcvbuf` when it gives none (Linux `tcp_rmem[2]`).
    pub rmem_max: Option<ByteSize>,
    /// Where an unlocked send buffer starts (Linux `tcp_wmem[1]`).
    pub wmem_default: Option<ByteSize>,
    /// The flow's `sndbuf` when it gives none (Linux `tcp_wmem[2]`).
    pub wmem_max: Option<ByteSize>,
    /// `rcvbuf` stays as given (Linux `SO_RCVBUF` sets `SOCK_RCVBUF_LOCK`);
    /// unlocked, it starts at `rmem_default` and autotuning grows it up to
    /// `rcvbuf`. Default: locked when the flow sets `rcvbuf`.
    pub rcvbuf_lock: Option<bool>,
    /// The same for `sndbuf` (`SOCK_SNDBUF_LOCK`), from `wmem_default`.
    pub sndbuf_lock: Option<bool>,
}

/// `[[monitor]]`: per-bin counters at the egress of one link direction.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MonitorSpec {
    /// `"a->b"`: the egress of node a toward node b.
    pub link: String,
    /// Bin width; at most 10^7 bins per run.
    pub bin: TimeSpan,
    /// Record the first N frames leaving this egress in `packets.parquet`
    /// (default 0: no capture).
    pub capture_packets: Option<u64>,
    /// Capture only frames from this time on (default 0), so that a long run
    /// can log a window of its frames (spec 05 §2.6 sequence log).
    pub capture_from: Option<TimeSpan>,
    /// Where frames are counted: `egress` (default: as they start onto the
    /// wire at a) or `ingress` (as they arrive at b, before b's queues; spec 01 §2.8).
    pub point: Option<String>,
}
