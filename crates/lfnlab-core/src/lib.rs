//! lfnlab-core: a deterministic packet-level simulator for TCP over long fat networks.
//!
//! Layout (spec 00): `engine` (time, events, random streams), `net` (packets,
//! links, queues, routing), `host` (NIC/qdisc interface, TCP, congestion
//! control), `apps` (traffic sources), `monitor` (per-bin counters, TCP traces),
//! `scenario` (the TOML/dict schema, units, validation), `sim` (building and
//! running a world) and `results` (tables, summary, files).

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
