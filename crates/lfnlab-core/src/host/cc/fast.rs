//! FAST TCP (spec 06 §4.4; Wei, Jin, Low & Hegde 2006).
//!
//! At the end of an update round:
//! w ← min{2w, (1 − γ)·w + γ·(baseRTT/avgRTT·w + α)},
//! baseRTT = minimum RTT sample ever, avgRTT = mean of the round's samples
//! (CHOICE). α = 200 segments (CHOICE, spec 01 §2.7; the ns-2 module's default is
//! 100, its test 1 uses 200) and γ = 0.5 (the ns-2 module's default), both
//! overridable. The equilibrium keeps α segments queued: w·(1 − baseRTT/avgRTT) = α.
//!
//! Update period and burstiness control follow the released FAST code as the
//! University of Melbourne ns-2 module (v1.1.3, `tcp/tcp-fast.cc`) has it (issue 39
//! item 3): updates run every other round (`UPDATE_CWND_EVERY_OTHER_RTT`, "as in
//! Linux"; `update_period = "every_other_rtt"`), and an increase is not applied at
//! once but paced over the ACKs of the next `pacing_interval` (10 ms,
//! `cwnd_update_period_`): `fast_pace` adds one segment every
//! ⌊ACKs per interval / increments⌋ ACKs, the increments being ⌊target − w⌋, all at
//! once while w ≤ 4 (never more than doubling), and only when baseRTT ≥ 4 ms;
//! decreases apply at once. Without it a round-end increase of Δ segments lets
//! the next ACK release Δ back to back at line rate. Not followed (CHOICE): ns-2
//! repeats the update every 10 ms inside an update round with a per-ACK EWMA of the
//! RTT and its own multiplicative-increase start; ACKs are counted only while the
//! socket calls `on_ack` (cwnd-limited); pending increments are dropped on a loss.
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
    defaults: |_, _| {
        CcParams::new()
            .with_num("alpha", DEFAULT_ALPHA)
            .with_num("gamma", DEFAULT_GAMMA)
            .with_text("update_period", "every_other_rtt")
            .with_bool("window_pacing", true)
            .with_num("pacing_interval_s", DEFAULT_PACING_INTERVAL_S)
    },
    create: |p, _| {
        Box::new(Fast::new(p.num("alpha"), p.num("gamma")).with_period(p.text("update_period") == "every_other_rtt").with_pacing(
            p.flag("window_pacing"),
            Span::from_secs_f64(p.num("pacing_interval_s")),
        ))
    },
};

/// Target backlog α, segments (CHOICE, spec 01 §2.7).
pub const DEFAULT_ALPHA: f64 = 200.0;
/// Step γ: the ns-2 module's `gamma_` default (tcl/lib/ns-default.tcl).
pub const DEFAULT_GAMMA: f64 = 0.5;
/// Window pacing interval: the ns-2 module's `cwnd_update_period_` (0.01 s).
pub const DEFAULT_PACING_INTERVAL_S: f64 = 0.01;
/// Window pacing needs baseRTT ≥ 4 ms (`fast_cc`: `baseRTT_ >= 0.004`).
const PACING_MIN_BASE_RTT: Span = Span::from_ms(4);

const PARAMS: &[ParamDef] = &[
    ParamDef { name: "alpha", kind: ParamKind::Num { min: 0.0, max: 1e9 }, about: "target backlog α, segments" },
    ParamDef { name: "gamma", kind: ParamKind::Num { min: 1e-6, max: 1.0 }, about: "update step γ in (0, 1]" },
    ParamDef {
        name: "update_period",
        kind: ParamKind::Choice(&["every_rtt", "every_other_rtt"]),
        about: "rounds between window updates",
    },
    ParamDef { name: "window_pacing", kind: ParamKind::Bool, about: "spread an increase over the next pacing_interval of ACKs" },
    ParamDef { name: "pacing_interval_s", kind: ParamKind::Num { min: 1e-6, max: 10.0 }, about: "window pacing interval, s" },
];

pub struct Fast {
    /// α, segments.
    alpha: f64,
    /// γ.
    gamma: f64,
    /// Update every other round (else every round).
    every_other: bool,
    /// The next round end is an update round.
    update_due: bool,
    /// Window pacing on, and its interval.
    pacing: bool,
    pacing_interval: Span,
    /// Minimum RTT sample ever.
    base_rtt: Option<Span>,
    /// Mean RTT of the latest round (trace).
    avg_rtt: Option<Span>,
    /// `on_ack` ran since the last round end: the socket found the flow
    /// cwnd-limited (spec 06 §2.4), so a round-end increase is earned.
    cwnd_limited: bool,
    /// ACKs seen this round and in the last one (ns-2 `acks_per_rtt`, `acks_last_rtt`).
    acks_this_round: u64,
    acks_last_round: u64,
    /// Window pacing state (ns-2 `cwnd_increments`, `bc_spacing`, `bc_ack`).
    increments: u64,
    bc_spacing: u64,
    bc_ack: u64,
}

impl Fast {
    pub fn new(alpha: f64, gamma: f64) -> Fast {
        Fast {
            alpha,
            gamma,
            every_other: false,
            update_due: true,
            pacing: false,
            pacing_interval: Span::from_secs_f64(DEFAULT_PACING_INTERVAL_S),
            base_rtt: None,
            avg_rtt: None,
            cwnd_limited: false,
            acks_this_round: 0,
            acks_last_round: 0,
            increments: 0,
            bc_spacing: 0,
            bc_ack: 0,
        }
    }

    /// Update every other round (`true`) or every round.
    pub fn with_period(mut self, every_other: bool) -> Fast {
        self.every_other = every_other;
        self
    }

    /// Window pacing on or off, over `interval`.
    pub fn with_pacing(mut self, on: bool, interval: Span) -> Fast {
        self.pacing = on;
        self.pacing_interval = interval;
        self
    }

    /// The FAST window equation, segments.
    pub fn update(&self, w: f64, base_over_avg: f64) -> f64 {
        (2.0 * w).min((1.0 - self.gamma) * w + self.gamma * (base_over_avg * w + self.alpha))
    }

    /// ns-2 `fast_pace` after an ACK (or right after an update): at most one
    /// pending increment per `bc_spacing` ACKs, all at once (by doubling steps)
    /// while w ≤ 4.
    fn pace(&mut self, w: &mut Window) {
        if self.increments == 0 {
            return;
        }
        if w.cwnd <= 4.0 {
            let double = w.cwnd.floor().max(1.0) as u64;
            let step = self.increments.min(double);
            w.cwnd += step as f64;
            self.increments -= step;
            self.bc_ack = 0;
        } else if self.bc_ack >= self.bc_spacing {
            w.cwnd += 1.0;
            self.increments -= 1;
            self.bc_ack = 0;
        }
    }
}

impl CongestionControl for Fast {
    fn name(&self) -> &'static str {
        "fast"
    }

    /// Between round ends only pending increments of window pacing apply; note
    /// that growth is cwnd-limited.
    fn on_ack(&mut self, ctx: &CcContext, w: &mut Window, _ack: &AckSample) {
        self.cwnd_limited = true;
        self.acks_this_round += 1;
        if self.increments > 0 && matches!(ctx.ca_state, CaState::Open | CaState::Disorder) {
            self.bc_ack += 1;
            self.pace(w);
            w.ssthresh = w.ssthresh.min(w.cwnd - 1.0);
        }
    }

    fn ssthresh(&mut self, _ctx: &CcContext, w: &Window, _reason: SsthreshReason) -> f64 {
        self.increments = 0;
        (w.cwnd / 2.0).max(2.0)
    }

    fn on_rtt_sample(&mut self, _ctx: &CcContext, _w: &mut Window, rtt: Span) {
        self.base_rtt = Some(self.base_rtt.map_or(rtt, |b| b.min(rtt)));
    }

    fn on_round_end(&mut self, ctx: &CcContext, w: &mut Window, round: &RoundStats) {
        let limited = std::mem::take(&mut self.cwnd_limited);
        self.acks_last_round = std::mem::take(&mut self.acks_this_round);
        if round.samples == 0 {
            return;
        }
        let (Some(base), Some(avg)) = (self.base_rtt, round.mean_rtt) else { return };
        self.avg_rtt = Some(avg);
        if !matches!(ctx.ca_state, CaState::Open | CaState::Disorder) {
            return;
        }
        let pacing = self.pacing && base >= PACING_MIN_BASE_RTT;
        // In picoseconds, so that queueing delay (avg − base) is exact.
        let (base_ps, avg_ps) = (base.ps() as f64, avg.ps().max(1) as f64);
        let ratio = base_ps / avg_ps;
        if w.cwnd < w.ssthresh {
            // Leave slow start once α segments are queued: w·(1 − baseRTT/avgRTT) ≥ α.
            if w.cwnd * (avg_ps - base_ps) / avg_ps >= self.alpha {
                w.ssthresh = w.cwnd;
            }
            return;
        }
        // Every other round (ns-2 `on_first_rtt_`), or every round.
        let due = self.update_due || !self.every_other;
        self.update_due = !due;
        if !due {
            return;
        }
        let next = self.update(w.cwnd, ratio);
        // ns-2 fast_cc: stale increments are dropped at each update.
        self.increments = 0;
        if next < w.cwnd {
            // A decrease applies at once.
            w.cwnd = next;
        } else if limited && pacing {
            // Growth only when the window was the limit (spec 06 §2.4); paced
            // over the next interval's ACKs (ns-2 fast_pace, whole segments).
            let incr = (next - w.cwnd).floor() as u64;
            if incr > 0 {
                let per_interval = self.acks_last_round as f64 * self.pacing_interval.as_secs_f64() / avg.as_secs_f64();
                self.increments = incr;
                self.bc_spacing = (per_interval / incr as f64) as u64;
                self.bc_ack = 1;
                self.pace(w);
            }
        } else if limited {
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

    /// A cwnd-limited CA round of `acks` ACKs at window `w`, then its end with avgRTT `mean_ms`.
    fn round_of(f: &mut Fast, w: &mut Window, acks: u64, mean_ms: u64) {
        for _ in 0..acks {
            f.on_ack(&ctx(), w, &AckSample::example(1, 1448));
        }
        f.on_round_end(&ctx(), w, &round(mean_ms));
    }

    #[test]
    fn updates_every_other_round() {
        // ns-2 tcp-fast.h UPDATE_CWND_EVERY_OTHER_RTT: the window moves in rounds 1, 3, 5.
        let mut f = fast().with_period(true);
        let mut w = Window { cwnd: 1000.0, ssthresh: 2.0 };
        let mut seen = Vec::new();
        for _ in 0..4 {
            round_of(&mut f, &mut w, 1, 100);
            seen.push(w.cwnd);
        }
        // 1000 → 0.5·1000 + 0.5·(1000 + 200) = 1100 → 0.5·1100 + 0.5·(1100 + 200) = 1200.
        assert_eq!(seen, [1100.0, 1100.0, 1200.0, 1200.0]);
    }

    #[test]
    fn window_pacing_spreads_an_increase_over_the_next_interval() {
        // ns-2 fast_pace: 1000 ACKs in the last 100 ms round → 100 ACKs per 10 ms; an
        // increase of 100 segments (avgRTT = baseRTT: 1000 → 1100) adds one every ACK
        // (spacing ⌊100/100⌋ = 1), the first at the update itself.
        let mut f = fast().with_pacing(true, Span::from_ms(10));
        let mut w = Window { cwnd: 1000.0, ssthresh: 2.0 };
        round_of(&mut f, &mut w, 1000, 100);
        assert_eq!(w.cwnd, 1001.0, "not the whole increase at once");
        for k in 1..=99 {
            f.on_ack(&ctx(), &mut w, &AckSample::example(1, 1448));
            assert_eq!(w.cwnd, 1001.0 + k as f64);
        }
        f.on_ack(&ctx(), &mut w, &AckSample::example(1, 1448));
        assert_eq!(w.cwnd, 1100.0, "increments used up");
        assert!(w.ssthresh < w.cwnd);
        // 4000 ACKs in the round: 400 per interval for the 100 increments of 1210 → 1310:
        // spacing ⌊400/100⌋ = 4, the count starting at 1 with the update.
        let mut f = fast().with_pacing(true, Span::from_ms(10));
        let mut w = Window { cwnd: 1210.0, ssthresh: 2.0 };
        round_of(&mut f, &mut w, 4000, 100);
        assert_eq!(w.cwnd, 1210.0, "the first increment waits for spacing 4 (bc_ack 1)");
        let mut grew_at = Vec::new();
        for k in 1..=9 {
            let before = w.cwnd;
            f.on_ack(&ctx(), &mut w, &AckSample::example(1, 1448));
            if w.cwnd > before {
                grew_at.push(k);
            }
        }
        assert_eq!(grew_at, [3, 7]);
    }

    #[test]
    fn window_pacing_leaves_decreases_and_small_windows_alone() {
        let mut f = fast().with_pacing(true, Span::from_ms(10));
        // A decrease applies at once: avgRTT 200 → 0.5·1000 + 0.5·(500 + 200) = 850.
        let mut w = Window { cwnd: 1000.0, ssthresh: 2.0 };
        round_of(&mut f, &mut w, 1000, 200);
        assert!((w.cwnd - 850.0).abs() < 1e-9);
        // w ≤ 4: the increase (4 → 8, capped at 2w) applies at once.
        let mut w = Window { cwnd: 4.0, ssthresh: 2.0 };
        round_of(&mut f, &mut w, 4, 100);
        assert_eq!(w.cwnd, 8.0);
        // No pacing below a 4 ms baseRTT (ns-2 fast_cc): the whole increase at once.
        let mut f = Fast::new(DEFAULT_ALPHA, DEFAULT_GAMMA).with_pacing(true, Span::from_ms(10));
        let mut w = Window { cwnd: 1000.0, ssthresh: 2.0 };
        f.on_rtt_sample(&ctx(), &mut w, Span::from_ms(3));
        let r = RoundStats { min_rtt: Some(Span::from_ms(3)), mean_rtt: Some(Span::from_ms(3)), samples: 10, acked_segments: 10 };
        f.on_ack(&ctx(), &mut w, &AckSample::example(1, 1448));
        f.on_round_end(&ctx(), &mut w, &r);
        assert_eq!(w.cwnd, 1100.0);
    }

    #[test]
    fn a_loss_drops_pending_increments() {
        let mut f = fast().with_pacing(true, Span::from_ms(10));
        let mut w = Window { cwnd: 1000.0, ssthresh: 2.0 };
        round_of(&mut f, &mut w, 1000, 100);
        assert_eq!(f.ssthresh(&ctx(), &w, SsthreshReason::FastRetransmit), 500.5);
        let before = w.cwnd;
        f.on_ack(&ctx(), &mut w, &AckSample::example(1, 1448));
        assert_eq!(w.cwnd, before);
    }

    #[test]
    fn the_catalogue_defaults_follow_the_ns2_module() {
        let p = (FAST.defaults)("linux-2.4", &CcParams::new());
        assert_eq!((p.text("update_period"), p.flag("window_pacing"), p.num("pacing_interval_s")), ("every_other_rtt", true, 0.01));
    }
}
