//! Clustered Packet Spacing (spec 03 §2.5): the first slow-start rounds are
//! spread evenly over the RTT with a coarse kernel timer, then normal
//! ACK-clocked TCP takes over for good.
//!
//! Rounds: round 1 starts at establishment with w_1 = the initial window;
//! round n+1 starts at the first ACK covering data sent in round n, with
//! w_{n+1} = min(2·w_n, ssthresh, rwnd). Interval I_n = RTT / w_n (RTT = srtt
//! at the round's start). While I_n > T every segment goes at
//! max(now, last_tx + I_n), deferred to the first timer tick k·T at or after
//! it (rule 1); the first round with I_n ≤ T ends spacing (rule 2). Sans-IO:
//! the socket asks `release_at` before each segment and reports sends and ACKs.

use crate::engine::time::{SimTime, Span};

#[derive(Clone, Debug, PartialEq)]
pub struct Cps {
    /// Timer granularity T; ticks fall at k·T from time zero (phase 0, CHOICE).
    tick: Span,
    active: bool,
    started: bool,
    /// Current round n (1-based) and its window w_n in segments.
    round: u32,
    window_segments: f64,
    interval: Span,
    /// snd_max when the round started: an ACK above it covers this round's data.
    round_start_seq: u64,
    last_tx: Option<SimTime>,
    /// When spacing ended (hand-over to normal TCP), and how many rounds were spaced.
    pub handover_at: Option<SimTime>,
    pub spaced_rounds: u32,
}

impl Cps {
    pub fn new(tick: Span) -> Cps {
        assert!(tick > Span::ZERO, "cps_t must be positive");
        Cps {
            tick,
            active: false,
            started: false,
            round: 0,
            window_segments: 0.0,
            interval: Span::ZERO,
            round_start_seq: 0,
            last_tx: None,
            handover_at: None,
            spaced_rounds: 0,
        }
    }

    pub fn is_active(&self) -> bool {
        self.active
    }

    /// The interval of the current round (zero once spacing has ended).
    pub fn interval(&self) -> Span {
        if self.active { self.interval } else { Span::ZERO }
    }

    pub fn round(&self) -> u32 {
        self.round
    }

    /// Round 1 at establishment: `rtt` is the handshake RTT, `iw` the initial window.
    pub fn start(&mut self, now: SimTime, rtt: Span, iw_segments: u32, snd_max: u64) {
        if self.started {
            return;
        }
        self.started = true;
        self.active = true;
        self.round = 0;
        self.next_round(now, rtt, iw_segments as f64, snd_max);
    }

    fn next_round(&mut self, now: SimTime, rtt: Span, window_segments: f64, snd_max: u64) {
        self.round += 1;
        self.window_segments = window_segments.max(1.0);
        self.interval = Span((rtt.ps() as f64 / self.window_segments).round() as u64);
        self.round_start_seq = snd_max;
        if self.interval <= self.tick {
            // Rule (2), boundary I_n = T included (spec 03 open point 3).
            self.end(now);
        } else {
            self.spaced_rounds = self.round;
        }
    }

    /// An ACK for `ack` arrived; `cap_segments` = min(ssthresh, rwnd/MSS).
    pub fn on_ack(&mut self, now: SimTime, ack: u64, snd_max: u64, srtt: Span, cap_segments: f64) {
        if self.active && ack > self.round_start_seq {
            let w = (2.0 * self.window_segments).min(cap_segments);
            self.next_round(now, srtt, w, snd_max);
        }
    }

    /// Loss, a timeout or leaving slow start ends spacing at once (spec 03 §2.5 scope, CHOICE).
    pub fn end(&mut self, now: SimTime) {
        if self.active {
            self.active = false;
            self.handover_at = Some(now);
        }
    }

    /// When the next segment may leave: `now` unless spacing defers it to a tick.
    pub fn release_at(&self, now: SimTime) -> SimTime {
        let Some(last) = self.last_tx.filter(|_| self.active) else { return now };
        let want = last + self.interval;
        if want <= now {
            return now;
        }
        let t = self.tick.ps();
        SimTime(want.ps().div_ceil(t) * t)
    }

    pub fn on_sent(&mut self, now: SimTime) {
        self.last_tx = Some(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::ZERO + Span::from_ms(x)
    }

    #[test]
    fn intervals_halve_each_round_at_200ms() {
        // spec 03 §2.5 example: iw 2, RTT 200 ms → 100, 50, 25 ms.
        let rtt = Span::from_ms(200);
        let mut c = Cps::new(Span::from_ms(10));
        c.start(ms(0), rtt, 2, 0);
        assert_eq!(c.interval(), Span::from_ms(100));
        c.on_ack(ms(200), 1448, 2896, rtt, f64::INFINITY);
        assert_eq!((c.round(), c.interval()), (2, Span::from_ms(50)));
        c.on_ack(ms(400), 2897, 8688, rtt, f64::INFINITY);
        assert_eq!((c.round(), c.interval()), (3, Span::from_ms(25)));
        // An ACK inside the same round does not start a new one.
        c.on_ack(ms(401), 4000, 8688, rtt, f64::INFINITY);
        assert_eq!(c.round(), 3);
    }

    #[test]
    fn hand_over_at_the_first_round_with_interval_at_most_t() {
        // T = 10 ms, RTT 200 ms: 100, 50, 25, 12.5 ms spaced; 6.25 ms ends spacing in round 5.
        let rtt = Span::from_ms(200);
        let mut c = Cps::new(Span::from_ms(10));
        c.start(ms(0), rtt, 2, 0);
        let mut seq = 0;
        for round in 2..=5 {
            assert!(c.is_active());
            seq += 1000;
            c.on_ack(ms(200 * round), seq, seq + 10, rtt, f64::INFINITY);
        }
        assert!(!c.is_active());
        assert_eq!(c.spaced_rounds, 4);
        assert_eq!(c.handover_at, Some(ms(1000)));
        // Boundary: I = T exactly ends spacing (RTT 20 ms, w 2 → 10 ms).
        let mut c = Cps::new(Span::from_ms(10));
        c.start(ms(0), Span::from_ms(20), 2, 0);
        assert!(!c.is_active());
        assert_eq!(c.spaced_rounds, 0);
    }

    #[test]
    fn deferred_sends_fire_on_timer_ticks() {
        let mut c = Cps::new(Span::from_ms(10));
        c.start(ms(0), Span::from_ms(200), 4, 0); // I = 50 ms
        assert_eq!(c.release_at(ms(3)), ms(3));
        c.on_sent(ms(3));
        // Wanted 53 ms → the 60 ms tick.
        assert_eq!(c.release_at(ms(4)), ms(60));
        c.on_sent(ms(60));
        // Exactly on a tick stays there.
        assert_eq!(c.release_at(ms(61)), ms(110));
        // Late enough: at once.
        assert_eq!(c.release_at(ms(200)), ms(200));
    }

    #[test]
    fn window_is_capped_by_ssthresh_and_rwnd() {
        let mut c = Cps::new(Span::from_ms(1));
        c.start(ms(0), Span::from_ms(200), 2, 0);
        c.on_ack(ms(200), 1, 10, Span::from_ms(200), 3.0);
        assert_eq!(c.interval(), Span((200e9 / 3.0_f64).round() as u64));
    }

    #[test]
    fn end_stops_spacing_for_good() {
        let mut c = Cps::new(Span::from_ms(10));
        c.start(ms(0), Span::from_ms(200), 2, 0);
        c.on_sent(ms(0));
        c.end(ms(5));
        assert_eq!(c.release_at(ms(6)), ms(6));
        c.on_ack(ms(300), 5000, 6000, Span::from_ms(200), f64::INFINITY);
        assert!(!c.is_active());
        assert_eq!(c.handover_at, Some(ms(5)));
    }
}
