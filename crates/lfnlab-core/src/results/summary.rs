//! `summary.json` (spec 00 §2.4).

use serde::Serialize;

use crate::host::qdisc::tcp_nic::StreamTotals;

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Summary {
    pub scenario: String,
    pub seed: u64,
    pub duration_s: f64,
    /// Wall-clock seconds of the run: the one field that differs between two runs.
    pub wall_seconds: f64,
    pub events_executed: u64,
    /// TCP segments carrying payload and UDP datagrams emitted by hosts (benchmark unit).
    pub data_packets: u64,
    /// FNV-1a hash over every executed event (time, kind, target), hex (spec 06 §7 V6).
    pub event_hash: String,
    pub flows: Vec<FlowSummary>,
    pub queues: Vec<QueueSummary>,
    /// Per host: DMA and memory-bandwidth counters over the run (spec 01 §2.6).
    pub hosts: Vec<HostSummary>,
    /// Per host with a TCP-aware NIC: its streams (spec 03 §2.7.5).
    pub nics: Vec<NicSummary>,
    /// Per host with the spec 04 NIC pipeline: FIFOs, rings, bus, PAUSE sent, rate cap.
    pub host_nics: Vec<HostNicSummary>,
    /// Per port that honours PAUSE (spec 04 §2.5): PAUSE received and time paused.
    /// Random loss per link direction (`circuit_loss`, spec 04 §2.13).
    pub link_losses: Vec<LinkLossSummary>,
    /// Frames held back by a link's reordering (spec 04 §2.12).
    pub reordered_frames: u64,
    pub host_cpus: Vec<HostCpuSummary>,
    pub pause_ports: Vec<PausePortSummary>,
    /// Per ingress port of a switch or router that generates PAUSE (spec 04 §2.5).
    pub switch_pause: Vec<SwitchPauseSummary>,
    /// Per Ethernet switch: its model and counters (spec 05).
    pub switches: Vec<SwitchSummary>,
    /// Per interface with the Quick-Start function: its counters (spec 02 §2.5.7).
    pub quickstart_interfaces: Vec<QsInterfaceSummary>,
    /// Frames a routing hop dropped because their IP TTL ran out.
    pub ttl_drops: u64,
    /// End-of-run conservation check (spec 06 §7 V5).
    pub conservation: ConservationSummary,
    /// Per `[[capture]]`: its pcap file and counts; left out when there is none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub captures: Vec<CaptureSummary>,
    /// Present only when a resource limit stopped the run (`sim::limits`): the
    /// results cover `duration_s` of simulated time, not the scenario's duration.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partial: Option<PartialSummary>,
}

/// A run stopped by a resource limit (`[sim] max_events`, `wall_timeout`, `max_memory`).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PartialSummary {
    /// The limit reached.
    pub limit: String,
    /// What was reached.
    pub reason: String,
    /// Simulated time of the last event executed.
    pub stopped_at_s: f64,
}

/// One `[[capture]]` (docs/pcap.md).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct CaptureSummary {
    pub name: String,
    /// The file in the result directory.
    pub file: String,
    /// Frames in the file.
    pub frames: u64,
    /// Of which 802.3x PAUSE frames (spec 04 §2.5 and spec 01 §2.3 gap frames).
    pub pause_frames: u64,
    /// Frames in the window not kept because `max_frames` was reached.
    pub missed: u64,
}

#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct FlowSummary {
    pub name: String,
    pub kind: String,
    /// Goodput: application bytes delivered / (duration − start), bit/s.
    pub goodput_bps: f64,
    pub bytes_delivered: u64,
    pub retransmitted_segments: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    /// SYN and SYN-ACK retransmissions of the flow's connections, both ends
    /// (spec 06 §2.2 step 4); not in `retransmitted_segments`, which counts data.
    pub syn_retransmits: u64,
    /// Tail loss probes the data sender sent (RFC 8985 §7; Linux `TCPLossProbes`).
    pub tlp_probes: u64,
    /// Of those, probes that repaired a loss (Linux `TCPLossProbeRecovery`).
    pub tlp_recoveries: u64,
    /// Retransmissions RACK found lost again, without waiting for the RTO
    /// (RFC 8985 §6.2; Linux `TCPLostRetransmit`).
    pub lost_retransmits: u64,
    /// Data segments the receiving socket discarded for lack of receive
    /// buffer (spec 06 §3 rule 4; DropCause `rcvbuf`): the network delivered
    /// them, so they are in `conservation.frames_delivered`, and the sender
    /// recovers them as losses.
    pub rcvbuf_drops: u64,
    /// Time the last byte of a finite transfer was delivered, s (null if unfinished).
    pub completion_s: Option<f64>,
    /// Clustered Packet Spacing (spec 03 §2.5), for flows that use it.
    pub cps: Option<CpsSummary>,
    /// `request_response`: time from the client's SYN to the last response
    /// byte delivered to the client, s (spec 02 §3.1; null if unfinished).
    pub response_time_s: Option<f64>,
    /// Quick-Start of the data sender (spec 02 §2.3), for flows that use it.
    pub quickstart: Option<QsFlowSummary>,
    /// `web` flows: the workload (spec 02 §3.2).
    pub web: Option<WebSummary>,
    /// `tcp_bulk` and `request_response`: the data sender's time under each
    /// sending limit, s (`host::tcp::snd_limits::LimDetail`; Linux's
    /// `tcp_chrono` split, `tcpi_busy_time`, `tcpi_rwnd_limited`,
    /// `tcpi_sndbuf_limited`), from establishment to the end of the run.
    pub limited_s: Option<LimitedSummary>,
    /// When the data sender's initial slow start ended, s, and its cwnd then,
    /// segments (null: it never did, or the algorithm has its own `cong_control`).
    pub slow_start_exit_s: Option<f64>,
    pub slow_start_exit_cwnd: Option<f64>,
    /// The smallest RTT the data sender measured, s.
    pub min_rtt_s: Option<f64>,
    /// The data's route and its bottleneck (null for `web` and `udp_cbr`).
    pub path: Option<PathSummary>,
}

/// A flow's time under each sending limit, s (issue 40 `lfnlab explain`).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct LimitedSummary {
    /// cwnd-limited, by phase: initial or later slow start, recovery (Recovery,
    /// Loss after an RTO, CWR), congestion avoidance.
    pub slow_start: f64,
    pub recovery: f64,
    pub congestion_avoidance: f64,
    /// The peer's advertised window.
    pub rwnd: f64,
    /// The application waits for room in a full send buffer.
    pub sndbuf: f64,
    /// The application has nothing to write (or the transfer is over).
    pub application: f64,
    /// Pacing holds the next segment.
    pub pacing: f64,
    /// The host's queue or TSQ holds it (spec 06 §2.8).
    pub stall: f64,
}

/// The route of a flow's data, from the routing table (`sim::path`).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct PathSummary {
    /// Egress ports in order (queue names as in `queues`).
    pub hops: Vec<String>,
    /// The first slowest of them and its rate, bit/s.
    pub bottleneck: String,
    pub bottleneck_bps: u64,
    /// Goodput ceiling at the bottleneck with full-size segments:
    /// rate · MSS / wire bytes of a full data frame (spec 06 §1.2).
    pub wire_bound_bps: f64,
    /// Propagation delay of the data's route plus the ACKs' route back, s.
    pub base_rtt_s: f64,
    /// The sender's MSS, bytes.
    pub mss_bytes: u32,
}

/// A Web workload over the run (spec 02 §3.2); per-object records are in `objects.parquet`.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct WebSummary {
    pub users: u32,
    pub http: String,
    pub web_model: String,
    /// Objects completed and connections opened.
    pub objects: u64,
    pub connections: u64,
    /// Mean object download time over all completed objects, s (no warm-up removed).
    pub mean_download_s: Option<f64>,
    /// Quick-Start over all connections: requests, full and reduced approvals
    /// (valid echoes), refusals (no valid approval).
    pub qs_requests: u64,
    pub qs_approved_full: u64,
    pub qs_approved_reduced: u64,
    pub qs_refused: u64,
    /// Mean of the approved rates Rate(N_app) over those approvals, bit/s (null without
    /// an approval; spec 02 §4.5 "mean approved rate").
    pub qs_approved_mean_bps: Option<f64>,
    /// The largest approved rate over those approvals, bit/s (null without an approval).
    pub qs_approved_max_bps: Option<u64>,
    /// The realized catalogue (spec 02 §3.2.3: printed for every run).
    pub files: u32,
    pub catalogue_objects: u32,
    pub mean_file_bytes: f64,
    pub median_file_bytes: f64,
    pub mean_object_bytes: f64,
    pub median_object_bytes: f64,
}

/// A connection's Quick-Start sender and receiver (spec 02 §2.3–2.4).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct QsFlowSummary {
    /// State at the end of the run (`idle`, `req_sent`, …, `done`, `disabled`).
    pub state: String,
    pub requests: u64,
    /// Valid echoes with rate ≥ 1.
    pub approvals: u64,
    pub nonce_failures: u64,
    pub not_useful: u64,
    pub reports_sent: u64,
    /// Rate codes of the last request and its valid echo (0 = none).
    pub requested_code: u8,
    pub approved_code: u8,
    /// W_qs and segments sent in QS mode of the last episode.
    pub w_qs: u32,
    pub qs_pkts_sent: u32,
    /// How the last request ended (null while outstanding).
    pub outcome: Option<String>,
    /// When the last QS mode started, s.
    pub qs_start_s: Option<f64>,
    /// Responses the other end echoed, and dropped for lack of option space.
    pub echoed: u64,
    pub echo_no_space: u64,
}

/// One Quick-Start interface (spec 02 §2.5.7).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct QsInterfaceSummary {
    /// The egress, named as its queue (`"a->b"` or `"a:ifq"`).
    pub name: String,
    #[serde(flatten)]
    pub counters: crate::quickstart::router::RouterCounters,
    /// The processing stage (spec 02 §2.5.7): zeros without a cost vector.
    #[serde(flatten)]
    pub proc: crate::net::proc_stage::ProcStats,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct CpsSummary {
    /// When spacing ended and normal TCP took over, s (null if it never ended).
    pub handover_s: Option<f64>,
    /// Rounds sent with spacing.
    pub spaced_rounds: u32,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct QueueSummary {
    /// `"a->b"` for a link egress, `"a:ifq"` for a host interface queue.
    pub name: String,
    pub enqueued: u64,
    pub dropped: u64,
    /// Drops by cause, e.g. `{"tail": 12}`.
    pub drops_by_cause: std::collections::BTreeMap<String, u64>,
    pub max_bytes: u64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct HostSummary {
    pub name: String,
    /// DMA, copy and frame counts over the run (spec 01 §2.6).
    #[serde(flatten)]
    pub io: IoCounters,
    /// Memory bandwidth left to an application, mean over the run, bytes/s.
    pub mem_app_bytes_per_s: f64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ConservationSummary {
    pub frames_emitted: u64,
    pub frames_delivered: u64,
    pub frames_dropped: u64,
    pub frames_queued_at_end: u64,
    pub frames_on_links_at_end: u64,
    /// In a processing stage ahead of a queue (spec 02 §2.5.7).
    pub frames_processing_at_end: u64,
    /// Most frames in the network at once over the run (queued, processing or on links).
    pub frames_in_network_max: u64,
    pub bytes_emitted: u64,
    pub bytes_delivered: u64,
    pub bytes_dropped: u64,
    pub bytes_queued_at_end: u64,
    pub bytes_on_links_at_end: u64,
    pub bytes_processing_at_end: u64,
    /// `frames_dropped` by cause (`net::drop::DropCause` names, e.g.
    /// `{"tail": 12, "link_loss": 3}`), read from the same books; a cause
    /// with no drop is left out.
    pub drops_by_cause: std::collections::BTreeMap<String, u64>,
    pub holds: bool,
}

/// A host's spec 04 NIC pipeline over the run (§2.13 drops and PAUSE meters).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct HostNicSummary {
    pub host: String,
    pub rx_frames: u64,
    /// Frames dropped at the RX FIFO for lack of room (`rx_fifo_drop`).
    pub rx_fifo_drop: u64,
    pub rx_fifo_max_bytes: u64,
    pub rx_ring_max: u32,
    pub tx_frames: u64,
    pub tx_ring_max: u32,
    pub tx_fifo_max_bytes: u64,
    /// Bus busy time / run length (null with `bus.model = "none"`).
    pub bus_busy_fraction: Option<f64>,
    /// PAUSE frames sent with pause_time > 0 (XOFF and refreshes) and PAUSE(0).
    pub pause_xoff_sent: u64,
    pub pause_xon_sent: u64,
    /// The rate cap the MAC applied, bit/s of wire bytes (null: none), and
    /// whether the request was raised to `tx_rate_cap_min`.
    pub tx_rate_cap_bps: Option<u64>,
    pub tx_rate_cap_clamped: bool,
}

/// Random loss on one link direction over the run.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct LinkLossSummary {
    pub link: String,
    pub dropped: u64,
    /// Gilbert–Elliott: time in Bad, s, and every change of state as (t s, entered Bad).
    pub bad_s: Option<f64>,
    pub transitions: Vec<(f64, bool)>,
}

/// A host CPU (spec 04 §2.7, §2.13): counters and per-core time by category.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct HostCpuSummary {
    pub host: String,
    pub freq_ghz: f64,
    /// Width of the per-core bins, s.
    pub bin_s: f64,
    pub interrupts: u64,
    /// NAPI polls (each up to 64 frames).
    pub polls: u64,
    /// Received frames processed, TX completions cleaned, packets built.
    pub rx_frames: u64,
    pub tx_cleaned: u64,
    pub packets_built: u64,
    /// Application write() and read() calls and the payload bytes they moved.
    pub writes: u64,
    pub reads: u64,
    pub bytes_written: u64,
    pub bytes_read: u64,
    pub cores: Vec<CoreSummary>,
}

/// One core: fractions of the run by category, and busy seconds per bin.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct CoreSummary {
    pub core: u32,
    pub user: f64,
    pub system: f64,
    pub softirq: f64,
    pub idle: f64,
    /// Work items served.
    pub items: u64,
    pub bins_user_s: Vec<f64>,
    pub bins_system_s: Vec<f64>,
    pub bins_softirq_s: Vec<f64>,
}

/// A port that honours PAUSE.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PausePortSummary {
    pub name: String,
    pub pause_received: u64,
    pub pause_zero_received: u64,
    /// Time the port was paused, s (union of the pauses in effect).
    pub paused_s: f64,
}

/// One ingress port of a switch or router that generates PAUSE, named by
/// the egress port that sends it back toward the peer.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SwitchPauseSummary {
    pub name: String,
    pub pause_xoff_sent: u64,
    pub pause_xon_sent: u64,
    /// Largest count of bytes held that entered through this port (L2).
    pub held_max_bytes: u64,
}

/// An Ethernet switch (spec 05 §2.2): its configuration and counters.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SwitchSummary {
    pub name: String,
    /// The named configuration it started from.
    pub config: String,
    /// δ_sw used (spec 05 §2.4).
    pub clock_ppm: f64,
    /// Per linked port, named by its egress (`sw->peer`).
    pub ports: Vec<SwitchPortSummary>,
    /// Highest use of the packet memory (M1, M4) or input memory (M2, M3), bytes.
    pub memory_max_bytes: u64,
    /// M2/M3: highest output-buffer fill, bytes.
    pub output_buffer_max_bytes: u64,
    /// M2/M3: fabric slots run and cells crossed.
    pub fabric_slots: u64,
    pub fabric_cells: u64,
    /// Frames refused by admission, per flow that lost any.
    pub dropped_by_flow: std::collections::BTreeMap<String, u64>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SwitchPortSummary {
    pub name: String,
    /// Frames received on this port.
    pub received: u64,
    /// Frames received on this port and refused (drop-tail admission).
    pub dropped: u64,
    /// Frames sent on this port.
    pub sent: u64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct NicSummary {
    pub host: String,
    /// Enqueues refused because the Send Buffer ring was full (spec 03 open point 12).
    pub ring_blocks: u64,
    /// Packets that went through shared entry 0 (non-TCP traffic, CAM overflow).
    pub shared_packets: u64,
    pub streams: Vec<NicStreamSummary>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct NicStreamSummary {
    /// CAM entry; 0 is the shared entry.
    pub entry: u32,
    /// The flow, null for the shared entry.
    pub flow: Option<String>,
    /// Frames, L2 bytes, arbitrations won and lost (while Ready), the longest
    /// Ready-to-send wait in s (the starvation metric) and the last IPG count.
    #[serde(flatten)]
    pub totals: StreamTotals,
}

/// Counts of one host over an interval.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct IoCounters {
    /// L2 bytes of real frames fetched by DMA.
    pub dma_real_bytes: u64,
    /// L2 bytes of gap frames fetched by DMA.
    pub dma_gap_bytes: u64,
    /// Payload bytes the application copied into socket buffers.
    pub copy_bytes: u64,
    pub frames: u64,
    pub gap_frames: u64,
    /// Line time taken by gap frames, wire bytes (preamble and IPG included).
    pub gap_wire_bytes: u64,
}
