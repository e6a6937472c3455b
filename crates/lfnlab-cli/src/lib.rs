//! The `lfnlab` command line (spec 00 §2.3).
//!
//! `main_with_args` is the whole program: the `lfnlab` binary and Python's
//! `lfnlab._native.cli_main` both call it. Exit status: 0 success, 2 invalid
//! input (scenario, arguments; the message names file and key path), 1 any other
//! failure. No panic escapes: it is reported as an internal error with status 1
//! (`guard`, also used by the Python module).

mod bench;
pub mod guard;
mod progress;
mod run;
mod schema;

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use lfnlab_core::{Error, InputError};

/// Exit status of a successful command.
pub const EXIT_OK: i32 = 0;
/// Exit status of any failure other than invalid input.
pub const EXIT_FAILURE: i32 = 1;
/// Exit status of invalid input: scenario, plan or arguments (spec 00 §2.3).
pub const EXIT_INVALID_INPUT: i32 = 2;
/// A run stopped by Ctrl-C (128 + SIGINT, as a shell reports a process SIGINT ended).
pub const EXIT_INTERRUPTED: i32 = 130;

#[derive(Parser, Debug)]
#[command(
    name = "lfnlab",
    bin_name = "lfnlab",
    version,
    about = "A packet-level laboratory for TCP over long fat networks",
    after_help = "Exit status: 0 success, 2 invalid input (scenario, arguments), 1 any other failure."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run one scenario and write its results (summary.json, *.parquet, scenario.toml)
    Run(RunArgs),
    /// Check a scenario without running it
    Validate(ValidateArgs),
    /// Run one catalogued experiment and write its tables, figures and report (Python package only)
    Reproduce(ReproduceArgs),
    /// Run a parameter grid on local cores or a Dask cluster (Python package only)
    Sweep(SweepArgs),
    /// Write one self-contained report.html of a result, reproduction or sweep directory (Python package only)
    Report(ReportArgs),
    /// Measure the simulator's speed on fixed long-fat-network scenarios
    Bench(bench::BenchArgs),
    /// Draw a figure of a result directory: goodput_cwnd, overview, tseq, queue, rtt (Python package only)
    Plot(PassArgs),
    /// Say why each TCP flow of a result got its goodput: utilisation, BDP, sending limits, losses (Python package only)
    Explain(PassArgs),
    /// Print the scenario schema (JSON Schema, for editors) or its Markdown key reference
    Schema(schema::SchemaArgs),
    /// Run a scenario with real Linux TCP through the lfnlab-emu relay in network namespaces (root; Python package only)
    Testbed(PassArgs),
    /// Run a scenario in the simulator and on the testbed, N times each, and report them side by side (Python package only)
    Compare(PassArgs),
    /// The lfnlab-emu relay itself: a shaping Layer-2 relay between two interfaces (Python package only)
    Emu(PassArgs),
}

/// The arguments of a verb the Python console script handles (see its own --help).
#[derive(Args, Debug)]
struct PassArgs {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    args: Vec<String>,
}

#[derive(Args, Debug)]
struct RunArgs {
    /// Scenario file (TOML)
    scenario: PathBuf,
    /// Result directory; replaced if it holds an earlier result [default: out/<sim.name>]
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Override one scenario key, e.g. --set link[1].queue.limit=256KiB (repeatable)
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
    /// Print nothing on success, and no progress line
    #[arg(long, short)]
    quiet: bool,
    /// Progress on stderr: a line on a terminal (auto), JSON lines (json) or none
    #[arg(long, value_enum, default_value = "auto", value_name = "MODE")]
    progress: progress::ProgressMode,
}

#[derive(Args, Debug)]
struct ValidateArgs {
    /// Scenario file (TOML)
    scenario: PathBuf,
    /// Override one scenario key (repeatable)
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
}

#[derive(Args, Debug)]
struct ReproduceArgs {
    /// Experiment ID, e.g. 06.V1
    id: Option<String>,
    /// Output directory
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// The reduced version used by the test suite
    #[arg(long)]
    quick: bool,
    /// List the catalogue
    #[arg(long)]
    list: bool,
}

#[derive(Args, Debug)]
struct SweepArgs {
    /// Sweep plan (TOML)
    plan: PathBuf,
}

#[derive(Args, Debug)]
struct ReportArgs {
    /// A result, reproduction or sweep directory
    dir: PathBuf,
}

/// Runs the command line `args` (`args[0]` is the program name) and returns the exit status.
pub fn main_with_args(args: Vec<String>) -> i32 {
    guard::without_panics(move || {
        let cli = match Cli::try_parse_from(args) {
            Ok(cli) => cli,
            Err(e) => {
                // Help and version go to stdout with status 0; usage errors to stderr with 2.
                let _ = e.print();
                return if e.use_stderr() {
                    EXIT_INVALID_INPUT
                } else {
                    EXIT_OK
                };
            }
        };
        let result = match cli.command {
            Command::Run(a) => match run::run(&a.scenario, a.out.as_deref(), &a.sets, a.quiet, a.progress) {
                Ok(run::Ended::Interrupted) => return EXIT_INTERRUPTED,
                other => other.map(|_| ()),
            },
            Command::Validate(a) => run::validate(&a.scenario, &a.sets),
            Command::Bench(a) => bench::bench(&a),
            Command::Schema(a) => schema::schema(&a),
            // The Python console script handles `reproduce` (python/lfnlab/reproduce): it draws figures.
            Command::Reproduce(_) => return python_only("reproduce"),
            Command::Sweep(_) => return python_only("sweep"),
            Command::Report(_) => return python_only("report"),
            // The Python console script handles `plot` before it reaches here (python/lfnlab/cli.py).
            Command::Plot(_) => return python_only("plot"),
            Command::Explain(_) => return python_only("explain"),
            Command::Testbed(_) => return python_only("testbed"),
            Command::Compare(_) => return python_only("compare"),
            Command::Emu(_) => return python_only("emu"),
        };
        match result {
            Ok(()) => EXIT_OK,
            Err(e) => report(&e),
        }
    })
}

/// A verb the Python console script handles before it reaches here (python/lfnlab/cli.py).
fn python_only(verb: &str) -> i32 {
    eprintln!("error: lfnlab {verb} is provided by the Python package: run the `lfnlab` of its environment (pip install . or scripts/bootstrap)");
    EXIT_FAILURE
}

/// Prints an error on stderr and returns its exit status. Invalid input reads
/// `error: FILE: KEY.PATH: message` (spec 00 §2.3).
fn report(e: &Error) -> i32 {
    match e {
        Error::Input(ie) => eprintln!("error: {ie}"),
        other => eprintln!("error: {other}"),
    }
    e.exit_code()
}

/// An invalid command-line argument, reported like a scenario error.
fn bad_argument(flag: &str, message: impl Into<String>) -> Error {
    Error::Input(InputError::new("<arguments>", flag, message))
}

/// Prints a line on stdout. A closed stdout (`lfnlab ... | head`) is not an error
/// worth failing a finished run for, and `println!` would panic on it.
fn say(line: std::fmt::Arguments<'_>) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_fmt(line);
    let _ = out.write_all(b"\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    fn args(a: &[&str]) -> Vec<String> {
        std::iter::once("lfnlab")
            .chain(a.iter().copied())
            .map(String::from)
            .collect()
    }

    #[test]
    fn command_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn usage_errors_exit_2() {
        assert_eq!(
            main_with_args(args(&["run", "--bogus"])),
            EXIT_INVALID_INPUT
        );
        assert_eq!(main_with_args(args(&["run"])), EXIT_INVALID_INPUT);
        assert_eq!(main_with_args(args(&["frobnicate"])), EXIT_INVALID_INPUT);
        assert_eq!(main_with_args(args(&[])), EXIT_INVALID_INPUT);
        assert_eq!(main_with_args(vec![]), EXIT_INVALID_INPUT);
    }

    #[test]
    fn help_and_version_exit_0() {
        assert_eq!(main_with_args(args(&["--help"])), EXIT_OK);
        assert_eq!(main_with_args(args(&["run", "--help"])), EXIT_OK);
        assert_eq!(main_with_args(args(&["--version"])), EXIT_OK);
    }

    #[test]
    fn verbs_of_the_python_package_exit_1() {
        assert_eq!(
            main_with_args(args(&["reproduce", "06.V1", "--quick"])),
            EXIT_FAILURE
        );
        assert_eq!(main_with_args(args(&["reproduce", "--list"])), EXIT_FAILURE);
        assert_eq!(main_with_args(args(&["sweep", "plan.toml"])), EXIT_FAILURE);
        assert_eq!(main_with_args(args(&["plot", "out/x"])), EXIT_FAILURE);
        assert_eq!(main_with_args(args(&["report", "out/x"])), EXIT_FAILURE);
    }

    #[test]
    fn missing_scenario_file_is_invalid_input() {
        assert_eq!(
            main_with_args(args(&["validate", "/nonexistent/x.toml"])),
            EXIT_INVALID_INPUT
        );
        assert_eq!(
            main_with_args(args(&["run", "/nonexistent/x.toml"])),
            EXIT_INVALID_INPUT
        );
    }

    #[test]
    fn bench_lists_and_rejects_unknown_names() {
        assert_eq!(main_with_args(args(&["bench", "--list"])), EXIT_OK);
        assert_eq!(
            main_with_args(args(&["bench", "--scenario", "nope"])),
            EXIT_INVALID_INPUT
        );
    }
}
