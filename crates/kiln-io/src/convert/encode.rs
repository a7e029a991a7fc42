//! Writing values as JSON: the natural form for the declared type when it reads back as
//! the same value, else the typed form.

use super::{InputSource, decode_input, decode_value};
use crate::json::Json;
use kiln_core::value::{Value, ValueType};

/// Whether a value is written into a param (or default) or into a node's `inputs`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Ctx {
    /// Param or graph-input default: strings are strings.
    Param,
    /// A node's `inputs`: strings are references or `#colours`.
    Input,
}

/// How colours are written.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ColorStyle {
    /// `"#rrggbb"` / `"#rrggbbaa"` when exact at 8 bits, else an array.
    Hex,
    /// Always an array.
    Array,
}

fn nonfinite_text(f: f64) -> &'static str {
    if f.is_nan() {
        "nan"
    } else if f > 0.0 {
        "inf"
    } else {
        "-inf"
    }
}

fn number(f: f64) -> Json {
    if f.is_finite() {
        Json::Float(f)
    } else {
        Json::Str(nonfinite_text(f).to_string())
    }
}

/// An `f32` channel as the shortest number that reads back as exactly that `f32`.
fn channel(c: f32) -> Json {
    if !c.is_finite() {
        return Json::Str(nonfinite_text(c as f64).to_string());
    }
    let short = format!("{c:?}").parse::<f64>().ok();
    if let Some(short) = short.filter(|s| (*s as f32).to_bits() == c.to_bits()) {
        return Json::Float(short);
    }
    Json::Float(c as f64)
}

/// `#rrggbb` / `#rrggbbaa` if every channel is exactly `k / 255`.
pub fn hex_of(c: &[f32; 4]) -> Option<String> {
    let mut bytes = [0u8; 4];
    for (b, ch) in bytes.iter_mut().zip(c) {
        let k = (ch * 255.0).round();
        if !(0.0..=255.0).contains(&k) {
            return None;
        }
        let k = k as u8;
        if (k as f32 / 255.0).to_bits() != ch.to_bits() {
            return None;
        }
        *b = k;
    }
    Some(if bytes[3] == 255 {
        format!("#{:02x}{:02x}{:02x}", bytes[0], bytes[1], bytes[2])
    } else {
        format!(
            "#{:02x}{:02x}{:02x}{:02x}",
            bytes[0], bytes[1], bytes[2], bytes[3]
        )
    })
}

fn color_json(c: &[f32; 4], style: ColorStyle) -> Json {
    if let Some(h) = hex_of(c).filter(|_| style == ColorStyle::Hex) {
        return Json::Str(h);
    }
    let n = if c[3].to_bits() == 1.0f32.to_bits() {
        3
    } else {
        4
    };
    Json::Array(c[..n].iter().map(|x| channel(*x)).collect())
}

fn all_finite(v: &[f64]) -> bool {
    v.iter().all(|x| x.is_finite())
}

/// A short readable form for display (not guaranteed to read back as the same type).
pub fn display(v: &Value) -> Json {
    natural(v, Ctx::Param, ColorStyle::Hex)
}

fn natural(v: &Value, ctx: Ctx, style: ColorStyle) -> Json {
    match v {
        Value::Empty | Value::Heavy(_) | Value::Error(_) => Json::Null,
        Value::Float(f) if f.is_finite() => Json::Float(*f),
        Value::Int(i) => Json::Int(*i),
        Value::Bool(b) => Json::Bool(*b),
        Value::Vec2(a) if all_finite(a) => Json::Array(a.iter().map(|x| number(*x)).collect()),
        Value::Vec3(a) if all_finite(a) => Json::Array(a.iter().map(|x| number(*x)).collect()),
        Value::Vec4(a) if all_finite(a) => Json::Array(a.iter().map(|x| number(*x)).collect()),
        Value::Color(c) if c.iter().all(|x| x.is_finite()) => color_json(c, style),
        Value::Str(s) => match ctx {
            Ctx::Param => Json::Str(s.to_string()),
            Ctx::Input => Json::Object(vec![("const".into(), Json::Str(s.to_string()))]),
        },
        Value::List(items) => Json::Array(
            items
                .iter()
                .map(|x| encode(x, None, Ctx::Param, style))
                .collect(),
        ),
        Value::Record(_) => Json::Object(vec![("record".into(), record_fields(v, style))]),
        // Non-finite floats need the typed form.
        other => typed_form(other, style),
    }
}

/// The explicit typed form `{"type": ..., "value": ...}` (plain `null` for empty and heavy
/// values, which have none).
pub fn typed_form(v: &Value, style: ColorStyle) -> Json {
    let value = match v {
        Value::Empty | Value::Heavy(_) | Value::Error(_) => return Json::Null,
        Value::Float(f) => number(*f),
        Value::Int(i) => Json::Int(*i),
        Value::Bool(b) => Json::Bool(*b),
        Value::Vec2(a) => Json::Array(a.iter().map(|x| number(*x)).collect()),
        Value::Vec3(a) => Json::Array(a.iter().map(|x| number(*x)).collect()),
        Value::Vec4(a) => Json::Array(a.iter().map(|x| number(*x)).collect()),
        Value::Color(c) => color_json(c, style),
        Value::Str(s) => Json::Str(s.to_string()),
        Value::List(items) => Json::Array(
            items
                .iter()
                .map(|x| encode(x, None, Ctx::Param, style))
                .collect(),
        ),
        Value::Record(_) => record_fields(v, style),
    };
    Json::Object(vec![
        ("type".into(), Json::Str(v.type_name().to_string())),
        ("value".into(), value),
    ])
}

/// The fields of a record as a JSON object (each value written to read back exactly).
fn record_fields(v: &Value, style: ColorStyle) -> Json {
    let Value::Record(r) = v else {
        return Json::Null;
    };
    Json::Object(
        r.fields()
            .iter()
            .map(|(k, x)| (k.to_string(), encode(x, None, Ctx::Param, style)))
            .collect(),
    )
}

/// Write a value so that reading it back (with the same declared type, in the same place)
/// gives exactly the same value.
pub fn encode(v: &Value, declared: Option<ValueType>, ctx: Ctx, style: ColorStyle) -> Json {
    let n = natural(v, ctx, style);
    let back = match ctx {
        Ctx::Param => decode_value(&n, declared, "").ok(),
        Ctx::Input => match decode_input(&n, declared, "") {
            Ok(InputSource::Const(c)) => Some(c),
            _ => None,
        },
    };
    if back.is_some_and(|b| same(&b, v)) {
        n
    } else {
        typed_form(v, style)
    }
}

fn same_f64(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

fn same_f32(a: f32, b: f32) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

fn same_all(a: &[f64], b: &[f64]) -> bool {
    a.iter().zip(b).all(|(x, y)| same_f64(*x, *y))
}

/// Exact equality: floats compared bit for bit (any NaN equals any NaN), types must match.
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Empty, Value::Empty) => true,
        (Value::Float(x), Value::Float(y)) => same_f64(*x, *y),
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Vec2(x), Value::Vec2(y)) => same_all(x, y),
        (Value::Vec3(x), Value::Vec3(y)) => same_all(x, y),
        (Value::Vec4(x), Value::Vec4(y)) => same_all(x, y),
        (Value::Color(x), Value::Color(y)) => x.iter().zip(y).all(|(p, q)| same_f32(*p, *q)),
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::List(x), Value::List(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| same(p, q))
        }
        (Value::Record(x), Value::Record(y)) => {
            x.len() == y.len()
                && x.fields()
                    .iter()
                    .zip(y.fields())
                    .all(|((k, p), (l, q))| k == l && same(p, q))
        }
        (Value::Heavy(x), Value::Heavy(y)) => x == y,
        _ => false,
    }
}
