//! `node.memory`: the linear memory-bandwidth model of spec 01 §2.6, filled in
//! on every host (its counters appear in `hosts.parquet`).

use crate::scenario::model::{MemorySpec, NodeKind, NodeSpec};
use crate::scenario::resolve::Ctx;
use crate::scenario::units::{ByteSize, Rate};
use crate::error::InputError;
use crate::monitor::host_io::MemoryModel;

/// CHOICE defaults of spec 01 §2.6: DDR400 bus, one read per DMA byte, read +
/// write per copied byte, no per-frame cost. Never fitted to published values.
const M0: Rate = Rate::from_bps(3_200_000_000 * 8);
const K_DMA: f64 = 1.0;
const K_COPY: f64 = 2.0;
const K_PKT: ByteSize = ByteSize::from_bytes(0);

pub fn resolve_memory(nodes: &mut [NodeSpec], ctx: &Ctx) -> Result<(), InputError> {
    for (ni, n) in nodes.iter_mut().enumerate() {
        if n.kind != NodeKind::Host {
            if n.memory.is_some() {
                return Err(ctx.err(format!("node[{ni}].memory"), "the memory model applies to hosts only"));
            }
            continue;
        }
        let m = n.memory.get_or_insert_with(|| MemorySpec { m0: None, k_dma: None, k_copy: None, k_pkt: None });
        m.m0.get_or_insert(M0);
        m.k_pkt.get_or_insert(K_PKT);
        for (key, v) in [("k_dma", *m.k_dma.get_or_insert(K_DMA)), ("k_copy", *m.k_copy.get_or_insert(K_COPY))] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(ctx.err(format!("node[{ni}].memory.{key}"), format!("expected a finite number ≥ 0, got {v}")));
            }
        }
    }
    Ok(())
}

/// The model of a resolved host.
pub fn memory_model(n: &NodeSpec) -> MemoryModel {
    let m = n.memory.as_ref();
    MemoryModel {
        m0_bytes_per_s: m.and_then(|m| m.m0).unwrap_or(M0).bps as f64 / 8.0,
        k_dma: m.and_then(|m| m.k_dma).unwrap_or(K_DMA),
        k_copy: m.and_then(|m| m.k_copy).unwrap_or(K_COPY),
        k_pkt_bytes: m.and_then(|m| m.k_pkt).unwrap_or(K_PKT).bytes() as f64,
    }
}
