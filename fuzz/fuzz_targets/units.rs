//! Fuzz target: the unit parsers for rates, sizes and times (spec 00 §2.4).
//!
//! Any text parses or is refused with a message; a value that parses writes
//! out in a form that parses back to the same value (results echo values in
//! that form).
#![no_main]

use std::fmt::Display;
use std::str::FromStr;

use libfuzzer_sys::fuzz_target;
use lfnlab_core::scenario::units::{ByteSize, Rate, RateOrZero, TimeSpan};

fn round_trip<T>(text: &str)
where
    T: FromStr<Err = String> + Display + PartialEq + std::fmt::Debug,
{
    match T::from_str(text) {
        Ok(v) => {
            let shown = v.to_string();
            assert_eq!(T::from_str(&shown).as_ref(), Ok(&v), "{text:?} → {shown:?} does not parse back");
        }
        Err(message) => assert!(!message.is_empty(), "empty error for {text:?}"),
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    round_trip::<Rate>(text);
    round_trip::<RateOrZero>(text);
    round_trip::<ByteSize>(text);
    round_trip::<TimeSpan>(text);
});
