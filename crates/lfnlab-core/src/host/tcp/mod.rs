//! TCP (spec 06 §2–3): mechanism only; policy lives in `host::cc`.
pub mod config;
pub mod cps;
pub mod ranges;
pub mod receiver;
pub mod rtt;
pub mod scoreboard;
pub mod sender;
pub mod socket;
