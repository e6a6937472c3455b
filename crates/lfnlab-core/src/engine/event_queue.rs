//! The pending-event set, ordered by (time, sequence) (STYLE point 2).
//!
//! Components keep at most one pending event each (a link its head arrival, a
//! port its next departure, a socket its earliest timer), so the heap stays as
//! small as the number of components, not the number of packets in flight.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::time::SimTime;

/// What an event does when it fires: the component it wakes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Event {
    /// The head frame of a link direction reaches the far node.
    ChannelArrival(u32),
    /// An egress port may start its next frame.
    PortWake(u32),
    /// A TCP endpoint's earliest timer is due.
    SocketTimer(u32),
    /// A traffic source has something to do.
    AppTimer(u32),
    /// A flow starts (TCP open or UDP source start).
    FlowStart(u32),
    /// A Web workload's earliest timer is due (spec 02 §3.2).
    WebTimer(u32),
    /// The head packet of a port's processing stage is done (spec 02 §2.5.7).
    ProcRelease(u32),
    /// A host NIC's receive DMA finished (spec 04 §2.4).
    NicRxDma(u32),
    /// A host NIC's transmit DMA finished.
    NicTxDma(u32),
    /// A host NIC's PAUSE refresh timer (spec 04 §2.5 rule 2).
    PauseRefresh(u32),
    /// A switch or router port's PAUSE refresh timer (spec 04 §2.5, per ingress port).
    SwitchPauseRefresh(u32),
    /// A host CPU core finished its work item (spec 04 §2.7): host × 16 + core.
    CpuDone(u32),
    /// A host NIC's interrupt-coalescing delay ran out (spec 04 §2.7 rule 2).
    IrqTimer(u32),
    /// A switch has frames to start or internal work to run (spec 05).
    SwitchWake(u32),
}

impl Event {
    /// A small stable code for the event-log hash.
    pub fn code(self) -> (u8, u32) {
        match self {
            Event::ChannelArrival(i) => (1, i),
            Event::PortWake(i) => (2, i),
            Event::SocketTimer(i) => (3, i),
            Event::AppTimer(i) => (4, i),
            Event::FlowStart(i) => (5, i),
            Event::WebTimer(i) => (6, i),
            Event::ProcRelease(i) => (7, i),
            Event::NicRxDma(i) => (8, i),
            Event::NicTxDma(i) => (9, i),
            Event::PauseRefresh(i) => (10, i),
            Event::CpuDone(i) => (11, i),
            Event::IrqTimer(i) => (12, i),
            Event::SwitchPauseRefresh(i) => (13, i),
            Event::SwitchWake(i) => (14, i),
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    time: SimTime,
    /// When the event was scheduled, in simulated time (see [`EventQueue::push_as_of`]).
    as_of: SimTime,
    seq: u64,
    event: Event,
}

impl Entry {
    #[inline]
    fn key(&self) -> (SimTime, SimTime, u64) {
        (self.time, self.as_of, self.seq)
    }
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.key() == o.key()
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    // Reversed: BinaryHeap is a max-heap and we want the earliest first.
    #[inline]
    fn cmp(&self, o: &Self) -> Ordering {
        o.key().cmp(&self.key())
    }
}

/// Min-queue of events by (time, scheduling time, insertion sequence): ties
/// fire in the order they were scheduled, so runs are deterministic.
///
/// The scheduling time of an ordinary push is the time of the event being
/// handled, so the order is that of insertion. A component that computes ahead
/// (`sim::early`, `net::eager_fifo`) schedules an event now on behalf of a
/// later instant, and says which with [`push_as_of`](Self::push_as_of): the
/// event then ties with others exactly as if it had been scheduled then.
#[derive(Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    next_seq: u64,
    /// Time of the last event popped.
    current: SimTime,
}

impl EventQueue {
    pub fn new() -> EventQueue {
        EventQueue { heap: BinaryHeap::with_capacity(1024), next_seq: 0, current: SimTime::ZERO }
    }

    #[inline]
    pub fn push(&mut self, time: SimTime, event: Event) {
        let as_of = self.current;
        self.push_as_of(time, event, as_of);
    }

    /// Schedule `event` at `time` as if it had been scheduled at `as_of`
    /// (not before the event being handled).
    #[inline]
    pub fn push_as_of(&mut self, time: SimTime, event: Event, as_of: SimTime) {
        debug_assert!(as_of >= self.current, "scheduled on behalf of the past");
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry { time, as_of, seq, event });
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        let e = self.heap.pop()?;
        self.current = e.time;
        Some((e.time, e.event))
    }

    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| e.time)
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_by_time_then_sequence() {
        let mut q = EventQueue::new();
        q.push(SimTime(5), Event::PortWake(1));
        q.push(SimTime(3), Event::PortWake(2));
        q.push(SimTime(5), Event::PortWake(3));
        q.push(SimTime(3), Event::PortWake(4));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (SimTime(3), Event::PortWake(2)),
                (SimTime(3), Event::PortWake(4)),
                (SimTime(5), Event::PortWake(1)),
                (SimTime(5), Event::PortWake(3)),
            ]
        );
    }

    #[test]
    fn an_event_scheduled_ahead_ties_as_of_its_instant() {
        let mut q = EventQueue::new();
        q.push(SimTime(2), Event::PortWake(0));
        assert_eq!(q.pop(), Some((SimTime(2), Event::PortWake(0))));
        // At t = 2: A is scheduled on behalf of t = 4, then B ordinarily.
        q.push_as_of(SimTime(9), Event::PortWake(1), SimTime(4));
        q.push(SimTime(9), Event::PortWake(2));
        // B was scheduled at 2, before A's instant 4: B fires first.
        assert_eq!(q.pop(), Some((SimTime(9), Event::PortWake(2))));
        assert_eq!(q.pop(), Some((SimTime(9), Event::PortWake(1))));
    }
}
