//! Strict unit quantities of spec 00 §2.1: rates, sizes and times are strings
//! with a unit; a bare number is an error.
//!
//! Numbers are exact decimals (`"62.5MB/s"` is exactly 500 Mbit/s, spec 06 §1.1);
//! a value that is not a whole number of the base unit (bit/s, byte, ps) is an
//! error. Each type displays in a canonical form that parses back to itself:
//! the largest unit that divides the value exactly.

use std::fmt;
use std::str::FromStr;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use super::decimal::{split_number, DecimalError};
use crate::engine::time::Span;

/// A bit rate in bit/s (spec 00 §2.1 "rate"); never zero once parsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate {
    /// Bits per second.
    pub bps: u64,
}

/// A bit rate that may be zero: a lower bound such as `nic.tx_rate_cap_min` (spec 04 §3 E4.6
/// sets it to 0). Parsed and written like [`Rate`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RateOrZero {
    /// Bits per second.
    pub bps: u64,
}

/// A size in bytes (spec 00 §2.1 "size"; memory binary, volumes decimal, spec 06 §1.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ByteSize {
    /// Bytes.
    pub bytes: u64,
}

/// A non-negative span of time (spec 00 §2.1 "time"), picosecond resolution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TimeSpan {
    /// The span in picoseconds.
    pub span: Span,
}

impl Rate {
    pub const fn from_bps(bps: u64) -> Rate {
        Rate { bps }
    }
    /// Bits per second.
    pub const fn bps(self) -> u64 {
        self.bps
    }
}

impl RateOrZero {
    pub const fn from_bps(bps: u64) -> RateOrZero {
        RateOrZero { bps }
    }
    /// Bits per second.
    pub const fn bps(self) -> u64 {
        self.bps
    }
}

impl ByteSize {
    pub const fn from_bytes(bytes: u64) -> ByteSize {
        ByteSize { bytes }
    }
    pub const fn bytes(self) -> u64 {
        self.bytes
    }
}

impl TimeSpan {
    pub const ZERO: TimeSpan = TimeSpan { span: Span::ZERO };
    pub const fn from_span(span: Span) -> TimeSpan {
        TimeSpan { span }
    }
    pub const fn span(self) -> Span {
        self.span
    }
    /// The span in picoseconds.
    pub const fn ps(self) -> u64 {
        self.span.0
    }
}

/// The accepted units of one kind of quantity and how to talk about it in errors.
struct UnitKind {
    /// "rate", "size" or "time".
    noun: &'static str,
    /// Name of the base unit, for "not a whole number of …".
    base: &'static str,
    /// Example strings for error messages.
    examples: &'static str,
    /// Accepted units and their factor in base units.
    units: &'static [(&'static str, u64)],
    /// Units tried, largest first, for the canonical display.
    display: &'static [(&'static str, u64)],
    zero_allowed: bool,
    /// How zero is written.
    zero: &'static str,
}

const RATE: UnitKind = UnitKind {
    noun: "rate",
    base: "bit/s",
    examples: "\"500Mbps\" or \"62.5MB/s\"",
    units: &[
        ("bps", 1),
        ("kbps", 1_000),
        ("Mbps", 1_000_000),
        ("Gbps", 1_000_000_000),
        ("Tbps", 1_000_000_000_000),
        ("B/s", 8),
        ("kB/s", 8_000),
        ("KB/s", 8_000),
        ("MB/s", 8_000_000),
        ("GB/s", 8_000_000_000),
    ],
    display: &[
        ("Tbps", 1_000_000_000_000),
        ("Gbps", 1_000_000_000),
        ("Mbps", 1_000_000),
        ("kbps", 1_000),
        ("bps", 1),
    ],
    zero_allowed: false,
    zero: "0bps",
};

const RATE_OR_ZERO: UnitKind = UnitKind { zero_allowed: true, ..RATE };

const KIB: u64 = 1 << 10;
const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

const SIZE: UnitKind = UnitKind {
    noun: "size",
    base: "bytes",
    examples: "\"128KiB\" or \"1500B\"",
    units: &[
        ("B", 1),
        ("KiB", KIB),
        ("MiB", MIB),
        ("GiB", GIB),
        ("kB", 1_000),
        ("KB", 1_000),
        ("MB", 1_000_000),
        ("GB", 1_000_000_000),
    ],
    // Binary units first when exact, then decimal, then bytes.
    display: &[
        ("GiB", GIB),
        ("MiB", MIB),
        ("KiB", KIB),
        ("GB", 1_000_000_000),
        ("MB", 1_000_000),
        ("kB", 1_000),
        ("B", 1),
    ],
    zero_allowed: true,
    zero: "0B",
};

const TIME: UnitKind = UnitKind {
    noun: "time",
    base: "picoseconds",
    examples: "\"100ms\" or \"500us\"",
    units: &[
        ("ps", 1),
        ("ns", 1_000),
        ("us", 1_000_000),
        ("\u{b5}s", 1_000_000),  // µs, MICRO SIGN
        ("\u{3bc}s", 1_000_000), // μs, GREEK SMALL LETTER MU
        ("ms", 1_000_000_000),
        ("s", 1_000_000_000_000),
    ],
    display: &[
        ("s", 1_000_000_000_000),
        ("ms", 1_000_000_000),
        ("us", 1_000_000),
        ("ns", 1_000),
        ("ps", 1),
    ],
    zero_allowed: true,
    zero: "0s",
};

impl UnitKind {
    fn unit_list(&self) -> String {
        let names: Vec<&str> = self.units.iter().map(|(n, _)| *n).collect();
        names.join(", ")
    }

    fn expected(&self) -> String {
        format!(
            "a {} string with a unit, such as {}",
            self.noun, self.examples
        )
    }

    /// Parses `text` into base units.
    fn parse(&self, text: &str) -> Result<u64, String> {
        let (number, unit) = match split_number(text) {
            Ok(split) => split,
            Err(DecimalError::Negative) => {
                return Err(format!(
                    "a {} must not be negative, got \"{text}\"",
                    self.noun
                ));
            }
            Err(DecimalError::TooLarge) => {
                return Err(format!("{} \"{text}\" is too large", self.noun));
            }
            Err(_) => {
                return Err(format!(
                    "expected {} (units: {}), got \"{text}\"",
                    self.expected(),
                    self.unit_list()
                ));
            }
        };
        let Some(&(_, factor)) = self.units.iter().find(|(name, _)| *name == unit) else {
            let what = if unit.is_empty() {
                "no unit".to_string()
            } else if unit.starts_with(char::is_whitespace) {
                "a space before the unit".to_string()
            } else {
                format!("the unknown unit \"{unit}\"")
            };
            return Err(format!(
                "expected {} (units: {}), got \"{text}\" with {what}",
                self.expected(),
                self.unit_list()
            ));
        };
        let value = number.scale(factor).map_err(|e| match e {
            DecimalError::NotWhole => {
                format!(
                    "{} \"{text}\" is not a whole number of {}",
                    self.noun, self.base
                )
            }
            _ => format!("{} \"{text}\" is too large", self.noun),
        })?;
        if value == 0 && !self.zero_allowed {
            return Err(format!(
                "a {} must be greater than zero, got \"{text}\"",
                self.noun
            ));
        }
        Ok(value)
    }

    fn format(&self, value: u64, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if value == 0 {
            return f.write_str(self.zero);
        }
        for &(name, factor) in self.display {
            if value.is_multiple_of(factor) {
                return write!(f, "{}{name}", value / factor);
            }
        }
        unreachable!("every display table ends with the base unit")
    }

    fn bare_number<E: de::Error>(&self, shown: impl fmt::Display) -> E {
        E::custom(format!(
            "expected {}, got the bare number {shown}",
            self.expected()
        ))
    }
}

impl FromStr for Rate {
    type Err = String;
    fn from_str(s: &str) -> Result<Rate, String> {
        RATE.parse(s).map(Rate::from_bps)
    }
}

impl FromStr for RateOrZero {
    type Err = String;
    fn from_str(s: &str) -> Result<RateOrZero, String> {
        RATE_OR_ZERO.parse(s).map(RateOrZero::from_bps)
    }
}

impl FromStr for ByteSize {
    type Err = String;
    fn from_str(s: &str) -> Result<ByteSize, String> {
        SIZE.parse(s).map(ByteSize::from_bytes)
    }
}

impl FromStr for TimeSpan {
    type Err = String;
    fn from_str(s: &str) -> Result<TimeSpan, String> {
        TIME.parse(s).map(|ps| TimeSpan::from_span(Span(ps)))
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        RATE.format(self.bps, f)
    }
}

impl fmt::Display for RateOrZero {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        RATE_OR_ZERO.format(self.bps, f)
    }
}

impl fmt::Display for ByteSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        SIZE.format(self.bytes, f)
    }
}

impl fmt::Display for TimeSpan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        TIME.format(self.span.0, f)
    }
}

/// Serde visitor shared by the three types: strings parse, bare numbers are refused.
struct UnitVisitor<T> {
    kind: &'static UnitKind,
    make: fn(&str) -> Result<T, String>,
}

impl<T> Visitor<'_> for UnitVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.kind.expected())
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        (self.make)(v).map_err(E::custom)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        Err(self.kind.bare_number(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        Err(self.kind.bare_number(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        Err(self.kind.bare_number(v))
    }
}

macro_rules! serde_by_string {
    ($ty:ty, $kind:expr) => {
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_str(self)
            }
        }

        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<$ty, D::Error> {
                deserializer.deserialize_any(UnitVisitor {
                    kind: &$kind,
                    make: |s| s.parse::<$ty>(),
                })
            }
        }
    };
}

serde_by_string!(Rate, RATE);
serde_by_string!(RateOrZero, RATE_OR_ZERO);
serde_by_string!(ByteSize, SIZE);
serde_by_string!(TimeSpan, TIME);

impl UnitKind {
    /// The JSON Schema of a quantity (`scenario::reference`, editors): a string
    /// whose pattern and unit list come from the very table the parser uses, so
    /// that the schema cannot accept a unit the loader refuses, or the reverse.
    fn json_schema(&self, title: &str, meaning: &str, examples: &[&str]) -> schemars::Schema {
        let units: Vec<String> = self.units.iter().map(|(n, _)| format!("`{n}`")).collect();
        let unit_alternatives: Vec<&str> = self.units.iter().map(|(n, _)| *n).collect();
        let zero = if self.zero_allowed { "zero is allowed" } else { "zero is not allowed" };
        let description = format!(
            "{meaning} Written as a decimal number (exact, e.g. `62.5` or `1e3`) followed without a space \
             by one of the units {}; {zero}, and the value must be a whole number of {}. \
             A bare number is an error.",
            units.join(", "),
            self.base,
        );
        // decimal::split_number: DIGITS ["." DIGITS] [("e"|"E") ["+"|"-"] DIGITS], then the unit.
        let pattern = format!(r"^[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?({})$", unit_alternatives.join("|"));
        schemars::json_schema!({
            "title": title,
            "description": description,
            "type": "string",
            "pattern": pattern,
            "examples": examples,
        })
    }
}

macro_rules! schema_by_string {
    ($ty:ty, $kind:expr, $title:expr, $meaning:expr, $examples:expr) => {
        impl schemars::JsonSchema for $ty {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($ty).into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                $kind.json_schema($title, $meaning, $examples)
            }
        }
    };
}

schema_by_string!(
    Rate,
    RATE,
    "rate",
    "A bit rate (spec 00 §2.1): `bps` units count bits per second, `B/s` units bytes per second; k/K, M, G and T are decimal prefixes.",
    &["1Gbps", "500Mbps", "62.5MB/s"]
);
schema_by_string!(
    RateOrZero,
    RATE_OR_ZERO,
    "rate or zero",
    "A bit rate that may be zero (a lower bound), written like a rate (spec 00 §2.1).",
    &["6Gbps", "0bps"]
);
schema_by_string!(
    ByteSize,
    SIZE,
    "size",
    "A size in bytes (spec 00 §2.1): `KiB`, `MiB` and `GiB` are binary (1024), `kB`/`KB`, `MB` and `GB` decimal (1000).",
    &["128KiB", "32MiB", "1500B"]
);
schema_by_string!(
    TimeSpan,
    TIME,
    "time",
    "A non-negative span of time (spec 00 §2.1), resolution 1 ps; `µs` and `μs` are accepted for `us`.",
    &["200ms", "500us", "60s"]
);

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn rate(s: &str) -> Result<u64, String> {
        s.parse::<Rate>().map(Rate::bps)
    }
    fn size(s: &str) -> Result<u64, String> {
        s.parse::<ByteSize>().map(ByteSize::bytes)
    }
    fn time(s: &str) -> Result<u64, String> {
        s.parse::<TimeSpan>().map(TimeSpan::ps)
    }

    #[test]
    fn rates_in_every_unit() {
        // spec 00 §2.1 examples.
        assert_eq!(rate("1Gbps"), Ok(1_000_000_000));
        assert_eq!(rate("500Mbps"), Ok(500_000_000));
        assert_eq!(rate("62.5MB/s"), Ok(500_000_000));
        assert_eq!(rate("9.95Gbps"), Ok(9_950_000_000));
        assert_eq!(rate("1bps"), Ok(1));
        assert_eq!(rate("64kbps"), Ok(64_000));
        assert_eq!(rate("0.1Tbps"), Ok(100_000_000_000));
        assert_eq!(rate("1B/s"), Ok(8));
        assert_eq!(rate("1.5kB/s"), Ok(12_000));
        assert_eq!(rate("2KB/s"), Ok(16_000));
        assert_eq!(rate("1.25GB/s"), Ok(10_000_000_000));
        assert_eq!(rate("5.12Mbps"), Ok(5_120_000));
        assert_eq!(rate("1e3Mbps"), Ok(1_000_000_000));
    }

    #[test]
    fn a_rate_floor_may_be_zero_and_round_trips() {
        assert!("0Gbps".parse::<Rate>().is_err());
        assert_eq!("0Gbps".parse::<RateOrZero>(), Ok(RateOrZero::from_bps(0)));
        assert_eq!("6Gbps".parse::<RateOrZero>(), Ok(RateOrZero::from_bps(6_000_000_000)));
        assert_eq!(RateOrZero::from_bps(0).to_string(), "0bps");
        assert_eq!(RateOrZero::from_bps(6_000_000_000).to_string(), "6Gbps");
        assert!("-1Gbps".parse::<RateOrZero>().is_err());
    }

    #[test]
    fn sizes_in_every_unit() {
        assert_eq!(size("1500B"), Ok(1500));
        assert_eq!(size("128KiB"), Ok(131_072));
        assert_eq!(size("32MiB"), Ok(33_554_432));
        assert_eq!(size("1GiB"), Ok(1 << 30));
        assert_eq!(size("0.5KiB"), Ok(512));
        assert_eq!(size("1kB"), Ok(1000));
        assert_eq!(size("1KB"), Ok(1000));
        assert_eq!(size("300MB"), Ok(300_000_000));
        assert_eq!(size("2.5GB"), Ok(2_500_000_000));
        assert_eq!(size("0B"), Ok(0));
    }

    #[test]
    fn times_in_every_unit() {
        assert_eq!(time("8ps"), Ok(8));
        assert_eq!(time("8ns"), Ok(8_000));
        assert_eq!(time("500us"), Ok(500_000_000));
        assert_eq!(time("500µs"), Ok(500_000_000));
        assert_eq!(time("500μs"), Ok(500_000_000));
        assert_eq!(time("200ms"), Ok(200_000_000_000));
        assert_eq!(time("60s"), Ok(60_000_000_000_000));
        assert_eq!(time("0.5ns"), Ok(500));
        assert_eq!(time("0ms"), Ok(0));
    }

    #[test]
    fn strict_refusals() {
        let e = rate("500Mb").unwrap_err();
        assert!(
            e.contains("unknown unit \"Mb\"") && e.contains("Mbps") && e.contains("MB/s"),
            "{e}"
        );
        let e = rate("500").unwrap_err();
        assert!(e.contains("no unit") && e.contains("kbps"), "{e}");
        let e = rate("500 Mbps").unwrap_err();
        assert!(e.contains("space"), "{e}");
        assert!(rate("0Gbps").unwrap_err().contains("greater than zero"));
        assert!(rate("0.5bps")
            .unwrap_err()
            .contains("not a whole number of bit/s"));
        assert!(rate("1e30Tbps").unwrap_err().contains("too large"));
        assert!(rate("Mbps").unwrap_err().contains("such as \"500Mbps\""));
        assert!(rate("1gbps").unwrap_err().contains("unknown unit"));
        assert!(size("1.5B")
            .unwrap_err()
            .contains("not a whole number of bytes"));
        assert!(size("1KIB").unwrap_err().contains("KiB"));
        assert!(size("1TiB").unwrap_err().contains("unknown unit"));
        assert!(time("-5ms").unwrap_err().contains("must not be negative"));
        assert!(time("0.1ps")
            .unwrap_err()
            .contains("not a whole number of picoseconds"));
        assert!(time("5sec").unwrap_err().contains("unknown unit \"sec\""));
        assert!(time("").unwrap_err().contains("such as"));
        assert!(time(" 5ms").is_err());
        assert!(time("5ms ").is_err());
        assert!(time("+5ms").is_err());
    }

    #[test]
    fn canonical_display() {
        assert_eq!(Rate::from_bps(500_000_000).to_string(), "500Mbps");
        assert_eq!(Rate::from_bps(9_950_000_000).to_string(), "9950Mbps");
        assert_eq!(Rate::from_bps(8).to_string(), "8bps");
        assert_eq!(Rate::from_bps(2_000_000_000_000).to_string(), "2Tbps");
        assert_eq!(ByteSize::from_bytes(131_072).to_string(), "128KiB");
        assert_eq!(ByteSize::from_bytes(1_000_000).to_string(), "1MB");
        assert_eq!(ByteSize::from_bytes(2_048_000).to_string(), "2000KiB");
        assert_eq!(ByteSize::from_bytes(1500).to_string(), "1500B");
        assert_eq!(ByteSize::from_bytes(3 << 30).to_string(), "3GiB");
        assert_eq!(ByteSize::from_bytes(0).to_string(), "0B");
        assert_eq!(TimeSpan::from_span(Span::from_ms(100)).to_string(), "100ms");
        assert_eq!(TimeSpan::from_span(Span(1_500)).to_string(), "1500ps");
        assert_eq!(TimeSpan::from_span(Span::from_secs(60)).to_string(), "60s");
        assert_eq!(TimeSpan::ZERO.to_string(), "0s");
    }

    #[test]
    fn serde_refuses_bare_numbers() {
        #[derive(Debug, Deserialize, Serialize, PartialEq)]
        struct Doc {
            rate: Rate,
        }
        let e = toml::from_str::<Doc>("rate = 500").unwrap_err();
        assert!(
            e.message().contains(
                "expected a rate string with a unit, such as \"500Mbps\" or \"62.5MB/s\", got the bare number 500"
            ),
            "{e}"
        );
        let e = toml::from_str::<Doc>("rate = 62.5").unwrap_err();
        assert!(e.message().contains("the bare number 62.5"), "{e}");
        let e = toml::from_str::<Doc>("rate = true").unwrap_err();
        assert!(e.message().contains("such as \"500Mbps\""), "{e}");
        let doc: Doc = toml::from_str("rate = \"62.5MB/s\"").unwrap();
        assert_eq!(toml::to_string(&doc).unwrap().trim(), "rate = \"500Mbps\"");
    }

    /// The pattern of a quantity's JSON Schema (`reference`, editors).
    fn schema_pattern<T: schemars::JsonSchema>() -> regex::Regex {
        let schema = T::json_schema(&mut schemars::SchemaGenerator::default());
        regex::Regex::new(schema.get("pattern").and_then(|p| p.as_str()).expect("a pattern")).expect("a valid regex")
    }

    /// What an editor accepts, the loader accepts, and the reverse, except for
    /// the value checks a pattern cannot make (zero, whole base units, 64 bits).
    fn pattern_agrees<T: FromStr<Err = String>>(pattern: &regex::Regex, text: &str) -> Result<(), String> {
        match (pattern.is_match(text), text.parse::<T>()) {
            (true, Ok(_)) | (false, Err(_)) => Ok(()),
            (false, Ok(_)) => Err(format!("the loader accepts {text:?}, the schema's pattern does not")),
            (true, Err(e)) if ["greater than zero", "not a whole number", "too large"].iter().any(|w| e.contains(w)) => Ok(()),
            (true, Err(e)) => Err(format!("the schema's pattern accepts {text:?}, the loader does not: {e}")),
        }
    }

    #[test]
    fn schema_patterns_agree_with_the_parser_on_examples() {
        let (rate, size, time) = (schema_pattern::<Rate>(), schema_pattern::<ByteSize>(), schema_pattern::<TimeSpan>());
        for text in ["1Gbps", "62.5MB/s", "1e3Mbps", "0bps", "500Mb", "500", "500 Mbps", "1gbps", "-1Gbps", "+5Mbps", ".5Gbps", "5.Gbps", "5eMbps"] {
            pattern_agrees::<Rate>(&rate, text).unwrap();
            pattern_agrees::<RateOrZero>(&schema_pattern::<RateOrZero>(), text).unwrap();
        }
        for text in ["128KiB", "1500B", "0.5KiB", "1.5B", "1KIB", "1TiB", "5 MiB"] {
            pattern_agrees::<ByteSize>(&size, text).unwrap();
        }
        for text in ["200ms", "500µs", "500μs", "0.5ns", "0.1ps", "5sec", "", " 5ms", "5ms "] {
            pattern_agrees::<TimeSpan>(&time, text).unwrap();
        }
    }

    proptest! {
        #[test]
        fn schema_patterns_agree_with_the_parser(text in "[0-9.eE+-]{0,5}(bps|kbps|Mbps|Gbps|Tbps|B/s|kB/s|MB/s|Mb|B|KiB|GiB|kB|TiB|ps|ns|us|µs|ms|s|sec| |)") {
            prop_assert_eq!(pattern_agrees::<Rate>(&schema_pattern::<Rate>(), &text), Ok(()));
            prop_assert_eq!(pattern_agrees::<RateOrZero>(&schema_pattern::<RateOrZero>(), &text), Ok(()));
            prop_assert_eq!(pattern_agrees::<ByteSize>(&schema_pattern::<ByteSize>(), &text), Ok(()));
            prop_assert_eq!(pattern_agrees::<TimeSpan>(&schema_pattern::<TimeSpan>(), &text), Ok(()));
        }

        #[test]
        fn rate_round_trips(bps in 1u64..) {
            let r = Rate::from_bps(bps);
            prop_assert_eq!(r.to_string().parse::<Rate>(), Ok(r));
        }

        #[test]
        fn size_round_trips(bytes in any::<u64>(), scale in 0u32..4) {
            // Also exercise values that are exact in the binary units.
            let b = ByteSize::from_bytes((bytes >> (10 * scale)) << (10 * scale));
            prop_assert_eq!(b.to_string().parse::<ByteSize>(), Ok(b));
        }

        #[test]
        fn time_round_trips(ps in any::<u64>(), ms in 0u64..1_000_000) {
            let t = TimeSpan::from_span(Span(ps));
            prop_assert_eq!(t.to_string().parse::<TimeSpan>(), Ok(t));
            let t = TimeSpan::from_span(Span::from_ms(ms));
            prop_assert_eq!(t.to_string().parse::<TimeSpan>(), Ok(t));
        }

        #[test]
        fn parse_never_panics(s in "\\PC{0,24}") {
            let _ = s.parse::<Rate>();
            let _ = s.parse::<ByteSize>();
            let _ = s.parse::<TimeSpan>();
        }

        #[test]
        fn decimal_rates_are_exact(int in 0u64..100_000, frac in 0u64..1000) {
            // "int.fracMbps" = (int·1000 + frac)·1000 bit/s exactly.
            let text = format!("{int}.{frac:03}Mbps");
            let bps = (int * 1000 + frac) * 1000;
            if bps == 0 {
                prop_assert!(text.parse::<Rate>().is_err());
            } else {
                prop_assert_eq!(text.parse::<Rate>(), Ok(Rate::from_bps(bps)));
            }
        }
    }
}
