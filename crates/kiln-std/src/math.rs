//! Arithmetic and math functions on numbers: floats, ints, vectors and colours.
//!
//! Binary ops (`math.add`, `math.sub`, `math.mul`, `math.div`, `math.min`, `math.max`,
//! `math.pow`, `math.mod`) take two `number` inputs. Types combine as follows: int with int
//! stays int (overflow and division by zero are errors, not wrap-arounds); int with float
//! gives float; a scalar with a vector or colour is applied to every component; two vectors
//! (or two colours) must have the same size. Unary functions (`math.sin`, `math.sqrt`, ...)
//! apply per component; `math.neg` and `math.abs` keep ints as ints.

use crate::util::FnOp;
use kiln_core::op::{InputSpec, OpCall, OpError, OpSpec, OutputSpec};
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

fn rebuild(s: Shape, c: [f64; 4]) -> Value {
    match s {
        Shape::Scalar => Value::Float(c[0]),
        Shape::V2 => Value::Vec2([c[0], c[1]]),
        Shape::V3 => Value::Vec3([c[0], c[1], c[2]]),
        Shape::V4 => Value::Vec4(c),
        Shape::Color => Value::Color(c.map(|x| x as f32)),
    }
}

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

fn infer_unary_float(i: &[Option<ValueType>], _: &[Value]) -> Result<Vec<ValueType>, String> {
    match i[0] {
        Some(ValueType::Int) => Ok(vec![ValueType::Float]),
        Some(t) if t.is_numeric() => Ok(vec![t]),
        Some(t) => Err(format!("a number, not {t}")),
        None => Ok(vec![ValueType::Number]),
    }
}

fn infer_same(i: &[Option<ValueType>], _: &[Value]) -> Result<Vec<ValueType>, String> {
    match i[0] {
        Some(t) if t.is_numeric() => Ok(vec![t]),
        Some(t) => Err(format!("a number, not {t}")),
        None => Ok(vec![ValueType::Number]),
    }
}

fn binary_spec(id: &'static str, doc: &'static str) -> OpSpec {
    OpSpec::new(id, doc)
        .input(InputSpec::required("a", ValueType::Number, "left operand"))
        .input(InputSpec::required("b", ValueType::Number, "right operand"))
        .output(OutputSpec::new("out", ValueType::Number, "result"))
}

fn unary_spec(id: &'static str, doc: &'static str) -> OpSpec {
    OpSpec::new(id, doc)
        .input(InputSpec::required("x", ValueType::Number, "operand"))
        .output(OutputSpec::new("out", ValueType::Number, "result"))
}

macro_rules! bin {
    ($reg:ident, $id:literal, $doc:literal, $int:expr, $float:expr) => {
        $reg.register(
            FnOp::new(binary_spec($id, $doc), |c: &OpCall<'_>, o: &mut [Value]| {
                o[0] = binary(&c.inputs[0], &c.inputs[1], $int, $float)?;
                Ok(())
            })
            .infer(infer_binary)
            .kernel(|_, _| Some(kiln_core::op::Kernel::Binary($float)))
            .columns(|_, _| Some(kiln_core::binary_columns!($float))),
        )?;
    };
}

macro_rules! un {
    ($reg:ident, $id:literal, $doc:literal, $f:expr) => {
        $reg.register(
            FnOp::new(unary_spec($id, $doc), |c: &OpCall<'_>, o: &mut [Value]| {
                o[0] = unary(&c.inputs[0], $f)?;
                Ok(())
            })
            .infer(infer_unary_float)
            .kernel(|_, _| Some(kiln_core::op::Kernel::Unary($f)))
            .columns(|_, _| Some(kiln_core::unary_columns!($f))),
        )?;
    };
}

/// A vector component input (float, default 0).
fn component(name: &'static str) -> InputSpec {
    InputSpec::optional(name, ValueType::Float, Value::Float(0.0), "component")
}

fn vec_of(v: &Value, i: usize) -> Result<Vec<f64>, OpError> {
    match v {
        Value::Vec2(a) => Ok(a.to_vec()),
        Value::Vec3(a) => Ok(a.to_vec()),
        Value::Vec4(a) => Ok(a.to_vec()),
        Value::Float(_) | Value::Int(_) => Ok(vec![v.as_f64().unwrap_or(0.0)]),
        _ => Err(OpError::input(
            i,
            format!("expected a vector, found {}", v.type_name()),
        )),
    }
}

/// Register the ops of this module.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    bin!(
        reg,
        "math.add",
        "a + b.",
        |a, b| a.checked_add(b).ok_or("integer overflow"),
        |a, b| a + b
    );
    bin!(
        reg,
        "math.sub",
        "a - b.",
        |a, b| a.checked_sub(b).ok_or("integer overflow"),
        |a, b| a - b
    );
    bin!(
        reg,
        "math.mul",
        "a * b.",
        |a, b| a.checked_mul(b).ok_or("integer overflow"),
        |a, b| a * b
    );
    bin!(
        reg,
        "math.div",
        "a / b (integer division truncates; dividing an int by 0 is an error).",
        |a, b| if b == 0 {
            Err("integer division by zero")
        } else {
            a.checked_div(b).ok_or("integer overflow")
        },
        |a, b| a / b
    );
    bin!(
        reg,
        "math.mod",
        "a modulo b, with the sign of b (Euclidean for ints).",
        |a, b| if b == 0 {
            Err("integer modulo by zero")
        } else {
            a.checked_rem_euclid(b).ok_or("integer overflow")
        },
        |a, b| a - b * (a / b).floor()
    );
    bin!(
        reg,
        "math.min",
        "The smaller of a and b.",
        |a, b| Ok(a.min(b)),
        f64::min
    );
    bin!(
        reg,
        "math.max",
        "The larger of a and b.",
        |a, b| Ok(a.max(b)),
        f64::max
    );
    bin!(
        reg,
        "math.pow",
        "a raised to the power b.",
        |a, b| u32::try_from(b)
            .ok()
            .and_then(|b| a.checked_pow(b))
            .ok_or("integer power out of range"),
        f64::powf
    );
    reg.register(
        FnOp::new(unary_spec("math.neg", "-x."), |c, o| {
            o[0] = match &c.inputs[0] {
                Value::Int(i) => Value::Int(
                    i.checked_neg()
                        .ok_or_else(|| OpError::input(0, "integer overflow"))?,
                ),
                v => unary(v, |x| -x)?,
            };
            Ok(())
        })
        .infer(infer_same),
    )?;
    reg.register(
        FnOp::new(unary_spec("math.abs", "|x|."), |c, o| {
            o[0] = match &c.inputs[0] {
                Value::Int(i) => Value::Int(
                    i.checked_abs()
                        .ok_or_else(|| OpError::input(0, "integer overflow"))?,
                ),
                v => unary(v, f64::abs)?,
            };
            Ok(())
        })
        .infer(infer_same),
    )?;
    un!(reg, "math.sqrt", "Square root.", f64::sqrt);
    un!(reg, "math.sin", "Sine (radians).", f64::sin);
    un!(reg, "math.cos", "Cosine (radians).", f64::cos);
    un!(reg, "math.tan", "Tangent (radians).", f64::tan);
    un!(reg, "math.exp", "e to the x.", f64::exp);
    un!(reg, "math.ln", "Natural logarithm.", f64::ln);
    un!(
        reg,
        "math.floor",
        "Largest integer not above x (as float).",
        f64::floor
    );
    un!(
        reg,
        "math.ceil",
        "Smallest integer not below x (as float).",
        f64::ceil
    );
    un!(
        reg,
        "math.round",
        "Nearest integer, halves away from zero (as float).",
        f64::round
    );
    un!(reg, "math.fract", "x - floor(x).", |x| x - x.floor());
    reg.register(
        FnOp::new(
            OpSpec::new("math.lerp", "Linear interpolation a + (b - a) * t.")
                .input(InputSpec::required(
                    "a",
                    ValueType::Number,
                    "value at t = 0",
                ))
                .input(InputSpec::required(
                    "b",
                    ValueType::Number,
                    "value at t = 1",
                ))
                .input(InputSpec::required("t", ValueType::Float, "blend factor"))
                .output(OutputSpec::new("out", ValueType::Number, "result")),
            |c, o| {
                let t = c.float(2)?;
                let d = binary(
                    &c.inputs[1],
                    &c.inputs[0],
                    |_, _| Err("unused"),
                    |b, a| b - a,
                )?;
                let d = binary(&d, &Value::Float(t), |_, _| Err("unused"), |x, t| x * t)?;
                o[0] = binary(&c.inputs[0], &d, |_, _| Err("unused"), |a, d| a + d)?;
                Ok(())
            },
        )
        .infer(|i, _| {
            let t = promote(
                i[0].unwrap_or(ValueType::Number),
                i[1].unwrap_or(ValueType::Number),
            )?;
            Ok(vec![if t == ValueType::Int {
                ValueType::Float
            } else {
                t
            }])
        }),
    )?;
    reg.register(
        FnOp::new(
            OpSpec::new("math.clamp", "x limited to [lo, hi], per component.")
                .input(InputSpec::required("x", ValueType::Number, "value"))
                .input(InputSpec::optional(
                    "lo",
                    ValueType::Number,
                    Value::Float(0.0),
                    "lower bound",
                ))
                .input(InputSpec::optional(
                    "hi",
                    ValueType::Number,
                    Value::Float(1.0),
                    "upper bound",
                ))
                .output(OutputSpec::new("out", ValueType::Number, "result")),
            |c, o| {
                let lo = binary(&c.inputs[0], &c.inputs[1], |a, b| Ok(a.max(b)), f64::max)?;
                o[0] = binary(&lo, &c.inputs[2], |a, b| Ok(a.min(b)), f64::min)?;
                Ok(())
            },
        )
        .infer(|i, _| {
            let t = promote(
                i[0].unwrap_or(ValueType::Number),
                i[1].unwrap_or(ValueType::Number),
            )?;
            promote(t, i[2].unwrap_or(ValueType::Number)).map(|t| vec![t])
        }),
    )?;
    // Vectors.
    reg.register(FnOp::new(
        OpSpec::new("vec.make2", "A vec2 from components.")
            .input(component("x"))
            .input(component("y"))
            .output(OutputSpec::new("out", ValueType::Vec2, "the vector")),
        |c, o| {
            o[0] = Value::Vec2([c.float(0)?, c.float(1)?]);
            Ok(())
        },
    ))?;
    reg.register(FnOp::new(
        OpSpec::new("vec.make3", "A vec3 from components.")
            .input(component("x"))
            .input(component("y"))
            .input(component("z"))
            .output(OutputSpec::new("out", ValueType::Vec3, "the vector")),
        |c, o| {
            o[0] = Value::Vec3([c.float(0)?, c.float(1)?, c.float(2)?]);
            Ok(())
        },
    ))?;
    reg.register(FnOp::new(
        OpSpec::new(
            "vec.split",
            "The components of a vector (missing ones are 0).",
        )
        .input(InputSpec::required("v", ValueType::Number, "vector"))
        .output(OutputSpec::new("x", ValueType::Float, "x"))
        .output(OutputSpec::new("y", ValueType::Float, "y"))
        .output(OutputSpec::new("z", ValueType::Float, "z"))
        .output(OutputSpec::new("w", ValueType::Float, "w")),
        |c, o| {
            let (_, comp) = components(&c.inputs[0]).ok_or_else(|| {
                OpError::input(
                    0,
                    format!("expected a vector, found {}", c.inputs[0].type_name()),
                )
            })?;
            for k in 0..4 {
                o[k] = Value::Float(comp[k]);
            }
            Ok(())
        },
    ))?;
    reg.register(FnOp::new(
        OpSpec::new("vec.dot", "Dot product.")
            .input(InputSpec::required("a", ValueType::Number, "vector"))
            .input(InputSpec::required("b", ValueType::Number, "vector"))
            .output(OutputSpec::new("out", ValueType::Float, "a . b")),
        |c, o| {
            let (a, b) = (vec_of(&c.inputs[0], 0)?, vec_of(&c.inputs[1], 1)?);
            if a.len() != b.len() {
                return Err(OpError::input(
                    1,
                    format!("size {} does not match a's {}", b.len(), a.len()),
                ));
            }
            o[0] = Value::Float(a.iter().zip(&b).map(|(x, y)| x * y).sum());
            Ok(())
        },
    ))?;
    reg.register(FnOp::new(
        OpSpec::new("vec.length", "Euclidean length.")
            .input(InputSpec::required("v", ValueType::Number, "vector"))
            .output(OutputSpec::new("out", ValueType::Float, "|v|")),
        |c, o| {
            let a = vec_of(&c.inputs[0], 0)?;
            o[0] = Value::Float(a.iter().map(|x| x * x).sum::<f64>().sqrt());
            Ok(())
        },
    ))?;
    reg.register(
        FnOp::new(
            OpSpec::new(
                "vec.normalize",
                "The vector scaled to length 1 (zero stays zero).",
            )
            .input(InputSpec::required("v", ValueType::Number, "vector"))
            .output(OutputSpec::new("out", ValueType::Number, "v / |v|")),
            |c, o| {
                let len = vec_of(&c.inputs[0], 0)?
                    .iter()
                    .map(|x| x * x)
                    .sum::<f64>()
                    .sqrt();
                let inv = if len > 0.0 { 1.0 / len } else { 0.0 };
                o[0] = binary(
                    &c.inputs[0],
                    &Value::Float(inv),
                    |_, _| Err("unused"),
                    |x, s| x * s,
                )?;
                Ok(())
            },
        )
        .infer(infer_unary_float),
    )?;
    reg.register(FnOp::new(
        OpSpec::new("vec.cross", "Cross product of two vec3.")
            .input(InputSpec::required("a", ValueType::Vec3, "vector"))
            .input(InputSpec::required("b", ValueType::Vec3, "vector"))
            .output(OutputSpec::new("out", ValueType::Vec3, "a x b")),
        |c, o| {
            let (Value::Vec3(a), Value::Vec3(b)) = (&c.inputs[0], &c.inputs[1]) else {
                return Err(OpError::new("expected two vec3"));
            };
            o[0] = Value::Vec3([
                a[1] * b[2] - a[2] * b[1],
                a[2] * b[0] - a[0] * b[2],
                a[0] * b[1] - a[1] * b[0],
            ]);
            Ok(())
        },
    ))?;
    Ok(())
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
