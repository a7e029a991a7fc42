//! The `scope.step` op: the state of a step body after the whole steps the clock has
//! reached, keyed by that step count.

use super::body::StepBody;
use super::progress::Progress;
use super::run::advance;
use super::{MAX_RUNS_PER_CALL, STEP_BODY_TYPE, STEP_OP};
use kiln_core::context::EvalContext;
use kiln_core::eval::IncrementalEvaluator;
use kiln_core::key::{Key, KeyHasher};
use kiln_core::op::{InputSpec, Op, OpCall, OpError, OpSpec, OutputSpec, ParamSpec, Reads};
use kiln_core::value::{Value, ValueType};

/// The `scope.step` op (see the [module docs](super)).
pub struct StepOp(OpSpec);

impl Default for StepOp {
    fn default() -> Self {
        StepOp(
            OpSpec::new(
                STEP_OP,
                "A fixed-dt simulation: the state of the `body` after the whole steps of dt \
                 that the clock has reached, starting from the state's values among `args`.",
            )
            .param(ParamSpec::required(
                "body",
                ValueType::Heavy(STEP_BODY_TYPE),
                "the step body and its settings",
            ))
            .input(InputSpec::required(
                "args",
                ValueType::List,
                "the values of the body's args, in the body's order",
            ))
            .output(OutputSpec::new(
                "state",
                ValueType::List,
                "the state values, in the body's state order",
            ))
            .reads(Reads::TIME),
        )
    }
}

fn body_of(params: &[Value]) -> Option<&StepBody> {
    params.first().and_then(Value::as_heavy::<StepBody>)
}

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

impl Op for StepOp {
    fn spec(&self) -> &OpSpec {
        &self.0
    }

    fn execute(&self, call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
        let body = body_of(call.params).ok_or_else(|| {
            OpError::param(
                0,
                format!(
                    "expected a {STEP_BODY_TYPE}, found {}",
                    call.params.first().map_or("nothing", Value::type_name)
                ),
            )
        })?;
        let s = body.settings();
        let args = call
            .inputs
            .first()
            .and_then(Value::as_list)
            .ok_or_else(|| {
                OpError::input(
                    0,
                    format!(
                        "expected a list, found {}",
                        call.inputs.first().map_or("nothing", Value::type_name)
                    ),
                )
            })?;
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
        out[0] = Value::List(state);
        Ok(())
    }

    /// The step count reached (not the raw time), so every time within one step, and a
    /// paused clock, key equal; and the context fields the body reads.
    fn hash_context(&self, params: &[Value], ctx: &EvalContext, h: &mut KeyHasher) {
        match body_of(params) {
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
}
