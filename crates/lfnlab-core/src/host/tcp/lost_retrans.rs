//! The lost-retransmission check of the Linux kernels before RACK (issue 38
//! item 1; `lost_retrans = "sacktag"`).
//!
//! Linux 2.4.20 and 2.6.x find a lost retransmission without the RTO, inside
//! the SACK walk (`net/ipv4/tcp_input.c` `tcp_sacktag_write_queue`: 2.4.20
//! lines 855–859 and 919–942, 2.6.12 :1131, 2.6.20 lines 1110–1113 and
//! 1180–1205; `tcp_mark_lost_retrans` in 2.6.25–4.3). A retransmitted segment
//! remembers `snd_nxt` at its retransmission (`TCP_SKB_CB(skb)->ack_seq`). While
//! the connection is in Recovery, an ACK whose SACK blocks reach beyond that
//! point (`lost_retrans`, the highest such block end) shows that data sent
//! after the retransmission arrived while the retransmission did not: with
//! FACK the retransmission is lost at once, without FACK once the blocks reach
//! `reordering` segments beyond it (`!before(lost_retrans, ack_seq +
//! tp->reordering * tp->mss_cache)`). It loses its retransmitted mark, is
//! marked lost again and counted (`TCPLostRetransmit`), and the sender
//! retransmits it once more.
//!
//! Cost: retransmissions are kept here in a FIFO in send order, so their
//! `snd_nxt` marks are non-decreasing and a check stops at the first one the
//! ACK does not reach: each retransmission is visited a bounded number of
//! times. Entries whose segment was delivered or retransmitted again since are
//! dropped lazily (the send time identifies the retransmission).

use std::collections::VecDeque;

use super::scoreboard::{Scoreboard, RETRANS, SACKED};
use crate::engine::time::SimTime;

/// One outstanding retransmission.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Rtx {
    /// Scoreboard index of the segment.
    idx: u64,
    /// When the retransmission left (identifies it: a later one replaces it).
    sent_at: SimTime,
    /// snd_nxt when it left, bytes (Linux `TCP_SKB_CB(skb)->ack_seq`).
    snd_nxt: u64,
}

/// The check's state: the retransmissions not yet delivered, in send order.
#[derive(Clone, Debug, Default)]
pub struct LostRetransCheck {
    rtx: VecDeque<Rtx>,
}

impl LostRetransCheck {
    /// Segment `idx` was retransmitted at `sent_at` with `snd_nxt` the next new byte.
    pub fn on_retransmit(&mut self, idx: u64, sent_at: SimTime, snd_nxt: u64) {
        debug_assert!(self.rtx.back().is_none_or(|r| r.snd_nxt <= snd_nxt), "snd_nxt never falls");
        self.rtx.push_back(Rtx { idx, sent_at, snd_nxt });
    }

    /// The RTO fired: every retransmitted mark is cleared (`tcp_enter_loss`).
    pub fn on_rto(&mut self) {
        self.rtx.clear();
    }

    /// An ACK in Recovery whose SACK blocks end at most at `sack_high` (bytes):
    /// mark lost every outstanding retransmission that the blocks reach
    /// `margin_bytes` beyond (0 with FACK, `reordering` · MSS without).
    /// Returns how many were marked.
    pub fn check(&mut self, sb: &mut Scoreboard, sack_high: u64, margin_bytes: u64) -> u64 {
        let mut marked = 0;
        while let Some(&r) = self.rtx.front() {
            let live = r.idx >= sb.base() && r.idx < sb.end_idx() && {
                let s = sb.get(r.idx);
                s.sent_at == r.sent_at && s.has(RETRANS) && !s.has(SACKED)
            };
            if !live {
                self.rtx.pop_front();
                continue;
            }
            // `after(lost_retrans, ack_seq)` and, without FACK, the reordering margin.
            if sack_high <= r.snd_nxt || sack_high < r.snd_nxt + margin_bytes {
                break;
            }
            sb.mark_retransmission_lost(r.idx);
            self.rtx.pop_front();
            marked += 1;
        }
        marked
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::tcp::scoreboard::{SegRecord, LOST};

    const MSS: u64 = 1000;

    fn board(n: u64) -> Scoreboard {
        let mut sb = Scoreboard::new();
        for i in 0..n {
            sb.push(SegRecord::test_segment(i, MSS as u16));
        }
        sb
    }

    /// Segment `idx` marked lost and retransmitted at `at` ps with snd_nxt `nxt`.
    fn retransmit(sb: &mut Scoreboard, c: &mut LostRetransCheck, idx: u64, at: u64, nxt: u64) {
        if idx == sb.base() {
            sb.mark_head_lost();
        } else {
            sb.mark_original_lost(idx);
        }
        sb.retransmitted(idx, SimTime(at));
        c.on_retransmit(idx, SimTime(at), nxt);
    }

    /// Segments 0 and 1 lost and retransmitted at 20 and 21 ps when snd_nxt was 10 000
    /// and 11 000; SACKs up to 10 500 reach neither, up to 11 000 the first (FACK).
    #[test]
    fn a_retransmission_is_lost_once_sacks_pass_its_snd_nxt() {
        let mut sb = board(12);
        let mut c = LostRetransCheck::default();
        retransmit(&mut sb, &mut c, 0, 20, 10 * MSS);
        retransmit(&mut sb, &mut c, 1, 21, 11 * MSS);
        assert_eq!(c.check(&mut sb, 10 * MSS, 0), 0, "a block ending at snd_nxt is not after it");
        assert_eq!(c.check(&mut sb, 11 * MSS, 0), 1);
        assert!(sb.get(0).has(LOST) && !sb.get(0).has(RETRANS));
        assert!(sb.get(1).has(RETRANS), "the second left when snd_nxt was 11 000");
        assert_eq!(c.check(&mut sb, 11 * MSS + 1, 0), 1);
        assert_eq!(c.check(&mut sb, 20 * MSS, 0), 0, "nothing outstanding is left to check");
    }

    /// Without FACK the blocks must reach `reordering` segments beyond.
    #[test]
    fn without_fack_the_reordering_margin_applies() {
        let mut sb = board(20);
        let mut c = LostRetransCheck::default();
        retransmit(&mut sb, &mut c, 0, 30, 10 * MSS);
        assert_eq!(c.check(&mut sb, 12 * MSS, 3 * MSS), 0);
        assert_eq!(c.check(&mut sb, 13 * MSS, 3 * MSS), 1);
    }

    /// A retransmission that was SACKed, or retransmitted again since, is no longer checked.
    #[test]
    fn delivered_or_replaced_retransmissions_are_skipped() {
        let mut sb = board(12);
        let mut c = LostRetransCheck::default();
        retransmit(&mut sb, &mut c, 0, 20, 10 * MSS);
        sb.sack(0, MSS, |_: &SegRecord| {});
        assert_eq!(c.check(&mut sb, 12 * MSS, 0), 0);
        c.on_rto();
        assert_eq!(c.rtx.len(), 0);
    }
}
