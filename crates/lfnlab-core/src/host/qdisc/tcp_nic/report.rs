//! What the TCP-aware NIC reports at the end of a run (spec 03 §2.7.5
//! starvation metric, S2 arbitration counts, open point 12 ring blocks).

/// One CAM entry: which connection it holds, and its totals.
#[derive(Clone, Debug, serde::Serialize, PartialEq)]
pub struct StreamReport {
    /// CAM entry; 0 is the shared entry.
    pub entry: u32,
    /// Flow of the stream; `u32::MAX` for the shared entry.
    pub flow: u32,
    pub dir: u8,
    #[serde(flatten)]
    pub totals: StreamTotals,
}

/// A stream's totals over the run (also written per stream in `summary.json` `nics`).
#[derive(Clone, Copy, Debug, serde::Serialize, PartialEq)]
pub struct StreamTotals {
    pub frames: u64,
    /// L2 frame bytes sent.
    pub bytes: u64,
    /// Arbitrations won.
    pub won: u64,
    /// Arbitrations lost while Ready.
    pub lost: u64,
    /// Longest time from becoming Ready to starting transmission, seconds.
    pub max_ready_wait_s: f64,
    /// IPG count n loaded after the stream's last frame.
    pub last_ipg_count: u32,
}

#[derive(Clone, Debug, serde::Serialize, PartialEq)]
pub struct TcpNicReport {
    /// Enqueues refused because the Send Buffer ring was full (open point 12).
    pub ring_blocks: u64,
    /// Packets queued in shared entry 0 (non-TCP traffic and CAM overflow).
    pub shared_packets: u64,
    /// Entries in id order; entry 0 only if it carried traffic.
    pub streams: Vec<StreamReport>,
}
