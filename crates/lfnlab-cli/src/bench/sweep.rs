//! Sweep-level speed (issue 9): `runs` equal runs of one scenario, first one
//! after another on this thread, then shared by `workers` threads that each
//! take the next run until none is left (as `lfnlab reproduce --workers` does).

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
    Ok(SweepMeasurement { name: name.to_string(), runs, workers, serial_wall_s, parallel_wall_s })
}
