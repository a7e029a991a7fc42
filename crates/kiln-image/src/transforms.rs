//! Transforms: each output pixel reads the source, bilinearly, at a point that a map of the
//! unit square gives (the inverse of the transform), with edges wrapped or clamped (see
//! [`crate::filters::Edges`]). `image.transform` (translate, rotate, scale about the centre,
//! then tile `repeat` times), `image.mirror`, `image.kaleidoscope` and `image.polar`. Rows
//! run on the rayon pool; the bits are the same for every thread count.

use crate::filters::{Edges, bilinear};
use crate::fn_op::FnOp;
use crate::image::{IMAGE_TYPE, Image};
use kiln_core::op::{InputSpec, OpCall, OpError, OpSpec, OutputSpec, ParamSpec, Rule};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};
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

fn vec2(call: &OpCall<'_>, i: usize) -> Result<[f64; 2], OpError> {
    match call.inputs.get(i) {
        Some(Value::Vec2(v)) => Ok(*v),
        other => Err(OpError::input(
            i,
            format!(
                "expected vec2, found {}",
                other.map_or("nothing", Value::type_name)
            ),
        )),
    }
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

fn edges_param() -> ParamSpec {
    ParamSpec::new(
        "edges",
        ValueType::String,
        Value::str("wrap"),
        "points outside the source: wrap (tiles) or clamp",
    )
    .with_rule(Rule::OneOf(&["wrap", "clamp"]))
}

fn source() -> InputSpec {
    InputSpec::required("image", IMAGE_TYPE, "the source image")
}

fn edges_of(call: &OpCall<'_>, i: usize) -> Result<Edges, OpError> {
    Ok(if call.param_str(i)? == "clamp" {
        Edges::Clamp
    } else {
        Edges::Wrap
    })
}

/// Register the transforms.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(FnOp::new(
        OpSpec::new(
            "image.transform",
            "Move, turn and scale an image about its centre (in the unit square, y down; \
             angle in degrees, clockwise on screen), then tile it `repeat` times across.",
        )
        .input(source())
        .input(
            InputSpec::optional(
                "translate",
                ValueType::Vec2,
                Value::Vec2([0.0, 0.0]),
                "offset, in image widths and heights",
            )
            .with_rule(Rule::Finite),
        )
        .input(
            InputSpec::optional(
                "angle",
                ValueType::Float,
                Value::Float(0.0),
                "rotation in degrees",
            )
            .with_rule(Rule::Finite),
        )
        .input(
            InputSpec::optional(
                "scale",
                ValueType::Vec2,
                Value::Vec2([1.0, 1.0]),
                "scale factors (not 0)",
            )
            .with_rule(Rule::Finite),
        )
        .param(
            ParamSpec::new(
                "repeat",
                ValueType::Int,
                Value::Int(1),
                "copies across and down (1..=256)",
            )
            .with_rule(Rule::Ints { min: 1, max: 256 }),
        )
        .param(edges_param())
        .output(OutputSpec::new("out", IMAGE_TYPE, "the transformed image")),
        |call, out| {
            let img = call.heavy::<Image>(0, "image")?;
            let t = vec2(call, 1)?;
            let angle = call.float(2)?.to_radians();
            let s = vec2(call, 3)?;
            if s[0] == 0.0 || s[1] == 0.0 {
                return Err(OpError::input(3, "a scale factor is 0"));
            }
            let repeat = call.param_int(0)? as f64;
            let edges = edges_of(call, 1)?;
            out[0] = remap(call, img, edges, |u, v| {
                transform_map(u, v, t, angle, s, repeat)
            })?
            .into_value();
            Ok(())
        },
    ))?;
    reg.register(FnOp::new(
        OpSpec::new(
            "image.mirror",
            "Mirror the left half onto the right (x), the top onto the bottom (y), or both.",
        )
        .input(source())
        .param(
            ParamSpec::new("axis", ValueType::String, Value::str("x"), "x, y or both")
                .with_rule(Rule::OneOf(&["x", "y", "both"])),
        )
        .output(OutputSpec::new("out", IMAGE_TYPE, "the mirrored image")),
        |call, out| {
            let img = call.heavy::<Image>(0, "image")?;
            let axis = call.param_str(0)?;
            let (mx, my) = (axis != "y", axis != "x");
            let fold = |t: f64| if t > 0.5 { 1.0 - t } else { t };
            out[0] = remap(call, img, Edges::Clamp, |u, v| {
                (if mx { fold(u) } else { u }, if my { fold(v) } else { v })
            })?
            .into_value();
            Ok(())
        },
    ))?;
    reg.register(FnOp::new(
        OpSpec::new(
            "image.kaleidoscope",
            "Repeat one wedge of the image about its centre `segments` times, every other \
             one mirrored.",
        )
        .input(source())
        .param(
            ParamSpec::new(
                "segments",
                ValueType::Int,
                Value::Int(6),
                "wedges around the centre (1..=64)",
            )
            .plan_time()
            .with_rule(Rule::Ints { min: 1, max: 64 }),
        )
        .output(OutputSpec::new("out", IMAGE_TYPE, "the kaleidoscope")),
        |call, out| {
            let img = call.heavy::<Image>(0, "image")?;
            let wedge = TAU / call.param_int(0)? as f64;
            out[0] = remap(call, img, Edges::Clamp, |u, v| {
                let (x, y) = (u - 0.5, v - 0.5);
                let r = (x * x + y * y).sqrt();
                let a = y.atan2(x).rem_euclid(wedge);
                let a = if a > wedge / 2.0 { wedge - a } else { a };
                (0.5 + r * a.cos(), 0.5 + r * a.sin())
            })?
            .into_value();
            Ok(())
        },
    ))?;
    reg.register(FnOp::new(
        OpSpec::new(
            "image.polar",
            "Wrap the image around its centre: the output's angle about the centre reads the \
             source's x (0 to 1 once around), its distance from the centre (0 to 0.5) the \
             source's y.",
        )
        .input(source())
        .output(OutputSpec::new(
            "out",
            IMAGE_TYPE,
            "the image in polar form",
        )),
        |call, out| {
            let img = call.heavy::<Image>(0, "image")?;
            out[0] = remap(call, img, Edges::Wrap, |u, v| {
                let (x, y) = (u - 0.5, v - 0.5);
                ((y.atan2(x) + PI) / TAU, (x * x + y * y).sqrt() * 2.0)
            })?
            .into_value();
            Ok(())
        },
    ))
}
