//! Small helpers for defining ops from closures.

use kiln_core::op::{Columns, Kernel, Op, OpCall, OpError, OpSpec};
use kiln_core::value::{Value, ValueType};

/// Signature of an op body.
pub(crate) type ExecFn = fn(&OpCall<'_>, &mut [Value]) -> Result<(), OpError>;
/// Signature of an output-type inference function.
pub(crate) type InferFn = fn(&[Option<ValueType>], &[Value]) -> Result<Vec<ValueType>, String>;

/// Signature of a kernel chooser (see [`Op::kernel`]).
pub(crate) type KernelFn = fn(&[Option<ValueType>], &[Value]) -> Option<Kernel>;
/// Signature of a column-kernel chooser (see [`Op::columns`]).
pub(crate) type ColumnsFn = fn(&[Option<ValueType>], &[Value]) -> Option<Columns>;

/// An op made of a spec and plain functions.
pub(crate) struct FnOp {
    pub spec: OpSpec,
    pub exec: ExecFn,
    pub infer: Option<InferFn>,
    pub kernel: Option<KernelFn>,
    pub columns: Option<ColumnsFn>,
}

impl FnOp {
    pub(crate) fn new(spec: OpSpec, exec: ExecFn) -> Self {
        FnOp {
            spec,
            exec,
            infer: None,
            kernel: None,
            columns: None,
        }
    }
    /// Offer a scalar kernel: `f` must return the very function `exec` applies to floats.
    pub(crate) fn kernel(mut self, f: KernelFn) -> Self {
        self.kernel = Some(f);
        self
    }
    /// Offer the kernel's column forms: `f` must return them made from the same function.
    pub(crate) fn columns(mut self, f: ColumnsFn) -> Self {
        self.columns = Some(f);
        self
    }
    pub(crate) fn infer(mut self, f: InferFn) -> Self {
        self.infer = Some(f);
        self
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
    fn kernel(&self, inputs: &[Option<ValueType>], params: &[Value]) -> Option<Kernel> {
        self.kernel.and_then(|f| f(inputs, params))
    }
    fn columns(&self, inputs: &[Option<ValueType>], params: &[Value]) -> Option<Columns> {
        self.columns.and_then(|f| f(inputs, params))
    }
    fn infer_outputs(
        &self,
        inputs: &[Option<ValueType>],
        params: &[Value],
    ) -> Result<Vec<ValueType>, String> {
        match self.infer {
            Some(f) => f(inputs, params),
            None => Ok(self.spec.outputs.iter().map(|o| o.ty).collect()),
        }
    }
}
