//! No panic escapes the command line (spec 00 §2.3: no input makes the program
//! panic). A panic is a bug: it is reported once, as an internal error with its
//! location, and the command exits with status 1.

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    /// Set while this thread runs a guarded command: its panics are reported by us.
    static GUARDED: Cell<bool> = const { Cell::new(false) };
    /// Message and location of the last panic on this thread while guarded.
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

static INSTALL_HOOK: Once = Once::new();

fn payload_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-text payload".to_string()
    }
}

/// Chains a hook in front of the existing one: on a guarded thread it records the
/// panic instead of printing Rust's "thread panicked" text; elsewhere (other threads,
/// the host Python process) the previous hook runs unchanged.
fn install_hook() {
    INSTALL_HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if GUARDED.with(Cell::get) {
                let location = info
                    .location()
                    .map(|l| format!(" (at {}:{})", l.file(), l.line()))
                    .unwrap_or_default();
                let text = format!("{}{location}", payload_text(info.payload()));
                LAST_PANIC.with(|p| *p.borrow_mut() = Some(text));
            } else {
                previous(info);
            }
        }));
    });
}

/// Runs `f`; a panic becomes `Err` with its message and location. The panic is not
/// printed by Rust's default hook: the caller reports it.
pub fn catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    install_hook();
    let was_guarded = GUARDED.with(|g| g.replace(true));
    // The state `f` touched is dropped after a panic, never observed again.
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    GUARDED.with(|g| g.set(was_guarded));
    result.map_err(|payload| {
        LAST_PANIC
            .with(|p| p.borrow_mut().take())
            .unwrap_or_else(|| payload_text(&*payload))
    })
}

/// Runs `f`, turning a panic into the message
/// `error: internal error (please report): …` on stderr and exit status 1.
pub fn without_panics(f: impl FnOnce() -> i32) -> i32 {
    match catch(f) {
        Ok(code) => code,
        Err(text) => {
            eprintln!("error: internal error (please report): {text}");
            crate::EXIT_FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_exit_1() {
        assert_eq!(without_panics(|| panic!("boom {}", 42)), 1);
        assert_eq!(without_panics(|| 0), 0);
        assert_eq!(without_panics(|| 2), 2);
    }

    #[test]
    fn catch_reports_message_and_location() {
        let err = catch(|| -> u8 { panic!("bad {}", "state") }).unwrap_err();
        assert!(err.starts_with("bad state (at "), "{err}");
        assert!(err.contains("guard.rs"), "{err}");
        assert_eq!(catch(|| 5), Ok(5));
    }

    #[test]
    fn the_recorded_message_is_consumed() {
        assert_eq!(without_panics(|| panic!("first")), 1);
        assert!(LAST_PANIC.with(|p| p.borrow().is_none()));
        assert!(!GUARDED.with(Cell::get));
    }
}
