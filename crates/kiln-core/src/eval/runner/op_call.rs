//! Calling an op, the one way every walk does: its rules checked first, panics caught and
//! turned into the node's error, op errors named by node, op and port. The conversions are
//! out of line, so a successful call moves nothing large.

use crate::context::EvalContext;
use crate::eval::EvalError;
use crate::op::{OpCall, OpError};
use crate::plan::Plan;
use crate::value::Value;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Execute node `n` of `plan` on gathered inputs, writing into `out` (one slot per output).
/// Checks the op's rules first (see [`crate::op::rule`]). Catches panics and turns op errors
/// into [`EvalError`]s naming node, op and port; the
/// conversion is out of line, so a successful call moves nothing large.
#[inline(always)]
pub(crate) fn execute_node(
    plan: &Plan,
    n: usize,
    inputs: &[Value],
    ctx: &EvalContext,
    out: &mut [Value],
) -> Result<(), EvalError> {
    let op = plan.op(n);
    if plan.has_rules(n)
        && let Err(e) = plan.check_rules(n, inputs)
    {
        return Err(failed_op(plan, n, e));
    }
    let call = OpCall {
        inputs,
        params: plan.params(n),
        ctx,
        node: plan.id(n).as_str(),
    };
    match catch_unwind(AssertUnwindSafe(|| op.execute(&call, out))) {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(failed_op(plan, n, e)),
        Err(payload) => Err(failed_panic(plan, n, payload)),
    }
}

#[cold]
#[inline(never)]
fn failed_op(plan: &Plan, n: usize, e: OpError) -> EvalError {
    op_error(plan, n, e)
}

#[cold]
#[inline(never)]
pub(crate) fn failed_panic(
    plan: &Plan,
    n: usize,
    payload: Box<dyn std::any::Any + Send>,
) -> EvalError {
    EvalError::Panic {
        node: plan.id(n).clone(),
        op: plan.op(n).spec().id.to_string(),
        message: panic_message(&*payload),
    }
}

/// Ask a lazy op which input to pull next, with panics caught.
pub(crate) fn next_lazy(
    plan: &Plan,
    n: usize,
    inputs: &[Value],
    pulled: &[bool],
    ctx: &EvalContext,
) -> Result<Option<usize>, EvalError> {
    let op = plan.op(n);
    let call = OpCall {
        inputs,
        params: plan.params(n),
        ctx,
        node: plan.id(n).as_str(),
    };
    match catch_unwind(AssertUnwindSafe(|| op.next_lazy(&call, pulled))) {
        Ok(Ok(Some(i))) if i < inputs.len() => Ok(Some(i)),
        Ok(Ok(Some(i))) => Err(op_error(
            plan,
            n,
            OpError::new(format!("asked to pull input #{i}, which does not exist")),
        )),
        Ok(Ok(None)) => Ok(None),
        Ok(Err(e)) => Err(op_error(plan, n, e)),
        Err(payload) => Err(EvalError::Panic {
            node: plan.id(n).clone(),
            op: op.spec().id.to_string(),
            message: panic_message(&*payload),
        }),
    }
}

fn op_error(plan: &Plan, n: usize, e: OpError) -> EvalError {
    if e.is_cancelled() {
        return EvalError::Cancelled;
    }
    let spec = plan.op(n).spec();
    let port = e.port.map(|p| spec.port_name(p));
    EvalError::Node {
        node: plan.id(n).clone(),
        op: spec.id.to_string(),
        port,
        message: e.message,
    }
}

/// The text of a caught panic's payload.
pub(crate) fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic with a non-string payload".to_string()
    }
}
