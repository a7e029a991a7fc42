//! Per-pixel image maths.
//!
//! * `image.fill` — a solid image of one colour.
//! * `image.add`, `image.sub`, `image.mul` — per-channel arithmetic on two images of the same
//!   size (alpha included).
//! * `image.mix` — `a * (1 - t) + b * t`, per channel.
//! * `image.gain` — `rgb * gain + bias`, alpha unchanged.
//! * `image.invert` — `1 - rgb`, alpha unchanged.
//! * `image.clamp` — every channel clamped to `[0, 1]`.
//!
//! Every op here builds its result row by row through one shared loop (`build_rows` and the
//! `map_image` / `zip_images` wrappers, also used by the noise and ramp nodes), which
//! checks for cancellation on every row and reports progress every 16 rows.

use crate::fn_op::FnOp;
use crate::image::{IMAGE_TYPE, Image, check_size, with_size_params};
use kiln_core::op::{InputSpec, OpCall, OpError, OpSpec, OutputSpec, Rule};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};

/// One RGBA pixel.
pub(crate) type Pixel = [f32; 4];

/// Build a `width` x `height` image row by row. `row(y, out)` must append exactly `width`
/// pixels for row `y` to `out`. The pixels are reserved through [`kiln_core::memory`] (an
/// image over the budget, or one the allocator cannot give, is an error). Checks
/// cancellation before every row and reports progress every 16 rows.
pub(crate) fn build_rows(
    call: &OpCall<'_>,
    width: u32,
    height: u32,
    mut row: impl FnMut(u32, &mut Vec<Pixel>),
) -> Result<Image, OpError> {
    // Capacity only: pages are touched as rows are written, so a cancelled big image costs
    // little. Checked against the memory budget and reserved fallibly, so an image that
    // does not fit is this node's error.
    let mut pixels: Vec<Pixel> =
        kiln_core::memory::try_vec(width as usize * height as usize, || {
            format!("an image of {width} x {height} pixels")
        })
        .map_err(|e| OpError::new(e.to_string()))?;
    for y in 0..height {
        call.check_cancel()?;
        if y % 16 == 0 {
            call.ctx.report_node_progress(y as f32 / height as f32);
        }
        let before = pixels.len();
        row(y, &mut pixels);
        debug_assert_eq!(
            pixels.len() - before,
            width as usize,
            "row {y} has the wrong width"
        );
    }
    Ok(Image {
        width,
        height,
        pixels,
    })
}

/// Build an image pixel by pixel from `f(x, y)`.
pub(crate) fn generate(
    call: &OpCall<'_>,
    width: u32,
    height: u32,
    mut f: impl FnMut(u32, u32) -> Pixel,
) -> Result<Image, OpError> {
    build_rows(call, width, height, |y, out| {
        out.extend((0..width).map(|x| f(x, y)))
    })
}

/// The pixels of row `y`.
fn row_of(img: &Image, y: u32) -> &[Pixel] {
    let w = img.width as usize;
    let start = y as usize * w;
    &img.pixels[start..start + w]
}

/// Apply `f` to every pixel of `img`.
pub(crate) fn map_image(
    call: &OpCall<'_>,
    img: &Image,
    mut f: impl FnMut(Pixel) -> Pixel,
) -> Result<Image, OpError> {
    build_rows(call, img.width, img.height, |y, out| {
        out.extend(row_of(img, y).iter().map(|&p| f(p)))
    })
}

/// Combine two images of equal size pixel by pixel. `bi` is the input index of `b`, named in
/// the size-mismatch error.
pub(crate) fn zip_images(
    call: &OpCall<'_>,
    a: &Image,
    b: &Image,
    bi: usize,
    mut f: impl FnMut(Pixel, Pixel) -> Pixel,
) -> Result<Image, OpError> {
    if (a.width, a.height) != (b.width, b.height) {
        return Err(OpError::input(
            bi,
            format!(
                "size {}x{} does not match a's {}x{}",
                b.width, b.height, a.width, a.height
            ),
        ));
    }
    build_rows(call, a.width, a.height, |y, out| {
        out.extend(
            row_of(a, y)
                .iter()
                .zip(row_of(b, y))
                .map(|(&p, &q)| f(p, q)),
        )
    })
}

/// The image at input `i`.
fn image_input<'a>(call: &'a OpCall<'_>, i: usize) -> Result<&'a Image, OpError> {
    call.heavy::<Image>(i, "image")
}

fn binary(id: &'static str, doc: &'static str, exec: crate::fn_op::ExecFn) -> FnOp {
    FnOp::new(
        OpSpec::new(id, doc)
            .input(InputSpec::required("a", IMAGE_TYPE, "first image"))
            .input(InputSpec::required(
                "b",
                IMAGE_TYPE,
                "second image, the same size as `a`",
            ))
            .output(OutputSpec::new("out", IMAGE_TYPE, "the combined image")),
        exec,
    )
}

fn unary(id: &'static str, doc: &'static str, exec: crate::fn_op::ExecFn) -> FnOp {
    FnOp::new(
        OpSpec::new(id, doc)
            .input(InputSpec::required("image", IMAGE_TYPE, "the source image"))
            .output(OutputSpec::new("out", IMAGE_TYPE, "the processed image")),
        exec,
    )
}

fn exec_binary(
    call: &OpCall<'_>,
    out: &mut [Value],
    f: impl Fn(f32, f32) -> f32,
) -> Result<(), OpError> {
    let a = image_input(call, 0)?;
    let b = image_input(call, 1)?;
    out[0] = zip_images(call, a, b, 1, |p, q| std::array::from_fn(|c| f(p[c], q[c])))?.into_value();
    Ok(())
}

/// Register the ops of this module.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(FnOp::new(
        with_size_params(
            OpSpec::new("image.fill", "A solid image of one colour.").input(InputSpec::optional(
                "color",
                ValueType::Color,
                Value::Color([0.0, 0.0, 0.0, 1.0]),
                "the fill colour (default opaque black)",
            )),
        )
        .output(OutputSpec::new("out", IMAGE_TYPE, "the filled image")),
        |call, out| {
            let (w, h) = check_size(call.param_int(0)?, call.param_int(1)?, 0, 1)?;
            let c = call.color(0)?;
            out[0] = build_rows(call, w, h, |_, row| {
                row.extend(std::iter::repeat_n(c, w as usize))
            })?
            .into_value();
            Ok(())
        },
    ))?;
    reg.register(binary(
        "image.add",
        "Per-channel sum `a + b` of two images of the same size (alpha included).",
        |call, out| exec_binary(call, out, |x, y| x + y),
    ))?;
    reg.register(binary(
        "image.sub",
        "Per-channel difference `a - b` of two images of the same size (alpha included).",
        |call, out| exec_binary(call, out, |x, y| x - y),
    ))?;
    reg.register(binary(
        "image.mul",
        "Per-channel product `a * b` of two images of the same size (alpha included).",
        |call, out| exec_binary(call, out, |x, y| x * y),
    ))?;
    reg.register(FnOp::new(
        OpSpec::new(
            "image.mix",
            "Per-channel blend `a * (1 - t) + b * t` of two images of the same size.",
        )
        .input(InputSpec::required("a", IMAGE_TYPE, "the image at t = 0"))
        .input(InputSpec::required(
            "b",
            IMAGE_TYPE,
            "the image at t = 1, the same size as `a`",
        ))
        .input(
            InputSpec::optional(
                "t",
                ValueType::Float,
                Value::Float(0.5),
                "blend factor (0 gives `a`, 1 gives `b`)",
            )
            .with_rule(Rule::Finite),
        )
        .output(OutputSpec::new("out", IMAGE_TYPE, "the blended image")),
        |call, out| {
            let a = image_input(call, 0)?;
            let b = image_input(call, 1)?;
            let t = call.float(2)? as f32;
            let s = 1.0 - t;
            out[0] = zip_images(call, a, b, 1, |p, q| {
                std::array::from_fn(|c| p[c] * s + q[c] * t)
            })?
            .into_value();
            Ok(())
        },
    ))?;
    reg.register(FnOp::new(
        OpSpec::new(
            "image.gain",
            "Scale and offset the colour channels: `rgb * gain + bias`, alpha unchanged.",
        )
        .input(InputSpec::required("image", IMAGE_TYPE, "the source image"))
        .input(
            InputSpec::optional(
                "gain",
                ValueType::Float,
                Value::Float(1.0),
                "factor applied to r, g and b",
            )
            .with_rule(Rule::Finite),
        )
        .input(
            InputSpec::optional(
                "bias",
                ValueType::Float,
                Value::Float(0.0),
                "amount added to r, g and b after scaling",
            )
            .with_rule(Rule::Finite),
        )
        .output(OutputSpec::new("out", IMAGE_TYPE, "the adjusted image")),
        |call, out| {
            let img = image_input(call, 0)?;
            let gain = call.float(1)? as f32;
            let bias = call.float(2)? as f32;
            out[0] = map_image(call, img, |p| {
                [
                    p[0] * gain + bias,
                    p[1] * gain + bias,
                    p[2] * gain + bias,
                    p[3],
                ]
            })?
            .into_value();
            Ok(())
        },
    ))?;
    reg.register(unary(
        "image.invert",
        "Invert the colour channels: `1 - rgb`, alpha unchanged.",
        |call, out| {
            let img = image_input(call, 0)?;
            out[0] =
                map_image(call, img, |p| [1.0 - p[0], 1.0 - p[1], 1.0 - p[2], p[3]])?.into_value();
            Ok(())
        },
    ))?;
    reg.register(unary(
        "image.clamp",
        "Clamp every channel (alpha included) to [0, 1].",
        |call, out| {
            let img = image_input(call, 0)?;
            out[0] = map_image(call, img, |p| p.map(|c| c.clamp(0.0, 1.0)))?.into_value();
            Ok(())
        },
    ))?;
    Ok(())
}
