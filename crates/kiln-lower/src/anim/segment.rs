//! Bézier segments between keys: their control points (explicit handles, or the automatic
//! ones) and their evaluation.

use super::kind::Components;

/// A key's explicit handles as (time offset, value offset components): (left, right).
pub(super) type HandlePair = ((f64, Components), (f64, Components));

/// One cubic Bézier segment between two keys.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Segment {
    /// The control points' times, or `None` when both handles are automatic: they sit at
    /// one and two thirds of the segment, so time is linear in the curve parameter.
    x: Option<[f64; 4]>,
    /// The control points' values.
    y: [Components; 4],
}

/// The automatic slope at key `k`, per component ("auto-clamped"): 0 at the first and last
/// key and where the key is a local extremum (or level with a neighbour); elsewhere the
/// Catmull–Rom slope (v[k+1] − v[k−1]) / (t[k+1] − t[k−1]), limited to three times the
/// smaller of the two neighbouring secant slopes so that neither handle passes the
/// neighbouring key's value (no overshoot).
fn auto_slope(times: &[f64], vals: &[Components], k: usize, c: usize) -> f64 {
    if k == 0 || k + 1 >= times.len() {
        return 0.0;
    }
    let (v0, v1, v2) = (vals[k - 1][c], vals[k][c], vals[k + 1][c]);
    let (d0, d1) = (v1 - v0, v2 - v1);
    if d0 * d1 <= 0.0 {
        return 0.0;
    }
    let m = (v2 - v0) / (times[k + 1] - times[k - 1]);
    let s0 = d0 / (times[k] - times[k - 1]);
    let s1 = d1 / (times[k + 1] - times[k]);
    let limit = 3.0 * s0.abs().min(s1.abs());
    m.clamp(-limit, limit)
}

/// The segments between consecutive keys.
pub(super) fn bezier_segments(
    times: &[f64],
    vals: &[Components],
    handles: &[Option<HandlePair>],
    width: usize,
) -> Vec<Segment> {
    let slopes: Vec<Components> = (0..times.len())
        .map(|k| {
            std::array::from_fn(|c| {
                if c < width {
                    auto_slope(times, vals, k, c)
                } else {
                    0.0
                }
            })
        })
        .collect();
    (0..times.len().saturating_sub(1))
        .map(|k| {
            let (t0, t1) = (times[k], times[k + 1]);
            let third = (t1 - t0) / 3.0;
            let right =
                handles[k].map_or_else(|| (third, slopes[k].map(|m| m * third)), |(_, r)| r);
            let left = handles[k + 1]
                .map_or_else(|| (-third, slopes[k + 1].map(|m| -m * third)), |(l, _)| l);
            let (a, b) = (vals[k], vals[k + 1]);
            let x = (handles[k].is_some() || handles[k + 1].is_some()).then_some([
                t0,
                t0 + right.0,
                t1 + left.0,
                t1,
            ]);
            let y = [
                a,
                std::array::from_fn(|c| a[c] + right.1[c]),
                std::array::from_fn(|c| b[c] + left.1[c]),
                b,
            ];
            Segment { x, y }
        })
        .collect()
}

/// Linear interpolation that returns `a` exactly when `a == b`.
#[inline]
fn lerp(a: f64, b: f64, s: f64) -> f64 {
    a + (b - a) * s
}

/// A cubic Bézier's coordinate at `s` by de Casteljau's construction (equal control points
/// give exactly their value).
fn casteljau(p: [f64; 4], s: f64) -> f64 {
    let (a, b, c) = (
        lerp(p[0], p[1], s),
        lerp(p[1], p[2], s),
        lerp(p[2], p[3], s),
    );
    let (d, e) = (lerp(a, b, s), lerp(b, c, s));
    lerp(d, e, s)
}

/// Bisection steps solving x(s) = t: 2^-64 is below the spacing of floats in 0..1 near 1.
const SOLVE_STEPS: usize = 64;

impl Segment {
    /// The value at time `t` in `t0 .. t1`.
    pub(super) fn eval(&self, t0: f64, t1: f64, t: f64, width: usize) -> Components {
        let s = match self.x {
            None => (t - t0) / (t1 - t0),
            // Handles within the segment make x non-decreasing in s: bisect.
            Some(x) => {
                let (mut lo, mut hi) = (0.0f64, 1.0f64);
                for _ in 0..SOLVE_STEPS {
                    let mid = 0.5 * (lo + hi);
                    if casteljau(x, mid) < t {
                        lo = mid;
                    } else {
                        hi = mid;
                    }
                }
                0.5 * (lo + hi)
            }
        };
        std::array::from_fn(|c| {
            if c < width {
                casteljau([self.y[0][c], self.y[1][c], self.y[2][c], self.y[3][c]], s)
            } else {
                0.0
            }
        })
    }
}
