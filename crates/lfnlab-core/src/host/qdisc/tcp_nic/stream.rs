//! One CAM entry: the connection's SRAM record, its packet list and its IPG
//! counter (spec 03 §2.7.2–2.7.4), plus the scheduler statistics (§2.7.5).

use std::collections::VecDeque;

use super::report::{StreamReport, StreamTotals};
use crate::engine::time::{SimTime, Span};
use crate::net::packet::{FlowId, Packet};

/// A packet in a stream's list and its Send Buffer slot.
#[derive(Clone, Copy, Debug)]
pub struct Queued {
    pub pkt: Packet,
    pub slot: u64,
}

pub struct Stream {
    /// The connection (stands for the CAM's 4-tuple); `u32::MAX` for entry 0.
    pub flow: FlowId,
    pub dir: u8,
    /// Active bit: set at the stream's first packet and held for the run.
    pub active: bool,
    /// Unsent packets, head first (the head/tail pointers of §2.7.2).
    pub q: VecDeque<Queued>,
    /// End of the stream's last frame + n × tick: the counter reaches 0 then.
    pub ready_at: SimTime,
    /// When the packet that made `q` non-empty was enqueued.
    pub nonempty_since: SimTime,
    /// Wait counter (bits 6..0).
    pub wait: u8,
    pub last_ipg_count: u32,
    pub frames: u64,
    pub bytes: u64,
    pub won: u64,
    pub lost: u64,
    pub max_ready_wait: Span,
}

impl Stream {
    pub fn new(flow: FlowId, dir: u8) -> Stream {
        Stream {
            flow,
            dir,
            active: false,
            q: VecDeque::new(),
            ready_at: SimTime::ZERO,
            nonempty_since: SimTime::ZERO,
            wait: 0,
            last_ipg_count: 0,
            frames: 0,
            bytes: 0,
            won: 0,
            lost: 0,
            max_ready_wait: Span::ZERO,
        }
    }

    /// Ready bit at `now`: Active, IPG elapsed and data queued (§2.7.4).
    pub fn is_ready(&self, now: SimTime) -> bool {
        self.active && !self.q.is_empty() && self.ready_at <= now
    }

    /// When the stream became Ready (valid while it has data): its counter
    /// reached 0 and its list was non-empty.
    pub fn ready_since(&self) -> SimTime {
        self.ready_at.max(self.nonempty_since)
    }

    pub fn report(&self, entry: u32) -> StreamReport {
        StreamReport {
            entry,
            flow: self.flow,
            dir: self.dir,
            totals: StreamTotals {
                frames: self.frames,
                bytes: self.bytes,
                won: self.won,
                lost: self.lost,
                max_ready_wait_s: self.max_ready_wait.as_secs_f64(),
                last_ipg_count: self.last_ipg_count,
            },
        }
    }
}
