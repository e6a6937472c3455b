//! Host qdisc keys with a configuration of their own (`crate::host::qdisc`):
//! `ipg` (spec 01) and `tcp_nic` (spec 03 §2.7). `pfifo` and `fq` are
//! resolved in `host::pacing`.
pub mod ipg;
pub mod tcp_nic;
