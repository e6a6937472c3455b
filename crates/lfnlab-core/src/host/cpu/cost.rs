//! What each kind of CPU work costs in cycles (spec 04 §2.7 cost table and
//! rules 2–4), by accounting category.

use super::config::{CpuConfig, Cycles};
use crate::net::packet::Packet;

fn softirq(c: f64) -> Cycles {
    Cycles { softirq: c, ..Cycles::default() }
}

impl CpuConfig {
    /// The interrupt handler.
    pub fn irq_cost(&self) -> Cycles {
        softirq(self.costs.c_irq)
    }

    /// Freeing one transmitted frame's buffer.
    pub fn tx_clean_cost(&self) -> Cycles {
        softirq(self.costs.c_txc)
    }

    /// Receive processing of one frame: a data segment costs `c_seg_rx` (plus
    /// checksum and the large-buffer penalty of `b_rcv`); a segment without
    /// payload is an ACK: `c_ack_rx`, `c_sack_blk` per SACK block and, when it
    /// carries SACK blocks, `c_sack_walk` per segment in flight (`walked`).
    pub fn rx_cost(&self, pkt: &Packet, b_rcv: u64, walked: u64) -> Cycles {
        let c = &self.costs;
        let payload = pkt.payload_bytes() as f64;
        if payload > 0.0 {
            return softirq(c.c_seg_rx + c.c_csum * payload + self.mem_penalty(b_rcv));
        }
        let blocks = pkt.tcp.sack_n as f64;
        let walk = if pkt.tcp.sack_n > 0 { c.c_sack_walk * walked as f64 } else { 0.0 };
        softirq(c.c_ack_rx + c.c_sack_blk * blocks + walk)
    }

    /// Building one outgoing packet: `c_seg_tx` (plus checksum and the
    /// large-buffer penalty of `b_snd`) for a data segment, `c_ack_tx` for an
    /// ACK. Process context accounts it as system time.
    pub fn output_cost(&self, pkt: &Packet, b_snd: u64, process: bool) -> Cycles {
        let c = &self.costs;
        let payload = pkt.payload_bytes() as f64;
        let cycles = if payload > 0.0 { c.c_seg_tx + c.c_csum * payload + self.mem_penalty(b_snd) } else { c.c_ack_tx };
        if process {
            Cycles { system: cycles, ..Cycles::default() }
        } else {
            softirq(cycles)
        }
    }

    /// A write() of `bytes` (rule 3) or a read() returning `bytes` (rule 4):
    /// the application's work is user time, the call and the copy system time.
    pub fn call_cost(&self, bytes: u64, write: bool) -> Cycles {
        let c = &self.costs;
        let copy = if write { c.c_copy_tx } else { c.c_copy_rx };
        Cycles { user: c.c_app, system: c.c_syscall + copy * bytes as f64, softirq: 0.0 }
    }
}
