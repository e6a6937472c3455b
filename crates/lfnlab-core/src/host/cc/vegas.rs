//! TCP Vegas (spec 06 §4.4; Brakmo & Peterson 1995, Linux `tcp_vegas.c`).
//!
//! baseRTT = minimum RTT sample ever. The core does slow start. At a round end
//! with more than 2 samples, with minRTT the round's minimum:
//! target = w·baseRTT/minRTT, diff = w − target (segments queued in the path);
//! - slow start and diff > γ: w ← min(w, ⌊target⌋ + 1), ssthresh ← 2;
//! - congestion avoidance: diff > β → w −= 1; diff < α → w += 1;
//! - w ≥ 2.
//!
//! With ≤ 2 samples a CA round adds 1 (Reno's rate). Nothing changes between
//! round ends; ssthresh is Reno's.
//!
//! | variant | α | β | γ (segments) |
//! |---|---|---|---|
//! | `linux` (default) | 2 | 4 | 1 |
//! | `paper` (paper, ns-2, Linux 2.6.12) | 1 | 3 | 1 |
//!
//! `diff_by_base_rtt` (off, spec 06 §8 item 4) selects recent Linux's
//! diff = w·(minRTT − baseRTT)/baseRTT instead of w·(minRTT − baseRTT)/minRTT.

use super::params::{ParamDef, ParamKind};
use super::registry::Algorithm;
use super::reno::Basis;
use super::{AckSample, CaState, CcContext, CcParams, CongestionControl, RoundStats, SsthreshReason, Window};
use crate::engine::time::Span;

/// `vegas` (spec 06 §4.4).
pub const VEGAS: Algorithm = Algorithm {
    name: "vegas",
    about: "Vegas: keep α…β segments queued, judged once per round from the RTT",
    params: PARAMS,
    defaults,
    create: |p, ctx| Box::new(Vegas::new(VegasConfig::from_params(p), ctx.basis)),
};

const PARAMS: &[ParamDef] = &[
    ParamDef { name: "variant", kind: ParamKind::Choice(&["linux", "paper"]), about: "α/β/γ set: linux 2/4/1 or paper 1/3/1" },
    ParamDef { name: "alpha", kind: ParamKind::Num { min: 0.0, max: 1e6 }, about: "grow below α queued segments" },
    ParamDef { name: "beta", kind: ParamKind::Num { min: 0.0, max: 1e6 }, about: "shrink above β queued segments" },
    ParamDef { name: "gamma", kind: ParamKind::Num { min: 0.0, max: 1e6 }, about: "leave slow start above γ queued segments" },
    ParamDef { name: "diff_by_base_rtt", kind: ParamKind::Bool, about: "recent Linux: diff = w·(minRTT − baseRTT)/baseRTT" },
];

fn defaults(_profile: &str, given: &CcParams) -> CcParams {
    let variant = given.text_or("variant", "linux");
    let cfg = VegasConfig::for_variant(variant);
    CcParams::new()
        .with_text("variant", variant)
        .with_num("alpha", cfg.alpha)
        .with_num("beta", cfg.beta)
        .with_num("gamma", cfg.gamma)
        .with_bool("diff_by_base_rtt", false)
}

/// Resolved Vegas parameters; thresholds in segments.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VegasConfig {
    pub alpha: f64,
    pub beta: f64,
    pub gamma: f64,
    pub diff_by_base_rtt: bool,
}

impl VegasConfig {
    /// `linux`: α 2, β 4, γ 1.
    pub const LINUX: VegasConfig = VegasConfig { alpha: 2.0, beta: 4.0, gamma: 1.0, diff_by_base_rtt: false };
    /// `paper`: α 1, β 3, γ 1.
    pub const PAPER: VegasConfig = VegasConfig { alpha: 1.0, beta: 3.0, gamma: 1.0, diff_by_base_rtt: false };

    fn for_variant(variant: &str) -> VegasConfig {
        if variant == "paper" { VegasConfig::PAPER } else { VegasConfig::LINUX }
    }

    pub fn from_params(p: &CcParams) -> VegasConfig {
        VegasConfig { alpha: p.num("alpha"), beta: p.num("beta"), gamma: p.num("gamma"), diff_by_base_rtt: p.flag("diff_by_base_rtt") }
    }
}

pub struct Vegas {
    cfg: VegasConfig,
    /// Basis of Reno's ssthresh.
    basis: Basis,
    /// Minimum RTT sample ever.
    base_rtt: Option<Span>,
    /// diff at the latest decision, segments (trace; NaN before one).
    diff: f64,
    /// `on_ack` ran since the last round end: the socket found the flow
    /// cwnd-limited (spec 06 §2.4), so a round-end increase is earned.
    cwnd_limited: bool,
}

impl Vegas {
    pub fn new(cfg: VegasConfig, basis: Basis) -> Vegas {
        Vegas { cfg, basis, base_rtt: None, diff: f64::NAN, cwnd_limited: false }
    }
}

impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }

    /// No CA change between round ends; only note that growth is cwnd-limited.
    fn on_ack(&mut self, _ctx: &CcContext, _w: &mut Window, _ack: &AckSample) {
        self.cwnd_limited = true;
    }

    fn ssthresh(&mut self, ctx: &CcContext, w: &Window, _reason: SsthreshReason) -> f64 {
        let basis = match self.basis {
            Basis::Cwnd => w.cwnd,
            Basis::FlightSize => ctx.flight_size as f64,
        };
        (basis / 2.0).max(2.0)
    }

    fn on_rtt_sample(&mut self, _ctx: &CcContext, _w: &mut Window, rtt: Span) {
        self.base_rtt = Some(self.base_rtt.map_or(rtt, |b| b.min(rtt)));
    }

    fn on_round_end(&mut self, ctx: &CcContext, w: &mut Window, round: &RoundStats) {
        let limited = std::mem::take(&mut self.cwnd_limited);
        // Vegas steers only where the core grows cwnd outside recovery
        // (Linux switches Vegas off outside Open).
        if !matches!(ctx.ca_state, CaState::Open | CaState::Disorder) {
            return;
        }
        let slow_start = w.cwnd < w.ssthresh;
        let (Some(base), Some(rtt)) = (self.base_rtt, round.min_rtt) else { return };
        if round.samples <= 2 {
            // Too few samples to judge: Reno's +1 per round in CA.
            if !slow_start && limited {
                w.cwnd += 1.0;
            }
            return;
        }
        // In picoseconds, so that queueing delay (rtt − base) is exact.
        let (base, rtt) = (base.ps().max(1) as f64, rtt.ps().max(1) as f64);
        let target = w.cwnd * base / rtt;
        let diff = w.cwnd * (rtt - base) / if self.cfg.diff_by_base_rtt { base } else { rtt };
        self.diff = diff;
        if slow_start {
            if diff > self.cfg.gamma {
                // Too fast: match the measured rate (+1 for the truncation) and switch to CA.
                w.cwnd = w.cwnd.min(target.floor() + 1.0);
                w.ssthresh = 2.0;
            }
        } else if diff > self.cfg.beta {
            w.cwnd -= 1.0;
        } else if diff < self.cfg.alpha && limited {
            w.cwnd += 1.0;
        }
        w.cwnd = w.cwnd.max(2.0);
    }

    fn trace_names(&self) -> &'static [&'static str] {
        &["base_rtt", "diff"]
    }

    /// baseRTT (s, NaN before a sample), diff (segments, NaN before a decision).
    fn trace_values(&self, out: &mut [f64]) {
        let vals = [self.base_rtt.map_or(f64::NAN, Span::as_secs_f64), self.diff];
        for (o, v) in out.iter_mut().zip(vals) {
            *o = v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::SimTime;
    use crate::host::cc::registry::resolve_params;

    fn ctx() -> CcContext {
        CcContext::example(SimTime::from_secs_f64(1.0))
    }

    fn round(samples: u32, min_rtt_ms: u64) -> RoundStats {
        RoundStats { min_rtt: Some(Span::from_ms(min_rtt_ms)), mean_rtt: Some(Span::from_ms(min_rtt_ms)), samples, acked_segments: 10 }
    }

    /// A Vegas with baseRTT 100 ms.
    fn vegas(cfg: VegasConfig) -> Vegas {
        let mut v = Vegas::new(cfg, Basis::Cwnd);
        let mut w = Window { cwnd: 10.0, ssthresh: 10.0 };
        v.on_rtt_sample(&ctx(), &mut w, Span::from_ms(120));
        v.on_rtt_sample(&ctx(), &mut w, Span::from_ms(100));
        v.on_rtt_sample(&ctx(), &mut w, Span::from_ms(130));
        assert_eq!(v.base_rtt, Some(Span::from_ms(100)), "baseRTT is the minimum ever");
        v
    }

    /// One cwnd-limited CA round of `samples` samples with round minimum 110 ms.
    fn ca_round(cfg: VegasConfig, cwnd: f64, samples: u32) -> f64 {
        let mut v = vegas(cfg);
        let mut w = Window { cwnd, ssthresh: 2.0 };
        v.on_ack(&ctx(), &mut w, &AckSample::example(1, 1448));
        assert_eq!(w.cwnd, cwnd, "no change between round ends");
        v.on_round_end(&ctx(), &mut w, &round(samples, 110));
        w.cwnd
    }

    #[test]
    fn too_many_queued_shrinks_under_both_sets() {
        // baseRTT 100, minRTT 110, w 50: target = 50·100/110 = 45.455,
        // diff = 4.545 > β (4 linux, 3 paper) → w − 1.
        assert_eq!(ca_round(VegasConfig::LINUX, 50.0, 10), 49.0);
        assert_eq!(ca_round(VegasConfig::PAPER, 50.0, 10), 49.0);
    }

    #[test]
    fn few_queued_grows_under_linux_only() {
        // w 20: target = 18.182, diff = 1.818: < α = 2 (linux) → +1;
        // between α = 1 and β = 3 (paper) → no change.
        assert_eq!(ca_round(VegasConfig::LINUX, 20.0, 10), 21.0);
        assert_eq!(ca_round(VegasConfig::PAPER, 20.0, 10), 20.0);
        let mut v = vegas(VegasConfig::LINUX);
        let mut w = Window { cwnd: 20.0, ssthresh: 2.0 };
        v.on_round_end(&ctx(), &mut w, &round(10, 110));
        let mut out = [0.0; 2];
        v.trace_values(&mut out);
        assert!((out[0] - 0.1).abs() < 1e-12 && (out[1] - 20.0 / 11.0).abs() < 1e-12, "{out:?}");
        // Not cwnd-limited during the round (no on_ack): no increase.
        assert_eq!(w.cwnd, 20.0);
    }

    #[test]
    fn slow_start_exit() {
        // w 64 in slow start: target = 64·100/110 = 58.18, diff = 5.82 > γ = 1
        // → w = min(64, ⌊58.18⌋ + 1) = 59, ssthresh 2.
        let mut v = vegas(VegasConfig::LINUX);
        let mut w = Window { cwnd: 64.0, ssthresh: f64::INFINITY };
        v.on_round_end(&ctx(), &mut w, &round(10, 110));
        assert_eq!((w.cwnd, w.ssthresh), (59.0, 2.0));
        // diff ≤ γ keeps slow start: w 10 → diff 0.909.
        let mut w = Window { cwnd: 10.0, ssthresh: f64::INFINITY };
        v.on_round_end(&ctx(), &mut w, &round(10, 110));
        assert_eq!((w.cwnd, w.ssthresh), (10.0, f64::INFINITY));
    }

    #[test]
    fn two_samples_take_no_vegas_step() {
        // w 50 with 2 samples: no −1 decision; CA behaves as Reno, +1 per round.
        assert_eq!(ca_round(VegasConfig::LINUX, 50.0, 2), 51.0);
        // In slow start nothing happens: w 64 keeps growing.
        let mut v = vegas(VegasConfig::LINUX);
        let mut w = Window { cwnd: 64.0, ssthresh: f64::INFINITY };
        v.on_round_end(&ctx(), &mut w, &round(2, 110));
        assert_eq!((w.cwnd, w.ssthresh), (64.0, f64::INFINITY));
    }

    #[test]
    fn diff_by_base_rtt_variant() {
        // Recent Linux: diff = w·(110 − 100)/100 = 0.1·w: w 50 → 5 > 4 → −1;
        // w 20 → 2, not < α = 2 → no change.
        let cfg = VegasConfig { diff_by_base_rtt: true, ..VegasConfig::LINUX };
        assert_eq!(ca_round(cfg, 50.0, 10), 49.0);
        assert_eq!(ca_round(cfg, 20.0, 10), 20.0);
    }

    #[test]
    fn no_steering_in_recovery_and_floor_two() {
        let mut v = vegas(VegasConfig::LINUX);
        let mut w = Window { cwnd: 50.0, ssthresh: 25.0 };
        v.on_round_end(&CcContext { ca_state: CaState::Recovery, ..ctx() }, &mut w, &round(10, 110));
        assert_eq!(w.cwnd, 50.0);
        // w 2, minRTT 110: diff = 2 − 2·100/110 = 0.18 > β = 0.1 → w − 1 = 1,
        // floored at 2.
        let cfg = VegasConfig { alpha: 0.05, beta: 0.1, ..VegasConfig::LINUX };
        assert_eq!(ca_round(cfg, 2.0, 10), 2.0);
    }

    #[test]
    fn variant_defaults_and_overrides() {
        let p = resolve_params("vegas", "linux-modern", &CcParams::new()).unwrap();
        assert_eq!(VegasConfig::from_params(&p), VegasConfig::LINUX);
        let p = resolve_params("vegas", "linux-2.6", &CcParams::new().with_text("variant", "paper")).unwrap();
        assert_eq!(VegasConfig::from_params(&p), VegasConfig::PAPER);
        let p = resolve_params("vegas", "linux-2.6", &CcParams::new().with_text("variant", "paper").with_num("beta", 5.0)).unwrap();
        assert_eq!(VegasConfig::from_params(&p), VegasConfig { beta: 5.0, ..VegasConfig::PAPER });
    }
}
