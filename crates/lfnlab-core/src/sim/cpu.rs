//! The world's side of the host CPU (spec 04 §2.7): it raises interrupts,
//! runs each core's work items one at a time and carries out what they do —
//! TX completions free descriptors, received frames go to TCP, built packets
//! enter the qdisc, write() and read() move data between the application and
//! the socket. The state machines and the prices are sans-IO (`host::cpu`).

use super::network::Net;
use super::host::Hosts;
use crate::engine::event_queue::Event;
use crate::host::cpu::core::{Class, Running, Work};
use crate::host::cpu::config::Cycles;
use crate::host::cpu::irq::IrqAction;
use crate::host::cpu::{HostCpu, POLL_BUDGET};
use crate::net::packet::Packet;

pub use crate::host::cpu::MAX_CORES;

/// Application flags per socket (`World::cpu_app`).
pub const APP_WRITING: u8 = 1;
pub const APP_READING: u8 = 2;

impl Hosts {
    fn cpu(&mut self, h: u32) -> &mut HostCpu {
        self.nodes[h as usize].cpu.as_mut().expect("a CPU model")
    }

    // ---- events from the NIC (rule 2) ----

    /// A received frame is in host memory (its RX descriptor stays held).
    pub(super) fn cpu_rx_ready(&mut self, net: &mut Net, h: u32, pkt: Packet) {
        self.cpu(h).rx_done.push_back(pkt);
        self.cpu_nic_event(net, h);
    }

    /// A frame left the MAC (its TX descriptor stays held until cleaned).
    pub(super) fn cpu_tx_completed(&mut self, net: &mut Net, h: u32) {
        self.cpu(h).tx_done += 1;
        self.cpu_nic_event(net, h);
    }

    fn cpu_nic_event(&mut self, net: &mut Net, h: u32) {
        let now = net.now;
        match self.cpu(h).irq.on_event(now) {
            IrqAction::Raise => self.cpu_raise(net, h),
            IrqAction::Arm(t) => net.events.push(t, Event::IrqTimer(h)),
            IrqAction::Wait => {}
        }
    }

    pub(super) fn on_irq_timer(&mut self, net: &mut Net, h: u32) {
        let now = net.now;
        if self.cpu(h).irq.on_timer(now) {
            self.cpu_raise(net, h);
        }
    }

    fn cpu_raise(&mut self, net: &mut Net, h: u32) {
        self.cpu_push(net, h, Class::Softirq, Work::Irq);
    }

    /// Queue work in `class` on the core that serves it, and start it if idle.
    fn cpu_push(&mut self, net: &mut Net, h: u32, class: Class, w: Work) {
        let cpu = self.cpu(h);
        let c = cpu.core_of(class);
        cpu.cores[c as usize].push(class, w);
        self.cpu_kick(net, h, c);
    }

    // ---- serving ----

    /// Start core `c`'s next item if it is idle.
    fn cpu_kick(&mut self, net: &mut Net, h: u32, c: u32) {
        let now = net.now;
        loop {
            let core = &mut self.cpu(h).cores[c as usize];
            if !core.is_idle() {
                return;
            }
            let Some((class, w)) = core.pop() else { return };
            let Some((item, cost)) = self.cpu_price(h, class, w) else { continue };
            let cpu = self.cpu(h);
            let (scale, ppc) = (cpu.scale(), cpu.ps_per_cycle());
            let done = cpu.cores[c as usize].start(now, item, cost, scale, ppc);
            net.events.push(done, Event::CpuDone(h * MAX_CORES + c));
            return;
        }
    }

    /// What a queued item becomes when it starts, and its cost; `None` when
    /// there is nothing to do (the poll loop ran dry, the reader found no data).
    fn cpu_price(&mut self, h: u32, class: Class, w: Work) -> Option<(Running, Cycles)> {
        // A field borrow: the arms also read the sockets.
        let cpu = self.nodes[h as usize].cpu.as_mut().expect("a CPU model");
        match w {
            Work::Irq => Some((Running::Irq, cpu.cfg.irq_cost())),
            Work::Poll => {
                if cpu.poll_left == 0 {
                    cpu.poll_left = POLL_BUDGET;
                    cpu.stats.polls += 1;
                }
                // TX completions are cleaned before RX frames are processed.
                if cpu.tx_done > 0 {
                    cpu.tx_done -= 1;
                    cpu.poll_left -= 1;
                    return Some((Running::TxClean, cpu.cfg.tx_clean_cost()));
                }
                let Some(pkt) = cpu.rx_done.pop_front() else {
                    // No work left: interrupts are enabled again.
                    cpu.poll_left = 0;
                    cpu.irq.on_poll_empty();
                    return None;
                };
                cpu.poll_left -= 1;
                let socket = self.packet_socket(&pkt, true);
                let (b_rcv, walked) = socket.map_or((0, 0), |s| {
                    let sock = &self.sockets[s as usize];
                    (sock.rcv.b_rcv, sock.snd.sb.pipe())
                });
                let cost = self.cpu(h).cfg.rx_cost(&pkt, b_rcv, walked);
                Some((Running::Rx { pkt, socket }, cost))
            }
            Work::Output(n) => {
                let mut cost = Cycles::default();
                let process = class == Class::Process;
                for &(s, ref pkt) in cpu.held.iter().take(n as usize) {
                    let c = cpu.cfg.output_cost(pkt, self.sockets[s as usize].snd.app.b_snd_bytes, process);
                    cost.system += c.system;
                    cost.softirq += c.softirq;
                }
                Some((Running::Output(n), cost))
            }
            Work::Write(s) => {
                let room = self.sockets[s as usize].snd.writer_room();
                let cpu = self.cpu(h);
                let bytes = room.min(cpu.cfg.write_bytes);
                if bytes == 0 {
                    self.cpu_app[s as usize] &= !APP_WRITING;
                    return None;
                }
                Some((Running::Write { socket: s, bytes }, cpu.cfg.call_cost(bytes, true)))
            }
            Work::Read(s) => {
                let bytes = self.sockets[s as usize].rcv.readable().min(cpu.cfg.read_bytes);
                if bytes == 0 {
                    self.cpu_app[s as usize] &= !APP_READING;
                    return None;
                }
                Some((Running::Read { socket: s, bytes }, cpu.cfg.call_cost(bytes, false)))
            }
        }
    }

    /// Core `c` of host `h` finished its item: carry it out, then serve the next.
    pub(super) fn on_cpu_done(&mut self, net: &mut Net, h: u32, c: u32) {
        let item = self.cpu(h).cores[c as usize].finish();
        match item {
            Running::Irq => self.cpu_push(net, h, Class::Softirq, Work::Poll),
            Running::TxClean => {
                self.cpu(h).stats.tx_cleaned += 1;
                self.nodes[h as usize].nic.as_mut().expect("a NIC pipeline").tx.reclaim();
                let port = self.nodes[h as usize].port;
                self.kick_host_port(net, h, port);
                self.cpu_push(net, h, Class::Softirq, Work::Poll);
            }
            Running::Rx { pkt, socket } => {
                self.cpu(h).stats.rx_frames += 1;
                self.nic_rx_processed(net, h, pkt);
                // An ACK may have made room for the writer, data may wait for the reader.
                if let Some(s) = socket {
                    self.cpu_app_wake(net, s);
                }
                self.cpu_push(net, h, Class::Softirq, Work::Poll);
            }
            Running::Output(n) => {
                self.cpu(h).stats.packets_built += n as u64;
                let mut out = std::mem::take(&mut self.out);
                for _ in 0..n {
                    let (s, pkt) = self.cpu(h).held.pop_front().expect("held packets");
                    out.push(pkt);
                    self.enqueue_host_packets(net, s, &mut out);
                }
                self.out = out;
                let port = self.nodes[h as usize].port;
                self.kick_host_port(net, h, port);
            }
            Running::Write { socket, bytes } => {
                let cpu = self.cpu(h);
                cpu.stats.writes += 1;
                cpu.stats.bytes_written += bytes;
                self.sockets[socket as usize].snd.app_push(bytes);
                self.cpu_in_process(net, h, |w, net| w.pump(net, socket));
                self.cpu_app[socket as usize] &= !APP_WRITING;
                self.cpu_app_wake(net, socket);
            }
            Running::Read { socket, bytes } => {
                let cpu = self.cpu(h);
                cpu.stats.reads += 1;
                cpu.stats.bytes_read += bytes;
                self.cpu_in_process(net, h, |w, net| {
                    let mut out = std::mem::take(&mut w.out);
                    w.sockets[socket as usize].app_read(net.now, bytes, &mut out);
                    w.emit(net, socket, &mut out);
                    w.out = out;
                });
                self.cpu_app[socket as usize] &= !APP_READING;
                self.cpu_app_wake(net, socket);
            }
        }
        self.cpu_kick(net, h, c);
    }

    /// Run TCP code in process context: its output is built by the app core.
    fn cpu_in_process(&mut self, net: &mut Net, h: u32, f: impl FnOnce(&mut Hosts, &mut Net)) {
        self.cpu(h).ctx = Class::Process;
        f(self, net);
        self.cpu(h).ctx = Class::Softirq;
    }

    // ---- TCP output and the application (rules 3–4) ----

    /// Packets TCP produced at a CPU host wait for the core that builds them.
    pub(super) fn cpu_hold(&mut self, net: &mut Net, h: u32, s: u32, out: &mut Vec<Packet>) {
        let cpu = self.cpu(h);
        let class = cpu.ctx;
        let n = out.len() as u32;
        cpu.held.extend(out.drain(..).map(|p| (s, p)));
        self.cpu_push(net, h, class, Work::Output(n));
    }

    /// Queue the writer or reader of socket `s` (at a CPU host) if it has something to do.
    fn cpu_app_wake(&mut self, net: &mut Net, s: u32) {
        let h = self.socket_host[s as usize];
        let flags = self.cpu_app[s as usize];
        let sock = &mut self.sockets[s as usize];
        if flags & APP_WRITING == 0 && sock.snd.app.external_writer() && sock.snd.writer_room() > 0 {
            self.cpu_app[s as usize] |= APP_WRITING;
            self.cpu_push(net, h, Class::Process, Work::Write(s));
        }
        let sock = &self.sockets[s as usize];
        if flags & APP_READING == 0 && sock.rcv.readable() > 0 {
            self.cpu_app[s as usize] |= APP_READING;
            self.cpu_push(net, h, Class::Process, Work::Read(s));
        }
    }
}
