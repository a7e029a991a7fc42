//! The op type every audio node is: a spec and a function that builds its processor.

use kiln_core::op::{Op, OpCall, OpError, OpSpec};
use kiln_core::signal::{SignalCall, SignalProc, streaming_only};
use kiln_core::value::Value;

/// Builds a signal op's processor from what the streaming evaluator knows of the node.
pub(crate) type BuildFn = fn(&SignalCall<'_>) -> Result<Box<dyn SignalProc>, OpError>;

/// A signal op made of a spec and a processor builder.
pub(crate) struct SignalOp {
    spec: OpSpec,
    build: BuildFn,
}

impl SignalOp {
    pub(crate) fn new(spec: OpSpec, build: BuildFn) -> Self {
        SignalOp { spec, build }
    }
}

impl Op for SignalOp {
    fn spec(&self) -> &OpSpec {
        &self.spec
    }
    fn execute(&self, _call: &OpCall<'_>, _out: &mut [Value]) -> Result<(), OpError> {
        Err(streaming_only(&self.spec.id))
    }
    fn signal(&self, call: &SignalCall<'_>) -> Result<Box<dyn SignalProc>, OpError> {
        (self.build)(call)
    }
}
