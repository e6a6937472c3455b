//! HyStart: leave slow start before the first loss (spec 06 §4.4, CUBIC
//! "HyStart (option)"; Ha & Rhee 2011, as in Linux `tcp_cubic.c`).
//!
//! A reusable building block: the owner decides when it applies (in slow
//! start, w ≥ [`LOW_WINDOW`]), feeds it every ACK's RTT sample and every round
//! start, and sets ssthresh ← w when it reports an exit. It fires at most once
//! until the owner re-arms it ([`HyStart::rearm`]: Linux 6.8 `cubictcp_state`
//! clears `found` on entering Loss).
//!
//! The rules of Linux 6.8 `net/ipv4/tcp_cubic.c` `hystart_update` (issue 38
//! checked them against the source; where spec 06 §4.4 words them otherwise,
//! the source is followed and docs/profiles-from-source.md says so):
//! - ACK train: an ACK at most [`ACK_DELTA`] after the previous one of the
//!   train extends it; exit once the train spans more than the threshold of
//!   [`train_threshold`]: (min_rtt + the ACK-delay allowance)/2, or the full
//!   sum for a paced sender.
//! - Delay: curr_rtt = the running minimum of the round's samples; the first
//!   [`MIN_SAMPLES`] only fill it, and from the next one on each sample is
//!   judged: exit if curr_rtt > min_rtt + clamp(min_rtt/8, 4 ms, 16 ms).

use crate::engine::time::{SimTime, Span};

/// HyStart applies only while cwnd ≥ 16 segments (spec 06 §4.4).
pub const LOW_WINDOW: f64 = 16.0;
/// Largest gap between two ACKs of one train (spec 06 §4.4: 2 ms).
pub const ACK_DELTA: Span = Span::from_ms(2);
/// Samples per round that only fill curr_rtt before it is judged (Linux
/// `HYSTART_MIN_SAMPLES`).
pub const MIN_SAMPLES: u32 = 8;
/// Largest ACK-delay allowance (Linux `hystart_ack_delay`: `USEC_PER_MSEC`).
pub const ACK_DELAY_MAX: Span = Span::from_ms(1);
/// Bytes of four GSO packets of the largest size (Linux `hystart_ack_delay`:
/// `sk_gso_max_size * 4`, with `GSO_LEGACY_MAX_SIZE` 65536).
pub const ACK_DELAY_BYTES: f64 = 4.0 * 65536.0;
/// Bounds of the delay threshold min_rtt/8 (spec 06 §4.4: 4 ms, 16 ms).
pub const DELAY_THRESH_MIN: Span = Span::from_ms(4);
pub const DELAY_THRESH_MAX: Span = Span::from_ms(16);

/// Which detector ended slow start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HyStartExit {
    AckTrain,
    Delay,
}

/// Per-connection HyStart state.
#[derive(Clone, Debug)]
pub struct HyStart {
    /// Set once a detector fired; HyStart never runs again on this connection.
    found: Option<HyStartExit>,
    /// When the current round began.
    round_start: SimTime,
    /// Last ACK of the current train.
    last_ack: SimTime,
    /// Minimum of the round's first `MIN_SAMPLES` samples (None = ∞).
    curr_rtt: Option<Span>,
    /// Samples counted into `curr_rtt` this round.
    samples: u32,
}

impl HyStart {
    pub fn new(now: SimTime) -> HyStart {
        let mut h = HyStart { found: None, round_start: now, last_ack: now, curr_rtt: None, samples: 0 };
        h.on_round_start(now);
        h
    }

    /// Run again (Linux 6.8 `cubictcp_state` on TCP_CA_Loss: `bictcp_reset`
    /// clears `found`, `bictcp_hystart_reset` opens a round).
    pub fn rearm(&mut self, now: SimTime) {
        self.found = None;
        self.on_round_start(now);
    }

    /// The detector that fired, if any.
    pub fn found(&self) -> Option<HyStartExit> {
        self.found
    }

    /// A new round opens: round_start = last_ack = now, curr_rtt = ∞.
    pub fn on_round_start(&mut self, now: SimTime) {
        self.round_start = now;
        self.last_ack = now;
        self.curr_rtt = None;
        self.samples = 0;
    }

    /// One ACK with RTT sample `rtt` while the owner is in slow start with
    /// w ≥ `LOW_WINDOW`. Returns the detector that fires on this ACK; the
    /// owner then sets ssthresh ← w.
    pub fn on_ack(&mut self, now: SimTime, rtt: Span, min_rtt: Span) -> Option<HyStartExit> {
        self.on_ack_with_train(now, rtt, min_rtt, Span(min_rtt.ps() / 2))
    }

    /// As `on_ack`, with the ACK-train length that ends slow start given
    /// (see [`train_threshold`]).
    pub fn on_ack_with_train(&mut self, now: SimTime, rtt: Span, min_rtt: Span, train: Span) -> Option<HyStartExit> {
        if self.found.is_some() {
            return None;
        }
        // ACK train: only consecutive ACKs ≤ 2 ms apart extend it.
        if now.since(self.last_ack) <= ACK_DELTA {
            self.last_ack = now;
            if now.since(self.round_start) > train {
                self.found = Some(HyStartExit::AckTrain);
                return self.found;
            }
        }
        // Delay increase: the round's first 8 samples fill curr_rtt, every
        // later one is judged against the running minimum (hystart_update).
        let curr = self.curr_rtt.map_or(rtt, |c| c.min(rtt));
        self.curr_rtt = Some(curr);
        if self.samples < MIN_SAMPLES {
            self.samples += 1;
        } else if curr > min_rtt + delay_thresh(min_rtt) {
            self.found = Some(HyStartExit::Delay);
            return self.found;
        }
        None
    }
}

/// ACK-train length that ends slow start: (min_rtt + ack_delay)/2, or with
/// `pacing_aware` and a paced sender the full min_rtt + ack_delay (Linux ≥
/// 5.7 `hystart_update`: "threshold = ca->delay_min + hystart_ack_delay(sk)",
/// halved when `sk_pacing_status == SK_PACING_NONE`; a sender paced at 2× in
/// slow start spreads a round's ACKs over half an RTT by itself, so a
/// min_rtt/2 train would fire at once). Spec 06 §4.4 gives min_rtt/2.
pub fn train_threshold(min_rtt: Span, ack_delay: Span, paced: bool, pacing_aware: bool) -> Span {
    let t = min_rtt + ack_delay;
    if paced && pacing_aware { t } else { Span(t.ps() / 2) }
}

/// The ACK-delay allowance of the train (Linux 6.8 `hystart_ack_delay`):
/// min(1 ms, 4 · 64 KiB / sk_pacing_rate), 0 while the rate is unknown.
pub fn ack_delay(pacing_rate_bytes_per_s: f64) -> Span {
    if pacing_rate_bytes_per_s <= 0.0 {
        return Span::ZERO;
    }
    Span::from_secs_f64(ACK_DELAY_BYTES / pacing_rate_bytes_per_s).min(ACK_DELAY_MAX)
}

/// clamp(min_rtt/8, 4 ms, 16 ms) (spec 06 §4.4, Linux `HYSTART_DELAY_THRESH`).
pub fn delay_thresh(min_rtt: Span) -> Span {
    Span(min_rtt.ps() / 8).clamp(DELAY_THRESH_MIN, DELAY_THRESH_MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN_RTT: Span = Span::from_ms(100);

    /// A round starting at 1 s: 9 ACKs 5 ms apart (no train) with sample
    /// `rtt`: 8 fill curr_rtt, the 9th is judged.
    fn delay_round(rtt: Span) -> Option<HyStartExit> {
        let mut h = HyStart::new(SimTime::ZERO);
        let start = SimTime::ZERO + Span::from_secs(1);
        h.on_round_start(start);
        let mut out = None;
        for i in 1..=MIN_SAMPLES as u64 + 1 {
            out = out.or(h.on_ack(start + Span::from_ms(5 * i), rtt, MIN_RTT));
        }
        out
    }

    #[test]
    fn paced_senders_need_a_full_min_rtt_train() {
        // Unpaced, or paced with the spec 06 §4.4 rule: min_rtt/2 = 50 ms.
        assert_eq!(train_threshold(MIN_RTT, Span::ZERO, false, true), Span::from_ms(50));
        assert_eq!(train_threshold(MIN_RTT, Span::ZERO, true, false), Span::from_ms(50));
        // Paced with the Linux ≥ 5.7 rule: min_rtt.
        assert_eq!(train_threshold(MIN_RTT, Span::ZERO, true, true), MIN_RTT);
        // With the ACK-delay allowance: (100 + 1)/2 ms unpaced, 101 ms paced.
        assert_eq!(train_threshold(MIN_RTT, ACK_DELAY_MAX, false, true), Span::from_us(50_500));
        assert_eq!(train_threshold(MIN_RTT, ACK_DELAY_MAX, true, true), Span::from_ms(101));
        // A train of ACKs 1 ms apart: 60 ms long ends slow start only for the half-RTT rule.
        for (train, fires) in [(Span::from_ms(50), true), (MIN_RTT, false)] {
            let mut h = HyStart::new(SimTime::ZERO);
            let mut out = None;
            for i in 1..=60u64 {
                out = out.or(h.on_ack_with_train(SimTime::ZERO + Span::from_ms(i), MIN_RTT, MIN_RTT, train));
            }
            assert_eq!(out == Some(HyStartExit::AckTrain), fires, "train {train:?}");
        }
    }

    #[test]
    fn delay_threshold_is_an_eighth_clamped() {
        // min_rtt 100 ms: 100/8 = 12.5 ms, inside [4, 16] ms.
        assert_eq!(delay_thresh(MIN_RTT), Span::from_us(12_500));
        // 20 ms: 2.5 ms → 4 ms; 200 ms: 25 ms → 16 ms.
        assert_eq!(delay_thresh(Span::from_ms(20)), Span::from_ms(4));
        assert_eq!(delay_thresh(Span::from_ms(200)), Span::from_ms(16));
    }

    #[test]
    fn delay_exit_above_112_5_ms() {
        // spec 06 §4.4: min_rtt 100 ms exits when curr_rtt > 100 + 12.5 = 112.5 ms.
        assert_eq!(delay_round(Span::from_ms(113)), Some(HyStartExit::Delay));
        assert_eq!(delay_round(Span::from_ms(112)), None);
        assert_eq!(delay_round(Span::from_us(112_500)), None, "the threshold itself does not exit");
    }

    /// Linux 6.8 `hystart_ack_delay`: min(1 ms, 4 · 64 KiB / pacing rate).
    #[test]
    fn the_ack_delay_allowance_is_four_gso_packets_at_most_1_ms() {
        assert_eq!(ack_delay(0.0), Span::ZERO);
        assert_eq!(ack_delay(125e6), ACK_DELAY_MAX, "1 Gbit/s: 2.1 ms, capped at 1 ms");
        assert_eq!(ack_delay(1.25e9), Span::from_secs_f64(262_144.0 / 1.25e9), "10 Gbit/s: 0.21 ms");
    }

    /// Linux 6.8 `hystart_update`: curr_rtt is the round's running minimum;
    /// the first 8 samples only fill it, each later one is judged.
    #[test]
    fn delay_judges_the_running_minimum_from_the_ninth_sample() {
        let mut h = HyStart::new(SimTime::ZERO);
        let start = SimTime::ZERO + Span::from_secs(1);
        h.on_round_start(start);
        // One 101-ms sample among seven of 120 ms: curr_rtt = 101 ms ≤ 112.5 ms.
        for i in 1..=8u64 {
            let r = if i == 4 { Span::from_ms(101) } else { Span::from_ms(120) };
            assert_eq!(h.on_ack(start + Span::from_ms(5 * i), r, MIN_RTT), None);
        }
        // A later, higher sample does not lift the minimum.
        assert_eq!(h.on_ack(start + Span::from_ms(50), Span::from_ms(150), MIN_RTT), None);
        // Eight samples of 120 ms are not judged yet; the ninth is.
        let mut h = HyStart::new(SimTime::ZERO);
        h.on_round_start(start);
        for i in 1..=8u64 {
            assert_eq!(h.on_ack(start + Span::from_ms(5 * i), Span::from_ms(120), MIN_RTT), None);
        }
        assert_eq!(h.on_ack(start + Span::from_ms(45), Span::from_ms(120), MIN_RTT), Some(HyStartExit::Delay));
    }

    /// Linux 6.8 `cubictcp_state`: entering Loss clears `found`; HyStart runs again.
    #[test]
    fn rearm_runs_again() {
        let start = SimTime::ZERO + Span::from_secs(1);
        let mut h = HyStart::new(SimTime::ZERO);
        h.on_round_start(start);
        for i in 1..=9u64 {
            h.on_ack(start + Span::from_ms(5 * i), Span::from_ms(200), MIN_RTT);
        }
        assert_eq!(h.found(), Some(HyStartExit::Delay));
        let later = start + Span::from_secs(5);
        h.rearm(later);
        assert_eq!(h.found(), None);
        let mut out = None;
        for i in 1..=9u64 {
            out = out.or(h.on_ack(later + Span::from_ms(5 * i), Span::from_ms(200), MIN_RTT));
        }
        assert_eq!(out, Some(HyStartExit::Delay));
    }

    #[test]
    fn ack_train_exit_after_half_min_rtt() {
        // ACKs 1 ms apart from the round start: the train spans > 50 ms at 51 ms.
        let mut h = HyStart::new(SimTime::ZERO);
        let start = SimTime::ZERO + Span::from_secs(1);
        h.on_round_start(start);
        for i in 1..=50u64 {
            assert_eq!(h.on_ack(start + Span::from_ms(i), MIN_RTT, MIN_RTT), None, "ack {i}");
        }
        assert_eq!(h.on_ack(start + Span::from_ms(51), MIN_RTT, MIN_RTT), Some(HyStartExit::AckTrain));
        // Once per connection.
        h.on_round_start(start + Span::from_secs(1));
        assert_eq!(delay_round(Span::from_ms(200)), Some(HyStartExit::Delay), "a fresh instance still fires");
        assert_eq!(h.on_ack(start + Span::from_secs(1) + Span::from_ms(1), Span::from_ms(200), MIN_RTT), None);
        assert_eq!(h.found(), Some(HyStartExit::AckTrain));
    }

    #[test]
    fn a_gap_breaks_the_train() {
        // ACKs 3 ms apart never extend the train: no exit however long the round.
        let mut h = HyStart::new(SimTime::ZERO);
        let start = SimTime::ZERO + Span::from_secs(1);
        h.on_round_start(start);
        for i in 1..=40u64 {
            assert_eq!(h.on_ack(start + Span::from_ms(3 * i), MIN_RTT, MIN_RTT), None);
        }
    }
}
