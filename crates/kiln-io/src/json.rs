//! A JSON tree that keeps every entry of an object (duplicate keys included, in file order),
//! and the pretty printer used for graph files and value files.
//!
//! `serde_json::Value` keeps only the last of repeated keys; graph files need to see all of
//! them (a port listed twice in a node's `inputs` is two sources), so documents are read into
//! [`Json`] through a serde visitor. Nesting depth is bounded by serde_json's recursion limit
//! (128), which also bounds every recursive walk over the tree in this crate.

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// A parsed JSON value.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An integer literal that fits in `i64`.
    Int(i64),
    /// An integer literal above `i64::MAX` (and at most `u64::MAX`).
    UInt(u64),
    /// Any other number (a fraction or exponent was written, or the integer was too large).
    Float(f64),
    /// A string.
    Str(String),
    /// An array.
    Array(Vec<Json>),
    /// An object: every entry, in file order, repeated keys included.
    Object(Vec<(String, Json)>),
}

impl Json {
    /// The JSON type's name, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "a boolean",
            Json::Int(_) | Json::UInt(_) | Json::Float(_) => "a number",
            Json::Str(_) => "a string",
            Json::Array(_) => "an array",
            Json::Object(_) => "an object",
        }
    }

    /// The number as `f64`, if this is a number.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Json::Int(i) => Some(*i as f64),
            Json::UInt(u) => Some(*u as f64),
            Json::Float(f) => Some(*f),
            _ => None,
        }
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_none<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
        Ok(Json::Int(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
        Ok(match i64::try_from(v) {
            Ok(i) => Json::Int(i),
            Err(_) => Json::UInt(v),
        })
    }
    fn visit_f64<E>(self, v: f64) -> Result<Json, E> {
        Ok(Json::Float(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Json, E> {
        Ok(Json::Str(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Json, E> {
        Ok(Json::Str(v))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Json>()? {
            items.push(item);
        }
        // No room kept beyond the items: a large file holds many small arrays and objects.
        items.shrink_to_fit();
        Ok(Json::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut entries = Vec::new();
        while let Some((k, v)) = map.next_entry::<String, Json>()? {
            entries.push((k, v));
        }
        entries.shrink_to_fit();
        Ok(Json::Object(entries))
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Json, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
}

/// Parse a whole document (trailing non-whitespace is an error).
pub fn parse(text: &str) -> Result<Json, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = Json::deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

// ---------------------------------------------------------------------------------------------
// Printing

/// Compound values whose one-line form is at most this many bytes are written on one line.
pub const INLINE_WIDTH: usize = 72;

/// A document layout: blocks are always written one entry per line; values are written on
/// one line when short (see [`INLINE_WIDTH`]), else broken one element per line.
pub enum Doc {
    /// An object always written one key per line (`{}` when empty).
    Block(Vec<(String, Doc)>),
    /// A value.
    Value(Json),
}

/// Write a JSON string literal.
pub fn write_str(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || c == '\u{7f}' || c == '\u{2028}' || c == '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The shortest decimal text that reads back as exactly `f` and as a float (it always has a
/// `.` or an exponent). `f` must be finite; non-finite numbers are written as `null`.
pub fn float_text(f: f64) -> String {
    if !f.is_finite() {
        return "null".to_string();
    }
    let s = format!("{f:?}");
    if s.contains(['.', 'e', 'E']) {
        s
    } else {
        format!("{s}.0")
    }
}

fn write_scalar(j: &Json, out: &mut String) {
    match j {
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Int(i) => out.push_str(&i.to_string()),
        Json::UInt(u) => out.push_str(&u.to_string()),
        Json::Float(f) => out.push_str(&float_text(*f)),
        Json::Str(s) => write_str(s, out),
        Json::Array(_) | Json::Object(_) => {}
    }
}

/// One-line form: `[1.0, 2.0]`, `{"type": "vec2", "value": [1.0, 2.0]}`.
pub fn compact(j: &Json, out: &mut String) {
    match j {
        Json::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                compact(item, out);
            }
            out.push(']');
        }
        Json::Object(entries) => {
            out.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_str(k, out);
                out.push_str(": ");
                compact(v, out);
            }
            out.push('}');
        }
        scalar => write_scalar(scalar, out),
    }
}

fn newline(indent: usize, out: &mut String) {
    out.push('\n');
    for _ in 0..indent {
        out.push_str("  ");
    }
}

/// Write a value at nesting level `indent` (two spaces per level).
pub fn write_value(j: &Json, indent: usize, out: &mut String) {
    let empty = match j {
        Json::Array(items) => items.is_empty(),
        Json::Object(entries) => entries.is_empty(),
        _ => true,
    };
    if empty {
        compact(j, out);
        return;
    }
    let mut one_line = String::new();
    compact(j, &mut one_line);
    if one_line.len() <= INLINE_WIDTH {
        out.push_str(&one_line);
        return;
    }
    match j {
        Json::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(indent + 1, out);
                write_value(item, indent + 1, out);
            }
            newline(indent, out);
            out.push(']');
        }
        Json::Object(entries) => write_entries(entries, indent, out, write_value),
        scalar => write_scalar(scalar, out),
    }
}

/// Write a document at nesting level `indent`.
pub fn write_doc(d: &Doc, indent: usize, out: &mut String) {
    match d {
        Doc::Value(j) => write_value(j, indent, out),
        Doc::Block(entries) if entries.is_empty() => out.push_str("{}"),
        Doc::Block(entries) => write_entries(entries, indent, out, write_doc),
    }
}

/// Write a non-empty object, one `"key": value` per line, values written by `item`.
fn write_entries<T>(
    entries: &[(String, T)],
    indent: usize,
    out: &mut String,
    item: fn(&T, usize, &mut String),
) {
    out.push('{');
    for (i, (k, v)) in entries.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        newline(indent + 1, out);
        write_str(k, out);
        out.push_str(": ");
        item(v, indent + 1, out);
    }
    newline(indent, out);
    out.push('}');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_duplicate_keys_in_order() {
        let j = parse(r#"{"a": 1, "b": [true, null], "a": 2.5}"#).unwrap();
        assert_eq!(
            j,
            Json::Object(vec![
                ("a".into(), Json::Int(1)),
                ("b".into(), Json::Array(vec![Json::Bool(true), Json::Null])),
                ("a".into(), Json::Float(2.5)),
            ])
        );
    }

    #[test]
    fn numbers_keep_their_kind() {
        assert_eq!(parse("3").unwrap(), Json::Int(3));
        assert_eq!(parse("-3").unwrap(), Json::Int(-3));
        assert_eq!(parse("3.0").unwrap(), Json::Float(3.0));
        assert_eq!(parse("1e3").unwrap(), Json::Float(1000.0));
        assert_eq!(parse("18446744073709551615").unwrap(), Json::UInt(u64::MAX));
        assert!(matches!(
            parse("18446744073709551616").unwrap(),
            Json::Float(_)
        ));
    }

    #[test]
    fn float_text_reads_back_exactly_as_a_float() {
        for f in [
            0.0,
            -0.0,
            1.0,
            0.1,
            1e16,
            1e300,
            5e-324,
            f64::MAX,
            -123.456,
            1.0 / 3.0,
        ] {
            let s = float_text(f);
            match parse(&s).unwrap() {
                Json::Float(g) => assert_eq!(g.to_bits(), f.to_bits(), "{s}"),
                other => panic!("{s} read back as {other:?}"),
            }
        }
    }

    #[test]
    fn strings_escape_and_read_back() {
        let s = "q\"b\\n\n\t\u{1}\u{7f}\u{2028}é🎉";
        let mut out = String::new();
        write_str(s, &mut out);
        assert_eq!(parse(&out).unwrap(), Json::Str(s.to_string()));
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let text = "[".repeat(100_000);
        assert!(parse(&text).is_err());
    }

    #[test]
    fn long_values_break() {
        let j = Json::Array((0..30).map(Json::Int).collect());
        let mut out = String::new();
        write_value(&j, 0, &mut out);
        assert!(out.starts_with("[\n  0,\n  1,"));
        let short = Json::Array(vec![Json::Float(0.25), Json::Float(0.5)]);
        let mut out = String::new();
        write_value(&short, 3, &mut out);
        assert_eq!(out, "[0.25, 0.5]");
    }
}
