//! The Rust types of ports, for ops written as one function with the `#[op]` attribute of
//! `kiln-macros`: what each type is as a port ([`ValueType`]), how a value at an input or a
//! param is read as it ([`FromPort`]), and how a returned value becomes an output
//! ([`IntoPort`]). A heavy type (an image, a mesh) is a port type through [`HeavyPort`].

use crate::value::{Heavy, HeavyData, Value, ValueType};
use std::sync::Arc;

/// A value read from an input or a param as a Rust type.
pub trait FromPort<'a>: Sized {
    /// The port's type.
    fn port_type() -> ValueType;
    /// The value as this type, or `None` when it is not one.
    fn from_port(v: &'a Value) -> Option<Self>;
}

/// A Rust value given as an output.
pub trait IntoPort {
    /// The output's type.
    fn port_type() -> ValueType;
    /// The value.
    fn into_port(self) -> Value;
}

/// A heavy value type that ports can carry (read by reference, returned by value).
pub trait HeavyPort: HeavyData + Sized {
    /// Its port type (`ValueType::Heavy` of its registered name).
    const TYPE: ValueType;
}

macro_rules! plain {
    ($t:ty, $ty:expr, $read:expr, $write:expr) => {
        impl<'a> FromPort<'a> for $t {
            fn port_type() -> ValueType {
                $ty
            }
            fn from_port(v: &'a Value) -> Option<Self> {
                $read(v)
            }
        }
        impl IntoPort for $t {
            fn port_type() -> ValueType {
                $ty
            }
            fn into_port(self) -> Value {
                $write(self)
            }
        }
    };
}

plain!(f64, ValueType::Float, Value::as_f64, Value::Float);
plain!(i64, ValueType::Int, Value::as_i64, Value::Int);
plain!(bool, ValueType::Bool, Value::as_bool, Value::Bool);
plain!(
    [f64; 2],
    ValueType::Vec2,
    |v: &Value| match v {
        Value::Vec2(x) => Some(*x),
        _ => None,
    },
    Value::Vec2
);
plain!(
    [f64; 3],
    ValueType::Vec3,
    |v: &Value| match v {
        Value::Vec3(x) => Some(*x),
        _ => None,
    },
    Value::Vec3
);
plain!(
    [f64; 4],
    ValueType::Vec4,
    |v: &Value| match v {
        Value::Vec4(x) => Some(*x),
        _ => None,
    },
    Value::Vec4
);
plain!([f32; 4], ValueType::Color, Value::as_color, Value::Color);

impl<'a> FromPort<'a> for &'a str {
    fn port_type() -> ValueType {
        ValueType::String
    }
    fn from_port(v: &'a Value) -> Option<Self> {
        v.as_str()
    }
}

impl IntoPort for String {
    fn port_type() -> ValueType {
        ValueType::String
    }
    fn into_port(self) -> Value {
        Value::str(&self)
    }
}

impl<'a> FromPort<'a> for &'a [Value] {
    fn port_type() -> ValueType {
        ValueType::List
    }
    fn from_port(v: &'a Value) -> Option<Self> {
        v.as_list()
    }
}

impl IntoPort for Vec<Value> {
    fn port_type() -> ValueType {
        ValueType::List
    }
    fn into_port(self) -> Value {
        Value::List(Arc::from(self))
    }
}

/// Any value, as it is (an `any` port).
impl<'a> FromPort<'a> for &'a Value {
    fn port_type() -> ValueType {
        ValueType::Any
    }
    fn from_port(v: &'a Value) -> Option<Self> {
        Some(v)
    }
}

impl IntoPort for Value {
    fn port_type() -> ValueType {
        ValueType::Any
    }
    fn into_port(self) -> Value {
        self
    }
}

impl<'a, T: HeavyPort> FromPort<'a> for &'a T {
    fn port_type() -> ValueType {
        T::TYPE
    }
    fn from_port(v: &'a Value) -> Option<Self> {
        v.as_heavy::<T>()
    }
}

/// A heavy result, given as an output.
impl<T: HeavyPort> IntoPort for T {
    fn port_type() -> ValueType {
        T::TYPE
    }
    fn into_port(self) -> Value {
        Value::Heavy(Heavy::new(self))
    }
}

/// A signal input of a signal op (`#[op(.., signal)]`), as its processor builder sees it:
/// the constant the node was given (a constant signal), or `None` when another signal op
/// feeds it (its samples reach the processor, not the builder).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SignalIn(pub Option<f64>);

impl<'a> FromPort<'a> for SignalIn {
    fn port_type() -> ValueType {
        ValueType::Signal
    }
    fn from_port(v: &'a Value) -> Option<Self> {
        match v {
            Value::Empty => Some(SignalIn(None)),
            v => v.as_f64().map(|x| SignalIn(Some(x))),
        }
    }
}

/// What an op function returns: one output, several (a tuple), or either in a `Result`.
pub trait IntoOutputs {
    /// The outputs' types, in order.
    fn types() -> Vec<ValueType>;
    /// Write the outputs into `out` (one slot each), or the op's error.
    fn write(self, out: &mut [Value]) -> Result<(), super::OpError>;
}

impl<T: IntoPort> IntoOutputs for T {
    fn types() -> Vec<ValueType> {
        vec![T::port_type()]
    }
    fn write(self, out: &mut [Value]) -> Result<(), super::OpError> {
        if let Some(slot) = out.first_mut() {
            *slot = self.into_port();
        }
        Ok(())
    }
}

/// Several outputs, in order.
macro_rules! tuple_outputs {
    ($($t:ident $i:tt),+) => {
        impl<$($t: IntoPort),+> IntoOutputs for ($($t,)+) {
            fn types() -> Vec<ValueType> {
                vec![$($t::port_type()),+]
            }
            fn write(self, out: &mut [Value]) -> Result<(), super::OpError> {
                $(if let Some(slot) = out.get_mut($i) {
                    *slot = self.$i.into_port();
                })+
                Ok(())
            }
        }
    };
}
tuple_outputs!(A 0, B 1);
tuple_outputs!(A 0, B 1, C 2);
tuple_outputs!(A 0, B 1, C 2, D 3);

/// A fallible result: an error fails the node (named by the evaluator).
pub struct Fallible<T>(pub Result<T, super::OpError>);

impl<T: IntoOutputs> IntoOutputs for Fallible<T> {
    fn types() -> Vec<ValueType> {
        T::types()
    }
    fn write(self, out: &mut [Value]) -> Result<(), super::OpError> {
        self.0?.write(out)
    }
}

/// Input `i` of `inputs` as `T`, or an error naming the port (what the `#[op]` attribute's
/// code calls for each input).
#[inline]
pub fn input<'a, T: FromPort<'a>>(inputs: &'a [Value], i: usize) -> Result<T, super::OpError> {
    let v = inputs.get(i).unwrap_or(&Value::Empty);
    T::from_port(v).ok_or_else(|| {
        super::OpError::input(
            i,
            format!(
                "expected {}, found {}",
                T::port_type().name(),
                v.type_name()
            ),
        )
    })
}

/// Param `i` of `params` as `T`, or an error naming it.
#[inline]
pub fn param<'a, T: FromPort<'a>>(params: &'a [Value], i: usize) -> Result<T, super::OpError> {
    let v = params.get(i).unwrap_or(&Value::Empty);
    T::from_port(v).ok_or_else(|| {
        super::OpError::param(
            i,
            format!(
                "expected {}, found {}",
                T::port_type().name(),
                v.type_name()
            ),
        )
    })
}

/// Param `i` of `params` against its rule in `spec`, if it has one: the same check, and
/// message, as validation and the evaluators, for callers that run an op's body directly.
#[inline]
pub fn check_param(spec: &super::OpSpec, params: &[Value], i: usize) -> Result<(), super::OpError> {
    match (
        spec.params.get(i).and_then(|p| p.rule.as_ref()),
        params.get(i),
    ) {
        (Some(rule), Some(v)) => rule
            .check(v, &super::RuleEnv::default())
            .map_err(|e| super::OpError::param(i, e.to_string())),
        _ => Ok(()),
    }
}
