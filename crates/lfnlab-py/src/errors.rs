//! Core errors → the Python exception hierarchy of `lfnlab.errors` (STYLE point 12).
//!
//! The classes are Python classes, imported when an error is raised, so that
//! `except lfnlab.errors.InvalidInputError` and `except ValueError` both work and
//! the hierarchy is defined once, in Python.

use lfnlab_core::{Error, InputError};
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

const ERRORS_MODULE: &str = "lfnlab.errors";

/// Instantiates `lfnlab.errors.<class>(*args)` as a `PyErr`; `None` if that fails
/// (the native module used without its Python package).
fn python_error<'py, A>(py: Python<'py>, class: &str, args: A) -> Option<PyErr>
where
    A: pyo3::call::PyCallArgs<'py>,
{
    let module = py.import(ERRORS_MODULE).ok()?;
    let instance = module.getattr(class).ok()?.call1(args).ok()?;
    Some(PyErr::from_value(instance))
}

/// `InvalidInputError(message, file, key_path)`, a `ValueError`.
pub fn invalid_input(py: Python<'_>, e: &InputError) -> PyErr {
    python_error(
        py,
        "InvalidInputError",
        (e.message.as_str(), e.file.as_str(), e.key_path.as_str()),
    )
    .unwrap_or_else(|| PyValueError::new_err(e.to_string()))
}

/// `SimulationError(message)`, a `RuntimeError`: the run could not complete.
pub fn simulation(py: Python<'_>, message: &str) -> PyErr {
    python_error(py, "SimulationError", (message,))
        .unwrap_or_else(|| PyRuntimeError::new_err(message.to_string()))
}

/// `OutputError(message)`, an `OSError`: results could not be written.
pub fn output(py: Python<'_>, message: &str) -> PyErr {
    python_error(py, "OutputError", (message,))
        .unwrap_or_else(|| PyOSError::new_err(message.to_string()))
}

/// Any core error as its Python exception.
pub fn to_py(py: Python<'_>, e: &Error) -> PyErr {
    match e {
        Error::Input(ie) => invalid_input(py, ie),
        Error::Runtime(m) => simulation(py, m),
        Error::Io(m) => output(py, m),
    }
}
