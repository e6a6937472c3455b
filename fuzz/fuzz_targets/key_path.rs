//! Fuzz target: the key-path parser (`link[1].queue.limit`, spec 00 §2.3)
//! that `--set` and every error message use.
//!
//! Any text parses or is refused with a message; a parsed path displays in a
//! canonical form that parses back to the same path.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lfnlab_core::scenario::keypath::KeyPath;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    match KeyPath::parse(text) {
        Ok(path) => {
            let shown = path.to_string();
            assert_eq!(KeyPath::parse(&shown).as_ref(), Ok(&path), "{text:?} → {shown:?}");
        }
        Err(message) => assert!(!message.is_empty(), "empty error for {text:?}"),
    }
});
