//! A link direction and what happens to frames on it (spec 06 §1.2): the
//! channel that serializes and propagates them (`channel`), the loss models
//! applied as frames arrive (`loss`: Bernoulli, or a Gilbert–Elliott circuit
//! from `gilbert`), and the jitter and reordering of a real circuit (`impair`,
//! spec 04 §2.12).

pub mod channel;
pub mod gilbert;
pub mod impair;
pub mod loss;

pub use channel::Channel;
pub use loss::Loss;
