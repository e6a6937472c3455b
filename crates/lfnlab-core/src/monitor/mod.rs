//! Observation: per-bin link and queue counters, TCP connection traces, and
//! pcap captures.
pub mod busy_idle;
pub mod host_io;
pub mod link_monitor;
pub mod packet_capture;
pub mod pcap;
pub mod tcp_trace;
