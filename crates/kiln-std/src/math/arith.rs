//! Arithmetic on two numbers (`math.add`, `math.sub`, `math.mul`, `math.div`, `math.mod`,
//! `math.min`, `math.max`, `math.pow`) with the promotion rules of [`super::binary`], and
//! `math.neg` and `math.abs`, which keep ints as ints.

use super::{binary, infer_binary, infer_same, unary};
use kiln_core::op;
use kiln_core::op::OpError;
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};

/// A binary op `$name` (id `$id`): `$int` on two ints (an error for a result that is not an
/// int), `$float` on floats and per component (also its kernel and column forms).
macro_rules! binary_op {
    ($(#[doc = $doc:tt])* $name:ident, $id:tt, $int:expr, $float:expr) => {
        $(#[doc = $doc])*
        #[op($id, out = "result", out_type = ValueType::Number, infer = infer_binary, kernel = $float)]
        pub fn $name(
            #[input("left operand", ty = ValueType::Number)] a: &Value,
            #[input("right operand", ty = ValueType::Number)] b: &Value,
        ) -> Result<Value, OpError> {
            binary(a, b, $int, $float)
        }
    };
}

binary_op!(
    /// a + b.
    add,
    "math.add",
    |a, b| a.checked_add(b).ok_or("integer overflow"),
    |a, b| a + b
);
binary_op!(
    /// a - b.
    sub,
    "math.sub",
    |a, b| a.checked_sub(b).ok_or("integer overflow"),
    |a, b| a - b
);
binary_op!(
    /// a * b.
    mul,
    "math.mul",
    |a, b| a.checked_mul(b).ok_or("integer overflow"),
    |a, b| a * b
);
binary_op!(
    /// a / b (integer division truncates; dividing an int by 0 is an error).
    div,
    "math.div",
    |a, b| if b == 0 {
        Err("integer division by zero")
    } else {
        a.checked_div(b).ok_or("integer overflow")
    },
    |a, b| a / b
);
binary_op!(
    /// a modulo b, with the sign of b (Euclidean for ints).
    modulo,
    "math.mod",
    |a, b| if b == 0 {
        Err("integer modulo by zero")
    } else {
        a.checked_rem_euclid(b).ok_or("integer overflow")
    },
    |a, b| a - b * (a / b).floor()
);
binary_op!(
    /// The smaller of a and b.
    min,
    "math.min",
    |a, b| Ok(a.min(b)),
    f64::min
);
binary_op!(
    /// The larger of a and b.
    max,
    "math.max",
    |a, b| Ok(a.max(b)),
    f64::max
);
binary_op!(
    /// a raised to the power b.
    pow,
    "math.pow",
    |a, b| u32::try_from(b)
        .ok()
        .and_then(|b| a.checked_pow(b))
        .ok_or("integer power out of range"),
    f64::powf
);

/// -x.
#[op("math.neg", out = "result", out_type = ValueType::Number, infer = infer_same)]
pub fn neg(#[input("operand", ty = ValueType::Number)] x: &Value) -> Result<Value, OpError> {
    match x {
        Value::Int(i) => Ok(Value::Int(
            i.checked_neg()
                .ok_or_else(|| OpError::input(0, "integer overflow"))?,
        )),
        v => unary(v, |x| -x),
    }
}

/// |x|.
#[op("math.abs", out = "result", out_type = ValueType::Number, infer = infer_same)]
pub fn abs(#[input("operand", ty = ValueType::Number)] x: &Value) -> Result<Value, OpError> {
    match x {
        Value::Int(i) => Ok(Value::Int(
            i.checked_abs()
                .ok_or_else(|| OpError::input(0, "integer overflow"))?,
        )),
        v => unary(v, f64::abs),
    }
}

/// Register the ops of this file.
pub(super) fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(AddOp::new())?;
    reg.register(SubOp::new())?;
    reg.register(MulOp::new())?;
    reg.register(DivOp::new())?;
    reg.register(ModuloOp::new())?;
    reg.register(MinOp::new())?;
    reg.register(MaxOp::new())?;
    reg.register(PowOp::new())?;
    reg.register(NegOp::new())?;
    reg.register(AbsOp::new())
}
