//! Building a world from a resolved scenario and running it.

use crate::error::Error;
use crate::results::summary::Summary;
use crate::results::table::Table;
use crate::scenario::model::Scenario;

/// Everything a run produces (spec 00 §2.4), before it is written anywhere.
#[derive(Clone, Debug)]
pub struct RunOutput {
    pub summary: Summary,
    /// Per flow and monitor bin: `flows.parquet`.
    pub flows: Table,
    /// Per TCP connection: the Web100-like trace, `tcp.parquet`.
    pub tcp: Table,
    /// Per monitored queue and bin: `queues.parquet`.
    pub queues: Table,
    /// The scenario exactly as run, every default filled in.
    pub scenario_toml: String,
}

/// Runs a resolved scenario (see `scenario::load`) to completion.
pub fn run(scenario: &Scenario) -> Result<RunOutput, Error> {
    let _ = scenario;
    Err(Error::Runtime("the engine is not built yet".into()))
}
