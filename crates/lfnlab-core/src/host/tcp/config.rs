//! Typed TCP configuration (spec 06 §2.1 profile table). Built from a fully
//! resolved `TcpParams`; every enumerated knob parses with `FromStr`.

use std::str::FromStr;

use crate::engine::time::Span;

/// Defines a string-named enum with `FromStr`, `as_str` and the list of names.
macro_rules! named_enum {
    ($(#[$m:meta])* $name:ident { $($variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum $name { $($variant),+ }
        impl $name {
            pub const NAMES: &'static [&'static str] = &[$($text),+];
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }
        }
        impl FromStr for $name {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                match s {
                    $($text => Ok($name::$variant),)+
                    _ => Err(format!("one of {}", Self::NAMES.iter().map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(", "))),
                }
            }
        }
    };
}

named_enum!(
    /// Recovery cwnd rule (spec 06 §2.5 table). `prr` is RFC 6937 as the spec's
    /// table gives it (RecoverFS = pipe at entry); `prr_linux` is PRR as Linux
    /// 6.8 `tcp_cwnd_reduction` has it (RecoverFS = `prior_cwnd`, the "+1" only
    /// when snd_una advanced and nothing was newly lost, cwnd unchanged by an
    /// ACK that delivers nothing): issue 38 item 1, docs/profiles-from-source.md.
    RecoveryCwnd { Rfc => "rfc", RateHalving => "rate_halving", Prr => "prr", PrrLinux => "prr_linux" }
);
named_enum!(
    /// IsLost rule (spec 06 §2.5).
    IsLost { Rfc6675 => "rfc6675", Fack => "fack" }
);
named_enum!(
    /// How a SACK sender finds lost segments (issue 38 item 3): by counting
    /// (`dupthresh`, with the `is_lost` rule of spec 06 §2.5) or by time
    /// (`rack`, RFC 8985 as Linux 6.x `tcp_recovery.c`, which also finds lost
    /// retransmissions). Without SACK both mark as NewReno does.
    LossDetection { Dupthresh => "dupthresh", Rack => "rack" }
);
named_enum!(
    /// How a `dupthresh` SACK sender finds a lost retransmission (issue 38
    /// item 1): `sacktag`, in Recovery once SACKs reach beyond what had been
    /// sent when it was retransmitted (Linux 2.4.20 – 4.3
    /// `tcp_sacktag_write_queue` / `tcp_mark_lost_retrans`,
    /// `host::tcp::lost_retrans`), or `rto`, only by the RTO (spec 06 §2.5's
    /// CHOICE). RACK finds them by time and ignores this.
    LostRetrans { Sacktag => "sacktag", Rto => "rto" }
);
named_enum!(
    /// RTO formula (spec 06 §2.6).
    RtoFormula { Linux => "linux", Rfc6298 => "rfc6298" }
);
named_enum!(
    /// Receiver ACK policy (spec 06 §3).
    AckPolicy { PerSegment => "per_segment", Delayed => "delayed", LinuxQuickack => "linux_quickack", LinuxLike => "linux_like" }
);
named_enum!(
    /// Delayed-ACK timer (spec 06 §3).
    Delack { Fixed => "fixed", Adaptive => "adaptive" }
);
named_enum!(
    /// Send-stall policy at a full IFQ (spec 06 §2.8).
    SendStallPolicy { Block => "block", Cwr => "cwr", CwrGradual => "cwr_gradual" }
);
named_enum!(
    /// Idle restart rule (spec 06 §2.7).
    IdleRestart { Linux => "linux", Rfc5681 => "rfc5681", Off => "off" }
);
named_enum!(
    /// Basis of the Reno ssthresh (spec 06 §2.1).
    SsthreshBasis { Cwnd => "cwnd", FlightSize => "flightsize" }
);
named_enum!(
    /// Charge per held segment at the receiver (spec 06 §2.3).
    TruesizeModel { Payload => "payload", Pow2 => "pow2" }
);
named_enum!(
    /// Where rate halving (and gradual CWR) stops lowering cwnd: ssthresh/2
    /// (Linux 2.4.20, 2.6.12 `tcp_cwnd_down`) or the algorithm's `min_cwnd`
    /// (2.6.20 `tcp_cwnd_min`: ssthresh/2 for Reno-type, ssthresh for bic/cubic).
    RateHalvingFloor { HalfSsthresh => "half_ssthresh", Cc => "cc" }
);
named_enum!(
    /// How a scaled receive window is rounded to the window-scale unit 2^wscale:
    /// `down` (Linux 2.4.20 net/ipv4/tcp_output.c `tcp_select_window`: `new_win >>=
    /// rcv_wscale` drops the remainder) or `up` (2.6.12.1 :876 and 2.6.20 :1588
    /// `__tcp_select_window`, "Advertise enough space so that it won't get scaled away.
    /// Import case: prevent zero window announcement if 1<<rcv_wscale > mss"; 6.8 :3116
    /// `ALIGN(window, 1 << rcv_wscale)`), where a free space under one MSS and under half
    /// the full space advertises 0.
    WindowRounding { Down => "down", Up => "up" }
);
named_enum!(
    /// Receive-buffer dynamic right-sizing of an unlocked buffer (`host::tcp::autotune`):
    /// none (Linux 2.4.20), 2.6's or 6.x's `tcp_rcv_space_adjust`.
    RcvAutotune { Off => "off", Linux2 => "linux2", Linux6 => "linux6" }
);
named_enum!(
    /// Send-buffer growth of an unlocked buffer (`host::tcp::autotune`):
    /// none, 2.x `tcp_new_space` or 6.x `tcp_sndbuf_expand`.
    SndAutotune { Off => "off", Linux2 => "linux2", Linux6 => "linux6" }
);
named_enum!(
    /// Advertised-window policy (spec 06 §2.3).
    RwndPolicy { LinuxFraction => "linux_fraction", FullBuffer => "full_buffer" }
);
named_enum!(
    /// How socket buffer sizes are read (spec 06 §2.3).
    BufferSemantics { Kernel => "kernel", Setsockopt => "setsockopt" }
);
named_enum!(
    /// Slow start while cwnd ≤ ssthresh (`le`) or cwnd < ssthresh (`lt`) (spec 06 §2.1).
    SlowStartWhile { Le => "le", Lt => "lt" }
);
named_enum!(
    /// The segments an ACK credits to slow start and congestion avoidance (spec 06 §2.1
    /// `acked`, §2.4): the cumulative advance, or what the ACK newly delivered.
    CwndCredit { Acked => "acked", Delivered => "delivered" }
);
named_enum!(
    /// When a retransmitted SYN or SYN-ACK starts the transfer at cwnd 1 instead
    /// of the initial window (spec 06 §2.2 step 4): after any handshake timeout
    /// (`rfc5681`, RFC 5681 §3.1), or as Linux 6.x `tcp_init_transfer` decides
    /// (`linux`): after more than one SYN / SYN-ACK retransmission, unless the
    /// answer shows the timeout was spurious.
    SynLossIw { Rfc5681 => "rfc5681", Linux => "linux" }
);

/// Initial window rule (spec 06 §2.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InitialWindow {
    Rfc3390,
    Rfc6928,
    Fixed(u32),
}

impl FromStr for InitialWindow {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "rfc3390" => Ok(InitialWindow::Rfc3390),
            "rfc6928" => Ok(InitialWindow::Rfc6928),
            _ => match s.parse::<u32>() {
                Ok(n) if n >= 1 => Ok(InitialWindow::Fixed(n)),
                _ => Err("\"rfc3390\", \"rfc6928\" or a whole number of segments ≥ 1 as a string, e.g. \"10\"".into()),
            },
        }
    }
}

impl InitialWindow {
    pub fn as_string(self) -> String {
        match self {
            InitialWindow::Rfc3390 => "rfc3390".into(),
            InitialWindow::Rfc6928 => "rfc6928".into(),
            InitialWindow::Fixed(n) => n.to_string(),
        }
    }

    /// Initial window in segments for an effective MSS (spec 06 §2.4 table).
    pub fn segments(self, mss_bytes: u32) -> u32 {
        let mss = mss_bytes as u64;
        match self {
            // ⌊min(4·MSS, max(2·MSS, 4380 B))/MSS⌋
            InitialWindow::Rfc3390 => ((4 * mss).min((2 * mss).max(4380)) / mss) as u32,
            // ⌊min(10·MSS, max(2·MSS, 14600 B))/MSS⌋
            InitialWindow::Rfc6928 => ((10 * mss).min((2 * mss).max(14600)) / mss) as u32,
            InitialWindow::Fixed(n) => n,
        }
    }
}

named_enum!(
    /// Scenario `pacing.kind` (spec 06 §4.3, §5.3).
    PacingKind { Off => "off", Internal => "internal", Fq => "fq", GapPackets => "gap_packets", Cps => "cps", TcpNic => "tcp_nic" }
);
named_enum!(
    /// Scenario `pacing.mode` with `kind = "fq"` (spec 06 §5.3): TCP stamps
    /// departure times (`edt`) or the qdisc computes them from the rate (`fq`).
    FqMode { Edt => "edt", Fq => "fq" }
);

/// Who enforces the pacing rate of spec 06 §4.3.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pacing {
    Off,
    /// TCP holds each data segment until its departure time.
    Internal,
    /// TCP stamps departure times; the fq qdisc holds packets until then.
    Edt,
    /// The fq qdisc paces each flow from its pacing rate.
    QdiscRate,
}

/// Everything a TCP endpoint needs to know, fully resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    pub iw: InitialWindow,
    pub syn_loss_iw: SynLossIw,
    /// ABC limit L in segments; `u32::MAX` = ∞.
    pub abc_l: u32,
    pub cwnd_credit: CwndCredit,
    pub slow_start_while: SlowStartWhile,
    pub recovery_cwnd: RecoveryCwnd,
    pub rate_halving_floor: RateHalvingFloor,
    /// Rounding of a scaled receive window (`WindowRounding`).
    pub window_rounding: WindowRounding,
    pub is_lost: IsLost,
    pub loss_detection: LossDetection,
    pub lost_retrans: LostRetrans,
    /// Tail loss probes (RFC 8985 §7, Linux `tcp_schedule_loss_probe`).
    pub tlp: bool,
    pub rto_init: Span,
    pub rto_min: Span,
    pub rto_max: Span,
    pub rto_formula: RtoFormula,
    pub ack_policy: AckPolicy,
    pub delack: Delack,
    pub delack_timeout: Span,
    pub send_stall_policy: SendStallPolicy,
    pub tsq: bool,
    pub burst_moderation: bool,
    pub idle_restart: IdleRestart,
    pub sack: bool,
    pub timestamps: bool,
    pub window_scale: bool,
    pub ssthresh_basis: SsthreshBasis,
    pub cwnd_limited_growth: bool,
    /// With `linux_quickack`: an in-order data segment of at least 128 B that raises
    /// rcv_ssthresh sets one quick ACK (Linux `tcp_grow_window`, `quick |= 1`); the
    /// receive window then grows from the era's initial window for a locked buffer too.
    pub quickack_on_window_growth: bool,
    pub adv_win_scale: i32,
    pub truesize_model: TruesizeModel,
    pub rwnd_policy: RwndPolicy,
    /// Charged-memory limit of the send buffer, bytes (after `buffer_semantics`).
    pub sndbuf_bytes: u64,
    /// Charged-memory limit of the receive buffer, bytes (after `buffer_semantics`);
    /// unlocked, the most autotuning may grow it to.
    pub rcvbuf_bytes: u64,
    /// The buffers are fixed (set by the scenario, as `setsockopt` sets them).
    pub rcvbuf_lock: bool,
    pub sndbuf_lock: bool,
    /// Autotuning of unlocked buffers (`host::tcp::autotune`).
    pub rcv_autotune: RcvAutotune,
    pub snd_autotune: SndAutotune,
    /// Where unlocked buffers start (Linux `tcp_rmem[1]`, `tcp_wmem[1]`), bytes.
    pub rmem_default_bytes: u64,
    pub wmem_default_bytes: u64,
    pub pacing: Pacing,
    /// `pacing.max_rate` in bytes/s; ∞ when unset.
    pub max_pacing_rate_bytes_per_s: f64,
    /// Clustered Packet Spacing timer T (spec 03 §2.5); None = off.
    pub cps_tick: Option<Span>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initial_window_vectors() {
        // spec 06 §7 unit vectors.
        for (mss, iw) in [(1095, 4), (1448, 3), (1460, 3), (1461, 2), (8948, 2)] {
            assert_eq!(InitialWindow::Rfc3390.segments(mss), iw, "rfc3390 mss {mss}");
        }
        assert_eq!(InitialWindow::Rfc6928.segments(1448), 10);
        assert_eq!(InitialWindow::Rfc6928.segments(8948), 2);
    }

    #[test]
    fn names_round_trip() {
        for n in AckPolicy::NAMES {
            assert_eq!(n.parse::<AckPolicy>().unwrap().as_str(), *n);
        }
        assert!("bogus".parse::<RecoveryCwnd>().unwrap_err().contains("\"prr\""));
    }
}
