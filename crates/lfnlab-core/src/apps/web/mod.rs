//! The surge-style Web workload (spec 02 §3.2): the seeded file/object
//! catalogue, its distributions and the users' think time. The HTTP client
//! and server state machines (§3.2.4–3.2.5) read a `Catalogue`; they draw
//! object choices and think times from their own streams.
//!
//! - `dist`: samplers (lognormal, Pareto, geometric, Zipf, shuffle) on a `Stream`;
//! - `config`: the two named models and their distribution families (§3.2.3);
//! - `catalogue`: building the files and objects (§3.2.2) and their statistics.

pub mod catalogue;
pub mod config;
pub mod dist;
pub mod http;

pub use catalogue::{Catalogue, CatalogueStats};
pub use http::{HttpVariant, ObjectRecord, WebAction, WebWorkload};
pub use config::{CatalogueConfig, EmbeddedCount, Popularity, SizeModel, WebModel};

#[cfg(test)]
mod tests;
