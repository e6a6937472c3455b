//! Results of a run (spec 00 §2.4).
#[cfg(feature = "files")]
pub mod arrow;
pub mod summary;
pub mod table;
#[cfg(feature = "files")]
pub mod write;
