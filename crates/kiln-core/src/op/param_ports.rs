//! Params driven by wires: every param of an op is also an input port of its name. A node
//! none of whose params is wired runs its op as it is, reading params as constants, at no
//! cost. A node with wires into params runs its op through [`ParamPorts`], an op whose
//! spec is the inner op's with one more input per wired param (after the op's own
//! inputs); it reads those inputs, checks them against the params' rules, and runs the
//! inner op with them in place of the constants.
//!
//! A param marked [`plan_time`](super::ParamSpec::plan_time) shapes the node before it
//! runs, so it takes no wire here: validation refuses one, naming node, port and source.
//! The plan (`kiln_lower`) writes the values it knows (constants, graph inputs, a scope's
//! item) into params before the engine sees the graph.

use super::{InputSpec, Op, OpCall, OpError, OpSpec, PortIndex, rule};
use crate::value::{Value, ValueType};
use std::sync::Arc;

/// An op whose params `bound` are read from inputs appended after its own (see the module
/// docs).
pub struct ParamPorts {
    inner: Arc<dyn Op>,
    /// Indices of the wired params, in the order of the inputs appended for them.
    bound: Vec<usize>,
    spec: OpSpec,
}

impl ParamPorts {
    /// Wrap `inner` so that its params `bound` (indices into its params, each once) are
    /// inputs. Indices out of range are ignored.
    pub fn new(inner: Arc<dyn Op>, bound: &[usize]) -> ParamPorts {
        let mut spec = inner.spec().clone();
        let mut kept = Vec::with_capacity(bound.len());
        for &i in bound {
            let Some(p) = inner.spec().params.get(i) else {
                continue;
            };
            if kept.contains(&i) {
                continue;
            }
            kept.push(i);
            let mut input = InputSpec::required("", p.ty, "").was_param();
            input.name = p.name.clone();
            input.doc = p.doc.clone();
            input.rule = p.rule;
            spec.inputs.push(input);
        }
        ParamPorts {
            inner,
            bound: kept,
            spec,
        }
    }

    /// The op wrapped.
    pub fn inner(&self) -> &Arc<dyn Op> {
        &self.inner
    }

    /// How many inputs the inner op has (the wired params' inputs come after them).
    fn own_inputs(&self) -> usize {
        self.inner.spec().inputs.len()
    }

    /// The params with the wired ones taken from `inputs`; an int read for a float param as
    /// that float (the one conversion a wire makes).
    fn params(&self, call: &OpCall<'_>) -> Vec<Value> {
        let mut params = call.params.to_vec();
        let n = self.own_inputs();
        for (k, &i) in self.bound.iter().enumerate() {
            let v = call.inputs.get(n + k).cloned().unwrap_or(Value::Empty);
            params[i] = self.inner.spec().params[i].ty.conform(v);
        }
        params
    }

    /// An error of the inner op about a wired param, said about its input.
    fn port_of(&self, mut e: OpError) -> OpError {
        if let Some(PortIndex::Param(i)) = e.port
            && let Some(k) = self.bound.iter().position(|&b| b == i)
        {
            e.port = Some(PortIndex::Input(self.own_inputs() + k));
        }
        e
    }
}

impl Op for ParamPorts {
    fn spec(&self) -> &OpSpec {
        &self.spec
    }

    fn execute(&self, call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
        let n = self.own_inputs();
        let params = self.params(call);
        if let Some(e) = call
            .inputs
            .get(n..)
            .unwrap_or(&[])
            .iter()
            .find_map(|v| match v {
                Value::Error(e) => Some(e.clone()),
                _ => None,
            })
        {
            return Err(OpError::new(e.to_string()));
        }
        rule::check_params(self.inner.spec(), &params, &rule::RuleEnv::default())
            .map_err(|e| self.port_of(e))?;
        let inner = OpCall {
            inputs: &call.inputs[..n.min(call.inputs.len())],
            params: &params,
            ctx: call.ctx,
            node: call.node,
        };
        self.inner.execute(&inner, out).map_err(|e| self.port_of(e))
    }

    fn next_lazy(&self, call: &OpCall<'_>, pulled: &[bool]) -> Result<Option<usize>, OpError> {
        let n = self.own_inputs();
        let params = self.params(call);
        let inner = OpCall {
            inputs: &call.inputs[..n.min(call.inputs.len())],
            params: &params,
            ctx: call.ctx,
            node: call.node,
        };
        self.inner.next_lazy(&inner, &pulled[..n.min(pulled.len())])
    }

    fn infer_outputs(
        &self,
        inputs: &[Option<ValueType>],
        params: &[Value],
    ) -> Result<Vec<ValueType>, String> {
        let n = self.own_inputs();
        self.inner
            .infer_outputs(&inputs[..n.min(inputs.len())], params)
    }

    fn hash_context(
        &self,
        params: &[Value],
        ctx: &crate::context::EvalContext,
        h: &mut crate::key::KeyHasher,
    ) {
        self.inner.hash_context(params, ctx, h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// x times k
    #[crate::op("t.scale", out = "x k")]
    fn scale_by(
        #[input("x")] x: f64,
        #[param("k", default = 2.0, range = 0.0..=10.0)] k: f64,
    ) -> f64 {
        x * k
    }

    fn scale() -> Arc<dyn Op> {
        Arc::new(ScaleByOp::new())
    }

    fn run(op: &dyn Op, inputs: &[Value]) -> Result<Value, OpError> {
        let ctx = crate::context::EvalContext::new();
        let mut out = [Value::Empty];
        op.execute(
            &OpCall {
                inputs,
                params: &[Value::Float(2.0)],
                ctx: &ctx,
                node: "n",
            },
            &mut out,
        )?;
        Ok(out[0].clone())
    }

    #[test]
    fn a_wired_param_is_an_input_after_the_ops_own() {
        let op = ParamPorts::new(scale(), &[0, 0, 7]);
        let names: Vec<&str> = op.spec().inputs.iter().map(|i| &*i.name).collect();
        assert_eq!(names, ["x", "k"]);
        assert!(op.spec().inputs[1].was_param);
        assert_eq!(
            run(&op, &[Value::Float(3.0), Value::Int(4)]),
            Ok(Value::Float(12.0))
        );
        // The same bits as the constant.
        let inner = scale();
        assert_eq!(
            run(&op, &[Value::Float(3.0), Value::Float(2.0)]),
            run(inner.as_ref(), &[Value::Float(3.0)])
        );
    }

    #[test]
    fn a_wired_value_breaking_the_params_rule_names_its_port() {
        let op = ParamPorts::new(scale(), &[0]);
        let e = run(&op, &[Value::Float(3.0), Value::Float(40.0)]).unwrap_err();
        assert_eq!(e.port, Some(PortIndex::Input(1)));
        assert_eq!(op.spec().port_name(e.port.unwrap()), "input `k`");
    }
}
