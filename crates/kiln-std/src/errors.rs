//! Nodes that handle, test and raise failures.
//!
//! Under [`ErrorPolicy::Propagate`](kiln_core::eval::ErrorPolicy::Propagate) a failed node's
//! outputs become [`Value::Error`] and flow to its dependents, which pass them on without
//! running. The inputs of `error.catch` and `error.is_error` are declared
//! [`catching_errors`](kiln_core::op::InputSpec::catching_errors), so these ops see the error
//! values and handle them:
//!
//! * `error.catch`: its `value`, or `fallback` when `value` is an error (the fallback is lazy:
//!   it is computed only when needed);
//! * `error.is_error`: whether `value` is an error;
//! * `error.raise`: passes `value` through, or fails with `message` when `when` is true
//!   (for testing error policies from graph files).
//!
//! Under the default fail-fast policy the first failure stops the request, so `error.catch`
//! and `error.is_error` only ever see plain values there.

use kiln_core::op;
use kiln_core::op::{OpCall, OpError};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};

/// The output type of `error.catch`: the `value` input's type, with a fallback it accepts.
fn infer_catch(i: &[Option<ValueType>], _: &[Value]) -> Result<Vec<ValueType>, String> {
    use ValueType::*;
    Ok(vec![match (i[0], i[1]) {
        (Some(v), Some(f)) if v == f => v,
        (Some(v), Some(f)) if v == Any || f == Any => Any,
        (Some(v), Some(Number)) if v.is_numeric() => Number,
        (Some(v), Some(f)) if v.accepts(f) => v,
        (Some(v), Some(f)) => {
            return Err(format!("a fallback of the value's type ({v}), not {f}"));
        }
        (Some(v), None) => v,
        (None, Some(f)) => f,
        (None, None) => Any,
    }])
}

/// The output type of `error.raise`: the `value` input's type.
fn infer_pass(i: &[Option<ValueType>], _: &[Value]) -> Result<Vec<ValueType>, String> {
    Ok(vec![i[0].unwrap_or(ValueType::Any)])
}

/// `error.catch` pulls its lazy `fallback` only when `value` is an error.
fn catch_next(call: &OpCall<'_>, pulled: &[bool]) -> Result<Option<usize>, OpError> {
    let need = matches!(call.inputs[0], Value::Error(_)) && !pulled[1];
    Ok(need.then_some(1))
}

/// `value`, or `fallback` when `value` is an error from an upstream node (under the
/// propagate error policy); the fallback is computed only when needed.
#[op(
    "error.catch",
    out = "`value`, or `fallback` in its place",
    infer = infer_catch,
    next_lazy = catch_next
)]
pub fn catch(
    #[input("the value that may have failed", catching_errors)] value: &Value,
    #[input("used when `value` is an error (same type as `value`)", lazy)] fallback: &Value,
) -> Value {
    match value {
        Value::Error(_) => fallback.clone(),
        v => v.clone(),
    }
}

/// True when `value` is an error from an upstream node (under the propagate error policy),
/// else false.
#[op("error.is_error", out = "whether `value` is an error")]
pub fn is_error(#[input("the value to test", catching_errors)] value: &Value) -> bool {
    matches!(value, Value::Error(_))
}

/// Passes `value` through unchanged, or fails with `message` when `when` is true: a way to
/// exercise error policies from graph files.
#[op("error.raise", out = "`value`, unchanged", infer = infer_pass)]
pub fn raise(
    #[input("the value passed through")] value: &Value,
    #[input("fail when true", default = false)] when: bool,
    #[param("the error message", default = "raised")] message: &str,
) -> Result<Value, OpError> {
    if when {
        return Err(OpError::new(message));
    }
    Ok(value.clone())
}

/// Register the ops of this module.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(CatchOp::new())?;
    reg.register(IsErrorOp::new())?;
    reg.register(RaiseOp::new())?;
    Ok(())
}
