//! The discrete-event engine: integer time, the event queue, seeded random streams.
pub mod time;
