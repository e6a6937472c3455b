//! TCP (spec 06 §2–3): mechanism only; policy lives in `host::cc`.
//!
//! A socket (`socket`: handshake, segments in and out, timers, pacing
//! release) holds a sender and a receiver. The sender (`sender`: sequence
//! space, the congestion-avoidance state machine, the RTO; `on_ack` as a
//! short sequence of named steps) keeps its parts in files of their own, as
//! Linux and ns-3 split them: loss recovery's window rules and bookkeeping
//! (`recovery`: NewReno, rate halving, PRR, CWR; ns-3 `TcpRecoveryOps`), the
//! pacing rate (`pacing_rate`, Linux `tcp_update_pacing_rate`), cwnd use per
//! window (`cwnd_usage`, Linux `tcp_cwnd_validate`), the application above it
//! (`app_source`), delivery-rate sampling (`delivery_rate`, Linux
//! `tcp_rate.c`), the sending-limit accounting (`snd_limits`, Linux
//! `tcp_chrono`), the scoreboard of segments in flight and its lost marking
//! (`scoreboard`; RACK-TLP in `rack`, the old kernels' lost-retransmission
//! check in `lost_retrans`), the RTT estimator (`rtt`) and buffer autotuning
//! (`autotune`, Linux `tcp_rcv_space_adjust`, `tcp_sndbuf_expand`). The receiver (`receiver`) owns rcv_nxt, the window
//! and the ACK policy; Clustered Packet Spacing (`cps`) decides when the first
//! rounds' segments may leave. Code outside this folder calls methods; it
//! writes no socket field.
pub mod app_source;
pub mod autotune;
pub mod config;
pub mod cps;
pub mod cwnd_usage;
pub mod delivery_rate;
pub mod pacing_rate;
pub mod lost_retrans;
pub mod rack;
pub mod ranges;
pub mod receiver;
pub mod recovery;
pub mod rtt;
pub mod scoreboard;
pub mod sender;
pub mod snd_limits;
pub mod socket;
