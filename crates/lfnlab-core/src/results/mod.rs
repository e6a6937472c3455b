//! Results of a run (spec 00 §2.4).
#[cfg(feature = "files")]
pub mod arrow;
pub mod summary;
pub mod table;
#[cfg(feature = "files")]
pub mod write;

use summary::Summary;
use table::Table;

/// Everything a run produces (spec 00 §2.4), before it is written anywhere.
#[derive(Clone, Debug)]
pub struct RunOutput {
    pub summary: Summary,
    /// Per flow and monitor bin: `flows.parquet`.
    pub flows: Table,
    /// Per TCP connection: the Web100-like trace, `tcp.parquet`.
    pub tcp: Table,
    /// Per monitored queue and bin: `queues.parquet`.
    pub queues: Table,
    /// Captured frames (`[[monitor]] capture_packets`): `packets.parquet`.
    pub packets: Table,
    /// Per host and second: DMA and memory-bandwidth counters (spec 01 §2.6): `hosts.parquet`.
    pub hosts: Table,
    /// Per sending host and base-RTT window: X, busy Δt and Z (spec 03 §2.1): `busy.parquet`.
    pub busy: Table,
    /// Web object downloads (spec 02 §3.2), `objects.parquet`.
    pub objects: Table,
    /// The scenario exactly as run, every default filled in.
    pub scenario_toml: String,
    /// pcap files of the `[[capture]]`s: (file name, bytes), in scenario order.
    pub pcaps: Vec<(String, Vec<u8>)>,
}
