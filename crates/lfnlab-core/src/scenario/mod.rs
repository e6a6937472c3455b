//! Scenario files (spec 00 §2.2): schema, strict units, loading, validation.
//!
//! Every input (TOML file, TOML text, a Python dict as JSON) takes one path:
//! parse → apply `--set` (`set`) → deserialize with key paths (`load`) →
//! defaults and semantic checks (`resolve`, `nodes`, `links`, `flows`). The
//! result is resolved: every default is filled in, and `to_toml` writes it
//! back so that loading the text gives the same scenario.
pub mod model;
pub mod units;

// The input path: parse, `--set`, deserialize, resolve, write back.
mod decimal;
mod emit;
pub mod keypath;
mod load;
pub mod reference;
mod resolve;
mod set;
// Checks and defaults per part of a scenario, in folders that mirror the
// core: `host/` (TCP parameters and profiles, congestion-control names and
// parameters, pacing and host qdiscs, NIC, CPU, memory), `net/` (links and
// their queues, switches), `monitor/` (binned series, pcap captures); nodes,
// flows and Quick-Start at the top.
mod flows;
pub mod host;
pub mod monitor;
pub mod net;
mod nodes;
mod quickstart;
// The typed stage the core builds from: one configuration per node kind.
pub mod node_config;

pub use host::cc_params::from_table as cc_params_from_table;
pub use host::profiles::{default_cc, profile_params, DEFAULT_PROFILE};
pub use host::tcp_params::tcp_config;
pub use net::burst_red::burst_red_config;
pub use net::switch::SwitchSpec;
pub use quickstart::{flow_qs_config, router_qs_config};

pub use emit::to_toml;
pub use load::{load_file, load_json, load_str};
pub use model::Scenario;
pub use node_config::{node_configs, node_index, HostConfig, HostQdiscConfig, KindConfig, NodeConfig, Unresolved};
pub use set::SET_ORIGIN;

/// TCP profile names (spec 06 §2.1), oldest first.
pub const PROFILES: &[&str] = host::profiles::PROFILES;
