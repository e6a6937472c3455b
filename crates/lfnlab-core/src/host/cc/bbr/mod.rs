//! BBR v1 (spec 06 §4.4 "BBR v1"): a model-based congestion control that
//! paces at its estimate of the bottleneck bandwidth (BtlBw) and caps cwnd at
//! a multiple of the bandwidth-delay product BtlBw·RTprop.
//!
//! The socket calls `cong_control` on every ACK, after loss marking and
//! CA-state changes, and `pacing_rate` after it. Per ACK, in the
//! order of Linux `tcp_bbr.c` `bbr_main`: update BtlBw, advance the ProbeBW
//! cycle, test for a full pipe, Startup → Drain → ProbeBW, update RTprop and
//! ProbeRTT, then set the pacing rate and cwnd.
//!
//! Files: `gains` (constants and the ProbeBW cycle), `filters` (BtlBw and
//! RTprop), `full_pipe` (Startup exit), `probe_bw`, `probe_rtt`, `recovery`
//! (loss response and the saved cwnd), `cwnd` (the target), `round` (BBR's
//! own one-round timers), `config` (parameters), `tests` (trait-level tests
//! and a simulated pipe).
//!
//! Resolutions where spec 06 §4.4 is silent or terse (as Linux v1 does):
//! - Before the pipe is full, "w += acked" applies while w is below the
//!   target with the current (Startup/Drain) gain 2.885, or fewer than IW
//!   segments have been delivered (Linux `bbr_set_cwnd`). Unbounded, cwnd
//!   and the queue would grow for the 3+ rounds the full-pipe test needs,
//!   each longer than the last (≈ 17·BDP of queue at 100 Mbit/s, 40 ms).
//! - `acked` in the cwnd rules is `newly_delivered` (cumulatively ACKed or
//!   SACKed the first time), Linux `acked_sacked`; an ACK delivering nothing
//!   leaves cwnd alone except for the ProbeRTT cap.
//! - Segments newly marked Lost are subtracted from cwnd (never below 1)
//!   before the cwnd rules, Linux `bbr_set_cwnd_to_recover_or_restore`.
//! - An app-limited sample enters the BtlBw filter if it is at least the
//!   current estimate (Linux `>=`).
//! - Segments sent during ProbeRTT, and until the data in flight when it ended
//!   is delivered, give app-limited samples (Linux sets `tp->app_limited` in
//!   ProbeRTT; here BBR tracks the `delivered` range itself).
//! - BBR counts its own packet-timed rounds (BtlBw window, full-pipe test):
//!   a round ends on an ACK whose rate sample's `prior_delivered` reaches the
//!   `delivered` count recorded at the previous round end (Linux
//!   `bbr_update_bw`, `next_rtt_delivered`). `delivered` counts SACKed
//!   segments, so rounds go on while snd_una waits for a lost retransmission;
//!   the socket's cumulative-ACK round (spec 06 §4.1 `on_round_end`) would
//!   stop, and with it the full-pipe test (Startup at gain 2.885 until the RTO).
//! - A round counts for the full-pipe test unless the latest rate sample was
//!   app-limited (or no sample exists yet).
//! - ProbeBW phases last RTprop (the filter value), and compare the in_flight
//!   after the ACK with 1.25·BDP and BDP without the +3 allowance.
//! - The pacing rate before a BtlBw sample has no 0.99 margin (spec text);
//!   it is re-initialised once, when the first SRTT appears (Linux).
//! - No long-term (policer) mode, no ACK-aggregation allowance, no idle-restart
//!   special case; ssthresh stays ∞ (spec 06 §4.4 "Loss", CHOICE).

mod config;
mod cwnd;
mod filters;
mod full_pipe;
mod gains;
mod probe_bw;
mod probe_rtt;
mod recovery;
mod round;
#[cfg(test)]
mod tests;

pub use config::{Config, PARAMS};
pub use gains::{CWND_GAIN, HIGH_GAIN, PROBE_BW_CYCLE};

use super::registry::Algorithm;
use super::{AckSample, CaState, CcContext, CongestionControl, RateSample, SsthreshReason, Window};
use crate::engine::rng::Stream;
use crate::engine::time::{SimTime, Span};
use cwnd::{MIN_CWND, target_cwnd};
use filters::{MaxFilter, MinRttFilter};
use full_pipe::FullPipe;
use probe_bw::{PhaseInput, ProbeBw};
use probe_rtt::ProbeRtt;
use recovery::Recovery;
use round::RoundMark;

/// `bbr` (spec 06 §4.4).
pub const ALGORITHM: Algorithm = Algorithm {
    name: "bbr",
    about: "BBR v1: paces at the estimated bottleneck rate, cwnd 2·BDP (no policer mode)",
    params: PARAMS,
    defaults: config::defaults,
    create: |p, ctx| Box::new(Bbr::new(Config::from_params(p), ctx.seed)),
};

/// The BBR v1 state machine (spec 06 §4.4), each mode with its own data.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Mode {
    /// Double the delivery rate every round until the pipe is full.
    Startup,
    /// Drain the queue Startup built.
    Drain,
    /// Cycle the pacing gain around 1 to probe for more bandwidth.
    ProbeBw(ProbeBw),
    /// cwnd 4 to let the queue empty and measure RTprop again.
    ProbeRtt(ProbeRtt),
}

impl Mode {
    /// Trace value of `mode` (spec 06 §6 `cc_mode`).
    pub fn index(&self) -> u8 {
        match self {
            Mode::Startup => 0,
            Mode::Drain => 1,
            Mode::ProbeBw(_) => 2,
            Mode::ProbeRtt(_) => 3,
        }
    }
}

fn in_loss_recovery(s: CaState) -> bool {
    matches!(s, CaState::Recovery | CaState::Loss)
}

pub struct Bbr {
    cfg: Config,
    /// Draws the ProbeBW start phase.
    rng: Stream,
    mode: Mode,
    /// BtlBw, bytes/s: maximum delivery rate over `cfg.btlbw_window_rounds`.
    btlbw: MaxFilter,
    /// RTprop: minimum RTT, expiring after `cfg.probe_rtt_interval`.
    rtprop: MinRttFilter,
    /// Packet-timed rounds seen (Linux `rtt_cnt`).
    round: u64,
    /// The current round, marked at the last round end (Linux
    /// `next_rtt_delivered`).
    round_mark: RoundMark,
    full_pipe: FullPipe,
    /// App-limited flag of the latest rate sample; `None` before the first.
    last_sample_app_limited: Option<bool>,
    /// `delivered` range (inclusive) in which sent segments give app-limited
    /// samples: from ProbeRTT entry to delivered + in_flight at its last ACK.
    /// Segments sent later have a larger `prior_delivered`, so the range needs
    /// no clearing; the next ProbeRTT replaces it.
    probe_rtt_sent: Option<(u64, u64)>,
    /// Loss response and the cwnd saved for restores.
    recovery: Recovery,
    /// The cwnd this algorithm last left, segments: the cwnd in force before
    /// the socket's RTO sets 1.
    last_cwnd: f64,
    /// Pacing rate, bytes/s; `None` before the first ACK.
    pacing_bytes_per_s: Option<f64>,
    /// The pacing rate has been initialised from a real SRTT.
    seen_rtt: bool,
}

impl Bbr {
    pub fn new(cfg: Config, seed: u64) -> Bbr {
        Bbr {
            rng: Stream::derive(seed, "bbr.probe_bw_phase"),
            mode: Mode::Startup,
            btlbw: MaxFilter::new(cfg.btlbw_window_rounds),
            rtprop: MinRttFilter::new(cfg.probe_rtt_interval),
            round: 0,
            round_mark: RoundMark::new(0),
            full_pipe: FullPipe::new(cfg.full_bw_threshold, cfg.full_bw_rounds),
            last_sample_app_limited: None,
            probe_rtt_sent: None,
            recovery: Recovery::default(),
            last_cwnd: 0.0,
            pacing_bytes_per_s: None,
            seen_rtt: false,
            cfg,
        }
    }

    pub fn mode(&self) -> &Mode {
        &self.mode
    }

    /// BtlBw, bytes/s (0 before the first sample).
    pub fn btlbw(&self) -> f64 {
        self.btlbw.get()
    }

    pub fn rtprop(&self) -> Option<Span> {
        self.rtprop.get()
    }

    pub fn full_pipe(&self) -> bool {
        self.full_pipe.reached()
    }

    /// The one place the mode changes.
    fn set_mode(&mut self, mode: Mode) {
        self.mode = mode;
    }

    fn enter_probe_bw(&mut self, now: SimTime) {
        let phase = gains::random_start_phase(&mut self.rng);
        self.set_mode(Mode::ProbeBw(ProbeBw::new(phase, now)));
    }

    pub fn pacing_gain(&self) -> f64 {
        match &self.mode {
            Mode::Startup => self.cfg.high_gain,
            Mode::Drain => self.cfg.drain_gain,
            Mode::ProbeBw(p) => p.pacing_gain(),
            Mode::ProbeRtt(_) => 1.0,
        }
    }

    pub fn cwnd_gain(&self) -> f64 {
        match &self.mode {
            Mode::Startup | Mode::Drain => self.cfg.high_gain,
            Mode::ProbeBw(_) => self.cfg.cwnd_gain,
            Mode::ProbeRtt(_) => 1.0,
        }
    }

    /// BtlBw·RTprop in segments; the initial window while RTprop is unknown
    /// (Linux `bbr_bdp`).
    fn bdp_segments(&self, ctx: &CcContext) -> f64 {
        match self.rtprop.get() {
            Some(r) => self.btlbw.get() * r.as_secs_f64() / ctx.mss_bytes as f64,
            None => ctx.iw_segments as f64,
        }
    }

    /// spec 06 §4.4 "cwnd" with the current mode's cwnd gain.
    pub fn target_cwnd(&self, ctx: &CcContext) -> f64 {
        match self.rtprop.get() {
            Some(_) => target_cwnd(self.cwnd_gain(), self.bdp_segments(ctx)),
            None => target_cwnd(1.0, ctx.iw_segments as f64),
        }
    }

    /// spec 06 §4.4 "Pacing": before a BtlBw sample 2.885·IW·MSS/SRTT, with
    /// SRTT 1 ms while unknown.
    fn initial_pacing_rate(&self, ctx: &CcContext) -> f64 {
        let srtt_s = ctx.srtt.map_or(1e-3, |s| s.as_secs_f64().max(1e-12));
        self.cfg.high_gain * ctx.iw_segments as f64 * ctx.mss_bytes as f64 / srtt_s
    }

    /// Is the sample app-limited, counting segments sent during ProbeRTT?
    fn sample_app_limited(&self, rs: &RateSample) -> bool {
        rs.is_app_limited || self.probe_rtt_sent.is_some_and(|(lo, hi)| (lo..=hi).contains(&rs.prior_delivered))
    }

    /// Does this ACK end a packet-timed round? Only a valid rate sample can
    /// (Linux `bbr_update_bw`).
    fn update_round(&mut self, ctx: &CcContext, ack: &AckSample) -> bool {
        let ended = self.round_mark.reached(ack);
        if ended {
            self.round_mark = RoundMark::new(ctx.delivered);
            self.round += 1;
        }
        ended
    }

    fn update_btlbw(&mut self, ack: &AckSample) {
        let Some(rs) = &ack.rate else { return };
        let app_limited = self.sample_app_limited(rs);
        self.last_sample_app_limited = Some(app_limited);
        let bw = rs.delivery_rate_bytes_per_s;
        debug_assert!(bw.is_finite() && bw >= 0.0, "delivery rate {bw}");
        // spec 06 §4.4 "Filters": app-limited samples only if not smaller.
        if !app_limited || bw >= self.btlbw.get() {
            self.btlbw.update(self.round, bw);
        }
    }

    fn update_probe_bw(&mut self, ctx: &CcContext, ack: &AckSample) {
        let input = PhaseInput {
            now: ctx.now,
            rtprop: self.rtprop.get().unwrap_or(Span::ZERO),
            in_flight: ctx.in_flight,
            bdp_segments: self.bdp_segments(ctx),
            loss: ack.newly_lost > 0,
        };
        if let Mode::ProbeBw(p) = &mut self.mode {
            p.update(&input);
        }
    }

    /// Startup → Drain once the pipe is full; Drain → ProbeBW once in_flight
    /// ≤ BDP (spec 06 §4.4), possibly on the same ACK.
    fn check_drain(&mut self, ctx: &CcContext) {
        if self.mode == Mode::Startup && self.full_pipe.reached() {
            self.set_mode(Mode::Drain);
        }
        if self.mode == Mode::Drain && ctx.in_flight as f64 <= self.bdp_segments(ctx) {
            self.enter_probe_bw(ctx.now);
        }
    }

    /// RTprop update, ProbeRTT entry, hold and exit (spec 06 §4.4 "ProbeRTT").
    fn update_rtprop(&mut self, ctx: &CcContext, w: &mut Window, ack: &AckSample) {
        let expired = self.rtprop.expired(ctx.now);
        if let Some(r) = ack.rtt {
            self.rtprop.update(ctx.now, r);
        }
        if expired && !matches!(self.mode, Mode::ProbeRtt(_)) {
            self.recovery.save_cwnd(w.cwnd, in_loss_recovery(ctx.ca_state));
            self.probe_rtt_sent = Some((ctx.delivered, ctx.delivered));
            self.set_mode(Mode::ProbeRtt(ProbeRtt::default()));
        }
        let Mode::ProbeRtt(p) = &mut self.mode else { return };
        if let Some((_, hi)) = &mut self.probe_rtt_sent {
            *hi = (*hi).max(ctx.delivered + ctx.in_flight);
        }
        if p.update(ctx.now, ctx.in_flight, ctx.delivered, ack, self.cfg.probe_rtt_duration) {
            // Done: the fresh RTprop is good for another interval.
            self.rtprop.refresh(ctx.now);
            w.cwnd = w.cwnd.max(self.recovery.prior_cwnd());
            if self.full_pipe.reached() {
                self.enter_probe_bw(ctx.now);
            } else {
                self.set_mode(Mode::Startup);
            }
        }
    }

    /// spec 06 §4.4 "Pacing": gain·BtlBw·margin, never lowered before the
    /// pipe is full.
    fn update_pacing(&mut self, ctx: &CcContext) {
        if self.pacing_bytes_per_s.is_none() || (!self.seen_rtt && ctx.srtt.is_some()) {
            self.pacing_bytes_per_s = Some(self.initial_pacing_rate(ctx));
            self.seen_rtt = ctx.srtt.is_some();
        }
        let bw = self.btlbw.get();
        if bw > 0.0 {
            let rate = self.pacing_gain() * bw * self.cfg.pacing_margin;
            if self.full_pipe.reached() || self.pacing_bytes_per_s.is_none_or(|r| rate > r) {
                self.pacing_bytes_per_s = Some(rate);
            }
        }
    }

    /// spec 06 §4.4 "cwnd" and "Loss".
    fn update_cwnd(&mut self, ctx: &CcContext, w: &mut Window, ack: &AckSample) {
        let acked = ack.newly_delivered;
        if acked > 0 {
            let mut cwnd = w.cwnd;
            if ack.newly_lost > 0 {
                cwnd = (cwnd - ack.newly_lost as f64).max(1.0);
            }
            w.cwnd = match self.recovery.cwnd(cwnd, ctx.in_flight, acked) {
                Some(conserved) => conserved,
                None => {
                    let target = self.target_cwnd(ctx);
                    let grown = cwnd + acked as f64;
                    let c = if self.full_pipe.reached() {
                        grown.min(target)
                    } else if cwnd < target || ctx.delivered < ctx.iw_segments as u64 {
                        // Startup grows up to its own target, 2.885·BDP: with
                        // pacing at 2.885·BtlBw, unbounded growth would queue
                        // without limit until the full-pipe test fires.
                        grown
                    } else {
                        cwnd
                    };
                    c.max(MIN_CWND)
                }
            };
        }
        if matches!(self.mode, Mode::ProbeRtt(_)) {
            w.cwnd = w.cwnd.min(MIN_CWND);
        }
    }
}

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }

    fn init(&mut self, _ctx: &CcContext, w: &mut Window) {
        w.ssthresh = f64::INFINITY;
        self.last_cwnd = w.cwnd;
    }

    /// Never called: `cong_control` replaces it.
    fn on_ack(&mut self, _ctx: &CcContext, _w: &mut Window, _ack: &AckSample) {}

    /// BBR leaves ssthresh at ∞ (spec 06 §4.4 "Loss").
    fn ssthresh(&mut self, _ctx: &CcContext, _w: &Window, _reason: SsthreshReason) -> f64 {
        f64::INFINITY
    }

    fn on_rto(&mut self, _ctx: &CcContext, _w: &mut Window) {
        // The socket has set cwnd = 1; no packet conservation after an RTO.
        self.recovery.stop();
    }

    fn on_state_change(&mut self, ctx: &CcContext, w: &mut Window, old: CaState, new: CaState) {
        let was = in_loss_recovery(old);
        if in_loss_recovery(new) {
            // On RTO the socket has already set cwnd = 1: save what was in force.
            let cwnd = if new == CaState::Loss { w.cwnd.max(self.last_cwnd) } else { w.cwnd };
            self.recovery.save_cwnd(cwnd, was || matches!(self.mode, Mode::ProbeRtt(_)));
            if new == CaState::Recovery && !was {
                self.recovery.enter(ctx.delivered);
            } else if new == CaState::Loss {
                self.recovery.stop();
            }
        } else if was {
            self.recovery.stop();
            w.cwnd = w.cwnd.max(self.recovery.prior_cwnd());
            self.last_cwnd = w.cwnd;
        }
    }

    fn has_cong_control(&self) -> bool {
        true
    }

    fn cong_control(&mut self, ctx: &CcContext, w: &mut Window, ack: &AckSample) {
        let round_start = self.update_round(ctx, ack);
        self.recovery.observe(ack);
        self.update_btlbw(ack);
        self.update_probe_bw(ctx, ack);
        if round_start {
            self.full_pipe.on_round(self.btlbw.get(), self.last_sample_app_limited.unwrap_or(true));
        }
        self.check_drain(ctx);
        self.update_rtprop(ctx, w, ack);
        self.update_pacing(ctx);
        self.update_cwnd(ctx, w, ack);
        self.last_cwnd = w.cwnd;
    }

    fn pacing_rate(&self, ctx: &CcContext, _w: &Window) -> Option<f64> {
        Some(self.pacing_bytes_per_s.unwrap_or_else(|| self.initial_pacing_rate(ctx)))
    }

    fn trace_names(&self) -> &'static [&'static str] {
        &["mode", "btlbw", "rtprop", "pacing_gain"]
    }

    /// mode 0–3 (Startup, Drain, ProbeBW, ProbeRTT), BtlBw in bytes/s,
    /// RTprop in seconds (NaN before a sample), pacing gain.
    fn trace_values(&self, out: &mut [f64]) {
        let v = [
            self.mode.index() as f64,
            self.btlbw.get(),
            self.rtprop.get().map_or(f64::NAN, |r| r.as_secs_f64()),
            self.pacing_gain(),
        ];
        for (o, x) in out.iter_mut().zip(v) {
            *o = x;
        }
    }
}
