//! The resolved scenario as TOML (spec 00 §2.4 `scenario.toml`): every value
//! used, in canonical units, readable back into the same scenario.

use super::model::Scenario;

/// Writes `s` as TOML. For a resolved scenario, loading the text gives `s` back
/// exactly (units display canonically and exactly; floats in shortest
/// round-trip form).
///
/// # Panics
/// Only on a scenario no loader can produce: an integer above `i64::MAX`
/// (`seed`, `limit_packets`), which TOML cannot represent.
pub fn to_toml(s: &Scenario) -> String {
    let body =
        toml::to_string(s).expect("a scenario from a loader holds only TOML-representable values");
    format!("# lfnlab scenario, resolved: every default filled in\n\n{body}")
}
