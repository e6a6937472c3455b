//! Congestion-control parameters (spec 06 §4.4 "parameters are overridable
//! from the scenario"). Each algorithm declares its parameters once; the
//! scenario loader checks given values against the declaration, fills in the
//! defaults (which may depend on the host profile and on a chosen `variant`)
//! and writes the complete set into the filled-in `scenario.toml`.

use std::collections::BTreeMap;
use std::fmt;

/// A parameter value as written in a scenario.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamValue {
    Num(f64),
    Bool(bool),
    Text(String),
}

impl fmt::Display for ParamValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamValue::Num(x) => write!(f, "{x}"),
            ParamValue::Bool(b) => write!(f, "{b}"),
            ParamValue::Text(t) => write!(f, "\"{t}\""),
        }
    }
}

/// What values a parameter accepts.
#[derive(Clone, Copy, Debug)]
pub enum ParamKind {
    /// A number in [min, max].
    Num { min: f64, max: f64 },
    Bool,
    /// One of the listed words.
    Choice(&'static [&'static str]),
}

/// One declared parameter.
#[derive(Clone, Copy, Debug)]
pub struct ParamDef {
    pub name: &'static str,
    pub kind: ParamKind,
    /// One line for error messages and docs.
    pub about: &'static str,
}

impl ParamDef {
    /// `Ok` if `v` fits this declaration, else what was expected.
    pub fn check(&self, v: &ParamValue) -> Result<(), String> {
        match (self.kind, v) {
            (ParamKind::Num { min, max }, ParamValue::Num(x)) => {
                if x.is_finite() && *x >= min && *x <= max {
                    Ok(())
                } else {
                    Err(format!("expected a number in [{min}, {max}] ({}), got {x}", self.about))
                }
            }
            (ParamKind::Bool, ParamValue::Bool(_)) => Ok(()),
            (ParamKind::Choice(words), ParamValue::Text(t)) => {
                if words.contains(&t.as_str()) {
                    Ok(())
                } else {
                    Err(format!("expected one of {} ({}), got \"{t}\"", quoted(words), self.about))
                }
            }
            (ParamKind::Num { min, max }, other) => Err(format!("expected a number in [{min}, {max}] ({}), got {other}", self.about)),
            (ParamKind::Bool, other) => Err(format!("expected true or false ({}), got {other}", self.about)),
            (ParamKind::Choice(words), other) => Err(format!("expected one of {} ({}), got {other}", quoted(words), self.about)),
        }
    }
}

fn quoted(words: &[&str]) -> String {
    words.iter().map(|w| format!("\"{w}\"")).collect::<Vec<_>>().join(", ")
}

/// A set of parameter values by name. After resolving, every declared
/// parameter of the algorithm is present.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CcParams(pub BTreeMap<String, ParamValue>);

impl CcParams {
    pub fn new() -> CcParams {
        CcParams::default()
    }

    /// Builder form: `CcParams::new().with_num("beta", 0.7)`.
    pub fn with(mut self, name: &str, v: ParamValue) -> CcParams {
        self.0.insert(name.to_string(), v);
        self
    }
    pub fn with_num(self, name: &str, x: f64) -> CcParams {
        self.with(name, ParamValue::Num(x))
    }
    pub fn with_bool(self, name: &str, b: bool) -> CcParams {
        self.with(name, ParamValue::Bool(b))
    }
    pub fn with_text(self, name: &str, t: &str) -> CcParams {
        self.with(name, ParamValue::Text(t.to_string()))
    }

    pub fn get(&self, name: &str) -> Option<&ParamValue> {
        self.0.get(name)
    }

    /// A number that resolving guarantees is present.
    pub fn num(&self, name: &str) -> f64 {
        match self.0.get(name) {
            Some(ParamValue::Num(x)) => *x,
            other => panic!("cc parameter {name}: resolved number expected, found {other:?}"),
        }
    }
    pub fn flag(&self, name: &str) -> bool {
        match self.0.get(name) {
            Some(ParamValue::Bool(b)) => *b,
            other => panic!("cc parameter {name}: resolved bool expected, found {other:?}"),
        }
    }
    pub fn text(&self, name: &str) -> &str {
        match self.0.get(name) {
            Some(ParamValue::Text(t)) => t,
            other => panic!("cc parameter {name}: resolved word expected, found {other:?}"),
        }
    }

    /// The given value of `name` if set, else `default`.
    pub fn text_or<'a>(&'a self, name: &str, default: &'a str) -> &'a str {
        match self.0.get(name) {
            Some(ParamValue::Text(t)) => t,
            _ => default,
        }
    }
}

/// A parameter that does not fit its declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamError {
    /// The parameter name (the caller prefixes the key path).
    pub key: String,
    pub message: String,
}

/// Check `given` against `defs`, then lay it over `defaults`.
pub fn resolve_with(defs: &[ParamDef], defaults: CcParams, given: &CcParams) -> Result<CcParams, ParamError> {
    for (k, v) in &given.0 {
        let Some(def) = defs.iter().find(|d| d.name == k) else {
            let names: Vec<&str> = defs.iter().map(|d| d.name).collect();
            let expected = if names.is_empty() { "this algorithm has no parameters".to_string() } else { format!("expected one of {}", names.join(", ")) };
            return Err(ParamError { key: k.clone(), message: format!("unknown parameter \"{k}\"; {expected}") });
        };
        def.check(v).map_err(|message| ParamError { key: k.clone(), message })?;
    }
    let mut out = defaults;
    for (k, v) in &given.0 {
        out.0.insert(k.clone(), v.clone());
    }
    debug_assert!(defs.iter().all(|d| out.0.contains_key(d.name)), "defaults must cover every declared parameter");
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEFS: &[ParamDef] = &[
        ParamDef { name: "beta", kind: ParamKind::Num { min: 0.0, max: 1.0 }, about: "decrease factor" },
        ParamDef { name: "hystart", kind: ParamKind::Bool, about: "HyStart" },
        ParamDef { name: "variant", kind: ParamKind::Choice(&["a", "b"]), about: "constants" },
    ];

    fn defaults() -> CcParams {
        CcParams::new().with_num("beta", 0.7).with_bool("hystart", false).with_text("variant", "a")
    }

    #[test]
    fn given_values_override_defaults() {
        let p = resolve_with(DEFS, defaults(), &CcParams::new().with_num("beta", 0.8)).unwrap();
        assert_eq!(p.num("beta"), 0.8);
        assert!(!p.flag("hystart"));
        assert_eq!(p.text("variant"), "a");
    }

    #[test]
    fn bad_values_name_the_key_and_the_expectation() {
        let e = resolve_with(DEFS, defaults(), &CcParams::new().with_num("betta", 0.8)).unwrap_err();
        assert_eq!(e.key, "betta");
        assert!(e.message.contains("expected one of beta, hystart, variant"), "{}", e.message);
        let e = resolve_with(DEFS, defaults(), &CcParams::new().with_num("beta", 1.5)).unwrap_err();
        assert!(e.message.contains("[0, 1]"), "{}", e.message);
        let e = resolve_with(DEFS, defaults(), &CcParams::new().with_text("variant", "c")).unwrap_err();
        assert!(e.message.contains("\"a\", \"b\""), "{}", e.message);
        let e = resolve_with(DEFS, defaults(), &CcParams::new().with_num("hystart", 1.0)).unwrap_err();
        assert!(e.message.contains("true or false"), "{}", e.message);
    }
}
