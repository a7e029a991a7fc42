//! Rectangles as `vec4` values `[x, y, w, h]` (corner and size): `rect.split` cuts one in
//! two along its longer side at a seeded ratio, `rect.small` routes a rectangle to one of
//! two outputs by its area, `rect.area` and `rect.inset`. With a flow graph's loop port they
//! subdivide a lot until every part is small (see `examples/parcels.json`).

use kiln_core::key::KeyHasher;
use kiln_core::op;
use kiln_core::op::{OpError, Rule, RuleEnv, Violation};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};

/// The rectangle at input `i` checked: finite corner and a finite size of at least 0.
fn check_rect(r: [f64; 4], i: usize) -> Result<[f64; 4], OpError> {
    if r.iter().all(|c| c.is_finite()) && r[2] >= 0.0 && r[3] >= 0.0 {
        Ok(r)
    } else {
        Err(OpError::input(
            i,
            format!(
                "a rectangle [x, y, w, h] needs finite numbers and a size of at least 0, found {r:?}"
            ),
        ))
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

/// The `rect` input of every op here: the unit square when unwired.
const UNIT: [f64; 4] = [0.0, 0.0, 1.0, 1.0];

/// Cut a rectangle in two across its longer side, at a ratio drawn from the rectangle and
/// `seed` within 0.5 ± `spread`.
#[op(
    "rect.split",
    outputs(
        "first" = "the part at the lower x (or y)",
        "second" = "the other part"
    )
)]
pub fn split_rect(
    #[input(
        "the rectangle [x, y, w, h] (the unit square when unwired)",
        default = UNIT,
        rule = Rule::Check(rect_rule)
    )]
    rect: [f64; 4],
    #[param("varies the ratios", default = 0)] seed: i64,
    #[param(
        "how far the ratio may stray from one half (0: always halves)",
        default = 0.0,
        range = 0.0..=0.45
    )]
    spread: f64,
) -> Result<([f64; 4], [f64; 4]), OpError> {
    let r = check_rect(rect, 0)?;
    Ok(split(r, split_ratio(r, seed, spread)))
}

/// Route a rectangle by its area: to `small` when its area is at most `area`, to `big`
/// otherwise (the other output gets nothing).
#[op(
    "rect.small",
    outputs(
        "small" = "the rectangle, when small",
        "big" = "the rectangle, when not"
    ),
    out_type = ValueType::Vec4
)]
pub fn small(
    #[input(
        "the rectangle [x, y, w, h] (the unit square when unwired)",
        default = UNIT,
        rule = Rule::Check(rect_rule)
    )]
    rect: [f64; 4],
    #[param("the largest small area", default = 1.0, rule = Rule::NON_NEGATIVE)] area: f64,
) -> Result<(Value, Value), OpError> {
    let r = check_rect(rect, 0)?;
    Ok(if r[2] * r[3] > area {
        (Value::Empty, Value::Vec4(r))
    } else {
        (Value::Vec4(r), Value::Empty)
    })
}

/// The area w * h of a rectangle.
#[op("rect.area", out = "w * h")]
pub fn area(
    #[input(
        "the rectangle [x, y, w, h] (the unit square when unwired)",
        default = UNIT,
        rule = Rule::Check(rect_rule)
    )]
    rect: [f64; 4],
) -> Result<f64, OpError> {
    let r = check_rect(rect, 0)?;
    Ok(r[2] * r[3])
}

/// A rectangle shrunk by `margin` on every side (a size below 0 becomes 0, centred).
#[op("rect.inset", out = "the inset rectangle")]
pub fn inset(
    #[input(
        "the rectangle [x, y, w, h] (the unit square when unwired)",
        default = UNIT,
        rule = Rule::Check(rect_rule)
    )]
    rect: [f64; 4],
    #[param("the inset per side", default = 0.0, rule = Rule::Finite)] margin: f64,
) -> Result<[f64; 4], OpError> {
    let [x, y, w, h] = check_rect(rect, 0)?;
    let m = margin;
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
    Ok([x, y, w, h])
}

/// Register `rect.split`, `rect.small`, `rect.area` and `rect.inset`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(SplitRectOp::new())?;
    reg.register(SmallOp::new())?;
    reg.register(AreaOp::new())?;
    reg.register(InsetOp::new())
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
