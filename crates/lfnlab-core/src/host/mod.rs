//! End hosts: TCP and congestion control. The NIC is a `sim::world::Port`
//! whose queue discipline is the host qdisc (`net::queue::Qdisc`, spec 06 §5.3).
pub mod cc;
pub mod cpu;
pub mod nic;
pub mod tcp;
