//! A host's queue disciplines (spec 06 §5.3): what sits between its TCP
//! sockets and its NIC's transmitter. Each implements `net::queue::Qdisc`
//! and reads TCP state only through `net::queue::FlowView`.
//!
//! | `qdisc.kind` | where | what |
//! |---|---|---|
//! | `pfifo` (default) | `net::queue::Fifo::host_ifq` | a FIFO of `txqueuelen` packets, the drop-tail FIFO routers use |
//! | `fq` | `fq` | sch_fq-style fair queueing with per-flow pacing (EDT or rate, spec 06 §5.3) |
//! | `ipg` | `ipg` | gap-packet pacing with IPG-aware classes (spec 01 §2.3–2.5) |
//! | `tcp_nic` | `tcp_nic` | the TCP-aware NIC's Send Buffer and per-stream IPG counters (spec 03 §2.7) |
//!
//! Clustered Packet Spacing (spec 03 §2.5) is not a qdisc: it decides when
//! the socket releases each segment, so it lives with the sender
//! (`host::tcp::cps`). NIC IPG tuning is the port's `ipg_bytes`.

pub mod fq;
pub mod ipg;
pub mod tcp_nic;
