//! Packet capture at a monitored egress (`[[monitor]] capture_packets = N`):
//! one row per frame as it starts onto the wire, for the first N frames from
//! `capture_from` on (`packets.parquet`). Used to check pacing gaps frame by frame and as the
//! source of later pcap export. Capturing never changes results.

use crate::engine::time::SimTime;
use crate::net::packet::{Packet, PacketKind};
use crate::results::table::{Column, Table};

/// Rows of one monitor's capture.
#[derive(Default)]
pub struct Capture {
    limit: u64,
    /// Frames before this time are not captured.
    from: SimTime,
    t: Vec<f64>,
    flow: Vec<u32>,
    dir: Vec<u64>,
    kind: Vec<&'static str>,
    l3_bytes: Vec<u64>,
    seq: Vec<u64>,
    ack: Vec<u64>,
    payload: Vec<u64>,
    win: Vec<u64>,
    sack_left: Vec<u64>,
    sack_right: Vec<u64>,
    /// Frames not captured because the limit was reached.
    pub missed: u64,
}

impl Capture {
    pub fn new(limit: u64, from: SimTime) -> Capture {
        Capture { limit, from, ..Capture::default() }
    }

    /// Frame `p` starts transmission at `now`.
    #[inline]
    pub fn record(&mut self, now: SimTime, p: &Packet) {
        if now < self.from {
            return;
        }
        if self.t.len() as u64 >= self.limit {
            self.missed += (self.limit > 0) as u64;
            return;
        }
        self.t.push(now.as_secs_f64());
        self.flow.push(p.flow);
        self.dir.push(p.dir as u64);
        self.kind.push(match p.kind {
            PacketKind::Udp => "udp",
            PacketKind::Pause => "pause",
            PacketKind::Tcp if p.tcp.payload > 0 => "data",
            PacketKind::Tcp => "ack",
        });
        self.l3_bytes.push(p.l3_bytes as u64);
        self.seq.push(p.tcp.seq);
        self.ack.push(p.tcp.ack);
        self.payload.push(p.tcp.payload as u64);
        self.win.push(if p.kind == PacketKind::Tcp { p.tcp.window() } else { 0 });
        // The first SACK block that carries a range: the one holding the segment that
        // triggered the ACK (RFC 2018 §4); a D-SACK's range is not carried.
        let first = usize::from(p.tcp.dsack);
        let (l, r) = if p.kind == PacketKind::Tcp && (p.tcp.sack_n as usize) > first {
            p.tcp.sack_block(first)
        } else {
            (0, 0)
        };
        self.sack_left.push(l);
        self.sack_right.push(r);
    }

    /// Append this capture's rows, labelled with the monitor's name.
    pub fn drain_into(&mut self, monitor: &str, flow_names: &[String], cols: &mut PacketsColumns) {
        for i in 0..self.t.len() {
            cols.monitor.push(monitor.to_string());
            cols.flow.push(flow_names[self.flow[i] as usize].clone());
            cols.kind.push(self.kind[i].to_string());
        }
        cols.t.append(&mut self.t);
        cols.dir.append(&mut self.dir);
        cols.l3_bytes.append(&mut self.l3_bytes);
        cols.seq.append(&mut self.seq);
        cols.ack.append(&mut self.ack);
        cols.payload.append(&mut self.payload);
        cols.win.append(&mut self.win);
        cols.sack_left.append(&mut self.sack_left);
        cols.sack_right.append(&mut self.sack_right);
    }
}

#[derive(Default)]
pub struct PacketsColumns {
    pub monitor: Vec<String>,
    pub t: Vec<f64>,
    pub flow: Vec<String>,
    pub dir: Vec<u64>,
    pub kind: Vec<String>,
    pub l3_bytes: Vec<u64>,
    pub seq: Vec<u64>,
    pub ack: Vec<u64>,
    pub payload: Vec<u64>,
    pub win: Vec<u64>,
    pub sack_left: Vec<u64>,
    pub sack_right: Vec<u64>,
}

impl PacketsColumns {
    /// `packets.parquet`: t = start of transmission (s), or arrival of the
    /// last bit at an ingress monitor; dir 0 = from the flow's `from` host;
    /// seq/ack relative byte numbers (TCP) or the datagram's per-stream
    /// sequence number (`udp_cbr`, spec 05 §2.5); payload bytes; TCP's
    /// advertised window in bytes (`win`, scaled) and the first SACK block
    /// with a range (`sack_left`, `sack_right`; 0, 0 without one): the
    /// receive-window and SACK lines of a time-sequence graph (issue 40).
    pub fn into_table(self) -> Table {
        Table::new(
            "packets",
            vec![
                ("monitor", Column::Str(self.monitor)),
                ("t", Column::F64(self.t)),
                ("flow", Column::Str(self.flow)),
                ("dir", Column::U64(self.dir)),
                ("kind", Column::Str(self.kind)),
                ("l3_bytes", Column::U64(self.l3_bytes)),
                ("seq", Column::U64(self.seq)),
                ("ack", Column::U64(self.ack)),
                ("payload", Column::U64(self.payload)),
                ("win", Column::U64(self.win)),
                ("sack_left", Column::U64(self.sack_left)),
                ("sack_right", Column::U64(self.sack_right)),
            ],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_starts_at_from_and_stops_at_the_limit() {
        let mut c = Capture::new(3, SimTime(500));
        let p = Packet::test_udp(100);
        for t in [100u64, 499, 500, 600, 700, 800] {
            c.record(SimTime(t), &p);
        }
        // 100 and 499 are before `from`; 500, 600 and 700 fill the limit; 800 is missed.
        assert_eq!(c.t, vec![500e-12, 600e-12, 700e-12]);
        assert_eq!(c.missed, 1);
    }
}
