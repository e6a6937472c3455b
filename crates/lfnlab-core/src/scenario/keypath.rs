//! Key paths such as `link[1].queue.limit` (spec 00 §2.3): how errors name a
//! place in a scenario, and what `--set` keys address.

use std::fmt;

/// Longest key accepted: far deeper than the schema, and a bound on the
/// tables `--set` may create.
const MAX_SEGMENTS: usize = 32;

/// One step of a key path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Segment {
    /// A table key.
    Key(String),
    /// An array index.
    Index(usize),
}

/// A parsed key path; displays in the canonical form used by every error.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeyPath {
    pub segments: Vec<Segment>,
}

impl KeyPath {
    /// Parses `name(.name | [index])*`, names made of `A-Z a-z 0-9 _ -` (TOML bare keys).
    pub fn parse(text: &str) -> Result<KeyPath, String> {
        let mut segments = Vec::new();
        let mut rest = text;
        let mut expect_name = true;
        while !rest.is_empty() || expect_name {
            if expect_name {
                let end = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
                    .unwrap_or(rest.len());
                if end == 0 {
                    return Err(match rest.chars().next() {
                        None => "a key is empty".to_string(),
                        Some(c) => format!("expected a key name, found '{c}'"),
                    });
                }
                segments.push(Segment::Key(rest[..end].to_string()));
                rest = &rest[end..];
                expect_name = false;
            } else if let Some(after) = rest.strip_prefix('.') {
                rest = after;
                expect_name = true;
            } else if let Some(after) = rest.strip_prefix('[') {
                let close = after.find(']').ok_or("a '[' has no matching ']'")?;
                let digits = &after[..close];
                if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(format!(
                        "expected an array index such as [0], found [{digits}]"
                    ));
                }
                let index = digits
                    .parse::<usize>()
                    .map_err(|_| format!("the index [{digits}] is too large"))?;
                segments.push(Segment::Index(index));
                rest = &after[close + 1..];
            } else {
                let c = rest.chars().next().unwrap_or(' ');
                return Err(format!(
                    "expected '.', '[' or the end of the key, found '{c}'"
                ));
            }
        }
        if segments.len() > MAX_SEGMENTS {
            return Err(format!("a key has at most {MAX_SEGMENTS} parts"));
        }
        Ok(KeyPath { segments })
    }
}

impl fmt::Display for KeyPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, segment) in self.segments.iter().enumerate() {
            match segment {
                Segment::Key(k) if i == 0 => f.write_str(k)?,
                Segment::Key(k) => write!(f, ".{k}")?,
                Segment::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

/// Whether the key path `path` is `prefix` or lies inside it (both canonical).
pub fn is_within(path: &str, prefix: &str) -> bool {
    match path.strip_prefix(prefix) {
        Some(rest) => rest.is_empty() || rest.starts_with('.') || rest.starts_with('['),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_displays() {
        for text in [
            "sim.duration",
            "link[1].queue.limit",
            "flow[0].tcp.ack_policy",
            "a[1][2].b-c_d",
        ] {
            assert_eq!(KeyPath::parse(text).unwrap().to_string(), text);
        }
        let p = KeyPath::parse("link[01].rate").unwrap();
        assert_eq!(
            p.segments,
            vec![
                Segment::Key("link".into()),
                Segment::Index(1),
                Segment::Key("rate".into())
            ]
        );
        assert_eq!(p.to_string(), "link[1].rate");
    }

    #[test]
    fn refuses_malformed_keys() {
        for bad in [
            "",
            ".a",
            "a.",
            "a..b",
            "a[",
            "a[]",
            "a[x]",
            "a[-1]",
            "[0]",
            "a]",
            "a b",
            "a[1]b",
            "a[99999999999999999999999]",
            &"a.".repeat(40)[..79],
        ] {
            assert!(KeyPath::parse(bad).is_err(), "{bad:?} should be refused");
        }
    }

    #[test]
    fn within() {
        assert!(is_within("link[1].queue.limit", "link[1]"));
        assert!(is_within("link[1]", "link[1]"));
        assert!(is_within("link[1].queue", "link"));
        assert!(!is_within("link[10]", "link[1]"));
        assert!(!is_within("linkx", "link"));
    }
}
