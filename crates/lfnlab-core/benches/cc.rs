//! Each congestion control of the registry (issue 9): one congestion-avoidance
//! ACK through `on_ack`, and a reduction through `ssthresh`, with the
//! algorithm's linux-modern defaults.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use lfnlab_core::engine::time::{SimTime, Span};
use lfnlab_core::host::cc::{ALGORITHMS, AckSample, CcContext, CcParams, CreateCtx, SsthreshReason, Window, reno, resolve_params};

fn context(now: u64) -> CcContext {
    let mut ctx = CcContext::example(SimTime(now));
    ctx.srtt = Some(Span::from_ms(100));
    ctx.min_rtt = Some(Span::from_ms(100));
    ctx.latest_rtt = Some(Span::from_ms(100));
    ctx.in_flight = 1_000;
    ctx.packets_out = 1_000;
    ctx.flight_size = 1_000;
    ctx
}

fn on_ack(c: &mut Criterion) {
    let mut g = c.benchmark_group("cc/on_ack");
    for alg in ALGORITHMS {
        let params = resolve_params(alg.name, "linux-modern", &CcParams::new()).expect("defaults resolve");
        let mut cc = (alg.create)(&params, &CreateCtx { basis: reno::Basis::Cwnd, seed: 1 });
        let mut w = Window { cwnd: 1_000.0, ssthresh: 500.0 };
        let mut now = 0u64;
        cc.init(&context(now), &mut w);
        let mut ack = AckSample::example(2, 1448);
        ack.rtt = Some(Span::from_ms(100));
        g.bench_function(BenchmarkId::from_parameter(alg.name), |b| {
            b.iter(|| {
                // 10 µs between ACKs; the window is reset when it has grown far.
                now += 10_000_000;
                let ctx = context(now);
                if cc.has_cong_control() {
                    cc.cong_control(&ctx, &mut w, &ack);
                } else {
                    cc.on_ack(&ctx, &mut w, &ack);
                }
                if !(1.0..100_000.0).contains(&w.cwnd) {
                    w.cwnd = 1_000.0;
                }
                w.cwnd
            })
        });
        g.bench_function(BenchmarkId::new("ssthresh", alg.name), |b| {
            b.iter(|| cc.ssthresh(&context(now), &w, SsthreshReason::FastRetransmit))
        });
    }
    g.finish();
}

criterion_group!(benches, on_ack);
criterion_main!(benches);
