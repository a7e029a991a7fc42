//! Running the body: from a node's progress up to a target step, one nested evaluation per
//! substep, with cancellation checked between runs.

use super::body::StepBody;
use super::progress::Progress;
use super::{INPUT_DT, INPUT_INDEX, INPUT_SUBSTEP, INPUT_TIME};
use kiln_core::context::EvalContext;
use kiln_core::eval::{EvalError, Evaluator, Request};
use kiln_core::op::OpError;
use kiln_core::value::Value;

/// The context of the body's runs: the caller's cancellation token and the fields the body
/// reads besides the clock, the `args` as inputs, and nothing else of the caller's.
fn body_context(body: &StepBody, args: &[Value], outer: &EvalContext) -> EvalContext {
    let mut ctx = EvalContext::new();
    ctx.cancel = outer.cancel.clone();
    ctx.seed = outer.seed;
    ctx.preview = outer.preview;
    ctx.resolution = outer.resolution;
    for (name, v) in body.settings().args.iter().zip(args) {
        set_input(&mut ctx, name, v.clone());
    }
    ctx
}

/// Step `p` on from `p.done` to `target` steps. After each whole step the progress holds it,
/// so a failure or a cancellation keeps the steps completed before it.
pub(super) fn advance(
    body: &StepBody,
    p: &mut Progress,
    target: u64,
    args: &[Value],
    outer: &EvalContext,
) -> Result<(), OpError> {
    let s = body.settings();
    let substeps = u64::from(s.substeps);
    let h = s.dt / s.substeps as f64;
    let mut ctx = body_context(body, args, outer);
    ctx.dt = h;
    let request = Request::new(s.state.iter().cloned());
    let mut cur = p.state.clone();
    for i in p.done..target {
        for sub in 0..substeps {
            if ctx.is_cancelled() {
                return Err(OpError::cancelled());
            }
            // i < target, and the run limit keeps (target - done) * substeps small, so the
            // run index does not overflow for any reachable i.
            let run = i.saturating_mul(substeps).saturating_add(sub);
            let time = run as f64 * h;
            ctx.time = time;
            ctx.frame = i as i64;
            for (name, v) in s.state.iter().zip(&cur) {
                set_input(&mut ctx, name, v.clone());
            }
            set_input(&mut ctx, INPUT_DT, Value::Float(h));
            set_input(&mut ctx, INPUT_TIME, Value::Float(time));
            set_input(&mut ctx, INPUT_INDEX, Value::Int(i as i64));
            set_input(&mut ctx, INPUT_SUBSTEP, Value::Int(sub as i64));
            let out = p
                .eval
                .evaluate(body.graph(), &request, &ctx)
                .map_err(|e| body_error(e, i, sub))?;
            body.count_run();
            cur.clear();
            cur.extend(out.values.into_iter().map(|(_, v)| v));
        }
        p.done = i + 1;
        p.state.clone_from(&cur);
    }
    Ok(())
}

/// Set input `name` of `ctx` to `v` (reusing the entry's key when it exists).
fn set_input(ctx: &mut EvalContext, name: &str, v: Value) {
    match ctx.inputs.get_mut(name) {
        Some(slot) => *slot = v,
        None => {
            ctx.inputs.insert(name.to_string(), v);
        }
    }
}

/// The op error for a body failure: the inner error names the body node, op and port.
fn body_error(e: EvalError, step: u64, substep: u64) -> OpError {
    match e {
        EvalError::Cancelled => OpError::cancelled(),
        e => OpError::new(format!(
            "in the step body at step {step}, substep {substep}: {e}"
        )),
    }
}
