//! A per-egress processing stage: packets wait here for their processing
//! delay before they reach the egress queue (spec 02 §2.5.7, "added before
//! enqueueing"). Sans-IO like [`super::channel::Channel`]: the stage holds its
//! packets in release order and the engine keeps one pending event per stage
//! (the head's release), never one per packet.
//!
//! Two disciplines (spec 02 §2.5.7 is silent on contention; CHOICE, see
//! docs/choices.md):
//! - `serial` (default): one processor works through packets in arrival order;
//!   a packet occupies it for its own delay d, so it leaves at
//!   max(arrival, processor free) + d and a busy processor adds waiting time.
//! - `parallel`: every packet is delayed by its own d with unlimited processors,
//!   order kept: it leaves at max(arrival + d, previous release).
//!
//! Either way packets leave in arrival order, so the stage never reorders a flow.

use std::fmt;
use std::str::FromStr;

use super::packet::Packet;
use super::timed_fifo::TimedFifo;
use crate::engine::time::{SimTime, Span};

/// How packets share the processor (module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ProcDiscipline {
    #[default]
    Serial,
    Parallel,
}

impl ProcDiscipline {
    /// Accepted names, in the order of the variants.
    pub const NAMES: &'static [&'static str] = &["serial", "parallel"];
    pub fn as_str(self) -> &'static str {
        match self {
            ProcDiscipline::Serial => "serial",
            ProcDiscipline::Parallel => "parallel",
        }
    }
}

impl FromStr for ProcDiscipline {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "serial" => Ok(ProcDiscipline::Serial),
            "parallel" => Ok(ProcDiscipline::Parallel),
            _ => Err(format!("expected one of {}", Self::NAMES.join(", "))),
        }
    }
}

impl fmt::Display for ProcDiscipline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What the stage did over a run (exported per interface).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct ProcStats {
    /// Packets that entered the stage.
    pub proc_packets: u64,
    /// Mean time a packet spent in the stage (waiting + its own delay), s.
    pub proc_delay_mean_s: f64,
    /// Largest time a packet spent in the stage, s.
    pub proc_delay_max_s: f64,
    /// Sum of the packets' own delays d over the run length: the processor's
    /// busy fraction under `serial` (may exceed 1 when it falls behind).
    pub proc_busy_fraction: f64,
    /// Most packets held by the stage at once.
    pub proc_backlog_max: u64,
}

pub struct ProcStage {
    discipline: ProcDiscipline,
    /// Packets and their release times.
    held: TimedFifo,
    /// `serial`: when the processor is free; `parallel`: the last release.
    free_at: SimTime,
    packets: u64,
    sojourn_sum_ps: u128,
    sojourn_max: Span,
    work_sum_ps: u128,
    backlog_max: u64,
}

impl ProcStage {
    pub fn new(discipline: ProcDiscipline) -> ProcStage {
        ProcStage {
            discipline,
            held: TimedFifo::new(),
            free_at: SimTime::ZERO,
            packets: 0,
            sojourn_sum_ps: 0,
            sojourn_max: Span::ZERO,
            work_sum_ps: 0,
            backlog_max: 0,
        }
    }

    /// A packet arrives at `now` needing `d` of processing. Returns its release
    /// time if it became the head (the caller then schedules the stage's event).
    pub fn admit(&mut self, now: SimTime, d: Span, pkt: Packet) -> Option<SimTime> {
        let release = match self.discipline {
            ProcDiscipline::Serial => self.free_at.max(now) + d,
            ProcDiscipline::Parallel => (now + d).max(self.free_at),
        };
        self.free_at = release;
        let sojourn = release.since(now);
        self.packets += 1;
        self.sojourn_sum_ps += sojourn.ps() as u128;
        self.sojourn_max = self.sojourn_max.max(sojourn);
        self.work_sum_ps += d.ps() as u128;
        let head = self.held.push(release, pkt);
        self.backlog_max = self.backlog_max.max(self.held.len());
        head.then_some(release)
    }

    /// Take the head packet if its processing is done by `now`.
    pub fn pop_released(&mut self, now: SimTime) -> Option<Packet> {
        self.held.pop_due(now)
    }

    pub fn head_release(&self) -> Option<SimTime> {
        self.held.head_due()
    }

    pub fn frames_held(&self) -> u64 {
        self.held.len()
    }

    /// L3 bytes held (conservation is kept in L3 bytes).
    pub fn bytes_held(&self) -> u64 {
        self.held.bytes()
    }

    /// The run's statistics over a run of length `duration`.
    pub fn stats(&self, duration: Span) -> ProcStats {
        let n = self.packets.max(1) as f64;
        ProcStats {
            proc_packets: self.packets,
            proc_delay_mean_s: self.sojourn_sum_ps as f64 / n * 1e-12,
            proc_delay_max_s: self.sojourn_max.as_secs_f64(),
            proc_busy_fraction: if duration == Span::ZERO { 0.0 } else { self.work_sum_ps as f64 / duration.ps() as f64 },
            proc_backlog_max: self.backlog_max,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(l3: u32) -> Packet {
        Packet::test_udp(l3)
    }

    fn at_us(us: u64) -> SimTime {
        SimTime::ZERO + Span::from_us(us)
    }

    #[test]
    fn serial_processor_queues_behind_earlier_work() {
        let mut s = ProcStage::new(ProcDiscipline::Serial);
        // Three packets at t = 0, 1, 2 µs, each needing 3 µs: they leave at 3, 6, 9.
        assert_eq!(s.admit(at_us(0), Span::from_us(3), pkt(100)), Some(at_us(3)));
        assert_eq!(s.admit(at_us(1), Span::from_us(3), pkt(200)), None);
        assert_eq!(s.admit(at_us(2), Span::from_us(3), pkt(300)), None);
        assert_eq!((s.frames_held(), s.bytes_held()), (3, 600));
        assert_eq!(s.pop_released(at_us(2)), None);
        assert_eq!(s.pop_released(at_us(3)).map(|p| p.l3_bytes), Some(100));
        assert_eq!(s.head_release(), Some(at_us(6)));
        assert_eq!(s.pop_released(at_us(9)).map(|p| p.l3_bytes), Some(200));
        assert_eq!(s.pop_released(at_us(9)).map(|p| p.l3_bytes), Some(300));
        assert_eq!((s.frames_held(), s.bytes_held()), (0, 0));
        // Sojourns 3, 5, 7 µs; 9 µs of work over a 90 µs run.
        let st = s.stats(Span::from_us(90));
        assert_eq!((st.proc_packets, st.proc_backlog_max), (3, 3));
        assert!((st.proc_delay_mean_s - 5e-6).abs() < 1e-15 && (st.proc_delay_max_s - 7e-6).abs() < 1e-15);
        assert!((st.proc_busy_fraction - 0.1).abs() < 1e-12);
        // An idle processor starts at once: arrival 20 µs + 3.
        assert_eq!(s.admit(at_us(20), Span::from_us(3), pkt(100)), Some(at_us(23)));
    }

    #[test]
    fn parallel_delay_keeps_order_without_waiting() {
        let mut s = ProcStage::new(ProcDiscipline::Parallel);
        // Arrivals 0, 1, 2 µs with delays 5, 1, 1: released at 5, 5, 5 (order kept,
        // nobody waits for a processor, the later short ones wait for the long head).
        assert_eq!(s.admit(at_us(0), Span::from_us(5), pkt(1)), Some(at_us(5)));
        s.admit(at_us(1), Span::from_us(1), pkt(2));
        s.admit(at_us(2), Span::from_us(1), pkt(3));
        let out: Vec<u32> = std::iter::from_fn(|| s.pop_released(at_us(5)).map(|p| p.l3_bytes)).collect();
        assert_eq!(out, [1, 2, 3]);
        // With room between arrivals each packet gets exactly its own delay.
        assert_eq!(s.admit(at_us(10), Span::from_us(2), pkt(1)), Some(at_us(12)));
        s.admit(at_us(11), Span::from_us(2), pkt(2));
        s.pop_released(at_us(12));
        assert_eq!(s.head_release(), Some(at_us(13)));
    }

    #[test]
    fn discipline_names_round_trip() {
        for n in ProcDiscipline::NAMES {
            assert_eq!(n.parse::<ProcDiscipline>().unwrap().as_str(), *n);
        }
        assert!("fifo".parse::<ProcDiscipline>().unwrap_err().contains("serial, parallel"));
    }
}
