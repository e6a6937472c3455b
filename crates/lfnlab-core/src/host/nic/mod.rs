//! The end-host NIC pipeline of spec 04 §2.3–2.6: the host I/O bus shared by
//! receive and transmit DMA, the bounded RX FIFO with its descriptor ring, the
//! TX descriptor ring and FIFO, the sender rate cap and the PAUSE generator.
//!
//! Sans-IO (STYLE point 2): these types hold state and answer questions; the
//! world (`sim::nic`) schedules their DMA completions and moves the frames.
//! A host without a `nic`/`bus` table keeps the ideal NIC of spec 06 §5.
pub mod bus;
pub mod config;
pub mod rate_cap;
pub mod rx;
pub mod tx;

use crate::net::pause::XoffGenerator;

pub use bus::Bus;
pub use config::NicConfig;
pub use rx::RxPath;
pub use tx::TxPath;

/// One host's NIC pipeline.
pub struct HostNic {
    /// `None`: `bus.model = "none"`, DMA takes no time.
    pub bus: Option<Bus>,
    pub rx: RxPath,
    pub tx: TxPath,
    /// RX FIFO PAUSE generator when `fc.send` is on (spec 04 §2.5).
    pub xoff: Option<XoffGenerator>,
    /// The requested cap was below `tx_rate_cap_min` and was raised to it.
    pub cap_clamped: bool,
}

impl HostNic {
    pub fn new(cfg: &NicConfig) -> HostNic {
        HostNic {
            bus: cfg.bus.map(Bus::new),
            rx: RxPath::new(cfg.rx_fifo_bytes, cfg.rx_descriptors),
            tx: TxPath::new(cfg.tx_fifo_bytes, cfg.tx_descriptors, cfg.cap),
            xoff: cfg.xoff.map(XoffGenerator::new),
            cap_clamped: cfg.cap_clamped,
        }
    }
}
