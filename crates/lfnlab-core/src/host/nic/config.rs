//! The built NIC pipeline configuration (resolved from `node.nic`, `node.bus`
//! and `node.fc`; defaults in `scenario::host::nic`, spec 04 §2.4–2.7).

use super::bus::BusConfig;
use super::rate_cap::RateCapConfig;
use crate::net::pause::XoffConfig;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NicConfig {
    /// `None` for `bus.model = "none"`.
    pub bus: Option<BusConfig>,
    pub rx_fifo_bytes: u64,
    pub tx_fifo_bytes: u64,
    pub rx_descriptors: u32,
    pub tx_descriptors: u32,
    /// The MAC's rate cap (§2.6), already clamped.
    pub cap: Option<RateCapConfig>,
    pub cap_clamped: bool,
    /// RX FIFO PAUSE thresholds when `fc.send` is on (§2.5).
    pub xoff: Option<XoffConfig>,
}
