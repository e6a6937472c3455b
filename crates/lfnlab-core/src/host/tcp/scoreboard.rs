//! The sender's retransmission queue and SACK scoreboard (spec 06 §2.5,
//! RFC 6675). Costs per ACK and per send are amortized O(1) or O(log W):
//! - segments live in a deque indexed by an absolute segment number;
//! - SACKed ranges are an interval set, so re-reported blocks cost O(log n);
//! - loss marking, NextSeg rule 1 and rule 3 walk monotone scan pointers, so
//!   each segment is visited a bounded number of times between RTOs.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::engine::block_ring::BlockRing;

use super::ranges::RangeSet;
use crate::engine::time::SimTime;

pub const SACKED: u8 = 1;
pub const LOST: u8 = 2;
/// Retransmitted and the retransmission is still in flight (Linux SACKED_RETRANS).
pub const RETRANS: u8 = 4;
/// Ever retransmitted (Karn's rule).
pub const EVER_RETRANS: u8 = 8;

/// One segment as sent: 40 bytes, one per segment outstanding (issue 9 footprint).
#[derive(Clone, Copy, Debug, Default)]
pub struct SegRecord {
    pub start: u64,
    /// Payload bytes: at most the MSS, below 2^16 (the MSS option is 16 bits;
    /// scenario MTUs stop at 9600).
    pub len: u16,
    pub flags: u8,
    /// Last transmission time.
    pub sent_at: SimTime,
    /// Delivery-rate state at send (spec 06 §4.2): the low 32 bits of the
    /// sender's delivered count, as Linux keeps it (`tx.delivered`, u32);
    /// [`SegRecord::delivered`] restores the full count.
    pub delivered_lo32: u32,
    pub delivered_time: SimTime,
    pub first_sent_time: SimTime,
    pub app_limited: bool,
}

impl SegRecord {
    /// Segment `i` of a run of `mss`-byte segments, sent at `i` ps, for unit
    /// tests and the micro-benchmarks (`benches/`).
    pub fn test_segment(i: u64, mss: u16) -> SegRecord {
        SegRecord {
            start: i * mss as u64,
            len: mss,
            flags: 0,
            sent_at: SimTime(i),
            delivered_lo32: 0,
            delivered_time: SimTime(0),
            first_sent_time: SimTime(0),
            app_limited: false,
        }
    }
    /// The sender's delivered count when this segment was sent, given the count
    /// now: exact while fewer than 2^32 segments were delivered in between.
    #[inline]
    pub fn delivered(&self, delivered_now: u64) -> u64 {
        delivered_now - (delivered_now as u32).wrapping_sub(self.delivered_lo32) as u64
    }
    pub fn end(&self) -> u64 {
        self.start + self.len as u64
    }
    pub fn has(&self, f: u8) -> bool {
        self.flags & f != 0
    }
}

/// Result of a cumulative ACK.
#[derive(Clone, Copy, Debug, Default)]
pub struct CumAck {
    pub segments: u64,
    pub bytes: u64,
    /// Segments acknowledged that had not been SACKed before (newly delivered).
    pub newly_delivered: u64,
    /// Send time of the earliest newly acknowledged, never retransmitted segment.
    pub karn_sent_at: Option<SimTime>,
    /// Start of the lowest newly acknowledged segment that was neither SACKed
    /// nor ever retransmitted (Linux `tcp_clean_rtx_queue`'s `reord`).
    pub pristine_low: Option<u64>,
    /// The latest-sent newly delivered segment (for the rate sample).
    pub latest: Option<SegRecord>,
}

#[derive(Default)]
pub struct Scoreboard {
    segs: BlockRing<SegRecord>,
    /// Absolute index of `segs[0]`.
    base: u64,
    sacked: RangeSet,
    pub packets_out: u64,
    pub sacked_out: u64,
    pub lost_out: u64,
    pub retrans_out: u64,
    /// Without SACK, the duplicate ACKs counted as SACKed segments (spec 06
    /// §2.5 pipe, modes other than `rfc`): Linux's `sacked_out` of a Reno
    /// connection, a count with no segment flagged (`tcp_add_reno_sack`).
    pub reno_sacked: u64,
    /// Every segment below this index is settled: SACKed or marked Lost.
    lost_scan: u64,
    /// No Lost, unretransmitted, un-SACKed segment lies below this index.
    retx_scan: u64,
    /// NextSeg rule 3 pointer.
    rule3_scan: u64,
    /// Segments ever marked Lost (cumulative; `AckSample::newly_lost`).
    pub lost_marks: u64,
    /// Retransmissions RACK marked Lost again, lowest first: NextSeg rule 1
    /// takes the lower of these and the scan's find, so a re-lost segment
    /// costs O(log n) and never rewinds `retx_scan` over a settled stretch
    /// (a probe or rule-3 retransmission may also lie above `lost_scan`).
    relost: BinaryHeap<Reverse<u64>>,
}

impl Scoreboard {
    pub fn new() -> Scoreboard {
        Scoreboard::default()
    }

    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }

    pub fn first(&self) -> Option<&SegRecord> {
        self.segs.front()
    }

    pub fn get(&self, idx: u64) -> &SegRecord {
        &self.segs[(idx - self.base) as usize]
    }

    pub fn get_mut(&mut self, idx: u64) -> &mut SegRecord {
        &mut self.segs[(idx - self.base) as usize]
    }

    pub fn base(&self) -> u64 {
        self.base
    }

    /// One past the highest segment index.
    pub fn end_idx(&self) -> u64 {
        self.base + self.segs.len() as u64
    }

    /// pipe = packets_out − sacked_out − lost_out + retrans_out (spec 06 §2.5),
    /// where sacked_out counts duplicate ACKs without SACK ([`Self::reno_sacked`]).
    pub fn pipe(&self) -> u64 {
        (self.packets_out + self.retrans_out).saturating_sub(self.sacked_out + self.reno_sacked + self.lost_out)
    }

    /// A duplicate ACK without SACK counts one segment as SACKed; returns how
    /// many it added (0 at the cap). Linux 2.4.20–6.8 `tcp_add_reno_sack`.
    pub fn add_reno_sack(&mut self) -> u64 {
        let prior = self.reno_sacked;
        self.reno_sacked += 1;
        self.limit_reno_sacked();
        self.reno_sacked - prior
    }

    /// A cumulative ACK of `acked` segments without SACK: one of them filled
    /// the hole, the rest consume the duplicate ACKs they caused ("One ACK
    /// acked hole. The rest eat duplicate ACKs."). Returns the segments it
    /// newly delivers, max(acked − sacked_out, 1) as Linux 6.8 counts
    /// `tp->delivered`. Linux `tcp_remove_reno_sacks` (2.4.20, 2.6.20, 6.8).
    pub fn remove_reno_sacks(&mut self, acked: u64) -> u64 {
        if acked == 0 {
            return 0;
        }
        let delivered = acked.saturating_sub(self.reno_sacked).max(1);
        self.reno_sacked = self.reno_sacked.saturating_sub(acked - 1);
        self.limit_reno_sacked();
        delivered
    }

    /// Linux `tcp_reset_reno_sack`.
    pub fn reset_reno_sacks(&mut self) {
        self.reno_sacked = 0;
    }

    /// At least one hole (max(lost_out, 1), at most packets_out) is not
    /// counted as SACKed: Linux 6.8 `tcp_limit_reno_sacked` (2.6.20
    /// `tcp_check_reno_reordering`). Linux also raises its reordering
    /// estimate here; lfnlab keeps DupThresh = 3 (docs/profiles-from-source.md).
    fn limit_reno_sacked(&mut self) {
        let holes = self.lost_out.max(1).min(self.packets_out);
        if self.reno_sacked + holes > self.packets_out {
            self.reno_sacked = self.packets_out - holes;
        }
    }

    /// Highest SACKed byte + 1, if any.
    pub fn highest_sacked_end(&self) -> Option<u64> {
        self.sacked.last().map(|(_, e)| e)
    }

    /// Append a newly sent segment.
    pub fn push(&mut self, rec: SegRecord) {
        debug_assert!(self.segs.back().is_none_or(|b| b.end() == rec.start));
        self.segs.push_back(rec);
        self.packets_out += 1;
    }

    /// Index of the segment containing byte `seq` (which must be outstanding).
    fn idx_of(&self, seq: u64) -> u64 {
        let pos = self.segs.partition_point(|s| s.end() <= seq);
        self.base + pos as u64
    }

    fn clear_flag(&mut self, pos: usize, f: u8) {
        let s = &mut self.segs[pos];
        if s.flags & f != 0 {
            s.flags &= !f;
            match f {
                LOST => self.lost_out -= 1,
                RETRANS => self.retrans_out -= 1,
                SACKED => self.sacked_out -= 1,
                _ => {}
            }
        }
    }

    /// Cumulative ACK up to `ack` (a segment boundary).
    pub fn ack_cum(&mut self, ack: u64) -> CumAck {
        let mut r = CumAck::default();
        while let Some(front) = self.segs.front() {
            if front.end() > ack {
                break;
            }
            let s = *front;
            if s.has(SACKED) {
                self.sacked_out -= 1;
            } else {
                r.newly_delivered += 1;
                if r.latest.is_none_or(|l| l.sent_at <= s.sent_at) {
                    r.latest = Some(s);
                }
                if !s.has(EVER_RETRANS) && r.pristine_low.is_none() {
                    r.pristine_low = Some(s.start);
                }
            }
            if s.has(LOST) {
                self.lost_out -= 1;
            }
            if s.has(RETRANS) {
                self.retrans_out -= 1;
            }
            if !s.has(EVER_RETRANS) && r.karn_sent_at.is_none() {
                r.karn_sent_at = Some(s.sent_at);
            }
            self.packets_out -= 1;
            r.segments += 1;
            r.bytes += s.len as u64;
            self.segs.pop_front();
            self.base += 1;
        }
        self.sacked.trim_below(ack);
        self.lost_scan = self.lost_scan.max(self.base);
        self.retx_scan = self.retx_scan.max(self.base);
        self.rule3_scan = self.rule3_scan.max(self.base);
        self.check();
        r
    }

    /// Process one SACK block [s, e) (already clipped above snd_una). Calls
    /// `newly(rec)` for each segment that becomes SACKed. Returns the count.
    pub fn sack(&mut self, s: u64, e: u64, mut newly: impl FnMut(&SegRecord)) -> u64 {
        let Some(back) = self.segs.back() else { return 0 };
        let e = e.min(back.end());
        let s = s.max(self.segs[0].start);
        if s >= e {
            return 0;
        }
        let mut fresh_parts: [(u64, u64); 8] = [(0, 0); 8];
        let mut nfresh = 0;
        let mut overflow = false;
        let (ms, me) = self.sacked.insert(s, e, |a, b| {
            if nfresh < fresh_parts.len() {
                fresh_parts[nfresh] = (a, b);
                nfresh += 1;
            } else {
                overflow = true;
            }
        });
        // With more fresh parts than the buffer holds, rescan the merged range.
        let whole = [(ms, me)];
        let iter: &[(u64, u64)] = if overflow { &whole } else { &fresh_parts[..nfresh] };
        let mut count = 0;
        for &(a, b) in iter {
            let mut pos = (self.idx_of(a) - self.base) as usize;
            while pos < self.segs.len() && self.segs[pos].start < b {
                let seg = self.segs[pos];
                // SACKed only when wholly inside the merged range.
                if !seg.has(SACKED) && seg.start >= ms && seg.end() <= me {
                    self.clear_flag(pos, LOST);
                    self.clear_flag(pos, RETRANS);
                    self.segs[pos].flags |= SACKED;
                    self.sacked_out += 1;
                    count += 1;
                    newly(&self.segs[pos]);
                }
                pos += 1;
            }
        }
        self.check();
        count
    }

    /// Mark as Lost every un-SACKed segment that IsLost now says is lost
    /// (spec 06 §2.5): `fack` = at least `dupthresh` segments after it up to the
    /// highest SACKed; `rfc6675` = at least `dupthresh` SACKed segments above it.
    /// Returns the number newly marked.
    pub fn mark_lost(&mut self, dupthresh: u64, fack: bool) -> u64 {
        let Some(hs_end) = self.highest_sacked_end() else { return 0 };
        let hs_idx = self.idx_of(hs_end - 1); // index of the highest SACKed segment
        let boundary = if fack {
            // s is lost if hs_idx − s ≥ dupthresh.
            (hs_idx + 1).saturating_sub(dupthresh)
        } else {
            // Index of the dupthresh-th highest SACKed segment.
            let mut need = dupthresh;
            let mut b = None;
            for (rs, re) in self.sacked.iter_rev() {
                let (i0, i1) = (self.idx_of(rs), self.idx_of(re - 1) + 1);
                let n = i1 - i0;
                if n >= need {
                    b = Some(i1 - need);
                    break;
                }
                need -= n;
            }
            match b {
                Some(b) => b,
                None => return 0,
            }
        };
        let mut marked = 0;
        while self.lost_scan < boundary {
            let pos = (self.lost_scan - self.base) as usize;
            let seg = &mut self.segs[pos];
            if seg.flags & (SACKED | LOST) == 0 {
                seg.flags |= LOST;
                self.lost_out += 1;
                self.lost_marks += 1;
                marked += 1;
            }
            self.lost_scan += 1;
        }
        self.check();
        marked
    }

    /// Mark the first outstanding segment Lost (recovery entry, NewReno partial ACK).
    pub fn mark_head_lost(&mut self) {
        if let Some(seg) = self.segs.front_mut() {
            if seg.flags & (SACKED | LOST) == 0 {
                seg.flags |= LOST;
                self.lost_out += 1;
                self.lost_marks += 1;
            }
        }
        if self.lost_scan == self.base && !self.segs.is_empty() {
            self.lost_scan = self.base + 1;
        }
    }

    /// RACK (`host::tcp::rack`): the first segment index not yet settled
    /// (SACKed, Lost or retransmitted); the walk over original transmissions
    /// starts here.
    pub fn unsettled_from(&self) -> u64 {
        self.lost_scan.max(self.base)
    }

    /// RACK: every segment below `idx` is settled.
    pub fn settle_below(&mut self, idx: u64) {
        self.lost_scan = self.lost_scan.max(idx);
    }

    /// RACK: an original transmission is lost (`tcp_mark_skb_lost`).
    pub fn mark_original_lost(&mut self, idx: u64) {
        debug_assert!(idx >= self.lost_scan && self.retx_scan <= idx, "RACK marks originals at or above the settled stretch");
        let seg = self.get_mut(idx);
        debug_assert!(seg.flags & (SACKED | LOST) == 0);
        seg.flags |= LOST;
        self.lost_out += 1;
        self.lost_marks += 1;
    }

    /// RACK: a retransmission is lost again (`tcp_mark_skb_lost`: Lost, the
    /// Retransmitted flag cleared, so NextSeg rule 1 sends it once more).
    pub fn mark_retransmission_lost(&mut self, idx: u64) {
        let pos = (idx - self.base) as usize;
        self.clear_flag(pos, RETRANS);
        let seg = &mut self.segs[pos];
        if !seg.has(LOST) {
            seg.flags |= LOST;
            self.lost_out += 1;
        }
        self.lost_marks += 1;
        self.relost.push(Reverse(idx));
        self.check();
    }

    /// NextSeg rule 1: the lowest Lost segment not yet retransmitted.
    pub fn next_lost(&mut self) -> Option<u64> {
        let relost = self.next_relost();
        let limit = self.lost_scan.min(self.end_idx());
        while self.retx_scan < limit {
            let seg = self.get(self.retx_scan);
            if seg.flags & (LOST | RETRANS | SACKED) == LOST {
                return Some(relost.map_or(self.retx_scan, |r| r.min(self.retx_scan)));
            }
            self.retx_scan += 1;
        }
        // The head may be marked Lost ahead of the scan (mark_head_lost).
        relost
    }

    /// The lowest retransmission RACK marked Lost again that still waits
    /// (stale entries, since acknowledged, SACKed or resent, are dropped).
    fn next_relost(&mut self) -> Option<u64> {
        while let Some(&Reverse(idx)) = self.relost.peek() {
            if idx >= self.base && idx < self.end_idx() && self.get(idx).flags & (LOST | RETRANS | SACKED) == LOST {
                return Some(idx);
            }
            self.relost.pop();
        }
        None
    }

    /// NextSeg rule 3: the lowest un-SACKed, unretransmitted segment below the highest SACKed one.
    pub fn next_rule3(&mut self) -> Option<u64> {
        let hs_end = self.highest_sacked_end()?;
        let limit = self.idx_of(hs_end - 1);
        while self.rule3_scan < limit {
            let seg = self.get(self.rule3_scan);
            if seg.flags & (SACKED | RETRANS) == 0 {
                return Some(self.rule3_scan);
            }
            self.rule3_scan += 1;
        }
        None
    }

    /// Record a retransmission of segment `idx` at `now`.
    pub fn retransmitted(&mut self, idx: u64, now: SimTime) {
        let pos = (idx - self.base) as usize;
        let seg = &mut self.segs[pos];
        debug_assert!(!seg.has(SACKED));
        if !seg.has(RETRANS) {
            self.retrans_out += 1;
        }
        seg.flags |= RETRANS | EVER_RETRANS;
        seg.sent_at = now;
    }

    /// RTO (spec 06 §2.5 step 2): every un-SACKed outstanding segment is Lost,
    /// Retransmitted flags cleared. O(W), once per timeout.
    pub fn on_rto(&mut self) {
        self.retrans_out = 0;
        self.lost_out = 0;
        // Linux 2.6.20 tcp_enter_loss → tcp_clear_retrans; 6.8 tcp_timeout_mark_lost → tcp_reset_reno_sack.
        self.reno_sacked = 0;
        for i in 0..self.segs.len() {
            let seg = &mut self.segs[i];
            seg.flags &= !(RETRANS | LOST);
            if !seg.has(SACKED) {
                seg.flags |= LOST;
                self.lost_out += 1;
                self.lost_marks += 1;
            }
        }
        self.lost_scan = self.end_idx();
        self.retx_scan = self.base;
        self.rule3_scan = self.base;
        self.relost.clear();
        self.check();
    }

    /// Invariant: counters within bounds (debug builds).
    fn check(&self) {
        debug_assert_eq!(self.packets_out, self.segs.len() as u64);
        debug_assert!(self.sacked_out + self.lost_out <= self.packets_out);
        debug_assert!(self.retrans_out <= self.lost_out + self.packets_out);
    }

    /// Full recount of the flag counters (tests and debug checks).
    pub fn recount(&self) -> (u64, u64, u64) {
        let mut c = (0, 0, 0);
        for s in self.segs.iter() {
            c.0 += s.has(SACKED) as u64;
            c.1 += s.has(LOST) as u64;
            c.2 += s.has(RETRANS) as u64;
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_segment_record_is_compact() {
        // One per segment in flight (issue 9 footprint): five 8-byte fields, length and flags.
        assert!(std::mem::size_of::<SegRecord>() <= 40, "{}", std::mem::size_of::<SegRecord>());
    }

    #[test]
    fn the_delivered_count_survives_32_bit_wrap() {
        let mut s = SegRecord::test_segment(0, 1448);
        let at_send = (5u64 << 32) - 3;
        s.delivered_lo32 = at_send as u32;
        assert_eq!(s.delivered(at_send), at_send);
        assert_eq!(s.delivered(at_send + 10), at_send, "across the 2^32 boundary");
    }

    fn board(n: u64, mss: u16) -> Scoreboard {
        let mut b = Scoreboard::new();
        for i in 0..n {
            b.push(SegRecord::test_segment(i, mss));
        }
        b
    }

    /// Linux `tcp_add_reno_sack` / `tcp_remove_reno_sacks` /
    /// `tcp_limit_reno_sacked`: duplicate ACKs count as SACKed up to
    /// packets_out − max(lost_out, 1); a cumulative ACK of n removes n − 1 and
    /// delivers max(n − counted, 1).
    #[test]
    fn duplicate_acks_count_as_sacked_without_sack() {
        let mut b = board(5, 100);
        for _ in 0..3 {
            assert_eq!(b.add_reno_sack(), 1);
        }
        assert_eq!(b.pipe(), 2);
        assert_eq!(b.add_reno_sack(), 1);
        assert_eq!(b.add_reno_sack(), 0, "one hole stays uncounted");
        assert_eq!(b.reno_sacked, 4);
        // The hole's retransmission is ACKed together with three held segments.
        b.ack_cum(400);
        assert_eq!(b.remove_reno_sacks(4), 1, "one newly delivered: the others were counted");
        assert_eq!(b.reno_sacked, 0, "4 − 3 = 1, then capped at packets_out − 1 = 0");
        let mut b = board(10, 100);
        b.add_reno_sack();
        b.add_reno_sack();
        b.ack_cum(500);
        assert_eq!(b.remove_reno_sacks(5), 3);
        assert_eq!(b.reno_sacked, 0);
        b.on_rto();
        assert_eq!(b.reno_sacked, 0);
    }

    #[test]
    fn rfc6675_is_lost_needs_three_sacked_above() {
        let mut b = board(10, 100);
        // Segment 0 lost; 1 and 2 SACKed: not yet lost (2 < DupThresh).
        b.sack(100, 300, |_| {});
        assert_eq!(b.mark_lost(3, false), 0);
        b.sack(300, 400, |_| {});
        assert_eq!(b.mark_lost(3, false), 1);
        assert_eq!(b.next_lost(), Some(0));
        assert_eq!(b.pipe(), 10 - 3 - 1);
        b.retransmitted(0, SimTime(100));
        assert_eq!(b.pipe(), 10 - 3);
        assert_eq!(b.next_lost(), None);
        let r = b.ack_cum(400);
        assert_eq!(r.segments, 4);
        assert_eq!(r.newly_delivered, 1);
        assert_eq!((b.sacked_out, b.lost_out, b.retrans_out), b.recount());
    }

    #[test]
    fn fack_counts_all_segments_after() {
        let mut b = board(10, 100);
        // Only segment 4 SACKed: FACK marks 0 and 1 (4 − s ≥ 3), rfc6675 marks none.
        b.sack(400, 500, |_| {});
        let mut c = board(10, 100);
        c.sack(400, 500, |_| {});
        assert_eq!(b.mark_lost(3, true), 2);
        assert_eq!(c.mark_lost(3, false), 0);
    }

    #[test]
    fn re_reported_blocks_are_free() {
        let mut b = board(1000, 100);
        let mut n = 0;
        for k in 1..1000u64 {
            // Receiver reports the growing block [100, 100k+100) every time.
            n += b.sack(100, 100 * k + 100, |_| {});
        }
        assert_eq!(n, 999);
        assert_eq!(b.sacked_out, 999);
    }

    #[test]
    fn rto_marks_everything_unsacked_lost() {
        let mut b = board(5, 100);
        b.sack(200, 300, |_| {});
        b.on_rto();
        assert_eq!(b.lost_out, 4);
        assert_eq!(b.next_lost(), Some(0));
        b.retransmitted(0, SimTime(9));
        assert_eq!(b.next_lost(), Some(1));
    }
}
