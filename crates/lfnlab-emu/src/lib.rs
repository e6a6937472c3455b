//! lfnlab-emu: a userspace WAN emulator for real Linux TCP. A Layer-2 relay
//! between two interfaces (veth ends in a middle network namespace) that
//! shapes each direction exactly like the simulator's emulator port: a
//! drop-tail FIFO limited in L2 bytes, a line rate counted in wire bytes,
//! and a one-way delay (`shaper`, after `lfnlab-core` `net::eager_fifo`).
//!
//! | File | Job |
//! |---|---|
//! | `shaper.rs` | the per-direction mechanism, sans-IO, integer ns |
//! | `loss.rs` | random loss after the queue and the line, sans-IO |
//! | `config.rs` | the typed, validated configuration |
//! | `cli.rs`, `run.rs`, `main.rs` | the `lfnlab-emu` command line (`run::run_cli`, also behind `lfnlab emu`) |
//! | `socket.rs` | AF_PACKET sockets, batched receive/send, kernel timestamps |
//! | `sys.rs` | clock, stop signals, waiting, SCHED_FIFO, mlockall |
//! | `pool.rs` | the preallocated frame buffers |
//! | `relay.rs` | the loop |
//! | `spin.rs` | the budget on busy-waiting |
//! | `histogram.rs`, `stats.rs`, `trace.rs` | lateness histogram, JSON statistics, CSV trace |
//!
//! Unsafe code lives only in `socket.rs` and `sys.rs`.

#![deny(unsafe_code)]

pub mod cli;
pub mod config;
pub mod histogram;
pub mod loss;
pub mod pool;
pub mod relay;
pub mod run;
pub mod shaper;
#[allow(unsafe_code)]
pub mod socket;
pub mod spin;
pub mod stats;
#[allow(unsafe_code)]
pub mod sys;
pub mod trace;
