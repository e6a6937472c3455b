//! `--set KEY=VALUE` overrides (spec 00 §2.3), applied to the parsed document
//! before it is deserialized, so they are checked exactly like file content.

use toml::{Table, Value};

use super::keypath::{KeyPath, Segment};
use crate::error::InputError;

/// The `file` of errors in a `--set` argument.
pub const SET_ORIGIN: &str = "--set";

/// One parsed override.
#[derive(Clone, Debug, PartialEq)]
pub struct Override {
    pub key: KeyPath,
    pub value: Value,
}

/// Parses `KEY=VALUE`. VALUE is a TOML value if it parses as one (`5`, `1e-4`,
/// `true`, `"x"`, `{ kind = "droptail" }`), otherwise the bare text as a string
/// (`10s`, `per_segment`).
pub fn parse_override(arg: &str) -> Result<Override, InputError> {
    let Some((key_text, value_text)) = arg.split_once('=') else {
        return Err(InputError::new(
            SET_ORIGIN,
            "",
            format!("expected KEY=VALUE such as sim.duration=10s, got \"{arg}\" (no '=')"),
        ));
    };
    let key_text = key_text.trim();
    let key = KeyPath::parse(key_text).map_err(|message| {
        InputError::new(
            SET_ORIGIN,
            key_text,
            format!("malformed key \"{key_text}\": {message}; expected a path such as link[1].queue.limit"),
        )
    })?;
    Ok(Override {
        key,
        value: parse_value(value_text.trim()),
    })
}

fn parse_value(text: &str) -> Value {
    match format!("v = {text}").parse::<Table>() {
        Ok(mut table) if table.len() == 1 => table
            .remove("v")
            .unwrap_or_else(|| Value::String(text.into())),
        _ => Value::String(text.to_string()),
    }
}

/// Writes `value` at `key` inside `doc`, creating missing tables on the way.
pub fn apply(doc: &mut Table, over: &Override) -> Result<(), InputError> {
    let key_text = over.key.to_string();
    let fail = |message: String| InputError::new(SET_ORIGIN, key_text.as_str(), message);
    let segments = &over.key.segments;
    // KeyPath::parse guarantees a leading key.
    let Some((Segment::Key(first), rest)) = segments.split_first() else {
        return Err(fail("a key must start with a name".into()));
    };
    if rest.is_empty() {
        doc.insert(first.clone(), over.value.clone());
        return Ok(());
    }
    let mut here: &mut Value = doc
        .entry(first.clone())
        .or_insert_with(|| new_container(&rest[0]));
    let mut walked = first.clone();
    for (i, segment) in rest.iter().enumerate() {
        let last = i + 1 == rest.len();
        here = match segment {
            Segment::Key(k) => {
                let Value::Table(table) = here else {
                    return Err(fail(format!(
                        "{walked} is {}, not a table, so it has no key \"{k}\"",
                        describe(here)
                    )));
                };
                walked = format!("{walked}.{k}");
                if last {
                    table.insert(k.clone(), over.value.clone());
                    return Ok(());
                }
                table
                    .entry(k.clone())
                    .or_insert_with(|| new_container(&rest[i + 1]))
            }
            Segment::Index(n) => {
                let Value::Array(array) = here else {
                    return Err(fail(format!(
                        "{walked} is {}, not an array, so it has no [{n}]",
                        describe(here)
                    )));
                };
                let len = array.len();
                let Some(slot) = array.get_mut(*n) else {
                    return Err(fail(format!(
                        "index [{n}] is out of range: {walked} has {len} entr{}",
                        if len == 1 { "y" } else { "ies" }
                    )));
                };
                walked = format!("{walked}[{n}]");
                if last {
                    *slot = over.value.clone();
                    return Ok(());
                }
                slot
            }
        };
    }
    Ok(())
}

/// A missing step becomes a table; a missing array is created empty, so any
/// index into it is reported as out of range.
fn new_container(next: &Segment) -> Value {
    match next {
        Segment::Key(_) => Value::Table(Table::new()),
        Segment::Index(_) => Value::Array(Vec::new()),
    }
}

fn describe(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "a string",
        Value::Integer(_) => "an integer",
        Value::Float(_) => "a float",
        Value::Boolean(_) => "a boolean",
        Value::Datetime(_) => "a date-time",
        Value::Array(_) => "an array",
        Value::Table(_) => "a table",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> Table {
        text.parse().unwrap()
    }

    fn set(d: &mut Table, arg: &str) -> Result<(), InputError> {
        apply(d, &parse_override(arg)?)
    }

    #[test]
    fn values_parse_as_toml_or_bare_strings() {
        assert_eq!(parse_value("5"), Value::Integer(5));
        assert_eq!(parse_value("1e-4"), Value::Float(1e-4));
        assert_eq!(parse_value("true"), Value::Boolean(true));
        assert_eq!(parse_value("\"x\""), Value::String("x".into()));
        assert_eq!(parse_value("10s"), Value::String("10s".into()));
        assert_eq!(
            parse_value("per_segment"),
            Value::String("per_segment".into())
        );
        assert_eq!(parse_value("5\nw = 6"), Value::String("5\nw = 6".into()));
        let Value::Table(t) = parse_value("{ kind = \"droptail\", limit = \"1MiB\" }") else {
            panic!()
        };
        assert_eq!(t["limit"], Value::String("1MiB".into()));
    }

    #[test]
    fn sets_and_creates() {
        let mut d = doc("[[link]]\nrate = \"1Gbps\"\n[[link]]\nrate = \"1Gbps\"\n");
        set(&mut d, "link[1].queue.limit=256KiB").unwrap();
        set(&mut d, "sim.duration=10s").unwrap();
        set(&mut d, "seed=3").unwrap();
        assert_eq!(
            d["link"][1]["queue"]["limit"],
            Value::String("256KiB".into())
        );
        assert_eq!(d["sim"]["duration"], Value::String("10s".into()));
        assert_eq!(d["seed"], Value::Integer(3));
        set(&mut d, "link[0]={ rate = \"2Gbps\" }").unwrap();
        assert_eq!(d["link"][0]["rate"], Value::String("2Gbps".into()));
    }

    #[test]
    fn errors_name_the_key() {
        let mut d = doc("[sim]\nduration = \"1s\"\n[[link]]\nrate = \"1Gbps\"\n");
        let e = set(&mut d, "link[3].rate=1Gbps").unwrap_err();
        assert_eq!(
            (e.file.as_str(), e.key_path.as_str()),
            (SET_ORIGIN, "link[3].rate")
        );
        assert!(
            e.message.contains("out of range: link has 1 entry"),
            "{}",
            e.message
        );
        let e = set(&mut d, "flow[0].cc=reno").unwrap_err();
        assert!(e.message.contains("flow has 0 entries"), "{}", e.message);
        let e = set(&mut d, "sim.duration.x=1").unwrap_err();
        assert_eq!(e.key_path, "sim.duration.x");
        assert!(
            e.message.contains("sim.duration is a string, not a table"),
            "{}",
            e.message
        );
        let e = set(&mut d, "sim[0]=1").unwrap_err();
        assert!(e.message.contains("not an array"), "{}", e.message);
        let e = set(&mut d, "sim.duration").unwrap_err();
        assert!(e.message.contains("no '='"), "{}", e.message);
        let e = set(&mut d, "=5").unwrap_err();
        assert!(e.message.contains("malformed key"), "{}", e.message);
        let e = set(&mut d, "link[1=5").unwrap_err();
        assert_eq!(e.key_path, "link[1");
        assert!(e.message.contains("no matching ']'"), "{}", e.message);
    }
}
