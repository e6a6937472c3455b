//! pcap export (`[[capture]]`, docs/pcap.md): the frames on a link as a
//! standard pcap file that Wireshark and tshark read.
//!
//! - `frame`: real Ethernet/IPv4/IPv6/TCP/UDP/PAUSE bytes for a simulated packet;
//! - `file`: the nanosecond pcap file and record headers;
//! - `tap`: the component that keeps the frames of one capture.
pub mod file;
pub mod frame;
pub mod tap;

pub use frame::Hop;
pub use tap::{PcapTap, TapConfig};

#[cfg(test)]
mod tests;
