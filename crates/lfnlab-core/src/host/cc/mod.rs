//! Congestion control: policy behind one trait (spec 06 §4.1, STYLE point 3).
//! The TCP socket owns the mechanism (sequence space, SACK, recovery, timers)
//! and the §2.1 bounds; an algorithm owns cwnd growth and the ssthresh choice.

pub mod reno;

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
    pub in_flight: u64,
    pub packets_out: u64,
    /// FlightSize = snd_max − snd_una, in segments.
    pub flight_size: u64,
    pub delivered: u64,
    pub ca_state: CaState,
    pub app_limited: bool,
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

/// An ACK that advanced snd_una, as `on_ack` sees it.
#[derive(Clone, Copy, Debug)]
pub struct AckSample {
    pub acked_segments: u64,
    pub acked_bytes: u64,
    /// CA credit left after slow start (spec 06 §2.4), segments.
    pub credit: f64,
    pub rtt: Option<Span>,
    pub prior_in_flight: u64,
}

/// Non-ACK events (spec 06 §4.1 `on_event`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CcEvent {
    IdleRestart { idle: Span },
    TxStart,
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
    fn on_state_change(&mut self, _ctx: &CcContext, _old: CaState, _new: CaState) {}
    fn on_rtt_sample(&mut self, _ctx: &CcContext, _rtt: Span) {}
    fn on_event(&mut self, _ctx: &CcContext, _w: &mut Window, _ev: CcEvent) {}
    /// Some(bytes/s) overrides the §4.3 pacing rate.
    fn pacing_rate(&self, _ctx: &CcContext) -> Option<f64> {
        None
    }
    /// Recovery style of Reno (RFC 5681: exit at the first new ACK) vs NewReno.
    fn reno_recovery(&self) -> bool {
        false
    }
}

/// Algorithms built so far. The scenario loader accepts exactly these names.
pub const AVAILABLE: &[&str] = &["newreno", "reno"];

/// Every name the spec lists (spec 00 §2.2), built or not.
pub const SPEC_NAMES: &[&str] = &["reno", "newreno", "scalable", "highspeed", "bic", "cubic", "vegas", "fast", "bbr"];

/// Construct an algorithm by name (one of `AVAILABLE`).
pub fn create(name: &str, basis: reno::Basis) -> Option<Box<dyn CongestionControl>> {
    match name {
        "newreno" => Some(Box::new(reno::Reno::new(false, basis))),
        "reno" => Some(Box::new(reno::Reno::new(true, basis))),
        _ => None,
    }
}
