//! Params animated by curves: the plan samples each at its clock, and records where it put
//! it, so a caller that moves the clock (a render's ticks) can sample them again in place
//! ([`AnimatedParam::apply`]: a value edit) instead of planning again.

use crate::anim::Curve;
use kiln_core::graph::{Graph, GraphError, NodeId};
use kiln_core::value::{Value, ValueType};

/// A param of a flat node animated by a curve.
#[derive(Clone, Debug, PartialEq)]
pub struct AnimatedParam {
    /// The flat node.
    pub node: NodeId,
    /// Its param.
    pub param: String,
    /// The curve.
    pub curve: Curve,
    /// The param's declared type (an int param takes the sample rounded to the nearest).
    pub ty: Option<ValueType>,
    /// The op has no such param but an input of the name (a param made wireable since, its
    /// value given as a param by older files): the curve sets that input's constant.
    pub input: bool,
}

impl AnimatedParam {
    /// The param's value at `time`.
    pub fn at(&self, time: f64) -> Value {
        as_param(self.curve.sample(time), self.ty)
    }

    /// Set the param (or the input's constant, see [`AnimatedParam::input`]) in `graph` to its
    /// value at `time` when that differs from what it holds (a value edit); `Ok(true)` when it
    /// changed.
    pub fn apply(&self, graph: &mut Graph, time: f64) -> Result<bool, GraphError> {
        let v = self.at(time);
        let same = graph
            .node(&self.node)
            .and_then(|n| match self.input {
                true => n.consts.get(&self.param),
                false => n.params.get(&self.param),
            })
            .is_some_and(|old| old.same_bits(&v));
        if !same {
            if self.input {
                graph.set_const(&self.node, &self.param, v)?;
            } else {
                graph.set_param(&self.node, &self.param, v)?;
            }
        }
        Ok(!same)
    }
}

/// A curve's sample as a value of param type `ty`: an int param takes it rounded to the
/// nearest (half away from zero), saturating.
pub(crate) fn as_param(v: Value, ty: Option<ValueType>) -> Value {
    match (ty, v) {
        (Some(ValueType::Int), Value::Float(f)) if f.is_finite() => Value::Int(f.round() as i64),
        (_, v) => v,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_int_param_takes_the_nearest_int() {
        assert_eq!(
            as_param(Value::Float(2.5), Some(ValueType::Int)),
            Value::Int(3)
        );
        assert_eq!(
            as_param(Value::Float(-2.5), Some(ValueType::Int)),
            Value::Int(-3)
        );
        assert_eq!(
            as_param(Value::Float(2.49), Some(ValueType::Int)),
            Value::Int(2)
        );
        assert_eq!(
            as_param(Value::Float(2.5), Some(ValueType::Float)),
            Value::Float(2.5)
        );
    }
}
