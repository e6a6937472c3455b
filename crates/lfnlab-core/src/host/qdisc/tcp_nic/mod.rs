//! `tcp_nic`: the TCP-aware NIC of spec 03 §2.7. It identifies each TCP
//! stream, paces it with its own IPG counter (fixed, or from the stream's
//! window and RTT) and merges all streams into one frame sequence with a
//! longest-waiting-Ready-first scheduler.
//!
//! Mechanism and policy are separate:
//! - `config`: parameters, modes and defaults;
//! - `counter`: the 32-bit IPG counter word (§2.7.4);
//! - `ipg_count`: the IPG count n of fixed and dynamic mode (§2.7.6);
//! - `send_buffer`: space accounting of the linked list on a ring (§2.7.3);
//! - `stream`: one CAM entry's SRAM record, packet list and statistics (§2.7.2);
//! - `qdisc`: Connection Manager and Packet Send Scheduler (§2.7.1, §2.7.5);
//! - `report`: end-of-run totals (starvation metric, ring blocks).

pub mod config;
pub mod counter;
pub mod ipg_count;
pub mod qdisc;
pub mod report;
pub mod send_buffer;
pub mod stream;

#[cfg(test)]
mod tests;

pub use config::{NicMode, RttPoint, TcpNicConfig};
pub use counter::CounterFields;
pub use qdisc::TcpNicQdisc;
pub use report::{StreamReport, StreamTotals, TcpNicReport};
