//! Arithmetic and math functions on numbers: floats, ints, vectors and colours.
//!
//! Binary ops (`math.add`, `math.sub`, `math.mul`, `math.div`, `math.min`, `math.max`,
//! `math.pow`, `math.mod`) take two `number` inputs. Types combine as follows: int with int
//! stays int (overflow and division by zero are errors, not wrap-arounds); int with float
//! gives float; a scalar with a vector or colour is applied to every component; two vectors
//! (or two colours) must have the same size. Unary functions (`math.sin`, `math.sqrt`, ...)
//! apply per component; `math.neg` and `math.abs` keep ints as ints.
//!
//! The ops, one concept a file: `arith` (the binary ops, `math.neg`, `math.abs`),
//! `functions` (the float functions), `blend` (`math.lerp`, `math.clamp`) and `vector`
//! (`vec.*`).

mod arith;
mod blend;
mod functions;
mod vector;

use kiln_core::op::OpError;
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};

/// The type of `a <op> b` for numeric types, or why they do not combine.
pub fn promote(a: ValueType, b: ValueType) -> Result<ValueType, String> {
    use ValueType::*;
    if !a.is_numeric() || !b.is_numeric() {
        return Err("two numbers (float, int, vec2/3/4 or color)".into());
    }
    Ok(match (a, b) {
        (Number, _) | (_, Number) => Number,
        (Int, Int) => Int,
        (Int | Float, Int | Float) => Float,
        (Int | Float, v) | (v, Int | Float) => v,
        (x, y) if x == y => x,
        _ => return Err(format!("matching sizes: {a} and {b} do not combine")),
    })
}

/// The output type of a binary op: its inputs' types promoted.
fn infer_binary(i: &[Option<ValueType>], _: &[Value]) -> Result<Vec<ValueType>, String> {
    let a = i[0].unwrap_or(ValueType::Number);
    let b = i[1].unwrap_or(ValueType::Number);
    promote(a, b).map(|t| vec![t])
}

/// Components of a float-like value, with its shape.
#[derive(Clone, Copy)]
enum Shape {
    Scalar,
    V2,
    V3,
    V4,
    Color,
}

/// The shape and components of a number, or `None` when `v` is not one.
fn components(v: &Value) -> Option<(Shape, [f64; 4])> {
    Some(match v {
        Value::Float(x) => (Shape::Scalar, [*x, 0.0, 0.0, 0.0]),
        Value::Int(x) => (Shape::Scalar, [*x as f64, 0.0, 0.0, 0.0]),
        Value::Vec2(a) => (Shape::V2, [a[0], a[1], 0.0, 0.0]),
        Value::Vec3(a) => (Shape::V3, [a[0], a[1], a[2], 0.0]),
        Value::Vec4(a) => (Shape::V4, *a),
        Value::Color(c) => (Shape::Color, c.map(|x| x as f64)),
        _ => return None,
    })
}

/// The value of shape `s` with components `c`.
fn rebuild(s: Shape, c: [f64; 4]) -> Value {
    match s {
        Shape::Scalar => Value::Float(c[0]),
        Shape::V2 => Value::Vec2([c[0], c[1]]),
        Shape::V3 => Value::Vec3([c[0], c[1], c[2]]),
        Shape::V4 => Value::Vec4(c),
        Shape::Color => Value::Color(c.map(|x| x as f32)),
    }
}

/// The number of components of a shape.
fn width(s: Shape) -> usize {
    match s {
        Shape::Scalar => 1,
        Shape::V2 => 2,
        Shape::V3 => 3,
        Shape::V4 | Shape::Color => 4,
    }
}

/// Apply a binary numeric op with the promotion rules of this module.
#[inline]
pub fn binary(
    a: &Value,
    b: &Value,
    int: fn(i64, i64) -> Result<i64, &'static str>,
    float: fn(f64, f64) -> f64,
) -> Result<Value, OpError> {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => Ok(Value::Float(float(*x, *y))),
        (Value::Int(x), Value::Int(y)) => int(*x, *y)
            .map(Value::Int)
            .map_err(|m| OpError::input(1, m)),
        _ => {
            let (sa, ca) = components(a).ok_or_else(|| {
                OpError::input(0, format!("expected a number, found {}", a.type_name()))
            })?;
            let (sb, cb) = components(b).ok_or_else(|| {
                OpError::input(1, format!("expected a number, found {}", b.type_name()))
            })?;
            let shape = match (width(sa), width(sb)) {
                (1, _) => sb,
                (_, 1) => sa,
                _ if std::mem::discriminant(&sa) == std::mem::discriminant(&sb) => sa,
                _ => {
                    return Err(OpError::input(
                        1,
                        format!("{} does not combine with {}", b.type_name(), a.type_name()),
                    ));
                }
            };
            let n = width(shape);
            let mut out = [0.0; 4];
            for (k, o) in out.iter_mut().enumerate().take(n) {
                let x = if width(sa) == 1 { ca[0] } else { ca[k] };
                let y = if width(sb) == 1 { cb[0] } else { cb[k] };
                *o = float(x, y);
            }
            Ok(rebuild(shape, out))
        }
    }
}

/// Apply a float function per component; ints become floats.
pub fn unary(a: &Value, f: fn(f64) -> f64) -> Result<Value, OpError> {
    let (s, c) = components(a)
        .ok_or_else(|| OpError::input(0, format!("expected a number, found {}", a.type_name())))?;
    Ok(rebuild(s, c.map(f)))
}

/// The output type of a float function per component: ints become floats.
fn infer_unary_float(i: &[Option<ValueType>], _: &[Value]) -> Result<Vec<ValueType>, String> {
    match i[0] {
        Some(ValueType::Int) => Ok(vec![ValueType::Float]),
        Some(t) if t.is_numeric() => Ok(vec![t]),
        Some(t) => Err(format!("a number, not {t}")),
        None => Ok(vec![ValueType::Number]),
    }
}

/// The output type of an op that keeps its input's type (ints stay ints).
fn infer_same(i: &[Option<ValueType>], _: &[Value]) -> Result<Vec<ValueType>, String> {
    match i[0] {
        Some(t) if t.is_numeric() => Ok(vec![t]),
        Some(t) => Err(format!("a number, not {t}")),
        None => Ok(vec![ValueType::Number]),
    }
}

/// Register the ops of this module.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    arith::register(reg)?;
    functions::register(reg)?;
    blend::register(reg)?;
    vector::register(reg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn promotion() {
        use ValueType::*;
        assert_eq!(promote(Int, Int), Ok(Int));
        assert_eq!(promote(Int, Float), Ok(Float));
        assert_eq!(promote(Float, Vec3), Ok(Vec3));
        assert_eq!(promote(Vec3, Vec3), Ok(Vec3));
        assert!(promote(Vec2, Vec3).is_err());
        assert!(promote(String, Float).is_err());
    }

    #[test]
    fn binary_values() {
        let add = |a, b| {
            binary(
                &a,
                &b,
                |x: i64, y| x.checked_add(y).ok_or("o"),
                |x, y| x + y,
            )
        };
        assert_eq!(add(Value::Int(2), Value::Int(3)), Ok(Value::Int(5)));
        assert_eq!(add(Value::Int(2), Value::Float(0.5)), Ok(Value::Float(2.5)));
        assert_eq!(
            add(Value::Vec2([1.0, 2.0]), Value::Float(1.0)),
            Ok(Value::Vec2([2.0, 3.0]))
        );
        assert!(add(Value::Vec2([1.0, 2.0]), Value::Vec3([1.0; 3])).is_err());
        assert!(add(Value::Int(i64::MAX), Value::Int(1)).is_err());
    }
}
