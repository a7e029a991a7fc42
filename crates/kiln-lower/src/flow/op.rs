//! The `scope.flow` op: a flow body run over the call's args; its output is one list per
//! body output, of the entities that reached it.

use super::body::FlowBody;
use super::executor::FlowError;
use super::{FLOW_BODY_TYPE, FLOW_OP};
use kiln_core::context::EvalContext;
use kiln_core::key::KeyHasher;
use kiln_core::op::{InputSpec, Op, OpCall, OpError, OpSpec, OutputSpec, ParamSpec, Reads};
use kiln_core::value::{Value, ValueType};

/// The `scope.flow` op (see the [module docs](super)).
pub struct FlowOp(OpSpec);

impl Default for FlowOp {
    fn default() -> Self {
        FlowOp(
            OpSpec::new(
                FLOW_OP,
                "A flow graph run once: entities from its inputs stream through its nodes \
                 in the flow order; each output is the list of entities that reached it.",
            )
            .param(ParamSpec::required(
                "body",
                ValueType::Heavy(FLOW_BODY_TYPE),
                "the flow body and its settings",
            ))
            .input(InputSpec::required(
                "args",
                ValueType::List,
                "the values of the body's inputs, in the body's order",
            ))
            .output(OutputSpec::new(
                "outputs",
                ValueType::List,
                "one list per body output, in the body's order",
            ))
            // The key holds the context fields the body reads (see `hash_context`); the
            // class makes the plan ask for them at every request.
            .reads(Reads::SEED),
        )
    }
}

fn body_of(params: &[Value]) -> Option<&FlowBody> {
    params.first().and_then(Value::as_heavy::<FlowBody>)
}

impl Op for FlowOp {
    fn spec(&self) -> &OpSpec {
        &self.0
    }

    fn execute(&self, call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
        let body = body_of(call.params).ok_or_else(|| {
            OpError::param(
                0,
                format!(
                    "expected a {FLOW_BODY_TYPE}, found {}",
                    call.params.first().map_or("nothing", Value::type_name)
                ),
            )
        })?;
        let args = call.list_input(0)?;
        let run = body.run(args, call.ctx).map_err(|e| match e {
            FlowError::Cancelled => OpError::cancelled(),
            e => OpError::new(e.to_string()),
        })?;
        body.keep_trace(call.node, run.trace);
        let lists: Vec<Value> = run
            .outputs
            .into_iter()
            .map(|(_, l)| l.into_list())
            .collect();
        out[0] = Value::List(lists.into());
        Ok(())
    }

    /// The context fields the body reads.
    fn hash_context(&self, params: &[Value], ctx: &EvalContext, h: &mut KeyHasher) {
        match body_of(params) {
            Some(body) => {
                h.u8(1);
                body.context_reads().hash_fields(ctx, h);
            }
            None => h.u8(0),
        }
    }
}

trait ListInput {
    fn list_input(&self, i: usize) -> Result<&[Value], OpError>;
}

impl ListInput for OpCall<'_> {
    fn list_input(&self, i: usize) -> Result<&[Value], OpError> {
        self.inputs.get(i).and_then(Value::as_list).ok_or_else(|| {
            OpError::input(
                i,
                format!(
                    "expected a list, found {}",
                    self.inputs.get(i).map_or("nothing", Value::type_name)
                ),
            )
        })
    }
}
