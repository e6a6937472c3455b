//! BBR v1 parameters (spec 06 §4.4 "BBR v1"), declared for the scenario
//! loader and resolved into one typed [`Config`].

use super::super::params::{CcParams, ParamDef, ParamKind, ParamValue};
use super::gains::{CWND_GAIN, HIGH_GAIN};
use crate::engine::time::Span;

pub const PARAMS: &[ParamDef] = &[
    ParamDef { name: "high_gain", kind: ParamKind::Num { min: 1.0, max: 10.0 }, about: "Startup pacing and cwnd gain (2/ln 2 = 2.885)" },
    ParamDef { name: "drain_gain", kind: ParamKind::Num { min: 0.01, max: 1.0 }, about: "Drain pacing gain (default 1/high_gain)" },
    ParamDef { name: "cwnd_gain", kind: ParamKind::Num { min: 1.0, max: 10.0 }, about: "ProbeBW cwnd gain" },
    ParamDef { name: "probe_rtt_interval", kind: ParamKind::Num { min: 0.01, max: 3600.0 }, about: "RTprop window and ProbeRTT interval, seconds" },
    ParamDef { name: "probe_rtt_duration", kind: ParamKind::Num { min: 0.0, max: 10.0 }, about: "minimum ProbeRTT hold at cwnd 4, seconds" },
    ParamDef { name: "btlbw_window_rounds", kind: ParamKind::Num { min: 1.0, max: 1000.0 }, about: "BtlBw max-filter window, rounds (integer)" },
    ParamDef { name: "full_bw_threshold", kind: ParamKind::Num { min: 1.0, max: 10.0 }, about: "BtlBw growth per round that still counts as growing (1.25 = 25 %)" },
    ParamDef { name: "full_bw_rounds", kind: ParamKind::Num { min: 1.0, max: 100.0 }, about: "rounds without that growth that end Startup (integer)" },
    ParamDef { name: "pacing_margin", kind: ParamKind::Num { min: 0.5, max: 1.0 }, about: "pacing rate factor below gain·BtlBw" },
];

/// Every default; `drain_gain` follows a given `high_gain`.
pub fn defaults(_profile: &str, given: &CcParams) -> CcParams {
    let high_gain = match given.get("high_gain") {
        Some(ParamValue::Num(g)) if *g >= 1.0 => *g,
        _ => HIGH_GAIN,
    };
    CcParams::new()
        .with_num("high_gain", high_gain)
        .with_num("drain_gain", 1.0 / high_gain)
        .with_num("cwnd_gain", CWND_GAIN)
        .with_num("probe_rtt_interval", 10.0)
        .with_num("probe_rtt_duration", 0.2)
        .with_num("btlbw_window_rounds", 10.0)
        .with_num("full_bw_threshold", 1.25)
        .with_num("full_bw_rounds", 3.0)
        .with_num("pacing_margin", 0.99)
}

/// Resolved parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Config {
    /// Startup pacing and cwnd gain, Drain cwnd gain.
    pub high_gain: f64,
    /// Drain pacing gain.
    pub drain_gain: f64,
    /// ProbeBW cwnd gain.
    pub cwnd_gain: f64,
    /// RTprop window: an estimate this old triggers ProbeRTT.
    pub probe_rtt_interval: Span,
    /// Minimum ProbeRTT hold once in_flight ≤ 4.
    pub probe_rtt_duration: Span,
    /// BtlBw max-filter window, rounds.
    pub btlbw_window_rounds: usize,
    /// BtlBw growth factor per round that still counts as growing.
    pub full_bw_threshold: f64,
    /// Rounds without such growth that declare the pipe full.
    pub full_bw_rounds: u32,
    /// Factor on gain·BtlBw for the pacing rate.
    pub pacing_margin: f64,
}

impl Config {
    /// From fully resolved parameters (integers are rounded).
    pub fn from_params(p: &CcParams) -> Config {
        Config {
            high_gain: p.num("high_gain"),
            drain_gain: p.num("drain_gain"),
            cwnd_gain: p.num("cwnd_gain"),
            probe_rtt_interval: Span::from_secs_f64(p.num("probe_rtt_interval")),
            probe_rtt_duration: Span::from_secs_f64(p.num("probe_rtt_duration")),
            btlbw_window_rounds: p.num("btlbw_window_rounds").round() as usize,
            full_bw_threshold: p.num("full_bw_threshold"),
            full_bw_rounds: p.num("full_bw_rounds").round() as u32,
            pacing_margin: p.num("pacing_margin"),
        }
    }
}

impl Default for Config {
    fn default() -> Config {
        Config::from_params(&defaults("linux-modern", &CcParams::new()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::cc::params::resolve_with;

    #[test]
    fn defaults_match_the_spec() {
        let c = Config::default();
        assert_eq!(c.high_gain, HIGH_GAIN);
        assert_eq!(c.drain_gain, 1.0 / HIGH_GAIN);
        assert_eq!(c.cwnd_gain, 2.0);
        assert_eq!(c.probe_rtt_interval, Span::from_secs(10));
        assert_eq!(c.probe_rtt_duration, Span::from_ms(200));
        assert_eq!(c.btlbw_window_rounds, 10);
        assert_eq!(c.full_bw_threshold, 1.25);
        assert_eq!(c.full_bw_rounds, 3);
        assert_eq!(c.pacing_margin, 0.99);
    }

    #[test]
    fn drain_gain_follows_a_given_high_gain() {
        let given = CcParams::new().with_num("high_gain", 2.0);
        let p = resolve_with(PARAMS, defaults("linux-modern", &given), &given).unwrap();
        assert_eq!(Config::from_params(&p).drain_gain, 0.5);
        let given = CcParams::new().with_num("high_gain", 2.0).with_num("drain_gain", 0.8);
        let p = resolve_with(PARAMS, defaults("linux-modern", &given), &given).unwrap();
        assert_eq!(Config::from_params(&p).drain_gain, 0.8);
    }
}
