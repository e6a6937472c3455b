//! The network: packets, link directions (channels), egress queues, routing.
pub mod burst_red;
pub mod channel;
pub mod drop;
pub mod eager_fifo;
pub mod fq;
pub mod gilbert;
pub mod impair;
pub mod ipg;
pub mod packet;
pub mod pause;
pub mod phy;
pub mod proc_stage;
pub mod queue;
pub mod routing;
pub mod switch;
pub mod tcp_nic;
pub mod timed_fifo;
