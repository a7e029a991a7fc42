//! Tone ops that read the whole image first: `image.auto_levels` (stretch the range between
//! two percentiles of the values to 0..1) and `image.histogram_range` (stretch a window of
//! the image's own min..max span to 0..1). Each measures a window `lo..hi` per colour channel
//! (or one for r, g and b together), then maps `c -> (c - lo) / (hi - lo)` through a field
//! tape rendered in bands of rows (the same bits for every thread count). Non-finite values
//! are left out of the measure; a channel with no span (`hi <= lo`) passes unchanged, as
//! does alpha. They are not per-pixel ops (the window depends on every pixel), so they end a
//! fused chain.

use crate::field::{Binary, Px, Step, Tape, Ternary};
use crate::image::Image;
use kiln_core::op::{OpCall, OpError, Rule, RuleEnv, Violation};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::Value;

/// The value at fraction `p` (0..=1) of the sorted `values`, interpolated linearly between
/// neighbouring ranks (NumPy's default `percentile`): rank `p (n - 1)`. `None` when empty.
pub fn percentile(values: &mut [f32], p: f64) -> Option<f64> {
    let n = values.len();
    if n == 0 {
        return None;
    }
    let pos = p.clamp(0.0, 1.0) * (n - 1) as f64;
    let k = (pos.floor() as usize).min(n - 1);
    let f = pos - k as f64;
    let (_, &mut at, rest) = values.select_nth_unstable_by(k, f32::total_cmp);
    let a = at as f64;
    if f == 0.0 || rest.is_empty() {
        return Some(a);
    }
    let b = rest.iter().copied().fold(f32::INFINITY, f32::min) as f64;
    Some(a + (b - a) * f)
}

/// The finite values of the `channels` of `img`, reserved through the memory budget.
fn finite_values(img: &Image, channels: &[usize]) -> Result<Vec<f32>, OpError> {
    let mut v = kiln_core::memory::try_vec(img.pixels.len() * channels.len(), || {
        format!(
            "the values of a {} x {} image to rank",
            img.width, img.height
        )
    })
    .map_err(|e| OpError::new(e.to_string()))?;
    for p in &img.pixels {
        for &c in channels {
            if p[c].is_finite() {
                v.push(p[c]);
            }
        }
    }
    Ok(v)
}

/// The smallest and largest finite values of `channels` (`None` when there are none).
fn min_max(img: &Image, channels: &[usize]) -> Option<(f64, f64)> {
    let mut lo = f32::INFINITY;
    let mut hi = f32::NEG_INFINITY;
    for p in &img.pixels {
        for &c in channels {
            if p[c].is_finite() {
                lo = lo.min(p[c]);
                hi = hi.max(p[c]);
            }
        }
    }
    (lo <= hi).then_some((lo as f64, hi as f64))
}

/// The channel groups measured: r, g, b each alone, or all three as one.
fn groups(per_channel: bool) -> Vec<Vec<usize>> {
    if per_channel {
        vec![vec![0], vec![1], vec![2]]
    } else {
        vec![vec![0, 1, 2]]
    }
}

/// Map each colour channel `c` of `img` to `(c - lo) / (hi - lo)` (clamped to [0, 1] when
/// `clip`), a channel whose window is `None` or empty unchanged.
fn stretch(
    call: &OpCall<'_>,
    img: &Image,
    windows: [Option<(f64, f64)>; 3],
    clip: bool,
) -> Result<Image, OpError> {
    let mut t = Tape::new();
    let x = t.image(img, 0)?;
    let mut px: Px = x;
    for c in 0..3 {
        let Some((lo, hi)) = windows[c].filter(|(lo, hi)| hi > lo) else {
            continue;
        };
        let l = t.constant(lo)?;
        let s = t.constant(hi - lo)?;
        let d = t.binary(Binary::Sub, x[c], l)?;
        let mut v = t.binary(Binary::Div, d, s)?;
        if clip {
            let (zero, one) = (t.constant(0.0)?, t.constant(1.0)?);
            v = t.push(Step::Ternary(Ternary::Clamp, v, zero, one))?;
        }
        px[c] = v;
    }
    crate::field::render(call, &t, px)
}

/// The windows of `image.auto_levels`: percentiles `low` and `high` of each group.
fn percentile_windows(
    img: &Image,
    low: f64,
    high: f64,
    per_channel: bool,
) -> Result<[Option<(f64, f64)>; 3], OpError> {
    let mut out = [None; 3];
    for g in groups(per_channel) {
        let w = if low == 0.0 && high == 1.0 {
            min_max(img, &g)
        } else {
            let mut v = finite_values(img, &g)?;
            percentile(&mut v, low).zip(percentile(&mut v, high))
        };
        for &c in &g {
            out[c] = w;
        }
    }
    Ok(out)
}

fn order_rule(params: &[Value], _: &RuleEnv) -> Result<(), (usize, Violation)> {
    let f = |i: usize| params.get(i).and_then(Value::as_f64).unwrap_or(0.0);
    if f(0) < f(1) {
        Ok(())
    } else {
        Err((
            1,
            Violation::new(
                "`high` above `low`",
                format!("low {} and high {}", f(0), f(1)),
            ),
        ))
    }
}

/// Stretch the values between the percentiles `low` and `high` of the image (0 and 1: its min
/// and max; ranks interpolated linearly, as NumPy's percentile) to 0..1: (c - lo) / (hi -
/// lo), clamped when `clip`; over r, g and b together or `per_channel`. A flat channel and
/// alpha pass unchanged.
#[kiln_core::op("image.auto_levels", params_rule = order_rule, out = "the stretched image")]
pub fn auto_levels(
    call: &OpCall<'_>,
    #[input("the source image")] image: &Image,
    #[param(
        "the percentile mapped to 0, a fraction (0: the minimum)",
        default = 0.0,
        rule = Rule::between(0.0, 1.0)
    )]
    low: f64,
    #[param(
        "the percentile mapped to 1, a fraction (1: the maximum)",
        default = 1.0,
        rule = Rule::between(0.0, 1.0)
    )]
    high: f64,
    #[param("measure r, g and b each alone (shifts hues)", default = false)] per_channel: bool,
    #[param("clamp the result to [0, 1]", default = true)] clip: bool,
) -> Result<Image, OpError> {
    let windows = percentile_windows(image, low, high, per_channel)?;
    call.check_cancel()?;
    stretch(call, image, windows, clip)
}

/// Stretch a window of the histogram to 0..1: with the image's span min..max, the window is
/// `range` of it centred at `position` (lo = min + span (position - range / 2), hi = min +
/// span (position + range / 2)), mapped by saturate((c - lo) / (hi - lo)); over r, g and b
/// together or `per_channel`. Alpha passes unchanged.
#[kiln_core::op("image.histogram_range", out = "the stretched image")]
pub fn histogram_range(
    call: &OpCall<'_>,
    #[input("the source image")] image: &Image,
    #[param(
        "the window's centre, a fraction of the span",
        default = 0.5,
        rule = Rule::between(0.0, 1.0)
    )]
    position: f64,
    #[param(
        "the window's width, a fraction of the span (above 0)",
        default = 1.0,
        rule = Rule::Number {
            min: std::ops::Bound::Excluded(0.0),
            max: std::ops::Bound::Included(1.0),
        }
    )]
    range: f64,
    #[param("measure r, g and b each alone (shifts hues)", default = false)] per_channel: bool,
) -> Result<Image, OpError> {
    let img = image;
    let mut windows = [None; 3];
    for g in groups(per_channel) {
        let w = min_max(img, &g).map(|(mn, mx)| {
            let span = mx - mn;
            (
                mn + span * (position - range / 2.0),
                mn + span * (position + range / 2.0),
            )
        });
        for &c in &g {
            windows[c] = w;
        }
    }
    stretch(call, img, windows, true)
}

/// Register `image.auto_levels` and `image.histogram_range`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(AutoLevelsOp::new())?;
    reg.register(HistogramRangeOp::new())
}

#[cfg(test)]
mod tests {
    use super::percentile;

    #[test]
    fn percentiles_interpolate_between_ranks() {
        // 0, 1, ..., 10 shuffled: the 25th percentile is rank 2.5: 2.5; NumPy agrees
        // (np.percentile(range(11), 25) == 2.5).
        let mut v: Vec<f32> = [7.0, 3.0, 10.0, 0.0, 5.0, 1.0, 9.0, 2.0, 8.0, 4.0, 6.0].to_vec();
        assert_eq!(percentile(&mut v, 0.25), Some(2.5));
        assert_eq!(percentile(&mut v, 0.0), Some(0.0));
        assert_eq!(percentile(&mut v, 1.0), Some(10.0));
        // [1, 2, 4, 8]: rank 0.9 * 3 = 2.7, between 4 and 8: 4 + 0.7 * 4 = 6.8.
        let mut v = vec![8.0f32, 1.0, 4.0, 2.0];
        assert!((percentile(&mut v, 0.9).unwrap() - 6.8).abs() < 1e-12);
        assert_eq!(percentile(&mut [], 0.5), None);
    }
}
