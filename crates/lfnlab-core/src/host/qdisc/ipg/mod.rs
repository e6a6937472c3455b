//! `ipg`: gap-packet pacing and IPG-aware packet scheduling (spec 01 §2.2–2.5,
//! the `sch_ipg` qdisc of Takano et al.).
//!
//! The qdisc paces without timers: before a real packet it hands the NIC
//! PAUSE(0) gap frames whose wire time makes the packet start at its class's
//! eligible time. Mechanism and policy are separate:
//! - `config`: parameters and their enumerations;
//! - `gap`: splitting a gap into frames and the DMA size of gap frames (§2.3);
//! - `rate`: the target-rate estimator, equation (1) (§2.2);
//! - `qdisc`: classes, the classifier and the dequeue algorithm (§2.4–2.5).

pub mod config;
pub mod gap;
pub mod qdisc;
pub mod rate;

#[cfg(test)]
mod tests;

pub use config::{IpgClass, IpgConfig, RateSource, RttEstimator, SizeBasis, SmallGapPolicy};
pub use qdisc::IpgQdisc;
