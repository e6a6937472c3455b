//! End hosts: NIC, interface queue and qdiscs, TCP and congestion control.
pub mod tcp;
