//! A budget on busy-waiting, sans-IO.
//!
//! The relay busy-waits the last `--spin` before a departure because a
//! sleeping thread wakes late (about 100 µs on a loaded VM). Under SCHED_FIFO
//! a relay that busy-waits all the time starves the other tasks of its CPU,
//! and the kernel then stops it for up to 50 ms in every second
//! (`sched_rt_runtime_us` = 950 ms per 1 s: RT throttling, or the fair
//! server since Linux 6.12). So busy-waiting may use at most `budget_ns` of
//! each `window_ns`; past that the relay sleeps until the window ends.

/// Length of a budget window, ns.
pub const WINDOW_NS: u64 = 100_000_000;
/// Busy-waiting allowed per window, ns (a fifth of it): on a small machine
/// the TCP end points and the kernel's softirq thread need the CPU too
/// (measured on 2 vCPUs: a relay busy-waiting half the time at SCHED_FIFO
/// cut iperf3 through it from ~90 to 30–55 Mbit/s at 100 Mbit/s).
pub const BUDGET_NS: u64 = 20_000_000;

#[derive(Clone, Debug)]
pub struct SpinBudget {
    window_ns: u64,
    budget_ns: u64,
    window_start_ns: u64,
    spent_ns: u64,
    /// Start of the current busy-wait, if busy-waiting.
    spinning_since_ns: Option<u64>,
    /// Windows in which the budget ran out.
    exhausted_windows: u64,
    /// Busy-wait time in all, ns.
    total_ns: u64,
}

impl SpinBudget {
    pub fn new(window_ns: u64, budget_ns: u64) -> SpinBudget {
        SpinBudget { window_ns: window_ns.max(1), budget_ns, window_start_ns: 0, spent_ns: 0, spinning_since_ns: None, exhausted_windows: 0, total_ns: 0 }
    }

    fn roll(&mut self, now_ns: u64) {
        if now_ns.saturating_sub(self.window_start_ns) >= self.window_ns {
            self.window_start_ns = now_ns;
            self.spent_ns = 0;
        }
    }

    /// The loop busy-waits at `now_ns` (one more turn without sleeping).
    /// Returns false when the budget of this window is spent: sleep instead.
    pub fn spin(&mut self, now_ns: u64) -> bool {
        if let Some(since) = self.spinning_since_ns {
            let d = now_ns.saturating_sub(since);
            self.spent_ns += d;
            self.total_ns += d;
        }
        self.roll(now_ns);
        if self.spent_ns >= self.budget_ns {
            if self.spinning_since_ns.is_some() {
                self.exhausted_windows += 1;
            }
            self.spinning_since_ns = None;
            return false;
        }
        self.spinning_since_ns = Some(now_ns);
        true
    }

    /// The loop did something else than busy-wait (sent, received, or slept).
    pub fn idle(&mut self, now_ns: u64) {
        if let Some(since) = self.spinning_since_ns.take() {
            let d = now_ns.saturating_sub(since);
            self.spent_ns += d;
            self.total_ns += d;
        }
    }

    pub fn exhausted_windows(&self) -> u64 {
        self.exhausted_windows
    }

    pub fn total_ns(&self) -> u64 {
        self.total_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_waiting_is_capped_per_window() {
        // Window 100, budget 30: turns every 10 ns; at 30 ns, 30 ns are spent.
        let mut b = SpinBudget::new(100, 30);
        let allowed: Vec<bool> = (0..6).map(|k| b.spin(k * 10)).collect();
        assert_eq!(allowed, [true, true, true, false, false, false]);
        assert_eq!((b.exhausted_windows(), b.total_ns()), (1, 30));
        // The next window starts afresh.
        assert!(b.spin(100));
        b.idle(105);
        assert_eq!(b.total_ns(), 35);
    }
}
