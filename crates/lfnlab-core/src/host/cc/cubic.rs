//! CUBIC (spec 06 §4.4, RFC 9438), with the `linux-2.6.20` constants of
//! chapter 02 §2.6.1.
//!
//! - W_cubic(t) = C·(t − K)³ + origin, t = now − t0 in seconds (RFC 9438 §4.2).
//! - Epoch start (first CA ACK after slow start or a reduction): t0 = now,
//!   W_est = w; K = ∛((W_max − w)/C) and origin = W_max if W_max > w, else K = 0
//!   and origin = w.
//! - Per ACK: target = clamp(W_cubic(t + min_rtt), w, 1.5·w) (RFC 9438 §4.4);
//!   W_est += α·acked/w, α = 3(1 − β)/(1 + β) while W_est < W_max, else 1
//!   (§4.3); w ← W_est if W_cubic(t) < W_est, else w += acked·(target − w)/w.
//! - ssthresh: clear t0; W_max ← w·(1 + β)/2 with fast convergence and
//!   w < W_max (§4.7), else w; return max(β·w, 2) (§4.6).
//! - Entering Loss resets everything including W_max (Linux `bictcp_reset`)
//!   and re-arms HyStart (6.8 `cubictcp_state`); IdleRestart moves t0 later
//!   by the idle time, not beyond now.
//! - HyStart (optional, [`super::hystart`]): in slow start with w ≥ 16, once
//!   until the next Loss; an exit sets ssthresh ← w.
//! - `pre_loss_cnt` (Linux 6.8 `bictcp_update`: "if (ca->last_max_cwnd == 0
//!   && ca->cnt > 20) ca->cnt = 20; /* increase cwnd 5% per RTT */"): while
//!   W_max = 0, each ACK adds at least acked/pre_loss_cnt, so a flow that left
//!   slow start without a loss (HyStart) keeps growing 5 % per RTT instead of
//!   following the flat start of a curve with K = 0.
//!
//! | variant | C | β | initial ssthresh | HyStart | pre_loss_cnt | v2_clamps |
//! |---|---|---|---|---|---|---|
//! | `rfc9438` (default) | 0.4 | 0.7 | ∞ | on under profile `linux-modern` | 20 under `linux-modern`, else off | off |
//! | `linux-2.6.20` | 410/1024 | 819/1024 | 100 | off | off | on |
//!
//! Both: fast convergence and Reno-friendly region on. `v2_clamps` adds the
//! CUBIC v2.0 limits of 2.6.20 `tcp_cubic.c` `bictcp_update` (MODULE_VERSION
//! "2.0"; lines 214–224): before the first loss cnt = 50, i.e. the increase
//! is acked/50 per ACK, and it never exceeds max_increment = 16 segments per
//! 100 ms of min_rtt (`min_cnt`). Spec 06 §8 item 3 left them off as
//! unverified; the source has them, so the `linux-2.6.20` variant turns them
//! on (issue 38, docs/profiles-from-source.md).

use super::hystart::{self, HyStart};
use super::params::{ParamDef, ParamKind};
use super::registry::Algorithm;
use super::{AckSample, CaState, CcContext, CcEvent, CcParams, CongestionControl, RoundStats, SsthreshReason, Window};
use crate::engine::time::{SimTime, Span};

/// `cubic` (spec 06 §4.4).
pub const CUBIC: Algorithm = Algorithm {
    name: "cubic",
    about: "CUBIC (RFC 9438): cubic window growth, fast convergence, Reno-friendly region, optional HyStart",
    params: PARAMS,
    defaults,
    create: |p, _| Box::new(Cubic::new(CubicConfig::from_params(p))),
};

const VARIANTS: &[&str] = &["rfc9438", "linux-2.6.20"];

const PARAMS: &[ParamDef] = &[
    ParamDef { name: "variant", kind: ParamKind::Choice(VARIANTS), about: "constant set: rfc9438 (C 0.4, β 0.7) or linux-2.6.20 (C 410/1024, β 819/1024, initial ssthresh 100)" },
    ParamDef { name: "c", kind: ParamKind::Num { min: 1e-3, max: 100.0 }, about: "cubic scale C, segments/s³" },
    ParamDef { name: "beta", kind: ParamKind::Num { min: 0.01, max: 0.99 }, about: "multiplicative decrease factor β" },
    ParamDef { name: "fast_convergence", kind: ParamKind::Bool, about: "W_max ← w·(1 + β)/2 when a loss comes below the previous W_max" },
    ParamDef { name: "reno_friendly", kind: ParamKind::Bool, about: "Reno-friendly (TCP-friendly) region with W_est" },
    ParamDef { name: "hystart", kind: ParamKind::Bool, about: "HyStart slow-start exit (ACK train and delay)" },
    ParamDef { name: "hystart_pacing_aware", kind: ParamKind::Bool, about: "paced senders end slow start on an ACK train of min_rtt instead of min_rtt/2 (Linux >= 5.7)" },
    ParamDef { name: "initial_ssthresh", kind: ParamKind::Num { min: 0.0, max: 1e12 }, about: "initial ssthresh in segments; 0 = ∞ (keep the socket's)" },
    ParamDef { name: "v2_clamps", kind: ParamKind::Bool, about: "CUBIC v2.0 clamps (Linux 2.6.20): cnt = 50 before the first loss, max_increment 16 segments per 100 ms" },
    ParamDef { name: "pre_loss_cnt", kind: ParamKind::Num { min: 0.0, max: 1e6 }, about: "before the first loss, grow at least acked/pre_loss_cnt per ACK (Linux 6.x: 20, 5 % per RTT); 0 = off" },
    ParamDef { name: "delay_term", kind: ParamKind::Choice(&["min_rtt", "srtt"]), about: "RTT added to t in the target: min_rtt (Linux) or srtt (RFC 9438 allows either)" },
];

/// Defaults: the variant's constant set; HyStart on only for `rfc9438` under
/// the `linux-modern` profile (spec 06 §4.4).
fn defaults(profile: &str, given: &CcParams) -> CcParams {
    let variant = given.text_or("variant", "rfc9438");
    let cfg = CubicConfig::for_variant(variant, profile);
    CcParams::new()
        .with_text("variant", variant)
        .with_num("c", cfg.c)
        .with_num("beta", cfg.beta)
        .with_bool("fast_convergence", cfg.fast_convergence)
        .with_bool("reno_friendly", cfg.reno_friendly)
        .with_bool("hystart", cfg.hystart)
        .with_bool("hystart_pacing_aware", cfg.hystart_pacing_aware)
        .with_num("initial_ssthresh", cfg.initial_ssthresh.unwrap_or(0.0))
        .with_bool("v2_clamps", cfg.v2_clamps)
        .with_num("pre_loss_cnt", cfg.pre_loss_cnt.unwrap_or(0.0))
        .with_text("delay_term", "min_rtt")
}

/// The RTT added to t when computing the target (spec 06 §4.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DelayTerm {
    /// Connection minimum RTT (Linux).
    MinRtt,
    /// Smoothed RTT (allowed by RFC 9438 §4.4).
    Srtt,
}

/// Resolved CUBIC parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubicConfig {
    /// C, segments/s³.
    pub c: f64,
    /// β, the multiplicative decrease factor.
    pub beta: f64,
    pub fast_convergence: bool,
    pub reno_friendly: bool,
    pub hystart: bool,
    /// ACK train of min_rtt for paced senders (Linux ≥ 5.7, CHOICE).
    pub hystart_pacing_aware: bool,
    /// Initial ssthresh in segments; None = ∞ (the socket's default).
    pub initial_ssthresh: Option<f64>,
    /// CUBIC v2.0 clamps (2.6.20 `tcp_cubic.c`; spec 06 §8 item 3).
    pub v2_clamps: bool,
    /// Before the first loss, cnt ≤ this (Linux 6.x: 20); None = off.
    pub pre_loss_cnt: Option<f64>,
    pub delay_term: DelayTerm,
}

impl CubicConfig {
    /// `rfc9438`: C 0.4, β 0.7, initial ssthresh ∞; HyStart as given.
    pub fn rfc9438(hystart: bool) -> CubicConfig {
        CubicConfig {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            reno_friendly: true,
            hystart,
            hystart_pacing_aware: true,
            initial_ssthresh: None,
            v2_clamps: false,
            pre_loss_cnt: None,
            delay_term: DelayTerm::MinRtt,
        }
    }

    /// `rfc9438` as Linux 6.x runs it (profile `linux-modern`): HyStart on and
    /// the pre-loss cnt of 20 (6.8 `tcp_cubic.c` `bictcp_update`).
    pub fn linux_modern() -> CubicConfig {
        CubicConfig { pre_loss_cnt: Some(LINUX_PRE_LOSS_CNT), ..CubicConfig::rfc9438(true) }
    }

    /// `linux-2.6.20` (chapter 02 §2.6.1): β 819/1024, C = bic_scale 41 → 410/1024,
    /// initial ssthresh 100, HyStart off (it came with 2.6.29), the v2.0
    /// clamps of its `tcp_cubic.c` on.
    pub fn linux_2_6_20() -> CubicConfig {
        CubicConfig { c: 410.0 / 1024.0, beta: 819.0 / 1024.0, initial_ssthresh: Some(100.0), v2_clamps: true, ..CubicConfig::rfc9438(false) }
    }

    fn for_variant(variant: &str, profile: &str) -> CubicConfig {
        match variant {
            "linux-2.6.20" => CubicConfig::linux_2_6_20(),
            _ if profile == "linux-modern" => CubicConfig::linux_modern(),
            _ => CubicConfig::rfc9438(false),
        }
    }

    pub fn from_params(p: &CcParams) -> CubicConfig {
        let ss = p.num("initial_ssthresh");
        CubicConfig {
            c: p.num("c"),
            beta: p.num("beta"),
            fast_convergence: p.flag("fast_convergence"),
            reno_friendly: p.flag("reno_friendly"),
            hystart: p.flag("hystart"),
            hystart_pacing_aware: p.flag("hystart_pacing_aware"),
            initial_ssthresh: (ss > 0.0).then_some(ss),
            v2_clamps: p.flag("v2_clamps"),
            pre_loss_cnt: Some(p.num("pre_loss_cnt")).filter(|n| *n > 0.0),
            delay_term: if p.text("delay_term") == "srtt" { DelayTerm::Srtt } else { DelayTerm::MinRtt },
        }
    }

    /// α = 3(1 − β)/(1 + β), the Reno-friendly additive increase (RFC 9438 §4.3).
    pub fn alpha(&self) -> f64 {
        3.0 * (1.0 - self.beta) / (1.0 + self.beta)
    }
}

/// Linux 6.x: cnt ≤ 20 before the first loss (`bictcp_update`, "increase cwnd 5% per RTT").
const LINUX_PRE_LOSS_CNT: f64 = 20.0;
/// CUBIC v2.0: cnt = 50 before the first loss (spec 06 §8 item 3).
const V2_CNT_BEFORE_LOSS: f64 = 50.0;
/// CUBIC v2.0 max_increment: segments per 100 ms of min_rtt.
const V2_MAX_INCREMENT: f64 = 16.0;

/// K = ∛((W_max − w)/C) in seconds: time for W_cubic to climb back to W_max (RFC 9438 §4.2).
pub fn k_secs(w_max: f64, w: f64, c: f64) -> f64 {
    ((w_max - w) / c).cbrt()
}

/// W_cubic(t) = C·(t − K)³ + origin, segments (RFC 9438 §4.2).
pub fn w_cubic(t_secs: f64, k_secs: f64, origin: f64, c: f64) -> f64 {
    c * (t_secs - k_secs).powi(3) + origin
}

/// One congestion-avoidance epoch: from its first CA ACK to the next reduction.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Epoch {
    /// Epoch start t0.
    t0: SimTime,
    /// K, seconds.
    k_secs: f64,
    /// Plateau of the cubic curve: W_max, or w at t0 if w ≥ W_max.
    origin: f64,
    /// Reno-friendly estimate W_est, segments.
    w_est: f64,
    /// t at the latest ACK, seconds (trace).
    t_secs: f64,
}

pub struct Cubic {
    cfg: CubicConfig,
    /// W_max, segments: w before the last reduction (after fast convergence);
    /// 0 before the first reduction and after entering Loss.
    w_max: f64,
    /// None between a reduction (or slow start) and the next CA ACK.
    epoch: Option<Epoch>,
    /// Some when HyStart is on.
    hystart: Option<HyStart>,
}

impl Cubic {
    pub fn new(cfg: CubicConfig) -> Cubic {
        let hystart = cfg.hystart.then(|| HyStart::new(SimTime::ZERO));
        Cubic { cfg, w_max: 0.0, epoch: None, hystart }
    }

    /// RFC 9438 §4.2 epoch start.
    fn start_epoch(&self, now: SimTime, w: f64) -> Epoch {
        let (k_secs, origin) = if self.w_max <= w { (0.0, w) } else { (k_secs(self.w_max, w, self.cfg.c), self.w_max) };
        Epoch { t0: now, k_secs, origin, w_est: w, t_secs: 0.0 }
    }

    /// The delay term of the target, seconds (0 before any RTT sample).
    fn delay_secs(&self, ctx: &CcContext) -> f64 {
        let r = match self.cfg.delay_term {
            DelayTerm::MinRtt => ctx.min_rtt.or(ctx.srtt),
            DelayTerm::Srtt => ctx.srtt.or(ctx.min_rtt),
        };
        r.map_or(0.0, Span::as_secs_f64)
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn init(&mut self, ctx: &CcContext, w: &mut Window) {
        if let Some(ss) = self.cfg.initial_ssthresh {
            w.ssthresh = ss;
        }
        if let Some(h) = &mut self.hystart {
            h.on_round_start(ctx.now);
        }
    }

    fn on_ack(&mut self, ctx: &CcContext, w: &mut Window, ack: &AckSample) {
        let cwnd = w.cwnd;
        let credit = ack.credit;
        let delay = self.delay_secs(ctx);
        let c = self.cfg.c;
        let epoch = match self.epoch {
            Some(e) => e,
            None => self.start_epoch(ctx.now, cwnd),
        };
        let mut e = epoch;
        let t = ctx.now.since(e.t0).as_secs_f64();
        e.t_secs = t;
        let cubic_now = w_cubic(t, e.k_secs, e.origin, c);
        // RFC 9438 §4.4: aim one RTT ahead, never below w nor above 1.5·w.
        let target = w_cubic(t + delay, e.k_secs, e.origin, c).clamp(cwnd, 1.5 * cwnd);
        // RFC 9438 §4.3: Reno's growth with the same average window as AIMD(1, 0.5).
        let alpha = if e.w_est < self.w_max { self.cfg.alpha() } else { 1.0 };
        e.w_est += alpha * credit / cwnd;
        // Linux's cnt is the smallest of the curve's, the pre-loss cap's and the
        // Reno-friendly one's: the fastest of the three growths wins.
        let pre_loss = match self.cfg.pre_loss_cnt {
            Some(n) if self.w_max == 0.0 => credit / n,
            _ => 0.0,
        };
        if self.cfg.reno_friendly && cubic_now < e.w_est {
            w.cwnd = e.w_est.max(cwnd + pre_loss);
        } else {
            let mut inc = credit * (target - cwnd) / cwnd;
            if self.cfg.v2_clamps {
                if delay > 0.0 {
                    // Linux v2.0 min_cnt: at most 16 segments per 100 ms of min_rtt per RTT.
                    inc = inc.min(credit * V2_MAX_INCREMENT * delay / 0.1 / cwnd);
                }
                if self.w_max == 0.0 {
                    inc = credit / V2_CNT_BEFORE_LOSS;
                }
            }
            w.cwnd += inc.max(pre_loss);
        }
        self.epoch = Some(e);
    }

    fn ssthresh(&mut self, _ctx: &CcContext, w: &Window, _reason: SsthreshReason) -> f64 {
        let cwnd = w.cwnd;
        self.epoch = None;
        // RFC 9438 §4.7 fast convergence: release bandwidth to newer flows.
        self.w_max = if self.cfg.fast_convergence && cwnd < self.w_max { cwnd * (1.0 + self.cfg.beta) / 2.0 } else { cwnd };
        (cwnd * self.cfg.beta).max(2.0)
    }

    fn on_state_change(&mut self, ctx: &CcContext, _w: &mut Window, old: CaState, new: CaState) {
        // spec 06 §4.4: entering Loss resets all state including W_max (Linux
        // `bictcp_reset`), and Linux 6.8 `cubictcp_state` re-arms HyStart
        // (`found = 0`, `bictcp_hystart_reset`).
        if new == CaState::Loss && old != CaState::Loss {
            self.w_max = 0.0;
            self.epoch = None;
            if let Some(h) = &mut self.hystart {
                h.rearm(ctx.now);
            }
        }
    }

    fn on_rtt_sample(&mut self, ctx: &CcContext, w: &mut Window, rtt: Span) {
        let Some(h) = &mut self.hystart else { return };
        let slow_start = w.cwnd < w.ssthresh && matches!(ctx.ca_state, CaState::Open | CaState::Disorder | CaState::Loss);
        let min_rtt = ctx.min_rtt.unwrap_or(rtt);
        let ack_delay = hystart::ack_delay(ctx.pacing_rate_bytes_per_s);
        let train = hystart::train_threshold(min_rtt, ack_delay, ctx.paced, self.cfg.hystart_pacing_aware);
        if slow_start && w.cwnd >= hystart::LOW_WINDOW && h.on_ack_with_train(ctx.now, rtt, min_rtt, train).is_some() {
            w.ssthresh = w.cwnd;
        }
    }

    fn on_round_end(&mut self, ctx: &CcContext, _w: &mut Window, _round: &RoundStats) {
        if let Some(h) = &mut self.hystart {
            h.on_round_start(ctx.now);
        }
    }

    fn on_event(&mut self, ctx: &CcContext, _w: &mut Window, ev: CcEvent) {
        if let (CcEvent::IdleRestart { idle }, Some(e)) = (ev, &mut self.epoch) {
            // The idle time does not count as growth time.
            e.t0 = (e.t0 + idle).min(ctx.now);
        }
    }

    /// 2.6.20 `tcp_cubic.c` defines no `min_cwnd`: rate halving stops at ssthresh.
    fn rate_halving_floor_is_half_ssthresh(&self) -> bool {
        false
    }

    fn trace_names(&self) -> &'static [&'static str] {
        &["w_max", "k", "w_est", "t_epoch"]
    }

    /// W_max (segments, 0 before a reduction), K (s), W_est (segments), t at the
    /// latest CA ACK (s); NaN outside an epoch.
    fn trace_values(&self, out: &mut [f64]) {
        let e = self.epoch;
        let vals = [self.w_max, e.map_or(f64::NAN, |e| e.k_secs), e.map_or(f64::NAN, |e| e.w_est), e.map_or(f64::NAN, |e| e.t_secs)];
        for (o, v) in out.iter_mut().zip(vals) {
            *o = v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::cc::registry::resolve_params;

    const RTT: Span = Span::from_ms(100);

    fn ctx(now: SimTime) -> CcContext {
        CcContext { srtt: Some(RTT), min_rtt: Some(RTT), latest_rtt: Some(RTT), ..CcContext::example(now) }
    }

    fn at(secs: f64) -> SimTime {
        SimTime::from_secs_f64(secs)
    }

    fn traces(cc: &Cubic) -> [f64; 4] {
        let mut out = [0.0; 4];
        cc.trace_values(&mut out);
        out
    }

    /// A Cubic after a loss at w = `w_max` (first loss: W_max = w), cwnd = β·w_max.
    fn after_loss(cfg: CubicConfig, w_max: f64) -> (Cubic, Window) {
        let mut cc = Cubic::new(cfg);
        let ss = cc.ssthresh(&ctx(SimTime::ZERO), &Window { cwnd: w_max, ssthresh: f64::INFINITY }, SsthreshReason::FastRetransmit);
        assert_eq!(cc.w_max, w_max);
        (cc, Window { cwnd: ss, ssthresh: ss })
    }

    fn close(x: f64, want: f64, tol: f64) {
        assert!((x - want).abs() <= tol, "{x} vs {want}");
    }

    #[test]
    fn unit_vectors_beta_0_7() {
        // spec 06 §4.4, β 0.7, W_max 100, C 0.4: w = 70 after the loss,
        // K = ∛((100 − 70)/0.4) = ∛75 = 4.2172 s.
        let k = k_secs(100.0, 70.0, 0.4);
        close(k, 4.2172, 5e-5);
        // W_cubic(t) = 0.4·(t − 4.2172)³ + 100:
        // t = 0: 100 − 0.4·75 = 70; t = 1: 0.4·(−3.2172)³ = −13.319 → 86.681;
        // t = 2: 0.4·(−2.2172)³ = −4.360 → 95.640; t = K: 100; K + 1: 100.4;
        // t = 2K: 0.4·75 + 100 = 130.
        let got: Vec<f64> = [0.0, 1.0, 2.0, k, k + 1.0, 2.0 * k].iter().map(|&t| w_cubic(t, k, 100.0, 0.4)).collect();
        for (g, want) in got.iter().zip([70.000, 86.681, 95.640, 100.000, 100.400, 130.000]) {
            close(*g, want, 5e-4);
        }
        // The same K through the state machine: the first CA ACK starts the epoch.
        let (mut cc, mut w) = after_loss(CubicConfig::rfc9438(false), 100.0);
        assert_eq!(w.cwnd, 70.0);
        cc.on_ack(&ctx(at(1.0)), &mut w, &AckSample::example(1, 1448));
        close(traces(&cc)[1], 4.2172, 5e-5);
    }

    #[test]
    fn unit_vectors_beta_0_8() {
        // β 0.8: w = 80, K = ∛(20/0.4) = ∛50 = 3.6840 s;
        // W_cubic(1) = 0.4·(−2.6840)³ + 100 = −7.734 + 100 = 92.266; W_cubic(2K) = 0.4·50 + 100 = 120.
        let k = k_secs(100.0, 80.0, 0.4);
        close(k, 3.6840, 5e-5);
        close(w_cubic(1.0, k, 100.0, 0.4), 92.266, 5e-4);
        close(w_cubic(2.0 * k, k, 100.0, 0.4), 120.000, 5e-4);
    }

    #[test]
    fn reno_friendly_alpha() {
        // α = 3(1 − β)/(1 + β): β 0.7 → 0.9/1.7 = 0.5294; β 0.8 → 0.6/1.8 = 0.3333.
        close(CubicConfig::rfc9438(false).alpha(), 0.5294, 5e-5);
        close(CubicConfig { beta: 0.8, ..CubicConfig::rfc9438(false) }.alpha(), 0.3333, 5e-5);
    }

    #[test]
    fn loss_with_fast_convergence() {
        // spec 06 §4.4: loss at w 90 with W_max 100, β 0.7:
        // W_max ← 90·(1 + 0.7)/2 = 76.5; ssthresh = 0.7·90 = 63.
        let (mut cc, _) = after_loss(CubicConfig::rfc9438(false), 100.0);
        let ss = cc.ssthresh(&ctx(at(5.0)), &Window { cwnd: 90.0, ssthresh: 70.0 }, SsthreshReason::FastRetransmit);
        close(cc.w_max, 76.5, 1e-9);
        close(ss, 63.0, 1e-9);
        // Without fast convergence W_max = w = 90.
        let (mut cc, _) = after_loss(CubicConfig { fast_convergence: false, ..CubicConfig::rfc9438(false) }, 100.0);
        cc.ssthresh(&ctx(at(5.0)), &Window { cwnd: 90.0, ssthresh: 70.0 }, SsthreshReason::FastRetransmit);
        close(cc.w_max, 90.0, 1e-9);
        // A loss above W_max sets W_max = w (110), whatever fast convergence says.
        let (mut cc, _) = after_loss(CubicConfig::rfc9438(false), 100.0);
        let ss = cc.ssthresh(&ctx(at(5.0)), &Window { cwnd: 110.0, ssthresh: 70.0 }, SsthreshReason::FastRetransmit);
        close(cc.w_max, 110.0, 1e-9);
        close(ss, 77.0, 1e-9);
        // Floor 2: w 2 → max(1.4, 2).
        assert_eq!(cc.ssthresh(&ctx(at(6.0)), &Window { cwnd: 2.0, ssthresh: 70.0 }, SsthreshReason::Rto), 2.0);
    }

    #[test]
    fn target_is_at_most_one_and_a_half_w() {
        // With no loss yet the epoch has K = 0, origin = w = 20, and
        // W_cubic(t + 0.1) = 0.4·(10.1)³ + 20 ≈ 432 at t = 10 s: the target is
        // clamped to 1.5·20 = 30, so one window of ACKs (credit 20) adds
        // 20·(30 − 20)/20 = 10.
        let cfg = CubicConfig { reno_friendly: false, ..CubicConfig::rfc9438(false) };
        let mut cc = Cubic::new(cfg);
        let mut w = Window { cwnd: 20.0, ssthresh: 20.0 };
        cc.on_ack(&ctx(at(0.0)), &mut w, &AckSample { credit: 0.0, ..AckSample::example(0, 1448) });
        assert_eq!(w.cwnd, 20.0);
        cc.on_ack(&ctx(at(10.0)), &mut w, &AckSample::example(20, 1448));
        close(w.cwnd, 30.0, 1e-9);
        // And never below w: in the concave region before K growth is ≥ 0.
        let (mut cc, mut w) = after_loss(CubicConfig::rfc9438(false), 100.0);
        for i in 0..1000 {
            let before = w.cwnd;
            cc.on_ack(&ctx(at(i as f64 * 0.001)), &mut w, &AckSample::example(1, 1448));
            assert!(w.cwnd >= before && w.cwnd <= 1.5 * before);
        }
    }

    #[test]
    fn friendly_region_follows_w_est() {
        // At the epoch start (t = 0) W_cubic(0) = 70 exactly, and one ACK
        // raises W_est = 70 + α·1/70 = 70 + 0.5294/70 = 70.00756 above it, so
        // w ← W_est.
        let (mut cc, mut w) = after_loss(CubicConfig::rfc9438(false), 100.0);
        cc.on_ack(&ctx(at(1.0)), &mut w, &AckSample::example(1, 1448));
        close(w.cwnd, 70.0 + 0.9 / 1.7 / 70.0, 1e-9);
        close(traces(&cc)[2], w.cwnd, 1e-12);
        // Without the region the cubic step applies instead:
        // w += (W_cubic(0.1) − 70)/70, W_cubic(0.1) = 0.4·(0.1 − 4.2172)³ + 100 = 72.086.
        let (mut cc, mut w) = after_loss(CubicConfig { reno_friendly: false, ..CubicConfig::rfc9438(false) }, 100.0);
        cc.on_ack(&ctx(at(1.0)), &mut w, &AckSample::example(1, 1448));
        let k = k_secs(100.0, 70.0, 0.4);
        close(w.cwnd, 70.0 + (w_cubic(0.1, k, 100.0, 0.4) - 70.0) / 70.0, 1e-9);

        // Over time: with a 1 ms RTT Reno's +α per RTT (≈ 529 segments/s)
        // outruns the cubic curve, so w tracks W_est, which is > W_cubic(t).
        let (mut cc, mut w) = after_loss(CubicConfig::rfc9438(false), 100.0);
        let fast = |now| CcContext { min_rtt: Some(Span::from_ms(1)), srtt: Some(Span::from_ms(1)), ..ctx(now) };
        let mut now = at(1.0);
        for _ in 0..40 {
            let n = w.cwnd.floor() as u64;
            for _ in 0..n {
                now += Span(Span::from_ms(1).ps() / n);
                cc.on_ack(&fast(now), &mut w, &AckSample::example(1, 1448));
            }
        }
        let [_, _, w_est, t] = traces(&cc);
        close(w.cwnd, w_est, 1e-12);
        assert!(w_est > w_cubic(t, k, 100.0, 0.4) + 10.0, "W_est {w_est}, W_cubic {}", w_cubic(t, k, 100.0, 0.4));
    }

    #[test]
    fn follows_the_cubic_curve_over_a_loss_free_epoch() {
        // W_max 1000, β 0.7: w = 700, K = ∛(300/0.4) = 9.086 s. w segments are
        // ACKed one by one per 100-ms RTT; at each RTT's end w must be within 2 %
        // of W(t) = C(t − K)³ + W_max up to t = 2K (W = 1300). The Reno-friendly
        // estimate (+0.53 segments per RTT from 700) never catches up.
        let (mut cc, mut w) = after_loss(CubicConfig::rfc9438(false), 1000.0);
        let k = k_secs(1000.0, 700.0, 0.4);
        let t0 = at(1.0);
        let mut now = t0;
        let mut worst: f64 = 0.0;
        while now.since(t0).as_secs_f64() < 2.0 * k {
            let n = w.cwnd.floor() as u64;
            for i in 0..n {
                // The first ACK of the epoch arrives at t0 exactly.
                let t = if now == t0 && i == 0 { t0 } else { now + Span(RTT.ps() * (i + 1) / n) };
                cc.on_ack(&ctx(t), &mut w, &AckSample::example(1, 1448));
            }
            now += RTT;
            let want = w_cubic(now.since(t0).as_secs_f64(), k, 1000.0, 0.4);
            worst = worst.max((w.cwnd - want).abs() / want);
        }
        assert!(worst < 0.02, "worst relative deviation {worst}");
        assert!(w.cwnd > 1250.0, "reached {}", w.cwnd);
    }

    #[test]
    fn entering_loss_resets_w_max() {
        let (mut cc, mut w) = after_loss(CubicConfig::rfc9438(false), 100.0);
        cc.on_ack(&ctx(at(1.0)), &mut w, &AckSample::example(1, 1448));
        cc.on_state_change(&ctx(at(2.0)), &mut w, CaState::Open, CaState::Loss);
        assert_eq!(cc.w_max, 0.0);
        assert!(cc.epoch.is_none());
        // Next epoch starts with K = 0 at the current w.
        let mut w = Window { cwnd: 30.0, ssthresh: 30.0 };
        cc.on_ack(&ctx(at(3.0)), &mut w, &AckSample::example(1, 1448));
        assert_eq!(traces(&cc)[1], 0.0);
    }

    #[test]
    fn idle_restart_shifts_t0_not_beyond_now() {
        let (mut cc, mut w) = after_loss(CubicConfig::rfc9438(false), 100.0);
        cc.on_ack(&ctx(at(1.0)), &mut w, &AckSample::example(1, 1448));
        // 2 s into the epoch, 1.5 s idle: t0 1 s → 2.5 s, but at most now = 2 s.
        cc.on_event(&ctx(at(2.0)), &mut w, CcEvent::IdleRestart { idle: Span::from_ms(1500) });
        assert_eq!(cc.epoch.unwrap().t0, at(2.0));
        // 5 s into a fresh epoch, 1 s idle: t0 moves by 1 s.
        let (mut cc, mut w) = after_loss(CubicConfig::rfc9438(false), 100.0);
        cc.on_ack(&ctx(at(1.0)), &mut w, &AckSample::example(1, 1448));
        cc.on_event(&ctx(at(6.0)), &mut w, CcEvent::IdleRestart { idle: Span::from_secs(1) });
        assert_eq!(cc.epoch.unwrap().t0, at(2.0));
    }

    #[test]
    fn v2_clamps_before_the_first_loss() {
        // cnt = 50 before the first loss: one window of 100 ACKs adds 100/50 = 2.
        let cfg = CubicConfig { v2_clamps: true, reno_friendly: false, ..CubicConfig::linux_2_6_20() };
        let mut cc = Cubic::new(cfg);
        let mut w = Window { cwnd: 100.0, ssthresh: 100.0 };
        cc.on_ack(&ctx(at(1.0)), &mut w, &AckSample::example(100, 1448));
        close(w.cwnd, 102.0, 1e-9);
        // After a loss, max_increment: at most 16·(0.1 s/0.1 s) = 16 per RTT at
        // min_rtt 100 ms. W_max 1000, w = 800: the target (clamped to 1.5·w =
        // 1200) would add 400 with one window of credit; the clamp allows 16.
        let (mut cc, mut w) = after_loss(cfg, 1000.0);
        w.cwnd = 800.0;
        cc.on_ack(&ctx(at(1.0)), &mut w, &AckSample { credit: 0.0, ..AckSample::example(0, 1448) });
        cc.on_ack(&ctx(at(30.0)), &mut w, &AckSample::example(800, 1448));
        close(w.cwnd, 816.0, 1e-9);
    }

    /// HyStart through the hooks: slow start at w 32, min_rtt 100 ms.
    fn hystart_cc(now: SimTime) -> (Cubic, Window) {
        let mut cc = Cubic::new(CubicConfig::rfc9438(true));
        let mut w = Window { cwnd: 32.0, ssthresh: f64::INFINITY };
        cc.init(&ctx(now), &mut w);
        (cc, w)
    }

    #[test]
    fn hystart_delay_exit_sets_ssthresh_to_w() {
        // min_rtt 100 ms: threshold 100 + clamp(12.5, 4, 16) = 112.5 ms.
        for (rtt_us, exits) in [(113_000, true), (112_000, false)] {
            let start = at(1.0);
            let (mut cc, mut w) = hystart_cc(start);
            cc.on_round_end(&ctx(start), &mut w, &RoundStats::default());
            // Eight samples fill curr_rtt; the ninth is judged (Linux 6.8 hystart_update).
            for i in 1..=9u64 {
                cc.on_rtt_sample(&ctx(start + Span::from_ms(5 * i)), &mut w, Span::from_us(rtt_us));
            }
            assert_eq!(w.ssthresh == 32.0, exits, "curr_rtt {rtt_us} µs");
        }
    }

    #[test]
    fn hystart_ack_train_exit() {
        // ACKs 1 ms apart: the train passes min_rtt/2 = 50 ms at the 51st.
        let start = at(1.0);
        let (mut cc, mut w) = hystart_cc(start);
        cc.on_round_end(&ctx(start), &mut w, &RoundStats::default());
        for i in 1..=50u64 {
            cc.on_rtt_sample(&ctx(start + Span::from_ms(i)), &mut w, RTT);
        }
        assert_eq!(w.ssthresh, f64::INFINITY);
        cc.on_rtt_sample(&ctx(start + Span::from_ms(51)), &mut w, RTT);
        assert_eq!(w.ssthresh, 32.0);
    }

    #[test]
    fn hystart_needs_16_segments_and_slow_start() {
        let start = at(1.0);
        let (mut cc, mut w) = hystart_cc(start);
        w.cwnd = 15.0;
        for i in 1..=60u64 {
            cc.on_rtt_sample(&ctx(start + Span::from_ms(i)), &mut w, Span::from_ms(200));
        }
        assert_eq!(w.ssthresh, f64::INFINITY);
        // Off by default under the older profiles and for linux-2.6.20.
        for (profile, variant, on) in [("linux-modern", "rfc9438", true), ("linux-2.6", "rfc9438", false), ("linux-modern", "linux-2.6.20", false)] {
            let p = resolve_params("cubic", profile, &CcParams::new().with_text("variant", variant)).unwrap();
            assert_eq!(p.flag("hystart"), on, "{profile} {variant}");
        }
    }

    /// Linux 6.8 `bictcp_update`: before the first loss cnt ≤ 20, so one window
    /// of ACKs adds at least w/20 (5 % per RTT). Without the cap, a curve with
    /// K = 0 starts flat and only the Reno-friendly W_est (+1 per RTT) moves w.
    #[test]
    fn pre_loss_growth_is_five_percent_per_rtt_under_linux_modern() {
        let p = resolve_params("cubic", "linux-modern", &CcParams::new()).unwrap();
        assert_eq!(p.num("pre_loss_cnt"), 20.0);
        assert_eq!(resolve_params("cubic", "linux-2.6", &CcParams::new()).unwrap().num("pre_loss_cnt"), 0.0);
        let grow = |cfg: CubicConfig| {
            let mut cc = Cubic::new(cfg);
            let mut w = Window { cwnd: 100.0, ssthresh: 100.0 };
            // The epoch opens at 1 s; one window of ACKs (100 of credit 1) over the next RTT.
            cc.on_ack(&ctx(at(1.0)), &mut w, &AckSample { credit: 0.0, ..AckSample::example(0, 1448) });
            for i in 0..100u64 {
                cc.on_ack(&ctx(at(1.0) + Span::from_ms(i)), &mut w, &AckSample::example(1, 1448));
            }
            w.cwnd
        };
        let modern = grow(CubicConfig::linux_modern());
        assert!(modern >= 100.0 * 1.05 - 0.2, "5 % per RTT: {modern}");
        let plain = grow(CubicConfig::rfc9438(true));
        assert!(plain < 101.5, "the flat start of the curve, W_est +1: {plain}");
        // After a loss (W_max > 0) the cap no longer applies.
        let mut cc = Cubic::new(CubicConfig::linux_modern());
        let mut w = Window { cwnd: 100.0, ssthresh: 100.0 };
        w.ssthresh = cc.ssthresh(&ctx(at(0.5)), &w, SsthreshReason::FastRetransmit);
        w.cwnd = w.ssthresh;
        cc.on_ack(&ctx(at(1.0)), &mut w, &AckSample { credit: 0.0, ..AckSample::example(0, 1448) });
        for i in 0..70u64 {
            cc.on_ack(&ctx(at(1.0) + Span::from_ms(i)), &mut w, &AckSample::example(1, 1448));
        }
        assert!(w.cwnd < 70.0 * 1.05 - 1.0, "below W_max the concave curve rules: {}", w.cwnd);
    }

    /// 2.6.20 `tcp_cubic.c` (MODULE_VERSION "2.0") has the v2.0 clamps.
    #[test]
    fn the_2_6_20_variant_has_its_v2_clamps() {
        let p = resolve_params("cubic", "linux-2.6", &CcParams::new().with_text("variant", "linux-2.6.20")).unwrap();
        assert!(p.flag("v2_clamps"));
        assert_eq!(p.num("pre_loss_cnt"), 0.0);
    }

    /// Linux 6.8 `cubictcp_state`: entering Loss re-arms HyStart.
    #[test]
    fn loss_rearms_hystart() {
        let start = at(1.0);
        let (mut cc, mut w) = hystart_cc(start);
        cc.on_round_end(&ctx(start), &mut w, &RoundStats::default());
        for i in 1..=9u64 {
            cc.on_rtt_sample(&ctx(start + Span::from_ms(5 * i)), &mut w, Span::from_ms(200));
        }
        assert_eq!(w.ssthresh, 32.0);
        cc.on_state_change(&ctx(at(3.0)), &mut w, CaState::Open, CaState::Loss);
        w.ssthresh = f64::INFINITY;
        cc.on_round_end(&ctx(at(3.0)), &mut w, &RoundStats::default());
        for i in 1..=9u64 {
            cc.on_rtt_sample(&ctx(at(3.0) + Span::from_ms(5 * i)), &mut w, Span::from_ms(200));
        }
        assert_eq!(w.ssthresh, 32.0, "HyStart fires again after the RTO");
    }

    #[test]
    fn variant_defaults_and_overrides() {
        // linux-2.6.20: β 819/1024, C 410/1024, initial ssthresh 100.
        let p = resolve_params("cubic", "linux-2.6", &CcParams::new().with_text("variant", "linux-2.6.20")).unwrap();
        assert_eq!(CubicConfig::from_params(&p), CubicConfig::linux_2_6_20());
        let mut cc = Cubic::new(CubicConfig::from_params(&p));
        let mut w = Window { cwnd: 3.0, ssthresh: f64::INFINITY };
        cc.init(&ctx(SimTime::ZERO), &mut w);
        assert_eq!(w.ssthresh, 100.0);
        // rfc9438: initial ssthresh 0 = ∞ leaves the socket's value.
        let p = resolve_params("cubic", "linux-modern", &CcParams::new()).unwrap();
        assert_eq!(p.num("initial_ssthresh"), 0.0);
        let mut cc = Cubic::new(CubicConfig::from_params(&p));
        let mut w = Window { cwnd: 10.0, ssthresh: f64::INFINITY };
        cc.init(&ctx(SimTime::ZERO), &mut w);
        assert_eq!(w.ssthresh, f64::INFINITY);
        // Explicit values beat the variant's.
        let given = CcParams::new().with_text("variant", "linux-2.6.20").with_num("beta", 0.7).with_bool("hystart", true);
        let cfg = CubicConfig::from_params(&resolve_params("cubic", "linux-2.6", &given).unwrap());
        assert_eq!((cfg.beta, cfg.c, cfg.hystart, cfg.initial_ssthresh), (0.7, 410.0 / 1024.0, true, Some(100.0)));
    }
}
