//! The node runner for callers outside the evaluators that run a plan's nodes themselves
//! (`kiln_lower`'s flow executor runs one op node over a batch of entities): the very call
//! the evaluators make ([`super::op_call`]), behind a small public face.

use super::op_call::{execute_node, failed_panic};
use crate::context::EvalContext;
use crate::eval::EvalError;
use crate::plan::Plan;
use crate::value::Value;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Runs the nodes of one plan under one context the way every evaluator runs a node: the
/// op's rules checked before it runs, a panic caught and made that node's error, an op's
/// error named by node, op and port, cancellation seen by the op or checked between runs
/// reported as [`EvalError::Cancelled`]. Built once per run and shared by reference (it is
/// `Copy`, `Send` and `Sync`), for a caller that walks a plan its own way: what to run, in
/// what order and how often is the caller's; how one node runs is the engine's.
///
/// ```
/// use kiln_core::eval::NodeRunner;
/// use kiln_core::plan::Plan;
/// use kiln_core::prelude::*;
///
/// struct Boom(OpSpec);
/// impl Op for Boom {
///     fn spec(&self) -> &OpSpec { &self.0 }
///     fn execute(&self, _: &OpCall<'_>, _: &mut [Value]) -> Result<(), OpError> {
///         panic!("no luck")
///     }
/// }
/// let mut reg = Registry::new();
/// reg.register(Boom(
///     OpSpec::new("boom", "Panics.").output(OutputSpec::new("out", ValueType::Float, "-")),
/// )).unwrap();
/// let mut g = Graph::new();
/// g.add_node("b", "boom").unwrap();
/// let plan = Plan::build(&g, &reg).unwrap();
/// let ctx = EvalContext::new();
/// let runner = NodeRunner::new(&plan, &ctx);
/// let mut out = [Value::Empty];
/// match runner.run(0, &[], &mut out) {
///     Err(EvalError::Panic { node, op, message }) => {
///         assert_eq!((node.as_str(), op.as_str(), message.as_str()), ("b", "boom", "no luck"));
///     }
///     other => panic!("{other:?}"),
/// }
/// ctx.cancel.cancel();
/// assert_eq!(runner.check_cancelled(), Err(EvalError::Cancelled));
/// ```
#[derive(Clone, Copy)]
pub struct NodeRunner<'a> {
    plan: &'a Plan,
    ctx: &'a EvalContext,
}

impl std::fmt::Debug for NodeRunner<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NodeRunner")
            .field("plan", self.plan)
            .finish_non_exhaustive()
    }
}

impl<'a> NodeRunner<'a> {
    /// A runner of `plan`'s nodes under `ctx` (the context every op it runs sees).
    pub fn new(plan: &'a Plan, ctx: &'a EvalContext) -> Self {
        NodeRunner { plan, ctx }
    }

    /// The plan whose nodes it runs.
    pub fn plan(&self) -> &'a Plan {
        self.plan
    }

    /// The context its ops see.
    pub fn ctx(&self) -> &'a EvalContext {
        self.ctx
    }

    /// [`EvalError::Cancelled`] once the context's token has fired: the check the evaluators
    /// make before each node, for a caller to make between runs.
    #[inline]
    pub fn check_cancelled(&self) -> Result<(), EvalError> {
        if self.ctx.is_cancelled() {
            Err(EvalError::Cancelled)
        } else {
            Ok(())
        }
    }

    /// Run node `n` once on `inputs` (one value per declared input, in order), writing its
    /// outputs into `out` (one slot per declared output): the op's rules checked first, then
    /// its `execute` with a panic caught. A failure is [`EvalError::Node`] (naming node, op
    /// and port), [`EvalError::Panic`] (with the panic's message) or
    /// [`EvalError::Cancelled`] (the op saw the token fire).
    #[inline]
    pub fn run(&self, n: usize, inputs: &[Value], out: &mut [Value]) -> Result<(), EvalError> {
        execute_node(self.plan, n, inputs, self.ctx, out)
    }

    /// Run `f`, work that stands for node `n` (its op's scalar kernel over a batch, say),
    /// with a panic caught and made node `n`'s [`EvalError::Panic`].
    pub fn guard<T>(&self, n: usize, f: impl FnOnce() -> T) -> Result<T, EvalError> {
        catch_unwind(AssertUnwindSafe(f)).map_err(|p| failed_panic(self.plan, n, p))
    }
}
