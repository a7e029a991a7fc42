//! Comparisons of two scalars: `cmp.lt`, `cmp.le`, `cmp.gt`, `cmp.ge`, `cmp.eq`, `cmp.ne`.
//! Two ints compare as ints, anything else as floats (NaN compares with nothing).

use kiln_core::op;
use kiln_core::op::OpError;
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};
use std::cmp::Ordering::{self, Equal, Greater, Less};

/// Input `i` as a float, or an error naming the port.
fn float(v: &Value, i: usize) -> Result<f64, OpError> {
    v.as_f64()
        .ok_or_else(|| OpError::input(i, format!("expected float, found {}", v.type_name())))
}

/// How `a` compares with `b`: as ints when both are, else as floats (`None` with a NaN).
fn compare(a: &Value, b: &Value) -> Result<Option<Ordering>, OpError> {
    match (a, b) {
        (Value::Int(a), Value::Int(b)) => Ok(Some(a.cmp(b))),
        _ => Ok(float(a, 0)?.partial_cmp(&float(b, 1)?)),
    }
}

/// The output type of a comparison: a bool, of two scalars.
fn infer_cmp(i: &[Option<ValueType>], _: &[Value]) -> Result<Vec<ValueType>, String> {
    for t in i.iter().flatten() {
        if !matches!(t, ValueType::Int | ValueType::Float | ValueType::Number) {
            return Err(format!("two scalars (int or float), not {t}"));
        }
    }
    Ok(vec![ValueType::Bool])
}

/// A comparison op `$name` (id `$id`): whether `a` compares with `b` as `$pat`.
macro_rules! compare_op {
    ($(#[doc = $doc:tt])* $name:ident, $id:tt, $pat:pat) => {
        $(#[doc = $doc])*
        #[op($id, out = "the comparison", infer = infer_cmp)]
        pub fn $name(
            #[input("left operand", ty = ValueType::Number)] a: &Value,
            #[input("right operand", ty = ValueType::Number)] b: &Value,
        ) -> Result<bool, OpError> {
            Ok(matches!(compare(a, b)?, Some($pat)))
        }
    };
}

compare_op!(
    /// a < b.
    lt,
    "cmp.lt",
    Less
);
compare_op!(
    /// a <= b.
    le,
    "cmp.le",
    Less | Equal
);
compare_op!(
    /// a > b.
    gt,
    "cmp.gt",
    Greater
);
compare_op!(
    /// a >= b.
    ge,
    "cmp.ge",
    Greater | Equal
);
compare_op!(
    /// a == b (NaN equals nothing).
    eq,
    "cmp.eq",
    Equal
);
compare_op!(
    /// a != b.
    ne,
    "cmp.ne",
    Less | Greater
);

/// Register the ops of this file.
pub(super) fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(LtOp::new())?;
    reg.register(LeOp::new())?;
    reg.register(GtOp::new())?;
    reg.register(GeOp::new())?;
    reg.register(EqOp::new())?;
    reg.register(NeOp::new())
}
