//! Scalable TCP (spec 06 §4.4; Kelly, "Scalable TCP: improving performance
//! in highspeed wide area networks", 2003): multiplicative increase per
//! acknowledged segment, decrease by a fixed fraction.
//!
//! Two variants:
//! - `kelly` (default): above lwnd, w += a·acked and ssthresh = max((1 − b)·w, 2);
//!   at or below lwnd, Reno. lwnd = 16 is CHOICE (unverified constant, spec 06 §8 item 4).
//! - `linux` (the Linux `tcp_scalable` module): w += credit/min(⌊w⌋, ai_cnt),
//!   ssthresh = max(⌊w⌋ − ⌊b·⌊w⌋⌋, 2). ai_cnt is 50 in Linux 2.6, where it
//!   offsets delayed ACKs, and 100 in later kernels; its default follows the
//!   host profile (100 under `linux-modern`, else 50).

use super::params::{ParamDef, ParamKind};
use super::registry::Algorithm;
use super::reno::Basis;
use super::{AckSample, CcContext, CcParams, CongestionControl, SsthreshReason, Window};

/// Kelly's a: increase per acknowledged segment above lwnd (spec 06 §4.4).
pub const A: f64 = 0.01;
/// Kelly's b: decrease fraction, ssthresh = 0.875·w (spec 06 §4.4).
pub const B: f64 = 0.125;
/// Kelly's legacy window: Reno at or below it. CHOICE (unverified constant).
pub const LWND: f64 = 16.0;
/// Linux 2.6 `TCP_SCALABLE_AI_CNT` (spec 06 §4.4); later kernels use 100.
pub const AI_CNT_LINUX_26: f64 = 50.0;
pub const AI_CNT_LATER: f64 = 100.0;

const PARAMS: &[ParamDef] = &[
    ParamDef { name: "variant", kind: ParamKind::Choice(&["kelly", "linux"]), about: "kelly: w += a·acked above lwnd; linux: w += credit/min(w, ai_cnt)" },
    ParamDef { name: "a", kind: ParamKind::Num { min: 1e-4, max: 1.0 }, about: "kelly: increase per acknowledged segment above lwnd" },
    ParamDef { name: "b", kind: ParamKind::Num { min: 0.01, max: 0.5 }, about: "decrease fraction: ssthresh = (1 − b)·w" },
    ParamDef { name: "lwnd", kind: ParamKind::Num { min: 1.0, max: 1e6 }, about: "kelly: Reno at or below this window, segments" },
    ParamDef { name: "ai_cnt", kind: ParamKind::Num { min: 1.0, max: 1e6 }, about: "linux: segments of credit per +1 once w ≥ ai_cnt (50 Linux 2.6, 100 later)" },
];

/// `scalable` (spec 06 §4.4).
pub const ALGORITHM: Algorithm = Algorithm {
    name: "scalable",
    about: "Scalable TCP: Kelly's rule (default) or the Linux module",
    params: PARAMS,
    defaults: |profile, _| {
        let ai_cnt = if profile == "linux-modern" { AI_CNT_LATER } else { AI_CNT_LINUX_26 };
        CcParams::new().with_text("variant", "kelly").with_num("a", A).with_num("b", B).with_num("lwnd", LWND).with_num("ai_cnt", ai_cnt)
    },
    create: |p, ctx| {
        let variant = match p.text("variant") {
            "linux" => Variant::Linux,
            _ => Variant::Kelly,
        };
        Box::new(Scalable { variant, a: p.num("a"), b: p.num("b"), lwnd: p.num("lwnd"), ai_cnt: p.num("ai_cnt"), basis: ctx.basis, cnt: f64::NAN })
    },
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    Kelly,
    Linux,
}

pub struct Scalable {
    variant: Variant,
    a: f64,
    b: f64,
    lwnd: f64,
    ai_cnt: f64,
    /// Basis of the Reno halving at or below lwnd (`kelly`, spec 06 §2.1).
    basis: Basis,
    /// Segments per +1 segment of cwnd at the last ACK, for the trace (NaN before).
    cnt: f64,
}

impl Scalable {
    pub fn new(variant: Variant, ai_cnt: f64, basis: Basis) -> Scalable {
        Scalable { variant, a: A, b: B, lwnd: LWND, ai_cnt, basis, cnt: f64::NAN }
    }
}

impl CongestionControl for Scalable {
    fn name(&self) -> &'static str {
        "scalable"
    }

    fn on_ack(&mut self, _ctx: &CcContext, w: &mut Window, ack: &AckSample) {
        match self.variant {
            Variant::Kelly if w.cwnd <= self.lwnd => {
                // Reno below the legacy window.
                self.cnt = w.cwnd;
                w.cwnd += ack.credit / w.cwnd;
            }
            Variant::Kelly => {
                // spec 06 §4.4: per acknowledged segment, not per ACK or credit.
                self.cnt = 1.0 / self.a;
                w.cwnd += self.a * ack.acked_segments as f64;
            }
            Variant::Linux => {
                let cnt = w.cwnd.floor().min(self.ai_cnt).max(1.0);
                self.cnt = cnt;
                w.cwnd += ack.credit / cnt;
            }
        }
    }

    fn ssthresh(&mut self, ctx: &CcContext, w: &Window, _reason: SsthreshReason) -> f64 {
        match self.variant {
            Variant::Kelly if w.cwnd <= self.lwnd => {
                let basis = match self.basis {
                    Basis::Cwnd => w.cwnd,
                    Basis::FlightSize => ctx.flight_size as f64,
                };
                (basis / 2.0).max(2.0)
            }
            Variant::Kelly => ((1.0 - self.b) * w.cwnd).max(2.0),
            Variant::Linux => {
                // Integer segments as in the module: ⌊w⌋ − ⌊⌊w⌋/8⌋ for b = 1/8.
                let cwnd = w.cwnd.floor();
                (cwnd - (cwnd * self.b).floor()).max(2.0)
            }
        }
    }

    fn trace_names(&self) -> &'static [&'static str] {
        &["cnt"]
    }

    fn trace_values(&self, out: &mut [f64]) {
        out[0] = self.cnt;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::{SimTime, Span};

    fn ctx() -> CcContext {
        CcContext { srtt: Some(Span::from_ms(100)), ..CcContext::example(SimTime(0)) }
    }

    fn ss(s: &mut Scalable, cwnd: f64) -> f64 {
        s.ssthresh(&ctx(), &Window { cwnd, ssthresh: f64::INFINITY }, SsthreshReason::FastRetransmit)
    }

    /// Feed `n` ACKs of `acked` segments and `credit` each, starting at `cwnd`.
    fn run(s: &mut Scalable, cwnd: f64, n: usize, acked: u64, credit: f64) -> f64 {
        let mut w = Window { cwnd, ssthresh: 2.0 };
        for _ in 0..n {
            let a = AckSample { credit, ..AckSample::example(acked, 1448) };
            s.on_ack(&ctx(), &mut w, &a);
        }
        w.cwnd
    }

    #[test]
    fn kelly() {
        let mut s = Scalable::new(Variant::Kelly, AI_CNT_LINUX_26, Basis::Cwnd);
        // spec 06 §4.4: ssthresh = 0.875·w → w 1000 → 875.
        assert_eq!(ss(&mut s, 1000.0), 875.0);
        // +0.01 per acknowledged segment: one RTT at w 1000 acknowledges 1000
        // segments → +10, with per-segment ACKs (1000 × 1) …
        assert!((run(&mut s, 1000.0, 1000, 1, 1.0) - 1010.0).abs() < 1e-6);
        // … and with delayed ACKs, L = 1 (500 ACKs of 2 segments, credit 1).
        assert!((run(&mut s, 1000.0, 500, 2, 1.0) - 1010.0).abs() < 1e-6);
        // At or below lwnd 16, Reno: w 10, 10 ACKs of credit 1/w:
        // w_end = √(10² + 2·10) = 10.954; ssthresh halves: 10 → 5.
        assert!((run(&mut s, 10.0, 10, 1, 1.0) - 10.954).abs() < 0.005);
        assert_eq!(ss(&mut s, 10.0), 5.0);
    }

    #[test]
    fn linux() {
        let mut s = Scalable::new(Variant::Linux, AI_CNT_LINUX_26, Basis::Cwnd);
        // ⌊w⌋ − ⌊w/8⌋: 100 − 12 = 88; 1000.7 → 1000 − 125 = 875; floor 2.
        assert_eq!(ss(&mut s, 100.0), 88.0);
        assert_eq!(ss(&mut s, 1000.7), 875.0);
        assert_eq!(ss(&mut s, 2.0), 2.0);
        // AI_CNT 50 at w 1000: credit/min(1000, 50) per ACK. Per-segment ACKs:
        // 1000 ACKs × 1/50 = +20 per RTT.
        assert!((run(&mut s, 1000.0, 1000, 1, 1.0) - 1020.0).abs() < 1e-6);
        // Delayed ACKs with L = 1: 500 ACKs of credit 1 → 500/50 = +10.
        assert!((run(&mut s, 1000.0, 500, 2, 1.0) - 1010.0).abs() < 1e-6);
        // Below AI_CNT it is Reno-like: w 10 → cnt ⌊w⌋ = 10, 10 ACKs → +1.
        assert!((run(&mut s, 10.0, 10, 1, 1.0) - 11.0).abs() < 1e-9);
        let mut v = [0.0];
        s.trace_values(&mut v);
        assert_eq!(v, [10.0]);
        // Later kernels: AI_CNT 100 → +10 per RTT at w 1000 with per-segment ACKs.
        let mut s = Scalable::new(Variant::Linux, AI_CNT_LATER, Basis::Cwnd);
        assert!((run(&mut s, 1000.0, 1000, 1, 1.0) - 1010.0).abs() < 1e-6);
    }

    #[test]
    fn defaults_follow_the_profile() {
        use crate::host::cc::resolve_params;
        let p = resolve_params("scalable", "linux-2.6", &CcParams::new()).unwrap();
        assert_eq!(p.text("variant"), "kelly");
        assert_eq!(p.num("ai_cnt"), 50.0);
        let p = resolve_params("scalable", "linux-modern", &CcParams::new().with_text("variant", "linux")).unwrap();
        assert_eq!(p.num("ai_cnt"), 100.0);
        let p = resolve_params("scalable", "linux-modern", &CcParams::new().with_num("ai_cnt", 50.0)).unwrap();
        assert_eq!(p.num("ai_cnt"), 50.0);
    }
}
