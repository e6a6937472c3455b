//! Congestion control: policy behind one trait (spec 06 §4.1, STYLE point 3).
//! The TCP socket owns the mechanism (sequence space, SACK, recovery, timers)
//! and the §2.1 bounds; an algorithm owns cwnd growth and the ssthresh choice.
//!
//! Every algorithm lives in its own module and registers one [`Algorithm`]
//! entry in [`ALGORITHMS`]: its name, its declared parameters, their defaults
//! and a constructor.

pub mod bbr;
pub mod bic;
pub mod cubic;
pub mod fast;
pub mod highspeed;
pub mod hystart;
pub mod params;
pub mod registry;
pub mod reno;
pub mod scalable;
pub mod vegas;

pub use params::{CcParams, ParamDef, ParamError, ParamKind, ParamValue};
pub use registry::{ALGORITHMS, Algorithm, SPEC_NAMES, available, create, find, resolve_params};

use crate::engine::time::{SimTime, Span};

/// Congestion-avoidance state of the socket (spec 06 §2.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaState {
    Open,
    Disorder,
    Cwr,
    Recovery,
    Loss,
}

impl CaState {
    pub fn name(self) -> &'static str {
        match self {
            CaState::Open => "open",
            CaState::Disorder => "disorder",
            CaState::Cwr => "cwr",
            CaState::Recovery => "recovery",
            CaState::Loss => "loss",
        }
    }
}

/// Read-only context for every hook (spec 06 §4.1).
#[derive(Clone, Copy, Debug)]
pub struct CcContext {
    pub now: SimTime,
    pub mss_bytes: u32,
    pub srtt: Option<Span>,
    pub rttvar: Span,
    pub min_rtt: Option<Span>,
    pub latest_rtt: Option<Span>,
    /// Segments in flight (RFC 6675 pipe).
    pub in_flight: u64,
    /// Segments sent and not cumulatively acknowledged.
    pub packets_out: u64,
    /// FlightSize = snd_max − snd_una, in segments.
    pub flight_size: u64,
    /// Segments delivered (ACKed or SACKed the first time), spec 06 §4.2.
    pub delivered: u64,
    pub ca_state: CaState,
    pub app_limited: bool,
    /// Completed rounds (spec 06 §4.1 `on_round_end`).
    pub rounds: u64,
    /// The initial window in segments.
    pub iw_segments: u32,
    /// The socket's segments are paced (any pacing kind but `off`).
    pub paced: bool,
    /// The socket's pacing rate before this ACK, bytes/s (Linux
    /// `sk_pacing_rate`, kept whether or not a pacer uses it; 0 before the
    /// first RTT sample). HyStart's ACK-delay allowance reads it.
    pub pacing_rate_bytes_per_s: f64,
}

impl CcContext {
    /// A context for unit tests and fuzzing: MSS 1448, nothing in flight.
    pub fn example(now: SimTime) -> CcContext {
        CcContext {
            now,
            mss_bytes: 1448,
            srtt: None,
            rttvar: Span::ZERO,
            min_rtt: None,
            latest_rtt: None,
            in_flight: 0,
            packets_out: 0,
            flight_size: 0,
            delivered: 0,
            ca_state: CaState::Open,
            app_limited: false,
            rounds: 0,
            iw_segments: 10,
            paced: false,
            pacing_rate_bytes_per_s: 0.0,
        }
    }
}

/// cwnd and ssthresh in segments (f64, spec 06 §2.1); hooks may write both.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Window {
    pub cwnd: f64,
    pub ssthresh: f64,
}

/// Why the socket asks for a new ssthresh.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SsthreshReason {
    FastRetransmit,
    LocalStall,
    Ecn,
    Rto,
}

/// A delivery-rate sample (spec 06 §4.2).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateSample {
    /// Bytes per second over `interval`.
    pub delivery_rate_bytes_per_s: f64,
    pub interval: Span,
    /// Segments delivered over `interval`.
    pub delivered: u64,
    /// `delivered` counter when the sampled segment was sent.
    pub prior_delivered: u64,
    /// The sampled segment was sent while the application was the limit.
    pub is_app_limited: bool,
}

/// An ACK as the hooks see it. `on_ack` only gets ACKs that advanced snd_una;
/// `cong_control` gets every ACK.
#[derive(Clone, Copy, Debug)]
pub struct AckSample {
    /// Segments newly and fully covered by the cumulative ACK.
    pub acked_segments: u64,
    pub acked_bytes: u64,
    /// CA credit left after slow start (spec 06 §2.4), segments.
    pub credit: f64,
    pub rtt: Option<Span>,
    pub prior_in_flight: u64,
    /// Segments delivered by this ACK: cumulatively acknowledged or SACKed the first time.
    pub newly_delivered: u64,
    /// Segments newly marked Lost while processing this ACK.
    pub newly_lost: u64,
    /// This ACK ended a round (spec 06 §4.1).
    pub round_start: bool,
    /// Delivery-rate sample, when this ACK yields a valid one (spec 06 §4.2).
    pub rate: Option<RateSample>,
}

impl AckSample {
    /// An ACK of `acked` full segments with all of it as CA credit (tests).
    pub fn example(acked: u64, mss_bytes: u32) -> AckSample {
        AckSample {
            acked_segments: acked,
            acked_bytes: acked * mss_bytes as u64,
            credit: acked as f64,
            rtt: None,
            prior_in_flight: 0,
            newly_delivered: acked,
            newly_lost: 0,
            round_start: false,
            rate: None,
        }
    }
}

/// RTT statistics of a completed round (spec 06 §4.1 `on_round_end`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RoundStats {
    pub min_rtt: Option<Span>,
    pub mean_rtt: Option<Span>,
    pub samples: u32,
    /// Segments cumulatively acknowledged during the round.
    pub acked_segments: u64,
}

/// Non-ACK events (spec 06 §4.1 `on_event`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CcEvent {
    IdleRestart { idle: Span },
    TxStart,
}

/// What a constructor gets besides its parameters.
#[derive(Clone, Copy, Debug)]
pub struct CreateCtx {
    /// Basis of the Reno-style halving (spec 06 §2.1 `ssthresh_basis`).
    pub basis: reno::Basis,
    /// Seed of the algorithm's own random stream (BBR's start phase).
    pub seed: u64,
}

/// The hooks of spec 06 §4.1. `on_ack` and `ssthresh` are required.
pub trait CongestionControl: Send {
    fn name(&self) -> &'static str;
    /// Handshake complete: may set the initial ssthresh.
    fn init(&mut self, _ctx: &CcContext, _w: &mut Window) {}
    /// Congestion-avoidance growth with the credit left after slow start.
    fn on_ack(&mut self, ctx: &CcContext, w: &mut Window, ack: &AckSample);
    /// New ssthresh for a reduction; the socket then sets cwnd (spec 06 §2.5).
    fn ssthresh(&mut self, ctx: &CcContext, w: &Window, reason: SsthreshReason) -> f64;
    fn on_rto(&mut self, _ctx: &CcContext, _w: &mut Window) {}
    fn on_state_change(&mut self, _ctx: &CcContext, _w: &mut Window, _old: CaState, _new: CaState) {}
    /// Every valid RTT sample, before the ACK's other hooks.
    fn on_rtt_sample(&mut self, _ctx: &CcContext, _w: &mut Window, _rtt: Span) {}
    /// A round ended: called on its last ACK, after that ACK's RTT sample and
    /// before slow start and `on_ack` (spec 06 §4.1).
    fn on_round_end(&mut self, _ctx: &CcContext, _w: &mut Window, _round: &RoundStats) {}
    fn on_event(&mut self, _ctx: &CcContext, _w: &mut Window, _ev: CcEvent) {}
    /// True if the algorithm implements `cong_control` (spec 06 §4.1): the
    /// socket then skips slow start, `on_ack` and the recovery-cwnd rules.
    fn has_cong_control(&self) -> bool {
        false
    }
    /// Called for every ACK when `has_cong_control`; sets cwnd (and pacing).
    fn cong_control(&mut self, _ctx: &CcContext, _w: &mut Window, _ack: &AckSample) {}
    /// Some(bytes/s) overrides the §4.3 pacing rate.
    fn pacing_rate(&self, _ctx: &CcContext, _w: &Window) -> Option<f64> {
        None
    }
    /// Recovery style of Reno (RFC 5681: exit at the first new ACK) vs NewReno.
    fn reno_recovery(&self) -> bool {
        false
    }
    /// The floor of Linux 2.6.20's rate halving (`tcp_cwnd_down` →
    /// `tcp_cwnd_min`): the algorithm's `min_cwnd`, ssthresh/2 for those that
    /// use `tcp_reno_min_cwnd` (reno, highspeed, scalable, vegas), ssthresh
    /// for those that define none (bic, cubic). True: ssthresh/2.
    fn rate_halving_floor_is_half_ssthresh(&self) -> bool {
        true
    }
    /// Names of the algorithm's trace variables (spec 06 §6 `cc_*`), without
    /// the `cc_` prefix, e.g. `["w_max", "k"]`. At most 4.
    fn trace_names(&self) -> &'static [&'static str] {
        &[]
    }
    /// Current values of `trace_names`, in the same order (NaN if undefined).
    fn trace_values(&self, _out: &mut [f64]) {}
}
