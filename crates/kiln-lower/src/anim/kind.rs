//! What a curve's values are: a float, a vector or a colour, read and written as components.

use kiln_core::value::{Value, ValueType};

/// The type of a curve's values. Every key and handle of a curve has the same kind, and the
/// curve interpolates each component on its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CurveKind {
    /// A float (an int key reads as a float).
    Float,
    /// Two floats.
    Vec2,
    /// Three floats.
    Vec3,
    /// Four floats.
    Vec4,
    /// A linear RGBA colour (f32 channels, interpolated in f64 and rounded back to f32).
    Color,
}

/// A value's components, in f64, with unused components 0.
pub(super) type Components = [f64; 4];

impl CurveKind {
    /// The value type of the curve's samples.
    pub fn value_type(self) -> ValueType {
        match self {
            CurveKind::Float => ValueType::Float,
            CurveKind::Vec2 => ValueType::Vec2,
            CurveKind::Vec3 => ValueType::Vec3,
            CurveKind::Vec4 => ValueType::Vec4,
            CurveKind::Color => ValueType::Color,
        }
    }
    /// Number of components.
    pub fn width(self) -> usize {
        match self {
            CurveKind::Float => 1,
            CurveKind::Vec2 => 2,
            CurveKind::Vec3 => 3,
            CurveKind::Vec4 | CurveKind::Color => 4,
        }
    }
    /// The value with components `c`.
    pub(super) fn value(self, c: Components) -> Value {
        match self {
            CurveKind::Float => Value::Float(c[0]),
            CurveKind::Vec2 => Value::Vec2([c[0], c[1]]),
            CurveKind::Vec3 => Value::Vec3([c[0], c[1], c[2]]),
            CurveKind::Vec4 => Value::Vec4(c),
            CurveKind::Color => Value::Color(c.map(|x| x as f32)),
        }
    }
}

/// Read `v` as a curve value: a float or int, a vec2/3/4, a colour (or a `#rrggbb` hex
/// string), or a list of 2 to 4 numbers (a vec2/3/4, as a graph file writes vectors inside
/// a list). `None` for anything else.
pub(super) fn read_value(v: &Value) -> Option<(CurveKind, Components)> {
    Some(match v {
        Value::Float(_) | Value::Int(_) => (CurveKind::Float, [v.as_f64()?, 0.0, 0.0, 0.0]),
        Value::Vec2(a) => (CurveKind::Vec2, [a[0], a[1], 0.0, 0.0]),
        Value::Vec3(a) => (CurveKind::Vec3, [a[0], a[1], a[2], 0.0]),
        Value::Vec4(a) => (CurveKind::Vec4, *a),
        Value::Color(_) | Value::Str(_) => (CurveKind::Color, v.as_color()?.map(f64::from)),
        Value::List(items) => {
            let mut c = [0.0; 4];
            for (slot, item) in c.iter_mut().zip(items.iter()) {
                *slot = item.as_f64()?;
            }
            let kind = match items.len() {
                2 => CurveKind::Vec2,
                3 => CurveKind::Vec3,
                4 => CurveKind::Vec4,
                _ => return None,
            };
            (kind, c)
        }
        _ => return None,
    })
}
