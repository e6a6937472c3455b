//! Results of a run (spec 00 §2.4).
pub mod arrow;
pub mod summary;
pub mod table;
pub mod write;
