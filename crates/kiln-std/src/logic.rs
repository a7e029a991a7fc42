//! Comparisons, boolean logic and the lazy `switch`.
//!
//! `switch` pulls its `cond` first, then exactly one of `a` (when true) or `b` (when false):
//! the other branch is never computed.

use crate::math::promote;
use crate::util::FnOp;
use kiln_core::op::{InputSpec, Op, OpCall, OpError, OpSpec, OutputSpec, Role};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};

fn cmp_spec(id: &'static str, doc: &'static str) -> OpSpec {
    OpSpec::new(id, doc)
        .input(InputSpec::required("a", ValueType::Number, "left operand"))
        .input(InputSpec::required("b", ValueType::Number, "right operand"))
        .output(OutputSpec::new("out", ValueType::Bool, "the comparison"))
}

fn compare(c: &OpCall<'_>) -> Result<Option<std::cmp::Ordering>, OpError> {
    match (&c.inputs[0], &c.inputs[1]) {
        (Value::Int(a), Value::Int(b)) => Ok(Some(a.cmp(b))),
        _ => Ok(c.float(0)?.partial_cmp(&c.float(1)?)),
    }
}

fn infer_cmp(i: &[Option<ValueType>], _: &[Value]) -> Result<Vec<ValueType>, String> {
    for t in i.iter().flatten() {
        if !matches!(t, ValueType::Int | ValueType::Float | ValueType::Number) {
            return Err(format!("two scalars (int or float), not {t}"));
        }
    }
    Ok(vec![ValueType::Bool])
}

/// The lazy two-way switch.
pub struct Switch(OpSpec);

impl Default for Switch {
    fn default() -> Self {
        Switch(
            OpSpec::new(
                "switch",
                "`a` when `cond` is true, else `b`; only the chosen branch is computed.",
            )
            .input(InputSpec::required("cond", ValueType::Bool, "which branch"))
            .input(InputSpec::required("a", ValueType::Any, "value when true").lazy())
            .input(InputSpec::required("b", ValueType::Any, "value when false").lazy())
            .output(OutputSpec::new("out", ValueType::Any, "the chosen value"))
            .role(Role::Choice),
        )
    }
}

impl Op for Switch {
    fn spec(&self) -> &OpSpec {
        &self.0
    }
    fn next_lazy(&self, call: &OpCall<'_>, pulled: &[bool]) -> Result<Option<usize>, OpError> {
        let want = if call.bool(0)? { 1 } else { 2 };
        Ok((!pulled[want]).then_some(want))
    }
    fn execute(&self, call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
        let i = if call.bool(0)? { 1 } else { 2 };
        out[0] = call.inputs[i].clone();
        Ok(())
    }
    fn infer_outputs(
        &self,
        i: &[Option<ValueType>],
        _: &[Value],
    ) -> Result<Vec<ValueType>, String> {
        Ok(vec![match (i[1], i[2]) {
            (Some(a), Some(b)) if a == b => a,
            (Some(a), Some(b)) if a.is_numeric() && b.is_numeric() => promote(a, b)?,
            (Some(a), Some(b)) if a == ValueType::Any || b == ValueType::Any => ValueType::Any,
            (Some(a), Some(b)) => {
                return Err(format!("both branches of one type, not {a} and {b}"));
            }
            _ => ValueType::Any,
        }])
    }
}

/// Register the ops of this module.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    use std::cmp::Ordering::*;
    macro_rules! cmp {
        ($id:literal, $doc:literal, $pat:pat) => {
            reg.register(
                FnOp::new(cmp_spec($id, $doc), |c, o| {
                    o[0] = Value::Bool(matches!(compare(c)?, Some($pat)));
                    Ok(())
                })
                .infer(infer_cmp),
            )?;
        };
    }
    cmp!("cmp.lt", "a < b.", Less);
    cmp!("cmp.le", "a <= b.", Less | Equal);
    cmp!("cmp.gt", "a > b.", Greater);
    cmp!("cmp.ge", "a >= b.", Greater | Equal);
    cmp!("cmp.eq", "a == b (NaN equals nothing).", Equal);
    cmp!("cmp.ne", "a != b.", Less | Greater);
    let bool2 = |id: &'static str, doc: &'static str, f: crate::util::ExecFn| {
        FnOp::new(
            OpSpec::new(id, doc)
                .input(InputSpec::required("a", ValueType::Bool, "left operand"))
                .input(InputSpec::required("b", ValueType::Bool, "right operand"))
                .output(OutputSpec::new("out", ValueType::Bool, "result")),
            f,
        )
    };
    reg.register(bool2("logic.and", "a and b.", |c, o| {
        o[0] = Value::Bool(c.bool(0)? && c.bool(1)?);
        Ok(())
    }))?;
    reg.register(bool2("logic.or", "a or b.", |c, o| {
        o[0] = Value::Bool(c.bool(0)? || c.bool(1)?);
        Ok(())
    }))?;
    reg.register(bool2("logic.xor", "a xor b.", |c, o| {
        o[0] = Value::Bool(c.bool(0)? ^ c.bool(1)?);
        Ok(())
    }))?;
    reg.register(FnOp::new(
        OpSpec::new("logic.not", "not x.")
            .input(InputSpec::required("x", ValueType::Bool, "operand"))
            .output(OutputSpec::new("out", ValueType::Bool, "result")),
        |c, o| {
            o[0] = Value::Bool(!c.bool(0)?);
            Ok(())
        },
    ))?;
    reg.register(Switch::default())?;
    Ok(())
}
