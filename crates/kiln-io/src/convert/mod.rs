//! JSON ↔ [`Value`] conversion, directed by the declared type of the param or port.
//!
//! Reading: a JSON value that fits the declared type becomes that type; anything else is
//! converted by inference (and `kiln_core::validate` reports the mismatch later). Writing:
//! the natural form for the declared type is used when it reads back as exactly the same
//! value, else the explicit typed form `{"type": ..., "value": ...}`, which always does.
//!
//! Reading is here; writing is in `encode`.

mod encode;

pub use encode::{ColorStyle, Ctx, display, encode, typed_form};

use crate::json::Json;
use crate::load_error::LoadError;
use kiln_core::graph::PortRef;
use kiln_core::value::{Value, ValueType, parse_hex_color};
use std::sync::Arc;

/// Child path `parent.key` (or `key` at the top).
pub fn child(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

fn index(path: &str, i: usize) -> String {
    format!("{path}[{i}]")
}

/// The type names an explicit typed value may use.
pub const TYPED_NAMES: &str =
    "float, int, bool, vec2, vec3, vec4, color, string, list, list<T>, record";

/// A declared type that directs conversion (`None` for any/number/heavy/unknown).
fn directing(t: Option<ValueType>) -> Option<ValueType> {
    match t {
        Some(ValueType::Any | ValueType::Number | ValueType::Heavy(_)) | None => None,
        other => other,
    }
}

fn numbers<const N: usize>(j: &Json) -> Option<[f64; N]> {
    let Json::Array(items) = j else { return None };
    if items.len() != N {
        return None;
    }
    let mut out = [0.0; N];
    for (o, item) in out.iter_mut().zip(items) {
        *o = item.as_f64()?;
    }
    Some(out)
}

fn color_of(items: &[f64]) -> Option<[f32; 4]> {
    match items {
        [r, g, b] => Some([*r as f32, *g as f32, *b as f32, 1.0]),
        [r, g, b, a] => Some([*r as f32, *g as f32, *b as f32, *a as f32]),
        _ => None,
    }
}

fn color_numbers(j: &Json) -> Option<[f32; 4]> {
    let Json::Array(items) = j else { return None };
    let nums: Option<Vec<f64>> = items.iter().map(Json::as_f64).collect();
    color_of(&nums?)
}

/// Read a param value, a graph input default or an inline constant.
pub fn decode_value(j: &Json, declared: Option<ValueType>, path: &str) -> Result<Value, LoadError> {
    let fitted = match directing(declared) {
        Some(ValueType::Float) => j.as_f64().map(Value::Float),
        Some(ValueType::Int) => match j {
            Json::Int(i) => Some(Value::Int(*i)),
            _ => None,
        },
        Some(ValueType::Bool) => match j {
            Json::Bool(b) => Some(Value::Bool(*b)),
            _ => None,
        },
        Some(ValueType::Vec2) => numbers::<2>(j).map(Value::Vec2),
        Some(ValueType::Vec3) => numbers::<3>(j).map(Value::Vec3),
        Some(ValueType::Vec4) => numbers::<4>(j).map(Value::Vec4),
        Some(ValueType::Color) => match j {
            Json::Str(s) => parse_hex_color(s).map(Value::Color),
            other => color_numbers(other).map(Value::Color),
        },
        Some(ValueType::String) => match j {
            Json::Str(s) => Some(Value::str(s)),
            _ => None,
        },
        Some(ValueType::List) => match j {
            Json::Array(items) => Some(list(items, path)?),
            _ => None,
        },
        Some(ValueType::ListOf(e)) => match j {
            Json::Array(items) => Some(list_of(items, Some(*e), path)?),
            _ => None,
        },
        _ => None,
    };
    match fitted {
        Some(v) => Ok(v),
        None => infer(j, declared, path),
    }
}

fn list(items: &[Json], path: &str) -> Result<Value, LoadError> {
    list_of(items, None, path)
}

/// A list whose items are read as `elem` (as anything when `None`).
fn list_of(items: &[Json], elem: Option<ValueType>, path: &str) -> Result<Value, LoadError> {
    let values = items
        .iter()
        .enumerate()
        .map(|(i, item)| decode_value(item, elem, &index(path, i)))
        .collect::<Result<Vec<Value>, LoadError>>()?;
    Ok(Value::List(Arc::from(values)))
}

/// The record whose fields are the entries of a JSON object (each value read as anything).
fn record(entries: &[(String, Json)], path: &str) -> Result<Value, LoadError> {
    let mut fields: Vec<(Arc<str>, Value)> = Vec::with_capacity(entries.len());
    for (k, v) in entries {
        if fields.iter().any(|(f, _)| **f == **k) {
            return Err(LoadError::format(
                &child(path, k),
                format!("field `{k}` appears twice"),
                Some("keep one".to_string()),
            ));
        }
        fields.push((
            Arc::from(k.as_str()),
            decode_value(v, None, &child(path, k))?,
        ));
    }
    Ok(Value::Record(Arc::new(kiln_core::record::Record::new(
        fields,
    ))))
}

fn infer(j: &Json, declared: Option<ValueType>, path: &str) -> Result<Value, LoadError> {
    Ok(match j {
        Json::Null => Value::Empty,
        Json::Bool(b) => Value::Bool(*b),
        Json::Int(i) => Value::Int(*i),
        Json::UInt(u) => Value::Float(*u as f64),
        Json::Float(f) => Value::Float(*f),
        Json::Str(s) => Value::str(s),
        Json::Array(items) => list(items, path)?,
        Json::Object(entries) => return object_value(entries, declared, path),
    })
}

const OBJECT_HINT: &str = r#"write a typed value like {"type": "vec3", "value": [0.0, 1.0, 0.0]}, a record like {"record": {"name": "a"}}, or {"const": ...}"#;

fn object_value(
    entries: &[(String, Json)],
    declared: Option<ValueType>,
    path: &str,
) -> Result<Value, LoadError> {
    match entries {
        [(k, inner)] if k == "const" => {
            return decode_value(inner, declared, &child(path, "const"));
        }
        [(k, inner)] if k == "record" => {
            let at = child(path, "record");
            return match inner {
                Json::Object(fields) => record(fields, &at),
                other => Err(LoadError::format(
                    &at,
                    format!(
                        "a record's fields must be an object, found {}",
                        other.kind()
                    ),
                    Some(r#"write {"record": {"name": "a", "size": 2.0}}"#.to_string()),
                )),
            };
        }
        _ => {}
    }
    let mut ty = None;
    let mut value = None;
    for (k, v) in entries {
        let slot = match k.as_str() {
            "type" => &mut ty,
            "value" => &mut value,
            "const" => {
                return Err(LoadError::format(
                    path,
                    "`const` must be the only key of its object".to_string(),
                    Some(r#"write {"const": <value>}"#.to_string()),
                ));
            }
            "blob" => {
                return Err(LoadError::format(
                    path,
                    "a blob reference must be a whole param or input constant".to_string(),
                    Some("blob references are written by `kiln bake`, never inside a list or `const`".to_string()),
                ));
            }
            other => {
                return Err(LoadError::format(
                    path,
                    format!("unexpected key `{other}` in an object value"),
                    Some(OBJECT_HINT.to_string()),
                ));
            }
        };
        if slot.is_some() {
            return Err(LoadError::format(
                &child(path, k),
                format!("key `{k}` appears twice"),
                Some("keep one".to_string()),
            ));
        }
        *slot = Some(v);
    }
    match (ty, value) {
        (Some(t), Some(v)) => typed(t, v, path),
        (None, _) => Err(LoadError::format(
            path,
            "an object value needs a `type` key".to_string(),
            Some(OBJECT_HINT.to_string()),
        )),
        (Some(_), None) => Err(LoadError::format(
            path,
            "a typed value needs a `value` key".to_string(),
            Some(OBJECT_HINT.to_string()),
        )),
    }
}

/// A number, or one of the strings `"nan"`, `"inf"`, `"-inf"` (typed values only).
fn typed_number(j: &Json) -> Option<f64> {
    match j {
        Json::Str(s) => match s.as_str() {
            "nan" => Some(f64::NAN),
            "inf" => Some(f64::INFINITY),
            "-inf" => Some(f64::NEG_INFINITY),
            _ => None,
        },
        other => other.as_f64(),
    }
}

fn typed_numbers(j: &Json) -> Option<Vec<f64>> {
    let Json::Array(items) = j else { return None };
    items.iter().map(typed_number).collect()
}

fn typed(t: &Json, v: &Json, path: &str) -> Result<Value, LoadError> {
    let Json::Str(name) = t else {
        return Err(LoadError::format(
            &child(path, "type"),
            format!("`type` must be a string, found {}", t.kind()),
            Some(format!("one of: {TYPED_NAMES}")),
        ));
    };
    let ty =
        ValueType::parse_plain(name).filter(|t| !matches!(t, ValueType::Number | ValueType::Any));
    let Some(ty) = ty else {
        return Err(LoadError::format(
            &child(path, "type"),
            format!("unknown value type `{name}`"),
            Some(format!("one of: {TYPED_NAMES}")),
        ));
    };
    let vec_of = |n: usize| typed_numbers(v).filter(|a| a.len() == n);
    let value = match ty {
        ValueType::Float => typed_number(v).map(Value::Float),
        ValueType::Int => match v {
            Json::Int(i) => Some(Value::Int(*i)),
            _ => None,
        },
        ValueType::Bool => match v {
            Json::Bool(b) => Some(Value::Bool(*b)),
            _ => None,
        },
        ValueType::Vec2 => vec_of(2).map(|a| Value::Vec2([a[0], a[1]])),
        ValueType::Vec3 => vec_of(3).map(|a| Value::Vec3([a[0], a[1], a[2]])),
        ValueType::Vec4 => vec_of(4).map(|a| Value::Vec4([a[0], a[1], a[2], a[3]])),
        ValueType::Color => match v {
            Json::Str(s) => parse_hex_color(s).map(Value::Color),
            other => typed_numbers(other)
                .and_then(|a| color_of(&a))
                .map(Value::Color),
        },
        ValueType::String => match v {
            Json::Str(s) => Some(Value::str(s)),
            _ => None,
        },
        ValueType::List => match v {
            Json::Array(items) => Some(list(items, &child(path, "value"))?),
            _ => None,
        },
        ValueType::ListOf(e) => match v {
            Json::Array(items) => Some(list_of(items, Some(*e), &child(path, "value"))?),
            _ => None,
        },
        ValueType::Record => match v {
            Json::Object(fields) => Some(record(fields, &child(path, "value"))?),
            _ => None,
        },
        _ => None,
    };
    value.ok_or_else(|| {
        let (expected, example) = match ty {
            ValueType::Float => ("a number", "1.5"),
            ValueType::Int => ("an integer", "3"),
            ValueType::Bool => ("true or false", "true"),
            ValueType::Vec2 => ("an array of 2 numbers", "[0.0, 1.0]"),
            ValueType::Vec3 => ("an array of 3 numbers", "[0.0, 1.0, 0.0]"),
            ValueType::Vec4 => ("an array of 4 numbers", "[0.0, 1.0, 0.0, 1.0]"),
            ValueType::Color => (
                "\"#rgb\", \"#rrggbb\", \"#rrggbbaa\" or an array of 3 or 4 numbers",
                "\"#ff8000\"",
            ),
            ValueType::String => ("a string", "\"text\""),
            ValueType::Record => ("an object of fields", "{\"name\": \"a\"}"),
            _ => ("an array", "[1, 2.5, \"x\"]"),
        };
        LoadError::format(
            &child(path, "value"),
            format!(
                "a {} value must be {expected}, found {}",
                ty.name(),
                v.kind()
            ),
            Some(format!(
                "for example {{\"type\": \"{}\", \"value\": {example}}}",
                ty.name()
            )),
        )
    })
}

/// Where an input port's value comes from, as written in a node's `inputs`.
pub enum InputSource {
    /// A reference to an output port.
    Wire(PortRef),
    /// An inline constant.
    Const(Value),
}

/// Read one entry of a node's `inputs`.
pub fn decode_input(
    j: &Json,
    declared: Option<ValueType>,
    path: &str,
) -> Result<InputSource, LoadError> {
    match j {
        Json::Str(s) if s.starts_with('#') => match parse_hex_color(s) {
            Some(c) => Ok(InputSource::Const(Value::Color(c))),
            None => Err(LoadError::format(
                path,
                format!("`{s}` is not a colour"),
                Some(format!(
                    "write #rgb, #rrggbb or #rrggbbaa; for a string constant write {{\"const\": \"{}\"}}",
                    s.replace('\\', "\\\\").replace('"', "\\\"")
                )),
            )),
        },
        Json::Str(s) => Ok(InputSource::Wire(PortRef::parse(s))),
        other => decode_value(other, declared, path).map(InputSource::Const),
    }
}

#[cfg(test)]
mod tests {
    use super::encode::{hex_of, same};
    use super::*;
    use crate::json::parse;

    fn dv(text: &str, t: Option<ValueType>) -> Value {
        decode_value(&parse(text).unwrap(), t, "x").unwrap()
    }

    #[test]
    fn type_directed_reading() {
        use ValueType as T;
        assert_eq!(dv("3", Some(T::Float)), Value::Float(3.0));
        assert_eq!(dv("3", Some(T::Int)), Value::Int(3));
        assert_eq!(dv("3.5", Some(T::Int)), Value::Float(3.5));
        assert_eq!(dv("3", None), Value::Int(3));
        assert_eq!(dv("3", Some(T::Any)), Value::Int(3));
        assert_eq!(dv("[1, 2]", Some(T::Vec2)), Value::Vec2([1.0, 2.0]));
        assert!(matches!(dv("[1, 2]", Some(T::Vec3)), Value::List(_)));
        assert_eq!(
            dv("\"#ff0000\"", Some(T::Color)),
            Value::Color([1.0, 0.0, 0.0, 1.0])
        );
        assert_eq!(
            dv("[1, 0.5, 0]", Some(T::Color)),
            Value::Color([1.0, 0.5, 0.0, 1.0])
        );
        assert_eq!(dv("\"#ff0000\"", None), Value::str("#ff0000"));
        assert_eq!(
            dv(r#"{"type": "vec3", "value": [1, 2, 3]}"#, None),
            Value::Vec3([1.0, 2.0, 3.0])
        );
        assert_eq!(dv(r#"{"const": 2}"#, Some(T::Float)), Value::Float(2.0));
        assert_eq!(dv("null", Some(T::Float)), Value::Empty);
        assert_eq!(
            dv(r#"{"type": "float", "value": "-inf"}"#, None),
            Value::Float(f64::NEG_INFINITY)
        );
    }

    #[test]
    fn typed_lists_and_records_read_and_write_back() {
        use ValueType as T;
        use encode::same;
        use kiln_core::list_type::list_of;
        // Declared `list<float>`: each element read as a float (the int 2 is 2.0).
        assert_eq!(
            dv("[1.5, 2]", Some(list_of(T::Float))),
            Value::list([Value::Float(1.5), Value::Float(2.0)])
        );
        assert_eq!(
            dv(r#"{"type": "list<int>", "value": [1, 2]}"#, None),
            Value::list([Value::Int(1), Value::Int(2)])
        );
        let r = dv(r#"{"record": {"size": 2, "name": {"const": "a"}}}"#, None);
        assert_eq!(
            r,
            Value::record([("name", Value::str("a")), ("size", Value::Int(2))])
        );
        assert_eq!(
            dv(r#"{"type": "record", "value": {"size": 2}}"#, None)
                .as_record()
                .map(|r| r.len()),
            Some(1)
        );
        for v in [
            r,
            Value::list([Value::record([("x", Value::Float(f64::NAN))])]),
        ] {
            for ctx in [Ctx::Param, Ctx::Input] {
                let j = encode(&v, None, ctx, ColorStyle::Hex);
                let back = match ctx {
                    Ctx::Param => decode_value(&j, None, "").unwrap(),
                    Ctx::Input => match decode_input(&j, None, "").unwrap() {
                        InputSource::Const(c) => c,
                        InputSource::Wire(_) => panic!("a wire"),
                    },
                };
                assert!(same(&back, &v), "{v:?} wrote {j:?}");
            }
        }
        let dup = decode_value(
            &parse(r#"{"record": {"a": 1, "a": 2}}"#).unwrap(),
            None,
            "p",
        );
        assert!(dup.unwrap_err().to_string().contains("p.record.a"));
    }

    #[test]
    fn bad_typed_values_are_errors_with_paths() {
        for (text, needle) in [
            (r#"{"type": "vec3", "value": [1, 2]}"#, "x.value"),
            (
                r#"{"type": "nope", "value": 1}"#,
                "unknown value type `nope`",
            ),
            (r#"{"type": "int"}"#, "needs a `value`"),
            (r#"{"value": 1}"#, "needs a `type`"),
            (r#"{"a": 1}"#, "unexpected key `a`"),
            (
                r#"{"type": "int", "value": 1, "type": "int"}"#,
                "appears twice",
            ),
        ] {
            let e = decode_value(&parse(text).unwrap(), None, "x").unwrap_err();
            assert!(e.to_string().contains(needle), "{text}: {e}");
        }
    }

    #[test]
    fn writing_reads_back_exactly() {
        use ValueType as T;
        let cases: Vec<(Value, Option<T>)> = vec![
            (Value::Float(1.0), Some(T::Float)),
            (Value::Float(1.0), None),
            (Value::Int(1), Some(T::Float)),
            (Value::Float(f64::NAN), Some(T::Float)),
            (Value::Vec3([1.0, 2.0, 3.0]), None),
            (Value::Color([1.0, 0.0, 0.0, 1.0]), Some(T::Color)),
            (Value::Color([1.0, 0.0, 0.0, 1.0]), None),
            (Value::Color([0.1, 0.2, 0.3, 0.4]), Some(T::Color)),
            (Value::str("#fff"), Some(T::Color)),
            (Value::str("a.b"), None),
            (
                Value::List(Arc::from(vec![Value::Color([0.0; 4]), Value::Int(2)])),
                Some(T::Vec2),
            ),
        ];
        for (v, t) in cases {
            for ctx in [Ctx::Param, Ctx::Input] {
                let j = encode(&v, t, ctx, ColorStyle::Hex);
                let back = match ctx {
                    Ctx::Param => decode_value(&j, t, "").unwrap(),
                    Ctx::Input => match decode_input(&j, t, "").unwrap() {
                        InputSource::Const(c) => c,
                        InputSource::Wire(w) => panic!("{v:?} read back as wire {w}"),
                    },
                };
                assert!(same(&back, &v), "{v:?} as {t:?}: {j:?} -> {back:?}");
            }
        }
    }

    #[test]
    fn hex_only_when_exact() {
        assert_eq!(hex_of(&[1.0, 0.0, 0.0, 1.0]).as_deref(), Some("#ff0000"));
        assert_eq!(
            hex_of(&[1.0, 0.0, 0.0, 128.0 / 255.0]).as_deref(),
            Some("#ff000080")
        );
        assert_eq!(hex_of(&[0.1, 0.0, 0.0, 1.0]), None);
        assert_eq!(hex_of(&[-0.0, 0.0, 0.0, 1.0]), None);
        assert_eq!(hex_of(&[2.0, 0.0, 0.0, 1.0]), None);
    }
}
