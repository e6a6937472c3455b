//! docs/reference/ (issue 10) is generated from the scenario schema
//! (`scenario::reference`): these tests fail when a copy there is stale, and
//! check that the schema describes the real scenarios of examples/.
//!
//! Regenerate both files with
//!     LFNLAB_BLESS=1 cargo test -p lfnlab-core --test reference_doc
//! (the same text as `lfnlab schema > docs/reference/scenario.schema.json` and
//! `lfnlab schema --markdown > docs/reference/scenario-keys.md`).

use std::path::{Path, PathBuf};

use lfnlab_core::scenario::reference;
use serde_json::{Map, Value};

const REGENERATE: &str = "LFNLAB_BLESS=1 cargo test -p lfnlab-core --test reference_doc";

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Compares docs/reference/`name` with `generated`; with `LFNLAB_BLESS=1`,
/// writes it instead.
fn check_generated(name: &str, generated: &str) {
    let path = repo_root().join("docs/reference").join(name);
    if std::env::var_os("LFNLAB_BLESS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().expect("docs/reference")).expect("create docs/reference");
        std::fs::write(&path, generated).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
        return;
    }
    let Ok(on_disk) = std::fs::read_to_string(&path) else {
        panic!("docs/reference/{name} is missing; generate it with\n    {REGENERATE}");
    };
    if on_disk != generated {
        let line = on_disk.lines().zip(generated.lines()).position(|(a, b)| a != b).unwrap_or_else(|| on_disk.lines().count().min(generated.lines().count())) + 1;
        panic!(
            "docs/reference/{name} differs from what the scenario schema (crates/lfnlab-core/src/scenario/) generates now, \
             first at line {line}. It is generated, not edited by hand: regenerate it with\n    {REGENERATE}\nand commit the result."
        );
    }
}

#[test]
fn key_reference_is_current() {
    check_generated("scenario-keys.md", &reference::markdown());
}

#[test]
fn json_schema_is_current() {
    check_generated("scenario.schema.json", &reference::json_schema_text());
}

/// A structural draft 07 check, enough for the keywords the generated schema
/// uses (`schema_uses_only_checked_keywords` keeps it so).
struct Validator<'a> {
    defs: &'a Map<String, Value>,
}

/// Keywords `Validator` checks, and those that only document.
const CHECKED: &[&str] = &[
    "$ref", "allOf", "anyOf", "oneOf", "type", "enum", "const", "minimum", "maximum", "pattern", "properties",
    "additionalProperties", "required", "items",
];
const ANNOTATIONS: &[&str] = &["$schema", "title", "description", "default", "examples", "format", "definitions"];

impl Validator<'_> {
    /// `Err` names the key path (`link[1].queue.limit`) and what is wrong.
    fn check(&self, v: &Value, s: &Value, path: &str) -> Result<(), String> {
        match s {
            Value::Bool(true) => return Ok(()),
            Value::Bool(false) => return Err(format!("{path}: no value is allowed here")),
            _ => {}
        }
        // draft 07: a `$ref` replaces its siblings.
        if let Some(r) = s.get("$ref").and_then(Value::as_str) {
            let def = r.strip_prefix("#/definitions/").and_then(|n| self.defs.get(n)).ok_or_else(|| format!("{path}: dangling $ref {r}"))?;
            return self.check(v, def, path);
        }
        for sub in s.get("allOf").and_then(Value::as_array).into_iter().flatten() {
            self.check(v, sub, path)?;
        }
        for (keyword, exactly_one) in [("anyOf", false), ("oneOf", true)] {
            if let Some(alts) = s.get(keyword).and_then(Value::as_array) {
                let results: Vec<Result<(), String>> = alts.iter().map(|a| self.check(v, a, path)).collect();
                let matched = results.iter().filter(|r| r.is_ok()).count();
                if matched == 0 || (exactly_one && matched > 1) {
                    let why: Vec<String> = results.into_iter().filter_map(Result::err).collect();
                    return Err(format!("{path}: matches {matched} of the {keyword} alternatives ({})", why.join("; ")));
                }
            }
        }
        if let Some(t) = s.get("type") {
            let allowed: Vec<&str> = match t {
                Value::String(x) => vec![x.as_str()],
                Value::Array(xs) => xs.iter().filter_map(Value::as_str).collect(),
                _ => return Err(format!("{path}: malformed type {t}")),
            };
            let is = json_type(v);
            if !allowed.iter().any(|a| *a == is || (*a == "number" && is == "integer")) {
                return Err(format!("{path}: expected {}, got {is} {v}", allowed.join(" or ")));
            }
        }
        if let Some(values) = s.get("enum").and_then(Value::as_array)
            && !values.contains(v)
        {
            return Err(format!("{path}: {v} is not one of {}", Value::Array(values.clone())));
        }
        if let Some(c) = s.get("const")
            && c != v
        {
            return Err(format!("{path}: expected {c}, got {v}"));
        }
        if let Some(x) = v.as_f64() {
            let below = s.get("minimum").and_then(Value::as_f64).is_some_and(|lo| x < lo);
            let above = s.get("maximum").and_then(Value::as_f64).is_some_and(|hi| x > hi);
            if below || above {
                return Err(format!("{path}: {x} is out of range"));
            }
        }
        if let (Some(text), Some(p)) = (v.as_str(), s.get("pattern").and_then(Value::as_str))
            && !regex::Regex::new(p).map_err(|e| format!("{path}: bad pattern: {e}"))?.is_match(text)
        {
            return Err(format!("{path}: {text:?} does not match {p}"));
        }
        if let Value::Object(table) = v {
            let props = s.get("properties").and_then(Value::as_object);
            for (key, value) in table {
                let child = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
                match props.and_then(|p| p.get(key)) {
                    Some(sub) => self.check(value, sub, &child)?,
                    None if s.get("additionalProperties") == Some(&Value::Bool(false)) => {
                        return Err(format!("{child}: the schema has no such key"));
                    }
                    None => {}
                }
            }
            for key in s.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
                if !table.contains_key(key) {
                    return Err(format!("{path}: required key `{key}` is missing"));
                }
            }
        }
        if let (Value::Array(items), Some(item_schema)) = (v, s.get("items")) {
            for (i, item) in items.iter().enumerate() {
                self.check(item, item_schema, &format!("{path}[{i}]"))?;
            }
        }
        Ok(())
    }
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Checks a TOML document against the generated schema.
fn validate(toml_text: &str) -> Result<(), String> {
    let doc: toml::Table = toml::from_str(toml_text).map_err(|e| e.to_string())?;
    // TOML integers stay JSON integers and floats JSON floats.
    let doc = serde_json::to_value(doc).map_err(|e| e.to_string())?;
    let schema = reference::json_schema();
    let defs = schema["definitions"].as_object().expect("definitions");
    Validator { defs }.check(&doc, &schema, "")
}

/// The scenario files of examples/: every `.toml` except sweep plans (a
/// `[sweep]` table, docs/sweep.md), which name a scenario instead of being one.
fn example_scenarios() -> Vec<(String, String)> {
    let dir = repo_root().join("examples");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("examples/")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).expect("a readable example")))
        .filter(|(_, text)| !toml::from_str::<toml::Table>(text).is_ok_and(|t| t.contains_key("sweep")))
        .collect()
}

#[test]
fn every_key_of_the_examples_is_in_the_schema_at_its_place() {
    let examples = example_scenarios();
    assert!(examples.iter().any(|(name, _)| name == "dumbbell.toml"), "examples/dumbbell.toml (spec 00 §2.2) is missing");
    assert!(examples.len() >= 5, "expected the scenario examples, found {}", examples.len());
    for (name, text) in &examples {
        if let Err(e) = validate(text) {
            panic!("examples/{name} does not validate against the generated schema: {e}");
        }
    }
}

/// The resolved form (`scenario.toml` of a result, every default filled in)
/// uses keys an author rarely writes: they must be in the schema too.
#[test]
fn every_resolved_example_validates() {
    for (name, _) in example_scenarios() {
        let path = repo_root().join("examples").join(&name);
        let scenario = lfnlab_core::scenario::load_file(&path, &[]).unwrap_or_else(|e| panic!("examples/{name}: {e}"));
        if let Err(e) = validate(&lfnlab_core::scenario::to_toml(&scenario)) {
            panic!("examples/{name}, resolved, does not validate against the generated schema: {e}");
        }
    }
}

#[test]
fn the_check_is_not_vacuous() {
    let dumbbell = std::fs::read_to_string(repo_root().join("examples/dumbbell.toml")).expect("examples/dumbbell.toml");
    let cases = [
        (dumbbell.replace("delay = \"100ms\"", "delay = \"100ms\"\ndelai = \"1ms\""), "link[1].delai: the schema has no such key"),
        (dumbbell.replace("rate = \"500Mbps\"", "rate = 500"), "link[1].rate"),
        (dumbbell.replace("rate = \"500Mbps\"", "rate = \"500Mb\""), "link[1].rate"),
        (dumbbell.replace("kind = \"emulator\"", "kind = \"hub\""), "node[1].kind"),
        (dumbbell.replace("duration = \"60s\"", ""), "required key `duration` is missing"),
        (dumbbell.replace("cc = \"newreno\"", "cc = \"newreno\"\nquickstart = { rate = \"5.12Mbps\", hz = -1 }"), "flow[0].quickstart.hz"),
    ];
    for (text, expected) in cases {
        let e = validate(&text).expect_err(expected);
        assert!(e.contains(expected), "expected an error naming {expected:?}, got {e:?}");
    }
}

#[test]
fn schema_uses_only_checked_keywords() {
    fn walk(s: &Value, in_properties: bool, found: &mut Vec<String>) {
        match s {
            Value::Object(m) => {
                for (k, v) in m {
                    // Under `properties` and `definitions` the keys are names, not keywords.
                    if !in_properties && !CHECKED.contains(&k.as_str()) && !ANNOTATIONS.contains(&k.as_str()) {
                        found.push(k.clone());
                    }
                    if !matches!(k.as_str(), "enum" | "const" | "default" | "examples") {
                        walk(v, !in_properties && (k == "properties" || k == "definitions"), found);
                    }
                }
            }
            Value::Array(xs) => xs.iter().for_each(|x| walk(x, false, found)),
            _ => {}
        }
    }
    let mut unknown = Vec::new();
    walk(&reference::json_schema(), false, &mut unknown);
    assert!(unknown.is_empty(), "the schema uses keywords the validator of this test ignores: {unknown:?}");
}
