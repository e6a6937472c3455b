//! Interrupt coalescing and NAPI masking (spec 04 §2.7 rule 2): the NIC
//! raises an interrupt when `k_irq` events are pending or the oldest pending
//! event is `t_irq` old, whichever comes first. From the interrupt until the
//! poll loop finds no work, interrupts stay masked and new events are picked
//! up by the polls. Sans-IO: the world arms the timer this asks for.

use crate::engine::time::{SimTime, Span};

/// What the NIC does after an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IrqAction {
    /// Raise the interrupt now.
    Raise,
    /// The first pending event: arm the delay timer for this time.
    Arm(SimTime),
    /// Nothing to do (counting toward `k_irq`, or the poll loop will see it).
    Wait,
}

#[derive(Clone, Debug)]
pub struct Coalescer {
    k_irq: u32,
    t_irq: Span,
    pending: u32,
    oldest: Option<SimTime>,
    /// An interrupt was raised and the poll loop has not yet run dry.
    masked: bool,
    pub irqs: u64,
}

impl Coalescer {
    pub fn new(k_irq: u32, t_irq: Span) -> Coalescer {
        assert!(k_irq >= 1, "k_irq ≥ 1 is checked at load");
        Coalescer { k_irq, t_irq, pending: 0, oldest: None, masked: false, irqs: 0 }
    }

    /// An RX frame reached host memory or a TX completion happened.
    pub fn on_event(&mut self, now: SimTime) -> IrqAction {
        if self.masked {
            return IrqAction::Wait;
        }
        self.pending += 1;
        if self.pending >= self.k_irq {
            return self.raise();
        }
        if self.pending == 1 {
            self.oldest = Some(now);
            return IrqAction::Arm(now + self.t_irq);
        }
        IrqAction::Wait
    }

    /// The delay timer armed for `now` fired: raise if it still applies.
    pub fn on_timer(&mut self, now: SimTime) -> bool {
        if !self.masked && self.oldest.is_some_and(|t| t + self.t_irq == now) {
            self.raise();
            return true;
        }
        false
    }

    /// The poll loop found no work: interrupts are enabled again.
    pub fn on_poll_empty(&mut self) {
        debug_assert!(self.masked, "polls run only after an interrupt");
        self.masked = false;
    }

    pub fn is_masked(&self) -> bool {
        self.masked
    }

    fn raise(&mut self) -> IrqAction {
        self.masked = true;
        self.pending = 0;
        self.oldest = None;
        self.irqs += 1;
        IrqAction::Raise
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: SimTime = SimTime(1_000_000);

    #[test]
    fn the_kth_event_raises() {
        let mut c = Coalescer::new(3, Span::from_us(10));
        assert_eq!(c.on_event(T), IrqAction::Arm(T + Span::from_us(10)));
        assert_eq!(c.on_event(T + Span::from_us(1)), IrqAction::Wait);
        assert_eq!(c.on_event(T + Span::from_us(2)), IrqAction::Raise);
        // Masked until the polls run dry: later events go to the poll loop.
        assert_eq!(c.on_event(T + Span::from_us(3)), IrqAction::Wait);
        // The timer armed for the first period no longer applies.
        assert!(!c.on_timer(T + Span::from_us(10)));
        c.on_poll_empty();
        assert_eq!(c.on_event(T + Span::from_us(20)), IrqAction::Arm(T + Span::from_us(30)));
        assert_eq!(c.irqs, 1);
    }

    #[test]
    fn the_delay_raises_a_lone_event() {
        let mut c = Coalescer::new(16, Span::from_us(10));
        assert_eq!(c.on_event(T), IrqAction::Arm(T + Span::from_us(10)));
        assert!(!c.on_timer(T + Span::from_us(9)));
        assert!(c.on_timer(T + Span::from_us(10)));
        assert!(c.is_masked());
        assert_eq!(c.irqs, 1);
    }

    #[test]
    fn without_coalescing_every_event_raises() {
        let mut c = Coalescer::new(1, Span::from_us(10));
        assert_eq!(c.on_event(T), IrqAction::Raise);
        c.on_poll_empty();
        assert_eq!(c.on_event(T), IrqAction::Raise);
        assert_eq!(c.irqs, 2);
    }
}
