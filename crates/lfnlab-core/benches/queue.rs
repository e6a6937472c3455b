//! The drop-tail FIFO (issue 9): one frame in and one out at a steady
//! occupancy of N frames, and a refused frame at a full queue.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use lfnlab_core::engine::time::SimTime;
use lfnlab_core::net::packet::Packet;
use lfnlab_core::net::queue::{Dequeue, Fifo, NoFlows, Qdisc};

fn steady(c: &mut Criterion) {
    let mut g = c.benchmark_group("queue/fifo");
    for n in [100u64, 10_000, 100_000] {
        let mut q = Fifo::new(None, None);
        for _ in 0..n {
            q.enqueue(SimTime(0), Packet::test_udp(1500)).expect("no limit");
        }
        g.bench_function(BenchmarkId::new("in_out", n), |b| {
            b.iter(|| {
                q.enqueue(SimTime(0), Packet::test_udp(1500)).expect("no limit");
                match q.dequeue(SimTime(0), &NoFlows(0)) {
                    Dequeue::Frame(p) => p,
                    _ => unreachable!("{n} frames queued"),
                }
            })
        });
    }
    let mut full = Fifo::new(None, Some(1_000));
    for _ in 0..1_000 {
        full.enqueue(SimTime(0), Packet::test_udp(1500)).expect("room");
    }
    g.bench_function("refused", |b| b.iter(|| full.enqueue(SimTime(0), Packet::test_udp(1500)).expect_err("full")));
    g.finish();
}

criterion_group!(benches, steady);
criterion_main!(benches);
