//! Fuzz target: `--set KEY=VALUE` overrides (spec 00 §2.3) applied to the
//! examples.
//!
//! The input's first byte picks an example; the rest, split at newlines, is a
//! list of override arguments. Loading answers a scenario or an `InputError`
//! naming the scenario file or `--set`; never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lfnlab_core::scenario::load_str;

/// The examples, built in so that the target needs no files at run time.
const EXAMPLES: [&str; 7] = [
    include_str!("../../examples/dumbbell.toml"),
    include_str!("../../examples/cps.toml"),
    include_str!("../../examples/gap_pacing.toml"),
    include_str!("../../examples/quickstart.toml"),
    include_str!("../../examples/t4p.toml"),
    include_str!("../../examples/tcp_nic.toml"),
    include_str!("../../examples/web.toml"),
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let example = EXAMPLES[pick as usize % EXAMPLES.len()];
    let sets: Vec<String> = text.split('\n').map(str::to_string).collect();
    if let Err(e) = load_str(example, "example.toml", &sets) {
        assert!(!e.message.is_empty(), "empty message: {e}");
        assert!(e.file == "example.toml" || e.file == "--set", "error names {:?}", e.file);
    }
});
