//! The discrete-event engine: integer time, the event queue, seeded random streams.
pub mod block_ring;
pub mod event_log;
pub mod event_queue;
pub mod rng;
pub mod time;
