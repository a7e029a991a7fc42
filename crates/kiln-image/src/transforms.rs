//! Transforms: each output pixel reads the source, bilinearly, at a point that a map of the
//! unit square gives (the inverse of the transform), with edges wrapped or clamped (see
//! [`crate::filters::Edges`]). `image.transform` (translate, rotate, scale about the centre,
//! then tile `repeat` times), `image.mirror`, `image.kaleidoscope` and `image.polar`. Rows
//! run on the rayon pool; the bits are the same for every thread count.

use crate::filters::{EDGES, Edges, bilinear};
use crate::image::Image;
use kiln_core::op::{OpCall, OpError, Rule};
use kiln_core::registry::{Registry, RegistryError};
use rayon::prelude::*;
use std::f64::consts::{PI, TAU};

/// The image whose pixel centred at `(u, v)` in the unit square is the source at
/// `map(u, v)` (also in the unit square).
fn remap(
    call: &OpCall<'_>,
    img: &Image,
    edges: Edges,
    map: impl Fn(f64, f64) -> (f64, f64) + Sync,
) -> Result<Image, OpError> {
    let (w, h) = (img.width, img.height);
    let n = w as usize * h as usize;
    let mut pixels: Vec<[f32; 4]> =
        kiln_core::memory::try_vec(n, || format!("an image of {w} x {h} pixels"))
            .map_err(|e| OpError::new(e.to_string()))?;
    pixels.resize(n, [0.0; 4]);
    call.check_cancel()?;
    let (fw, fh) = (w as f64, h as f64);
    pixels
        .par_chunks_mut(w.max(1) as usize)
        .enumerate()
        .for_each(|(y, row)| {
            let v = (y as f64 + 0.5) / fh;
            for (x, o) in row.iter_mut().enumerate() {
                let (su, sv) = map((x as f64 + 0.5) / fw, v);
                *o = bilinear(img, su * fw, sv * fh, edges);
            }
        });
    call.check_cancel()?;
    Ok(Image {
        width: w,
        height: h,
        pixels,
    })
}

/// The source point of `image.transform`: the output point moved back by `translate`,
/// rotated back by `angle` radians and scaled back by `scale` about the centre, after the
/// square is tiled `repeat` times.
pub fn transform_map(
    u: f64,
    v: f64,
    translate: [f64; 2],
    angle: f64,
    scale: [f64; 2],
    repeat: f64,
) -> (f64, f64) {
    let (u, v) = ((u * repeat).fract(), (v * repeat).fract());
    let (x, y) = (u - 0.5 - translate[0], v - 0.5 - translate[1]);
    let (s, c) = angle.sin_cos();
    let (x, y) = (x * c + y * s, -x * s + y * c);
    (x / scale[0] + 0.5, y / scale[1] + 0.5)
}

/// Move, turn and scale an image about its centre (in the unit square, y down; angle in
/// degrees, clockwise on screen), then tile it `repeat` times across.
#[kiln_core::op("image.transform", out = "the transformed image")]
pub fn transform(
    call: &OpCall<'_>,
    #[input("the source image")] image: &Image,
    #[input(
        "offset, in image widths and heights",
        default = [0.0, 0.0],
        rule = Rule::Finite
    )]
    translate: [f64; 2],
    #[input("rotation in degrees", default = 0.0, rule = Rule::Finite)] angle: f64,
    #[input("scale factors (not 0)", default = [1.0, 1.0], rule = Rule::Finite)] scale: [f64; 2],
    #[param(
        "copies across and down (1..=256)",
        default = 1,
        rule = Rule::Ints { min: 1, max: 256 }
    )]
    repeat: i64,
    #[param(
        "points outside the source: wrap (tiles) or clamp",
        default = "wrap",
        rule = EDGES
    )]
    edges: &str,
) -> Result<Image, OpError> {
    let (t, s) = (translate, scale);
    let angle = angle.to_radians();
    if s[0] == 0.0 || s[1] == 0.0 {
        return Err(OpError::input(3, "a scale factor is 0"));
    }
    let repeat = repeat as f64;
    remap(call, image, Edges::parse(edges), |u, v| {
        transform_map(u, v, t, angle, s, repeat)
    })
}

/// Mirror the left half onto the right (x), the top onto the bottom (y), or both.
#[kiln_core::op("image.mirror", out = "the mirrored image")]
pub fn mirror(
    call: &OpCall<'_>,
    #[input("the source image")] image: &Image,
    #[param("x, y or both", default = "x", rule = Rule::OneOf(&["x", "y", "both"]))] axis: &str,
) -> Result<Image, OpError> {
    let (mx, my) = (axis != "y", axis != "x");
    let fold = |t: f64| if t > 0.5 { 1.0 - t } else { t };
    remap(call, image, Edges::Clamp, |u, v| {
        (if mx { fold(u) } else { u }, if my { fold(v) } else { v })
    })
}

/// Repeat one wedge of the image about its centre `segments` times, every other one
/// mirrored.
#[kiln_core::op("image.kaleidoscope", out = "the kaleidoscope")]
pub fn kaleidoscope(
    call: &OpCall<'_>,
    #[input("the source image")] image: &Image,
    #[param(
        "wedges around the centre (1..=64)",
        default = 6,
        rule = Rule::Ints { min: 1, max: 64 },
        plan_time
    )]
    segments: i64,
) -> Result<Image, OpError> {
    let wedge = TAU / segments as f64;
    remap(call, image, Edges::Clamp, |u, v| {
        let (x, y) = (u - 0.5, v - 0.5);
        let r = (x * x + y * y).sqrt();
        let a = y.atan2(x).rem_euclid(wedge);
        let a = if a > wedge / 2.0 { wedge - a } else { a };
        (0.5 + r * a.cos(), 0.5 + r * a.sin())
    })
}

/// Wrap the image around its centre: the output's angle about the centre reads the source's
/// x (0 to 1 once around), its distance from the centre (0 to 0.5) the source's y.
#[kiln_core::op("image.polar", out = "the image in polar form")]
pub fn polar(
    call: &OpCall<'_>,
    #[input("the source image")] image: &Image,
) -> Result<Image, OpError> {
    remap(call, image, Edges::Wrap, |u, v| {
        let (x, y) = (u - 0.5, v - 0.5);
        ((y.atan2(x) + PI) / TAU, (x * x + y * y).sqrt() * 2.0)
    })
}

/// Register the transforms.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(TransformOp::new())?;
    reg.register(MirrorOp::new())?;
    reg.register(KaleidoscopeOp::new())?;
    reg.register(PolarOp::new())
}
