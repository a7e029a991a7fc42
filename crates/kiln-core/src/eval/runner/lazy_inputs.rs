//! The lazy-input step, once for every walk: ask a lazy node's op which input to pull next
//! ([`lazy_step`]), given what it pulled so far ([`PullSets`]), and refuse a pull the op is
//! not allowed.

use super::op_call::next_lazy;
use super::pulled::{PullSets, is_pulled};
use super::{Runner, Taint, gather, uncaught_error};
use crate::eval::EvalError;
use crate::plan::Plan;
use crate::value::Value;

/// What a lazy node does next.
pub(crate) enum LazyStep {
    /// Bring input `i` up to date (its bit is already set), then ask again.
    Pull(usize),
    /// Every input it wants is there: run it (an error the op raised while choosing was
    /// handed to the runner, which reports it as the node's result under the policy).
    Run,
}

/// Reusable buffers of [`lazy_step`].
#[derive(Default)]
pub(crate) struct LazyScratch {
    inputs: Vec<Value>,
    flags: Vec<bool>,
}

/// Ask lazy node `v` which input to pull next, given its inputs so far in `vals`. A pull the
/// op is not allowed (an eager input, one already pulled, one out of range) is an error
/// naming the node and the input.
#[allow(clippy::too_many_arguments)]
pub(crate) fn lazy_step(
    plan: &Plan,
    v: usize,
    vals: &[Value],
    taints: &[Taint],
    pulls: &mut PullSets,
    scratch: &mut LazyScratch,
    runner: &mut Runner,
) -> Result<LazyStep, EvalError> {
    let bits = pulls.get(v);
    gather(plan, v, vals, taints, bits, &mut scratch.inputs);
    let n_in = plan.inputs(v).len();
    scratch.flags.clear();
    scratch.flags.extend((0..n_in).map(|i| is_pulled(bits, i)));
    let next = if uncaught_error(plan, v, &scratch.inputs) {
        Ok(None)
    } else {
        next_lazy(plan, v, &scratch.inputs, &scratch.flags, runner.op_ctx())
    };
    let next = match next {
        Ok(n) => n,
        Err(EvalError::Cancelled) => return Err(EvalError::Cancelled),
        Err(e) => {
            runner.inject(e);
            None
        }
    };
    let Some(i) = next else {
        return Ok(LazyStep::Run);
    };
    let spec = plan.op(v).spec();
    if i >= n_in || is_pulled(bits, i) || !spec.inputs[i].lazy {
        return Err(EvalError::Node {
            node: plan.id(v).clone(),
            op: spec.id.to_string(),
            port: Some(
                spec.inputs
                    .get(i)
                    .map_or(format!("input #{i}"), |p| format!("input \"{}\"", p.name)),
            ),
            message: "the op asked to pull an input that is not an unpulled lazy input".into(),
        });
    }
    pulls.set(v, i);
    Ok(LazyStep::Pull(i))
}
