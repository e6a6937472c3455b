//! Scenario files (spec 00 §2.2): schema, strict units, loading, validation.
pub mod model;
pub mod units;
