//! The burstiness diagnostic of spec 03 §2.1 (`busy.parquet`): per sending host
//! and consecutive window of one base RTT, the payload the NIC sent (→ the
//! flow-level rate X = bytes/RTT), the time it spent transmitting data frames
//! (the measured busy Δt) and the buffer a path needs to absorb that burst,
//! Z = (Y − X)·Δt. Windows close lazily at the host's next data frame and at
//! the end of the run: no events.

use crate::engine::time::{SimTime, Span};
use crate::results::table::{Column, Table};

#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Window {
    frames: u64,
    payload_bytes: u64,
    busy: Span,
}

/// The shortest window (CHOICE, docs/choices.md): spec 03 §2.1 windows one base RTT,
/// which is meaningless on a path of a few hundred nanoseconds (spec 05 E5.5 at 0 ms)
/// and would write a row per microsecond.
pub const MIN_WINDOW: Span = Span::from_ms(1);

pub struct BusyIdle {
    pub host: String,
    /// One base RTT (the propagation RTT of the host's first TCP flow).
    window: Span,
    /// NIC line rate Y, bytes/s.
    line_bytes_per_s: f64,
    index: u64,
    cur: Window,
    rows: Vec<(u64, Window)>,
}

impl BusyIdle {
    pub fn new(host: String, window: Span, line_rate_bps: u64) -> BusyIdle {
        assert!(window > Span::ZERO, "a busy/idle window must be positive");
        BusyIdle { host, window, line_bytes_per_s: line_rate_bps as f64 / 8.0, index: 0, cur: Window::default(), rows: Vec::new() }
    }

    fn close_through(&mut self, index: u64) {
        while self.index < index {
            self.rows.push((self.index, self.cur));
            self.cur = Window::default();
            self.index += 1;
        }
    }

    /// A data frame of `payload` bytes started at `now` and holds the NIC for `busy`.
    pub fn on_data_frame(&mut self, now: SimTime, payload: u64, busy: Span) {
        self.close_through(now.ps() / self.window.ps());
        self.cur.frames += 1;
        self.cur.payload_bytes += payload;
        self.cur.busy = self.cur.busy + busy;
    }

    /// Close every window up to `end` (the last one may be partial).
    pub fn finish(&mut self, end: SimTime) {
        let last = end.ps().div_ceil(self.window.ps());
        self.close_through(last);
    }

    pub fn drain_into(&mut self, cols: &mut BusyColumns) {
        let w = self.window.as_secs_f64();
        for (i, win) in self.rows.drain(..) {
            let x = win.payload_bytes as f64 / w;
            let busy = win.busy.as_secs_f64();
            cols.host.push(self.host.clone());
            cols.t.push(i as f64 * w);
            cols.window_s.push(w);
            cols.frames.push(win.frames);
            cols.payload_bytes.push(win.payload_bytes);
            cols.x_bps.push(x * 8.0);
            cols.busy_s.push(busy);
            cols.z_bytes.push((self.line_bytes_per_s - x).max(0.0) * busy);
        }
    }
}

#[derive(Default)]
pub struct BusyColumns {
    host: Vec<String>,
    t: Vec<f64>,
    window_s: Vec<f64>,
    frames: Vec<u64>,
    payload_bytes: Vec<u64>,
    x_bps: Vec<f64>,
    busy_s: Vec<f64>,
    z_bytes: Vec<f64>,
}

impl BusyColumns {
    pub fn into_table(self) -> Table {
        Table::new(
            "busy",
            vec![
                ("host", Column::Str(self.host)),
                ("t", Column::F64(self.t)),
                ("window_s", Column::F64(self.window_s)),
                ("frames", Column::U64(self.frames)),
                ("payload_bytes", Column::U64(self.payload_bytes)),
                ("x_bps", Column::F64(self.x_bps)),
                ("busy_s", Column::F64(self.busy_s)),
                ("z_bytes", Column::F64(self.z_bytes)),
            ],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_follow_the_formulas() {
        // GbE, 100 ms windows: 10 full frames in window 0, none in window 1, 1 in window 2.
        let mut b = BusyIdle::new("snd".into(), Span::from_ms(100), 1_000_000_000);
        let frame = Span::serialization(1538, 1_000_000_000);
        for k in 0..10 {
            b.on_data_frame(SimTime::ZERO + Span::from_us(k * 20), 1448, frame);
        }
        b.on_data_frame(SimTime::ZERO + Span::from_ms(250), 1448, frame);
        b.finish(SimTime::ZERO + Span::from_ms(300));
        let mut c = BusyColumns::default();
        b.drain_into(&mut c);
        assert_eq!(c.frames, vec![10, 0, 1]);
        assert_eq!(c.t, vec![0.0, 0.1, 0.2]);
        let busy = 10.0 * 1538.0 / 125e6;
        assert!((c.busy_s[0] - busy).abs() < 1e-15);
        let x = 14480.0 / 0.1;
        assert!((c.x_bps[0] - 8.0 * x).abs() < 1e-6);
        assert!((c.z_bytes[0] - (125e6 - x) * busy).abs() < 1e-6);
        assert_eq!((c.busy_s[1], c.z_bytes[1]), (0.0, 0.0));
    }
}
