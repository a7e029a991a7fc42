//! Blending and limiting numbers: `math.lerp` and `math.clamp`, per component with the
//! promotion rules of [`super::binary`].

use super::{binary, promote};
use kiln_core::op;
use kiln_core::op::OpError;
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};

/// The output type of `math.lerp`: `a` and `b` promoted, a float for two ints.
fn infer_lerp(i: &[Option<ValueType>], _: &[Value]) -> Result<Vec<ValueType>, String> {
    let t = promote(
        i[0].unwrap_or(ValueType::Number),
        i[1].unwrap_or(ValueType::Number),
    )?;
    Ok(vec![if t == ValueType::Int {
        ValueType::Float
    } else {
        t
    }])
}

/// The output type of `math.clamp`: its three inputs promoted.
fn infer_clamp(i: &[Option<ValueType>], _: &[Value]) -> Result<Vec<ValueType>, String> {
    let t = promote(
        i[0].unwrap_or(ValueType::Number),
        i[1].unwrap_or(ValueType::Number),
    )?;
    promote(t, i[2].unwrap_or(ValueType::Number)).map(|t| vec![t])
}

/// Linear interpolation a + (b - a) * t.
#[op("math.lerp", out = "result", out_type = ValueType::Number, infer = infer_lerp)]
pub fn lerp(
    #[input("value at t = 0", ty = ValueType::Number)] a: &Value,
    #[input("value at t = 1", ty = ValueType::Number)] b: &Value,
    #[input("blend factor")] t: f64,
) -> Result<Value, OpError> {
    let d = binary(b, a, |_, _| Err("unused"), |b, a| b - a)?;
    let d = binary(&d, &Value::Float(t), |_, _| Err("unused"), |x, t| x * t)?;
    binary(a, &d, |_, _| Err("unused"), |a, d| a + d)
}

/// x limited to [lo, hi], per component.
#[op("math.clamp", out = "result", out_type = ValueType::Number, infer = infer_clamp)]
pub fn clamp(
    #[input("value", ty = ValueType::Number)] x: &Value,
    #[input("lower bound", ty = ValueType::Number, default = Value::Float(0.0))] lo: &Value,
    #[input("upper bound", ty = ValueType::Number, default = Value::Float(1.0))] hi: &Value,
) -> Result<Value, OpError> {
    let lo = binary(x, lo, |a, b| Ok(a.max(b)), f64::max)?;
    binary(&lo, hi, |a, b| Ok(a.min(b)), f64::min)
}

/// Register the ops of this file.
pub(super) fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(LerpOp::new())?;
    reg.register(ClampOp::new())
}
