//! The sender's SACK scoreboard (issue 9): a segment sent and one cumulatively
//! acknowledged with a window of N outstanding, N up to a 10 Gbit/s × 500 ms
//! window; and a SACK block above a hole at the front of that window. The
//! costs per call must not grow with N.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use lfnlab_core::host::tcp::scoreboard::{SegRecord, Scoreboard};

const MSS: u16 = 1448;

fn seg(i: u64) -> SegRecord {
    SegRecord::test_segment(i, MSS)
}

fn window(n: u64) -> Scoreboard {
    let mut sb = Scoreboard::new();
    for i in 0..n {
        sb.push(seg(i));
    }
    sb
}

fn send_and_ack(c: &mut Criterion) {
    let mut g = c.benchmark_group("scoreboard/send_ack");
    for n in [1_000u64, 100_000, 430_000] {
        let mut sb = window(n);
        let mut next = n;
        g.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter(|| {
                sb.push(seg(next));
                next += 1;
                sb.ack_cum((next - n) * MSS as u64)
            })
        });
    }
    g.finish();
}

/// The front segment lost: each call SACKs the next segment above the hole,
/// then the bench re-opens the window when the SACKed run reaches its end.
fn sack_above_hole(c: &mut Criterion) {
    let mut g = c.benchmark_group("scoreboard/sack");
    for n in [1_000u64, 100_000, 430_000] {
        let mut sb = window(n);
        let mut k = 1u64;
        g.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter(|| {
                if k == n {
                    sb = window(n);
                    k = 1;
                }
                let base = sb.base();
                let got = sb.sack((base + k) * MSS as u64, (base + k + 1) * MSS as u64, |_| {});
                k += 1;
                got
            })
        });
    }
    g.finish();
}

criterion_group!(benches, send_and_ack, sack_above_hole);
criterion_main!(benches);
