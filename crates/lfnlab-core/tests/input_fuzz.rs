//! Property-based fuzzing of the Rust input surfaces (issue 12): the unit
//! parsers, the key-path parser and the scenario loader (TOML text, `--set`
//! overrides). Whatever the input, the answer is a value or an `InputError`;
//! never a panic. The seed corpus is examples/: text cases mutate an example.
//! The coverage-guided targets of the same surfaces are in fuzz/ (docs/fuzzing.md).

use std::str::FromStr;

use lfnlab_core::scenario::keypath::KeyPath;
use lfnlab_core::scenario::load_str;
use lfnlab_core::scenario::units::{ByteSize, Rate, RateOrZero, TimeSpan};
use proptest::prelude::*;

fn examples() -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut texts: Vec<(std::path::PathBuf, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .map(|p| (p.clone(), std::fs::read_to_string(&p).unwrap()))
        .filter(|(_, t)| !t.contains("[sweep]"))
        .collect();
    texts.sort();
    texts.into_iter().map(|(_, t)| t).collect()
}

/// Strings a user might type as a quantity, and noise.
fn quantity() -> impl Strategy<Value = String> {
    prop_oneof![
        "[-+]?[0-9]{0,25}(\\.[0-9]{0,25})?(e[-+]?[0-9]{1,4})?[ ]?(bps|kbps|Mbps|Gbps|Tbps|B/s|kB/s|MB/s|GB/s|B|KiB|MiB|GiB|kB|KB|MB|GB|ns|us|ms|s|h|)",
        ".{0,20}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn unit_parsers_answer_without_panicking(text in quantity()) {
        let _ = Rate::from_str(&text);
        let _ = RateOrZero::from_str(&text);
        let _ = ByteSize::from_str(&text);
        let _ = TimeSpan::from_str(&text);
    }

    #[test]
    fn key_paths_answer_without_panicking(text in "[a-z_\\[\\]0-9.]{0,30}|.{0,30}") {
        let _ = KeyPath::parse(&text);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, failure_persistence: None, ..ProptestConfig::default() })]

    /// One random edit of an example's text (delete, insert or replace a span).
    #[test]
    fn a_mutated_example_loads_or_is_refused(which in any::<prop::sample::Index>(), at in any::<prop::sample::Index>(), cut in 0usize..40, insert in ".{0,12}") {
        let texts = examples();
        let text = which.get(&texts);
        let mut pos = at.index(text.len() + 1);
        while !text.is_char_boundary(pos) { pos -= 1; }
        let mut end = (pos + cut).min(text.len());
        while !text.is_char_boundary(end) { end -= 1; }
        let mutated = format!("{}{}{}", &text[..pos], insert, &text[end..]);
        match load_str(&mutated, "fuzz.toml", &["sim.duration=30ms".into()]) {
            // What the loader accepts, the engine runs (or fails cleanly), never panics.
            Ok(s) => { let _ = lfnlab_core::sim::run(&s); }
            Err(e) => prop_assert!(!e.message.is_empty() && (e.file == "fuzz.toml" || e.file == "--set"), "{e}"),
        }
    }

    /// A random override of a random example.
    #[test]
    fn a_random_override_applies_or_is_refused(which in any::<prop::sample::Index>(), key in "[a-z_]{1,8}(\\[[0-9]{1,2}\\])?(\\.[a-z_]{1,10}){0,2}|.{0,16}", value in quantity()) {
        let texts = examples();
        let text = which.get(&texts);
        let _ = load_str(text, "fuzz.toml", &[format!("{key}={value}")]);
    }
}
