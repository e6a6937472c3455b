//! Per-bin counters at the egress of one link direction (`[[monitor]]`):
//! bytes and packets per flow (`flows.parquet`) and queue occupancy and drops
//! (`queues.parquet`). Bins close lazily, at the next event of the port or at
//! the end of the run, so monitoring adds no events and never changes results.

use crate::engine::time::{SimTime, Span};
use super::packet_capture::Capture;
use crate::net::packet::Packet;
use crate::net::queue::QueueStats;
use crate::results::table::{Column, Table};

pub struct LinkMonitor {
    pub name: String,
    pub port: u32,
    bin: Span,
    /// End of the current bin.
    bin_end: SimTime,
    /// Per flow: (bytes, packets) departing in the current bin (L2 frame bytes).
    cur: Vec<(u64, u64)>,
    /// Flows seen so far on this monitor.
    seen: Vec<bool>,
    max_bytes_in_bin: u64,
    drops_at_bin_start: u64,
    enq_at_bin_start: u64,
    // flows table columns
    f_flow: Vec<u32>,
    f_t: Vec<f64>,
    f_bytes: Vec<u64>,
    f_packets: Vec<u64>,
    // queues table columns
    q_t: Vec<f64>,
    q_bytes: Vec<u64>,
    q_packets: Vec<u64>,
    q_max: Vec<u64>,
    q_drops: Vec<u64>,
    q_enq: Vec<u64>,
    pub capture: Capture,
    /// Frames are counted as they arrive at the far end of the link (before its
    /// queues), not as they leave the egress (`point = "ingress"`).
    pub ingress: bool,
}

impl LinkMonitor {
    pub fn new(name: String, port: u32, bin: Span, n_flows: usize, capture: Capture, ingress: bool) -> LinkMonitor {
        LinkMonitor {
            name,
            port,
            bin,
            bin_end: SimTime::ZERO + bin,
            cur: vec![(0, 0); n_flows],
            seen: vec![false; n_flows],
            max_bytes_in_bin: 0,
            drops_at_bin_start: 0,
            enq_at_bin_start: 0,
            f_flow: Vec::new(),
            f_t: Vec::new(),
            f_bytes: Vec::new(),
            f_packets: Vec::new(),
            q_t: Vec::new(),
            q_bytes: Vec::new(),
            q_packets: Vec::new(),
            q_max: Vec::new(),
            q_drops: Vec::new(),
            q_enq: Vec::new(),
            capture,
            ingress,
        }
    }

    /// Close every bin that ended at or before `now`; `q` is the queue state,
    /// unchanged since the last event.
    #[inline]
    pub fn advance(&mut self, now: SimTime, q: &QueueStats) {
        while now >= self.bin_end {
            self.close_bin(q);
        }
    }

    fn close_bin(&mut self, q: &QueueStats) {
        let t = (self.bin_end - self.bin).as_secs_f64();
        for f in 0..self.cur.len() {
            if self.seen[f] {
                let (b, p) = self.cur[f];
                self.f_flow.push(f as u32);
                self.f_t.push(t);
                self.f_bytes.push(b);
                self.f_packets.push(p);
                self.cur[f] = (0, 0);
            }
        }
        let drops = q.drops.total();
        self.q_t.push(t);
        self.q_bytes.push(q.bytes);
        self.q_packets.push(q.packets);
        self.q_max.push(self.max_bytes_in_bin.max(q.bytes));
        self.q_drops.push(drops - self.drops_at_bin_start);
        self.q_enq.push(q.enqueued - self.enq_at_bin_start);
        self.drops_at_bin_start = drops;
        self.enq_at_bin_start = q.enqueued;
        self.max_bytes_in_bin = q.bytes;
        self.bin_end += self.bin;
    }

    /// Frame `p` passes the monitoring point at `now`: it starts onto the wire
    /// (egress) or its last bit arrives (ingress).
    #[inline]
    pub fn on_frame(&mut self, now: SimTime, p: &Packet) {
        self.capture.record(now, p);
        let flow = p.flow;
        let c = &mut self.cur[flow as usize];
        c.0 += p.l2_bytes();
        c.1 += 1;
        self.seen[flow as usize] = true;
    }

    /// The queue changed (after an enqueue).
    #[inline]
    pub fn on_queue(&mut self, q: &QueueStats) {
        self.max_bytes_in_bin = self.max_bytes_in_bin.max(q.bytes);
    }

    /// Close bins up to the end of the run (a partial last bin is kept).
    pub fn finish(&mut self, end: SimTime, q: &QueueStats) {
        self.advance(end, q);
        if self.bin_end - self.bin < end {
            self.close_bin(q);
        }
    }

    /// Append this monitor's rows to the flows and queues columns.
    pub fn drain_into(&mut self, flow_names: &[String], flows: &mut FlowsColumns, queues: &mut QueuesColumns) {
        for i in 0..self.f_t.len() {
            flows.monitor.push(self.name.clone());
            flows.flow.push(flow_names[self.f_flow[i] as usize].clone());
        }
        flows.t.append(&mut self.f_t);
        flows.bytes.append(&mut self.f_bytes);
        flows.packets.append(&mut self.f_packets);
        for _ in 0..self.q_t.len() {
            queues.queue.push(self.name.clone());
        }
        queues.t.append(&mut self.q_t);
        queues.bytes.append(&mut self.q_bytes);
        queues.packets.append(&mut self.q_packets);
        queues.max_bytes.append(&mut self.q_max);
        queues.drops.append(&mut self.q_drops);
        queues.enqueued.append(&mut self.q_enq);
    }
}

#[derive(Default)]
pub struct FlowsColumns {
    pub monitor: Vec<String>,
    pub flow: Vec<String>,
    pub t: Vec<f64>,
    pub bytes: Vec<u64>,
    pub packets: Vec<u64>,
}

impl FlowsColumns {
    /// `flows.parquet` (spec 00 §2.4): bytes are L2 frame bytes leaving the monitored egress.
    pub fn into_table(self) -> Table {
        Table::new(
            "flows",
            vec![
                ("monitor", Column::Str(self.monitor)),
                ("flow", Column::Str(self.flow)),
                ("t", Column::F64(self.t)),
                ("bytes", Column::U64(self.bytes)),
                ("packets", Column::U64(self.packets)),
            ],
        )
    }
}

#[derive(Default)]
pub struct QueuesColumns {
    pub queue: Vec<String>,
    pub t: Vec<f64>,
    pub bytes: Vec<u64>,
    pub packets: Vec<u64>,
    pub max_bytes: Vec<u64>,
    pub drops: Vec<u64>,
    pub enqueued: Vec<u64>,
}

impl QueuesColumns {
    /// `queues.parquet` (spec 00 §2.4): occupancy at the end of each bin (L2 bytes), the
    /// bin's maximum, and drops and enqueues during the bin.
    pub fn into_table(self) -> Table {
        Table::new(
            "queues",
            vec![
                ("queue", Column::Str(self.queue)),
                ("t", Column::F64(self.t)),
                ("bytes", Column::U64(self.bytes)),
                ("packets", Column::U64(self.packets)),
                ("max_bytes", Column::U64(self.max_bytes)),
                ("drops", Column::U64(self.drops)),
                ("enqueued", Column::U64(self.enqueued)),
            ],
        )
    }
}
