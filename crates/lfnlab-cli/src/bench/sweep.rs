//! Sweep-level speed (issue 9): `runs` equal runs of one scenario, first one
//! after another on this thread, then shared by `workers` threads that each
//! take the next run until none is left (as `lfnlab reproduce --workers` does).
//! Beside it, the machine's own ceiling: the same speed-up for a loop of pure
//! arithmetic, which shares no cache and no memory bandwidth, so that a sweep's
//! figure can be read against what the cores give at that moment.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use lfnlab_core::Error;
use lfnlab_core::scenario::model::Scenario;
use lfnlab_core::sim;

use super::measure::SweepMeasurement;

/// Time both schedules. Every run must give the same event hash: the runs are
/// equal, and a difference would mean the threads disturbed each other.
pub fn measure(name: &str, s: &Scenario, runs: usize, workers: usize) -> Result<SweepMeasurement, Error> {
    let t = Instant::now();
    let mut hashes = Vec::with_capacity(2 * runs);
    for _ in 0..runs {
        hashes.push(sim::run(s)?.summary.event_hash);
    }
    let serial_wall_s = t.elapsed().as_secs_f64();

    let next = AtomicUsize::new(0);
    let t = Instant::now();
    let parallel: Vec<Result<Vec<String>, Error>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    while next.fetch_add(1, Ordering::Relaxed) < runs {
                        mine.push(sim::run(s)?.summary.event_hash);
                    }
                    Ok(mine)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(Error::Runtime(format!("{name}: a sweep worker panicked"))))).collect()
    });
    let parallel_wall_s = t.elapsed().as_secs_f64();
    for r in parallel {
        hashes.extend(r?);
    }
    if hashes.iter().any(|h| *h != hashes[0]) || hashes.len() != 2 * runs {
        return Err(Error::Runtime(format!("{name}: equal runs gave different event hashes")));
    }
    let machine_speedup = arithmetic_speedup(workers);
    Ok(SweepMeasurement { name: name.to_string(), runs, workers, serial_wall_s, parallel_wall_s, machine_speedup })
}

/// Iterations of the arithmetic loop: about 0.33 s on one core of this machine.
const SPIN_ITERATIONS: u64 = 200_000_000;

/// A dependent chain of shifts and exclusive ors (xorshift64) that touches no
/// memory. (A multiply-add chain would not do: the compiler reassociates it
/// into independent lanes, and 2·10^8 steps take 40 ms.)
fn spin(iterations: u64) -> u64 {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..std::hint::black_box(iterations) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    std::hint::black_box(x)
}

/// `workers` copies of the loop at once against one alone: workers × t_one / t_all.
pub fn arithmetic_speedup(workers: usize) -> f64 {
    let t = Instant::now();
    spin(SPIN_ITERATIONS);
    let one_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| spin(SPIN_ITERATIONS));
        }
    });
    workers as f64 * one_s / t.elapsed().as_secs_f64().max(1e-9)
}
