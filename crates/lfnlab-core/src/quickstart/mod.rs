//! Quick-Start TCP (RFC 4782, spec 02): the pure, sans-IO building blocks.
//!
//! | File | Job | Spec 02 |
//! |---|---|---|
//! | `rate.rs` | 4-bit rate code ↔ bit/s | §2.2.1 |
//! | `option.rs` | byte-exact IP option (request, report) and TCP response | §2.2.2, §2.2.3, §2.2.5 |
//! | `nonce.rs` | the 30-bit nonce: draw, re-randomize per rate step, echo check | §2.2.4, §2.3.5 |
//! | `pacing.rs` | QS window and the timer pacing plan | §2.3.6, §2.3.7 |
//! | `router_config.rs` | typed parameters of the interface function, defaults | §2.5.1 |
//! | `meter.rs` | byte meter, `peak` samples, approval ring (advanced lazily from `now`) | §2.5.2, §2.5.3 |
//! | `sender.rs` | the sender state engine of one connection direction | §2.3 |
//! | `receiver.rs` | the receiver's echo | §2.4 |
//! | `router.rs` | the interface function: admission, option rewrite, counters, processing delay | §2.5.4–§2.5.7 |
//!
//! Nothing here reads a clock or owns a timer: callers pass `now` and the
//! option bytes, and random draws come from a caller-supplied
//! [`crate::engine::rng::Stream`].

pub mod meter;
pub mod nonce;
pub mod option;
pub mod pacing;
pub mod rate;
pub mod receiver;
pub mod router;
pub mod router_config;
pub mod sender;

pub use nonce::{NONCE_MASK, echo_matches, random_nonce, rerandomize};
pub use option::{
    FUNC_REPORT, FUNC_REQUEST, IP_OPT_LEN, IP_OPT_TYPE, IpQs, OPT_BYTES, QsResponse, TCP_OPT_KIND, TCP_OPT_LEN,
};
pub use pacing::{PacingPlan, qs_window, rtt_ticks};
pub use rate::{MAX_RATE_CODE, code_ceil, code_floor, rate_bps};
pub use router::{QsRouter, RouterCounters, RouterOutcome, Verdict};
pub use router_config::{Admission, DenyAction, ProcCost, RouterConfig, UtilEstimator};
