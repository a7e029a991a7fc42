//! The `scope.step` op: the state of a step body after the whole steps the clock has
//! reached, keyed by that step count.

use super::MAX_RUNS_PER_CALL;
use super::body::StepBody;
use super::progress::Progress;
use super::run::advance;
use kiln_core::context::EvalContext;
use kiln_core::eval::IncrementalEvaluator;
use kiln_core::key::{Key, KeyHasher};
use kiln_core::op::{OpCall, OpError};
use kiln_core::value::{Value, ValueType};

/// What the steps read besides the state: the args and the context fields the body reads.
fn inputs_key(body: &StepBody, args: &[Value], ctx: &EvalContext) -> Key {
    let mut h = KeyHasher::new();
    h.u64(args.len() as u64);
    for a in args {
        a.hash_into(&mut h);
    }
    body.context_reads().hash_fields(ctx, &mut h);
    h.finish_key()
}

/// A fixed-dt simulation: the state of the `body` after the whole steps of dt that the clock
/// has reached, starting from the state's values among `args`.
#[kiln_core::op(
    "scope.step",
    reads = "time",
    hash_context = hash_step_context,
    out_type = ValueType::List,
    outputs("state" = "the state values, in the body's state order")
)]
pub fn step(
    #[input("the values of the body's args, in the body's order")] args: &[Value],
    #[param("the step body and its settings")] body: &StepBody,
    call: &OpCall<'_>,
) -> Result<Value, OpError> {
    let s = body.settings();
    if args.len() != s.args.len() {
        return Err(OpError::input(
            0,
            format!(
                "expected {} args ({}), found {}",
                s.args.len(),
                s.args.join(", "),
                args.len()
            ),
        ));
    }
    let target = body.steps_at(call.ctx.time);
    let inputs = inputs_key(body, args, call.ctx);
    let initial = || body.initial_state(args);
    let taken = body
        .progress
        .lock()
        .ok()
        .and_then(|mut c| c.take(call.node));
    let mut p = taken.unwrap_or_else(|| Progress {
        inputs,
        done: 0,
        state: initial(),
        eval: IncrementalEvaluator::new(body.registry().clone()),
    });
    if p.inputs != inputs || target < p.done {
        p.restart(inputs, initial());
    }
    let runs = (target - p.done).saturating_mul(u64::from(s.substeps));
    let r = if runs > MAX_RUNS_PER_CALL {
        Err(OpError::new(format!(
            "reaching step {target} (time {}, dt {}) from step {} takes {runs} body runs \
             ({} substeps a step), more than the limit of {MAX_RUNS_PER_CALL} per call",
            call.ctx.time, s.dt, p.done, s.substeps
        )))
    } else {
        advance(body, &mut p, target, args, call.ctx)
    };
    let state: std::sync::Arc<[Value]> = p.state.as_slice().into();
    if let Ok(mut c) = body.progress.lock() {
        c.put(call.node, p);
    }
    r?;
    Ok(Value::List(state))
}

/// The step count reached (not the raw time), so every time within one step, and a paused
/// clock, key equal; and the context fields the body reads.
fn hash_step_context(params: &[Value], ctx: &EvalContext, h: &mut KeyHasher) {
    match params.first().and_then(Value::as_heavy::<StepBody>) {
        Some(body) => {
            h.u8(1);
            h.u64(body.steps_at(ctx.time));
            body.context_reads().hash_fields(ctx, h);
        }
        // Not a body: execution fails; key by the raw time.
        None => {
            h.u8(0);
            h.f64(ctx.time);
        }
    }
}
