//! One link direction (issue 9): a frame onto the wire and one off it, with a
//! window of N frames propagating, N up to the 10 Gbit/s × 500 ms BDP in 1500-byte
//! frames (≈ 420 000). The channel keeps its frames itself, so the cost per
//! frame must not depend on N.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use lfnlab_core::engine::time::{SimTime, Span};
use lfnlab_core::net::link::channel::Channel;
use lfnlab_core::net::packet::Packet;

/// 1538 wire bytes at 10 Gbit/s, in picoseconds.
const FRAME_PS: u64 = 1_230_400;

fn steady_window(c: &mut Criterion) {
    let mut g = c.benchmark_group("link/push_pop");
    for n in [1_000u64, 100_000, 420_000] {
        let delay = Span(n * FRAME_PS);
        let mut ch = Channel::new(0, 1, 10_000_000_000, delay);
        let mut now = 0u64;
        for _ in 0..n {
            now += FRAME_PS;
            ch.push(SimTime(now + delay.0), Packet::test_udp(1500));
        }
        g.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter(|| {
                now += FRAME_PS;
                ch.push(SimTime(now + delay.0), Packet::test_udp(1500));
                ch.pop_arrived(SimTime(now + FRAME_PS)).expect("the head has arrived")
            })
        });
    }
    g.finish();
}

criterion_group!(benches, steady_window);
criterion_main!(benches);
