//! The host CPU's parameters (spec 04 §2.7): clock, cores, per-item cycle
//! costs and the NIC profile's interrupt settings, and the conversion of a
//! cost in cycles to simulated time.

use crate::engine::time::Span;

/// Cycle costs of spec 04 §2.7 (calibration knobs, first-principles estimates
/// for a 2.2 GHz Opteron; never fitted to a result).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CpuCosts {
    /// Per interrupt (NIC profile).
    pub c_irq: f64,
    /// Per segment built (TCP/IP output, driver xmit).
    pub c_seg_tx: f64,
    /// Per TX completion.
    pub c_txc: f64,
    /// Per ACK received at a sender.
    pub c_ack_rx: f64,
    /// Per SACK block in a received ACK.
    pub c_sack_blk: f64,
    /// Per segment of the retransmission queue walked on a SACK.
    pub c_sack_walk: f64,
    /// Per data segment received.
    pub c_seg_rx: f64,
    /// Per ACK sent.
    pub c_ack_tx: f64,
    /// Per payload byte copied into the kernel by write().
    pub c_copy_tx: f64,
    /// Per payload byte copied out by read().
    pub c_copy_rx: f64,
    /// Per payload byte checksummed (0: offloaded).
    pub c_csum: f64,
    /// Per write() or read() call.
    pub c_syscall: f64,
    /// Application work per call.
    pub c_app: f64,
    /// Large-buffer penalty per segment × log2(max(1, B_sock / 64 MiB)).
    pub c_mem: f64,
}

impl Default for CpuCosts {
    fn default() -> CpuCosts {
        CpuCosts {
            c_irq: 2000.0,
            c_seg_tx: 4000.0,
            c_txc: 300.0,
            c_ack_rx: 2500.0,
            c_sack_blk: 500.0,
            c_sack_walk: 0.0,
            c_seg_rx: 4500.0,
            c_ack_tx: 1500.0,
            c_copy_tx: 1.2,
            c_copy_rx: 1.2,
            c_csum: 0.0,
            c_syscall: 2000.0,
            c_app: 200.0,
            c_mem: 0.0,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CpuConfig {
    pub freq_ghz: f64,
    pub cores: u32,
    /// Core that takes the NIC's interrupts and softirq work.
    pub irq_core: u32,
    /// Core that runs the applications (readers and writers).
    pub app_core: u32,
    /// Each work item's cost × U[1 − jitter, 1 + jitter].
    pub jitter: f64,
    pub costs: CpuCosts,
    /// Interrupt coalescing: frames (`k_irq`) and delay (`t_irq`).
    pub k_irq: u32,
    pub t_irq: Span,
    /// Application write() and read() sizes w and r (spec 04 §2.8).
    pub write_bytes: u64,
    pub read_bytes: u64,
}

impl CpuConfig {
    /// The time `cycles` take at the configured clock.
    pub fn span(&self, cycles: f64) -> Span {
        Span((cycles * 1000.0 / self.freq_ghz).round() as u64)
    }

    /// The large-buffer penalty per segment for a socket buffer of `b_sock` bytes.
    pub fn mem_penalty(&self, b_sock: u64) -> f64 {
        if self.costs.c_mem == 0.0 {
            return 0.0;
        }
        self.costs.c_mem * (b_sock as f64 / (64u64 << 20) as f64).max(1.0).log2()
    }
}

/// A work item's cost split by accounting category (spec 04 §2.7 rule 5).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cycles {
    pub user: f64,
    pub system: f64,
    pub softirq: f64,
}

impl Cycles {
    pub fn total(&self) -> f64 {
        self.user + self.system + self.softirq
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> CpuConfig {
        CpuConfig {
            freq_ghz: 2.2,
            cores: 2,
            irq_core: 0,
            app_core: 0,
            jitter: 0.0,
            costs: CpuCosts::default(),
            k_irq: 16,
            t_irq: Span::from_us(10),
            write_bytes: 128 << 10,
            read_bytes: 128 << 10,
        }
    }

    #[test]
    fn cycles_convert_at_the_clock() {
        // 4500 cycles at 2.2 GHz = 2.045454… µs.
        assert_eq!(cfg().span(4500.0), Span(2_045_455));
        assert_eq!(cfg().span(2200.0), Span::from_us(1));
    }

    #[test]
    fn large_buffer_penalty_is_logarithmic_above_64_mib() {
        let mut c = cfg();
        assert_eq!(c.mem_penalty(1 << 30), 0.0);
        c.costs.c_mem = 1000.0;
        assert_eq!(c.mem_penalty(32 << 20), 0.0);
        assert_eq!(c.mem_penalty(64 << 20), 0.0);
        assert!((c.mem_penalty(256 << 20) - 2000.0).abs() < 1e-9);
    }
}
