//! Strict unit quantities of spec 00 §2.1 (placeholder shapes; parsing lands with the loader).
use serde::{Deserialize, Serialize};
use crate::engine::time::Span;

/// A bit rate in bit/s.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize)]
pub struct Rate { pub bps: u64 }
/// A size in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize)]
pub struct ByteSize { pub bytes: u64 }
/// A non-negative span of time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize)]
pub struct TimeSpan { pub span: Span }
