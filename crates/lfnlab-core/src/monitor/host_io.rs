//! DMA and memory-bandwidth accounting per sending host (spec 01 §2.6), in
//! bins of one second (`hosts.parquet`).
//!
//! The NIC fetches every frame it sends, real or gap, by DMA; the application
//! copies payload into the socket buffer. The linear contention model gives
//! the memory bandwidth left to an application:
//! `M_app = M0 − k_dma·(r_dma_real + r_dma_gap) − k_copy·r_copy − k_pkt·(r_pkt + r_gap_pkt)`.
//! Like the link monitors, bins close lazily and add no events.

pub use crate::results::summary::IoCounters;
use crate::engine::time::{SimTime, Span};
use crate::results::table::{Column, Table};

/// Coefficients of the memory model (spec 01 §2.6 table; CHOICE defaults, never fitted).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MemoryModel {
    pub m0_bytes_per_s: f64,
    pub k_dma: f64,
    pub k_copy: f64,
    /// Bytes of memory traffic charged per frame.
    pub k_pkt_bytes: f64,
}

impl MemoryModel {
    /// M_app for per-second rates of a bin or a run.
    pub fn m_app(&self, r: &IoCounters, secs: f64) -> f64 {
        let per_s = |x: u64| x as f64 / secs;
        self.m0_bytes_per_s
            - self.k_dma * per_s(r.dma_real_bytes + r.dma_gap_bytes)
            - self.k_copy * per_s(r.copy_bytes)
            - self.k_pkt_bytes * per_s(r.frames + r.gap_frames)
    }
}

pub struct HostIo {
    pub name: String,
    pub model: MemoryModel,
    bin: Span,
    bin_end: SimTime,
    cur: IoCounters,
    pub total: IoCounters,
    /// Bytes the host's applications had written when the current bin started.
    written_at_bin_start: u64,
    rows: Vec<(f64, IoCounters)>,
}

impl HostIo {
    pub const BIN: Span = Span::from_secs(1);

    pub fn new(name: String, model: MemoryModel) -> HostIo {
        HostIo { name, model, bin: Self::BIN, bin_end: SimTime::ZERO + Self::BIN, cur: IoCounters::default(), total: IoCounters::default(), written_at_bin_start: 0, rows: Vec::new() }
    }

    /// Whether a bin ends at or before `now` (the caller then passes `written`).
    #[inline]
    pub fn due(&self, now: SimTime) -> bool {
        now >= self.bin_end
    }

    /// Close every bin that ended at or before `now`. `written` is the total the
    /// host's applications have written so far; writes since the last close are
    /// charged to the first bin closed (bins close at the host's next frame).
    pub fn advance(&mut self, now: SimTime, written: u64) {
        while now >= self.bin_end {
            let copied = written - self.written_at_bin_start;
            self.written_at_bin_start = written;
            self.cur.copy_bytes = copied;
            self.total.copy_bytes += copied;
            self.rows.push(((self.bin_end - self.bin).as_secs_f64(), self.cur));
            self.cur = IoCounters::default();
            self.bin_end += self.bin;
        }
    }

    #[inline]
    pub fn on_real(&mut self, l2_bytes: u64) {
        for c in [&mut self.cur, &mut self.total] {
            c.dma_real_bytes += l2_bytes;
            c.frames += 1;
        }
    }

    #[inline]
    pub fn on_gap(&mut self, l2_bytes: u64, wire_bytes: u64, frames: u32) {
        for c in [&mut self.cur, &mut self.total] {
            c.dma_gap_bytes += l2_bytes;
            c.gap_wire_bytes += wire_bytes;
            c.gap_frames += frames as u64;
        }
    }

    /// Close the bins up to `end`; a partial last bin is kept.
    pub fn finish(&mut self, end: SimTime, written: u64) {
        self.advance(end, written);
        let start = self.bin_end - self.bin;
        if start < end {
            let copied = written - self.written_at_bin_start;
            self.written_at_bin_start = written;
            self.cur.copy_bytes = copied;
            self.total.copy_bytes += copied;
            self.rows.push((start.as_secs_f64(), self.cur));
            self.cur = IoCounters::default();
            self.bin_end += self.bin;
        }
    }

    /// Append this host's rows; per-second rates use each bin's true length.
    pub fn drain_into(&mut self, end: SimTime, cols: &mut HostsColumns) {
        let bin_s = self.bin.as_secs_f64();
        for (t, c) in self.rows.drain(..) {
            let secs = (end.as_secs_f64() - t).min(bin_s);
            cols.host.push(self.name.clone());
            cols.t.push(t);
            cols.dma_real_bytes.push(c.dma_real_bytes);
            cols.dma_gap_bytes.push(c.dma_gap_bytes);
            cols.copy_bytes.push(c.copy_bytes);
            cols.frames.push(c.frames);
            cols.gap_frames.push(c.gap_frames);
            cols.gap_wire_bytes.push(c.gap_wire_bytes);
            cols.mem_app_bytes_per_s.push(self.model.m_app(&c, secs));
        }
    }
}

#[derive(Default)]
pub struct HostsColumns {
    pub host: Vec<String>,
    pub t: Vec<f64>,
    pub dma_real_bytes: Vec<u64>,
    pub dma_gap_bytes: Vec<u64>,
    pub copy_bytes: Vec<u64>,
    pub frames: Vec<u64>,
    pub gap_frames: Vec<u64>,
    pub gap_wire_bytes: Vec<u64>,
    pub mem_app_bytes_per_s: Vec<f64>,
}

impl HostsColumns {
    /// `hosts.parquet`: per host and one-second bin, the spec 01 §2.6 counters and M_app.
    pub fn into_table(self) -> Table {
        Table::new(
            "hosts",
            vec![
                ("host", Column::Str(self.host)),
                ("t", Column::F64(self.t)),
                ("dma_real_bytes", Column::U64(self.dma_real_bytes)),
                ("dma_gap_bytes", Column::U64(self.dma_gap_bytes)),
                ("copy_bytes", Column::U64(self.copy_bytes)),
                ("frames", Column::U64(self.frames)),
                ("gap_frames", Column::U64(self.gap_frames)),
                ("gap_wire_bytes", Column::U64(self.gap_wire_bytes)),
                ("mem_app_bytes_per_s", Column::F64(self.mem_app_bytes_per_s)),
            ],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODEL: MemoryModel = MemoryModel { m0_bytes_per_s: 3200e6, k_dma: 1.0, k_copy: 2.0, k_pkt_bytes: 0.0 };

    #[test]
    fn idle_host_keeps_m0() {
        let mut h = HostIo::new("h".into(), MODEL);
        h.finish(SimTime::ZERO + Span::from_secs(3), 0);
        let mut c = HostsColumns::default();
        h.drain_into(SimTime::ZERO + Span::from_secs(3), &mut c);
        assert_eq!(c.t, vec![0.0, 1.0, 2.0]);
        assert!(c.mem_app_bytes_per_s.iter().all(|&m| m == 3200e6));
    }

    #[test]
    fn linear_model() {
        // 62.5 MB/s of real frames, 62.5 MB/s of gap frames, 58.8 MB/s copied.
        let r = IoCounters { dma_real_bytes: 62_500_000, dma_gap_bytes: 62_500_000, copy_bytes: 58_800_000, frames: 41_000, gap_frames: 41_000, gap_wire_bytes: 0 };
        assert_eq!(MODEL.m_app(&r, 1.0), 3200e6 - 125e6 - 117.6e6);
    }

    #[test]
    fn copies_are_charged_per_bin() {
        let mut h = HostIo::new("h".into(), MODEL);
        h.on_real(1518);
        h.advance(SimTime::ZERO + Span::from_ms(1500), 1000);
        h.on_gap(64, 84, 1);
        h.finish(SimTime::ZERO + Span::from_secs(2), 1500);
        assert_eq!(h.total, IoCounters { dma_real_bytes: 1518, dma_gap_bytes: 64, copy_bytes: 1500, frames: 1, gap_frames: 1, gap_wire_bytes: 84 });
    }
}
