//! Traffic sources. `tcp_bulk` is a TCP socket whose application writes
//! unlimited (or a fixed count of) bytes (`host::tcp::sender::Sender::app_write`);
//! `udp_cbr` is below.
pub mod udp_cbr;
