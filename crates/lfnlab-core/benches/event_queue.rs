//! The pending-event set under the hold model (issue 9): with N events pending,
//! pop the earliest and push one a random span later, N from a thousand to a
//! million. A cost that grows with N would show here first.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use lfnlab_core::engine::event_queue::{Event, EventQueue};
use lfnlab_core::engine::time::SimTime;
use lfnlab_core::engine::rng::Stream;

/// Spans up to ~1 ms in picoseconds.
fn span(rng: &mut Stream) -> u64 {
    rng.next_u64() >> 24
}

fn hold(c: &mut Criterion) {
    let mut g = c.benchmark_group("event_queue/hold");
    for n in [1_000u32, 100_000, 1_000_000] {
        let mut rng = Stream::derive(1, "bench");
        let mut q = EventQueue::new();
        for i in 0..n {
            q.push(SimTime(span(&mut rng)), Event::ChannelArrival(i));
        }
        g.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter(|| {
                let (t, e) = q.pop().expect("n events pending");
                q.push(SimTime(t.0 + span(&mut rng)), e);
            })
        });
    }
    g.finish();
}

criterion_group!(benches, hold);
criterion_main!(benches);
