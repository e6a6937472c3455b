//! `flow[i].cc_params` (spec 06 §4.4): a TOML table checked against the
//! algorithm's declared parameters and filled in with every default.

use crate::scenario::resolve::Ctx;
use crate::error::InputError;
use crate::host::cc::{self, CcParams, ParamValue};

/// Checks the given table for algorithm `cc` under `profile` and returns the
/// complete table; `at` is its key path (`flow[0].cc_params`).
pub fn resolve_cc_params(given: Option<&toml::Table>, cc: &str, profile: &str, at: &str, ctx: &Ctx) -> Result<toml::Table, InputError> {
    let mut p = CcParams::new();
    for (k, v) in given.into_iter().flatten() {
        let value = match v {
            toml::Value::Integer(i) => ParamValue::Num(*i as f64),
            toml::Value::Float(x) => ParamValue::Num(*x),
            toml::Value::Boolean(b) => ParamValue::Bool(*b),
            toml::Value::String(s) => ParamValue::Text(s.clone()),
            other => {
                return Err(ctx.err(format!("{at}.{k}"), format!("expected a number, true/false or a word, got a value of type {}", other.type_str())));
            }
        };
        p.0.insert(k.clone(), value);
    }
    let resolved = cc::resolve_params(cc, profile, &p).map_err(|e| {
        let key = if e.key.is_empty() { at.to_string() } else { format!("{at}.{}", e.key) };
        ctx.err(key, format!("{} (cc = \"{cc}\")", e.message))
    })?;
    Ok(to_table(&resolved))
}

/// The TOML form of resolved parameters.
pub fn to_table(p: &CcParams) -> toml::Table {
    p.0.iter()
        .map(|(k, v)| {
            let tv = match v {
                ParamValue::Num(x) => toml::Value::Float(*x),
                ParamValue::Bool(b) => toml::Value::Boolean(*b),
                ParamValue::Text(t) => toml::Value::String(t.clone()),
            };
            (k.clone(), tv)
        })
        .collect()
}

/// Parameters back from a resolved table (the builder's side).
pub fn from_table(t: &toml::Table) -> CcParams {
    let mut p = CcParams::new();
    for (k, v) in t {
        let value = match v {
            toml::Value::Integer(i) => ParamValue::Num(*i as f64),
            toml::Value::Float(x) => ParamValue::Num(*x),
            toml::Value::Boolean(b) => ParamValue::Bool(*b),
            toml::Value::String(s) => ParamValue::Text(s.clone()),
            _ => continue,
        };
        p.0.insert(k.clone(), value);
    }
    p
}
