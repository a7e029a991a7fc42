//! Shared test helpers: a registry with the standard ops plus `test.all`, an op with a param
//! and an input of every plain type.
#![allow(dead_code)]

use kiln_core::op::{InputSpec, Op, OpCall, OpError, OpSpec, OutputSpec, ParamSpec};
use kiln_core::registry::Registry;
use kiln_core::value::{Value, ValueType};
use std::sync::Arc;

/// Port / param names of `test.all` and their types.
pub const TYPED: [(&str, ValueType); 11] = [
    ("f", ValueType::Float),
    ("i", ValueType::Int),
    ("b", ValueType::Bool),
    ("v2", ValueType::Vec2),
    ("v3", ValueType::Vec3),
    ("v4", ValueType::Vec4),
    ("c", ValueType::Color),
    ("s", ValueType::String),
    ("l", ValueType::List),
    ("a", ValueType::Any),
    ("n", ValueType::Number),
];

pub fn default_of(ty: ValueType) -> Value {
    match ty {
        ValueType::Float | ValueType::Number => Value::Float(0.0),
        ValueType::Int => Value::Int(0),
        ValueType::Bool => Value::Bool(false),
        ValueType::Vec2 => Value::Vec2([0.0; 2]),
        ValueType::Vec3 => Value::Vec3([0.0; 3]),
        ValueType::Vec4 => Value::Vec4([0.0; 4]),
        ValueType::Color => Value::Color([0.0, 0.0, 0.0, 1.0]),
        ValueType::List => Value::List(Arc::from(Vec::new())),
        _ => Value::str(""),
    }
}

struct AllTypes(OpSpec);

impl Op for AllTypes {
    fn spec(&self) -> &OpSpec {
        &self.0
    }
    fn execute(&self, _call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
        out[0] = Value::Float(1.0);
        Ok(())
    }
}

/// The standard registry plus `test.all`.
pub fn registry() -> Registry {
    let mut spec = OpSpec::new("test.all", "Takes everything.").output(OutputSpec::new(
        "out",
        ValueType::Float,
        "one",
    ));
    for (name, ty) in TYPED {
        spec = spec
            .param(ParamSpec::new(name, ty, default_of(ty), "a param"))
            .input(InputSpec::optional(name, ty, default_of(ty), "an input"));
    }
    let mut reg = kiln_image::registry();
    reg.register(AllTypes(spec)).expect("test.all is new");
    reg
}

/// Exact value equality: floats bit for bit, any NaN equal to any NaN.
pub fn same(a: &Value, b: &Value) -> bool {
    fn f(a: f64, b: f64) -> bool {
        (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
    }
    fn all(a: &[f64], b: &[f64]) -> bool {
        a.iter().zip(b).all(|(x, y)| f(*x, *y))
    }
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => f(*x, *y),
        (Value::Vec2(x), Value::Vec2(y)) => all(x, y),
        (Value::Vec3(x), Value::Vec3(y)) => all(x, y),
        (Value::Vec4(x), Value::Vec4(y)) => all(x, y),
        (Value::Color(x), Value::Color(y)) => x
            .iter()
            .zip(y)
            .all(|(p, q)| (p.is_nan() && q.is_nan()) || p.to_bits() == q.to_bits()),
        (Value::List(x), Value::List(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| same(p, q))
        }
        _ => a == b,
    }
}
