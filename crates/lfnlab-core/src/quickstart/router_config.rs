//! Typed parameters of the Quick-Start interface function (spec 02 §2.5.1).
//! Every default lives in [`RouterConfig::new`]; names parse with `FromStr`.

use std::fmt;
use std::str::FromStr;

use crate::engine::time::Span;
use crate::net::proc_stage::ProcDiscipline;

/// Admission arithmetic of the target algorithm (spec 02 §2.5.4, §6 point 5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    /// Grant min(r_req, budget) if the budget is positive (RFC 4782 App. D; default).
    TargetReduce,
    /// Grant r_req only if it fits the budget entirely, else refuse.
    TargetStrict,
}

/// Which utilization estimate R_meas the admission uses (spec 02 §2.5.1, §6 point 6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UtilEstimator {
    /// Rate of the last completed metering interval D (default).
    LastInterval,
    /// Peak of the last `samples` completed rate samples of length `sample` each.
    Peak {
        /// Sample length S (default 0.15 s).
        sample: Span,
        /// Number of samples P the peak is taken over (default 3, allowed 3..=20).
        samples: u32,
    },
}

/// What a node does to a request it refuses (spec 02 §2.5.1, §2.5.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DenyAction {
    /// Set rate, QS TTL and nonce to 0; the option stays (default).
    Zero,
    /// Remove the option (IHL − 2: the packet is 8 bytes shorter).
    Delete,
}

/// Default peak-estimator sample length S: 0.15 s (spec 02 §2.5.1).
pub const PEAK_SAMPLE_DEFAULT: Span = Span::from_ms(150);
/// Default number of peak-estimator samples P (spec 02 §2.5.1).
pub const PEAK_SAMPLES_DEFAULT: u32 = 3;
/// Smallest allowed P (spec 02 §2.5.1: P = 3..20).
pub const PEAK_SAMPLES_MIN: u32 = 3;
/// Largest allowed P.
pub const PEAK_SAMPLES_MAX: u32 = 20;

/// Error of a name that is none of the allowed ones.
fn one_of(names: &[&str]) -> String {
    format!("one of {}", names.iter().map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(", "))
}

impl Admission {
    /// Accepted names, in the order of the variants.
    pub const NAMES: &'static [&'static str] = &["target_reduce", "target_strict"];
    /// The configuration name.
    pub fn as_str(self) -> &'static str {
        match self {
            Admission::TargetReduce => "target_reduce",
            Admission::TargetStrict => "target_strict",
        }
    }
}

impl FromStr for Admission {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "target_reduce" => Ok(Admission::TargetReduce),
            "target_strict" => Ok(Admission::TargetStrict),
            _ => Err(one_of(Self::NAMES)),
        }
    }
}

impl UtilEstimator {
    /// Accepted names, in the order of the variants.
    pub const NAMES: &'static [&'static str] = &["last_interval", "peak"];
    /// The `peak` estimator with the spec defaults S = 0.15 s, P = 3.
    pub const PEAK_DEFAULT: UtilEstimator = UtilEstimator::Peak { sample: PEAK_SAMPLE_DEFAULT, samples: PEAK_SAMPLES_DEFAULT };
    /// The configuration name (the peak parameters are separate keys).
    pub fn as_str(self) -> &'static str {
        match self {
            UtilEstimator::LastInterval => "last_interval",
            UtilEstimator::Peak { .. } => "peak",
        }
    }
}

impl FromStr for UtilEstimator {
    type Err = String;
    /// `"peak"` gives [`UtilEstimator::PEAK_DEFAULT`]; a caller with other S or P
    /// overwrites the fields.
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "last_interval" => Ok(UtilEstimator::LastInterval),
            "peak" => Ok(UtilEstimator::PEAK_DEFAULT),
            _ => Err(one_of(Self::NAMES)),
        }
    }
}

impl DenyAction {
    /// Accepted names, in the order of the variants.
    pub const NAMES: &'static [&'static str] = &["zero", "delete"];
    /// The configuration name.
    pub fn as_str(self) -> &'static str {
        match self {
            DenyAction::Zero => "zero",
            DenyAction::Delete => "delete",
        }
    }
}

impl FromStr for DenyAction {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "zero" => Ok(DenyAction::Zero),
            "delete" => Ok(DenyAction::Delete),
            _ => Err(one_of(Self::NAMES)),
        }
    }
}

macro_rules! display_as_str {
    ($($t:ty),+) => { $(impl fmt::Display for $t {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { f.write_str(self.as_str()) }
    })+ };
}
display_as_str!(Admission, UtilEstimator, DenyAction);

/// Per-packet processing-cost vector `qs.proc.*`, microseconds (spec 02 §2.5.7).
/// The delay of one packet is `base_us + meter_us + [option] opt_parse_us +
/// [approved] update_us + [reduced] (N_req − N_app) · nonce_field_us`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ProcCost {
    /// Every packet, µs.
    pub base_us: f64,
    /// Metering of every packet, µs.
    pub meter_us: f64,
    /// Parsing a Quick-Start IP option (any Function), µs.
    pub opt_parse_us: f64,
    /// Updating the option and the ring for an approval (full or reduced), µs.
    pub update_us: f64,
    /// Re-randomizing one 2-bit nonce field of a reduced approval, µs.
    pub nonce_field_us: f64,
    /// How packets share the processor (`qs.proc.discipline`, CHOICE).
    pub discipline: ProcDiscipline,
}

impl ProcCost {
    /// True when every cost is 0 (the default: no processing delay, and no
    /// processing stage at the egress).
    pub fn is_zero(&self) -> bool {
        [self.base_us, self.meter_us, self.opt_parse_us, self.update_us, self.nonce_field_us] == [0.0; 5]
    }
}

/// Parameters of one QS-enabled egress interface (spec 02 §2.5.1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RouterConfig {
    /// Link capacity C used by admission control, IP-level bit/s (no auto-detection).
    pub capacity_bps: u64,
    /// Metering interval D (default 1 s).
    pub meter_interval: Span,
    /// Approval history slots K, one per metering interval (default 2; history K·D).
    pub ring_slots: u32,
    /// Fraction θ of the capacity available to Quick-Start (default 1.0).
    pub thresh: f64,
    /// Admission arithmetic (default `target_reduce`).
    pub admission: Admission,
    /// Utilization estimate (default `last_interval`).
    pub util_estimator: UtilEstimator,
    /// Treatment of refused requests (default `zero`).
    pub deny_action: DenyAction,
    /// Requests evaluated per 1-second window aligned to time 0; later ones are
    /// refused without evaluation. `None` = unlimited (default).
    pub max_requests_per_s: Option<u32>,
    /// Metering boundaries lie at `meter_phase` + k·D (and peak samples at
    /// `meter_phase` + j·S); 0 = aligned to time 0 (default). The caller draws a
    /// random phase if it wants one.
    pub meter_phase: Span,
    /// Processing-delay model (default all 0).
    pub proc: ProcCost,
}

impl RouterConfig {
    /// The spec 02 §2.5.1 defaults for an interface of capacity `capacity_bps`:
    /// D = 1 s, K = 2, θ = 1.0, `target_reduce`, `last_interval`, `zero`,
    /// unlimited requests, phase 0, all processing costs 0.
    pub fn new(capacity_bps: u64) -> RouterConfig {
        RouterConfig {
            capacity_bps,
            meter_interval: Span::from_secs(1),
            ring_slots: 2,
            thresh: 1.0,
            admission: Admission::TargetReduce,
            util_estimator: UtilEstimator::LastInterval,
            deny_action: DenyAction::Zero,
            max_requests_per_s: None,
            meter_phase: Span::ZERO,
            proc: ProcCost::default(),
        }
    }

    /// Checks the ranges the router relies on; the message names the key.
    /// θ may exceed 1 (deliberate over-booking) but must be finite and ≥ 0.
    pub fn validate(&self) -> Result<(), String> {
        if self.capacity_bps == 0 {
            return Err("qs.capacity_bps: must be > 0".into());
        }
        if self.meter_interval == Span::ZERO {
            return Err("qs.meter_interval_s: must be > 0".into());
        }
        if self.ring_slots == 0 {
            return Err("qs.ring_slots: must be >= 1".into());
        }
        if !(self.thresh.is_finite() && self.thresh >= 0.0) {
            return Err("qs.thresh: must be a finite number >= 0".into());
        }
        if let UtilEstimator::Peak { sample, samples } = self.util_estimator {
            if sample == Span::ZERO {
                return Err("qs.util_estimator: peak sample length must be > 0".into());
            }
            if !(PEAK_SAMPLES_MIN..=PEAK_SAMPLES_MAX).contains(&samples) {
                return Err(format!("qs.util_estimator: peak samples must be in {PEAK_SAMPLES_MIN}..={PEAK_SAMPLES_MAX}"));
            }
        }
        let p = &self.proc;
        for (name, v) in [
            ("base_us", p.base_us),
            ("meter_us", p.meter_us),
            ("opt_parse_us", p.opt_parse_us),
            ("update_us", p.update_us),
            ("nonce_field_us", p.nonce_field_us),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(format!("qs.proc.{name}: must be a finite number >= 0"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_of_spec_02_2_5_1() {
        let c = RouterConfig::new(10_000_000);
        assert_eq!(c.capacity_bps, 10_000_000);
        assert_eq!(c.meter_interval, Span::from_secs(1));
        assert_eq!(c.ring_slots, 2);
        assert_eq!(c.thresh, 1.0);
        assert_eq!(c.admission, Admission::TargetReduce);
        assert_eq!(c.util_estimator, UtilEstimator::LastInterval);
        assert_eq!(c.deny_action, DenyAction::Zero);
        assert_eq!(c.max_requests_per_s, None);
        assert_eq!(c.meter_phase, Span::ZERO);
        assert!(c.proc.is_zero());
        assert_eq!(c.validate(), Ok(()));
    }

    #[test]
    fn names_round_trip() {
        for &n in Admission::NAMES {
            assert_eq!(n.parse::<Admission>().map(Admission::as_str), Ok(n));
        }
        for &n in UtilEstimator::NAMES {
            assert_eq!(n.parse::<UtilEstimator>().map(UtilEstimator::as_str), Ok(n));
        }
        for &n in DenyAction::NAMES {
            assert_eq!(n.parse::<DenyAction>().map(DenyAction::as_str), Ok(n));
        }
        assert_eq!(
            "peak".parse::<UtilEstimator>(),
            Ok(UtilEstimator::Peak { sample: Span::from_secs_f64(0.15), samples: 3 })
        );
        assert_eq!("strict".parse::<Admission>(), Err("one of \"target_reduce\", \"target_strict\"".to_string()));
        assert_eq!(DenyAction::Delete.to_string(), "delete");
    }

    #[test]
    fn validation_names_the_key() {
        let ok = RouterConfig::new(1);
        let bad = |f: fn(&mut RouterConfig)| {
            let mut c = ok;
            f(&mut c);
            c.validate().err().unwrap_or_default()
        };
        assert!(bad(|c| c.capacity_bps = 0).starts_with("qs.capacity_bps"));
        assert!(bad(|c| c.meter_interval = Span::ZERO).starts_with("qs.meter_interval_s"));
        assert!(bad(|c| c.ring_slots = 0).starts_with("qs.ring_slots"));
        assert!(bad(|c| c.thresh = f64::NAN).starts_with("qs.thresh"));
        assert!(bad(|c| c.util_estimator = UtilEstimator::Peak { sample: PEAK_SAMPLE_DEFAULT, samples: 21 })
            .starts_with("qs.util_estimator"));
        assert!(bad(|c| c.proc.nonce_field_us = -1.0).starts_with("qs.proc.nonce_field_us"));
        assert_eq!(bad(|c| c.util_estimator = UtilEstimator::PEAK_DEFAULT), "");
    }
}
