//! Why and where a frame was dropped: the one vocabulary of every drop in a run
//! (STYLE point 8, "a drop has one path"). The place that decides a drop counts
//! it by cause (a queue in its `QueueStats`, a link's loss model, a NIC's
//! receive FIFO, a switch core), and `sim::books::Books::book_drop` books it in
//! the network's conservation identity (spec 06 §7 V5). The ledger
//! (`sim::invariants`) checks, cause by cause, that the places' counts and the
//! books agree.

/// Why a frame was dropped. Each cause belongs to one kind of place
/// ([`DropCause::place`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum DropCause {
    /// Egress queue full (drop-tail).
    Tail = 0,
    /// Random loss inside a queue discipline (the spec 03 §2.8 segment model).
    RandomLoss = 1,
    /// A frame refused by a full host interface queue (spec 06 §5.2, CHOICE).
    IfqFull = 2,
    /// A segment that would overflow the receive buffer (spec 06 §2.3 rule 4).
    /// The frame was delivered: the receiving socket discards it, so it is a
    /// TCP drop, outside the network's books.
    RcvBuf = 3,
    /// An fq packet stamped later than now + horizon (spec 06 §5.3 `edt`).
    Horizon = 4,
    /// A RED early drop (spec 03 §2.8 segment model).
    Red = 5,
    /// Bernoulli loss on a link direction (`link.loss`, spec 06 §1.2).
    LinkLoss = 6,
    /// Loss of a Gilbert–Elliott circuit on a link direction (`circuit_loss`, spec 04 §2.12–2.13).
    CircuitLoss = 7,
    /// The IP TTL ran out at a routing hop (RFC 791; spec 02 §2.5.5).
    Ttl = 8,
    /// A routing hop has no route to the destination (validated scenarios have routes).
    NoRoute = 9,
    /// No room in a host NIC's receive FIFO (`rx_fifo_drop`, spec 04 §2.4 rule 2).
    RxFifo = 10,
    /// A switch's admission refused the frame: its memory was full (spec 05 §2.2).
    SwitchMemory = 11,
}

pub const DROP_CAUSES: usize = 12;

/// The kind of place where a cause of drop is decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropPlace {
    /// An egress queue (router, emulator or host qdisc): counts in its `QueueStats`.
    Queue,
    /// A link direction's loss model.
    Link,
    /// A routing hop (TTL, route lookup).
    Hop,
    /// A host NIC's receive FIFO.
    NicRx,
    /// A switch core's admission.
    Switch,
    /// A TCP socket, after the network delivered the frame.
    Socket,
}

impl DropCause {
    pub const ALL: [DropCause; DROP_CAUSES] = [
        DropCause::Tail,
        DropCause::RandomLoss,
        DropCause::IfqFull,
        DropCause::RcvBuf,
        DropCause::Horizon,
        DropCause::Red,
        DropCause::LinkLoss,
        DropCause::CircuitLoss,
        DropCause::Ttl,
        DropCause::NoRoute,
        DropCause::RxFifo,
        DropCause::SwitchMemory,
    ];

    pub fn name(self) -> &'static str {
        match self {
            DropCause::Tail => "tail",
            DropCause::RandomLoss => "random_loss",
            DropCause::IfqFull => "ifq_full",
            DropCause::RcvBuf => "rcvbuf",
            DropCause::Horizon => "horizon",
            DropCause::Red => "red",
            DropCause::LinkLoss => "link_loss",
            DropCause::CircuitLoss => "circuit_loss",
            DropCause::Ttl => "ttl",
            DropCause::NoRoute => "no_route",
            DropCause::RxFifo => "rx_fifo",
            DropCause::SwitchMemory => "switch_memory",
        }
    }

    /// Where a drop of this cause is decided and first counted.
    pub fn place(self) -> DropPlace {
        match self {
            DropCause::Tail | DropCause::RandomLoss | DropCause::IfqFull | DropCause::Horizon | DropCause::Red => DropPlace::Queue,
            DropCause::LinkLoss | DropCause::CircuitLoss => DropPlace::Link,
            DropCause::Ttl | DropCause::NoRoute => DropPlace::Hop,
            DropCause::RxFifo => DropPlace::NicRx,
            DropCause::SwitchMemory => DropPlace::Switch,
            DropCause::RcvBuf => DropPlace::Socket,
        }
    }
}

/// Frame counts per drop cause.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DropCounters {
    pub frames: [u64; DROP_CAUSES],
}

impl DropCounters {
    #[inline]
    pub fn add(&mut self, cause: DropCause) {
        self.frames[cause as usize] += 1;
    }
    pub fn get(&self, cause: DropCause) -> u64 {
        self.frames[cause as usize]
    }
    pub fn total(&self) -> u64 {
        self.frames.iter().sum()
    }
    /// The non-zero counts by cause name, in cause order (for summaries).
    pub fn by_name(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        DropCause::ALL.into_iter().map(|c| (c.name(), self.get(c))).filter(|(_, n)| *n > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cause_is_listed_once_in_order() {
        for (i, c) in DropCause::ALL.iter().enumerate() {
            assert_eq!(*c as usize, i, "{c:?}");
        }
        let mut names: Vec<_> = DropCause::ALL.iter().map(|c| c.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), DROP_CAUSES, "names are unique");
    }

    #[test]
    fn counters_by_name_skip_zeros() {
        let mut d = DropCounters::default();
        d.add(DropCause::Ttl);
        d.add(DropCause::Tail);
        d.add(DropCause::Tail);
        assert_eq!(d.by_name().collect::<Vec<_>>(), vec![("tail", 2), ("ttl", 1)]);
        assert_eq!(d.total(), 3);
        assert_eq!(DropCause::SwitchMemory.place(), DropPlace::Switch);
    }
}
