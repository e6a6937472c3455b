//! Switch model configuration (spec 05 §2.2–2.4): the four model families,
//! memory accounting and sharing, fabric timing, arbitration and the clock.
//! Named configurations of the §2.2 table are `SwitchConfig::preset`.

use std::str::FromStr;

use crate::engine::time::Span;

/// The model family (spec 05 §2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Model {
    /// M1: output-queued shared memory.
    Oq,
    /// M2: input-queued, one FIFO per input (head-of-line blocking).
    IqFifo,
    /// M3: virtual output queues and a crossbar scheduler.
    Voq,
    /// M4: simple round robin, one sub-queue per input at each output.
    RrSimple,
}

/// Memory accounting unit (`mem.unit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemUnit {
    Byte,
    /// A frame uses ceil(L2/C) cells.
    Cell,
}

/// Buffer sharing policy (`mem.policy`, spec 05 §2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SharePolicy {
    /// Complete sharing: admit if total used + charge ≤ B_total.
    Cs,
    /// Static partition: each queue has its own limit.
    Sp,
    /// Dynamic threshold: admit to queue q if len_q + charge ≤ α·(B_total − used).
    Dt,
}

/// Fabric transfer unit (`fabric.mode`, spec 05 §2.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FabricMode {
    Cell,
    /// The scheduler decides only at frame boundaries.
    Packet,
}

/// Where VOQ memory comes from (`voq.pool`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VoqPool {
    /// `B_in` per input, complete sharing among that input's VOQs.
    PerInput,
    /// One complete-sharing pool `B_total` for all VOQs.
    Global,
}

/// Crossbar scheduler (`voq.sched`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sched {
    Islip,
    Pim,
    /// Wavefront arbiter.
    Wfa,
}

/// How an M2 output picks among the inputs whose head frame wants it (`iq.select`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IqSelect {
    Rr,
    Random,
}

/// A quantum that never runs out: exhaustive service (`voq.quantum = "inf"`).
pub const QUANTUM_INFINITE: u32 = u32::MAX;

/// Most ports a switch may have: port sets are 64-bit masks.
pub const MAX_PORTS: u16 = 64;

/// Everything that decides a switch's behaviour. Sizes are bytes; the memory
/// pools convert them to cells when `mem_unit` is `Cell`.
#[derive(Clone, Debug, PartialEq)]
pub struct SwitchConfig {
    pub model: Model,
    /// `sw.ports`.
    pub ports: u16,
    pub mem_unit: MemUnit,
    pub policy: SharePolicy,
    /// `B_total`: the shared pool (M1 CS/DT, M3 `global`) or the whole memory (M4).
    pub total_bytes: u64,
    /// Per-queue limit: `B_q` per output (M1 `SP`), `B_in` per input (M2, M3
    /// `per_input`) or `B_sub` per sub-queue (M4).
    pub queue_limit_bytes: u64,
    /// Dynamic-threshold α.
    pub dt_alpha: f64,
    /// Cell payload `C`.
    pub cell_bytes: u32,
    pub fabric_mode: FabricMode,
    /// Fabric speedup `s`.
    pub speedup: f64,
    /// Output queue limit `B_out` of M2/M3 (backpressure, see `fabric.rs`).
    pub out_limit_bytes: u64,
    pub voq_pool: VoqPool,
    pub sched: Sched,
    /// Scheduler iterations `I`.
    pub iterations: u32,
    /// Service quantum `Q` in cells (cell mode) or frames (packet mode).
    pub quantum: u32,
    pub iq_select: IqSelect,
    /// Lookup latency `L_fwd`.
    pub lookup: Span,
    /// Forwarding jitter `J`: each frame waits an extra U[0, J].
    pub jitter: Span,
    /// Switch clock offset δ_sw in ppm (scales egress serialization and the
    /// fabric slot clock, spec 05 §2.4), already drawn.
    pub clock_ppm: f64,
}

const KIB: u64 = 1024;
const MIB: u64 = 1024 * 1024;

/// The names of `SwitchConfig::preset`, in the order of the spec 05 §2.2 table.
pub const PRESETS: [&str; 10] =
    ["oq_cs", "oq_dt", "iq_fifo", "voq_islip_pi", "voq_islip_gl", "voq_pim_pi", "voq_pim_gl", "voq_exh", "voq_wfa_pi", "rr_simple"];

impl SwitchConfig {
    /// The defaults of model `m` (spec 05 §2.2 "Defaults" of each model).
    pub fn defaults(m: Model) -> SwitchConfig {
        let base = SwitchConfig {
            model: m,
            ports: 24,
            mem_unit: MemUnit::Cell,
            policy: SharePolicy::Sp,
            total_bytes: 4 * MIB,
            queue_limit_bytes: MIB,
            dt_alpha: 1.0,
            cell_bytes: 64,
            fabric_mode: FabricMode::Cell,
            speedup: 1.0,
            out_limit_bytes: 64 * KIB,
            voq_pool: VoqPool::PerInput,
            sched: Sched::Islip,
            iterations: 1,
            quantum: 1,
            iq_select: IqSelect::Rr,
            lookup: Span::from_us(2),
            jitter: Span::ZERO,
            clock_ppm: 0.0,
        };
        match m {
            Model::Oq => SwitchConfig { mem_unit: MemUnit::Byte, policy: SharePolicy::Cs, queue_limit_bytes: 4 * MIB / 24, ..base },
            Model::IqFifo | Model::Voq => base,
            // 512 KiB split statically: 32 KiB per output of 16, 16 KiB per sub-queue.
            Model::RrSimple => SwitchConfig {
                ports: 16,
                mem_unit: MemUnit::Byte,
                total_bytes: 512 * KIB,
                queue_limit_bytes: 16 * KIB,
                ..base
            },
        }
    }

    /// A named configuration of the spec 05 §2.2 table.
    pub fn preset(name: &str) -> Option<SwitchConfig> {
        use Model::*;
        let c = match name {
            "oq_cs" => SwitchConfig::defaults(Oq),
            "oq_dt" => SwitchConfig { policy: SharePolicy::Dt, dt_alpha: 1.0, ..SwitchConfig::defaults(Oq) },
            "iq_fifo" => SwitchConfig::defaults(IqFifo),
            "voq_islip_pi" => SwitchConfig::defaults(Voq),
            "voq_islip_gl" => SwitchConfig { voq_pool: VoqPool::Global, policy: SharePolicy::Cs, ..SwitchConfig::defaults(Voq) },
            "voq_pim_pi" => SwitchConfig { sched: Sched::Pim, ..SwitchConfig::defaults(Voq) },
            "voq_pim_gl" => SwitchConfig {
                sched: Sched::Pim,
                voq_pool: VoqPool::Global,
                policy: SharePolicy::Cs,
                ..SwitchConfig::defaults(Voq)
            },
            "voq_exh" => SwitchConfig {
                fabric_mode: FabricMode::Packet,
                quantum: QUANTUM_INFINITE,
                queue_limit_bytes: 4 * MIB,
                ..SwitchConfig::defaults(Voq)
            },
            "voq_wfa_pi" => SwitchConfig { sched: Sched::Wfa, ..SwitchConfig::defaults(Voq) },
            "rr_simple" => SwitchConfig::defaults(RrSimple),
            _ => return None,
        };
        Some(c)
    }

    /// M4's per-output share of the memory, `B_port = B_total / ports`.
    pub fn port_limit_bytes(&self) -> u64 {
        self.total_bytes / self.ports.max(1) as u64
    }

    /// The configuration's inconsistencies, as (key, what is expected).
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        if !(2..=MAX_PORTS).contains(&self.ports) {
            return Err(("ports", format!("from 2 to {MAX_PORTS} ports, got {}", self.ports)));
        }
        if self.cell_bytes == 0 {
            return Err(("cell", "a cell payload above 0 bytes".into()));
        }
        if !(self.speedup.is_finite() && self.speedup >= 1.0 && self.speedup <= 16.0) {
            return Err(("speedup", format!("a fabric speedup from 1 to 16, got {}", self.speedup)));
        }
        if self.iterations == 0 || self.iterations > 64 {
            return Err(("iterations", format!("from 1 to 64 scheduler iterations, got {}", self.iterations)));
        }
        if self.quantum == 0 {
            return Err(("quantum", "a service quantum of at least 1 unit, or \"inf\"".into()));
        }
        if !(self.dt_alpha.is_finite() && self.dt_alpha > 0.0) {
            return Err(("alpha", format!("a dynamic-threshold α above 0, got {}", self.dt_alpha)));
        }
        if !(self.clock_ppm.is_finite() && self.clock_ppm.abs() < 1000.0) {
            return Err(("clock_ppm", format!("a clock offset within ±1000 ppm, got {}", self.clock_ppm)));
        }
        // A full-size frame (1518 B, 24 cells of 64 B) must fit every limit.
        for (key, v) in [("total", self.total_bytes), ("queue_limit", self.queue_limit_bytes), ("out_limit", self.out_limit_bytes)] {
            if v < 2048 {
                return Err((key, format!("at least 2 KiB so that a full-size frame fits, got {v} B")));
            }
        }
        if self.model == Model::RrSimple && self.port_limit_bytes() < self.queue_limit_bytes {
            return Err((
                "queue_limit",
                format!(
                    "a sub-queue limit B_sub ≤ B_total/ports = {} B, got {} B",
                    self.port_limit_bytes(),
                    self.queue_limit_bytes
                ),
            ));
        }
        Ok(())
    }
}

macro_rules! names {
    ($t:ty, $what:literal, $($s:literal => $v:expr),+) => {
        impl FromStr for $t {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                match s {
                    $($s => Ok($v),)+
                    _ => Err(format!(concat!("one of ", $("\"", $s, "\" ",)+ "for ", $what, ", got \"{}\""), s)),
                }
            }
        }
    };
}

names!(Model, "the switch model", "oq" => Model::Oq, "iq_fifo" => Model::IqFifo, "voq" => Model::Voq, "rr_simple" => Model::RrSimple);
names!(MemUnit, "the memory unit", "byte" => MemUnit::Byte, "cell" => MemUnit::Cell);
names!(SharePolicy, "the sharing policy", "CS" => SharePolicy::Cs, "SP" => SharePolicy::Sp, "DT" => SharePolicy::Dt);
names!(FabricMode, "the fabric mode", "cell" => FabricMode::Cell, "packet" => FabricMode::Packet);
names!(VoqPool, "the VOQ pool", "per_input" => VoqPool::PerInput, "global" => VoqPool::Global);
names!(Sched, "the scheduler", "islip" => Sched::Islip, "pim" => Sched::Pim, "wfa" => Sched::Wfa);
names!(IqSelect, "the input selection", "rr" => IqSelect::Rr, "random" => IqSelect::Random);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_exists_and_is_consistent() {
        for name in PRESETS {
            let c = SwitchConfig::preset(name).unwrap_or_else(|| panic!("{name}"));
            assert_eq!(c.check(), Ok(()), "{name}");
        }
        assert!(SwitchConfig::preset("foundry").is_none());
    }

    #[test]
    fn rr_simple_splits_512_kib_statically() {
        // spec 05 §2.2 M4: 512 KiB / 16 ports = 32 KiB per output, 16 KiB per sub-queue.
        let c = SwitchConfig::preset("rr_simple").unwrap();
        assert_eq!(c.port_limit_bytes(), 32 * 1024);
        assert_eq!(c.queue_limit_bytes, 16 * 1024);
    }

    #[test]
    fn names_parse_and_name_the_choices_on_error() {
        assert_eq!("pim".parse::<Sched>(), Ok(Sched::Pim));
        let e = "slip".parse::<Sched>().unwrap_err();
        assert!(e.contains("\"islip\"") && e.contains("\"slip\""), "{e}");
    }
}
