//! The `scope.flow` op: a flow body run over the call's args; its output is one list per
//! body output, of the entities that reached it.

use super::body::FlowBody;
use super::executor::FlowError;
use kiln_core::context::EvalContext;
use kiln_core::key::KeyHasher;
use kiln_core::op::{OpCall, OpError};
use kiln_core::value::Value;

/// A flow graph run once: entities from its inputs stream through its nodes in the flow
/// order; each output is the list of entities that reached it.
// The key holds the context fields the body reads (see `hash_flow_context`); `reads` makes
// the plan ask for them at every request.
#[kiln_core::op(
    "scope.flow",
    reads = "seed",
    hash_context = hash_flow_context,
    outputs("outputs" = "one list per body output, in the body's order")
)]
pub fn flow(
    #[input("the values of the body's inputs, in the body's order")] args: &[Value],
    #[param("the flow body and its settings")] body: &FlowBody,
    call: &OpCall<'_>,
) -> Result<Vec<Value>, OpError> {
    let run = body.run(args, call.ctx).map_err(|e| match e {
        FlowError::Cancelled => OpError::cancelled(),
        e => OpError::new(e.to_string()),
    })?;
    body.keep_trace(call.node, run.trace);
    Ok(run
        .outputs
        .into_iter()
        .map(|(_, l)| l.into_list())
        .collect())
}

/// The context fields the body reads.
fn hash_flow_context(params: &[Value], ctx: &EvalContext, h: &mut KeyHasher) {
    match params.first().and_then(Value::as_heavy::<FlowBody>) {
        Some(body) => {
            h.u8(1);
            body.context_reads().hash_fields(ctx, h);
        }
        None => h.u8(0),
    }
}
