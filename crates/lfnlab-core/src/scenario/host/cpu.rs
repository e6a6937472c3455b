//! `node.cpu`: the host CPU of spec 04 §2.7 with every default filled in, and
//! the built configuration. A host with a `cpu` table also gets the NIC
//! pipeline (its interrupts drive the CPU); without one it keeps processing
//! frames at once.

use crate::scenario::model::{CpuSpec, FlowKind, FlowSpec, NodeKind, NodeSpec};
use crate::scenario::resolve::Ctx;
use crate::scenario::units::{ByteSize, TimeSpan};
use crate::engine::time::Span;
use crate::error::InputError;
use crate::host::cpu::config::{CpuConfig, CpuCosts};
use crate::scenario::node_config::{need, Unresolved};

const FREQ_GHZ: f64 = 2.2;
const CORES: u32 = 2;
const JITTER: f64 = 0.05;
const IO_SIZE: ByteSize = ByteSize::from_bytes(128 << 10);
/// Cores a host may have (the event index reserves 16 per host).
use crate::host::cpu::MAX_CORES;

/// spec 04 §2.7 NIC profiles: (name, c_irq cycles, k_irq frames, t_irq µs).
const IRQ_PROFILES: &[(&str, f64, u32, u64)] = &[("chelsio_t110", 2000.0, 16, 10), ("chelsio_n110", 2000.0, 16, 10), ("intel_pro10gbe_sr", 4000.0, 32, 50)];

/// Checks `cpu` on every node and fills in its defaults; the NIC profile
/// must already be resolved (`nic.profile`).
pub fn resolve_host_cpus(nodes: &mut [NodeSpec], flows: &[FlowSpec], ctx: &Ctx) -> Result<(), InputError> {
    for (ni, n) in nodes.iter_mut().enumerate() {
        let at = |key: &str| format!("node[{ni}].cpu.{key}");
        let Some(cpu) = n.cpu.as_mut() else { continue };
        if n.kind != NodeKind::Host {
            return Err(ctx.err(format!("node[{ni}].cpu"), "the CPU model belongs to hosts only (spec 04 §2.7)"));
        }
        let profile = n.nic.as_ref().and_then(|x| x.profile.clone()).unwrap_or_else(|| IRQ_PROFILES[0].0.into());
        let &(_, c_irq, k_irq, t_irq_us) = IRQ_PROFILES.iter().find(|p| p.0 == profile).expect("the NIC profile is resolved first");
        resolve_cpu(cpu, (c_irq, k_irq, Span::from_us(t_irq_us)), &at, ctx)?;
        for (fi, f) in flows.iter().enumerate() {
            if f.from != n.name && f.to != n.name {
                continue;
            }
            if f.kind != FlowKind::TcpBulk {
                return Err(ctx.err(format!("flow[{fi}].kind"), format!("host \"{}\" has a CPU model, which runs tcp_bulk flows only (spec 04 §2.7: an iperf-like writer and reader)", n.name)));
            }
            if f.app_rate.is_some() && f.from == n.name {
                return Err(ctx.err(format!("flow[{fi}].app_rate"), format!("host \"{}\" has a CPU model, whose writer is the application (spec 04 §2.7 rule 3); app_rate cannot be combined with it", n.name)));
            }
        }
    }
    Ok(())
}

fn resolve_cpu(c: &mut CpuSpec, irq: (f64, u32, Span), at: &dyn Fn(&str) -> String, ctx: &Ctx) -> Result<(), InputError> {
    let freq = *c.freq.get_or_insert(FREQ_GHZ);
    if !(freq.is_finite() && freq > 0.0) {
        return Err(ctx.err(at("freq"), format!("expected a clock in GHz greater than zero, got {freq}")));
    }
    let cores = *c.cores.get_or_insert(CORES);
    if cores == 0 || cores > MAX_CORES {
        return Err(ctx.err(at("cores"), format!("expected 1 to {MAX_CORES} cores, got {cores}")));
    }
    for (key, v) in [("irq_core", *c.irq_core.get_or_insert(0)), ("app_core", *c.app_core.get_or_insert(0))] {
        if v >= cores {
            return Err(ctx.err(at(key), format!("expected a core index below cpu.cores ({cores}), got {v}")));
        }
    }
    let jitter = *c.jitter.get_or_insert(JITTER);
    if !(jitter.is_finite() && (0.0..1.0).contains(&jitter)) {
        return Err(ctx.err(at("jitter"), format!("expected a number in [0, 1), got {jitter}")));
    }
    let d = CpuCosts { c_irq: irq.0, ..CpuCosts::default() };
    let costs: [(&str, &mut Option<f64>, f64); 14] = [
        ("c_irq", &mut c.c_irq, d.c_irq),
        ("c_seg_tx", &mut c.c_seg_tx, d.c_seg_tx),
        ("c_txc", &mut c.c_txc, d.c_txc),
        ("c_ack_rx", &mut c.c_ack_rx, d.c_ack_rx),
        ("c_sack_blk", &mut c.c_sack_blk, d.c_sack_blk),
        ("c_sack_walk", &mut c.c_sack_walk, d.c_sack_walk),
        ("c_seg_rx", &mut c.c_seg_rx, d.c_seg_rx),
        ("c_ack_tx", &mut c.c_ack_tx, d.c_ack_tx),
        ("c_copy_tx", &mut c.c_copy_tx, d.c_copy_tx),
        ("c_copy_rx", &mut c.c_copy_rx, d.c_copy_rx),
        ("c_csum", &mut c.c_csum, d.c_csum),
        ("c_syscall", &mut c.c_syscall, d.c_syscall),
        ("c_app", &mut c.c_app, d.c_app),
        ("c_mem", &mut c.c_mem, d.c_mem),
    ];
    for (key, slot, default) in costs {
        let v = *slot.get_or_insert(default);
        if !(v.is_finite() && v >= 0.0) {
            return Err(ctx.err(at(key), format!("expected a cost in cycles of at least 0, got {v}")));
        }
    }
    if *c.k_irq.get_or_insert(irq.1) == 0 {
        return Err(ctx.err(at("k_irq"), "expected at least 1 frame per interrupt, got 0"));
    }
    if c.t_irq.get_or_insert(TimeSpan::from_span(irq.2)).ps() == 0 {
        return Err(ctx.err(at("t_irq"), "expected a delay greater than zero"));
    }
    for (key, v) in [("write_size", c.write_size.get_or_insert(IO_SIZE)), ("read_size", c.read_size.get_or_insert(IO_SIZE))] {
        if v.bytes() == 0 {
            return Err(ctx.err(at(key), "expected at least 1 B per call, got 0 B"));
        }
    }
    if c.bin.get_or_insert(TimeSpan::from_span(Span::from_secs(1))).ps() == 0 {
        return Err(ctx.err(at("bin"), "expected a time greater than zero"));
    }
    Ok(())
}

/// The built CPU `c` of a resolved host and its accounting bin; `at` gives
/// the key path of a key in `c`.
pub fn cpu_config(c: &CpuSpec, at: &dyn Fn(&str) -> String) -> Result<(CpuConfig, Span), Unresolved> {
    let v = |x: Option<f64>, key: &str| need(x, || at(key));
    Ok((
        CpuConfig {
            freq_ghz: v(c.freq, "freq")?,
            cores: need(c.cores, || at("cores"))?,
            irq_core: need(c.irq_core, || at("irq_core"))?,
            app_core: need(c.app_core, || at("app_core"))?,
            jitter: v(c.jitter, "jitter")?,
            costs: CpuCosts {
                c_irq: v(c.c_irq, "c_irq")?,
                c_seg_tx: v(c.c_seg_tx, "c_seg_tx")?,
                c_txc: v(c.c_txc, "c_txc")?,
                c_ack_rx: v(c.c_ack_rx, "c_ack_rx")?,
                c_sack_blk: v(c.c_sack_blk, "c_sack_blk")?,
                c_sack_walk: v(c.c_sack_walk, "c_sack_walk")?,
                c_seg_rx: v(c.c_seg_rx, "c_seg_rx")?,
                c_ack_tx: v(c.c_ack_tx, "c_ack_tx")?,
                c_copy_tx: v(c.c_copy_tx, "c_copy_tx")?,
                c_copy_rx: v(c.c_copy_rx, "c_copy_rx")?,
                c_csum: v(c.c_csum, "c_csum")?,
                c_syscall: v(c.c_syscall, "c_syscall")?,
                c_app: v(c.c_app, "c_app")?,
                c_mem: v(c.c_mem, "c_mem")?,
            },
            k_irq: need(c.k_irq, || at("k_irq"))?,
            t_irq: need(c.t_irq, || at("t_irq"))?.span(),
            write_bytes: need(c.write_size, || at("write_size"))?.bytes(),
            read_bytes: need(c.read_size, || at("read_size"))?.bytes(),
        },
        need(c.bin, || at("bin"))?.span(),
    ))
}
