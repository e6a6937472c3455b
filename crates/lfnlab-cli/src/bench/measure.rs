//! The figures of a benchmark run (issue 9) and how repeats and series reduce
//! to one figure: the median run by wall time, the BDP series' flatness.
//! The unit of work is a data packet (`summary.data_packets`).

use lfnlab_core::results::summary::Summary;
use serde_json::{Value, json};

use super::memory::Rss;

/// Speed and memory figures of one benchmark run.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    pub name: String,
    pub data_packets: u64,
    pub events: u64,
    pub simulated_s: f64,
    pub wall_s: f64,
    /// Most frames in the network at once (`conservation.frames_in_network_max`).
    pub frames_in_network_max: u64,
    /// Resident memory before the run and its peak during it (None off Linux).
    pub rss_before: Option<Rss>,
    pub rss_peak_bytes: Option<u64>,
}

impl Measurement {
    pub fn from_summary(name: &str, s: &Summary) -> Measurement {
        Measurement {
            name: name.to_string(),
            data_packets: s.data_packets,
            events: s.events_executed,
            simulated_s: s.duration_s,
            wall_s: s.wall_seconds,
            frames_in_network_max: s.conservation.frames_in_network_max,
            rss_before: None,
            rss_peak_bytes: None,
        }
    }
    /// Guards the divisions of a run too short for the clock's resolution.
    fn wall(&self) -> f64 {
        self.wall_s.max(1e-9)
    }
    pub fn data_packets_per_s(&self) -> f64 {
        self.data_packets as f64 / self.wall()
    }
    pub fn events_per_s(&self) -> f64 {
        self.events as f64 / self.wall()
    }
    pub fn events_per_data_packet(&self) -> f64 {
        self.events as f64 / (self.data_packets.max(1) as f64)
    }
    pub fn simulated_per_wall(&self) -> f64 {
        self.simulated_s / self.wall()
    }
    pub fn ns_per_data_packet(&self) -> f64 {
        self.wall_s * 1e9 / (self.data_packets.max(1) as f64)
    }
    /// Memory the run added at its peak, per frame in the network at its peak:
    /// everything the run allocated (scoreboards, queues, rings, result
    /// tables) is charged to the frames, so this bounds the per-packet
    /// footprint from above. None without RSS readings or frames.
    pub fn bytes_per_in_flight_packet(&self) -> Option<f64> {
        let (before, peak) = (self.rss_before?, self.rss_peak_bytes?);
        (self.frames_in_network_max > 0).then(|| peak.saturating_sub(before.now_bytes) as f64 / self.frames_in_network_max as f64)
    }
    pub fn to_json(&self) -> Value {
        json!({
            "scenario": self.name,
            "data_packets": self.data_packets,
            "events": self.events,
            "simulated_s": self.simulated_s,
            "wall_s": self.wall_s,
            "data_packets_per_s": self.data_packets_per_s(),
            "events_per_s": self.events_per_s(),
            "events_per_data_packet": self.events_per_data_packet(),
            "simulated_per_wall": self.simulated_per_wall(),
            "ns_per_data_packet": self.ns_per_data_packet(),
            "frames_in_network_max": self.frames_in_network_max,
            "rss_before_bytes": self.rss_before.map(|r| r.now_bytes),
            "peak_rss_bytes": self.rss_peak_bytes,
            "bytes_per_in_flight_packet": self.bytes_per_in_flight_packet(),
        })
    }
}

/// The element of median `key` (the lower middle of an even count).
fn median_by<T>(runs: &[T], key: impl Fn(&T) -> f64) -> &T {
    assert!(!runs.is_empty(), "median of no runs");
    let mut order: Vec<&T> = runs.iter().collect();
    order.sort_by(|a, b| key(a).total_cmp(&key(b)));
    order[(runs.len() - 1) / 2]
}

/// The run of median wall time.
pub fn median(runs: &[Measurement]) -> &Measurement {
    median_by(runs, |m| m.wall_s)
}

/// One scenario's repeats: the median run's figures plus every run's wall time;
/// the memory figures are those of the run that read memory (the first run in
/// the process), or null.
pub fn repeats_json(runs: &[Measurement]) -> Value {
    let mut v = median(runs).to_json();
    let with_memory = runs.iter().find(|m| m.rss_peak_bytes.is_some()).map(Measurement::to_json);
    for key in ["rss_before_bytes", "peak_rss_bytes", "bytes_per_in_flight_packet"] {
        v[key] = with_memory.as_ref().map_or(Value::Null, |w| w[key].clone());
    }
    v["repeats"] = json!(runs.len());
    v["wall_s_runs"] = json!(runs.iter().map(|m| m.wall_s).collect::<Vec<_>>());
    v
}

/// Cost per data packet across the BDP series: each member's median ns per data
/// packet and the largest over the smallest (issue 9: within 2×).
pub fn flatness_json(medians: &[Measurement]) -> Option<Value> {
    if medians.len() < 2 {
        return None;
    }
    let ns: Vec<f64> = medians.iter().map(|m| m.ns_per_data_packet()).collect();
    let (lo, hi) = ns.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    Some(json!({
        "scenarios": medians.iter().map(|m| m.name.as_str()).collect::<Vec<_>>(),
        "ns_per_data_packet": ns,
        "max_over_min": hi / lo,
    }))
}

/// A sweep of equal runs: wall time one after another and on the workers.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepMeasurement {
    pub name: String,
    pub runs: usize,
    pub workers: usize,
    pub serial_wall_s: f64,
    pub parallel_wall_s: f64,
    /// The same speed-up for pure arithmetic, measured just after (`sweep::arithmetic_speedup`).
    pub machine_speedup: f64,
}

impl SweepMeasurement {
    pub fn speedup(&self) -> f64 {
        self.serial_wall_s / self.parallel_wall_s.max(1e-9)
    }
    pub fn to_json(&self) -> Value {
        json!({
            "scenario": self.name,
            "runs": self.runs,
            "workers": self.workers,
            "serial_wall_s": self.serial_wall_s,
            "parallel_wall_s": self.parallel_wall_s,
            "speedup": self.speedup(),
            "machine_speedup": self.machine_speedup,
        })
    }
}

/// The sweep of median speed-up, with every repeat's figures.
pub fn sweep_repeats_json(runs: &[SweepMeasurement]) -> Value {
    let mut v = median_by(runs, SweepMeasurement::speedup).to_json();
    v["repeats"] = json!(runs.len());
    v["speedup_runs"] = json!(runs.iter().map(SweepMeasurement::speedup).collect::<Vec<_>>());
    v["serial_wall_s_runs"] = json!(runs.iter().map(|m| m.serial_wall_s).collect::<Vec<_>>());
    v["parallel_wall_s_runs"] = json!(runs.iter().map(|m| m.parallel_wall_s).collect::<Vec<_>>());
    v["machine_speedup_runs"] = json!(runs.iter().map(|m| m.machine_speedup).collect::<Vec<_>>());
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(name: &str, data_packets: u64, wall_s: f64) -> Measurement {
        Measurement {
            name: name.into(),
            data_packets,
            events: 5 * data_packets,
            simulated_s: 60.0,
            wall_s,
            frames_in_network_max: 0,
            rss_before: None,
            rss_peak_bytes: None,
        }
    }

    #[test]
    fn figures_are_ratios_of_the_summary() {
        let x = m("x", 1_000, 2.0);
        assert_eq!(x.data_packets_per_s(), 500.0);
        assert_eq!(x.events_per_s(), 2_500.0);
        assert_eq!(x.events_per_data_packet(), 5.0);
        assert_eq!(x.simulated_per_wall(), 30.0);
        assert_eq!(x.ns_per_data_packet(), 2e6);
        assert_eq!(x.to_json()["ns_per_data_packet"], 2e6);
        assert_eq!(x.bytes_per_in_flight_packet(), None);
        assert!(x.to_json()["bytes_per_in_flight_packet"].is_null());
    }

    #[test]
    fn in_flight_bytes_charge_the_whole_growth_to_the_peak_frames() {
        let x = Measurement {
            frames_in_network_max: 1_000,
            rss_before: Some(Rss { now_bytes: 10_000_000, peak_bytes: 50_000_000 }),
            rss_peak_bytes: Some(10_200_000),
            ..m("x", 1, 1.0)
        };
        assert_eq!(x.bytes_per_in_flight_packet(), Some(200.0));
        assert_eq!(Measurement { frames_in_network_max: 0, ..x.clone() }.bytes_per_in_flight_packet(), None);
    }

    #[test]
    fn median_is_the_middle_wall_time() {
        let runs = [m("a", 1, 3.0), m("b", 1, 1.0), m("c", 1, 2.0)];
        assert_eq!(median(&runs).name, "c");
        assert_eq!(median(&runs[..2]).name, "b");
        let v = repeats_json(&runs);
        assert_eq!(v["wall_s"], 2.0);
        assert_eq!(v["wall_s_runs"], json!([3.0, 1.0, 2.0]));
        assert_eq!(v["repeats"], 3);
        assert!(v["peak_rss_bytes"].is_null());
    }

    #[test]
    fn repeats_take_memory_from_the_run_that_read_it() {
        let first = Measurement {
            frames_in_network_max: 1_000,
            rss_before: Some(Rss { now_bytes: 10_000_000, peak_bytes: 10_000_000 }),
            rss_peak_bytes: Some(10_300_000),
            ..m("a", 1, 3.0)
        };
        let v = repeats_json(&[first, m("b", 1, 1.0), m("c", 1, 2.0)]);
        assert_eq!(v["wall_s"], 2.0, "speed from the median run");
        assert_eq!((v["peak_rss_bytes"].clone(), v["bytes_per_in_flight_packet"].clone()), (json!(10_300_000), json!(300.0)));
    }

    #[test]
    fn flatness_is_the_largest_over_the_smallest_cost() {
        let (a, b, c) = (m("a", 1_000, 1e-3), m("b", 1_000, 3e-3), m("c", 2_000, 3e-3));
        let v = flatness_json(&[a.clone(), b, c]).unwrap();
        assert_eq!(v["ns_per_data_packet"], json!([1000.0, 3000.0, 1500.0]));
        assert_eq!(v["max_over_min"], 3.0);
        assert!(flatness_json(&[a]).is_none());
    }

    #[test]
    fn sweep_speedup_is_serial_over_parallel() {
        let s = |p: f64| SweepMeasurement { name: "s".into(), runs: 8, workers: 2, serial_wall_s: 16.0, parallel_wall_s: p, machine_speedup: 20.0 / p };
        assert_eq!(s(8.0).speedup(), 2.0);
        let v = sweep_repeats_json(&[s(10.0), s(8.0), s(9.0)]);
        assert_eq!(v["parallel_wall_s"], 9.0);
        assert_eq!(v["speedup_runs"], json!([1.6, 2.0, 16.0 / 9.0]));
        assert_eq!(v["machine_speedup"], 20.0 / 9.0, "the median repeat's own ceiling");
        assert_eq!(v["machine_speedup_runs"], json!([2.0, 2.5, 20.0 / 9.0]));
    }
}
