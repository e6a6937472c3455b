//! Invariants of a running world (issue 12; STYLE point 8). `ledger` is the
//! end-of-run conservation check of every run; `check` runs after every event
//! when `World::check_invariants` is on (debug builds, and tests that ask):
//!
//! - `time`: simulated time never goes back, and no pending event lies in the past;
//! - `conservation`: frames and L3 bytes emitted = delivered + dropped + queued +
//!   in processing + on links, and what the books call queued is what the queues,
//!   NICs and switches hold (spec 06 §7 V5); per link direction, frames and
//!   bytes launched = arrived + on the link; every dropped frame has a place and
//!   a cause (queue drops by cause, TTL expiry, link loss, NIC receive FIFOs,
//!   switch refusals add up to the network's drops);
//! - `queue`: every queue's counters agree (enqueued = dequeued + held, in frames
//!   and bytes) and a tail-drop FIFO never holds more than its limit;
//! - `tcp`: per connection and direction, snd_una ≤ the receiver's rcv_nxt ≤
//!   snd_max (nothing is acknowledged before it arrives, nothing arrives before it
//!   is sent).

use super::books::Books;
use super::port::PortQueue;
use super::host::FlowEnds;
use super::world::World;
use crate::net::drop::{DropCause, DropPlace};
use crate::engine::time::SimTime;

/// A broken invariant: which, when, where.
#[derive(Clone, Debug, PartialEq)]
pub struct Violation {
    pub invariant: &'static str,
    pub at: SimTime,
    pub entity: String,
    pub detail: String,
}

/// The books against the network's contents at one instant.
pub struct Ledger {
    /// The books, with frames an eager port holds counted as queued.
    pub books: Books,
    pub on_links_frames: u64,
    pub on_links_bytes: u64,
    /// What does not balance, in words; empty when all does.
    pub problems: Vec<String>,
}

impl World {
    /// Balances the books against the contents of queues, stages and links.
    /// Needs no settling of eager queues: a frame an eager port accepted is
    /// queued until released and counted on its link only after that.
    pub fn ledger(&self) -> Ledger {
        let mut b = self.net.books.clone();
        // Frames an eager port accepted whose transmission has not started are
        // on its link direction's ring, yet still queued (net::eager_fifo). The
        // port settles lazily, so its own counters may still hold frames that
        // started (even arrived) since: they are counted as of `now`. A port
        // that feeds an early channel (sim::early) forwarded its frames at
        // acceptance: they are booked where they are now, not here nor on the link.
        let mut feeds_early = vec![false; self.net.ports.len()];
        for (c, &p) in self.net.eager_feeder.iter().enumerate() {
            if p != u32::MAX && self.net.early.get(c).copied().unwrap_or(false) {
                feeds_early[p as usize] = true;
            }
        }
        let (mut waiting_frames, mut waiting_bytes, mut port_frames) = (0, 0, 0);
        for (pi, p) in self.net.ports.iter().enumerate() {
            match &p.queue {
                PortQueue::Eager(_) if feeds_early[pi] => {}
                PortQueue::Eager(q) => {
                    let (f, by) = q.waiting_at(self.net.now);
                    waiting_frames += f;
                    waiting_bytes += by;
                    port_frames += f;
                }
                PortQueue::Disc(q) => port_frames += q.stats().packets,
            }
        }
        b.queued_frames += waiting_frames;
        b.queued_bytes += waiting_bytes;
        let mut problems = Vec::new();
        // PAUSE frames on links are MAC control, outside the books. Checked
        // subtraction: more frames waiting than on the links is itself a fault.
        let on_link = |total: u64, less: u64, what: &str, problems: &mut Vec<String>| {
            total.checked_sub(less).unwrap_or_else(|| {
                problems.push(format!("links hold {total} {what}, fewer than the {less} counted as waiting to start or MAC control"));
                0
            })
        };
        let total_frames = self.net.channels.iter().map(|c| c.frames_on_link()).sum::<u64>();
        let total_bytes = self.net.channels.iter().map(|c| c.bytes_on_link()).sum::<u64>();
        let on_links_frames = on_link(total_frames, b.control_frames_on_links + waiting_frames, "frames", &mut problems);
        let on_links_bytes = on_link(total_bytes, b.control_bytes_on_links + waiting_bytes, "bytes", &mut problems);
        // Frames in a host NIC's rings and FIFOs are still queued at that host (spec 04 §2.3).
        let in_nics: u64 = self.hosts.nodes.iter().filter_map(|h| h.nic.as_ref()).map(|n| n.tx.frames_held() + n.rx.fifo_frames()).sum::<u64>()
            + self.hosts.nodes.iter().filter_map(|h| h.cpu.as_ref()).map(|c| c.rx_frames_held()).sum::<u64>();
        let queued_frames: u64 = port_frames + in_nics + self.switch_frames_held();
        if queued_frames != b.queued_frames {
            problems.push(format!("queues hold {queued_frames} frames, books say {}", b.queued_frames));
        }
        let processing_frames: u64 = self.net.ports.iter().filter_map(|p| p.proc.as_ref()).map(|s| s.frames_held()).sum();
        let processing_bytes: u64 = self.net.ports.iter().filter_map(|p| p.proc.as_ref()).map(|s| s.bytes_held()).sum();
        if (processing_frames, processing_bytes) != (b.processing_frames, b.processing_bytes) {
            problems.push(format!(
                "processing stages hold {processing_frames}/{processing_bytes} B, books say {}/{} B",
                b.processing_frames, b.processing_bytes
            ));
        }
        let frames_ok = b.emitted_frames == b.delivered_frames + b.dropped_frames + b.queued_frames + b.processing_frames + on_links_frames;
        let bytes_ok = b.emitted_bytes == b.delivered_bytes + b.dropped_bytes + b.queued_bytes + b.processing_bytes + on_links_bytes;
        if !frames_ok || !bytes_ok {
            problems.push(format!(
                "packet conservation: emitted {}/{} B, delivered {}/{} B, dropped {}/{} B, queued {}/{} B, processing {}/{} B, on links {}/{} B",
                b.emitted_frames, b.emitted_bytes, b.delivered_frames, b.delivered_bytes, b.dropped_frames, b.dropped_bytes,
                b.queued_frames, b.queued_bytes, b.processing_frames, b.processing_bytes, on_links_frames, on_links_bytes
            ));
        }
        // Per link direction: what was put on it either arrived or is on it.
        for (i, c) in self.net.channels.iter().enumerate() {
            if c.frames_launched != c.frames_delivered + c.frames_on_link() || c.bytes_launched != c.bytes_delivered + c.bytes_on_link() {
                problems.push(format!(
                    "link direction {i} ({} → {}): launched {}/{} B, arrived {}/{} B, on the link {}/{} B",
                    self.net.node_names[c.from as usize], self.net.node_names[c.to as usize], c.frames_launched, c.bytes_launched,
                    c.frames_delivered, c.bytes_delivered, c.frames_on_link(), c.bytes_on_link()
                ));
            }
        }
        // Every drop has a place and a cause: the books' drops by cause add up
        // to the network's dropped frames, and for each cause the places that
        // decide it (queues by cause, link loss models, NIC receive FIFOs,
        // switch cores) counted what the books say. A routing hop keeps no
        // count of its own: TTL and no-route drops are the books' alone.
        if b.drops.total() != b.dropped_frames {
            problems.push(format!("drops: books say {} frames, {} by cause", b.dropped_frames, b.drops.total()));
        }
        for cause in DropCause::ALL {
            let placed: Option<u64> = match cause.place() {
                DropPlace::Queue => Some(self.net.ports.iter().map(|p| p.queue.stats().drops.get(cause)).sum()),
                DropPlace::Link => Some(self.net.losses.iter().flatten().filter(|l| l.cause() == cause).map(|l| l.dropped).sum()),
                DropPlace::NicRx => Some(self.hosts.nodes.iter().filter_map(|h| h.nic.as_ref()).map(|n| n.rx.stats.fifo_drops).sum()),
                DropPlace::Switch => Some(self.switches.iter().map(|s| s.refused_frames).sum()),
                DropPlace::Hop => None,
                // A socket's discards are delivered frames, outside the network's books.
                DropPlace::Socket => Some(0),
            };
            if let Some(n) = placed.filter(|n| *n != b.drops.get(cause)) {
                problems.push(format!("drops of cause {}: books say {} frames, their places say {n}", cause.name(), b.drops.get(cause)));
            }
        }
        Ledger { books: b, on_links_frames, on_links_bytes, problems }
    }

    /// Every invariant of the module notes, after an event executed at `self.now`;
    /// `before` is the time of the event before it.
    pub fn check(&self, before: SimTime) -> Result<(), Violation> {
        let now = self.net.now;
        let fail = |invariant: &'static str, entity: String, detail: String| Err(Violation { invariant, at: now, entity, detail });
        if now < before {
            return fail("time", "clock".into(), format!("went back from {} s", before.as_secs_f64()));
        }
        if let Some(t) = self.net.events.peek_time().filter(|&t| t < now) {
            return fail("time", "event queue".into(), format!("an event is pending at {} s, in the past", t.as_secs_f64()));
        }
        for p in &self.net.ports {
            if let Err(detail) = p.queue.check() {
                return fail("queue", format!("port {}", p.name), detail);
            }
        }
        let ledger = self.ledger();
        if let Some(p) = ledger.problems.first() {
            return fail("conservation", "network".into(), p.clone());
        }
        for (f, ends) in self.hosts.flows.iter().enumerate() {
            let single;
            let pairs: &[(u32, u32)] = match ends {
                FlowEnds::Tcp(e) => {
                    single = [(e.initiator, e.acceptor)];
                    &single
                }
                FlowEnds::Web(w) => &self.hosts.web[*w as usize].sockets,
                FlowEnds::Udp(_) => &[],
            };
            for (conn, &(a, b)) in pairs.iter().enumerate() {
                for (snd, rcv) in [(a, b), (b, a)] {
                    let (s, r) = (&self.hosts.sockets[snd as usize], &self.hosts.sockets[rcv as usize]);
                    let (una, max, nxt) = (s.snd.snd_una, s.snd.snd_max, r.rcv.rcv_nxt);
                    if !(una <= nxt && nxt <= max) {
                        let entity = format!("flow {} connection {conn} socket {snd}", self.hosts.flow_names[f]);
                        return fail("tcp", entity, format!("snd_una {una} ≤ rcv_nxt {nxt} ≤ snd_max {max} does not hold"));
                    }
                }
            }
        }
        Ok(())
    }
}
