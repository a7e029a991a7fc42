//! An op declared by a full [`OpSpec`] and a function, for ports the builder cannot declare
//! (inputs of any type with a default).

use kiln_core::op::{Op, OpCall, OpError, OpSpec};
use kiln_core::value::Value;

/// The body of a [`SpecOp`].
pub(crate) type Body = fn(&OpCall<'_>, &mut [Value]) -> Result<(), OpError>;

/// An op of a spec and a body.
pub(crate) struct SpecOp {
    pub(crate) spec: OpSpec,
    pub(crate) body: Body,
}

impl Op for SpecOp {
    fn spec(&self) -> &OpSpec {
        &self.spec
    }
    fn execute(&self, call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
        (self.body)(call, out)
    }
}
