//! The Quick-Start sender of one connection direction (spec 02 §2.3): when to
//! ask, the request it builds, the validation of the echo, the Quick-Start
//! window, the timer pacing and the end of QS mode. Sans-IO: the TCP socket
//! calls it with `now` at the points named on each method and applies the
//! window it returns; it never touches the socket itself.

use super::nonce::{echo_matches, random_nonce};
use super::option::{IpQs, QsResponse, OPT_BYTES};
use super::pacing::{qs_window, rtt_ticks, PacingPlan};
use super::rate::{code_ceil, rate_bps, MAX_RATE_CODE};
use crate::engine::rng::Stream;
use crate::engine::time::{SimTime, Span, PS_PER_S};

/// spec 02 §2.3.4: an approval must be used within min(SRTT, 3 s).
const APPROVAL_LIFETIME_MAX: Span = Span::from_secs(3);

/// ssthresh after Quick-Start (spec 02 §2.3.9).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SsthreshPolicy {
    /// Quick-Start never touches ssthresh (default).
    None,
    /// ssthresh ← max(2, ⌊factor · W_qs⌋) when QS mode starts.
    QsWindow,
}

impl SsthreshPolicy {
    pub const NAMES: &'static [&'static str] = &["none", "qs_window"];
    pub fn as_str(self) -> &'static str {
        match self {
            SsthreshPolicy::None => "none",
            SsthreshPolicy::QsWindow => "qs_window",
        }
    }
}

impl std::str::FromStr for SsthreshPolicy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "none" => Ok(SsthreshPolicy::None),
            "qs_window" => Ok(SsthreshPolicy::QsWindow),
            _ => Err(format!("one of {}", Self::NAMES.join(", "))),
        }
    }
}

/// A connection's Quick-Start settings (spec 02 §2.3.1 sender, §2.4 receiver).
#[derive(Clone, Debug, PartialEq)]
pub struct QsSenderConfig {
    /// Requested rate code N (1..=15).
    pub rate_code: u8,
    pub on_connect: bool,
    pub on_idle_restart: bool,
    /// Explicit requests (the socket option): on the first new data at or after each time.
    pub request_at: Vec<Span>,
    /// H of the QS window, bytes.
    pub header_bytes: u32,
    /// Pacing timer rate.
    pub hz: u32,
    /// Smallest chunk M, segments.
    pub chunk_min: u32,
    pub ssthresh_policy: SsthreshPolicy,
    pub ssthresh_factor: f64,
    /// Initial RTO of a SYN / SYN-ACK that carries a request.
    pub syn_rto: Span,
    /// Receiver: highest echoed rate code.
    pub recv_max_rate_code: u8,
    /// Receiver: ACK a segment carrying a request at once.
    pub immediate_ack: bool,
    /// Receiver: flow control and the approval (spec 02 §2.4 rule 4).
    pub recv_rwnd_policy: super::receiver::RecvRwndPolicy,
    /// RFC 3742 limited slow start after a used QS episode: its max_ssthresh,
    /// segments (None = off; spec 02 §2.3.1, §6 point 11).
    pub limited_slow_start: Option<f64>,
}

/// States of spec 02 §2.3.4.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QsState {
    Idle,
    ReqSent,
    ApprovedWaitData,
    Pacing,
    PacedWaitAck,
    Done,
    Disabled,
}

impl QsState {
    pub fn as_str(self) -> &'static str {
        match self {
            QsState::Idle => "idle",
            QsState::ReqSent => "req_sent",
            QsState::ApprovedWaitData => "approved_wait_data",
            QsState::Pacing => "pacing",
            QsState::PacedWaitAck => "paced_wait_ack",
            QsState::Done => "done",
            QsState::Disabled => "disabled",
        }
    }
    fn in_qs_mode(self) -> bool {
        matches!(self, QsState::Pacing | QsState::PacedWaitAck)
    }
}

/// What fired a request (spec 02 §2.3.2 point 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trigger {
    Connect,
    IdleRestart,
    Explicit,
}

/// The outstanding request (spec 02 §2.3.3).
#[derive(Clone, Copy, Debug)]
struct Request {
    n_req: u8,
    ttl_diff: u8,
    nonce: u32,
    /// Sequence number just past the carrying segment; `None` for a SYN / SYN-ACK.
    seq_end: Option<u64>,
    trigger: Trigger,
}

/// How a request ended, for the summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// No response option on the covering ACK (lost or removed on the way).
    NoResponse,
    /// Echoed rate 0, TTL Diff mismatch, or a rate above the request.
    Refused,
    /// The nonce check failed (spec 02 §2.3.5 check 3).
    NonceFailed,
    /// Valid, but W_qs did not exceed cwnd.
    NotUseful,
    /// Valid; the approval expired before data came.
    Expired,
    /// The carrying segment was retransmitted.
    CarrierLost,
    /// QS mode ran and ended with an ACK.
    Used,
    /// A QS packet was lost in QS mode (spec 02 §2.3.10).
    LossInQs,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::NoResponse => "no_response",
            Outcome::Refused => "refused",
            Outcome::NonceFailed => "nonce_failed",
            Outcome::NotUseful => "not_useful",
            Outcome::Expired => "expired",
            Outcome::CarrierLost => "carrier_lost",
            Outcome::Used => "used",
            Outcome::LossInQs => "loss_in_qs",
        }
    }
}

/// Counters and the last episode, for `summary.json`.
#[derive(Clone, Copy, Debug, Default)]
pub struct QsSenderStats {
    pub requests: u64,
    /// Valid echoes at the requested rate, and at a lower one.
    pub approved_full: u64,
    pub approved_reduced: u64,
    /// Sum of Rate(N_app) over the valid approvals, bit/s (a mean approved rate for the
    /// load experiments, spec 02 §4.5).
    pub approved_bps: u64,
    /// The largest approved rate code (0 = none).
    pub approved_max: u8,
    pub nonce_failures: u64,
    pub not_useful: u64,
    pub reports_sent: u64,
    /// Rate code of the last request / the last valid echo (0 = none).
    pub last_requested: u8,
    pub last_approved: u8,
    /// W_qs of the last QS episode, segments.
    pub last_w_qs: u32,
    /// Segments sent in QS mode in the last episode.
    pub last_qs_pkts_sent: u32,
    pub last_outcome: Option<Outcome>,
    /// When the last QS mode started.
    pub last_qs_start: Option<SimTime>,
}

impl QsSenderStats {
    /// Valid echoes with rate ≥ 1.
    pub fn approvals(&self) -> u64 {
        self.approved_full + self.approved_reduced
    }
}

/// What the socket does to its window after a Quick-Start event.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum WindowChange {
    /// cwnd ← max(cwnd, value).
    Raise(f64),
    /// QS mode ended with fewer than W_qs segments sent: cwnd ← value.
    Set(f64),
    /// spec 02 §2.3.10: cwnd ← cwnd, ssthresh ← min(ssthresh, ssthresh_cap).
    Revert { cwnd: f64, ssthresh_cap: f64 },
}

/// The option to put on a new data segment and its payload limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataOption {
    /// Raw IP option bytes.
    pub ip_qs: [u8; 8],
    /// spec 02 §2.2.7: at most MSS − 8 payload bytes.
    pub max_payload: u32,
}

/// The sender side of Quick-Start on one connection.
pub struct QsSender {
    cfg: QsSenderConfig,
    pub state: QsState,
    req: Option<Request>,
    /// A request was sent on this connection's SYN / SYN-ACK (only one allowed).
    handshake_asked: bool,
    last_request_at: Option<SimTime>,
    /// Report of Approved Rate waiting for the next packet (spec 02 §2.3.11).
    pending_report: Option<(u8, u32)>,
    /// Approval held in APPROVED_WAIT_DATA: (N_app, nonce, W_qs, expiry).
    approval: Option<(u8, u32, u32, SimTime)>,
    /// QS mode.
    plan: Option<PacingPlan>,
    t0: SimTime,
    next_timer: u32,
    qs_first_seq: u64,
    qs_pkts_sent: u32,
    cwnd_pre: f64,
    /// cwnd growth from ACKs of pre-QS data during QS mode (spec 02 §2.3.7).
    ack_growth: f64,
    w_qs: u32,
    episode: Trigger,
    /// Largest cwnd since the last congestion event, and whether one happened.
    w_max: f64,
    congested: bool,
    /// Host tick clock: period and phase (spec 02 §2.3.7).
    tick: Span,
    tick_phase: Span,
    explicit_next: usize,
    rng: Stream,
    pub stats: QsSenderStats,
}

impl QsSender {
    /// `tick_phase` is the host's random tick phase, below one tick.
    pub fn new(cfg: QsSenderConfig, tick_phase: Span, rng: Stream) -> QsSender {
        let tick = Span(PS_PER_S / cfg.hz.max(1) as u64);
        QsSender {
            tick,
            tick_phase: Span(tick_phase.0 % tick.0.max(1)),
            cfg,
            state: QsState::Idle,
            req: None,
            handshake_asked: false,
            last_request_at: None,
            pending_report: None,
            approval: None,
            plan: None,
            t0: SimTime::ZERO,
            next_timer: 0,
            qs_first_seq: 0,
            qs_pkts_sent: 0,
            cwnd_pre: 0.0,
            ack_growth: 0.0,
            w_qs: 0,
            episode: Trigger::Connect,
            w_max: 0.0,
            congested: false,
            explicit_next: 0,
            rng,
            stats: QsSenderStats::default(),
        }
    }

    pub fn config(&self) -> &QsSenderConfig {
        &self.cfg
    }

    /// A request on a SYN / SYN-ACK (spec 02 §2.3.2 trigger `on_connect`).
    pub fn handshake_request(&mut self, now: SimTime, ip_ttl: u8) -> Option<[u8; 8]> {
        if !self.cfg.on_connect || self.handshake_asked || self.state != QsState::Idle {
            return None;
        }
        self.handshake_asked = true;
        Some(self.build_request(now, ip_ttl, self.cfg.rate_code, None, Trigger::Connect))
    }

    /// The SYN / SYN-ACK that carried the request is retransmitted: the
    /// retransmission goes without the option and the request counts as
    /// refused (spec 02 §2.3.3).
    pub fn on_carrier_retransmit(&mut self) {
        if self.state == QsState::ReqSent {
            self.refuse(Outcome::CarrierLost);
        }
    }

    fn build_request(&mut self, now: SimTime, ip_ttl: u8, n_req: u8, seq_end: Option<u64>, trigger: Trigger) -> [u8; 8] {
        // spec 02 §2.3.3: random QS TTL and nonce; TTL Diff from the IP TTL written.
        let qs_ttl = (self.rng.next_u64() & 0xff) as u8;
        let nonce = random_nonce(&mut self.rng);
        self.req = Some(Request { n_req, ttl_diff: ip_ttl.wrapping_sub(qs_ttl), nonce, seq_end, trigger });
        self.state = QsState::ReqSent;
        self.last_request_at = Some(now);
        self.stats.requests += 1;
        self.stats.last_requested = n_req;
        self.stats.last_approved = 0;
        IpQs::Request { rate: n_req, qs_ttl, nonce }.encode()
    }

    /// Does an ACK up to `ack` cover the outstanding request? A handshake
    /// request is covered by the ACK of the SYN (the caller asks at that point).
    pub fn awaits_response(&self, ack: u64, handshake: bool) -> bool {
        self.state == QsState::ReqSent
            && match self.req.and_then(|r| r.seq_end) {
                None => handshake,
                Some(end) => !handshake && ack >= end,
            }
    }

    /// The first ACK covering the request arrived with `echo` (spec 02 §2.3.4,
    /// §2.3.5, §2.3.6). `srtt` is the sender's current estimate (for a
    /// handshake request the single handshake sample).
    pub fn on_response(&mut self, now: SimTime, echo: Option<QsResponse>, srtt: Span, mss_bytes: u32, cwnd: f64) {
        let Some(req) = self.req.take() else { return };
        let Some(e) = echo else {
            self.refuse(Outcome::NoResponse);
            return;
        };
        if !echo_matches(req.nonce, e.nonce, e.rate.min(MAX_RATE_CODE)) && e.rate >= 1 && e.rate <= req.n_req {
            self.stats.nonce_failures += 1;
            self.refuse(Outcome::NonceFailed);
            self.state = QsState::Disabled;
            return;
        }
        if e.ttl_diff != req.ttl_diff || e.rate == 0 || e.rate > req.n_req {
            self.refuse(Outcome::Refused);
            return;
        }
        if e.rate == req.n_req {
            self.stats.approved_full += 1;
        } else {
            self.stats.approved_reduced += 1;
        }
        self.stats.last_approved = e.rate;
        self.stats.approved_bps += rate_bps(e.rate);
        self.stats.approved_max = self.stats.approved_max.max(e.rate);
        let w_qs = qs_window(e.rate, srtt, mss_bytes, self.cfg.header_bytes);
        if (w_qs as f64) <= cwnd {
            self.stats.not_useful += 1;
            self.refuse(Outcome::NotUseful);
            return;
        }
        let expiry = now + srtt.min(APPROVAL_LIFETIME_MAX);
        self.approval = Some((e.rate, req.nonce, w_qs, expiry));
        self.episode = req.trigger;
        self.state = QsState::ApprovedWaitData;
    }

    fn refuse(&mut self, why: Outcome) {
        // Exactly one report per request: Report(0) with its nonce (spec 02 §2.3.11).
        let nonce = self.req.take().map_or(0, |r| r.nonce);
        self.pending_report = Some((0, nonce));
        self.stats.last_outcome = Some(why);
        self.state = if self.state == QsState::Disabled { QsState::Disabled } else { QsState::Done };
    }

    /// Deadline of the next pacing timer or of an unused approval.
    pub fn next_deadline(&self) -> Option<SimTime> {
        match self.state {
            QsState::Pacing => self.plan.map(|p| self.timer_time(p.offset_ticks(self.next_timer))),
            QsState::ApprovedWaitData => self.approval.map(|a| a.3),
            _ => None,
        }
    }

    /// Time of tick offset k after t0: k = 0 at t0, else the k-th tick boundary after t0.
    fn timer_time(&self, k: u32) -> SimTime {
        if k == 0 {
            return self.t0;
        }
        let tick = self.tick.0.max(1);
        let t = self.t0.0;
        let phase = self.tick_phase.0;
        // First boundary strictly after t0: phase + j·tick > t0.
        let first = if t < phase { phase } else { phase + ((t - phase) / tick + 1) * tick };
        SimTime(first + (k as u64 - 1) * tick)
    }

    /// Timers due at `now` (spec 02 §2.3.7): the window to raise cwnd to.
    pub fn on_timer(&mut self, now: SimTime) -> Option<WindowChange> {
        if self.state == QsState::ApprovedWaitData && self.approval.is_some_and(|a| now >= a.3) {
            let (_, nonce, _, _) = self.approval.take().unwrap_or_default();
            self.pending_report = Some((0, nonce));
            self.stats.last_outcome = Some(Outcome::Expired);
            self.state = QsState::Done;
            return None;
        }
        if self.state != QsState::Pacing {
            return None;
        }
        let plan = self.plan?;
        let mut allowance = None;
        while self.next_timer <= plan.n && self.timer_time(plan.offset_ticks(self.next_timer)) <= now {
            allowance = Some(plan.allowance(self.next_timer));
            self.next_timer += 1;
        }
        if self.next_timer > plan.n {
            self.state = QsState::PacedWaitAck;
        }
        allowance.map(|a| WindowChange::Raise(a as f64 + self.ack_growth))
    }

    /// A new data segment starting at `seq` is about to be sent (spec 02 §2.3.2,
    /// §2.3.4, §2.3.11). `idle_restarted`: the idle-restart rule just cut cwnd,
    /// `cwnd` is the window after it (the cwnd without QS). Returns the option the segment carries, if any.
    #[allow(clippy::too_many_arguments)]
    pub fn on_new_data(
        &mut self,
        now: SimTime,
        seq: u64,
        len: u32,
        srtt: Option<Span>,
        cwnd: f64,
        idle_restarted: bool,
        mss_bytes: u32,
        ip_ttl: u8,
    ) -> Option<DataOption> {
        let reduced = mss_bytes.saturating_sub(OPT_BYTES).max(1);
        if self.state == QsState::ApprovedWaitData {
            let (n_app, nonce, w_qs, expiry) = self.approval.take()?;
            if now > expiry {
                self.stats.last_outcome = Some(Outcome::Expired);
                self.state = QsState::Done;
                return Some(self.report(0, nonce, reduced));
            }
            // Enter QS mode with Report(N_app) on the first QS data packet.
            self.state = QsState::Pacing;
            self.t0 = now;
            self.qs_first_seq = seq;
            self.qs_pkts_sent = 0;
            self.cwnd_pre = cwnd;
            self.ack_growth = 0.0;
            self.w_qs = w_qs;
            let ticks = rtt_ticks(srtt.unwrap_or(Span::ZERO), self.cfg.hz);
            self.plan = Some(PacingPlan::new(w_qs, ticks, self.cfg.chunk_min));
            self.next_timer = 1;
            self.stats.last_w_qs = w_qs;
            self.stats.last_qs_pkts_sent = 0;
            self.stats.last_qs_start = Some(now);
            return Some(self.report(n_app, nonce, reduced));
        }
        if let Some((rate, nonce)) = self.pending_report.take() {
            return Some(self.report(rate, nonce, reduced));
        }
        let srtt = srtt?;
        if !matches!(self.state, QsState::Idle | QsState::Done) || self.last_request_at.is_some_and(|t| now < t + srtt) {
            return None;
        }
        let explicit = self.cfg.request_at.get(self.explicit_next).is_some_and(|t| now >= SimTime::ZERO + *t);
        if explicit {
            // Every time already passed is served by this one request.
            while self.cfg.request_at.get(self.explicit_next).is_some_and(|t| now >= SimTime::ZERO + *t) {
                self.explicit_next += 1;
            }
        }
        let trigger = if explicit {
            Trigger::Explicit
        } else if idle_restarted && self.cfg.on_idle_restart {
            Trigger::IdleRestart
        } else {
            return None;
        };
        let mut n_req = self.cfg.rate_code;
        if trigger == Trigger::IdleRestart && self.congested {
            // spec 02 §2.3.2: min(configured, rate of the largest cwnd since the last congestion event).
            let bps = self.w_max * (mss_bytes + self.cfg.header_bytes) as f64 * 8.0 / srtt.as_secs_f64().max(1e-12);
            n_req = n_req.min(code_ceil(bps));
        }
        if trigger == Trigger::IdleRestart && qs_window(n_req, srtt, mss_bytes, self.cfg.header_bytes) as f64 <= cwnd {
            return None;
        }
        let len = len.min(reduced);
        let ip_qs = self.build_request(now, ip_ttl, n_req, Some(seq + len as u64), trigger);
        Some(DataOption { ip_qs, max_payload: reduced })
    }

    fn report(&mut self, rate: u8, nonce: u32, max_payload: u32) -> DataOption {
        self.stats.reports_sent += 1;
        DataOption { ip_qs: IpQs::Report { rate, nonce }.encode(), max_payload }
    }

    /// A pending Report(0) for a pure ACK (spec 02 §2.3.11).
    pub fn take_report_for_ack(&mut self) -> Option<[u8; 8]> {
        let (rate, nonce) = self.pending_report.take()?;
        self.stats.reports_sent += 1;
        Some(IpQs::Report { rate, nonce }.encode())
    }

    /// A new data segment was sent (after `on_new_data`).
    pub fn on_data_sent(&mut self) {
        if self.state.in_qs_mode() {
            self.qs_pkts_sent += 1;
            self.stats.last_qs_pkts_sent = self.qs_pkts_sent;
        }
    }

    /// An ACK was processed: `ack` is the new snd_una, `cwnd_growth` how much
    /// normal congestion control raised cwnd on it, `cwnd` the window now.
    /// Ends QS mode at the first ACK of QS data (spec 02 §2.3.8).
    pub fn on_ack(&mut self, ack: u64, cwnd_growth: f64, cwnd: f64) -> Option<WindowChange> {
        self.w_max = self.w_max.max(cwnd);
        if !self.state.in_qs_mode() {
            return None;
        }
        if ack <= self.qs_first_seq {
            self.ack_growth += cwnd_growth.max(0.0);
            return None;
        }
        self.state = QsState::Done;
        self.plan = None;
        self.stats.last_outcome = Some(Outcome::Used);
        if self.qs_pkts_sent < self.w_qs {
            return Some(WindowChange::Set(self.cwnd_pre.max(self.qs_pkts_sent as f64)));
        }
        None
    }

    /// A congestion event (loss or ECN, spec 02 §2.3.2 idle-restart rate):
    /// `snd_una` is the first unacknowledged byte, `iw` the initial window,
    /// `cwnd_after` the window congestion control left. A loss detected in QS
    /// mode reverts to the behaviour without Quick-Start (spec 02 §2.3.10).
    pub fn on_congestion(&mut self, snd_una: u64, iw: f64, cwnd_after: f64, mss_bytes: u32) -> Option<WindowChange> {
        self.congested = true;
        self.w_max = cwnd_after;
        if !self.state.in_qs_mode() {
            return None;
        }
        // Q_ok: QS packets cumulatively acknowledged before the loss was
        // detected. QS mode ends at the first ACK beyond qs_first_seq, so in
        // QS mode this is 0; computed for clarity with full-size segments.
        let q_ok = snd_una.saturating_sub(self.qs_first_seq).div_ceil(mss_bytes.max(1) as u64);
        self.state = QsState::Disabled;
        self.plan = None;
        self.stats.last_outcome = Some(Outcome::LossInQs);
        let ssthresh_cap = (q_ok / 2).max(2) as f64;
        let cwnd = match self.episode {
            Trigger::Connect => iw,
            // The cwnd without QS is the (restart) cwnd at QS start.
            Trigger::IdleRestart | Trigger::Explicit => ((self.w_qs / 2) as f64).min(self.cwnd_pre).max(1.0),
        };
        Some(WindowChange::Revert { cwnd, ssthresh_cap })
    }

    /// Is the connection in QS mode?
    pub fn in_qs_mode(&self) -> bool {
        self.state.in_qs_mode()
    }

    /// ssthresh when QS mode starts (spec 02 §2.3.9), if the policy sets one.
    pub fn ssthresh_at_start(&self) -> Option<f64> {
        match self.cfg.ssthresh_policy {
            SsthreshPolicy::None => None,
            SsthreshPolicy::QsWindow => Some(((self.cfg.ssthresh_factor * self.w_qs as f64).floor()).max(2.0)),
        }
    }
}
