//! Vectors: `vec.make2`, `vec.make3`, `vec.split`, `vec.dot`, `vec.length`,
//! `vec.normalize` and `vec.cross`.

use super::{binary, components, infer_unary_float};
use kiln_core::op;
use kiln_core::op::OpError;
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};

/// The components of a vector (a float or an int is one), or an error naming input `i`.
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

/// A vec2 from components.
#[op("vec.make2", out = "the vector")]
pub fn make2(
    #[input("component", default = 0.0)] x: f64,
    #[input("component", default = 0.0)] y: f64,
) -> [f64; 2] {
    [x, y]
}

/// A vec3 from components.
#[op("vec.make3", out = "the vector")]
pub fn make3(
    #[input("component", default = 0.0)] x: f64,
    #[input("component", default = 0.0)] y: f64,
    #[input("component", default = 0.0)] z: f64,
) -> [f64; 3] {
    [x, y, z]
}

/// The components of a vector (missing ones are 0).
#[op("vec.split", outputs("x" = "x", "y" = "y", "z" = "z", "w" = "w"))]
pub fn split(
    #[input("vector", ty = ValueType::Number)] v: &Value,
) -> Result<(f64, f64, f64, f64), OpError> {
    let (_, c) = components(v)
        .ok_or_else(|| OpError::input(0, format!("expected a vector, found {}", v.type_name())))?;
    Ok((c[0], c[1], c[2], c[3]))
}

/// Dot product.
#[op("vec.dot", out = "a . b")]
pub fn dot(
    #[input("vector", ty = ValueType::Number)] a: &Value,
    #[input("vector", ty = ValueType::Number)] b: &Value,
) -> Result<f64, OpError> {
    let (a, b) = (vec_of(a, 0)?, vec_of(b, 1)?);
    if a.len() != b.len() {
        return Err(OpError::input(
            1,
            format!("size {} does not match a's {}", b.len(), a.len()),
        ));
    }
    Ok(a.iter().zip(&b).map(|(x, y)| x * y).sum())
}

/// Euclidean length.
#[op("vec.length", out = "|v|")]
pub fn length(#[input("vector", ty = ValueType::Number)] v: &Value) -> Result<f64, OpError> {
    let a = vec_of(v, 0)?;
    Ok(a.iter().map(|x| x * x).sum::<f64>().sqrt())
}

/// The vector scaled to length 1 (zero stays zero).
#[op(
    "vec.normalize",
    out = "v / |v|",
    out_type = ValueType::Number,
    infer = infer_unary_float
)]
pub fn normalize(#[input("vector", ty = ValueType::Number)] v: &Value) -> Result<Value, OpError> {
    let len = vec_of(v, 0)?.iter().map(|x| x * x).sum::<f64>().sqrt();
    let inv = if len > 0.0 { 1.0 / len } else { 0.0 };
    binary(v, &Value::Float(inv), |_, _| Err("unused"), |x, s| x * s)
}

/// Cross product of two vec3.
#[op("vec.cross", out = "a x b")]
pub fn cross(#[input("vector")] a: [f64; 3], #[input("vector")] b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// Register the ops of this file.
pub(super) fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(Make2Op::new())?;
    reg.register(Make3Op::new())?;
    reg.register(SplitOp::new())?;
    reg.register(DotOp::new())?;
    reg.register(LengthOp::new())?;
    reg.register(NormalizeOp::new())?;
    reg.register(CrossOp::new())
}
