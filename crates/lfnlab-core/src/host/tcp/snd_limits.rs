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

/// Time spent under each limit.
#[derive(Clone, Debug)]
pub struct SndLimits {
    /// The limit in force.
    pub current: SndLim,
    since: SimTime,
    /// Time under each limit before `since`.
    time: [Span; 5],
}

impl Default for SndLimits {
    fn default() -> SndLimits {
        SndLimits { current: SndLim::Application, since: SimTime::ZERO, time: [Span::ZERO; 5] }
    }
}

impl SndLimits {
    /// Accounting starts at `now` (the connection is established).
    pub fn start(&mut self, now: SimTime) {
        self.since = now;
    }

    /// The limit is `lim` from `now` on.
    pub fn set(&mut self, now: SimTime, lim: SndLim) {
        if lim != self.current {
            self.time[self.current as usize] = self.time[self.current as usize] + now.since(self.since);
            self.since = now;
            self.current = lim;
        }
    }

    /// Time spent under each limit up to `now`.
    pub fn time_at(&self, now: SimTime) -> [Span; 5] {
        let mut t = self.time;
        t[self.current as usize] = t[self.current as usize] + now.since(self.since);
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
        l.set(ms(30), SndLim::Cwnd);
        l.set(ms(30), SndLim::Cwnd);
        l.set(ms(100), SndLim::Rwnd);
        let t = l.time_at(ms(150));
        assert_eq!(t[SndLim::Application as usize], Span::from_ms(20));
        assert_eq!(t[SndLim::Cwnd as usize], Span::from_ms(70));
        assert_eq!(t[SndLim::Rwnd as usize], Span::from_ms(50));
        assert_eq!(l.current.name(), "rwnd");
    }
}
