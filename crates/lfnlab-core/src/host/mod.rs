//! End hosts: TCP (`tcp`), congestion control (`cc`), the queue disciplines
//! between the sockets and the NIC (`qdisc`), the NIC pipeline of spec 04
//! (`nic`: bus, rings, FIFOs, rate cap) and the CPU model (`cpu`). The NIC's
//! transmitter is a `sim::port::Port` whose queue is the host qdisc.
pub mod cc;
pub mod cpu;
pub mod nic;
pub mod qdisc;
pub mod tcp;
