//! One CPU core (spec 04 §2.7 rule 1): a non-preemptive server with two
//! priority classes. Softirq work (interrupt handler, NAPI polls, ACK
//! processing, TCP output triggered by arriving packets) is served before
//! process work (application calls and the output they trigger); within a
//! class, first come first served. Busy time is accounted per category
//! (rule 5) in whole-run totals and in fixed bins.

use std::collections::VecDeque;

use super::config::Cycles;
use crate::engine::time::{SimTime, Span};
use crate::net::packet::Packet;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Softirq = 0,
    Process = 1,
}

/// Queued work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Work {
    /// The interrupt handler (`c_irq`).
    Irq,
    /// Continue the NAPI poll loop: take the next TX completion or RX frame.
    Poll,
    /// Build the next `n` packets held for output in this class.
    Output(u32),
    /// A write() call of the socket's writer.
    Write(u32),
    /// A read() call of the socket's reader.
    Read(u32),
}

/// The item being served, with what it carries.
#[derive(Clone, Copy, Debug)]
pub enum Running {
    Irq,
    TxClean,
    /// A received frame and the socket it is for (TCP).
    Rx { pkt: Packet, socket: Option<u32> },
    Output(u32),
    Write { socket: u32, bytes: u64 },
    Read { socket: u32, bytes: u64 },
}

/// Busy time by category (spec 04 §2.7 rule 5); idle is the rest.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Busy {
    pub user: Span,
    pub system: Span,
    pub softirq: Span,
}

impl Busy {
    pub fn total(&self) -> Span {
        self.user + self.system + self.softirq
    }
}

/// Longest part (user, system or softirq) of one item, 2.3 × 10^6 s: three
/// of them added to any time of a run stay below `SimTime::NEVER`.
const MAX_PART: Span = Span(u64::MAX / 8);

pub struct Core {
    queues: [VecDeque<Work>; 2],
    pub running: Option<Running>,
    pub busy_until: SimTime,
    pub busy: Busy,
    /// Busy time per bin of `bin` (the item's time split at bin edges), up
    /// to `horizon` (the end of the run): an item that runs past the end adds
    /// no bins after it.
    pub bins: Vec<Busy>,
    bin: Span,
    horizon: SimTime,
    pub items: u64,
}

impl Core {
    pub fn new(bin: Span, horizon: SimTime) -> Core {
        assert!(bin > Span::ZERO);
        Core {
            queues: [VecDeque::with_capacity(16), VecDeque::with_capacity(16)],
            running: None,
            busy_until: SimTime::ZERO,
            busy: Busy::default(),
            bins: Vec::new(),
            bin,
            horizon,
            items: 0,
        }
    }

    pub fn push(&mut self, class: Class, w: Work) {
        self.queues[class as usize].push_back(w);
    }

    /// The next item to serve: softirq first.
    pub fn pop(&mut self) -> Option<(Class, Work)> {
        if let Some(w) = self.queues[0].pop_front() {
            return Some((Class::Softirq, w));
        }
        self.queues[1].pop_front().map(|w| (Class::Process, w))
    }

    pub fn is_idle(&self) -> bool {
        self.running.is_none()
    }

    /// Serve `item` from `now` for `cost` cycles scaled by `scale` (jitter) at
    /// `ps_per_cycle`; returns when it ends.
    pub fn start(&mut self, now: SimTime, item: Running, cost: Cycles, scale: f64, ps_per_cycle: f64) -> SimTime {
        debug_assert!(self.running.is_none(), "non-preemptive: one item at a time");
        // `as` saturates; the cap keeps the sums below u64::MAX, so a
        // cost of 10^120 cycles (found by fuzzing) runs past any end instead of
        // overflowing the clock.
        let ps = |c: f64| Span(((c * scale * ps_per_cycle).round() as u64).min(MAX_PART.0));
        let part = Busy { user: ps(cost.user), system: ps(cost.system), softirq: ps(cost.softirq) };
        self.running = Some(item);
        self.items += 1;
        self.account(now, part);
        self.busy_until = SimTime(now.0.saturating_add(part.total().0));
        self.busy_until
    }

    /// The running item ended.
    pub fn finish(&mut self) -> Running {
        self.running.take().expect("an item was running")
    }

    fn account(&mut self, start: SimTime, part: Busy) {
        let add = |a: Span, b: Span| Span(a.0.saturating_add(b.0));
        self.busy.user = add(self.busy.user, part.user);
        self.busy.system = add(self.busy.system, part.system);
        self.busy.softirq = add(self.busy.softirq, part.softirq);
        // The item's time is served user, then system, then softirq; split at bin edges.
        let mut t = start;
        for (k, mut left) in [(0, part.user), (1, part.system), (2, part.softirq)] {
            while left > Span::ZERO && t < self.horizon {
                let i = (t.0 / self.bin.0) as usize;
                let edge = SimTime((i as u64 + 1) * self.bin.0);
                let d = left.min(edge.since(t));
                if self.bins.len() <= i {
                    self.bins.resize(i + 1, Busy::default());
                }
                let b = &mut self.bins[i];
                match k {
                    0 => b.user = b.user + d,
                    1 => b.system = b.system + d,
                    _ => b.softirq = b.softirq + d,
                }
                t += d;
                left = left - d;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_absurd_cost_runs_past_the_end_without_overflow_or_bins_after_it() {
        let horizon = SimTime::ZERO + Span::from_secs(4);
        let mut c = Core::new(Span::from_secs(1), horizon);
        let cost = Cycles { user: 4e125, system: 1.0, softirq: 0.0 };
        let end = c.start(SimTime::ZERO + Span::from_secs(2), Running::Irq, cost, 1.0, 454.5);
        assert!(end > horizon);
        assert_eq!(c.bins.len(), 4, "bins stop at the end of the run");
        assert_eq!(c.bins[2].user, Span::from_secs(1));
        assert_eq!(c.bins[3].user, Span::from_secs(1));
    }

    #[test]
    fn softirq_goes_first_and_service_is_non_preemptive() {
        let mut c = Core::new(Span::from_secs(1), SimTime::NEVER);
        c.push(Class::Process, Work::Write(0));
        c.push(Class::Softirq, Work::Irq);
        c.push(Class::Softirq, Work::Poll);
        assert_eq!(c.pop(), Some((Class::Softirq, Work::Irq)));
        assert_eq!(c.pop(), Some((Class::Softirq, Work::Poll)));
        assert_eq!(c.pop(), Some((Class::Process, Work::Write(0))));
        assert_eq!(c.pop(), None);
    }

    #[test]
    fn busy_time_is_split_by_category_and_bin() {
        let mut c = Core::new(Span::from_secs(1), SimTime::NEVER);
        // 1000 ps per cycle; starts 1.5 µs before the 1 s edge.
        let start = SimTime(1_000_000_000_000 - 1_500_000);
        let end = c.start(start, Running::Irq, Cycles { user: 1000.0, system: 1000.0, softirq: 1000.0 }, 1.0, 1000.0);
        assert_eq!(end, start + Span::from_us(3));
        assert_eq!(c.busy.total(), Span::from_us(3));
        assert_eq!(c.bins.len(), 2);
        assert_eq!(c.bins[0], Busy { user: Span::from_us(1), system: Span(500_000), softirq: Span::ZERO });
        assert_eq!(c.bins[1], Busy { user: Span::ZERO, system: Span(500_000), softirq: Span::from_us(1) });
        assert!(matches!(c.finish(), Running::Irq));
        assert!(c.is_idle());
    }
}
