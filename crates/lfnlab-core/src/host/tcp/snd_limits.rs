//! What limits a sender, and for how long (spec 06 §6 `snd_lim` and
//! `lim_*_s`; the split of Linux's `tcp_chrono` statistics, `tcpi_busy_time`,
//! `tcpi_rwnd_limited`, `tcpi_sndbuf_limited`).

use crate::engine::time::{SimTime, Span};

/// What limits sending right now (spec 06 §6 `snd_lim`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SndLim {
    Cwnd = 0,
    Rwnd = 1,
    Application = 2,
    Stall = 3,
    Pacing = 4,
}

impl SndLim {
    pub fn name(self) -> &'static str {
        ["cwnd", "rwnd", "application", "stall", "pacing"][self as usize]
    }
}

/// The finer split `lfnlab explain` reports (issue 40): a cwnd limit by the
/// phase the sender is in, and an application limit split into a full send
/// buffer (Linux `TCP_CHRONO_SNDBUF_LIMITED`: the writer waits for room) and an
/// application with nothing to write (`TCP_CHRONO_BUSY` ends).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LimDetail {
    /// cwnd, in slow start (cwnd below ssthresh, no loss pending).
    SlowStart = 0,
    /// cwnd, while recovering: Recovery, Loss (after an RTO) or CWR.
    Recovery = 1,
    /// cwnd, in congestion avoidance.
    CongestionAvoidance = 2,
    Rwnd = 3,
    /// The application waits for room in a full send buffer.
    Sndbuf = 4,
    /// The application has nothing more to write (yet).
    Application = 5,
    Pacing = 6,
    /// The host's queue or TSQ holds the packet (spec 06 §2.8).
    Stall = 7,
}

impl LimDetail {
    /// Names as `summary.json` `limited_s` keys, in index order.
    pub const NAMES: [&'static str; 8] =
        ["slow_start", "recovery", "congestion_avoidance", "rwnd", "sndbuf", "application", "pacing", "stall"];
}

/// Time spent under each limit.
#[derive(Clone, Debug)]
pub struct SndLimits {
    /// The limit in force.
    pub current: SndLim,
    detail: LimDetail,
    since: SimTime,
    /// Time under each limit before `since`.
    time: [Span; 5],
    /// The same time by [`LimDetail`], before `detail_since`. Kept apart from
    /// `since` so that the five-way split (the trace's `lim_*_s`) moves only
    /// when the limit does: a socket may account at a time ahead of a trace
    /// sample (a host's CPU or bus model), and the split must not depend on
    /// when the finer detail changed.
    detail_since: SimTime,
    detail_time: [Span; 8],
}

impl Default for SndLimits {
    fn default() -> SndLimits {
        SndLimits {
            current: SndLim::Application,
            detail: LimDetail::Application,
            since: SimTime::ZERO,
            time: [Span::ZERO; 5],
            detail_since: SimTime::ZERO,
            detail_time: [Span::ZERO; 8],
        }
    }
}

impl SndLimits {
    /// Accounting starts at `now` (the connection is established).
    pub fn start(&mut self, now: SimTime) {
        self.since = now;
        self.detail_since = now;
    }

    /// The limit is `lim` (finer: `detail`) from `now` on.
    pub fn set(&mut self, now: SimTime, lim: SndLim, detail: LimDetail) {
        debug_assert!(Self::consistent(lim, detail), "{lim:?} with {detail:?}");
        if lim != self.current {
            self.time[self.current as usize] = self.time[self.current as usize] + now.since(self.since);
            self.since = now;
            self.current = lim;
        }
        if detail != self.detail {
            self.detail_time[self.detail as usize] = self.detail_time[self.detail as usize] + now.since(self.detail_since);
            self.detail_since = now;
            self.detail = detail;
        }
    }

    /// Each detail refines exactly one limit.
    fn consistent(lim: SndLim, detail: LimDetail) -> bool {
        use LimDetail as D;
        match lim {
            SndLim::Cwnd => matches!(detail, D::SlowStart | D::Recovery | D::CongestionAvoidance),
            SndLim::Rwnd => detail == D::Rwnd,
            SndLim::Application => matches!(detail, D::Sndbuf | D::Application),
            SndLim::Stall => detail == D::Stall,
            SndLim::Pacing => detail == D::Pacing,
        }
    }

    /// Time spent under each limit up to `now`.
    pub fn time_at(&self, now: SimTime) -> [Span; 5] {
        let mut t = self.time;
        t[self.current as usize] = t[self.current as usize] + now.since(self.since);
        t
    }

    /// Time spent under each [`LimDetail`] up to `now`; sums to the same total as [`time_at`](Self::time_at).
    pub fn detail_time_at(&self, now: SimTime) -> [Span; 8] {
        let mut t = self.detail_time;
        t[self.detail as usize] = t[self.detail as usize] + now.since(self.detail_since);
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_accrues_to_the_limit_in_force() {
        let ms = |m| SimTime::ZERO + Span::from_ms(m);
        let mut l = SndLimits::default();
        l.start(ms(10));
        l.set(ms(30), SndLim::Cwnd, LimDetail::SlowStart);
        l.set(ms(30), SndLim::Cwnd, LimDetail::SlowStart);
        l.set(ms(60), SndLim::Cwnd, LimDetail::Recovery);
        l.set(ms(100), SndLim::Rwnd, LimDetail::Rwnd);
        l.set(ms(120), SndLim::Application, LimDetail::Sndbuf);
        let t = l.time_at(ms(150));
        assert_eq!(t[SndLim::Application as usize], Span::from_ms(20 + 30));
        assert_eq!(t[SndLim::Cwnd as usize], Span::from_ms(70));
        assert_eq!(t[SndLim::Rwnd as usize], Span::from_ms(20));
        assert_eq!(l.current.name(), "application");
        let d = l.detail_time_at(ms(150));
        assert_eq!(d[LimDetail::Application as usize], Span::from_ms(20));
        assert_eq!(d[LimDetail::SlowStart as usize], Span::from_ms(30));
        assert_eq!(d[LimDetail::Recovery as usize], Span::from_ms(40));
        assert_eq!(d[LimDetail::Sndbuf as usize], Span::from_ms(30));
        let total = |v: &[Span]| v.iter().fold(Span::ZERO, |a, &b| a + b);
        assert_eq!(total(&t), total(&d), "both splits cover the same time");
    }
}
