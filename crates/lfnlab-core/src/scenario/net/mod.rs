//! Scenario keys of the network (`crate::net`): links, their queues and loss
//! models (`links`, the spec 03 §2.8 `burst_red` queue), and switches (spec 05).
pub mod burst_red;
pub mod links;
pub mod switch;
