//! Loading a scenario (spec 00 §2.2–2.3). One path for every input:
//! text → `toml::Table` (JSON → `toml::Table`) → `--set` overrides →
//! deserialize with key paths → resolve.

use std::path::Path;

use toml::{Table, Value};

use super::keypath::is_within;
use super::model::Scenario;
use super::resolve::resolve;
use super::set::{apply, parse_override, SET_ORIGIN};
use crate::error::InputError;

/// Reads, parses, overrides, checks and resolves a TOML scenario file.
/// Errors name the file as given.
pub fn load_file(path: &Path, sets: &[String]) -> Result<Scenario, InputError> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| {
        InputError::new(
            file.as_str(),
            "",
            format!("cannot read the scenario file: {e}"),
        )
    })?;
    let text = String::from_utf8(bytes).map_err(|e| not_utf8(&e, &file))?;
    load_str(&text, &file, sets)
}

/// A scenario file that is not UTF-8 text (TOML 1.0 §"Spec": a TOML file must be a
/// valid UTF-8 encoded Unicode document): where the first invalid byte is.
fn not_utf8(e: &std::string::FromUtf8Error, origin: &str) -> InputError {
    let at = e.utf8_error().valid_up_to();
    let bytes = e.as_bytes();
    let valid = std::str::from_utf8(&bytes[..at]).unwrap_or_default();
    let line = valid.matches('\n').count() + 1;
    let column = valid.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    InputError::new(
        origin,
        "",
        format!("not UTF-8 text: byte 0x{:02X} at line {line}, column {column} (byte offset {at}); save the file as UTF-8", bytes[at]),
    )
}

/// As `load_file`, from TOML text; `origin` names the "file" in errors and
/// gives the default `sim.name` (its file stem).
pub fn load_str(text: &str, origin: &str, sets: &[String]) -> Result<Scenario, InputError> {
    let table = text
        .parse::<Table>()
        .map_err(|e| toml_syntax_error(&e, text, origin))?;
    finish(table, origin, sets)
}

/// As `load_str`, from JSON (a Python dict serialized as JSON). A `null` value
/// in an object means the key is absent (CHOICE: Python `None` = "use the default").
pub fn load_json(json: &str, origin: &str, sets: &[String]) -> Result<Scenario, InputError> {
    let value: serde_json::Value = serde_json::from_str(json)
        .map_err(|e| InputError::new(origin, "", format!("JSON syntax error: {e}")))?;
    let serde_json::Value::Object(object) = value else {
        return Err(InputError::new(
            origin,
            "",
            "expected a JSON object (a dict) at the top level",
        ));
    };
    let table = json_object(object, "", origin)?;
    finish(table, origin, sets)
}

fn finish(mut table: Table, origin: &str, sets: &[String]) -> Result<Scenario, InputError> {
    let mut set_keys = Vec::with_capacity(sets.len());
    for arg in sets {
        let over = parse_override(arg)?;
        apply(&mut table, &over)?;
        set_keys.push(over.key.to_string());
    }
    // An error inside a value given with --set is reported against --set.
    let attribute = |e: InputError| {
        if set_keys.iter().any(|k| is_within(&e.key_path, k)) {
            InputError {
                file: SET_ORIGIN.into(),
                ..e
            }
        } else {
            e
        }
    };
    reject_datetimes(&table, "").map_err(|p| attribute(InputError::new(origin, p, "date-times are not used in scenarios; expected a string, number, boolean, table or array")))?;
    let scenario = deserialize(table, origin).map_err(attribute)?;
    resolve(scenario, origin).map_err(attribute)
}

/// Deserializes into the schema, naming the key path of the first error.
fn deserialize(table: Table, origin: &str) -> Result<Scenario, InputError> {
    serde_path_to_error::deserialize(Value::Table(table)).map_err(|e| {
        let path = match e.path().to_string() {
            root if root == "." => String::new(),
            p => p,
        };
        let message = e.inner().message().to_string();
        let (key_path, message) = fix_up(path, message);
        InputError::new(origin, key_path, message)
    })
}

/// serde reports unknown and missing keys at the enclosing table; the key path
/// should end with the key itself (`link[0].colour`, `link[0].rate`).
fn fix_up(path: String, message: String) -> (String, String) {
    let join = |key: &str| {
        if path.is_empty() {
            key.to_string()
        } else if path == key || path.ends_with(&format!(".{key}")) {
            path.clone()
        } else {
            format!("{path}.{key}")
        }
    };
    if let Some(key) = quoted_key(&message, "unknown field `") {
        let expected = message
            .split_once(", expected ")
            .map(|(_, rest)| rest.replace('`', "\""))
            .unwrap_or_default();
        let message = if expected.is_empty() {
            format!("unknown key \"{key}\"")
        } else {
            format!("unknown key \"{key}\"; expected {expected}")
        };
        return (join(&key), message);
    }
    if let Some(key) = quoted_key(&message, "missing field `") {
        return (join(&key), format!("missing required key \"{key}\""));
    }
    (path, plain(&message))
}

/// serde's wording in scenario terms: Rust type names become the values they
/// stand for, backticks become quotes.
fn plain(message: &str) -> String {
    const TYPES: &[(&str, &str)] = &[
        ("u8", "an integer from 0 to 255"),
        ("u32", "an integer from 0 to 4294967295"),
        ("u64", "an integer from 0 to 9223372036854775807"),
        ("i32", "an integer"),
        ("f64", "a number"),
        ("a sequence", "an array"),
    ];
    let mut text = message.to_string();
    if let Some((head, expected)) = message.rsplit_once(", expected ") {
        if let Some(&(_, plain)) = TYPES.iter().find(|(ty, _)| *ty == expected) {
            text = format!("{head}, expected {plain}");
        } else if expected.starts_with("struct ") || expected.starts_with("a map") {
            text = format!("{head}, expected a table");
        }
    }
    if let Some(rest) = text.strip_prefix("unknown variant ") {
        text = format!(
            "unknown value {}",
            rest.replacen(", expected", "; expected", 1)
        );
    }
    // `name` → "name"; `-1` → -1.
    let mut out = String::with_capacity(text.len());
    for (i, part) in text.split('`').enumerate() {
        if i % 2 == 1 && part.parse::<f64>().is_err() {
            out.push('"');
            out.push_str(part);
            out.push('"');
        } else {
            out.push_str(part);
        }
    }
    out
}

/// The name between `prefix` and the next backtick, if `message` starts with `prefix`.
fn quoted_key(message: &str, prefix: &str) -> Option<String> {
    let rest = message.strip_prefix(prefix)?;
    rest.split_once('`').map(|(key, _)| key.to_string())
}

fn toml_syntax_error(e: &toml::de::Error, text: &str, origin: &str) -> InputError {
    let message = e.message().trim();
    let Some(span) = e.span() else {
        return InputError::new(origin, "", format!("TOML syntax error: {message}"));
    };
    let before = text.get(..span.start.min(text.len())).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    let line_text = text.lines().nth(line - 1).unwrap_or("").trim();
    InputError::new(
        origin,
        "",
        format!("TOML syntax error at line {line}, column {column}: {}", syntax_message(message, line_text)),
    )
}

/// The toml crate's message, in the user's terms where it speaks of its own internals
/// or leaves the likely cause unsaid (issue 40).
fn syntax_message(message: &str, line_text: &str) -> String {
    // An integer literal outside i64 (TOML 1.0 §Integer: "Arbitrary 64-bit signed
    // integers"): the parser reports it through its i128 reader.
    if message.contains(" as i128") {
        let key = line_text.split_once('=').map_or("", |(k, _)| k.trim());
        return format!(
            "`{key}`: the integer is outside TOML's range, -9223372036854775808 to 9223372036854775807"
        );
    }
    // A table header given twice: `[node]` where each element needs `[[node]]`.
    if message == "duplicate key" {
        if let Some(name) = line_text.strip_prefix('[').and_then(|r| r.strip_suffix(']')).filter(|n| !n.starts_with('[')) {
            return format!(
                "duplicate table [{name}]: a table may appear once; for a list (one [[{name}]] per element, as \
                 [[node]], [[link]], [[flow]]) write the header with double brackets"
            );
        }
    }
    message.to_string()
}

/// The key path of the first TOML date-time, which no scenario key accepts.
fn reject_datetimes(table: &Table, at: &str) -> Result<(), String> {
    fn walk(v: &Value, at: String) -> Result<(), String> {
        match v {
            Value::Datetime(_) => Err(at),
            Value::Array(items) => items
                .iter()
                .enumerate()
                .try_for_each(|(i, x)| walk(x, format!("{at}[{i}]"))),
            Value::Table(t) => reject_datetimes(t, &at),
            _ => Ok(()),
        }
    }
    table.iter().try_for_each(|(k, v)| walk(v, join_key(at, k)))
}

fn join_key(at: &str, key: &str) -> String {
    if at.is_empty() {
        key.to_string()
    } else {
        format!("{at}.{key}")
    }
}

fn json_object(
    object: serde_json::Map<String, serde_json::Value>,
    at: &str,
    origin: &str,
) -> Result<Table, InputError> {
    let mut table = Table::new();
    for (key, value) in object {
        if value.is_null() {
            continue;
        }
        let path = join_key(at, &key);
        let converted = json_value(value, &path, origin)?;
        table.insert(key, converted);
    }
    Ok(table)
}

fn json_value(value: serde_json::Value, at: &str, origin: &str) -> Result<Value, InputError> {
    use serde_json::Value as J;
    Ok(match value {
        J::Null => return Err(InputError::new(origin, at, "null is not allowed in a list")),
        J::Bool(b) => Value::Boolean(b),
        J::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => Value::Integer(i),
            (None, _) if n.is_u64() => {
                return Err(InputError::new(
                    origin,
                    at,
                    format!("the integer {n} is too large (at most {})", i64::MAX),
                ));
            }
            (None, Some(f)) => Value::Float(f),
            (None, None) => {
                return Err(InputError::new(
                    origin,
                    at,
                    format!("cannot read the number {n}"),
                ))
            }
        },
        J::String(s) => Value::String(s),
        J::Array(items) => Value::Array(
            items
                .into_iter()
                .enumerate()
                .map(|(i, x)| json_value(x, &format!("{at}[{i}]"), origin))
                .collect::<Result<_, _>>()?,
        ),
        J::Object(o) => Value::Table(json_object(o, at, origin)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fix_up_appends_the_key() {
        let (p, m) = fix_up(
            "link[0]".into(),
            "unknown field `colour`, expected `from` or `to`".into(),
        );
        assert_eq!(p, "link[0].colour");
        assert_eq!(m, "unknown key \"colour\"; expected \"from\" or \"to\"");
        let (p, _) = fix_up(
            "link[0].colour".into(),
            "unknown field `colour`, expected `from`".into(),
        );
        assert_eq!(p, "link[0].colour");
        let (p, m) = fix_up("".into(), "missing field `sim`".into());
        assert_eq!(
            (p.as_str(), m.as_str()),
            ("sim", "missing required key \"sim\"")
        );
    }

    #[test]
    fn serde_wording_is_plain() {
        assert_eq!(
            plain("unknown variant `hub`, expected one of `host`, `router`"),
            "unknown value \"hub\"; expected one of \"host\", \"router\""
        );
        assert_eq!(
            plain("invalid value: integer `-1`, expected u32"),
            "invalid value: integer -1, expected an integer from 0 to 4294967295"
        );
        assert_eq!(
            plain("invalid type: integer `5`, expected struct TcpParams"),
            "invalid type: integer 5, expected a table"
        );
    }

    #[test]
    fn a_scenario_without_nodes_is_refused() {
        let e = load_str("[sim]\nduration = \"1s\"\n", "x.toml", &[]).unwrap_err();
        assert_eq!(e.key_path, "node");
        assert!(e.message.starts_with("no nodes: "), "{}", e.message);
    }

    #[test]
    fn syntax_errors_say_what_the_user_wrote() {
        let e = load_str("[sim]\nduration = \"1s\"\nseed = 123456789012345678901\n", "x.toml", &[]).unwrap_err();
        assert!(e.message.contains("`seed`: the integer is outside TOML's range"), "{}", e.message);
        assert!(!e.message.contains("i128"), "{}", e.message);
        let e = load_str("[sim]\nduration = \"1s\"\n[node]\nname = \"a\"\n[node]\nname = \"b\"\n", "x.toml", &[]).unwrap_err();
        assert!(e.message.starts_with("TOML syntax error at line 5, column"), "{}", e.message);
        assert!(e.message.contains("duplicate table [node]") && e.message.contains("[[node]]"), "{}", e.message);
    }

    #[test]
    fn a_file_that_is_not_utf8_names_the_byte() {
        let path = std::env::temp_dir().join(format!("lfnlab-not-utf8-{}.toml", std::process::id()));
        std::fs::write(&path, b"[sim]\nname = \"ab\xff\"\n").unwrap();
        let e = load_file(&path, &[]).unwrap_err();
        std::fs::remove_file(&path).ok();
        assert_eq!(
            e.message,
            "not UTF-8 text: byte 0xFF at line 2, column 11 (byte offset 16); save the file as UTF-8"
        );
    }

    #[test]
    fn syntax_errors_give_line_and_column() {
        let e = load_str("[sim]\nduration = \"1s\"\nseed = = 3\n", "x.toml", &[]).unwrap_err();
        assert_eq!(e.key_path, "");
        assert!(
            e.message.starts_with("TOML syntax error at line 3, column"),
            "{}",
            e.message
        );
    }

    #[test]
    fn json_nulls_and_big_numbers() {
        let e = load_json(
            "{\"sim\": {\"duration\": \"1s\", \"seed\": 18446744073709551615}}",
            "<dict>",
            &[],
        )
        .unwrap_err();
        assert_eq!(e.key_path, "sim.seed");
        assert!(e.message.contains("too large"), "{}", e.message);
        let s = load_json(
            "{\"sim\": {\"duration\": \"1s\", \"seed\": null}, \"node\": [{\"name\": \"a\", \"kind\": \"host\"}, \
             {\"name\": \"b\", \"kind\": \"host\"}], \"link\": [{\"from\": \"a\", \"to\": \"b\", \"rate\": \"1Gbps\", \"delay\": \"1ms\"}]}",
            "<dict>",
            &[],
        )
        .unwrap();
        assert_eq!(s.sim.seed, Some(1));
        assert_eq!(s.sim.name.as_deref(), Some("scenario"));
        let e = load_json("[1]", "<dict>", &[]).unwrap_err();
        assert!(e.message.contains("top level"), "{}", e.message);
        let e = load_json("{\"sim\": ", "<dict>", &[]).unwrap_err();
        assert!(
            e.message.contains("JSON syntax error") && e.message.contains("line 1"),
            "{}",
            e.message
        );
    }

    #[test]
    fn datetimes_are_refused() {
        let e = load_str("[sim]\nduration = 1979-05-27\n", "x.toml", &[]).unwrap_err();
        assert_eq!(e.key_path, "sim.duration");
    }
}
