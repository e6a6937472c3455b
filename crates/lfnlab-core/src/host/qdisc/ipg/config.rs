//! Parameters of the `ipg` qdisc (spec 01 §2.3 size limits, §2.5 classes,
//! §5 open points 1–3 sensitivity switches).

use std::str::FromStr;

use crate::net::packet::NodeId;

/// Where a class's rate comes from (spec 01 §2.2 `rate_source`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RateSource {
    /// Sum of equation (1) over the class's active TCP flows.
    TcpEstimate,
    /// The configured rate.
    Fixed,
    /// The smaller of both.
    Min,
}

/// Which size `packet_size` in equations (1)–(3) counts (spec 01 §2.2, §5 point 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeBasis {
    /// The payload MSS in equation (1), the rate applied to wire bytes (default):
    /// the paced wire rate is cwnd × MSS / RTT. Released PSPacer 2.2.1,
    /// `kernel/sch_psp.c` `estimate_target_rate` (`tp->snd_cwnd * tp->mss_cache`)
    /// with `update_clocks` advancing the class clock by `len + HW_GAP + FCS`.
    Mss,
    /// Frame + preamble/SFD + IPG (makes equation (2) exact).
    Wire,
    /// L2 frame bytes.
    Frame,
    /// IP length.
    Ip,
}

/// Which RTT equation (1) divides by (spec 01 §2.2, §5 point 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RttEstimator {
    /// srtt minus the class's smoothed sender-side queuing time (default).
    /// Released PSPacer 2.2.1, `kernel/sch_psp.c`: `estimate_target_rate`
    /// (`rtt = srtt − qtime`, a non-positive difference keeps the previous rate)
    /// and `psp_dequeue` (qtime ← qtime − qtime/16 + sample/16, the first sample
    /// taken as is).
    SrttMinusQtime,
    /// srtt as TCP has it, which counts the pacer's own backlog as path delay.
    Srtt,
    MinRtt,
    Latest,
}

/// What happens to a gap shorter than `gap_pkt_min` (spec 01 §5 point 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SmallGapPolicy {
    /// The shortfall is carried forward (default, §2.5 rule 6).
    Carry,
    /// The shortfall is forgotten.
    Skip,
}

macro_rules! parse_names {
    ($t:ty { $($text:literal => $v:expr),+ }) => {
        impl $t {
            pub const NAMES: &'static [&'static str] = &[$($text),+];
            pub fn as_str(self) -> &'static str {
                $(if self == $v { return $text; })+
                unreachable!()
            }
        }
        impl FromStr for $t {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                match s {
                    $($text => Ok($v),)+
                    _ => Err(format!("one of {}", Self::NAMES.iter().map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(", "))),
                }
            }
        }
    };
}

parse_names!(RateSource { "tcp_estimate" => RateSource::TcpEstimate, "fixed" => RateSource::Fixed, "min" => RateSource::Min });
parse_names!(SizeBasis { "mss" => SizeBasis::Mss, "wire" => SizeBasis::Wire, "frame" => SizeBasis::Frame, "ip" => SizeBasis::Ip });
parse_names!(RttEstimator { "srtt_minus_qtime" => RttEstimator::SrttMinusQtime, "srtt" => RttEstimator::Srtt, "min_rtt" => RttEstimator::MinRtt, "latest" => RttEstimator::Latest });
parse_names!(SmallGapPolicy { "carry" => SmallGapPolicy::Carry, "skip" => SmallGapPolicy::Skip });

/// One paced class (spec 01 §2.5). Class 0 is the default class.
#[derive(Clone, Debug, PartialEq)]
pub struct IpgClass {
    pub id: u32,
    /// Destinations classified into this class (the scenario's destination
    /// hosts stand for the paper's destination prefixes).
    pub dst: Vec<NodeId>,
    pub rate_source: RateSource,
    /// Configured rate for `fixed` and `min`, wire bytes per second.
    pub rate_bytes_per_s: Option<f64>,
}

/// The whole qdisc configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct IpgConfig {
    /// Real packets held in total (`txqueuelen`; gap frames never take a slot, §2.4).
    pub limit_packets: u64,
    /// NIC line rate, bit/s; `max_rate` = line_rate / 8 wire bytes per second.
    pub line_rate_bps: u64,
    /// The NIC's hardware IPG, bytes (wire = L2 + 8 + ipg).
    pub ipg_bytes: u32,
    pub gap_pkt_max_bytes: u64,
    pub gap_total_max_bytes: u64,
    pub gap_pkt_min_bytes: u64,
    /// Test mode: this many gap bytes after every real packet, estimator bypassed.
    pub fixed_gap_bytes: Option<u64>,
    pub size_basis: SizeBasis,
    pub rtt_estimator: RttEstimator,
    pub small_gap_policy: SmallGapPolicy,
    /// Classes in id order; the first is class 0 (unmatched traffic).
    pub classes: Vec<IpgClass>,
}

impl IpgConfig {
    /// `max_rate` of §2.1: the line rate in wire bytes per second.
    pub fn max_rate_bytes_per_s(&self) -> f64 {
        self.line_rate_bps as f64 / 8.0
    }
}
