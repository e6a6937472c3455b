//! The network: packets, links (`link`: channels, loss models, impairments),
//! egress queues, routing, switches.
pub mod burst_red;
pub mod drop;
pub mod eager_fifo;
pub mod link;
pub mod packet;
pub mod pause;
pub mod phy;
pub mod proc_stage;
pub mod queue;
pub mod routing;
pub mod switch;
pub mod timed_fifo;
