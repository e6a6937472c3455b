//! Socket-buffer autotuning per Linux era (issue 38 item 4,
//! docs/profiles-from-source.md). Sans-IO arithmetic: the receiver and the
//! sender call it with their state and apply what it returns.
//!
//! A buffer the scenario sets (`sndbuf`, `rcvbuf`) is locked, as
//! `setsockopt(SO_SNDBUF / SO_RCVBUF)` locks it in Linux (`SOCK_SNDBUF_LOCK`,
//! `SOCK_RCVBUF_LOCK`): it stays as given. An unset buffer starts at the
//! profile's `tcp_rmem[1]` / `tcp_wmem[1]` (`rmem_default`, `wmem_default`)
//! and grows up to the resolved `rcvbuf` / `sndbuf`, which then play the part
//! of `tcp_rmem[2]` / `tcp_wmem[2]`.
//!
//! Receive side, [`RcvSpace`] (dynamic right-sizing, Linux
//! `tcp_rcv_space_adjust`; `rcv_autotune`):
//! - `off` (2.4.20: no such function): the buffer stays at `rmem_default`.
//! - `linux2` (2.6.12/2.6.20 `net/ipv4/tcp_input.c` l.438–490): once per
//!   receiver RTT, space = max(space, 2·copied); if it grew, rcvbuf =
//!   min(max(1, space/advmss)·rcvmem, rmem_max) and, if that is larger than
//!   the buffer, the buffer takes it and window_clamp = space.
//! - `linux6` (6.8 l.728–784): once per receiver RTT, if copied > space:
//!   rcvwin = 2·copied + 16·advmss, plus 2·rcvwin·(copied − space)/space;
//!   rcvbuf = min(rcvwin/φ, rmem_max) (`tcp_space_from_win`); if larger, the
//!   buffer takes it and window_clamp = φ·rcvbuf; space = copied.
//!
//! The receiver's RTT (`tcp_rcv_rtt_update`): with timestamps an EWMA of gain
//! 1/8 over now − TSecr of in-order full segments (`tcp_rcv_rtt_measure_ts`);
//! without, one sample per window of data (`tcp_rcv_rtt_measure`), which
//! replaces the estimate when lower (6.8: `m <<= 3; if (m < rtt) rtt = m`;
//! 2.6 compares the unscaled sample with the scaled estimate, so a sample
//! below 8× the estimate replaces it, which is what `linux2` does here).
//!
//! CHOICE (the sources leave them to the machine): rcvmem, the buffer a
//! full segment costs, is the receiver's charge of one (its truesize model),
//! raised as `tcp_fixup_rcvbuf` does in 128-byte steps until φ·rcvmem ≥
//! advmss; the application reads at once (DRS runs on each in-order
//! delivery, as `tcp_rcv_space_adjust` runs on each copy to user).
//!
//! Send side, [`sndbuf_target`] (`snd_autotune`): while the writer is blocked
//! on a full buffer and the flight is below cwnd, an ACK that frees data
//! raises B_snd to
//! - `linux2` (2.4.20 `tcp_new_space` l.2951, 2.6.20 l.3600): 2·max(cwnd,
//!   reordering + 1) segments;
//! - `linux6` (6.8 `tcp_sndbuf_expand` l.415): 2·max(10, cwnd, reordering +
//!   1)·per_mss bytes, where per_mss is the power of two above a segment's
//!   skb (4096 for a 1500-byte MTU) plus the `sk_buff` (256): 4352 bytes of
//!   payload room per segment (CHOICE: the x86-64 distribution build the
//!   research note derives; the factor is 3 for BBR, `bbr_sndbuf_expand`).
//!
//! B_snd counts payload (spec 06 §2.3 sender rule 1), so `linux2`'s 2·N
//! segments of sndmem each are 2·N·MSS of payload (its skbs cost about
//! sndmem each), and `linux6` (64 KiB GSO skbs: payload ≈ truesize) leaves
//! 2·N·per_mss bytes.

pub use super::config::{RcvAutotune, SndAutotune};
use crate::engine::time::{SimTime, Span};

/// Linux `TCP_INIT_CWND` (6.8 `tcp_sndbuf_expand`'s floor, `rcvq_space` start).
pub const TCP_INIT_CWND: u64 = 10;
/// Payload room per segment of a 6.8 send buffer: roundup_pow_of_two(1500-byte
/// segment + MAX_TCP_HEADER + shared info) + sizeof(sk_buff) (CHOICE, x86-64).
pub const LINUX6_PER_MSS_BYTES: u64 = 4352;
/// Reordering degree Linux starts with (`sysctl_tcp_reordering` = 3).
pub const REORDERING: u64 = 3;

/// B_snd an ACK may raise the buffer to (before `wmem_max`), bytes; `factor`
/// is 2 (3 for BBR under `linux6`).
pub fn sndbuf_target(rule: SndAutotune, cwnd_segments: f64, mss: u32, factor: u64) -> u64 {
    let cwnd = cwnd_segments.max(0.0) as u64;
    match rule {
        SndAutotune::Off => 0,
        SndAutotune::Linux2 => 2 * cwnd.max(REORDERING + 1) * mss as u64,
        SndAutotune::Linux6 => factor * cwnd.max(REORDERING + 1).max(TCP_INIT_CWND) * LINUX6_PER_MSS_BYTES,
    }
}

/// Dynamic right-sizing state of one receiver (Linux `rcvq_space`, `rcv_rtt_est`).
#[derive(Clone, Debug)]
pub struct RcvSpace {
    rule: RcvAutotune,
    rmem_max: u64,
    /// `rcvq_space.space`, bytes.
    space: u64,
    /// `rcvq_space.seq`: bytes read when the measurement began.
    seq: u64,
    /// `rcvq_space.time`; None before establishment.
    time: Option<SimTime>,
    /// `rcv_rtt_est.rtt` (unscaled); None before the first sample.
    pub rtt: Option<Span>,
    /// Without timestamps: the window being timed (`rcv_rtt_est.seq`, `.time`).
    win_seq: u64,
    win_time: Option<SimTime>,
    /// `window_clamp`: the largest window the receiver will offer, bytes.
    pub window_clamp: u64,
}

impl RcvSpace {
    pub fn new(rule: RcvAutotune, rmem_max: u64) -> RcvSpace {
        RcvSpace { rule, rmem_max, space: 0, seq: 0, time: None, rtt: None, win_seq: 0, win_time: None, window_clamp: u64::MAX }
    }

    /// The connection is established (`tcp_init_buffer_space`): window_clamp =
    /// the full space less one segment ("Force reservation of one segment"),
    /// and the first measurement starts with space = the initial window
    /// (2.6: `rcv_wnd`; 6.8: min(rcv_ssthresh, rcv_wnd, 10·advmss)).
    pub fn establish(&mut self, now: SimTime, full_space: u64, initial_window: u64, advmss: u64, bytes_read: u64) {
        let clamp = if full_space > 2 * advmss { full_space - advmss } else { full_space };
        self.window_clamp = clamp.max(2 * advmss);
        self.space = match self.rule {
            RcvAutotune::Linux6 => initial_window.min(self.window_clamp).min(TCP_INIT_CWND * advmss),
            _ => initial_window,
        };
        self.seq = bytes_read;
        self.time = Some(now);
    }

    /// A timestamp sample now − TSecr of an in-order full segment
    /// (`tcp_rcv_rtt_measure_ts`): EWMA with gain 1/8.
    pub fn rtt_sample_ts(&mut self, m: Span) {
        let m = m.max(Span(1));
        self.rtt = Some(match self.rtt {
            None => m,
            Some(r) => Span((r.0 as i128 + (m.0 as i128 - r.0 as i128) / 8) as u64),
        });
    }

    /// Without timestamps, time one window of data (`tcp_rcv_rtt_measure`):
    /// the sample is the time from when the window's right edge was set
    /// until rcv_nxt reached it.
    pub fn rtt_measure_window(&mut self, now: SimTime, rcv_nxt: u64, rcv_wnd: u64) {
        if let Some(t) = self.win_time {
            if rcv_nxt < self.win_seq {
                return;
            }
            let m = now.since(t).max(Span(1));
            self.rtt = Some(match (self.rule, self.rtt) {
                (_, None) => m,
                // 2.6.20 l.396: `else if (m < rtt) rtt = m << 3` with rtt scaled by 8.
                (RcvAutotune::Linux2, Some(r)) if m.0 < r.0.saturating_mul(8) => m,
                (RcvAutotune::Linux2, Some(r)) => r,
                (_, Some(r)) => r.min(m),
            });
        }
        self.win_seq = rcv_nxt + rcv_wnd;
        self.win_time = Some(now);
    }

    /// DRS after the application read up to `bytes_read` (Linux
    /// `tcp_rcv_space_adjust`). `charge` is what a full segment costs the
    /// buffer (raised to [`rcvmem`] here, once per round trip, not per
    /// segment), `phi` the window fraction; raises `b_rcv` in place. Returns
    /// whether it grew.
    pub fn adjust(&mut self, now: SimTime, bytes_read: u64, advmss: u64, charge: u64, phi: f64, b_rcv: &mut u64) -> bool {
        let Some(t) = self.time else { return false };
        let Some(rtt) = self.rtt else { return false };
        if now.since(t) < rtt {
            return false;
        }
        let rcvmem = rcvmem(charge, advmss, phi);
        let copied = bytes_read - self.seq;
        let mut grew = false;
        match self.rule {
            RcvAutotune::Off => {}
            RcvAutotune::Linux2 => {
                let space = self.space.max(2 * copied);
                if space != self.space {
                    self.space = space;
                    let rcvbuf = ((space / advmss.max(1)).max(1) * rcvmem).min(self.rmem_max);
                    if rcvbuf > *b_rcv {
                        *b_rcv = rcvbuf;
                        self.window_clamp = space;
                        grew = true;
                    }
                }
            }
            RcvAutotune::Linux6 => {
                if copied > self.space {
                    let space = self.space.max(1);
                    let mut rcvwin = 2 * copied + 16 * advmss;
                    rcvwin += 2 * (rcvwin as u128 * (copied - space) as u128 / space as u128) as u64;
                    let rcvbuf = ((rcvwin as f64 / phi) as u64).min(self.rmem_max);
                    if rcvbuf > *b_rcv {
                        *b_rcv = rcvbuf;
                        self.window_clamp = (rcvbuf as f64 * phi) as u64;
                        grew = true;
                    }
                    self.space = copied;
                }
            }
        }
        self.seq = bytes_read;
        self.time = Some(now);
        grew
    }
}

/// A full segment's buffer cost raised in 128-byte steps until its window
/// share covers a segment (2.6.20 `tcp_fixup_rcvbuf`, `tcp_rcv_space_adjust`:
/// `while (tcp_win_from_space(rcvmem) < tp->advmss) rcvmem += 128;`).
pub fn rcvmem(charge: u64, advmss: u64, phi: f64) -> u64 {
    let mut m = charge.max(1);
    while (m as f64 * phi) < advmss as f64 {
        m += 128;
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;


    fn t(ms: u64) -> SimTime {
        SimTime(Span::from_ms(ms).0)
    }

    /// 2.6.20 `tcp_rcv_space_adjust`: once per receiver RTT the buffer takes
    /// (2·copied / advmss)·rcvmem, up to rmem_max; window_clamp = 2·copied.
    #[test]
    fn linux2_doubles_what_was_read_per_rtt_up_to_the_limit() {
        let mut s = RcvSpace::new(RcvAutotune::Linux2, 1 << 20);
        s.establish(t(0), 65535, 5792, 1448, 0);
        s.rtt_sample_ts(Span::from_ms(100));
        let mut b = 87380u64;
        // Before an RTT has passed, nothing.
        assert!(!s.adjust(t(50), 100_000, 1448, 2048, 0.75, &mut b));
        // 100 000 bytes read in the first 100 ms: space 200 000 → 138 segments · 2048.
        assert!(s.adjust(t(100), 100_000, 1448, 2048, 0.75, &mut b));
        assert_eq!(b, 200_000 / 1448 * 2048);
        assert_eq!(s.window_clamp, 200_000);
        // A slower round never shrinks it.
        assert!(!s.adjust(t(200), 150_000, 1448, 2048, 0.75, &mut b));
        assert_eq!(b, 200_000 / 1448 * 2048);
        // Growth stops at rmem_max.
        assert!(s.adjust(t(300), 1_150_000, 1448, 2048, 0.75, &mut b));
        assert_eq!(b, 1 << 20);
    }

    /// 6.8 `tcp_rcv_space_adjust`: rcvwin = 2·copied + 16·advmss + 2·grow.
    #[test]
    fn linux6_sizes_the_window_from_the_growth_of_what_was_read() {
        let mut s = RcvSpace::new(RcvAutotune::Linux6, 6 << 20);
        s.establish(t(0), 65536, 65160, 1448, 0);
        assert_eq!(s.space, 14480, "min(rcv_ssthresh, rcv_wnd, 10·advmss)");
        s.rtt_sample_ts(Span::from_ms(100));
        let mut b = 131072u64;
        assert!(s.adjust(t(100), 28960, 1448, 2048, 0.5, &mut b));
        // copied 28960 = 2·space: rcvwin = 57920 + 23168 = 81088, grow = 81088, total 243264.
        assert_eq!(b, (243_264.0 / 0.5) as u64);
        assert_eq!(s.window_clamp, 243_264);
        assert_eq!(s.space, 28960);
        // Reading no more than last time changes nothing.
        assert!(!s.adjust(t(200), 28960 + 20000, 1448, 2048, 0.5, &mut b));
    }

    #[test]
    fn rtt_estimates() {
        let mut s = RcvSpace::new(RcvAutotune::Linux6, 1 << 20);
        s.rtt_sample_ts(Span::from_ms(80));
        s.rtt_sample_ts(Span::from_ms(160));
        assert_eq!(s.rtt, Some(Span::from_ms(90)), "gain 1/8");
        // Without timestamps: the lower window sample wins (6.8).
        let mut s = RcvSpace::new(RcvAutotune::Linux6, 1 << 20);
        s.rtt_measure_window(t(0), 0, 10_000);
        s.rtt_measure_window(t(5), 5_000, 10_000);
        assert_eq!(s.rtt, None, "the window is not through yet");
        s.rtt_measure_window(t(120), 10_000, 10_000);
        assert_eq!(s.rtt, Some(Span::from_ms(120)));
        s.rtt_measure_window(t(220), 20_000, 10_000);
        assert_eq!(s.rtt, Some(Span::from_ms(100)));
        s.rtt_measure_window(t(400), 30_000, 10_000);
        assert_eq!(s.rtt, Some(Span::from_ms(100)));
    }

    /// 2.4.20/2.6 `tcp_new_space`: 2·max(cwnd, 4) segments; 6.8
    /// `tcp_sndbuf_expand`: 2·max(10, cwnd, 4)·4352 bytes.
    #[test]
    fn send_buffer_targets() {
        assert_eq!(sndbuf_target(SndAutotune::Linux2, 100.0, 1448, 2), 200 * 1448);
        assert_eq!(sndbuf_target(SndAutotune::Linux2, 2.0, 1448, 2), 8 * 1448);
        assert_eq!(sndbuf_target(SndAutotune::Linux6, 3.0, 1448, 2), 2 * 10 * 4352);
        assert_eq!(sndbuf_target(SndAutotune::Linux6, 100.0, 1448, 3), 3 * 100 * 4352);
        assert_eq!(sndbuf_target(SndAutotune::Off, 100.0, 1448, 2), 0);
    }

    #[test]
    fn rcvmem_covers_a_segment() {
        assert_eq!(rcvmem(1700, 1448, 0.75), 1956, "1700 → 1956: 0.75·1956 = 1467 ≥ 1448");
        assert_eq!(rcvmem(4000, 1448, 0.5), 4000);
    }
}
