//! `lfnlab._native`: the private native module behind the typed Python API in
//! `python/lfnlab` (STYLE point 12). It speaks plain types only: scenarios as
//! resolved TOML text, summaries as JSON text, tables as Arrow IPC stream bytes.
//! `python/lfnlab/_native.pyi` is its contract; keep the two in step.

mod errors;

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use lfnlab_cli::guard;
use lfnlab_core::Error;
use lfnlab_core::net::phy;
use lfnlab_core::results::arrow::to_ipc_stream;
use lfnlab_core::results::write::{summary_json, write_dir, RESULT_FILES};
use lfnlab_core::scenario;
use lfnlab_core::sim::{self, RunOutput};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

/// Loads a scenario file, applies `sets` (`KEY=VALUE`) and returns the resolved TOML.
#[pyfunction]
#[pyo3(signature = (path, sets = Vec::new()))]
fn load_scenario_file(py: Python<'_>, path: PathBuf, sets: Vec<String>) -> PyResult<String> {
    let s = scenario::load_file(&path, &sets).map_err(|e| errors::invalid_input(py, &e))?;
    Ok(scenario::to_toml(&s))
}

/// Loads a scenario given as JSON text (a Python dict, dumped), applies `sets` and
/// returns the resolved TOML. `origin` names the input in error messages.
#[pyfunction]
#[pyo3(signature = (json, origin = "<dict>".to_string(), sets = Vec::new()))]
fn load_scenario_dict(
    py: Python<'_>,
    json: &str,
    origin: String,
    sets: Vec<String>,
) -> PyResult<String> {
    let s = scenario::load_json(json, &origin, &sets).map_err(|e| errors::invalid_input(py, &e))?;
    Ok(scenario::to_toml(&s))
}

/// What `run_scenario` computes with the GIL released.
struct Finished {
    summary_json: Vec<u8>,
    tables: [(&'static str, Vec<u8>); 7],
}

/// Wall time between two looks at Python's pending signals during an interruptible run.
const SIGNAL_CHECK_EVERY: Duration = Duration::from_millis(50);
/// Wall time between two calls of a run's `progress` callable (issue 40).
const PROGRESS_EVERY: Duration = Duration::from_millis(250);

fn run_and_write(
    resolved_toml: &str,
    origin: &str,
    out_dir: Option<&Path>,
    interruptible: bool,
    progress: Option<&Py<PyAny>>,
    interrupted: &mut Option<PyErr>,
) -> Result<Finished, Error> {
    let s = scenario::load_str(resolved_toml, origin, &[])?;
    let started = Instant::now();
    let mut last_look = started;
    let mut last_report: Option<Instant> = None;
    // Between slices of the run (`sim::run_observed`), with the GIL taken only when
    // there is something to do: Ctrl-C (issue 40), at most every SIGNAL_CHECK_EVERY,
    // runs Python's signal handlers (`PyErr_CheckSignals`); the `progress` callable,
    // at most every PROGRESS_EVERY and once at the end, gets the run's progress. An
    // exception from either (KeyboardInterrupt, or the callable's own) stops the
    // run, marked partial.
    let out: RunOutput = sim::run_observed(&s, &mut |p| {
        let now = Instant::now();
        let look = interruptible && now.duration_since(last_look) >= SIGNAL_CHECK_EVERY;
        let report = progress.is_some()
            && (p.sim_s >= p.total_s || last_report.is_none_or(|t| now.duration_since(t) >= PROGRESS_EVERY));
        if !look && !report {
            return ControlFlow::Continue(());
        }
        if look {
            last_look = now;
        }
        if report {
            last_report = Some(now);
        }
        let outcome = Python::attach(|py| -> PyResult<()> {
            if look {
                py.check_signals()?;
            }
            if let Some(callback) = progress.filter(|_| report) {
                let d = PyDict::new(py);
                d.set_item("sim_s", p.sim_s)?;
                d.set_item("total_s", p.total_s)?;
                d.set_item("events", p.events)?;
                d.set_item("wall_s", now.duration_since(started).as_secs_f64())?;
                callback.bind(py).call1((d,))?;
            }
            Ok(())
        });
        match outcome {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                *interrupted = Some(e);
                ControlFlow::Break(())
            }
        }
    })?;
    // An interrupted run (Ctrl-C, or the progress callable's exception) leaves no
    // result directory behind (issue 40 acceptance): the caller raises the exception.
    if let Some(dir) = out_dir.filter(|_| interrupted.is_none()) {
        write_dir(dir, &out)?;
    }
    Ok(Finished {
        summary_json: summary_json(&out)?,
        tables: [
            ("flows", to_ipc_stream(&out.flows)),
            ("tcp", to_ipc_stream(&out.tcp)),
            ("queues", to_ipc_stream(&out.queues)),
            ("packets", to_ipc_stream(&out.packets)),
            ("hosts", to_ipc_stream(&out.hosts)),
            ("busy", to_ipc_stream(&out.busy)),
            ("objects", to_ipc_stream(&out.objects)),
        ],
    })
}

/// Runs a resolved scenario (the TOML of `load_scenario_*`), writing the result
/// directory when `out_dir` is given. Returns the summary as JSON and the tables
/// `flows`, `tcp`, `queues`, `packets` as Arrow IPC streams. The GIL is released meanwhile.
/// With `interruptible` (a call from Python's main thread, where signal handlers run),
/// a signal handler's exception (KeyboardInterrupt) stops the run within about 50 ms of
/// wall time plus one slice (1/1000 of the run) and is raised here; no result directory
/// is written (`lfnlab run` on the command line writes what ran, marked partial). A `progress` callable gets a dict (`sim_s`, `total_s`, `events`,
/// `wall_s`) at most every 250 ms of wall time and once at the end; an exception it
/// raises stops the run the same way and is raised here.
#[pyfunction]
#[pyo3(signature = (resolved_toml, out_dir = None, origin = "<scenario>".to_string(), interruptible = false, progress = None))]
fn run_scenario<'py>(
    py: Python<'py>,
    resolved_toml: String,
    out_dir: Option<PathBuf>,
    origin: String,
    interruptible: bool,
    progress: Option<Py<PyAny>>,
) -> PyResult<(String, Bound<'py, PyDict>)> {
    let (result, interrupted) = py.detach(move || {
        let mut interrupted = None;
        // A panic is a bug: report it as a SimulationError, not pyo3's PanicException
        // (a BaseException that `except Exception` would not catch).
        let result = guard::catch(|| run_and_write(&resolved_toml, &origin, out_dir.as_deref(), interruptible, progress.as_ref(), &mut interrupted));
        (result, interrupted)
    });
    if let Some(e) = interrupted {
        return Err(e);
    }
    let finished = match result {
        Ok(Ok(f)) => f,
        Ok(Err(e)) => return Err(errors::to_py(py, &e)),
        Err(panic) => {
            return Err(errors::simulation(
                py,
                &format!("internal error (please report): {panic}"),
            ));
        }
    };
    let tables = PyDict::new(py);
    for (name, bytes) in &finished.tables {
        tables.set_item(*name, PyBytes::new(py, bytes))?;
    }
    let summary = String::from_utf8(finished.summary_json).expect("serde_json writes UTF-8");
    Ok((summary, tables))
}

/// Runs one spec 05 §3 E5.0 literature check on the switch mechanisms
/// (`lfnlab_core::net::switch::saturation`) with the GIL released. Returns the
/// cells offered, delivered and dropped in the measurement window, those left
/// queued, and the window's capacity (ports × slots).
#[pyfunction]
#[pyo3(signature = (check, ports, slots, load = 1.0, seed = 1))]
fn switch_check(py: Python<'_>, check: String, ports: usize, slots: u64, load: f64, seed: u64) -> PyResult<Vec<(String, u64)>> {
    let t = py
        .detach(move || lfnlab_core::net::switch::saturation::run_check(&check, ports, slots, load, seed))
        .map_err(|e| errors::invalid_input(py, &e))?;
    Ok(vec![
        ("offered".into(), t.offered),
        ("delivered".into(), t.delivered),
        ("dropped".into(), t.dropped),
        ("left_queued".into(), t.left_queued),
        ("capacity".into(), t.capacity),
    ])
}

/// Runs a spec 05 generator bench scenario with the direct bench loop
/// (`lfnlab_core::sim::gen_bench`), the GIL released. Returns the bench
/// summary as JSON and the `flows` table as Arrow IPC stream bytes. A scenario
/// of another shape raises SimulationError with the reason.
#[pyfunction]
#[pyo3(signature = (resolved_toml, origin = "<scenario>".to_string()))]
fn run_bench<'py>(py: Python<'py>, resolved_toml: String, origin: String) -> PyResult<(String, Bound<'py, PyBytes>)> {
    let result = py.detach(move || {
        guard::catch(|| -> Result<(String, Vec<u8>), Error> {
            let s = scenario::load_str(&resolved_toml, &origin, &[])?;
            let out = sim::gen_bench::run(&s)?;
            Ok((out.summary_json()?, to_ipc_stream(&out.flows)))
        })
    });
    match result {
        Ok(Ok((summary, flows))) => Ok((summary, PyBytes::new(py, &flows))),
        Ok(Err(e)) => Err(errors::to_py(py, &e)),
        Err(panic) => Err(errors::simulation(py, &format!("internal error (please report): {panic}"))),
    }
}

/// Runs the `lfnlab` command line with `argv` (`argv[0]` the program name) and
/// returns its exit status. Prints to the process's stdout/stderr.
#[pyfunction]
fn cli_main(py: Python<'_>, argv: Vec<String>) -> i32 {
    py.detach(move || lfnlab_cli::main_with_args(argv))
}

/// Runs the relay `lfnlab-emu` (`lfnlab_emu::run::run_cli`) with `argv` (`argv[0]`
/// the program name) and returns its exit status, the GIL released. The relay
/// installs its own SIGINT/SIGTERM handlers: meant for a process that does nothing
/// else (`lfnlab emu`, started by `lfnlab testbed run`).
#[pyfunction]
fn emu_main(py: Python<'_>, argv: Vec<String>) -> i32 {
    py.detach(move || guard::without_panics(|| i32::from(lfnlab_emu::run::run_cli(argv))))
}

/// Private native core of lfnlab; use the `lfnlab` package instead.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(load_scenario_file, m)?)?;
    m.add_function(wrap_pyfunction!(load_scenario_dict, m)?)?;
    m.add_function(wrap_pyfunction!(run_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(cli_main, m)?)?;
    m.add_function(wrap_pyfunction!(emu_main, m)?)?;
    m.add_function(wrap_pyfunction!(switch_check, m)?)?;
    m.add_function(wrap_pyfunction!(run_bench, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("RESULT_FILES", RESULT_FILES.to_vec())?;
    // Ethernet framing (spec 04 §2.2, spec 06 §1.2), so that the reproductions
    // compute wire and frame sizes with the engine's own constants.
    m.add("PREAMBLE_AND_GAP_BYTES", phy::PREAMBLE_AND_GAP_BYTES)?;
    m.add("MAC_OVERHEAD_BYTES", phy::MAC_OVERHEAD_BYTES)?;
    m.add("MIN_FRAME_BYTES", phy::MIN_FRAME_BYTES)?;
    Ok(())
}
