//! Parameters of the TCP-aware NIC (spec 03 §2.7.2–2.7.6 parameter tables).
//! The scenario layer validates user input; the asserts here catch programmer
//! errors only.

use std::str::FromStr;

use crate::engine::time::Span;

/// How the IPG loaded after each frame is chosen (spec 03 §2.7.6 `nic_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NicMode {
    /// The same gap after every frame of every stream: n = ceil(IPG time / tick).
    Fixed { ipg_bytes: u64 },
    /// Per stream, from its cwnd and srtt (the gap-packet rule of spec 01).
    Dynamic,
}

impl NicMode {
    pub fn name(self) -> &'static str {
        match self {
            NicMode::Fixed { .. } => "fixed",
            NicMode::Dynamic => "dynamic",
        }
    }
}

/// Where the RTT a host measures starts (spec 03 §2.7.6 `rtt_timestamp_point`,
/// open point 10). CHOICE changed: the default is `WireDeparture` (docs/choices.md
/// "rtt_timestamp_point default"); the spec's `TcpHandoff` stays selectable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RttPoint {
    /// TSval is the time TCP handed the segment to the NIC: the RTT includes
    /// the wait in the NIC.
    TcpHandoff,
    /// The NIC rewrites TSval to the moment the frame starts on the wire
    /// (default).
    WireDeparture,
}

impl RttPoint {
    pub const NAMES: &'static [&'static str] = &["tcp_handoff", "wire_departure"];
    pub fn as_str(self) -> &'static str {
        match self {
            RttPoint::TcpHandoff => "tcp_handoff",
            RttPoint::WireDeparture => "wire_departure",
        }
    }
}

impl FromStr for RttPoint {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "tcp_handoff" => Ok(RttPoint::TcpHandoff),
            "wire_departure" => Ok(RttPoint::WireDeparture),
            _ => Err("one of \"tcp_handoff\", \"wire_departure\"".to_string()),
        }
    }
}

/// Largest Ethernet frame the Send Buffer sizes its room in (1500-byte MTU + 18).
pub const FULL_FRAME_L2_BYTES: u64 = 1518;

/// The whole NIC configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TcpNicConfig {
    /// Y, the MAC's line rate, bit/s.
    pub line_rate_bps: u64,
    pub mode: NicMode,
    /// `nic_tick`: one decrement of the IPG counter (64 ns, §2.7.4).
    pub tick: Span,
    /// Width of the remaining-IPG field (23 bits, §2.7.4).
    pub remaining_bits: u32,
    /// Width of the wait counter (7 bits, §2.7.4 CHOICE).
    pub wait_bits: u32,
    /// `nic_max_streams`: CAM entries 1..=max_streams; entry 0 is shared (§2.7.2).
    pub max_streams: u32,
    /// `nic_send_buffer`, bytes (§2.7.3).
    pub send_buffer_bytes: u64,
    /// Per-packet header in the Send Buffer (next-packet pointer, §2.7.3).
    pub slot_header_bytes: u64,
    /// Fixed IPG of shared entry 0, bytes (§2.7.2 CHOICE).
    pub shared_ipg_bytes: u64,
    pub rtt_point: RttPoint,
}

impl TcpNicConfig {
    /// The spec 03 §2.7 defaults on a NIC of `line_rate_bps`.
    pub fn new(line_rate_bps: u64) -> TcpNicConfig {
        let cfg = TcpNicConfig {
            line_rate_bps,
            mode: NicMode::Dynamic,
            tick: Span::from_ns(64),
            remaining_bits: 23,
            wait_bits: 7,
            max_streams: 64,
            send_buffer_bytes: 128 << 20,
            slot_header_bytes: 8,
            shared_ipg_bytes: 8,
            rtt_point: RttPoint::WireDeparture,
        };
        cfg.validate();
        cfg
    }

    /// Programmer-error checks (the scenario layer reports user errors).
    pub fn validate(&self) {
        assert!(self.line_rate_bps > 0, "line rate must be positive");
        assert!(self.tick > Span::ZERO, "nic_tick must be positive");
        assert!((1..=8).contains(&self.wait_bits), "wait counter is held in a u8");
        assert!(self.remaining_bits >= 1 && self.remaining_bits + 2 + self.wait_bits <= 32, "counter fields exceed 32 bits");
        assert!(self.max_streams < u16::MAX as u32, "CAM entries are u16");
        assert!(self.send_buffer_bytes >= FULL_FRAME_L2_BYTES + self.slot_header_bytes, "send buffer must hold one full frame");
    }

    /// Largest value of the remaining-IPG field: 2^remaining_bits − 1.
    pub fn max_ipg_count(&self) -> u32 {
        ((1u64 << self.remaining_bits) - 1) as u32
    }

    /// Largest IPG: (2^23 − 1) × 64 ns ≈ 536.9 ms with the defaults (§2.7.4).
    pub fn max_ipg(&self) -> Span {
        self.tick.saturating_mul(self.max_ipg_count() as u64)
    }

    /// Saturation value of the wait counter: 2^wait_bits − 1 (127, §2.7.5 CHOICE).
    pub fn max_wait(&self) -> u8 {
        ((1u16 << self.wait_bits) - 1) as u8
    }

    /// Y in bytes per second.
    pub fn line_rate_bytes_per_s(&self) -> f64 {
        self.line_rate_bps as f64 / 8.0
    }
}
