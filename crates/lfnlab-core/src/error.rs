//! The one error type of the core. `Input` maps to exit status 2 and to the
//! Python `InvalidInputError` (a `ValueError`); everything else to exit 1.

use std::fmt;

/// Malformed input: names the file, the key path and what was expected (spec 00 §2.3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    /// The file (or `<dict>`, `<--set>`, `<arguments>`) the input came from.
    pub file: String,
    /// Key path such as `link[1].queue.limit`; empty for the whole document.
    pub key_path: String,
    /// What was wrong and what was expected.
    pub message: String,
}

impl InputError {
    pub fn new(file: impl Into<String>, key_path: impl Into<String>, message: impl Into<String>) -> InputError {
        InputError { file: file.into(), key_path: key_path.into(), message: message.into() }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.key_path.is_empty() {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(f, "{}: {}: {}", self.file, self.key_path, self.message)
        }
    }
}

impl std::error::Error for InputError {}

#[derive(Debug)]
pub enum Error {
    /// Invalid scenario, plan or argument: exit status 2.
    Input(InputError),
    /// A run that could not complete (resource limit, invariant violation): exit status 1.
    Runtime(String),
    /// Writing results failed: exit status 1.
    Io(String),
}

impl Error {
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Input(_) => 2,
            _ => 1,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Input(e) => write!(f, "invalid input: {e}"),
            Error::Runtime(m) => write!(f, "run failed: {m}"),
            Error::Io(m) => write!(f, "i/o error: {m}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<InputError> for Error {
    fn from(e: InputError) -> Error {
        Error::Input(e)
    }
}
