//! The `curve.sample` op: a keyframed curve sampled at the clock, keyed by the sampled
//! value.

use super::CURVE_SAMPLE_OP;
use super::curve::{Curve, CurveError};
use kiln_core::context::EvalContext;
use kiln_core::key::KeyHasher;
use kiln_core::op::rule::{Rule, RuleEnv, Violation};
use kiln_core::op::{Op, OpCall, OpError, OpSpec, OutputSpec, ParamSpec, Reads};
use kiln_core::value::{Value, ValueType};

/// The `curve.sample` op (see the [module docs](super)).
pub struct CurveSampleOp(OpSpec);

impl Default for CurveSampleOp {
    fn default() -> Self {
        CurveSampleOp(
            OpSpec::new(
                CURVE_SAMPLE_OP,
                "A keyframed curve's value at the clock's time. Keyed by the value sampled, so \
                 where the curve holds still nothing downstream cooks again.",
            )
            .param(
                ParamSpec::required(
                    "keys",
                    ValueType::List,
                    "the keys: [t, v] each, or [t, v, [dt, dv], [dt, dv]] with Bézier handles",
                )
                .plan_time()
                .with_rule(Rule::Check(keys_rule)),
            )
            .param(
                ParamSpec::new(
                    "interp",
                    ValueType::String,
                    Value::str("linear"),
                    "step, linear or bezier",
                )
                .plan_time()
                .with_rule(Rule::OneOf(&["step", "linear", "bezier"])),
            )
            .output(OutputSpec::new(
                "out",
                ValueType::Any,
                "the value at the clock's time (of the keys' type)",
            ))
            .reads(Reads::TIME),
        )
    }
}

/// The rule of `keys`: they make a curve (checked with linear interpolation; the handles
/// of Bézier keys are checked the same way).
fn keys_rule(keys: &Value, _env: &RuleEnv) -> Result<(), Violation> {
    Curve::from_params(keys, &Value::str("linear"))
        .map(|_| ())
        .map_err(|e| Violation::new("keys that make a curve", e.to_string()))
}

fn curve(params: &[Value]) -> Result<Curve, CurveError> {
    let empty = Value::Empty;
    Curve::from_params(
        params.first().unwrap_or(&empty),
        params.get(1).unwrap_or(&empty),
    )
}

impl Op for CurveSampleOp {
    fn spec(&self) -> &OpSpec {
        &self.0
    }

    fn execute(&self, call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
        let c = curve(call.params).map_err(|e| match e {
            CurveError::BadInterp(_) => OpError::param(1, e.to_string()),
            e => OpError::param(0, e.to_string()),
        })?;
        out[0] = c.sample(call.ctx.time);
        Ok(())
    }

    fn infer_outputs(
        &self,
        _inputs: &[Option<ValueType>],
        params: &[Value],
    ) -> Result<Vec<ValueType>, String> {
        // A curve that cannot be made is its params' rules' to report.
        Ok(vec![
            curve(params)
                .map(|c| c.kind().value_type())
                .unwrap_or(ValueType::Any),
        ])
    }

    /// The value sampled at the context's time, not the time: where the curve holds still,
    /// the node keys equal.
    fn hash_context(&self, params: &[Value], ctx: &EvalContext, h: &mut KeyHasher) {
        match curve(params) {
            Ok(c) => {
                h.u8(1);
                c.sample(ctx.time).hash_into(h);
            }
            // A bad curve fails the same way at every time.
            Err(_) => h.u8(0),
        }
    }
}
