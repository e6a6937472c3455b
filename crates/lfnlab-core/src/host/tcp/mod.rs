//! TCP (spec 06 §2–3): mechanism only; policy lives in `host::cc`.
pub mod config;
