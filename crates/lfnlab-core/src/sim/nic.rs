//! The world's side of the spec 04 host pipeline and of 802.3x PAUSE: it
//! schedules DMA completions on the host bus, moves frames through the NIC
//! FIFOs and rings, and sends, delivers and obeys PAUSE frames. The state
//! machines themselves are sans-IO (`host::nic`, `net::pause`).

use super::host::SocketView;
use super::network::Net;
use super::host::Hosts;
use crate::engine::event_queue::Event;
use crate::engine::time::{SimTime, Span};
use crate::host::nic::bus::Dir;
use crate::net::drop::DropCause;
use crate::net::packet::Packet;
use crate::monitor::pcap::Hop;
use crate::net::pause::{pause_span, PauseHonour, PAUSE_L2_BYTES};
use crate::net::queue::Dequeue;

/// Flow control of one egress port (spec 04 §2.5).
pub struct PortFc {
    /// Present when the port honours PAUSE (`fc.honour`).
    pub honour: Option<PauseHonour>,
    /// Reaction delay and one quantum at the port's rate.
    pub react: Span,
    pub quantum: Span,
    /// A PAUSE frame waiting for the transmitter (the latest request wins).
    pub pending: Option<u16>,
}

impl PortFc {
    pub fn new(rate_bps: u64, honour_react_quanta: Option<u32>) -> PortFc {
        PortFc {
            honour: honour_react_quanta.map(|_| PauseHonour::default()),
            react: pause_span(honour_react_quanta.unwrap_or(0) as u64, rate_bps),
            quantum: pause_span(1, rate_bps),
            pending: None,
        }
    }
}

impl Hosts {
    // ---- receive: link → RX FIFO → bus → host (spec 04 §2.4 rule 2) ----

    /// A frame's last bit reached host `h`'s NIC.
    pub(super) fn nic_rx_arrive(&mut self, net: &mut Net, h: u32, pkt: Packet) {
        let now = net.now;
        let l3 = pkt.l3_bytes as u64;
        let nic = self.nodes[h as usize].nic.as_mut().expect("a NIC pipeline");
        if nic.rx.arrive(pkt).is_err() {
            // `rx_fifo_drop`: no room for the frame's L2 bytes (counted by the FIFO).
            net.books.book_drop(now, now, DropCause::RxFifo, l3);
            return;
        }
        net.books.enter_queue(l3);
        let level = nic.rx.fifo_bytes();
        if let Some(q) = nic.xoff.as_mut().and_then(|g| g.on_level(now, level)) {
            self.request_pause(net, h, q);
        }
        self.nic_rx_dma_start(net, h);
    }

    /// Start the head frame's receive DMA if it may go.
    fn nic_rx_dma_start(&mut self, net: &mut Net, h: u32) {
        let now = net.now;
        let nic = self.nodes[h as usize].nic.as_mut().expect("a NIC pipeline");
        let Some(l2) = nic.rx.dma_candidate() else { return };
        nic.rx.dma_started();
        let done = match nic.bus.as_mut() {
            Some(bus) => bus.reserve(now, l2, Dir::Rx),
            None => now,
        };
        net.events.push(done, Event::NicRxDma(h));
    }

    /// The head frame is in host memory: TCP input, then the next DMA.
    pub(super) fn on_nic_rx_dma(&mut self, net: &mut Net, h: u32) {
        let now = net.now;
        let nic = self.nodes[h as usize].nic.as_mut().expect("a NIC pipeline");
        let pkt = nic.rx.dma_done();
        let level = nic.rx.fifo_bytes();
        if let Some(q) = nic.xoff.as_mut().and_then(|g| g.on_level(now, level)) {
            self.request_pause(net, h, q);
        }
        if self.nodes[h as usize].cpu.is_some() {
            // The CPU processes the frame later (spec 04 §2.7); its descriptor stays held.
            self.cpu_rx_ready(net, h, pkt);
            self.nic_rx_dma_start(net, h);
        } else {
            // No CPU model: the host processes the frame at once.
            self.nic_rx_processed(net, h, pkt);
        }
    }

    /// The host processed a received frame: its descriptor is refilled, the
    /// next DMA may start, and TCP takes the frame.
    pub(super) fn nic_rx_processed(&mut self, net: &mut Net, h: u32, pkt: Packet) {
        self.nodes[h as usize].nic.as_mut().expect("a NIC pipeline").rx.release_descriptor();
        net.books.leave_queue(pkt.l3_bytes as u64);
        net.books.deliver(pkt.l3_bytes as u64);
        self.nic_rx_dma_start(net, h);
        self.host_receive(net, h, pkt);
    }

    // ---- transmit: qdisc → TX ring → bus → TX FIFO → MAC (rule 3) ----

    /// TX completion of the frame that left the MAC, the driver (qdisc → ring)
    /// and the next TX DMA.
    pub(super) fn nic_tx_advance(&mut self, net: &mut Net, h: u32, port: u32) {
        let now = net.now;
        if net.ports[port as usize].busy_until <= now {
            let completed = self.nodes[h as usize].nic.as_mut().expect("a NIC pipeline").tx.complete();
            if completed && self.nodes[h as usize].cpu.is_some() {
                // The CPU cleans the completion later (spec 04 §2.7 rule 2).
                self.cpu_tx_completed(net, h);
            }
        }
        if let Some(m) = net.ports[port as usize].monitor {
            // The bins close before the qdisc changes (as kick_port does without a NIC).
            net.monitors[m as usize].advance(now, net.ports[port as usize].queue.stats());
        }
        let mut moved = false;
        loop {
            let nic = self.nodes[h as usize].nic.as_mut().expect("a NIC pipeline");
            if !nic.tx.has_descriptor() {
                break;
            }
            let p = &mut net.ports[port as usize];
            let view = SocketView { sockets: &self.sockets, flows: &self.flows, line_rate_bps: p.rate_bps };
            match p.queue.dequeue(now, &view) {
                Dequeue::Frame(pkt) => {
                    nic.tx.post(pkt);
                    self.tsq_release(&pkt);
                    moved = true;
                }
                Dequeue::WaitUntil(t) => {
                    p.wake(t, port, &mut net.events);
                    break;
                }
                Dequeue::Gap { .. } => {
                    debug_assert!(false, "the ipg qdisc is refused with the NIC pipeline at load");
                    break;
                }
                Dequeue::Empty => break,
            }
        }
        let nic = self.nodes[h as usize].nic.as_mut().expect("a NIC pipeline");
        while let Some(l2) = nic.tx.dma_candidate() {
            nic.tx.dma_started();
            match nic.bus.as_mut() {
                Some(bus) => {
                    let done = bus.reserve(now, l2, Dir::Tx);
                    net.events.push(done, Event::NicTxDma(h));
                    break;
                }
                None => nic.tx.dma_done(),
            }
        }
        if moved {
            self.restart_stalled(net, h);
        }
    }

    pub(super) fn on_nic_tx_dma(&mut self, net: &mut Net, h: u32) {
        self.nodes[h as usize].nic.as_mut().expect("a NIC pipeline").tx.dma_done();
        let port = self.nodes[h as usize].port;
        self.kick_host_port(net, h, port);
    }

    /// The MAC is free, not paused, with no PAUSE to send: start the head of
    /// the TX FIFO when the rate cap allows (spec 04 §2.6).
    pub(super) fn nic_mac_start(&mut self, net: &mut Net, h: u32, port: u32) {
        let now = net.now;
        let nic = self.nodes[h as usize].nic.as_mut().expect("a NIC pipeline");
        let Some(ready) = nic.tx.ready_at() else { return };
        if ready > now {
            net.ports[port as usize].wake(ready, port, &mut net.events);
            return;
        }
        let wire = nic.tx.head_l2().expect("a frame is ready") + net.ports[port as usize].framing_bytes as u64;
        let pkt = nic.tx.start(now, wire);
        let (busy_until, tx) = net.put_on_wire(port, &pkt);
        self.on_host_launch(net, h, &pkt, tx);
        // Always wake by the end: TX completion frees a descriptor and FIFO room.
        net.ports[port as usize].wake(busy_until, port, &mut net.events);
    }

    // ---- PAUSE (spec 04 §2.5) ----

    /// Host `h`'s generator asks for PAUSE(q) on its transmit side.
    fn request_pause(&mut self, net: &mut Net, h: u32, q: u16) {
        let port = self.nodes[h as usize].port;
        let refresh = self.nodes[h as usize].nic.as_ref().and_then(|n| n.xoff.as_ref()).and_then(|g| g.refresh_at());
        net.request_port_pause(port, q, refresh.map(|t| (t, Event::PauseRefresh(h))));
        self.kick_host_port(net, h, port);
    }

    /// Host `h`'s refresh timer (rule 2).
    pub(super) fn on_pause_refresh(&mut self, net: &mut Net, h: u32) {
        let now = net.now;
        let Some(nic) = self.nodes[h as usize].nic.as_mut() else { return };
        let level = nic.rx.fifo_bytes();
        let Some(g) = nic.xoff.as_mut() else { return };
        if g.refresh_at() != Some(now) {
            return; // superseded
        }
        if let Some(q) = g.on_refresh(now, level) {
            self.request_pause(net, h, q);
        }
    }
}

impl Net {
    /// A generator (host NIC or switch ingress account) asks for PAUSE(q) on
    /// `port`; with q > 0 its refresh timer fires `refresh` (time, event).
    /// The caller then kicks the port, which sends the frame when it may.
    pub(super) fn request_port_pause(&mut self, port: u32, q: u16, refresh: Option<(SimTime, Event)>) {
        let p = &mut self.ports[port as usize];
        let fc = p.fc.get_or_insert_with(|| Box::new(PortFc::new(p.rate_bps, None)));
        fc.pending = Some(q);
        if let Some((t, ev)) = refresh.filter(|_| q > 0) {
            self.events.push(t, ev);
        }
    }

    /// The MAC is free: the pending PAUSE frame goes out now.
    pub(super) fn send_pause_frame(&mut self, port: u32, q: u16) {
        let now = self.now;
        let p = &mut self.ports[port as usize];
        let ch = &mut self.channels[p.channel as usize];
        let pkt = Packet::pause(p.node, ch.to, q);
        if let Some(tap) = p.capture.map(|t| &mut self.taps[t as usize]) {
            if tap.wants(now, &pkt) {
                tap.on_frame(now, &pkt, &Hop { tx: p.node, rx: ch.to, ip_version: 4 });
            }
        }
        p.busy_until = now + Span::serialization(PAUSE_L2_BYTES + p.framing_bytes as u64, p.rate_bps);
        self.books.pause_on_link(pkt.l3_bytes as u64);
        let arrival = p.busy_until + ch.delay;
        if let Some(t) = ch.push(arrival, pkt) {
            self.events.push(t, Event::ChannelArrival(p.channel));
        }
        let t = p.busy_until;
        p.wake(t, port, &mut self.events);
    }

    /// A PAUSE frame arrived over channel `c`: the far end's port back toward
    /// the sender obeys it if it honours PAUSE, else ignores it. Returns that
    /// port when the frame (a PAUSE(0)) resumed it: its owner kicks it.
    #[must_use]
    pub(super) fn on_pause_frame(&mut self, c: u32, pkt: Packet) -> Option<u32> {
        self.books.pause_off_link(pkt.l3_bytes as u64);
        let port = self.reverse_port[c as usize];
        let now = self.now;
        let p = &mut self.ports[port as usize];
        let fc = p.fc.as_mut()?;
        let (react, quantum) = (fc.react, fc.quantum);
        let h = fc.honour.as_mut()?;
        h.on_pause(now, pkt.pause_quanta(), react, quantum);
        // PAUSE(0) resumed the port.
        (!h.is_paused(now)).then_some(port)
    }
}
