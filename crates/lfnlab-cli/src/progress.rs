//! The progress display of `lfnlab run` (issue 10, docs/progress.md): one line
//! on a terminal, rewritten in place; JSON lines with `--progress json`; nothing
//! when stderr is not a terminal or with `--quiet`. Always on stderr, so that
//! stdout keeps only the results.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use clap::ValueEnum;
use lfnlab_core::sim::Progress;

/// `--progress`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProgressMode {
    /// A line on a terminal (stderr); nothing otherwise or with --quiet
    Auto,
    /// One JSON object per line on stderr, whatever stderr is
    Json,
    /// Nothing
    None,
}

/// Seconds between two updates of the terminal line.
const TERMINAL_EVERY: Duration = Duration::from_millis(200);
/// Seconds between two JSON lines (the first and last are always written).
const JSON_EVERY: Duration = Duration::from_secs(1);
/// Erase the line and return to its start (ANSI EL2 after CR).
const ERASE: &str = "\r\x1b[2K";

enum Sink {
    Terminal,
    Json,
    Off,
}

/// Shows the progress of one run.
pub struct RunProgress {
    sink: Sink,
    name: String,
    started: Instant,
    last: Option<Instant>,
    /// The terminal line is showing (to erase at the end).
    shown: bool,
}

impl RunProgress {
    pub fn new(mode: ProgressMode, quiet: bool, name: &str) -> RunProgress {
        let sink = match mode {
            ProgressMode::Json => Sink::Json,
            ProgressMode::Auto if !quiet && std::io::stderr().is_terminal() => Sink::Terminal,
            _ => Sink::Off,
        };
        RunProgress { sink, name: name.to_string(), started: Instant::now(), last: None, shown: false }
    }

    /// A slice of the run is done.
    pub fn observe(&mut self, p: Progress) {
        let every = match self.sink {
            Sink::Off => return,
            Sink::Terminal => TERMINAL_EVERY,
            Sink::Json => JSON_EVERY,
        };
        let now = Instant::now();
        if self.last.is_some_and(|t| now - t < every) && p.sim_s < p.total_s {
            return;
        }
        self.last = Some(now);
        self.write(p, now - self.started);
    }

    fn write(&mut self, p: Progress, wall: Duration) {
        let wall_s = wall.as_secs_f64();
        let ratio = if wall_s > 0.0 { p.sim_s / wall_s } else { 0.0 };
        let done = p.sim_s >= p.total_s;
        let line = match self.sink {
            Sink::Off => return,
            Sink::Json => {
                let v = serde_json::json!({
                    "kind": "run",
                    "scenario": self.name,
                    "sim_s": p.sim_s,
                    "total_s": p.total_s,
                    "wall_s": wall_s,
                    "sim_per_wall": ratio,
                    "events": p.events,
                    "done": done,
                });
                format!("{v}\n")
            }
            Sink::Terminal => {
                let pct = if p.total_s > 0.0 { 100.0 * p.sim_s / p.total_s } else { 100.0 };
                let eta = if ratio > 0.0 { format!(", ETA {}", clock((p.total_s - p.sim_s) / ratio)) } else { String::new() };
                self.shown = true;
                format!("{ERASE}{}: {:.3} / {:.3} s simulated ({pct:.0} %), {ratio:.3}× real time{eta}", self.name, p.sim_s, p.total_s)
            }
        };
        let mut err = std::io::stderr().lock();
        let _ = err.write_all(line.as_bytes());
        let _ = err.flush();
    }

    /// The run ended: erase the terminal line, so that the results print on a clean one.
    pub fn finish(&mut self) {
        if self.shown {
            let mut err = std::io::stderr().lock();
            let _ = err.write_all(ERASE.as_bytes());
            let _ = err.flush();
            self.shown = false;
        }
    }
}

/// `1h02m`, `3m05s` or `12s`.
fn clock(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m", s / 3600, s % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::clock;

    #[test]
    fn clock_reads_like_a_clock() {
        assert_eq!(clock(0.4), "0s");
        assert_eq!(clock(59.4), "59s");
        assert_eq!(clock(185.0), "3m05s");
        assert_eq!(clock(3720.0), "1h02m");
        assert_eq!(clock(-3.0), "0s");
    }
}
