//! Rectangles as `vec4` values `[x, y, w, h]` (corner and size): `rect.split` cuts one in
//! two along its longer side at a seeded ratio, `rect.small` routes a rectangle to one of
//! two outputs by its area, `rect.area` and `rect.inset`. With a flow graph's loop port they
//! subdivide a lot until every part is small (see `examples/parcels.json`).

use crate::util::FnOp;
use kiln_core::key::KeyHasher;
use kiln_core::op::{
    InputSpec, OpCall, OpError, OpSpec, OutputSpec, ParamSpec, Rule, RuleEnv, Violation,
};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};

/// The rectangle at input `i`: a `vec4` with finite corner and a finite size of at least 0.
fn rect(call: &OpCall<'_>, i: usize) -> Result<[f64; 4], OpError> {
    match call.inputs.get(i) {
        Some(Value::Vec4(r)) if r.iter().all(|c| c.is_finite()) && r[2] >= 0.0 && r[3] >= 0.0 => {
            Ok(*r)
        }
        Some(Value::Vec4(r)) => Err(OpError::input(
            i,
            format!(
                "a rectangle [x, y, w, h] needs finite numbers and a size of at least 0, found {r:?}"
            ),
        )),
        other => Err(OpError::input(
            i,
            format!(
                "expected a rectangle (vec4 [x, y, w, h]), found {}",
                other.map_or("nothing", Value::type_name)
            ),
        )),
    }
}

/// The ratio at which `rect.split` cuts `r`: `0.5 + spread * (2u - 1)`, `u` in `[0, 1)`
/// drawn from the rectangle's bits and `seed`, so the same rectangle always splits alike.
pub fn split_ratio(r: [f64; 4], seed: i64, spread: f64) -> f64 {
    let mut h = KeyHasher::new();
    h.str("rect.split");
    h.i64(seed);
    for c in r {
        h.f64(c);
    }
    let bits = (h.finish_key().0 >> 75) as u64; // the top 53 bits
    let u = bits as f64 / (1u64 << 53) as f64;
    0.5 + spread * (2.0 * u - 1.0)
}

/// The two parts of `r` cut across its longer side (its width when `w >= h`) at `t`.
pub fn split(r: [f64; 4], t: f64) -> ([f64; 4], [f64; 4]) {
    let [x, y, w, h] = r;
    if w >= h {
        let a = w * t;
        ([x, y, a, h], [x + a, y, w - a, h])
    } else {
        let a = h * t;
        ([x, y, w, a], [x, y + a, w, h - a])
    }
}

/// The rule of a rectangle: finite numbers and a size of at least 0.
pub fn rect_rule(v: &Value, _: &RuleEnv) -> Result<(), Violation> {
    match v {
        Value::Vec4(r) if r.iter().all(|c| c.is_finite()) && r[2] >= 0.0 && r[3] >= 0.0 => Ok(()),
        Value::Vec4(r) => Err(Violation::new(
            "a rectangle [x, y, w, h] of finite numbers with a size of at least 0",
            format!("{r:?}"),
        )),
        other => Err(Violation::new(
            "a rectangle (vec4 [x, y, w, h])",
            other.type_name(),
        )),
    }
}

fn rect_spec(id: &'static str, doc: &'static str) -> OpSpec {
    OpSpec::new(id, doc).input(
        InputSpec::optional(
            "rect",
            ValueType::Vec4,
            Value::Vec4([0.0, 0.0, 1.0, 1.0]),
            "the rectangle [x, y, w, h] (the unit square when unwired)",
        )
        .with_rule(Rule::Check(rect_rule)),
    )
}

/// Register `rect.split`, `rect.small`, `rect.area` and `rect.inset`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(FnOp::new(
        rect_spec(
            "rect.split",
            "Cut a rectangle in two across its longer side, at a ratio drawn from the \
             rectangle and `seed` within 0.5 ± `spread`.",
        )
        .param(ParamSpec::new(
            "seed",
            ValueType::Int,
            Value::Int(0),
            "varies the ratios",
        ))
        .param(
            ParamSpec::new(
                "spread",
                ValueType::Float,
                Value::Float(0.0),
                "how far the ratio may stray from one half (0: always halves)",
            )
            .with_rule(Rule::between(0.0, 0.45)),
        )
        .output(OutputSpec::new(
            "first",
            ValueType::Vec4,
            "the part at the lower x (or y)",
        ))
        .output(OutputSpec::new("second", ValueType::Vec4, "the other part")),
        |call, out| {
            let r = rect(call, 0)?;
            let t = split_ratio(r, call.param_int(0)?, call.param_float(1)?);
            let (a, b) = split(r, t);
            out[0] = Value::Vec4(a);
            out[1] = Value::Vec4(b);
            Ok(())
        },
    ))?;
    reg.register(FnOp::new(
        rect_spec(
            "rect.small",
            "Route a rectangle by its area: to `small` when its area is at most `area`, to \
             `big` otherwise (the other output gets nothing).",
        )
        .param(
            ParamSpec::new(
                "area",
                ValueType::Float,
                Value::Float(1.0),
                "the largest small area",
            )
            .with_rule(Rule::NON_NEGATIVE),
        )
        .output(OutputSpec::new(
            "small",
            ValueType::Vec4,
            "the rectangle, when small",
        ))
        .output(OutputSpec::new(
            "big",
            ValueType::Vec4,
            "the rectangle, when not",
        )),
        |call, out| {
            let r = rect(call, 0)?;
            let k = usize::from(r[2] * r[3] > call.param_float(0)?);
            out[k] = Value::Vec4(r);
            Ok(())
        },
    ))?;
    reg.register(FnOp::new(
        rect_spec("rect.area", "The area w * h of a rectangle.").output(OutputSpec::new(
            "out",
            ValueType::Float,
            "w * h",
        )),
        |call, out| {
            let r = rect(call, 0)?;
            out[0] = Value::Float(r[2] * r[3]);
            Ok(())
        },
    ))?;
    reg.register(FnOp::new(
        rect_spec(
            "rect.inset",
            "A rectangle shrunk by `margin` on every side (a size below 0 becomes 0, centred).",
        )
        .param(
            ParamSpec::new(
                "margin",
                ValueType::Float,
                Value::Float(0.0),
                "the inset per side",
            )
            .with_rule(Rule::Finite),
        )
        .output(OutputSpec::new(
            "out",
            ValueType::Vec4,
            "the inset rectangle",
        )),
        |call, out| {
            let [x, y, w, h] = rect(call, 0)?;
            let m = call.param_float(0)?;
            let side = |o: f64, s: f64| {
                let n = s - 2.0 * m;
                if n >= 0.0 {
                    (o + m, n)
                } else {
                    (o + s / 2.0, 0.0)
                }
            };
            let (x, w) = side(x, w);
            let (y, h) = side(y, h);
            out[0] = Value::Vec4([x, y, w, h]);
            Ok(())
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_along_the_longer_side() {
        // 8 wide, 4 high: cut across the width at 4.
        let (a, b) = split([0.0, 0.0, 8.0, 4.0], 0.5);
        assert_eq!(a, [0.0, 0.0, 4.0, 4.0]);
        assert_eq!(b, [4.0, 0.0, 4.0, 4.0]);
        // 2 wide, 6 high: cut across the height at 1.5 (ratio 0.25).
        let (a, b) = split([1.0, 1.0, 2.0, 6.0], 0.25);
        assert_eq!(a, [1.0, 1.0, 2.0, 1.5]);
        assert_eq!(b, [1.0, 2.5, 2.0, 4.5]);
    }

    #[test]
    fn ratios_stay_within_the_spread_and_repeat() {
        for i in 0..200 {
            let r = [i as f64, 0.5, 3.0, 1.0];
            let t = split_ratio(r, 9, 0.2);
            assert!((0.3..=0.7).contains(&t), "{t}");
            assert_eq!(t.to_bits(), split_ratio(r, 9, 0.2).to_bits());
        }
        assert_eq!(split_ratio([0.0; 4], 1, 0.0), 0.5);
    }
}
