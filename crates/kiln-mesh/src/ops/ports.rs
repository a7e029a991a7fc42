//! Reading an op call's mesh, vector and count ports.

use crate::geometry::Mesh;
use glam::{Vec2, Vec3};
use kiln_core::op::{OpCall, OpError, Rule, RuleEnv};
use kiln_core::value::Value;

/// Input `i` as a mesh.
pub(crate) fn mesh<'a>(call: &'a OpCall<'_>, i: usize) -> Result<&'a Mesh, OpError> {
    call.heavy::<Mesh>(i, "a mesh")
}

fn as_vec3(v: Option<&Value>) -> Option<Vec3> {
    match v? {
        Value::Vec3(a) => Some(Vec3::new(a[0] as f32, a[1] as f32, a[2] as f32)),
        Value::Float(x) => Some(Vec3::splat(*x as f32)),
        Value::Int(x) => Some(Vec3::splat(*x as f32)),
        Value::List(items) if items.len() == 3 => {
            let f: Option<Vec<f64>> = items.iter().map(|x| x.as_f64()).collect();
            f.map(|f| Vec3::new(f[0] as f32, f[1] as f32, f[2] as f32))
        }
        _ => None,
    }
}

/// A vec3 port read leniently (a number stands for the same number on every axis, a list of
/// three numbers for the vector), for ops written with `#[op]`.
pub(crate) struct V3(pub Vec3);

impl<'a> kiln_core::op::port::FromPort<'a> for V3 {
    fn port_type() -> kiln_core::value::ValueType {
        kiln_core::value::ValueType::Vec3
    }
    fn from_port(v: &'a Value) -> Option<Self> {
        as_vec3(Some(v)).map(V3)
    }
}

impl kiln_core::op::port::IntoPort for V3 {
    fn port_type() -> kiln_core::value::ValueType {
        kiln_core::value::ValueType::Vec3
    }
    fn into_port(self) -> Value {
        Value::Vec3([self.0.x as f64, self.0.y as f64, self.0.z as f64])
    }
}

/// A list item as a point: a vec3 or a list of three numbers.
pub(crate) fn point(v: &Value) -> Option<Vec3> {
    as_vec3(Some(v)).filter(|_| !matches!(v, Value::Float(_) | Value::Int(_)))
}

fn found(v: Option<&Value>) -> &'static str {
    v.map_or("nothing", |v| v.type_name())
}

/// Input `i` as four floats: a number (in the first), a vector or a colour.
pub(crate) fn vec4(call: &OpCall<'_>, i: usize) -> Result<glam::Vec4, OpError> {
    let v = call.inputs.get(i);
    let f = |x: f64| x as f32;
    match v {
        Some(Value::Vec2(a)) => Ok(glam::Vec4::new(f(a[0]), f(a[1]), 0.0, 0.0)),
        Some(Value::Vec3(a)) => Ok(glam::Vec4::new(f(a[0]), f(a[1]), f(a[2]), 0.0)),
        Some(Value::Vec4(a)) => Ok(glam::Vec4::new(f(a[0]), f(a[1]), f(a[2]), f(a[3]))),
        Some(Value::Color(c)) => Ok(glam::Vec4::from_array(*c)),
        Some(x) if x.as_f64().is_some() => {
            Ok(glam::Vec4::new(f(x.as_f64().unwrap_or(0.0)), 0.0, 0.0, 0.0))
        }
        _ => Err(OpError::input(
            i,
            format!("expected a number or vector, found {}", found(v)),
        )),
    }
}

/// Param `i` as an attribute class name (`point`, `vertex`, `primitive`, `detail`).
pub(crate) fn class(call: &OpCall<'_>, i: usize) -> Result<crate::AttribClass, OpError> {
    let s = call.param_str(i)?;
    crate::AttribClass::parse(s).ok_or_else(|| {
        OpError::param(
            i,
            format!("expected point, vertex, primitive or detail, found `{s}`"),
        )
    })
}

/// Output slot 0 set to `mesh`.
pub(crate) fn put(out: &mut [Value], mesh: Mesh) {
    out[0] = mesh.into_value();
}

/// Input `i` as a vec2 (a number stands for the same number on both axes).
pub(crate) fn vec2(call: &OpCall<'_>, i: usize) -> Result<Vec2, OpError> {
    match call.inputs.get(i) {
        Some(Value::Vec2(a)) => Ok(Vec2::new(a[0] as f32, a[1] as f32)),
        Some(v) if v.as_f64().is_some() => Ok(Vec2::splat(v.as_f64().unwrap_or(0.0) as f32)),
        v => Err(OpError::input(
            i,
            format!("expected vec2, found {}", found(v)),
        )),
    }
}

/// Input `i` as an f32.
pub(crate) fn float(call: &OpCall<'_>, i: usize) -> Result<f32, OpError> {
    call.float(i).map(|x| x as f32)
}

/// Param `i` as a count that keeps `rule` (an int range), the rule the op declares for
/// the param (see [`kiln_core::op::rule`]): the same check, with the same message, as
/// validation and the evaluators apply, for the callers that run the body directly.
pub(crate) fn count(call: &OpCall<'_>, i: usize, rule: Rule) -> Result<u32, OpError> {
    let n = call.param_int(i)?;
    rule.check(&Value::Int(n), &RuleEnv::default())
        .map_err(|e| OpError::param(i, e.to_string()))?;
    u32::try_from(n).map_err(|_| OpError::param(i, format!("expected a count, found {n}")))
}

/// Param `i` as a seed (any integer, its bits kept).
pub(crate) fn seed(call: &OpCall<'_>, i: usize) -> Result<u64, OpError> {
    call.param_int(i).map(|s| s as u64)
}

/// Param `i` as one of `choices`, or an error listing them.
pub(crate) fn choice<'a>(
    call: &OpCall<'_>,
    i: usize,
    choices: &[&'a str],
) -> Result<&'a str, OpError> {
    let s = call.param_str(i)?;
    choices.iter().copied().find(|c| *c == s).ok_or_else(|| {
        OpError::param(
            i,
            format!("expected one of {}, found `{s}`", choices.join(", ")),
        )
    })
}
