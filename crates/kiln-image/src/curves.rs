//! `image.curves`: a tone curve through control points, per colour channel, as a per-pixel
//! builder (one curve step per mapped channel, so it fuses).
//!
//! The curve is Fritsch–Carlson's monotone piecewise cubic Hermite interpolant (F. N.
//! Fritsch and R. E. Carlson, *Monotone Piecewise Cubic Interpolation*, SIAM J. Numer. Anal.
//! 17, 1980): through every point, and monotone between two points wherever the points are
//! (so it never overshoots, unlike a natural spline or Catmull-Rom). Outside the first and
//! last point it stays at their values.

use crate::field::{Px, Step, Tape};
use kiln_core::op::{OpError, Rule, RuleEnv, Violation};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::Value;

/// Most control points of one curve.
pub const MAX_POINTS: usize = 64;

/// A monotone cubic through control points.
#[derive(Clone, Debug, PartialEq)]
pub struct MonotoneCurve {
    /// The points' x, strictly increasing.
    xs: Vec<f64>,
    /// The points' y.
    ys: Vec<f64>,
    /// The tangent at each point.
    ms: Vec<f64>,
}

impl MonotoneCurve {
    /// The curve through `points` (any order; x distinct and finite, y finite, at least
    /// two and at most [`MAX_POINTS`]), or why not.
    pub fn new(points: &[(f64, f64)]) -> Result<MonotoneCurve, Violation> {
        if points.len() < 2 || points.len() > MAX_POINTS {
            return Err(Violation::new(
                format!("from 2 to {MAX_POINTS} points"),
                format!("{} points", points.len()),
            ));
        }
        if let Some((i, _)) = points
            .iter()
            .enumerate()
            .find(|(_, (x, y))| !x.is_finite() || !y.is_finite())
        {
            return Err(Violation::new(
                format!("point #{i} to be finite"),
                format!("{:?}", points[i]),
            ));
        }
        let mut pts = points.to_vec();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        if let Some(w) = pts.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(Violation::new(
                "points with distinct x",
                format!("two points at x = {}", w[0].0),
            ));
        }
        let xs: Vec<f64> = pts.iter().map(|p| p.0).collect();
        let ys: Vec<f64> = pts.iter().map(|p| p.1).collect();
        let n = xs.len();
        // Secant slopes, then Fritsch–Carlson tangents.
        let d: Vec<f64> = (0..n - 1)
            .map(|k| (ys[k + 1] - ys[k]) / (xs[k + 1] - xs[k]))
            .collect();
        let mut ms = vec![0.0; n];
        ms[0] = d[0];
        ms[n - 1] = d[n - 2];
        for k in 1..n - 1 {
            ms[k] = if d[k - 1] * d[k] > 0.0 {
                (d[k - 1] + d[k]) / 2.0
            } else {
                0.0
            };
        }
        for k in 0..n - 1 {
            if d[k] == 0.0 {
                ms[k] = 0.0;
                ms[k + 1] = 0.0;
                continue;
            }
            let (a, b) = (ms[k] / d[k], ms[k + 1] / d[k]);
            let s = a * a + b * b;
            if s > 9.0 {
                let tau = 3.0 / s.sqrt();
                ms[k] = tau * a * d[k];
                ms[k + 1] = tau * b * d[k];
            }
        }
        Ok(MonotoneCurve { xs, ys, ms })
    }

    /// The curve at `x`: the end values outside the points, the first for NaN.
    pub fn eval(&self, x: f64) -> f64 {
        let n = self.xs.len();
        if x.is_nan() || x <= self.xs[0] {
            return self.ys[0];
        }
        if x >= self.xs[n - 1] {
            return self.ys[n - 1];
        }
        // The segment k with xs[k] <= x < xs[k + 1] (1 <= j < n as xs[0] < x < xs[n-1]).
        let k = self.xs.partition_point(|&p| p <= x) - 1;
        let h = self.xs[k + 1] - self.xs[k];
        let t = (x - self.xs[k]) / h;
        let (t2, t3) = (t * t, t * t * t);
        (2.0 * t3 - 3.0 * t2 + 1.0) * self.ys[k]
            + (t3 - 2.0 * t2 + t) * h * self.ms[k]
            + (-2.0 * t3 + 3.0 * t2) * self.ys[k + 1]
            + (t3 - t2) * h * self.ms[k + 1]
    }
}

/// Read a `points` value: a list of `[x, y]` pairs (lists of two numbers or vec2s).
fn parse_points(v: &Value) -> Result<MonotoneCurve, Violation> {
    let list = v
        .as_list()
        .ok_or_else(|| Violation::new("a list of [x, y] points", v.type_name()))?;
    points_of(list)
}

/// The curve of a list of `[x, y]` points.
fn points_of(list: &[Value]) -> Result<MonotoneCurve, Violation> {
    let mut pts = Vec::with_capacity(list.len().min(MAX_POINTS + 1));
    for (i, p) in list.iter().enumerate().take(MAX_POINTS + 1) {
        let xy = match p {
            Value::Vec2([x, y]) => Some((*x, *y)),
            _ => match p.as_list() {
                Some([x, y]) => x.as_f64().zip(y.as_f64()),
                _ => None,
            },
        };
        pts.push(
            xy.ok_or_else(|| Violation::new(format!("point #{i} to be [x, y]"), p.type_name()))?,
        );
    }
    if list.len() > MAX_POINTS {
        return Err(Violation::new(
            format!("from 2 to {MAX_POINTS} points"),
            format!("{} points", list.len()),
        ));
    }
    MonotoneCurve::new(&pts)
}

fn points_rule(v: &Value, _: &RuleEnv) -> Result<(), Violation> {
    parse_points(v).map(drop)
}

fn channels_rule(v: &Value, _: &RuleEnv) -> Result<(), Violation> {
    match v.as_str() {
        Some(s)
            if !s.is_empty()
                && s.chars().all(|c| "rgba".contains(c))
                && s.chars().enumerate().all(|(i, c)| !s[..i].contains(c)) =>
        {
            Ok(())
        }
        _ => Err(Violation::new(
            "some of r, g, b, a, each once (like \"rgb\")",
            format!("{v:?}"),
        )),
    }
}

fn identity() -> Vec<Value> {
    vec![
        Value::list([Value::Float(0.0), Value::Float(0.0)]),
        Value::list([Value::Float(1.0), Value::Float(1.0)]),
    ]
}

/// A tone curve through `points` ([x, y] pairs) applied to each of `channels`: the
/// Fritsch-Carlson monotone cubic (through every point, no overshoot between them), the end
/// values outside the first and last point.
#[kiln_core::op("image.curves", per_pixel, out = "the adjusted image")]
pub fn curves(
    tape: &mut Tape<'_>,
    #[input("the source image")] image: Px,
    #[param(
        "the control points, [x, y] pairs with distinct x (2 to 64)",
        default = identity(),
        rule = Rule::Check(points_rule)
    )]
    points: &[Value],
    #[param(
        "the channels mapped, some of r, g, b, a (the others pass)",
        default = "rgb",
        rule = Rule::Check(channels_rule)
    )]
    channels: &str,
) -> Result<Px, OpError> {
    let curve = points_of(points).map_err(|e| OpError::param(0, e.to_string()))?;
    let id = tape.add_curve(curve)?;
    let mut px = image;
    for (k, c) in ['r', 'g', 'b', 'a'].into_iter().enumerate() {
        if channels.contains(c) {
            px[k] = tape.push(Step::Curve {
                curve: id,
                x: image[k],
            })?;
        }
    }
    Ok(px)
}

/// Register `image.curves`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(CurvesOp::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hand_worked_curve() {
        // (0, 0), (0.5, 0.8), (1, 1): secants 1.6 and 0.4, tangents 1.6, (1.6 + 0.4) / 2 = 1
        // and 0.4 (neither pair over the circle of radius 3). At x = 0.25, t = 1/2: the
        // Hermite basis is 1/2, 1/8, 1/2, -1/8 with h = 1/2:
        // 0 + 1/8 * 1/2 * 1.6 + 1/2 * 0.8 - 1/8 * 1/2 * 1 = 0.1 + 0.4 - 0.0625.
        let c = MonotoneCurve::new(&[(0.0, 0.0), (0.5, 0.8), (1.0, 1.0)]).unwrap();
        assert!((c.eval(0.25) - 0.4375).abs() < 1e-12);
        // At x = 0.75: 1/2 * 0.8 + 1/8 * 1/2 * 1 + 1/2 * 1 - 1/8 * 1/2 * 0.4 = 0.9375.
        assert!((c.eval(0.75) - 0.9375).abs() < 1e-12);
        for (x, y) in [(0.0, 0.0), (0.5, 0.8), (1.0, 1.0)] {
            assert!((c.eval(x) - y).abs() < 1e-12);
        }
        assert_eq!(
            (c.eval(-1.0), c.eval(2.0), c.eval(f64::NAN)),
            (0.0, 1.0, 0.0)
        );
    }

    #[test]
    fn two_points_are_a_line_and_flat_runs_stay_flat() {
        let c = MonotoneCurve::new(&[(1.0, 0.9), (0.0, 0.1)]).unwrap();
        for i in 0..=10 {
            let x = i as f64 / 10.0;
            assert!((c.eval(x) - (0.1 + 0.8 * x)).abs() < 1e-12);
        }
        let c = MonotoneCurve::new(&[(0.0, 0.0), (0.3, 0.5), (0.6, 0.5), (1.0, 1.0)]).unwrap();
        for i in 0..=30 {
            let x = 0.3 + 0.3 * i as f64 / 30.0;
            assert!((c.eval(x) - 0.5).abs() < 1e-12, "{x}");
        }
    }

    #[test]
    fn bad_points_are_refused() {
        assert!(MonotoneCurve::new(&[(0.0, 0.0)]).is_err());
        assert!(MonotoneCurve::new(&[(0.5, 0.0), (0.5, 1.0)]).is_err());
        assert!(MonotoneCurve::new(&[(0.0, f64::NAN), (1.0, 1.0)]).is_err());
        assert!(parse_points(&Value::list([Value::Int(1), Value::Int(2)])).is_err());
        let many = Value::list((0..65).map(|i| Value::Vec2([i as f64, 0.0])));
        assert!(parse_points(&many).is_err());
        assert!(channels_rule(&Value::str("rr"), &RuleEnv::default()).is_err());
        assert!(channels_rule(&Value::str("rgx"), &RuleEnv::default()).is_err());
        assert!(channels_rule(&Value::str("ga"), &RuleEnv::default()).is_ok());
    }

    proptest::proptest! {
        #[test]
        fn monotone_points_give_a_monotone_curve(
            steps in proptest::collection::vec((0.01f64..1.0, 0.0f64..1.0), 1..10),
            probes in proptest::collection::vec(0.0f64..1.0, 2..40),
        ) {
            let (mut x, mut y) = (0.0, 0.0);
            let mut pts = vec![(0.0, 0.0)];
            for (dx, dy) in steps {
                x += dx;
                y += dy * dy * dy; // some nearly flat, some steep
                pts.push((x, y));
            }
            let c = MonotoneCurve::new(&pts).unwrap();
            let mut probes: Vec<f64> = probes.into_iter().map(|p| p * x).collect();
            probes.sort_by(f64::total_cmp);
            for w in probes.windows(2) {
                proptest::prop_assert!(c.eval(w[0]) <= c.eval(w[1]) + 1e-12);
            }
            for &(px, py) in &pts {
                proptest::prop_assert!((c.eval(px) - py).abs() < 1e-9);
            }
            proptest::prop_assert!(c.eval(x / 2.0) >= 0.0 && c.eval(x / 2.0) <= y + 1e-12);
        }
    }
}
