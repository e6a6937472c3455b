//! BIC TCP (spec 06 §4.4; Xu, Harfoush, Rhee, "Binary Increase Congestion
//! Control for Fast, Long Distance Networks", INFOCOM 2004): binary search
//! towards the window of the last loss, W_max, then max probing above it.
//!
//! The growth rate is "one segment per cnt segments"; cnt is computed in
//! integer arithmetic from W = ⌊w⌋ and W_max as in the Linux module
//! (spec 06 §4.4 "Increase"). Two variants:
//! - `linux` (default, the Linux module): S_max 16; w += acked/cnt, counting
//!   acknowledged segments (the module divides cnt by its delayed-ACK ratio
//!   estimate, which this offsets); cnt ≤ 20 while W_max = 0.
//! - `bic-2.6.12` (chapter 04): S_max 32 (CHOICE, unverified constant);
//!   w += credit/cnt; no pre-loss cap.

use super::params::{ParamDef, ParamKind};
use super::registry::Algorithm;
use super::{AckSample, CaState, CcContext, CcParams, CongestionControl, SsthreshReason, Window};

/// Binary-search divisor B (Linux `BICTCP_B`).
pub const B: f64 = 4.0;
/// Largest increase per RTT, S_max (Linux `max_increment`).
pub const S_MAX: f64 = 16.0;
/// S_max of Linux 2.6.12 (spec 06 §4.4 `bic-2.6.12`, CHOICE: unverified constant).
pub const S_MAX_2612: f64 = 32.0;
/// Reno at or below this window (Linux `low_window`).
pub const LOW_WINDOW: f64 = 14.0;
/// Multiplicative decrease β = 819/1024 (Linux `beta`).
pub const BETA: f64 = 819.0 / 1024.0;
/// Growth near W_max is 1/smooth_part of the binary step (Linux `smooth_part`).
pub const SMOOTH_PART: f64 = 20.0;
/// Linux module: cnt ≤ 20 while no loss was seen (W_max = 0).
const CNT_CAP_BEFORE_LOSS: u64 = 20;

const PARAMS: &[ParamDef] = &[
    ParamDef { name: "variant", kind: ParamKind::Choice(&["linux", "bic-2.6.12"]), about: "linux: module defaults; bic-2.6.12: S_max 32, growth counted in credit, no pre-loss cap" },
    ParamDef { name: "b", kind: ParamKind::Num { min: 1.0, max: 1024.0 }, about: "binary-search divisor B (integer; fraction dropped)" },
    ParamDef { name: "s_max", kind: ParamKind::Num { min: 1.0, max: 1e6 }, about: "largest increase per RTT S_max, segments (integer; fraction dropped)" },
    ParamDef { name: "low_window", kind: ParamKind::Num { min: 2.0, max: 1e6 }, about: "Reno at or below this window, segments (integer; fraction dropped)" },
    ParamDef { name: "beta", kind: ParamKind::Num { min: 0.01, max: 0.99 }, about: "multiplicative decrease β (819/1024 in Linux)" },
    ParamDef { name: "smooth_part", kind: ParamKind::Num { min: 1.0, max: 1e6 }, about: "smoothing near W_max (integer; fraction dropped)" },
    ParamDef { name: "fast_convergence", kind: ParamKind::Bool, about: "lower W_max to W·(1 + β)/2 when a loss comes below it" },
];

/// `bic` (spec 06 §4.4).
pub const ALGORITHM: Algorithm = Algorithm {
    name: "bic",
    about: "BIC TCP: binary search to the last loss window (Linux module or 2.6.12)",
    params: PARAMS,
    defaults: |_, given| {
        let variant = given.text_or("variant", "linux");
        let s_max = if variant == "bic-2.6.12" { S_MAX_2612 } else { S_MAX };
        CcParams::new()
            .with_text("variant", variant)
            .with_num("b", B)
            .with_num("s_max", s_max)
            .with_num("low_window", LOW_WINDOW)
            .with_num("beta", BETA)
            .with_num("smooth_part", SMOOTH_PART)
            .with_bool("fast_convergence", true)
    },
    create: |p, _| Box::new(Bic::new(Config::from_params(p))),
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// The Linux module (default).
    Linux,
    /// Linux 2.6.12 (chapter 04).
    Bic2612,
}

/// Resolved BIC constants; the integer ones as the module's u32 arithmetic uses them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Config {
    pub variant: Variant,
    pub b: u64,
    pub s_max: u64,
    pub low_window: u64,
    pub beta: f64,
    pub smooth_part: u64,
    pub fast_convergence: bool,
}

impl Config {
    /// The Linux module defaults (spec 06 §4.4 "Constants").
    pub const LINUX: Config = Config { variant: Variant::Linux, b: 4, s_max: 16, low_window: 14, beta: BETA, smooth_part: 20, fast_convergence: true };
    /// `bic-2.6.12`: S_max 32, the rest as the module.
    pub const BIC_2612: Config = Config { variant: Variant::Bic2612, s_max: 32, ..Config::LINUX };

    pub fn from_params(p: &CcParams) -> Config {
        let variant = if p.text("variant") == "bic-2.6.12" { Variant::Bic2612 } else { Variant::Linux };
        // The declared ranges keep every integer ≥ 1, so no division by zero.
        Config {
            variant,
            b: p.num("b") as u64,
            s_max: p.num("s_max") as u64,
            low_window: p.num("low_window") as u64,
            beta: p.num("beta"),
            smooth_part: p.num("smooth_part") as u64,
            fast_convergence: p.flag("fast_convergence"),
        }
    }
}

pub struct Bic {
    cfg: Config,
    /// W_max: the window of the last loss, segments; 0 before any loss or
    /// after entering Loss.
    w_max: u64,
    /// Segments (`linux`) or credit (`bic-2.6.12`) per +1 at the last ACK;
    /// 0 before the first congestion-avoidance ACK.
    cnt: u64,
}

impl Bic {
    pub fn new(cfg: Config) -> Bic {
        Bic { cfg, w_max: 0, cnt: 0 }
    }

    /// cnt for window W above low_window (spec 06 §4.4 "Increase").
    pub fn cnt_for(&self, w: u64) -> u64 {
        let Config { b, s_max, smooth_part, .. } = self.cfg;
        let wm = self.w_max;
        let cnt = if w < wm {
            // Binary search: step d = (Wm − W)/B per RTT, at most S_max, and
            // 1/smooth_part of B when within one B of W_max.
            let d = (wm - w) / b;
            if d > s_max {
                w / s_max
            } else if d <= 1 {
                w * smooth_part / b
            } else {
                w / d
            }
        } else if w < wm + b {
            w * smooth_part / b
        } else if w < wm + s_max * (b - 1) {
            // Slow start above W_max: steps grow as (W − Wm)/(B − 1).
            w * (b - 1) / (w - wm)
        } else {
            w / s_max
        };
        let cnt = if self.cfg.variant == Variant::Linux && wm == 0 { cnt.min(CNT_CAP_BEFORE_LOSS) } else { cnt };
        cnt.max(1)
    }

    fn reset(&mut self) {
        self.w_max = 0;
        self.cnt = 0;
    }
}

impl CongestionControl for Bic {
    fn name(&self) -> &'static str {
        "bic"
    }

    fn on_ack(&mut self, _ctx: &CcContext, w: &mut Window, ack: &AckSample) {
        let cwnd = w.cwnd.floor() as u64;
        if cwnd <= self.cfg.low_window {
            // Reno at or below low_window.
            self.cnt = cwnd;
            w.cwnd += ack.credit / w.cwnd;
            return;
        }
        self.cnt = self.cnt_for(cwnd);
        let counted = match self.cfg.variant {
            Variant::Linux => ack.acked_segments as f64,
            Variant::Bic2612 => ack.credit,
        };
        w.cwnd += counted / self.cnt as f64;
    }

    fn ssthresh(&mut self, _ctx: &CcContext, w: &Window, _reason: SsthreshReason) -> f64 {
        let cwnd = w.cwnd.floor() as u64;
        // Fast convergence: a loss below W_max lowers it to W·(1 + β)/2
        // (= W·(1024 + 819)/2048), releasing bandwidth to newer flows.
        self.w_max = if self.cfg.fast_convergence && cwnd < self.w_max {
            (cwnd as f64 * (1.0 + self.cfg.beta) / 2.0).floor() as u64
        } else {
            cwnd
        };
        let ss = if cwnd <= self.cfg.low_window { cwnd / 2 } else { (cwnd as f64 * self.cfg.beta).floor() as u64 };
        (ss as f64).max(2.0)
    }

    fn on_state_change(&mut self, _ctx: &CcContext, _w: &mut Window, _old: CaState, new: CaState) {
        // spec 06 §4.4: entering Loss resets all state.
        if new == CaState::Loss {
            self.reset();
        }
    }

    fn on_rto(&mut self, _ctx: &CcContext, _w: &mut Window) {
        // A repeated timeout does not change the CA state, but Linux sets
        // the state Loss (and so resets BIC) on every timeout.
        self.reset();
    }

    /// 2.6.20 `tcp_bic.c` defines no `min_cwnd`: rate halving stops at ssthresh.
    fn rate_halving_floor_is_half_ssthresh(&self) -> bool {
        false
    }

    fn trace_names(&self) -> &'static [&'static str] {
        &["w_max", "cnt"]
    }

    fn trace_values(&self, out: &mut [f64]) {
        out[0] = self.w_max as f64;
        out[1] = if self.cnt == 0 { f64::NAN } else { self.cnt as f64 };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::{SimTime, Span};

    fn ctx() -> CcContext {
        CcContext { srtt: Some(Span::from_ms(100)), ..CcContext::example(SimTime(0)) }
    }

    fn bic(cfg: Config, w_max: u64) -> Bic {
        Bic { w_max, ..Bic::new(cfg) }
    }

    /// Feed `n` ACKs of `acked` segments and `credit` each, starting at `cwnd`.
    fn run(b: &mut Bic, cwnd: f64, n: usize, acked: u64, credit: f64) -> f64 {
        let mut w = Window { cwnd, ssthresh: 2.0 };
        for _ in 0..n {
            let a = AckSample { credit, ..AckSample::example(acked, 1448) };
            b.on_ack(&ctx(), &mut w, &a);
        }
        w.cwnd
    }

    #[test]
    fn cnt_vectors() {
        // spec 06 §4.4 unit tests, Wm 1000, B 4, S_max 16, smooth_part 20:
        let b = bic(Config::LINUX, 1000);
        // W 800 < Wm: d = 200/4 = 50 > S_max → cnt = 800/16 = 50.
        assert_eq!(b.cnt_for(800), 50);
        // W 960: d = 40/4 = 10 ∈ (1, 16] → cnt = 960/10 = 96.
        assert_eq!(b.cnt_for(960), 96);
        // W 996: d = 4/4 = 1 ≤ 1 → cnt = 996·20/4 = 4980.
        assert_eq!(b.cnt_for(996), 4980);
        // W 1010 ≥ Wm + B = 1004 and < Wm + 16·3 = 1048 → cnt = 1010·3/10 = 303.
        assert_eq!(b.cnt_for(1010), 303);
        // W 1100 ≥ 1048 → cnt = 1100/16 = 68 (68.75 truncated).
        assert_eq!(b.cnt_for(1100), 68);
        // W 1002 ∈ [Wm, Wm + B) → 1002·20/4 = 5010.
        assert_eq!(b.cnt_for(1002), 5010);
        // Wm 0, W 500: 500/16 = 31, but the module caps cnt at 20 before a loss.
        assert_eq!(bic(Config::LINUX, 0).cnt_for(500), 20);
        // bic-2.6.12 has no cap: Wm 0, W 1000 → 1000/32 = 31 (module: 20).
        assert_eq!(bic(Config::BIC_2612, 0).cnt_for(1000), 31);
        assert_eq!(bic(Config::LINUX, 0).cnt_for(1000), 20);
        // bic-2.6.12, Wm 1000, W 800: d = 50 > 32 → 800/32 = 25.
        assert_eq!(bic(Config::BIC_2612, 1000).cnt_for(800), 25);
    }

    #[test]
    fn growth_per_rtt() {
        // W 800, Wm 1000: cnt 50 for every W in [800, 816) → one RTT of 800
        // acknowledged segments gives 800/50 = +16 = S_max per RTT …
        let mut b = bic(Config::LINUX, 1000);
        assert!((run(&mut b, 800.0, 800, 1, 1.0) - 816.0).abs() < 1e-6);
        // … with delayed ACKs too (400 ACKs of 2, credit 1): the module counts segments.
        let mut b = bic(Config::LINUX, 1000);
        assert!((run(&mut b, 800.0, 400, 2, 1.0) - 816.0).abs() < 1e-6);
        // bic-2.6.12 counts credit: cnt = 800/32 = 25 → 400 ACKs of credit 1
        // give 400/25 = +16, 800 per-segment ACKs give +32 = its S_max.
        let mut b = bic(Config::BIC_2612, 1000);
        assert!((run(&mut b, 800.0, 400, 2, 1.0) - 816.0).abs() < 1e-6);
        let mut b = bic(Config::BIC_2612, 1000);
        assert!((run(&mut b, 800.0, 800, 1, 1.0) - 832.0).abs() < 1e-6);
        // At or below low_window 14, Reno: w 10, 10 ACKs → √(10² + 2·10) = 10.954.
        let mut b = bic(Config::LINUX, 0);
        assert!((run(&mut b, 10.0, 10, 1, 1.0) - 10.954).abs() < 0.005);
        let mut v = [0.0; 2];
        b.trace_values(&mut v);
        assert_eq!(v, [0.0, 10.0]);
    }

    #[test]
    fn loss() {
        let ss = |b: &mut Bic, cwnd: f64| b.ssthresh(&ctx(), &Window { cwnd, ssthresh: f64::INFINITY }, SsthreshReason::FastRetransmit);
        // W 1000 < Wm 1200 with fast convergence: Wm ← 1000·1843/2048 = 899
        // (899.9 truncated); ssthresh = 1000·819/1024 = 799 (799.8 truncated).
        let mut b = bic(Config::LINUX, 1200);
        assert_eq!(ss(&mut b, 1000.0), 799.0);
        assert_eq!(b.w_max, 899);
        // Without fast convergence Wm ← W = 1000.
        let mut b = bic(Config { fast_convergence: false, ..Config::LINUX }, 1200);
        assert_eq!(ss(&mut b, 1000.0), 799.0);
        assert_eq!(b.w_max, 1000);
        // A loss above Wm sets Wm ← W.
        let mut b = bic(Config::LINUX, 800);
        assert_eq!(ss(&mut b, 1000.5), 799.0);
        assert_eq!(b.w_max, 1000);
        // W 12 ≤ low_window: 12/2 = 6; W 3: max(1, 2) = 2.
        let mut b = bic(Config::LINUX, 0);
        assert_eq!(ss(&mut b, 12.0), 6.0);
        assert_eq!(b.w_max, 12);
        assert_eq!(ss(&mut b, 3.0), 2.0);
    }

    #[test]
    fn entering_loss_resets() {
        let mut b = bic(Config::LINUX, 0);
        let mut w = Window { cwnd: 1000.0, ssthresh: f64::INFINITY };
        b.ssthresh(&ctx(), &w, SsthreshReason::Rto);
        assert_eq!(b.w_max, 1000);
        // Recovery keeps W_max; Loss clears it (and the pre-loss cap applies again).
        b.on_state_change(&ctx(), &mut w, CaState::Open, CaState::Recovery);
        assert_eq!(b.w_max, 1000);
        b.on_state_change(&ctx(), &mut w, CaState::Open, CaState::Loss);
        assert_eq!(b.w_max, 0);
        assert_eq!(b.cnt_for(500), 20);
        // A repeated RTO (state already Loss) resets through on_rto.
        b.ssthresh(&ctx(), &w, SsthreshReason::Rto);
        b.on_rto(&ctx(), &mut w);
        assert_eq!(b.w_max, 0);
    }

    #[test]
    fn variant_sets_s_max_default() {
        use crate::host::cc::resolve_params;
        let p = resolve_params("bic", "linux-2.6", &CcParams::new()).unwrap();
        assert_eq!(Config::from_params(&p), Config::LINUX);
        let p = resolve_params("bic", "linux-2.6", &CcParams::new().with_text("variant", "bic-2.6.12")).unwrap();
        assert_eq!(Config::from_params(&p), Config::BIC_2612);
        let p = resolve_params("bic", "linux-2.6", &CcParams::new().with_text("variant", "bic-2.6.12").with_num("s_max", 24.0)).unwrap();
        assert_eq!(Config::from_params(&p).s_max, 24);
    }
}
