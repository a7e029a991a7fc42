//! Nodes that handle, test and raise failures.
//!
//! Under [`ErrorPolicy::Propagate`](kiln_core::eval::ErrorPolicy::Propagate) a failed node's
//! outputs become [`Value::Error`] and flow to its dependents, which pass them on without
//! running. The inputs of `error.catch` and `error.is_error` are declared with
//! [`InputSpec::catching_errors`], so these ops see the error values and handle them:
//!
//! * `error.catch`: its `value`, or `fallback` when `value` is an error (the fallback is lazy:
//!   it is computed only when needed);
//! * `error.is_error`: whether `value` is an error;
//! * `error.raise`: passes `value` through, or fails with `message` when `when` is true
//!   (for testing error policies from graph files).
//!
//! Under the default fail-fast policy the first failure stops the request, so `error.catch`
//! and `error.is_error` only ever see plain values there.

use crate::util::FnOp;
use kiln_core::op::{InputSpec, Op, OpCall, OpError, OpSpec, OutputSpec, ParamSpec};
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
struct Catch(FnOp);

impl Op for Catch {
    fn spec(&self) -> &OpSpec {
        &self.0.spec
    }
    fn next_lazy(&self, call: &OpCall<'_>, pulled: &[bool]) -> Result<Option<usize>, OpError> {
        let need = matches!(call.inputs[0], Value::Error(_)) && !pulled[1];
        Ok(need.then_some(1))
    }
    fn execute(&self, call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
        self.0.execute(call, out)
    }
    fn infer_outputs(
        &self,
        inputs: &[Option<ValueType>],
        params: &[Value],
    ) -> Result<Vec<ValueType>, String> {
        self.0.infer_outputs(inputs, params)
    }
}

/// Register the ops of this module.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(Catch(
        FnOp::new(
            OpSpec::new(
                "error.catch",
                "`value`, or `fallback` when `value` is an error from an upstream node (under \
                 the propagate error policy); the fallback is computed only when needed.",
            )
            .input(
                InputSpec::required("value", ValueType::Any, "the value that may have failed")
                    .catching_errors(),
            )
            .input(
                InputSpec::required(
                    "fallback",
                    ValueType::Any,
                    "used when `value` is an error (same type as `value`)",
                )
                .lazy(),
            )
            .output(OutputSpec::new(
                "out",
                ValueType::Any,
                "`value`, or `fallback` in its place",
            )),
            |c, o| {
                let i = if matches!(c.inputs[0], Value::Error(_)) {
                    1
                } else {
                    0
                };
                o[0] = c.inputs[i].clone();
                Ok(())
            },
        )
        .infer(infer_catch),
    ))?;
    reg.register(FnOp::new(
        OpSpec::new(
            "error.is_error",
            "True when `value` is an error from an upstream node (under the propagate error \
             policy), else false.",
        )
        .input(InputSpec::required("value", ValueType::Any, "the value to test").catching_errors())
        .output(OutputSpec::new(
            "out",
            ValueType::Bool,
            "whether `value` is an error",
        )),
        |c, o| {
            o[0] = Value::Bool(matches!(c.inputs[0], Value::Error(_)));
            Ok(())
        },
    ))?;
    reg.register(
        FnOp::new(
            OpSpec::new(
                "error.raise",
                "Passes `value` through unchanged, or fails with `message` when `when` is \
                 true: a way to exercise error policies from graph files.",
            )
            .input(InputSpec::required(
                "value",
                ValueType::Any,
                "the value passed through",
            ))
            .input(InputSpec::optional(
                "when",
                ValueType::Bool,
                Value::Bool(false),
                "fail when true",
            ))
            .param(ParamSpec::new(
                "message",
                ValueType::String,
                Value::str("raised"),
                "the error message",
            ))
            .output(OutputSpec::new("out", ValueType::Any, "`value`, unchanged")),
            |c, o| {
                if c.bool(1)? {
                    return Err(OpError::new(c.param_str(0)?));
                }
                o[0] = c.inputs[0].clone();
                Ok(())
            },
        )
        .infer(infer_pass),
    )?;
    Ok(())
}
