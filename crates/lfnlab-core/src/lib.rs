//! lfnlab-core: a deterministic packet-level simulator for TCP over long fat networks.
//!
//! Layout (spec 00): `engine` (time, events, random streams), `net` (packets,
//! links with their loss models and impairments, drop causes, forwarding
//! queues, routing, switches), `host` (TCP, congestion control, the host
//! qdiscs, the NIC pipeline, the CPU model), `apps` (traffic sources),
//! `monitor` (per-bin counters, TCP traces, pcap taps), `scenario` (the
//! TOML/dict schema, units, validation), `sim` (building and running a world:
//! ports, the books, the event dispatch) and `results` (tables, summary, files).
//!
//! Where is a packet dropped? A place decides and counts it by
//! `net::drop::DropCause` (a queue's `enqueue`, a link's `net::link::Loss`, a
//! routing hop in `sim::early`, a NIC's receive FIFO, a switch core), and
//! `sim::books::Books::book_drop` books it.

pub mod apps;
pub mod engine;
pub mod error;
pub mod host;
pub mod monitor;
pub mod net;
pub mod quickstart;
pub mod results;
pub mod scenario;
pub mod sim;

pub use error::{Error, InputError};
