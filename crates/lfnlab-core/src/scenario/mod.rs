//! Scenario files (spec 00 §2.2): schema, strict units, loading, validation.
//!
//! Every input (TOML file, TOML text, a Python dict as JSON) takes one path:
//! parse → apply `--set` (`set`) → deserialize with key paths (`load`) →
//! defaults and semantic checks (`resolve`, `nodes`, `links`, `flows`). The
//! result is resolved: every default is filled in, and `to_toml` writes it
//! back so that loading the text gives the same scenario.
pub mod model;
pub mod units;

pub mod bins;
pub mod capture;
mod cc_names;
mod decimal;
mod emit;
mod flows;
pub mod keypath;
pub mod reference;
mod links;
mod load;
mod nodes;
mod profiles;
mod pacing;
mod host_memory;
mod host_cpu;
mod host_nic;
pub use host_cpu::cpu_config;
pub use host_nic::{honour_react_quanta, nic_config, switch_xoff_config};
mod qdisc_ipg;
mod qdisc_tcp_nic;
pub use qdisc_tcp_nic::tcp_nic_config;
mod queue_burst_red;
mod quickstart;
pub use quickstart::{flow_qs_config, router_qs_config};
pub use queue_burst_red::burst_red_config;
pub use host_memory::memory_model;
pub use qdisc_ipg::ipg_config;
mod cc_params;
pub use cc_params::from_table as cc_params_from_table;
mod resolve;
mod set;
mod switch_node;
pub use switch_node::{switch_config, SwitchSpec};
mod tcp_params;

pub use emit::to_toml;
pub use load::{load_file, load_json, load_str};
pub use model::Scenario;
pub use profiles::{default_cc, profile_params, DEFAULT_PROFILE};
pub use set::SET_ORIGIN;
pub use tcp_params::tcp_config;

/// TCP profile names (spec 06 §2.1), oldest first.
pub const PROFILES: &[&str] = profiles::PROFILES;
