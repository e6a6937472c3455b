//! The congestion controls a scenario can name (spec 00 §2.2, spec 06 §4.4).

use super::params::{CcParams, ParamDef, ParamError, resolve_with};
use super::{CongestionControl, CreateCtx, reno};

/// One congestion-control algorithm as the scenario loader and builder see it.
pub struct Algorithm {
    pub name: &'static str,
    /// One line for `--help`-style listings.
    pub about: &'static str,
    pub params: &'static [ParamDef],
    /// Every declared parameter's default, given the TCP profile and the
    /// values the scenario set (a `variant` may change the other defaults).
    pub defaults: fn(profile: &str, given: &CcParams) -> CcParams,
    /// Build an instance from fully resolved parameters.
    pub create: fn(params: &CcParams, ctx: &CreateCtx) -> Box<dyn CongestionControl>,
}

/// Every algorithm built, in spec 00 §2.2 order.
pub const ALGORITHMS: &[&Algorithm] = &[&reno::NEWRENO, &reno::RENO, &super::scalable::ALGORITHM, &super::highspeed::ALGORITHM, &super::bic::ALGORITHM, &super::cubic::CUBIC, &super::vegas::VEGAS, &super::fast::FAST, &super::bbr::ALGORITHM];

/// Names of the algorithms built, in registry order. The scenario loader accepts exactly these.
pub fn available() -> Vec<&'static str> {
    ALGORITHMS.iter().map(|a| a.name).collect()
}

/// Every name the spec lists (spec 00 §2.2), built or not.
pub const SPEC_NAMES: &[&str] = &["reno", "newreno", "scalable", "highspeed", "bic", "cubic", "vegas", "fast", "bbr"];

pub fn find(name: &str) -> Option<&'static Algorithm> {
    ALGORITHMS.iter().copied().find(|a| a.name == name)
}

/// Check `given` for algorithm `name` and fill in every default.
pub fn resolve_params(name: &str, profile: &str, given: &CcParams) -> Result<CcParams, ParamError> {
    let alg = find(name).ok_or_else(|| ParamError { key: String::new(), message: format!("unknown congestion control \"{name}\"") })?;
    resolve_with(alg.params, (alg.defaults)(profile, given), given)
}

/// Construct an algorithm from resolved parameters.
pub fn create(name: &str, params: &CcParams, ctx: &CreateCtx) -> Option<Box<dyn CongestionControl>> {
    find(name).map(|a| (a.create)(params, ctx))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_is_consistent() {
        let names = available();
        for (i, a) in ALGORITHMS.iter().enumerate() {
            assert!(!names[..i].contains(&a.name), "{} registered twice", a.name);
            assert!(SPEC_NAMES.contains(&a.name));
            // Defaults cover every declared parameter under every profile.
            for profile in ["linux-2.4", "linux-2.6", "linux-modern"] {
                let p = resolve_params(a.name, profile, &CcParams::new()).unwrap();
                for d in a.params {
                    let v = p.get(d.name).unwrap_or_else(|| panic!("{}: no default for {}", a.name, d.name));
                    d.check(v).unwrap_or_else(|e| panic!("{}: default of {}: {e}", a.name, d.name));
                }
                let ctx = CreateCtx { basis: reno::Basis::Cwnd, seed: 1 };
                let cc = create(a.name, &p, &ctx).unwrap();
                assert_eq!(cc.name(), a.name);
                assert!(cc.trace_names().len() <= 4);
            }
        }
    }
}
