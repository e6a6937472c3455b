//! RACK-TLP loss detection (RFC 8985) as Linux 6.x has it (issue 38 item 3).
//!
//! RACK marks a segment lost when a segment *sent after it* has been delivered
//! and more than RACK.rtt + reo_wnd has passed since it was sent: time, not
//! duplicate-ACK counts, so it finds lost retransmissions too. TLP sends one
//! probe when the ACK clock stops in Open, so a tail loss is repaired by fast
//! recovery instead of an RTO. Sources (Linux 6.6):
//! - `net/ipv4/tcp_recovery.c`: `tcp_rack_reo_wnd`, `tcp_rack_skb_timeout`,
//!   `tcp_rack_detect_loss`, `tcp_rack_mark_lost`, `tcp_rack_advance`,
//!   `tcp_rack_reo_timeout`, `tcp_rack_update_reo_wnd`;
//! - `net/ipv4/tcp_input.c`: `tcp_identify_packet_loss` (RACK for SACK
//!   connections, NewReno marking without SACK), `tcp_fastretrans_alert`
//!   (`tcp_update_scoreboard` only when RACK is off), `tcp_process_tlp_ack`,
//!   `tcp_check_sack_reordering`;
//! - `net/ipv4/tcp_output.c`: `tcp_schedule_loss_probe`, `tcp_send_loss_probe`.
//!
//! Cost (the bench's "no heap event per packet"): Linux walks a list sorted by
//! send time. Original transmissions are already in send order in the
//! scoreboard, so their walk is the scoreboard's monotone `lost_scan` pointer;
//! retransmissions (sent out of sequence order) are kept here in a FIFO in
//! send order. Both walks stop at the first segment not yet expired, so each
//! segment is visited a bounded number of times. The reorder timer and the
//! probe timer are deadlines of the socket's one timer, moved later lazily.
//!
//! One simplification, documented in docs/choices.md: Linux arms the reorder
//! timer for the *latest* expiry among the segments still waiting; the walk
//! stops at the first, so the deadline is the bound of that latest expiry,
//! the RACK segment's own send time + RACK.rtt + reo_wnd (every waiting
//! segment was sent before it). It fires at most the gap between the last
//! waiting segment and the RACK segment later than Linux's.

use std::collections::VecDeque;

use super::scoreboard::{SegRecord, Scoreboard, EVER_RETRANS, LOST, RETRANS, SACKED};
use crate::engine::time::{SimTime, Span};

/// `TCP_TIMEOUT_MIN_US` (include/net/tcp.h): 2 ms added to the reorder timer
/// and to the probe timeout.
pub const TIMEOUT_MIN: Span = Span::from_ms(2);
/// `sysctl_tcp_reordering` default: the initial reordering degree, segments.
pub const REORDERING_INIT: u64 = 3;
/// `sysctl_tcp_max_reordering` default.
pub const REORDERING_MAX: u64 = 300;
/// `TCP_RACK_RECOVERY_THRESH`: recoveries a D-SACK-widened window persists.
const RECOVERY_THRESH: u32 = 16;

/// What a RACK detection pass did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Detected {
    /// Segments newly marked lost (originals and retransmissions).
    pub marked: u64,
    /// Of them, retransmissions found lost (Linux `TCPLostRetransmit`).
    pub lost_retransmits: u64,
    /// Some segment sent before the RACK segment has not expired yet: the
    /// reorder timer was armed.
    pub waiting: bool,
}

/// RACK and TLP state of one sender.
#[derive(Clone, Debug)]
pub struct Rack {
    /// RACK.xmit_ts / RACK.end_seq: the most recently sent delivered segment.
    xmit_at: SimTime,
    end_seq: u64,
    /// RACK.rtt: the RTT of the most recently delivered segment (`rack.rtt_us`).
    rtt: Span,
    /// Something was delivered since the last detection (`rack.advanced`).
    advanced: bool,
    /// D-SACK adaptation of the reordering window (`tcp_rack_update_reo_wnd`).
    reo_wnd_steps: u32,
    reo_wnd_persist: u32,
    dsack_seen: bool,
    last_delivered: u64,
    /// Reordering was seen on this connection (`tp->reord_seen`).
    pub reord_seen: bool,
    /// Reordering degree, segments (`tp->reordering`).
    pub reordering: u64,
    /// Retransmissions in send order: (segment index, send time). Stale
    /// entries (delivered, re-sent, or cleared by an RTO) are dropped lazily.
    rtx: VecDeque<(u64, SimTime)>,
    /// Reorder timer (`ICSK_TIME_REO_TIMEOUT`).
    pub reo_deadline: Option<SimTime>,
    /// TLP: snd_nxt when the outstanding probe was sent (`tlp_high_seq`).
    pub tlp_high_seq: Option<u64>,
    /// The outstanding probe was a retransmission (`tlp_retrans`).
    tlp_retrans: bool,
    /// Probe timer (`ICSK_TIME_LOSS_PROBE`).
    pub tlp_deadline: Option<SimTime>,
}

impl Default for Rack {
    fn default() -> Rack {
        Rack {
            xmit_at: SimTime::ZERO,
            end_seq: 0,
            rtt: Span::ZERO,
            advanced: false,
            reo_wnd_steps: 1,
            reo_wnd_persist: 0,
            dsack_seen: false,
            last_delivered: 0,
            reord_seen: false,
            reordering: REORDERING_INIT,
            rtx: VecDeque::new(),
            reo_deadline: None,
            tlp_high_seq: None,
            tlp_retrans: false,
            tlp_deadline: None,
        }
    }
}

/// `tcp_skb_sent_after(t1, t2, seq1, seq2)`: sent later, or at the same time
/// with a higher end sequence.
fn sent_after(t1: SimTime, t2: SimTime, seq1: u64, seq2: u64) -> bool {
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

impl Rack {
    /// `tcp_rack_advance`: a segment was newly delivered (cumulatively or by
    /// SACK). An ambiguous retransmission (its RTT below min_rtt: the original
    /// may have been delivered) does not advance RACK.
    pub fn advance(&mut self, now: SimTime, seg: &SegRecord, min_rtt: Option<Span>) {
        let rtt = now.since(seg.sent_at.min(now));
        if seg.has(EVER_RETRANS) && min_rtt.is_some_and(|m| rtt < m) {
            return;
        }
        self.advanced = true;
        self.rtt = rtt;
        if sent_after(seg.sent_at, self.xmit_at, seg.end(), self.end_seq) {
            self.xmit_at = seg.sent_at;
            self.end_seq = seg.end();
        }
    }

    /// A newly delivered, never retransmitted segment starting below the
    /// highest SACKed byte before this ACK: reordering (`tcp_check_sack_reordering`;
    /// the degree grows to the distance in segments, up to `REORDERING_MAX`).
    pub fn note_reordering(&mut self, low_seq: u64, prior_fack: u64, mss: u32) {
        if low_seq >= prior_fack || mss == 0 {
            return;
        }
        let metric = (prior_fack - low_seq).div_ceil(mss as u64);
        if metric > self.reordering {
            self.reordering = metric.min(REORDERING_MAX);
        }
        self.reord_seen = true;
    }

    /// A D-SACK arrived (`tcp_check_dsack` → `rack.dsack_seen`).
    pub fn on_dsack(&mut self) {
        self.dsack_seen = true;
    }

    /// `tcp_rack_update_reo_wnd`, per ACK with the delivered count the ACK's
    /// rate sample started from: one step wider per round trip with a D-SACK,
    /// held for 16 recoveries, then back to one step.
    pub fn update_reo_wnd(&mut self, prior_delivered: u64, delivered: u64) {
        if prior_delivered == 0 {
            return;
        }
        if prior_delivered < self.last_delivered {
            self.dsack_seen = false;
        }
        if self.dsack_seen {
            self.reo_wnd_steps = (self.reo_wnd_steps + 1).min(0xFF);
            self.dsack_seen = false;
            self.last_delivered = delivered;
            self.reo_wnd_persist = RECOVERY_THRESH;
        } else if self.reo_wnd_persist == 0 {
            self.reo_wnd_steps = 1;
        }
    }

    /// A recovery ended without undo: one fewer left for a widened window to
    /// persist (`tcp_try_undo_recovery`, `reo_wnd_persist--`).
    pub fn on_recovery_end(&mut self) {
        self.reo_wnd_persist = self.reo_wnd_persist.saturating_sub(1);
    }

    /// `tcp_rack_reo_wnd`: 0 when no reordering was seen and the connection is
    /// in recovery or has `reordering` SACKed segments (the DupThresh case);
    /// else min_rtt/4 per step, at most srtt.
    pub fn reo_wnd(&self, in_recovery: bool, sacked_out: u64, min_rtt: Option<Span>, srtt: Option<Span>) -> Span {
        if !self.reord_seen && (in_recovery || sacked_out >= self.reordering) {
            return Span::ZERO;
        }
        let quarter = min_rtt.map_or(Span::ZERO, |m| Span(m.0 / 4));
        let wnd = Span(quarter.0.saturating_mul(self.reo_wnd_steps as u64));
        srtt.map_or(wnd, |s| wnd.min(s))
    }

    /// A retransmission of segment `idx` left at `at` (the tsorted list's tail).
    pub fn on_retransmit(&mut self, idx: u64, at: SimTime) {
        self.rtx.push_back((idx, at));
    }

    /// The RTO fired: every retransmission's flag is cleared, the FIFO with it.
    pub fn on_rto(&mut self) {
        self.rtx.clear();
        self.reo_deadline = None;
        self.tlp_deadline = None;
    }

    /// Did a delivery advance RACK since the last pass (`tcp_rack_mark_lost`'s gate)?
    pub fn take_advanced(&mut self) -> bool {
        std::mem::replace(&mut self.advanced, false)
    }

    fn expired(&self, now: SimTime, seg: &SegRecord, reo_wnd: Span) -> bool {
        seg.sent_at + self.rtt + reo_wnd <= now
    }

    fn before_rack(&self, seg: &SegRecord) -> bool {
        sent_after(self.xmit_at, seg.sent_at, self.end_seq, seg.end())
    }

    /// `tcp_rack_detect_loss`: mark lost every segment sent before the RACK
    /// segment whose RACK.rtt + reo_wnd has passed; arm the reorder timer if
    /// some have not yet (see the module note on its deadline).
    pub fn detect_loss(&mut self, now: SimTime, sb: &mut Scoreboard, reo_wnd: Span) -> Detected {
        let mut d = Detected::default();
        // Retransmissions, in send order.
        while let Some(&(idx, at)) = self.rtx.front() {
            let live = idx >= sb.base() && idx < sb.end_idx() && {
                let s = sb.get(idx);
                s.sent_at == at && s.has(RETRANS) && !s.has(SACKED)
            };
            if !live {
                self.rtx.pop_front();
                continue;
            }
            let s = *sb.get(idx);
            if !self.before_rack(&s) {
                break;
            }
            if self.expired(now, &s, reo_wnd) {
                sb.mark_retransmission_lost(idx);
                self.rtx.pop_front();
                d.marked += 1;
                d.lost_retransmits += 1;
            } else {
                d.waiting = true;
                break;
            }
        }
        // Original transmissions, in sequence = send order, from the first
        // segment not yet settled (SACKed, Lost or retransmitted).
        let mut i = sb.unsettled_from();
        while i < sb.end_idx() {
            let s = *sb.get(i);
            if s.flags & (SACKED | LOST | EVER_RETRANS) != 0 {
                i += 1;
                continue;
            }
            if !self.before_rack(&s) {
                break;
            }
            if self.expired(now, &s, reo_wnd) {
                sb.mark_original_lost(i);
                d.marked += 1;
                i += 1;
            } else {
                d.waiting = true;
                break;
            }
        }
        sb.settle_below(i);
        self.reo_deadline = d.waiting.then(|| self.xmit_at + self.rtt + reo_wnd + TIMEOUT_MIN);
        d
    }

    /// `tcp_schedule_loss_probe`: the probe timeout, 2·srtt plus 2 ms (plus
    /// rto_min with one segment out, for a delayed ACK), or the initial RTO
    /// without an RTT sample; never later than the RTO would fire.
    pub fn probe_timeout(srtt: Option<Span>, packets_out: u64, rto_min: Span, rto_init: Span, rto_left: Span) -> Span {
        let pto = match srtt {
            Some(s) => Span(2 * s.0) + if packets_out == 1 { rto_min } else { TIMEOUT_MIN },
            None => rto_init,
        };
        pto.min(rto_left)
    }

    /// A probe left: `tlp_high_seq` = snd_nxt after it.
    pub fn on_probe_sent(&mut self, snd_nxt: u64, retransmission: bool) {
        self.tlp_high_seq = Some(snd_nxt);
        self.tlp_retrans = retransmission;
        self.tlp_deadline = None;
    }

    /// `tcp_process_tlp_ack`: is the probe settled by this ACK, and did it
    /// repair a loss (then the caller reduces cwnd once, as Linux's CWR)?
    pub fn process_tlp_ack(&mut self, ack: u64, dsack_end: Option<u64>, advanced: bool, new_data_sacked: bool) -> bool {
        let Some(high) = self.tlp_high_seq else { return false };
        if ack < high {
            return false;
        }
        if !self.tlp_retrans || dsack_end.is_some_and(|e| e >= high) {
            // A probe of new data acknowledged, or the D-SACK of a probe: no loss.
            self.tlp_high_seq = None;
            false
        } else if ack > high {
            // The ACK moved past the probe: there was a loss, repaired by it.
            self.tlp_high_seq = None;
            true
        } else {
            if !advanced && !new_data_sacked {
                // A pure duplicate: original and probe both arrived.
                self.tlp_high_seq = None;
            }
            false
        }
    }

    /// Loss recovery began (`tcp_init_cwnd_reduction` clears `tlp_high_seq`);
    /// the retransmission that follows replaces the probe timer with the RTO.
    pub fn on_recovery_start(&mut self) {
        self.tlp_high_seq = None;
        self.tlp_deadline = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(n: u64, gap_ps: u64) -> Scoreboard {
        let mut b = Scoreboard::new();
        for i in 0..n {
            let mut s = SegRecord::test_segment(i, 100);
            s.sent_at = SimTime(i * gap_ps);
            b.push(s);
        }
        b
    }

    const MS: u64 = 1_000_000_000;

    #[test]
    fn reo_wnd_follows_tcp_rack_reo_wnd() {
        let mut r = Rack::default();
        let min = Some(Span(40 * MS));
        let srtt = Some(Span(50 * MS));
        // No reordering seen: zero in recovery or with 3 SACKed, else min_rtt/4.
        assert_eq!(r.reo_wnd(true, 0, min, srtt), Span::ZERO);
        assert_eq!(r.reo_wnd(false, 3, min, srtt), Span::ZERO);
        assert_eq!(r.reo_wnd(false, 2, min, srtt), Span(10 * MS));
        // Reordering seen: min_rtt/4 per step, at most srtt.
        r.note_reordering(0, 500, 100);
        assert!(r.reord_seen && r.reordering == 5);
        assert_eq!(r.reo_wnd(true, 10, min, srtt), Span(10 * MS));
        r.on_dsack();
        r.update_reo_wnd(10, 20);
        assert_eq!(r.reo_wnd(true, 10, min, srtt), Span(20 * MS));
        // One step per round trip: a rate sample that began before the last
        // widening does not widen again.
        r.on_dsack();
        r.update_reo_wnd(15, 30);
        assert_eq!(r.reo_wnd(true, 10, min, srtt), Span(20 * MS));
        for k in 1..10 {
            r.on_dsack();
            r.update_reo_wnd(100 * k, 100 * k + 10);
        }
        assert_eq!(r.reo_wnd(true, 10, min, srtt), srtt.unwrap(), "capped at srtt");
    }

    /// Segments sent before the delivered one are lost once RACK.rtt + reo_wnd
    /// has passed since they left; later ones wait, and the timer is armed.
    #[test]
    fn originals_sent_before_the_delivered_one_expire() {
        let mut b = board(10, MS);
        let mut r = Rack::default();
        // Segment 5 (sent at 5 ms) SACKed at 105 ms: RACK.rtt = 100 ms.
        b.sack(500, 600, |_| {});
        let s5 = *b.get(5);
        r.advance(SimTime(105 * MS), &s5, Some(Span(100 * MS)));
        let d = r.detect_loss(SimTime(105 * MS), &mut b, Span::ZERO);
        assert_eq!(d, Detected { marked: 5, lost_retransmits: 0, waiting: false });
        assert_eq!(b.lost_out, 5);
        // With a 2 ms window nothing is lost before 5 ms + 100 + 2; the timer says when.
        let mut b = board(10, MS);
        let mut r = Rack::default();
        b.sack(500, 600, |_| {});
        r.advance(SimTime(105 * MS), &s5, None);
        let d = r.detect_loss(SimTime(105 * MS), &mut b, Span(2 * MS));
        assert_eq!(d.marked, 4, "segments 0-3 left at least 102 ms ago");
        assert!(d.waiting);
        assert_eq!(r.reo_deadline, Some(SimTime((5 + 100 + 2 + 2) * MS)));
        let d = r.detect_loss(SimTime(107 * MS), &mut b, Span(2 * MS));
        assert_eq!(d.marked, 1, "segment 4, sent at 4 ms");
        assert!(!d.waiting && r.reo_deadline.is_none());
    }

    /// A retransmission is lost again when a segment sent after it is
    /// delivered and its own RACK.rtt + reo_wnd has passed.
    #[test]
    fn a_lost_retransmission_is_found() {
        let mut b = board(10, MS);
        let mut r = Rack::default();
        b.sack(100, 1000, |_| {});
        b.mark_original_lost(0);
        b.settle_below(1);
        assert_eq!(b.next_lost(), Some(0));
        b.retransmitted(0, SimTime(200 * MS));
        r.on_retransmit(0, SimTime(200 * MS));
        assert_eq!(b.next_lost(), None);
        // New data sent at 210 ms is SACKed at 310 ms; the retransmission is not.
        let mut late = SegRecord::test_segment(10, 100);
        late.sent_at = SimTime(210 * MS);
        b.push(late);
        b.sack(1000, 1100, |_| {});
        r.advance(SimTime(310 * MS), &late, Some(Span(100 * MS)));
        let d = r.detect_loss(SimTime(310 * MS), &mut b, Span::ZERO);
        assert_eq!(d, Detected { marked: 1, lost_retransmits: 1, waiting: false });
        assert_eq!((b.retrans_out, b.lost_out), (0, 1));
        assert_eq!(b.next_lost(), Some(0), "the segment is to be sent a third time");
    }

    #[test]
    fn probe_timeout_follows_tcp_schedule_loss_probe() {
        let ms = |n| Span(n * MS);
        assert_eq!(Rack::probe_timeout(Some(ms(100)), 5, ms(200), ms(1000), ms(900)), ms(202));
        assert_eq!(Rack::probe_timeout(Some(ms(100)), 1, ms(200), ms(1000), ms(900)), ms(400));
        assert_eq!(Rack::probe_timeout(None, 5, ms(200), ms(1000), ms(900)), ms(900));
        assert_eq!(Rack::probe_timeout(Some(ms(100)), 5, ms(200), ms(1000), ms(150)), ms(150));
    }

    #[test]
    fn tlp_ack_outcomes() {
        let mut r = Rack::default();
        r.on_probe_sent(1000, true);
        assert!(!r.process_tlp_ack(900, None, true, false));
        assert!(r.tlp_high_seq.is_some());
        // The D-SACK of the probe: no loss.
        assert!(!r.process_tlp_ack(1000, Some(1000), false, false));
        assert!(r.tlp_high_seq.is_none());
        r.on_probe_sent(1000, true);
        assert!(r.process_tlp_ack(1100, None, true, false), "past the probe: a repaired loss");
        r.on_probe_sent(1000, false);
        assert!(!r.process_tlp_ack(1000, None, true, false));
        assert!(r.tlp_high_seq.is_none(), "a probe of new data, acknowledged");
    }
}
