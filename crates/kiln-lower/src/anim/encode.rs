//! A curve as node params: `keys` (a list of keys) and `interp` (a string).

use super::curve::{Curve, CurveError, CurveKey, Handle, Interp};
use kiln_core::value::Value;
use std::sync::Arc;

impl Curve {
    /// Read a curve from the `keys` and `interp` params (the format is in the [module
    /// docs](super)).
    pub fn from_params(keys: &Value, interp: &Value) -> Result<Curve, CurveError> {
        let interp = match interp {
            Value::Str(s) => {
                Interp::parse(s).ok_or_else(|| CurveError::BadInterp(format!("`{s}`")))?
            }
            other => return Err(CurveError::BadInterp(format!("a {}", other.type_name()))),
        };
        let list = keys
            .as_list()
            .ok_or(CurveError::NotAList(keys.type_name()))?;
        let keys = list
            .iter()
            .enumerate()
            .map(|(index, k)| read_key(index, k))
            .collect::<Result<Vec<_>, _>>()?;
        Curve::new(interp, keys)
    }

    /// The `keys` param of this curve: `[t, v]` per key, or `[t, v, [dt, dv], [dt, dv]]` for
    /// a key with explicit handles. [`Curve::from_params`] reads it back to an equal curve.
    pub fn to_value(&self) -> Value {
        let keys: Vec<Value> = self
            .keys()
            .iter()
            .map(|k| {
                let mut parts = vec![Value::Float(k.time), k.value.clone()];
                if let Some((l, r)) = &k.handles {
                    for h in [l, r] {
                        parts.push(list(vec![Value::Float(h.dt), h.dv.clone()]));
                    }
                }
                list(parts)
            })
            .collect();
        list(keys)
    }

    /// The `interp` param of this curve.
    pub fn interp_value(&self) -> Value {
        Value::str(self.interp().name())
    }
}

fn list(items: Vec<Value>) -> Value {
    Value::List(Arc::from(items))
}

fn bad(index: usize, problem: impl Into<String>) -> CurveError {
    CurveError::BadKey {
        index,
        problem: problem.into(),
    }
}

/// One key: `[t, v]` or `[t, v, left, right]`.
fn read_key(index: usize, k: &Value) -> Result<CurveKey, CurveError> {
    let shape = "a key is [t, v] or [t, v, [dt, dv], [dt, dv]] (explicit Bézier handles)";
    let parts = k.as_list().ok_or_else(|| bad(index, shape))?;
    let time = |v: &Value, what: &str| {
        v.as_f64().ok_or_else(|| {
            bad(
                index,
                format!("{what} must be a number, found {}", v.type_name()),
            )
        })
    };
    match parts {
        [t, v] => Ok(CurveKey::new(time(t, "the time")?, v.clone())),
        [t, v, left, right] => {
            let handle = |h: &Value, side: &str| match h.as_list() {
                Some([dt, dv]) => Ok(Handle {
                    dt: time(dt, &format!("the {side} handle's time offset"))?,
                    dv: dv.clone(),
                }),
                _ => Err(bad(index, format!("the {side} handle must be [dt, dv]"))),
            };
            Ok(CurveKey::new(time(t, "the time")?, v.clone())
                .with_handles(handle(left, "left")?, handle(right, "right")?))
        }
        _ => Err(bad(index, shape)),
    }
}
