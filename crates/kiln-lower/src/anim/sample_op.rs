//! The `curve.sample` op: a keyframed curve sampled at the clock, keyed by the sampled
//! value.

use super::curve::{Curve, CurveError};
use kiln_core::context::EvalContext;
use kiln_core::key::KeyHasher;
use kiln_core::op::OpError;
use kiln_core::op::rule::{Rule, RuleEnv, Violation};
use kiln_core::value::{Value, ValueType};

/// A keyframed curve's value at the clock's time. Keyed by the value sampled, so where the
/// curve holds still nothing downstream cooks again.
#[kiln_core::op(
    "curve.sample",
    reads = "time",
    out_type = ValueType::Any,
    infer = curve_type,
    hash_context = hash_sample,
    out = "the value at the clock's time (of the keys' type)"
)]
pub fn curve_sample(
    #[param(
        "the keys: [t, v] each, or [t, v, [dt, dv], [dt, dv]] with Bézier handles",
        ty = ValueType::List,
        rule = Rule::Check(keys_rule),
        plan_time
    )]
    keys: &Value,
    #[param(
        "step, linear or bezier",
        default = "linear",
        rule = Rule::OneOf(&["step", "linear", "bezier"]),
        plan_time
    )]
    interp: &str,
    ctx: &EvalContext,
) -> Result<Value, OpError> {
    let c = Curve::from_params(keys, &Value::str(interp)).map_err(|e| match e {
        CurveError::BadInterp(_) => OpError::param(1, e.to_string()),
        e => OpError::param(0, e.to_string()),
    })?;
    Ok(c.sample(ctx.time))
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

/// The output's type: the keys' (a curve that cannot be made is its params' rules' to
/// report).
fn curve_type(_inputs: &[Option<ValueType>], params: &[Value]) -> Result<Vec<ValueType>, String> {
    Ok(vec![
        curve(params)
            .map(|c| c.kind().value_type())
            .unwrap_or(ValueType::Any),
    ])
}

/// The value sampled at the context's time, not the time: where the curve holds still, the
/// node keys equal.
fn hash_sample(params: &[Value], ctx: &EvalContext, h: &mut KeyHasher) {
    match curve(params) {
        Ok(c) => {
            h.u8(1);
            c.sample(ctx.time).hash_into(h);
        }
        // A bad curve fails the same way at every time.
        Err(_) => h.u8(0),
    }
}
