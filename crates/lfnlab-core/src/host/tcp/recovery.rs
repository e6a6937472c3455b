//! Loss recovery's window rules and bookkeeping (spec 06 §2.5, §2.8).
//!
//! Split from the sender as ns-3 splits `TcpRecoveryOps` (`TcpClassicRecovery`,
//! `TcpPrrRecovery`) from `TcpSocketBase`: this file says what cwnd is on
//! entering fast recovery, on each ACK inside it and on leaving it, for each
//! `recovery_cwnd` mode (RFC 6582 NewReno, Linux rate halving, RFC 6937 PRR),
//! and keeps the duplicate-ACK count, the recovery point and the
//! local-congestion (CWR) episode. The state machine that decides *when* to
//! enter and leave (Linux `tcp_fastretrans_alert`, spec 06 §2.5) stays in the
//! sender, which owns the `CaState` and tells the congestion control; lost
//! marking (RFC 6675 IsLost, FACK, a partial ACK's head) is the scoreboard's.

use super::config::RecoveryCwnd;
use crate::host::cc::Window;

/// Duplicate ACKs that trigger fast retransmit (RFC 5681 §3.2 DupThresh).
pub const DUPTHRESH: u32 = 3;

/// What an ACK inside fast recovery brings (spec 06 §2.5).
#[derive(Clone, Copy, Debug, Default)]
pub struct RecoveryAck {
    /// Segments newly covered by the cumulative ACK.
    pub acked: u64,
    /// Segments newly delivered (cumulatively or by SACK).
    pub delivered: u64,
    /// A duplicate ACK.
    pub dup: bool,
    /// snd_una advanced.
    pub advanced: bool,
    /// Segments newly marked lost while processing it (Linux `rs->losses`,
    /// `tp->lost` before and after).
    pub newly_lost: u64,
}

/// Recovery bookkeeping of one sender.
#[derive(Clone, Debug)]
pub struct Recovery {
    mode: RecoveryCwnd,
    /// RFC 6582 `recover`: snd_max when the last recovery or RTO began; a new
    /// recovery may start only once snd_una has passed it (once per window).
    recover: Option<u64>,
    /// Duplicate ACKs since snd_una last advanced (spec 06 §2.5).
    pub dupacks: u32,
    // RFC 6937 PRR: delivered and sent since recovery began, and the flight
    // size when it began (RecoverFS).
    prr_delivered: u64,
    prr_out: u64,
    recover_fs: u64,
    /// Rate halving: ACKs inside recovery (cwnd drops by one every second).
    rh_acks: u32,
    /// CWR (spec 06 §2.8): snd_max when it began, and ACKs since.
    cwr_high: u64,
    cwr_acks: u32,
    /// Rate halving (and gradual CWR) lowers cwnd down to ssthresh/2, as
    /// Linux 2.4.20 and 2.6.12 `tcp_cwnd_down` ("`tp->snd_cwnd >
    /// tp->snd_ssthresh/2`"), or down to ssthresh (2.6.20 for bic and cubic).
    half_floor: bool,
}

impl Recovery {
    pub fn new(mode: RecoveryCwnd) -> Recovery {
        Recovery { mode, recover: None, dupacks: 0, prr_delivered: 0, prr_out: 0, recover_fs: 0, rh_acks: 0, cwr_high: 0, cwr_acks: 0, half_floor: false }
    }

    /// Rate halving's floor: ssthresh/2 when `half`, else ssthresh (`TcpConfig::rate_halving_floor`).
    pub fn with_half_floor(mut self, half: bool) -> Recovery {
        self.half_floor = half;
        self
    }

    fn rh_floor(&self, w: &Window) -> f64 {
        if self.half_floor { (w.ssthresh / 2.0).floor() } else { w.ssthresh }
    }

    /// The recovery mode (`TcpConfig::recovery_cwnd`).
    pub fn mode(&self) -> RecoveryCwnd {
        self.mode
    }

    /// Count an ACK: a cumulative advance resets the duplicate count.
    pub fn count_ack(&mut self, advanced: bool, is_dup: bool) {
        if advanced {
            self.dupacks = 0;
        } else if is_dup {
            self.dupacks += 1;
        }
    }

    /// May a new recovery start at this ACK (RFC 6582: snd_una above `recover`)?
    pub fn may_enter(&self, ack: u64) -> bool {
        self.recover.is_none_or(|r| ack > r)
    }

    /// Has this ACK covered everything outstanding when recovery or the RTO began?
    pub fn recovered(&self, ack: u64) -> bool {
        self.recover.is_some_and(|r| ack >= r)
    }

    /// Has this ACK covered everything outstanding when CWR began?
    pub fn cwr_done(&self, ack: u64) -> bool {
        ack >= self.cwr_high
    }

    /// Fast recovery begins (spec 06 §2.5 table, "enter" column). `pipe` is
    /// the flight after the head was marked lost; `window_rules` is false for
    /// an algorithm with its own `cong_control`, which owns cwnd.
    pub fn enter(&mut self, w: &mut Window, snd_max: u64, pipe: u64, sack: bool, window_rules: bool) {
        self.recover = Some(snd_max);
        if !window_rules {
            return;
        }
        match (self.mode, sack) {
            // RFC 6582 §3.2 step 3: inflate by the three segments that left.
            (RecoveryCwnd::Rfc, false) => w.cwnd = w.ssthresh + 3.0,
            // RFC 6675 §5 step 4.2: cwnd = ssthresh, the pipe does the rest.
            (RecoveryCwnd::Rfc, true) => w.cwnd = w.ssthresh,
            (RecoveryCwnd::RateHalving, _) => self.rh_acks = 0,
            (RecoveryCwnd::Prr, _) => {
                self.recover_fs = pipe.max(1);
                self.prr_delivered = 0;
                self.prr_out = 0;
            }
            // Linux 6.8 net/ipv4/tcp_input.c tcp_init_cwnd_reduction:
            // "tp->prior_cwnd = tcp_snd_cwnd(tp);" before ssthresh lowers nothing
            // of cwnd; prr_delivered = prr_out = 0.
            (RecoveryCwnd::PrrLinux, _) => {
                self.recover_fs = (w.cwnd.floor() as u64).max(1);
                self.prr_delivered = 0;
                self.prr_out = 0;
            }
        }
    }

    /// cwnd after an ACK inside fast recovery (spec 06 §2.5 table, "per ACK").
    pub fn on_ack(&mut self, w: &mut Window, pipe: u64, sack: bool, a: RecoveryAck) {
        let RecoveryAck { acked, delivered, dup, advanced, newly_lost } = a;
        match (self.mode, sack) {
            (RecoveryCwnd::Rfc, false) => {
                if dup {
                    w.cwnd += 1.0;
                } else if advanced {
                    // RFC 6582 partial ACK: deflate by the amount acked, add one back.
                    w.cwnd -= acked as f64;
                    if acked >= 1 {
                        w.cwnd += 1.0;
                    }
                }
            }
            (RecoveryCwnd::Rfc, true) => {}
            (RecoveryCwnd::RateHalving, _) => {
                self.rh_acks += 1;
                if self.rh_acks.is_multiple_of(2) && w.cwnd > self.rh_floor(w) {
                    w.cwnd -= 1.0;
                }
                w.cwnd = w.cwnd.min((pipe + 1) as f64);
            }
            (RecoveryCwnd::Prr, _) => {
                // RFC 6937 §3 with SSRB (slow-start reduction bound).
                self.prr_delivered += delivered;
                let pipe = pipe as f64;
                let ss = w.ssthresh;
                let sndcnt = if pipe > ss {
                    ((self.prr_delivered as f64 * ss) / self.recover_fs as f64).ceil() - self.prr_out as f64
                } else {
                    (ss - pipe).min((self.prr_delivered as f64 - self.prr_out as f64).max(delivered as f64) + 1.0)
                };
                w.cwnd = pipe + sndcnt.max(0.0);
            }
            (RecoveryCwnd::PrrLinux, _) => {
                // Linux 6.8 net/ipv4/tcp_input.c tcp_cwnd_reduction: "if
                // (newly_acked_sacked <= 0 ...) return;" leaves cwnd as it is.
                if delivered == 0 {
                    return;
                }
                self.prr_delivered += delivered;
                let pipe = pipe as f64;
                let ss = w.ssthresh.floor();
                let delta = ss - pipe;
                let mut sndcnt = if delta < 0.0 {
                    // "dividend = snd_ssthresh * prr_delivered + prior_cwnd - 1;
                    //  sndcnt = div_u64(dividend, prior_cwnd) - prr_out;"
                    let dividend = ss as u64 * self.prr_delivered + self.recover_fs - 1;
                    (dividend / self.recover_fs) as f64 - self.prr_out as f64
                } else {
                    // "sndcnt = max_t(int, prr_delivered - prr_out, newly_acked_sacked);
                    //  if (flag & FLAG_SND_UNA_ADVANCED && !newly_lost) sndcnt++;
                    //  sndcnt = min(delta, sndcnt);"
                    let mut s = (self.prr_delivered as f64 - self.prr_out as f64).max(delivered as f64);
                    if advanced && newly_lost == 0 {
                        s += 1.0;
                    }
                    s.min(delta)
                };
                // "Force a fast retransmit upon entering fast recovery":
                // sndcnt = max(sndcnt, prr_out ? 0 : 1).
                sndcnt = sndcnt.max(if self.prr_out > 0 { 0.0 } else { 1.0 });
                w.cwnd = pipe + sndcnt;
            }
        }
    }

    /// cwnd when fast recovery ends (spec 06 §2.5 table, "exit"; RFC 6582
    /// §3.2 step 5 for NewReno without SACK).
    pub fn exit_cwnd(&self, w: &Window, packets_out: u64, sack: bool) -> f64 {
        let ss = w.ssthresh;
        match (self.mode, sack) {
            (RecoveryCwnd::Rfc, false) => ss.min((packets_out.max(1) + 1) as f64),
            // Linux 6.8 tcp_end_cwnd_reduction: cwnd = ssthresh (unless undone).
            (RecoveryCwnd::Rfc, true) | (RecoveryCwnd::Prr, _) | (RecoveryCwnd::PrrLinux, _) => ss,
            (RecoveryCwnd::RateHalving, _) => w.cwnd.min(ss),
        }
    }

    /// A segment left while in fast recovery (PRR's `prr_out`).
    pub fn on_sent_in_recovery(&mut self) {
        self.prr_out += 1;
    }

    /// The RTO fired (spec 06 §2.5 RTO step 2): everything sent is the new
    /// recovery point and the duplicate count restarts.
    pub fn on_rto(&mut self, snd_max: u64) {
        self.recover = Some(snd_max);
        self.dupacks = 0;
    }

    /// Local congestion (spec 06 §2.8): CWR lasts until snd_max is ACKed.
    pub fn enter_cwr(&mut self, snd_max: u64) {
        self.cwr_high = snd_max;
        self.cwr_acks = 0;
    }

    /// An ACK in CWR under `cwr_gradual`: cwnd falls by one every second ACK
    /// down to ssthresh (Linux rate halving in CWR).
    pub fn cwr_gradual_ack(&mut self, w: &mut Window) {
        self.cwr_acks += 1;
        if self.cwr_acks.is_multiple_of(2) && w.cwnd > self.rh_floor(w) {
            w.cwnd -= 1.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(cwnd: f64, ssthresh: f64) -> Window {
        Window { cwnd, ssthresh }
    }

    /// RFC 6582 without SACK: enter at ssthresh + 3, +1 per dupack, a partial
    /// ACK deflates by what it acked and adds one back; exit at
    /// min(ssthresh, flight + 1).
    #[test]
    fn newreno_inflates_deflates_and_exits() {
        let mut r = Recovery::new(RecoveryCwnd::Rfc);
        let mut win = w(20.0, 10.0);
        r.enter(&mut win, 1000, 19, false, true);
        assert_eq!(win.cwnd, 13.0);
        r.on_ack(&mut win, 19, false, RecoveryAck { acked: 0, delivered: 0, dup: true, advanced: false, newly_lost: 0 });
        assert_eq!(win.cwnd, 14.0);
        r.on_ack(&mut win, 15, false, RecoveryAck { acked: 5, delivered: 5, dup: false, advanced: true, newly_lost: 0 });
        assert_eq!(win.cwnd, 10.0);
        assert_eq!(r.exit_cwnd(&win, 4, false), 5.0);
        assert_eq!(r.exit_cwnd(&win, 40, false), 10.0);
        assert!(r.recovered(1000) && !r.recovered(999));
        assert!(!r.may_enter(1000) && r.may_enter(1001));
    }

    /// Rate halving: one segment off every second ACK while above ssthresh,
    /// never more than pipe + 1.
    /// Linux 2.4.20 / 2.6.12 `tcp_cwnd_down`: the decrement goes on while cwnd >
    /// ssthresh/2; with the 2.6.20 floor of bic and cubic it stops at ssthresh.
    #[test]
    fn rate_halving_floor_is_half_ssthresh_or_ssthresh() {
        for (half, floor) in [(true, 5.0), (false, 10.0)] {
            let mut r = Recovery::new(RecoveryCwnd::RateHalving).with_half_floor(half);
            let mut win = w(14.0, 10.0);
            r.enter(&mut win, 1000, 100, true, true);
            for _ in 0..40 {
                r.on_ack(&mut win, 100, true, RecoveryAck { acked: 0, delivered: 1, dup: true, advanced: false, newly_lost: 0 });
            }
            assert_eq!(win.cwnd, floor, "half floor {half}");
            let mut cwr = w(14.0, 10.0);
            for _ in 0..40 {
                r.cwr_gradual_ack(&mut cwr);
            }
            assert_eq!(cwr.cwnd, floor, "gradual CWR, half floor {half}");
        }
    }

    #[test]
    fn rate_halving_drops_one_every_second_ack() {
        let mut r = Recovery::new(RecoveryCwnd::RateHalving);
        let mut win = w(20.0, 10.0);
        r.enter(&mut win, 1000, 19, true, true);
        assert_eq!(win.cwnd, 20.0);
        r.on_ack(&mut win, 30, true, RecoveryAck { acked: 0, delivered: 1, dup: true, advanced: false, newly_lost: 0 });
        assert_eq!(win.cwnd, 20.0);
        r.on_ack(&mut win, 30, true, RecoveryAck { acked: 0, delivered: 1, dup: true, advanced: false, newly_lost: 0 });
        assert_eq!(win.cwnd, 19.0);
        r.on_ack(&mut win, 5, true, RecoveryAck { acked: 0, delivered: 1, dup: true, advanced: false, newly_lost: 0 });
        assert_eq!(win.cwnd, 6.0);
        assert_eq!(r.exit_cwnd(&win, 5, true), 6.0);
    }

    /// RFC 6937 PRR: above ssthresh, sndcnt = ⌈prr_delivered·ssthresh/RecoverFS⌉ − prr_out;
    /// at or below it, SSRB grants at most ssthresh − pipe.
    #[test]
    fn prr_paces_the_reduction() {
        let mut r = Recovery::new(RecoveryCwnd::Prr);
        let mut win = w(20.0, 10.0);
        r.enter(&mut win, 1000, 20, true, true);
        // Two delivered, pipe 18 > 10: ⌈2·10/20⌉ − 0 = 1.
        r.on_ack(&mut win, 18, true, RecoveryAck { acked: 0, delivered: 2, dup: true, advanced: false, newly_lost: 0 });
        assert_eq!(win.cwnd, 19.0);
        r.on_sent_in_recovery();
        // Pipe 8 ≤ 10: min(10 − 8, max(4 − 1, 2) + 1) = 2.
        r.on_ack(&mut win, 8, true, RecoveryAck { acked: 0, delivered: 2, dup: true, advanced: false, newly_lost: 0 });
        assert_eq!(win.cwnd, 10.0);
        assert_eq!(r.exit_cwnd(&win, 8, true), 10.0);
    }

    /// PRR as Linux 6.8 `tcp_cwnd_reduction`: RecoverFS is the cwnd at entry
    /// (`prior_cwnd`), not the pipe; an ACK that delivers nothing leaves cwnd;
    /// the first ACK sends at least one segment; below ssthresh the "+1" comes
    /// only with a cumulative advance and no new loss.
    #[test]
    fn prr_linux_follows_tcp_cwnd_reduction() {
        let mut r = Recovery::new(RecoveryCwnd::PrrLinux);
        // cwnd 40 at entry, ssthresh 20 (cubic-like 0.5), pipe 30 after marking.
        let mut win = w(40.0, 20.0);
        r.enter(&mut win, 1000, 30, true, true);
        assert_eq!(win.cwnd, 40.0, "entry leaves cwnd");
        // Nothing delivered (a dupack with no new SACK): cwnd unchanged.
        r.on_ack(&mut win, 29, true, RecoveryAck { acked: 0, delivered: 0, dup: true, advanced: false, newly_lost: 1 });
        assert_eq!(win.cwnd, 40.0);
        // One delivered, pipe 29 > 20: ⌈1·20/40⌉ − 0 = 1 (with RecoverFS = pipe
        // 30 it would be ⌈20/30⌉ = 1 too); then three more: ⌈4·20/40⌉ − 1 = 1.
        r.on_ack(&mut win, 29, true, RecoveryAck { acked: 0, delivered: 1, dup: true, advanced: false, newly_lost: 0 });
        assert_eq!(win.cwnd, 30.0);
        r.on_sent_in_recovery();
        r.on_ack(&mut win, 27, true, RecoveryAck { acked: 0, delivered: 3, dup: true, advanced: false, newly_lost: 0 });
        assert_eq!(win.cwnd, 28.0, "RecoverFS = prior_cwnd 40: ⌈80/40⌉ − 1 = 1");
        // Below ssthresh: pipe 15, delta 5; prr_delivered 8 − prr_out 1 = 7 → min(5, 7) = 5.
        r.on_ack(&mut win, 15, true, RecoveryAck { acked: 4, delivered: 4, dup: false, advanced: true, newly_lost: 0 });
        assert_eq!(win.cwnd, 20.0);
        // Conservation: prr_out catches up to 12; 2 delivered with an advance and a new loss: no +1.
        for _ in 0..11 {
            r.on_sent_in_recovery();
        }
        r.on_ack(&mut win, 10, true, RecoveryAck { acked: 2, delivered: 2, dup: false, advanced: true, newly_lost: 1 });
        assert_eq!(win.cwnd, 12.0, "max(10 − 12, 2) = 2, no +1 with a new loss");
        r.on_ack(&mut win, 10, true, RecoveryAck { acked: 2, delivered: 2, dup: false, advanced: true, newly_lost: 0 });
        assert_eq!(win.cwnd, 13.0, "max(12 − 12, 2) + 1 = 3");
        assert_eq!(r.exit_cwnd(&win, 10, true), 20.0);
    }

    /// Linux forces a fast retransmit: the first delivering ACK gets one
    /// segment even when the proportional share rounds to nothing.
    #[test]
    fn prr_linux_forces_the_first_retransmission() {
        let mut r = Recovery::new(RecoveryCwnd::PrrLinux);
        let mut win = w(100.0, 10.0);
        r.enter(&mut win, 1000, 99, true, true);
        r.on_ack(&mut win, 99, true, RecoveryAck { acked: 0, delivered: 1, dup: true, advanced: false, newly_lost: 0 });
        // ⌈1·10/100⌉ = 1 anyway; after prr_out 1 another single delivery gives ⌈20/100⌉ − 1 = 0.
        assert_eq!(win.cwnd, 100.0);
        r.on_sent_in_recovery();
        r.on_ack(&mut win, 99, true, RecoveryAck { acked: 0, delivered: 1, dup: true, advanced: false, newly_lost: 0 });
        assert_eq!(win.cwnd, 99.0);
    }

    /// An algorithm with its own cong_control keeps cwnd; the recovery point is set anyway.
    #[test]
    fn cong_control_keeps_its_window() {
        let mut r = Recovery::new(RecoveryCwnd::Rfc);
        let mut win = w(20.0, 10.0);
        r.enter(&mut win, 500, 19, false, false);
        assert_eq!(win.cwnd, 20.0);
        assert!(r.recovered(500));
    }

    #[test]
    fn cwr_gradual_and_rto_bookkeeping() {
        let mut r = Recovery::new(RecoveryCwnd::Prr);
        r.enter_cwr(700);
        assert!(!r.cwr_done(699) && r.cwr_done(700));
        let mut win = w(12.0, 10.0);
        for _ in 0..6 {
            r.cwr_gradual_ack(&mut win);
        }
        assert_eq!(win.cwnd, 10.0);
        r.count_ack(false, true);
        r.count_ack(false, true);
        assert_eq!(r.dupacks, 2);
        r.on_rto(900);
        assert_eq!(r.dupacks, 0);
        assert!(r.recovered(900));
        r.count_ack(false, true);
        r.count_ack(true, false);
        assert_eq!(r.dupacks, 0);
    }
}
