//! Scenario keys of a host and its TCP flows (`crate::host`): TCP parameter
//! tables and profiles (spec 06 §2.1), congestion-control names and
//! parameters (§4.4), pacing and the host qdisc (§4.3, §5.3, spec 01, spec
//! 03), the NIC pipeline and bus (spec 04 §2.4–2.6), the CPU (§2.7) and the
//! memory model (spec 01 §2.6).
pub mod cc_names;
pub mod cc_params;
pub mod cpu;
pub mod memory;
pub mod nic;
pub mod pacing;
pub mod profiles;
pub mod qdisc;
pub mod tcp_params;
