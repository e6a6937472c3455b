//! HighSpeed TCP (spec 06 §4.4, RFC 3649) by formula.
//!
//! Above Low_Window the increase per window of credit is a(w) and the
//! decrease factor is b(w), both interpolated on a log scale between the Reno
//! point (Low_Window, b 0.5, p = 1.5/Low_Window²) and (High_Window, High_P,
//! High_Decrease) (RFC 3649 §5). At or below Low_Window the algorithm is Reno.
//!
//! CHOICE (spec 06 §4.4 "Linux", §8 item 2): lfnlab evaluates the formulas
//! instead of Linux's 73-row table. Beyond High_Window both functions are held
//! at their High_Window values (a ≈ 72.5, b = High_Decrease), as the last row
//! of the Linux table is: extrapolated, b(w) would reach 0 near w ≈ 5.7·10^5
//! and turn the decrease into an increase inside the engine's envelope.

use super::params::{ParamDef, ParamKind};
use super::registry::Algorithm;
use super::reno::Basis;
use super::{AckSample, CcContext, CcParams, CongestionControl, SsthreshReason, Window};

/// RFC 3649 §5 Low_Window: below it HighSpeed is Reno (spec 06 §4.4 "Constants").
pub const LOW_WINDOW: f64 = 38.0;
/// RFC 3649 §5 High_Window, segments.
pub const HIGH_WINDOW: f64 = 83000.0;
/// RFC 3649 §5 High_P: the loss rate at which w = High_Window.
pub const HIGH_P: f64 = 1e-7;
/// RFC 3649 §5 High_Decrease: b(High_Window).
pub const HIGH_DECREASE: f64 = 0.1;

const PARAMS: &[ParamDef] = &[
    ParamDef { name: "low_window", kind: ParamKind::Num { min: 4.0, max: 1000.0 }, about: "RFC 3649 Low_Window, segments (Reno at or below)" },
    ParamDef { name: "high_window", kind: ParamKind::Num { min: 1001.0, max: 1e9 }, about: "RFC 3649 High_Window, segments" },
    ParamDef { name: "high_p", kind: ParamKind::Num { min: 1e-12, max: 1e-3 }, about: "RFC 3649 High_P, loss rate at High_Window" },
    ParamDef { name: "high_decrease", kind: ParamKind::Num { min: 0.01, max: 0.5 }, about: "RFC 3649 High_Decrease, b(High_Window)" },
];

/// `highspeed` (spec 06 §4.4). The parameter ranges keep low_window below
/// high_window and b(w) in (0, 0.5], so a(w) and b(w) are always finite.
pub const ALGORITHM: Algorithm = Algorithm {
    name: "highspeed",
    about: "HighSpeed TCP (RFC 3649) by formula; Reno at or below Low_Window",
    params: PARAMS,
    defaults: |_, _| {
        CcParams::new()
            .with_num("low_window", LOW_WINDOW)
            .with_num("high_window", HIGH_WINDOW)
            .with_num("high_p", HIGH_P)
            .with_num("high_decrease", HIGH_DECREASE)
    },
    create: |p, ctx| Box::new(HighSpeed::new(Response::from_params(p), ctx.basis)),
};

/// The RFC 3649 §5 response function: its two anchor points.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Response {
    pub low_window: f64,
    pub high_window: f64,
    pub high_p: f64,
    pub high_decrease: f64,
}

impl Response {
    /// The RFC 3649 constants (spec 06 §4.4).
    pub const RFC3649: Response = Response { low_window: LOW_WINDOW, high_window: HIGH_WINDOW, high_p: HIGH_P, high_decrease: HIGH_DECREASE };

    pub fn from_params(p: &CcParams) -> Response {
        Response { low_window: p.num("low_window"), high_window: p.num("high_window"), high_p: p.num("high_p"), high_decrease: p.num("high_decrease") }
    }

    /// (ln w − ln Low_Window)/(ln High_Window − ln Low_Window), with w held
    /// in [Low_Window, High_Window]: 0 at Low_Window, 1 at High_Window.
    fn position(&self, w: f64) -> f64 {
        let w = w.clamp(self.low_window, self.high_window);
        (w.ln() - self.low_window.ln()) / (self.high_window.ln() - self.low_window.ln())
    }

    /// b(w) = (High_Decrease − 0.5)·position + 0.5 (RFC 3649 §5).
    pub fn b(&self, w: f64) -> f64 {
        (self.high_decrease - 0.5) * self.position(w) + 0.5
    }

    /// p(w): ln p = ln Low_P + position·(ln High_P − ln Low_P), where
    /// Low_P = 1.5/Low_Window² is Reno's loss rate at Low_Window (RFC 3649 §5).
    pub fn p(&self, w: f64) -> f64 {
        let ln_low_p = (1.5 / (self.low_window * self.low_window)).ln();
        (ln_low_p + self.position(w) * (self.high_p.ln() - ln_low_p)).exp()
    }

    /// a(w) = w²·p(w)·2·b(w)/(2 − b(w)) (RFC 3649 §5), segments per window of
    /// credit; a(Low_Window) = 1 (Reno).
    pub fn a(&self, w: f64) -> f64 {
        let w = w.clamp(self.low_window, self.high_window);
        let b = self.b(w);
        w * w * self.p(w) * 2.0 * b / (2.0 - b)
    }
}

pub struct HighSpeed {
    resp: Response,
    /// Basis of the Reno halving at or below Low_Window (spec 06 §2.1).
    basis: Basis,
    /// a(w) and b(w) at the last ACK or reduction, for the trace (NaN before).
    last_a: f64,
    last_b: f64,
}

impl HighSpeed {
    pub fn new(resp: Response, basis: Basis) -> HighSpeed {
        HighSpeed { resp, basis, last_a: f64::NAN, last_b: f64::NAN }
    }

    /// Record a(w) and b(w) for the trace: exactly Reno's (1, 0.5) at or
    /// below Low_Window. Returns whether w is in the Reno region.
    fn note(&mut self, w: f64) -> bool {
        let reno = w <= self.resp.low_window;
        (self.last_a, self.last_b) = if reno { (1.0, 0.5) } else { (self.resp.a(w), self.resp.b(w)) };
        reno
    }
}

impl CongestionControl for HighSpeed {
    fn name(&self) -> &'static str {
        "highspeed"
    }

    fn on_ack(&mut self, _ctx: &CcContext, w: &mut Window, ack: &AckSample) {
        // spec 06 §4.4: w ≤ Low_Window: Reno; else w += credit·a(w)/w.
        self.note(w.cwnd);
        w.cwnd += ack.credit * self.last_a / w.cwnd;
    }

    fn ssthresh(&mut self, ctx: &CcContext, w: &Window, _reason: SsthreshReason) -> f64 {
        if self.note(w.cwnd) {
            // Reno, including its ssthresh_basis (spec 06 §4.4 Reno row).
            let basis = match self.basis {
                Basis::Cwnd => w.cwnd,
                Basis::FlightSize => ctx.flight_size as f64,
            };
            return (basis / 2.0).max(2.0);
        }
        ((1.0 - self.last_b) * w.cwnd).max(2.0)
    }

    fn trace_names(&self) -> &'static [&'static str] {
        &["a", "b"]
    }

    fn trace_values(&self, out: &mut [f64]) {
        out[0] = self.last_a;
        out[1] = self.last_b;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::{SimTime, Span};

    fn ctx() -> CcContext {
        CcContext { srtt: Some(Span::from_ms(100)), ..CcContext::example(SimTime(0)) }
    }

    fn close(x: f64, want: f64, rel: f64) -> bool {
        ((x - want) / want).abs() <= rel
    }

    #[test]
    fn response_function_vectors() {
        // spec 06 §4.4 unit tests, relative 1e-3. With D = ln 83000 − ln 38 = 7.6890:
        // w 38: position 0 → b = 0.5, p = 1.5/38² → a = 38²·(1.5/38²)·1/1.5 = 1.
        // w 118: position (ln 118 − ln 38)/D = 1.1331/7.6890 = 0.14737
        //   → b = −0.4·0.14737 + 0.5 = 0.44105; p = exp(ln(1.0388e-3) + 0.14737·(ln 1e-7 − ln 1.0388e-3))
        //   = 2.6584e-4 → a = 118²·2.6584e-4·0.88211/1.55895 = 2.0945.
        // w 1000: position 0.42530 → b = 0.32988, p = 2.0337e-5 → a = 8.0337.
        // w 83000: position 1 → b = 0.1, p = 1e-7 → a = 83000²·1e-7·0.2/1.9 = 72.516.
        let r = Response::RFC3649;
        for (w, a, b) in [(38.0, 1.000, 0.500), (118.0, 2.095, 0.4411), (1000.0, 8.034, 0.3299), (83000.0, 72.52, 0.1000)] {
            assert!(close(r.a(w), a, 1e-3), "a({w}) = {}", r.a(w));
            assert!(close(r.b(w), b, 1e-3), "b({w}) = {}", r.b(w));
        }
    }

    #[test]
    fn held_beyond_high_window() {
        // CHOICE: beyond High_Window, a and b keep their High_Window values.
        let r = Response::RFC3649;
        assert!(close(r.b(1e7), 0.1, 1e-9), "{}", r.b(1e7));
        assert!(close(r.a(1e7), r.a(83000.0), 1e-12));
    }

    #[test]
    fn increase_is_a_per_window() {
        // At w 1000 with per-segment ACKs one RTT is 1000 ACKs of credit 1,
        // each adding a(w)/w, so d(w²)/dACK = 2·a(w): w_end² = 1000² + 2·1000·ā
        // with ā ≈ a(1004) = 8.053 → w_end = 1008.020, i.e. ≈ a(1000) per RTT.
        let mut h = HighSpeed::new(Response::RFC3649, Basis::Cwnd);
        let mut w = Window { cwnd: 1000.0, ssthresh: 500.0 };
        for _ in 0..1000 {
            h.on_ack(&ctx(), &mut w, &AckSample::example(1, 1448));
        }
        assert!((w.cwnd - 1008.020).abs() < 0.005, "{}", w.cwnd);
        // Reno at or below Low_Window: w 20, 20 ACKs of credit 1/w each:
        // w_end = √(20² + 2·20) = 20.976.
        let mut w = Window { cwnd: 20.0, ssthresh: 10.0 };
        for _ in 0..20 {
            h.on_ack(&ctx(), &mut w, &AckSample::example(1, 1448));
        }
        assert!((w.cwnd - 20.976).abs() < 0.005, "{}", w.cwnd);
    }

    #[test]
    fn decrease_is_b_of_w() {
        let mut h = HighSpeed::new(Response::RFC3649, Basis::Cwnd);
        let ss = |h: &mut HighSpeed, cwnd: f64| h.ssthresh(&ctx(), &Window { cwnd, ssthresh: f64::INFINITY }, SsthreshReason::FastRetransmit);
        // w 1000: (1 − 0.32988)·1000 = 670.12.
        assert!((ss(&mut h, 1000.0) - 670.12).abs() < 0.01);
        // w 83000: (1 − 0.1)·83000 = 74700.
        assert!((ss(&mut h, 83000.0) - 74700.0).abs() < 0.01);
        // w 20 ≤ Low_Window: Reno halving, 10; w 3: max(1.5, 2) = 2.
        assert_eq!(ss(&mut h, 20.0), 10.0);
        assert_eq!(ss(&mut h, 3.0), 2.0);
        let mut v = [0.0; 2];
        h.trace_values(&mut v);
        assert_eq!(v, [1.0, 0.5]);
    }

    #[test]
    fn parameters_override_the_constants() {
        let p = crate::host::cc::resolve_params("highspeed", "linux-2.6", &CcParams::new().with_num("high_decrease", 0.2)).unwrap();
        let r = Response::from_params(&p);
        assert_eq!(r.low_window, 38.0);
        // b(High_Window) = High_Decrease; halfway on the log scale (w = √(38·83000)
        // = 1776.0) b = (0.2 + 0.5)/2 = 0.35.
        assert!(close(r.b(83000.0), 0.2, 1e-9));
        assert!(close(r.b((38.0f64 * 83000.0).sqrt()), 0.35, 1e-9));
    }
}
