//! An op made of a spec and a plain function: the form of the ops `#[kiln_core::op]` cannot
//! write yet (an input that was a param, an input taking an image or a number).

use kiln_core::op::{Op, OpCall, OpError, OpSpec};
use kiln_core::value::Value;

/// Signature of an op body.
pub(crate) type ExecFn = fn(&OpCall<'_>, &mut [Value]) -> Result<(), OpError>;

/// An op made of a spec and a function; its outputs have the types the spec declares.
pub(crate) struct FnOp {
    spec: OpSpec,
    exec: ExecFn,
}

impl FnOp {
    pub(crate) fn new(spec: OpSpec, exec: ExecFn) -> Self {
        FnOp { spec, exec }
    }
}

impl Op for FnOp {
    fn spec(&self) -> &OpSpec {
        &self.spec
    }
    #[inline]
    fn execute(&self, call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
        (self.exec)(call, out)
    }
}
