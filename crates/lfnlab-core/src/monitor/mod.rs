//! Observation: per-bin link and queue counters, and TCP connection traces.
pub mod busy_idle;
pub mod host_io;
pub mod link_monitor;
pub mod packet_capture;
pub mod tcp_trace;
