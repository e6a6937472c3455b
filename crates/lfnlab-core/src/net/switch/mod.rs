//! Ethernet switches (spec 05 §2.2–2.4): output-queued shared memory (M1),
//! input FIFOs with head-of-line blocking (M2), virtual output queues with a
//! crossbar scheduler (M3) and the simple round-robin switch (M4), with their
//! memory accounting, fabric timing and clock.

pub mod config;
pub mod core;
pub mod fabric;
pub mod memory;
pub mod output;
pub mod saturation;
pub mod sched;

pub use self::config::SwitchConfig;
pub use self::core::{Departure, Frame, Refused, SwitchCore};

impl Frame for crate::net::packet::Packet {
    #[inline]
    fn l2_bytes(&self) -> u64 {
        crate::net::packet::Packet::l2_bytes(self)
    }
}

#[cfg(test)]
mod core_tests;
#[cfg(test)]
mod quiet_tests;
