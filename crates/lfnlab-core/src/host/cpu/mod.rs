//! The host CPU of spec 04 §2.7: cores that serve softirq work before process
//! work, interrupt coalescing with NAPI-like polling, per-item cycle costs by
//! category, the application writer and reader.
//!
//! Sans-IO (STYLE point 2): this module holds the state and prices the work;
//! the world (`sim::cpu`) schedules the cores' completions and carries out
//! what each item does to the NIC and the sockets.
pub mod config;
pub mod core;
pub mod cost;
pub mod irq;

/// Cores per host the event index can address (`Event::CpuDone` carries
/// host·MAX_CORES + core; checked at load).
pub const MAX_CORES: u32 = 16;

use std::collections::VecDeque;

use self::config::CpuConfig;
use self::core::{Class, Core};
use self::irq::Coalescer;
use crate::engine::rng::Stream;
use crate::engine::time::{SimTime, Span};
use crate::net::packet::Packet;

/// The NAPI poll budget (spec 04 §2.7 rule 2).
pub const POLL_BUDGET: u32 = 64;

/// Counters of one host's CPU.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuStats {
    pub polls: u64,
    pub rx_frames: u64,
    pub tx_cleaned: u64,
    pub packets_built: u64,
    pub writes: u64,
    pub reads: u64,
    pub bytes_written: u64,
    pub bytes_read: u64,
}

pub struct HostCpu {
    pub cfg: CpuConfig,
    pub cores: Vec<Core>,
    pub irq: Coalescer,
    /// Frames in host memory waiting for the poll loop; each holds its RX descriptor.
    pub rx_done: VecDeque<Packet>,
    /// TX completions waiting for the poll loop; each holds its TX descriptor.
    pub tx_done: u32,
    /// Packets TCP produced, in production order, waiting to be built. Each
    /// `Output(n)` item builds the next n, whichever class queued it, so
    /// packets enter the qdisc in the order TCP produced them (the socket lock
    /// serialises process and softirq output in Linux).
    pub held: VecDeque<(u32, Packet)>,
    /// The context TCP code runs in right now (who builds its output).
    pub ctx: Class,
    /// Frames left in the current poll's budget.
    pub poll_left: u32,
    pub rng: Stream,
    /// Width of the cores' accounting bins.
    pub bin: Span,
    pub stats: CpuStats,
}

impl HostCpu {
    /// `horizon`: the end of the run; the cores keep no bins after it.
    pub fn new(cfg: CpuConfig, bin: Span, horizon: SimTime, rng: Stream) -> HostCpu {
        HostCpu {
            cores: (0..cfg.cores).map(|_| Core::new(bin, horizon)).collect(),
            irq: Coalescer::new(cfg.k_irq, cfg.t_irq),
            cfg,
            rx_done: VecDeque::with_capacity(64),
            tx_done: 0,
            held: VecDeque::with_capacity(64),
            ctx: Class::Softirq,
            poll_left: 0,
            rng,
            bin,
            stats: CpuStats::default(),
        }
    }

    /// The core serving `class`: softirq work on `irq_core`, process work on `app_core`.
    pub fn core_of(&self, class: Class) -> u32 {
        match class {
            Class::Softirq => self.cfg.irq_core,
            Class::Process => self.cfg.app_core,
        }
    }

    /// The jitter factor of the next item, U[1 − j, 1 + j].
    pub fn scale(&mut self) -> f64 {
        if self.cfg.jitter == 0.0 {
            return 1.0;
        }
        1.0 + self.cfg.jitter * (2.0 * self.rng.next_f64() - 1.0)
    }

    /// Picoseconds per cycle at the configured clock.
    pub fn ps_per_cycle(&self) -> f64 {
        1000.0 / self.cfg.freq_ghz
    }

    /// Received frames in host memory not yet processed (still queued at the host).
    pub fn rx_frames_held(&self) -> u64 {
        let running = self.cores.iter().filter(|c| matches!(c.running, Some(core::Running::Rx { .. }))).count();
        (self.rx_done.len() + running) as u64
    }

    /// Packets held for output (they will enter the qdisc).
    pub fn held_packets(&self) -> u64 {
        self.held.len() as u64
    }
}
