//! Small-kernel filters that read neighbours (so they end a fused chain), rows on the rayon
//! pool, the same bits for every thread count:
//!
//! * `image.box_blur`: the mean over a `(2r + 1)²` square, separable (rows, then columns,
//!   each in `f64` and stored as `f32`), every channel;
//! * `image.sharpen`: an unsharp mask, `p + amount (p - gaussian(p, sigma))` on r, g, b;
//! * `image.edges`: the Sobel gradient magnitude of the luminance, `|G| / 8 * strength` (the
//!   Sobel sums weigh 8 pixel steps, so `|G| / 8` is the slope per pixel), grey;
//! * `image.emboss`: `0.5 - strength * (G . l) / 8` for the light direction `l` at `angle`
//!   degrees (0: from the right, 90: from the top), grey: slopes facing the light (the height
//!   falling towards it, as the normal `(-G, 1)` leans to it) are bright.
//!
//! Neighbours outside the image wrap (`edges = wrap`, so a tile stays a tile) or clamp.
//! A constant image stays constant (box blur, sharpen) or becomes flat (edges 0, emboss 0.5).

use crate::filters::{Edges, by_rows, edges_param, gaussian};
use crate::fn_op::FnOp;
use crate::image::{IMAGE_TYPE, Image};
use crate::ramp::luminance;
use kiln_core::op::{InputSpec, OpCall, OpError, OpSpec, OutputSpec, ParamSpec, Rule};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};

/// Largest box blur radius, in pixels.
pub const MAX_RADIUS: i64 = 256;

/// A box blur of radius `r`: rows then columns, each the mean of `2r + 1` pixels.
pub fn box_blur(call: &OpCall<'_>, img: &Image, r: i64, edges: Edges) -> Result<Image, OpError> {
    if r <= 0 || img.pixels.is_empty() {
        return Ok(img.clone());
    }
    let (w, h) = (img.width, img.height);
    let n = (2 * r + 1) as f64;
    let pass1 = by_rows(call, w, h, |y, out| {
        for (x, o) in out.iter_mut().enumerate() {
            let mut s = [0.0f64; 4];
            for d in -r..=r {
                let p = img.get(edges.index(x as i64 + d, w) as u32, y);
                for c in 0..4 {
                    s[c] += p[c] as f64;
                }
            }
            *o = s.map(|v| (v / n) as f32);
        }
    })?;
    by_rows(call, w, h, |y, out| {
        for (x, o) in out.iter_mut().enumerate() {
            let mut s = [0.0f64; 4];
            for d in -r..=r {
                let p = pass1.get(x as u32, edges.index(y as i64 + d, h) as u32);
                for c in 0..4 {
                    s[c] += p[c] as f64;
                }
            }
            *o = s.map(|v| (v / n) as f32);
        }
    })
}

/// The Sobel gradient `(gx, gy)` of the luminance at `(x, y)`, x to the right, y downwards.
pub fn sobel(img: &Image, x: i64, y: i64, edges: Edges) -> (f64, f64) {
    let l = |dx: i64, dy: i64| {
        luminance(img.get(
            edges.index(x + dx, img.width) as u32,
            edges.index(y + dy, img.height) as u32,
        ))
    };
    let gx = (l(1, -1) + 2.0 * l(1, 0) + l(1, 1)) - (l(-1, -1) + 2.0 * l(-1, 0) + l(-1, 1));
    let gy = (l(-1, 1) + 2.0 * l(0, 1) + l(1, 1)) - (l(-1, -1) + 2.0 * l(0, -1) + l(1, -1));
    (gx, gy)
}

fn grey(v: f64) -> [f32; 4] {
    let g = v as f32;
    [g, g, g, 1.0]
}

fn strength(default: f64, doc: &'static str) -> InputSpec {
    InputSpec::optional("strength", ValueType::Float, Value::Float(default), doc)
        .with_rule(Rule::Finite)
}

fn source() -> InputSpec {
    InputSpec::required("image", IMAGE_TYPE, "the source image")
}

/// Register `image.box_blur`, `image.sharpen`, `image.edges` and `image.emboss`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(FnOp::new(
        OpSpec::new(
            "image.box_blur",
            "Box blur: every channel the mean over the (2 radius + 1)² square around the \
             pixel, rows then columns.",
        )
        .input(source())
        .param(
            ParamSpec::new(
                "radius",
                ValueType::Int,
                Value::Int(2),
                "half the side of the square, in pixels (0: unchanged)",
            )
            .with_rule(Rule::Ints {
                min: 0,
                max: MAX_RADIUS,
            }),
        )
        .param(edges_param())
        .output(OutputSpec::new("out", IMAGE_TYPE, "the blurred image")),
        |call, out| {
            let img = call.heavy::<Image>(0, "image")?;
            let r = call.param_int(0)?.clamp(0, MAX_RADIUS);
            let edges = Edges::parse(call.param_str(1)?);
            out[0] = box_blur(call, img, r, edges)?.into_value();
            Ok(())
        },
    ))?;
    reg.register(FnOp::new(
        OpSpec::new(
            "image.sharpen",
            "Unsharp mask: r, g, b become p + amount * (p - gaussian(p, sigma)); alpha kept.",
        )
        .input(source())
        .input(
            InputSpec::optional(
                "amount",
                ValueType::Float,
                Value::Float(1.0),
                "how much of the detail is added back",
            )
            .with_rule(Rule::Finite),
        )
        .input(
            InputSpec::optional(
                "sigma",
                ValueType::Float,
                Value::Float(1.0),
                "the blur taken away, standard deviation in pixels",
            )
            .with_rule(Rule::between(0.0, crate::filters::MAX_SIGMA)),
        )
        .param(edges_param())
        .output(OutputSpec::new("out", IMAGE_TYPE, "the sharpened image")),
        |call, out| {
            let img = call.heavy::<Image>(0, "image")?;
            let amount = call.float(1)?;
            let sigma = call.float(2)?.clamp(0.0, crate::filters::MAX_SIGMA);
            let edges = Edges::parse(call.param_str(0)?);
            let blurred = gaussian(call, img, sigma, edges)?;
            out[0] = by_rows(call, img.width, img.height, |y, row| {
                for (x, o) in row.iter_mut().enumerate() {
                    let (p, b) = (img.get(x as u32, y), blurred.get(x as u32, y));
                    *o = std::array::from_fn(|c| {
                        if c == 3 {
                            p[3]
                        } else {
                            (p[c] as f64 + amount * (p[c] as f64 - b[c] as f64)) as f32
                        }
                    });
                }
            })?
            .into_value();
            Ok(())
        },
    ))?;
    reg.register(FnOp::new(
        OpSpec::new(
            "image.edges",
            "Edge detection: the Sobel gradient magnitude of the luminance, |G| / 8 * \
             strength (the slope per pixel), as grey.",
        )
        .input(source())
        .input(strength(1.0, "the factor on the magnitude"))
        .param(edges_param())
        .output(OutputSpec::new("out", IMAGE_TYPE, "the edges, grey")),
        |call, out| {
            let img = call.heavy::<Image>(0, "image")?;
            let s = call.float(1)?;
            let edges = Edges::parse(call.param_str(0)?);
            out[0] = by_rows(call, img.width, img.height, |y, row| {
                for (x, o) in row.iter_mut().enumerate() {
                    let (gx, gy) = sobel(img, x as i64, y as i64, edges);
                    *o = grey((gx * gx + gy * gy).sqrt() / 8.0 * s);
                }
            })?
            .into_value();
            Ok(())
        },
    ))?;
    reg.register(FnOp::new(
        OpSpec::new(
            "image.emboss",
            "Emboss: 0.5 - strength * (G . l) / 8, the Sobel gradient G of the luminance \
             along the light direction l at `angle` degrees (0 from the right, 90 from the \
             top): slopes facing the light are bright; grey.",
        )
        .input(source())
        .input(strength(4.0, "how deep the relief looks"))
        .input(
            InputSpec::optional(
                "angle",
                ValueType::Float,
                Value::Float(135.0),
                "where the light comes from, degrees anticlockwise from the right",
            )
            .with_rule(Rule::Finite),
        )
        .param(edges_param())
        .output(OutputSpec::new("out", IMAGE_TYPE, "the relief, grey")),
        |call, out| {
            let img = call.heavy::<Image>(0, "image")?;
            let s = call.float(1)?;
            let a = call.float(2)?.to_radians();
            // Rows grow downwards, so "from the top" is -y.
            let (lx, ly) = (a.cos(), -a.sin());
            let edges = Edges::parse(call.param_str(0)?);
            out[0] = by_rows(call, img.width, img.height, |y, row| {
                for (x, o) in row.iter_mut().enumerate() {
                    let (gx, gy) = sobel(img, x as i64, y as i64, edges);
                    *o = grey(0.5 - s * (gx * lx + gy * ly) / 8.0);
                }
            })?
            .into_value();
            Ok(())
        },
    ))
}
