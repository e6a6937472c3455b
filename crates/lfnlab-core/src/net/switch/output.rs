//! An output port of a switch: the frames waiting for its line and the line
//! itself (spec 05 §2.2). M1 and M2/M3 keep one FIFO; M4 keeps one sub-queue
//! per input and serves them round robin, one whole frame per turn.

use std::collections::VecDeque;

use super::sched::{members, rr_pick};
use crate::engine::time::SimTime;

/// A frame waiting for the line.
#[derive(Clone, Copy, Debug)]
pub struct Waiting<F> {
    pub frame: F,
    /// When it may start: its eligibility (M1, M4) or the end of the slot that
    /// completed its reassembly (M2, M3).
    pub ready: SimTime,
    /// The input it came from.
    pub input: u8,
    /// Memory to give back when its last bit has left: units of the pool
    /// (M1, M4) or output-buffer bytes (M2, M3).
    pub release: u64,
    pub l2_bytes: u32,
}

pub struct Output<F> {
    /// One FIFO (M1, M2, M3) or one sub-queue per input (M4).
    queues: Vec<VecDeque<Waiting<F>>>,
    /// M4: the sub-queues holding frames, and the input served last.
    nonempty: u64,
    last_served: usize,
    /// The line is busy until then.
    pub busy_until: SimTime,
    /// The frame on the line: (input, release) to give back at `busy_until`.
    pub on_line: Option<(u8, u64)>,
    /// Frames waiting.
    pub frames: usize,
}

impl<F: Copy> Output<F> {
    pub fn new(round_robin_inputs: Option<usize>) -> Output<F> {
        let k = round_robin_inputs.unwrap_or(1);
        Output {
            queues: (0..k).map(|_| VecDeque::new()).collect(),
            nonempty: 0,
            last_served: k.saturating_sub(1),
            busy_until: SimTime::ZERO,
            on_line: None,
            frames: 0,
        }
    }

    fn round_robin(&self) -> bool {
        self.queues.len() > 1
    }

    pub fn push(&mut self, w: Waiting<F>) {
        let q = if self.round_robin() { w.input as usize } else { 0 };
        debug_assert!(self.queues[q].back().is_none_or(|b| b.ready <= w.ready));
        self.queues[q].push_back(w);
        self.nonempty |= 1 << q;
        self.frames += 1;
    }

    /// When this output next has something to do: release the frame on the
    /// line, or start the earliest-ready waiting frame.
    #[inline]
    pub fn next_time(&self) -> SimTime {
        if self.on_line.is_some() {
            return self.busy_until;
        }
        let ready = members(self.nonempty).map(|q| self.queues[q][0].ready).min();
        ready.map_or(SimTime::NEVER, |r| r.max(self.busy_until))
    }

    /// Take the frame that starts now, if the line is free and one is ready.
    pub fn take_next(&mut self, now: SimTime) -> Option<Waiting<F>> {
        if self.on_line.is_some() || self.busy_until > now {
            return None;
        }
        // The next sub-queue with a ready frame after the one served last
        // (spec 05 §2.2 M4); a frame still being forwarded never blocks
        // another input's turn. A FIFO has one queue.
        let ready = members(self.nonempty).filter(|&q| self.queues[q][0].ready <= now).fold(0u64, |m, q| m | 1 << q);
        if ready == 0 {
            return None;
        }
        let q = rr_pick(ready, (self.last_served + 1) % self.queues.len());
        let w = self.queues[q].pop_front().expect("ready frame");
        if self.queues[q].is_empty() {
            self.nonempty &= !(1 << q);
        }
        self.last_served = q;
        self.frames -= 1;
        Some(w)
    }
}
