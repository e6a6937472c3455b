//! Traffic sources. `tcp_bulk` is a TCP socket whose application writes
//! unlimited (or a fixed count of) bytes (`host::tcp::sender::Sender::app_write`);
//! `request_response` and `udp_cbr` are below.
pub mod request_response;
pub mod web;
pub mod udp_cbr;
