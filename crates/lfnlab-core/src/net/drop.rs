//! Why a frame was dropped. Every drop is counted by cause (STYLE point 8) and
//! enters the conservation identity of spec 06 §7 V5.

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum DropCause {
    /// Egress queue full (drop-tail).
    Tail = 0,
    /// Random loss on a link (Bernoulli).
    RandomLoss = 1,
    /// A pure ACK refused by a full host interface queue (spec 06 §5.2, CHOICE).
    IfqFull = 2,
    /// A segment that would overflow the receive buffer (spec 06 §2.3 rule 4).
    RcvBuf = 3,
    /// An fq packet stamped later than now + horizon (spec 06 §5.3 `edt`).
    Horizon = 4,
    /// A RED early drop (spec 03 §2.8 segment model).
    Red = 5,
}

pub const DROP_CAUSES: usize = 6;

impl DropCause {
    pub const ALL: [DropCause; DROP_CAUSES] = [DropCause::Tail, DropCause::RandomLoss, DropCause::IfqFull, DropCause::RcvBuf, DropCause::Horizon, DropCause::Red];

    pub fn name(self) -> &'static str {
        match self {
            DropCause::Tail => "tail",
            DropCause::RandomLoss => "random_loss",
            DropCause::IfqFull => "ifq_full",
            DropCause::RcvBuf => "rcvbuf",
            DropCause::Horizon => "horizon",
            DropCause::Red => "red",
        }
    }
}

/// Frame and byte counts per drop cause (bytes are wire bytes at the drop point).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DropCounters {
    pub frames: [u64; DROP_CAUSES],
}

impl DropCounters {
    pub fn add(&mut self, cause: DropCause) {
        self.frames[cause as usize] += 1;
    }
    pub fn total(&self) -> u64 {
        self.frames.iter().sum()
    }
}
