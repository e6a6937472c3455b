//! FAST TCP (spec 06 §4.4; Wei, Jin, Low & Hegde 2006).
//!
//! Once per round, at its end:
//! w ← min{2w, (1 − γ)·w + γ·(baseRTT/avgRTT·w + α)},
//! baseRTT = minimum RTT sample ever, avgRTT = mean of the round's samples
//! (CHOICE). α = 200 segments, γ = 0.5 and one update per RTT are CHOICE
//! (unverified constant), both overridable. The equilibrium keeps α segments
//! queued: w·(1 − baseRTT/avgRTT) = α.
//!
//! The core does slow start until a round end finds the backlog
//! w·(1 − baseRTT/avgRTT) ≥ α, which sets ssthresh ← w; from then on every
//! update keeps ssthresh ≤ w − 1, so the core never slow-starts between two
//! updates (a decrease would otherwise be undone at +1 per ACK). ssthresh hook:
//! max(w/2, 2). Updates run only in Open (and Disorder), so they pause in
//! Recovery, Loss and CWR and resume on return to Open.

use super::params::{ParamDef, ParamKind};
use super::registry::Algorithm;
use super::{AckSample, CaState, CcContext, CcParams, CongestionControl, RoundStats, SsthreshReason, Window};
use crate::engine::time::Span;

/// `fast` (spec 06 §4.4).
pub const FAST: Algorithm = Algorithm {
    name: "fast",
    about: "FAST TCP: per-RTT window equation keeping α segments queued",
    params: PARAMS,
    defaults: |_, _| CcParams::new().with_num("alpha", DEFAULT_ALPHA).with_num("gamma", DEFAULT_GAMMA),
    create: |p, _| Box::new(Fast::new(p.num("alpha"), p.num("gamma"))),
};

/// Target backlog α, segments (CHOICE, unverified constant).
pub const DEFAULT_ALPHA: f64 = 200.0;
/// Step γ (CHOICE, unverified constant).
pub const DEFAULT_GAMMA: f64 = 0.5;

const PARAMS: &[ParamDef] = &[
    ParamDef { name: "alpha", kind: ParamKind::Num { min: 0.0, max: 1e9 }, about: "target backlog α, segments" },
    ParamDef { name: "gamma", kind: ParamKind::Num { min: 1e-6, max: 1.0 }, about: "update step γ in (0, 1]" },
];

pub struct Fast {
    /// α, segments.
    alpha: f64,
    /// γ.
    gamma: f64,
    /// Minimum RTT sample ever.
    base_rtt: Option<Span>,
    /// Mean RTT of the latest round (trace).
    avg_rtt: Option<Span>,
    /// `on_ack` ran since the last round end: the socket found the flow
    /// cwnd-limited (spec 06 §2.4), so a round-end increase is earned.
    cwnd_limited: bool,
}

impl Fast {
    pub fn new(alpha: f64, gamma: f64) -> Fast {
        Fast { alpha, gamma, base_rtt: None, avg_rtt: None, cwnd_limited: false }
    }

    /// The FAST window equation, segments.
    pub fn update(&self, w: f64, base_over_avg: f64) -> f64 {
        (2.0 * w).min((1.0 - self.gamma) * w + self.gamma * (base_over_avg * w + self.alpha))
    }
}

impl CongestionControl for Fast {
    fn name(&self) -> &'static str {
        "fast"
    }

    /// No change between round ends; only note that growth is cwnd-limited.
    fn on_ack(&mut self, _ctx: &CcContext, _w: &mut Window, _ack: &AckSample) {
        self.cwnd_limited = true;
    }

    fn ssthresh(&mut self, _ctx: &CcContext, w: &Window, _reason: SsthreshReason) -> f64 {
        (w.cwnd / 2.0).max(2.0)
    }

    fn on_rtt_sample(&mut self, _ctx: &CcContext, _w: &mut Window, rtt: Span) {
        self.base_rtt = Some(self.base_rtt.map_or(rtt, |b| b.min(rtt)));
    }

    fn on_round_end(&mut self, ctx: &CcContext, w: &mut Window, round: &RoundStats) {
        let limited = std::mem::take(&mut self.cwnd_limited);
        if round.samples == 0 {
            return;
        }
        let (Some(base), Some(avg)) = (self.base_rtt, round.mean_rtt) else { return };
        self.avg_rtt = Some(avg);
        if !matches!(ctx.ca_state, CaState::Open | CaState::Disorder) {
            return;
        }
        // In picoseconds, so that queueing delay (avg − base) is exact.
        let (base, avg) = (base.ps() as f64, avg.ps().max(1) as f64);
        let ratio = base / avg;
        if w.cwnd < w.ssthresh {
            // Leave slow start once α segments are queued: w·(1 − baseRTT/avgRTT) ≥ α.
            if w.cwnd * (avg - base) / avg >= self.alpha {
                w.ssthresh = w.cwnd;
            }
            return;
        }
        let next = self.update(w.cwnd, ratio);
        // Growth only when the window was the limit (spec 06 §2.4).
        if next < w.cwnd || limited {
            w.cwnd = next;
        }
        // Out of slow start FAST alone sets the window: keep ssthresh below it so
        // that a decrease does not hand the flow back to the core's slow start
        // (as Linux Vegas: ssthresh ← min(ssthresh, cwnd − 1)).
        w.ssthresh = w.ssthresh.min(w.cwnd - 1.0);
    }

    fn trace_names(&self) -> &'static [&'static str] {
        &["base_rtt", "avg_rtt"]
    }

    /// baseRTT and the latest round's avgRTT, s (NaN before a sample).
    fn trace_values(&self, out: &mut [f64]) {
        let vals = [self.base_rtt.map_or(f64::NAN, Span::as_secs_f64), self.avg_rtt.map_or(f64::NAN, Span::as_secs_f64)];
        for (o, v) in out.iter_mut().zip(vals) {
            *o = v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::SimTime;

    fn ctx() -> CcContext {
        CcContext::example(SimTime::from_secs_f64(1.0))
    }

    fn round(mean_ms: u64) -> RoundStats {
        RoundStats { min_rtt: Some(Span::from_ms(100)), mean_rtt: Some(Span::from_ms(mean_ms)), samples: 10, acked_segments: 10 }
    }

    /// A FAST with baseRTT 100 ms.
    fn fast() -> Fast {
        let mut f = Fast::new(DEFAULT_ALPHA, DEFAULT_GAMMA);
        let mut w = Window { cwnd: 10.0, ssthresh: 10.0 };
        f.on_rtt_sample(&ctx(), &mut w, Span::from_ms(130));
        f.on_rtt_sample(&ctx(), &mut w, Span::from_ms(100));
        f
    }

    /// One cwnd-limited CA round with avgRTT `mean_ms`.
    fn ca_round(cwnd: f64, mean_ms: u64) -> f64 {
        let mut f = fast();
        let mut w = Window { cwnd, ssthresh: 2.0 };
        f.on_ack(&ctx(), &mut w, &AckSample::example(1, 1448));
        assert_eq!(w.cwnd, cwnd, "no change between round ends");
        f.on_round_end(&ctx(), &mut w, &round(mean_ms));
        w.cwnd
    }

    #[test]
    fn equilibrium_holds() {
        // baseRTT 100, avgRTT 125, w 1000: 0.5·1000 + 0.5·(0.8·1000 + 200) = 1000
        // (backlog 1000·(1 − 0.8) = 200 = α); min with 2w = 2000 keeps 1000.
        assert!((ca_round(1000.0, 125) - 1000.0).abs() < 1e-9);
    }

    #[test]
    fn empty_queue_grows() {
        // avgRTT = baseRTT: w 1000 → 0.5·1000 + 0.5·(1000 + 200) = 1100.
        assert!((ca_round(1000.0, 100) - 1100.0).abs() < 1e-9);
        // w 10 → 0.5·10 + 0.5·(10 + 200) = 110, capped at 2w = 20.
        assert!((ca_round(10.0, 100) - 20.0).abs() < 1e-9);
    }

    #[test]
    fn no_growth_without_the_window_as_the_limit() {
        let mut f = fast();
        let mut w = Window { cwnd: 1000.0, ssthresh: 2.0 };
        f.on_round_end(&ctx(), &mut w, &round(100));
        assert_eq!(w.cwnd, 1000.0);
        // A decrease needs no cwnd limit: avgRTT 200 → 0.5·1000 + 0.5·(500 + 200) = 850.
        f.on_round_end(&ctx(), &mut w, &round(200));
        assert!((w.cwnd - 850.0).abs() < 1e-9);
    }

    #[test]
    fn slow_start_exit_at_alpha_backlog() {
        let mut f = fast();
        // w 800, avgRTT 125: backlog 800·0.2 = 160 < 200: stay in slow start.
        let mut w = Window { cwnd: 800.0, ssthresh: f64::INFINITY };
        f.on_round_end(&ctx(), &mut w, &round(125));
        assert_eq!((w.cwnd, w.ssthresh), (800.0, f64::INFINITY));
        // w 1000: backlog 200 ≥ α → ssthresh ← w.
        let mut w = Window { cwnd: 1000.0, ssthresh: f64::INFINITY };
        f.on_round_end(&ctx(), &mut w, &round(125));
        assert_eq!((w.cwnd, w.ssthresh), (1000.0, 1000.0));
        let mut out = [0.0; 2];
        f.trace_values(&mut out);
        assert_eq!(out, [0.1, 0.125]);
    }

    #[test]
    fn a_decrease_stays_out_of_slow_start() {
        // Slow start ended at w = ssthresh = 1000; the next round sees avgRTT 200 ms:
        // 0.5·1000 + 0.5·(500 + 200) = 850 < ssthresh. The window must stay FAST's.
        let mut f = fast();
        let mut w = Window { cwnd: 1000.0, ssthresh: 1000.0 };
        f.on_ack(&ctx(), &mut w, &AckSample::example(1, 1448));
        f.on_round_end(&ctx(), &mut w, &round(200));
        assert!((w.cwnd - 850.0).abs() < 1e-9);
        assert!(w.ssthresh < w.cwnd, "ssthresh {} ≥ cwnd {}: the core would slow-start", w.ssthresh, w.cwnd);
        // The following round updates again (not the slow-start branch): avgRTT 100 → growth.
        f.on_ack(&ctx(), &mut w, &AckSample::example(1, 1448));
        f.on_round_end(&ctx(), &mut w, &round(100));
        assert!((w.cwnd - (0.5 * 850.0 + 0.5 * (850.0 + 200.0))).abs() < 1e-9);
    }

    #[test]
    fn updates_pause_outside_open() {
        let mut f = fast();
        for state in [CaState::Recovery, CaState::Loss, CaState::Cwr] {
            let mut w = Window { cwnd: 500.0, ssthresh: 2.0 };
            f.on_ack(&ctx(), &mut w, &AckSample::example(1, 1448));
            f.on_round_end(&CcContext { ca_state: state, ..ctx() }, &mut w, &round(100));
            assert_eq!(w.cwnd, 500.0, "{state:?}");
        }
        // ssthresh hook: max(w/2, 2).
        assert_eq!(f.ssthresh(&ctx(), &Window { cwnd: 1000.0, ssthresh: 2.0 }, SsthreshReason::FastRetransmit), 500.0);
        assert_eq!(f.ssthresh(&ctx(), &Window { cwnd: 3.0, ssthresh: 2.0 }, SsthreshReason::Rto), 2.0);
    }
}
