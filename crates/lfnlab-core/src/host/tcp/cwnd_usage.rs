//! Was cwnd the limit? (spec 06 §2.4 `cwnd_limited_growth`; Linux
//! `tcp_cwnd_validate` in `net/ipv4/tcp_output.c` and `tcp_is_cwnd_limited`
//! in `include/net/tcp.h`.) Growth is allowed only when the sender used its
//! window; this file tracks that use per window of data.

/// cwnd use of the current window.
#[derive(Clone, Debug, Default)]
pub struct CwndUsage {
    /// The sender hit cwnd at some point in this window.
    is_cwnd_limited: bool,
    /// The window's largest packets_out.
    max_packets_out: u64,
    /// snd_max when the window began; it ends when snd_una passes it.
    window_end_seq: u64,
}

impl CwndUsage {
    /// After a transmission attempt (Linux tcp_cwnd_validate).
    pub fn on_transmit_attempt(&mut self, pipe: u64, cwnd: f64, packets_out: u64, snd_una: u64, snd_max: u64) {
        let limited = pipe as f64 >= cwnd.floor();
        if snd_una >= self.window_end_seq || limited || (!self.is_cwnd_limited && packets_out > self.max_packets_out) {
            self.is_cwnd_limited = limited;
            self.max_packets_out = packets_out;
            self.window_end_seq = snd_max;
        }
    }

    /// Was cwnd the limit for an ACK that found `prior_in_flight` in flight?
    /// in_flight reached ⌊cwnd⌋, or (Linux tcp_is_cwnd_limited, CHOICE) the
    /// sender hit cwnd earlier in this window, or in slow start cwnd is below
    /// twice the window's largest packets_out. The last two keep a paced
    /// sender, whose in_flight trails cwnd by the segments waiting for their
    /// departure time, growing as Linux does.
    pub fn limited(&self, prior_in_flight: u64, cwnd: f64, in_slow_start: bool) -> bool {
        prior_in_flight as f64 >= cwnd.floor() || self.is_cwnd_limited || (in_slow_start && cwnd < 2.0 * self.max_packets_out as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_remembers_hitting_cwnd() {
        let mut u = CwndUsage::default();
        // Window 1: the sender fills cwnd = 10 once.
        u.on_transmit_attempt(10, 10.0, 10, 0, 100);
        assert!(u.limited(3, 10.0, false), "hit cwnd earlier in this window");
        // Still inside window 1 (snd_una 50 < 100), not limited now: the flag stays.
        u.on_transmit_attempt(4, 10.0, 4, 50, 150);
        assert!(u.limited(3, 10.0, false));
        // Window 1 ends (snd_una ≥ 100): a new window starts unlimited.
        u.on_transmit_attempt(4, 10.0, 4, 100, 200);
        assert!(!u.limited(3, 10.0, false));
        assert!(u.limited(10, 10.0, false), "in_flight at ⌊cwnd⌋");
        // Slow start: cwnd below twice the window's largest packets_out.
        assert!(u.limited(3, 7.0, true));
        assert!(!u.limited(3, 8.0, true));
    }
}
