//! The op type every audio node is: a spec and a function that builds its processor, once
//! the node's params and constants follow the spec's rules.

use kiln_core::op::{OpError, OpSpec};
use kiln_core::signal::{SignalCall, SignalOp, SignalProc};

/// Builds a signal op's processor from what the streaming evaluator knows of the node.
pub(crate) type BuildFn = fn(&SignalCall<'_>) -> Result<Box<dyn SignalProc>, OpError>;

/// A signal op made of a spec and a processor builder.
pub(crate) struct AudioOp {
    spec: OpSpec,
    build: BuildFn,
}

impl AudioOp {
    pub(crate) fn new(spec: OpSpec, build: BuildFn) -> Self {
        AudioOp { spec, build }
    }
}

impl SignalOp for AudioOp {
    fn spec(&self) -> &OpSpec {
        &self.spec
    }
    fn build(&self, call: &SignalCall<'_>) -> Result<Box<dyn SignalProc>, OpError> {
        // The rules first, so a processor built outside a stream refuses what a stream does.
        call.check_rules(&self.spec)?;
        (self.build)(call)
    }
}
