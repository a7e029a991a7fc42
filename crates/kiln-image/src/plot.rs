//! `image.rects`: a list of rectangles drawn as a plot map — each filled with a colour of a
//! fixed palette picked by the rectangle and `seed`, outlined with a border. Its `rects`
//! input is collective: every rectangle that reaches it, as one list.
//!
//! Rectangles are `vec4` values `[x, y, w, h]` in the frame `bounds` (`[x, y, w, h]`,
//! mapped onto the whole image, y down). A pixel belongs to a rectangle when its centre is
//! inside (`min <= c < max`, as `image.rect` draws); it is border when it is among the
//! `border` outermost pixels of the rectangle on any side. Later rectangles paint over
//! earlier ones.

use crate::image::{FIXED_SIDE_RULE, Image, check_size, pixels_rule};
use kiln_core::key::KeyHasher;
use kiln_core::op::{OpCall, OpError, Rule, RuleEnv, Violation};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::Value;

/// The most rectangles one `image.rects` draws.
pub const MAX_RECTS: usize = 1_000_000;

/// The fills of a plot map (linear RGB): meadow, straw, hedge, sand, clay, sage.
pub const PALETTE: [[f32; 4]; 6] = [
    [0.55, 0.71, 0.42, 1.0],
    [0.80, 0.75, 0.46, 1.0],
    [0.40, 0.58, 0.36, 1.0],
    [0.88, 0.82, 0.64, 1.0],
    [0.72, 0.52, 0.36, 1.0],
    [0.60, 0.68, 0.55, 1.0],
];

/// The palette colour of rectangle `r` under `seed`.
pub fn fill_of(r: [f64; 4], seed: i64) -> [f32; 4] {
    let mut h = KeyHasher::new();
    h.str("image.rects");
    h.i64(seed);
    for c in r {
        h.f64(c);
    }
    PALETTE[(h.finish_key().0 % PALETTE.len() as u128) as usize]
}

/// The pixels `lo..hi` whose centres lie in `[a0, a1)` (in pixels), within `0..n`.
fn span(a0: f64, a1: f64, n: u32) -> (u32, u32) {
    let clamp = |v: f64| v.clamp(0.0, n as f64) as u32;
    (clamp((a0 - 0.5).ceil()), clamp((a1 - 0.5).ceil()))
}

/// The rule of the frame: finite numbers and a size above 0.
fn frame_rule(v: &Value, _: &RuleEnv) -> Result<(), Violation> {
    match v {
        Value::Vec4(b) if b.iter().all(|c| c.is_finite()) && b[2] > 0.0 && b[3] > 0.0 => Ok(()),
        other => Err(Violation::new(
            "a frame [x, y, w, h] of finite numbers with a size above 0",
            match other {
                Value::Vec4(b) => format!("{b:?}"),
                o => o.type_name().to_string(),
            },
        )),
    }
}

/// Draw rectangles [x, y, w, h] as a plot map: each filled with a palette colour picked by the
/// rectangle and `seed`, with a border; `bounds` is the frame mapped onto the image.
#[kiln_core::op("image.rects", params_rule = pixels_rule, out = "the plot map")]
#[allow(clippy::too_many_arguments)]
pub fn rects(
    call: &OpCall<'_>,
    #[param("width in pixels", default = 256, rule = FIXED_SIDE_RULE, plan_time)] width: i64,
    #[param("height in pixels", default = 256, rule = FIXED_SIDE_RULE, plan_time)] height: i64,
    #[param(
        "the frame [x, y, w, h] the image shows",
        default = [0.0, 0.0, 1.0, 1.0],
        rule = Rule::Check(frame_rule)
    )]
    bounds: [f64; 4],
    #[param("border width in pixels", default = 1, rule = Rule::Ints { min: 0, max: 64 })]
    border: i64,
    #[param("varies the colours", default = 0)] seed: i64,
    #[param("where no rectangle lies", default = [0.12, 0.14, 0.12, 1.0])] background: [f32; 4],
    #[param("the outlines", default = [0.16, 0.13, 0.10, 1.0])] border_color: [f32; 4],
    #[input(
        "every rectangle [x, y, w, h] (none when unwired)",
        default = Vec::new(),
        collective
    )]
    rects: &[Value],
) -> Result<Image, OpError> {
    if rects.len() > MAX_RECTS {
        return Err(OpError::input(
            0,
            format!(
                "{} rectangles, more than the limit of {MAX_RECTS}",
                rects.len()
            ),
        ));
    }
    let (w, h) = check_size(width, height, 0, 1)?;
    let border = border.max(0) as u32;
    let edge = border_color;
    let mut img = Image::filled(w, h, background);
    for (k, r) in rects.iter().enumerate() {
        if k % 1024 == 0 {
            call.check_cancel()?;
        }
        let r = match r {
            Value::Vec4(r) if r.iter().all(|c| c.is_finite()) => *r,
            other => {
                return Err(OpError::input(
                    0,
                    format!(
                        "element {k} must be a rectangle (vec4 [x, y, w, h] of finite numbers), \
                         found {}",
                        other.type_name()
                    ),
                ));
            }
        };
        let px = |v: f64| (v - bounds[0]) / bounds[2] * w as f64;
        let py = |v: f64| (v - bounds[1]) / bounds[3] * h as f64;
        let (x0, x1) = span(px(r[0]), px(r[0] + r[2]), w);
        let (y0, y1) = span(py(r[1]), py(r[1] + r[3]), h);
        let fill = fill_of(r, seed);
        for y in y0..y1 {
            let row = y as usize * w as usize;
            let edge_row = y < y0 + border || y + border >= y1;
            for x in x0..x1 {
                let on_edge = edge_row || x < x0 + border || x + border >= x1;
                img.pixels[row + x as usize] = if on_edge { edge } else { fill };
            }
        }
    }
    Ok(img)
}

/// Register `image.rects`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(RectsOp::new())
}

#[cfg(test)]
mod tests {
    use super::span;

    #[test]
    fn spans_hold_the_pixels_whose_centres_are_inside() {
        // Centres 0.5, 1.5, 2.5, 3.5: [1, 3) holds 1.5 and 2.5.
        assert_eq!(span(1.0, 3.0, 4), (1, 3));
        // [0.6, 1.4) holds no centre.
        assert_eq!(span(0.6, 1.4, 4), (1, 1));
        // Clamped to the image.
        assert_eq!(span(-5.0, 9.0, 4), (0, 4));
    }
}
