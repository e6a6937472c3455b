//! A capture tap (`[[capture]]`): keeps the frames that start onto the
//! wire at the ports it watches, in the time window, of the flows it keeps,
//! up to its frame limit, and turns them into a pcap file when the run ends.
//! Sans-IO: the bytes stay in memory until `finish`. Capturing never changes
//! results.
//!
//! Each frame is stamped when its first bit leaves the transmitting port (the
//! instant a `[[monitor]]` at the egress counts it), so both directions of a
//! `both` capture are stamped at their own transmitter.

use super::file::{file_header, record_header, FILE_HEADER_BYTES, RECORD_HEADER_BYTES};
use super::frame::{frame, pause_frame, Frame, Hop, FCS_BYTES};
use crate::engine::time::{SimTime, Span};
use crate::net::packet::{Packet, PacketKind};

/// What a tap keeps.
#[derive(Clone, Debug)]
pub struct TapConfig {
    pub name: String,
    pub from: SimTime,
    pub until: SimTime,
    /// Per flow: kept? `None` keeps every flow.
    pub flows: Option<Vec<bool>>,
    pub snaplen_bytes: u32,
    pub max_frames: u64,
}

pub struct PcapTap {
    cfg: TapConfig,
    /// Records (header and kept bytes), in the order they were taken.
    data: Vec<u8>,
    /// Per record: its time (ns) and offset in `data`.
    index: Vec<(u64, usize)>,
    /// Frames not kept because the limit was reached.
    pub missed: u64,
    /// PAUSE frames kept (spec 04 §2.5 and spec 01 §2.3 gap frames).
    pub pause_frames: u64,
}

impl PcapTap {
    pub fn new(cfg: TapConfig) -> PcapTap {
        PcapTap { cfg, data: Vec::new(), index: Vec::new(), missed: 0, pause_frames: 0 }
    }

    pub fn name(&self) -> &str {
        &self.cfg.name
    }

    /// Frames kept so far.
    pub fn frames(&self) -> u64 {
        self.index.len() as u64
    }

    /// Would a frame of packet `p` starting at `now` be kept? Call before
    /// [`Self::on_frame`] so that the caller looks up the frame's context only
    /// for frames that are kept.
    #[inline]
    pub fn wants(&mut self, now: SimTime, p: &Packet) -> bool {
        if now < self.cfg.from || now >= self.cfg.until {
            return false;
        }
        let flow_ok = p.kind == PacketKind::Pause || self.cfg.flows.as_ref().is_none_or(|f| f.get(p.flow as usize).copied().unwrap_or(false));
        flow_ok && self.room()
    }

    fn room(&mut self) -> bool {
        if self.frames() >= self.cfg.max_frames {
            self.missed += 1;
            return false;
        }
        true
    }

    /// Packet `p` starts onto the wire at `now` on hop `hop` (after [`Self::wants`]).
    pub fn on_frame(&mut self, now: SimTime, p: &Packet, hop: &Hop) {
        if p.kind == PacketKind::Pause {
            self.pause_frames += 1;
        }
        self.push(now, &frame(p, hop));
    }

    /// A gap of `wire_bytes` leaves port of node `tx` as `frames` PAUSE(0)
    /// frames at `rate_bps` (spec 01 §2.3), starting at `now`: frame sizes
    /// differ by at most one byte (`host::qdisc::ipg::gap`), each frame's wire
    /// footprint is its L2 bytes plus `framing_bytes` (preamble/SFD and IPG).
    pub fn on_gap(&mut self, now: SimTime, wire_bytes: u64, frames: u32, framing_bytes: u32, rate_bps: u64, tx: u16) {
        let mut t = now;
        for w in crate::host::qdisc::ipg::gap::sizes_of(wire_bytes, frames) {
            if t >= self.cfg.from && t < self.cfg.until && self.room() {
                let l2 = w.saturating_sub(framing_bytes as u64 + FCS_BYTES) as usize;
                self.pause_frames += 1;
                self.push(t, &pause_frame(tx, 0, l2));
            }
            t += Span::serialization(w, rate_bps);
        }
    }

    fn push(&mut self, now: SimTime, f: &Frame) {
        let t_ns = now.ps() / 1000;
        let kept = f.frame_len.min(self.cfg.snaplen_bytes as usize);
        self.index.push((t_ns, self.data.len()));
        self.data.extend_from_slice(&record_header(t_ns, kept as u32, f.frame_len as u32));
        let h = kept.min(f.header_len);
        self.data.extend_from_slice(&f.header[..h]);
        self.data.resize(self.data.len() + (kept - h), 0);
    }

    /// The pcap file: records in time order (records of equal time in the order taken).
    pub fn finish(self) -> Vec<u8> {
        let mut out = Vec::with_capacity(FILE_HEADER_BYTES + self.data.len());
        out.extend_from_slice(&file_header(self.cfg.snaplen_bytes));
        if self.index.windows(2).all(|w| w[0].0 <= w[1].0) {
            out.extend_from_slice(&self.data);
            return out;
        }
        let mut order = self.index.clone();
        order.sort_by_key(|&(t, _)| t); // stable
        for (_, off) in order {
            let captured = u32::from_le_bytes(self.data[off + 8..off + 12].try_into().expect("4 bytes")) as usize;
            out.extend_from_slice(&self.data[off..off + RECORD_HEADER_BYTES + captured]);
        }
        out
    }
}
