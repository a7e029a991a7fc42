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
//! Every op here is a per-pixel op: its steps go on a field tape ([`crate::per_pixel`]),
//! rendered in one pass (bands of rows on the rayon pool, a cancellation check and a progress
//! report per band), or fused with the per-pixel ops around it into one `image.fused` node.
//! `build_rows` is the sequential row loop of the ops that are not per-pixel (the blur).

use crate::field::{Binary, Px, Tape};
use crate::fn_op::FnOp;
use crate::image::{IMAGE_TYPE, Image, with_fixed_size_params};
use crate::per_pixel;
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

fn unary(id: &'static str, doc: &'static str, exec: crate::fn_op::ExecFn) -> FnOp {
    FnOp::new(
        OpSpec::new(id, doc)
            .input(InputSpec::required("image", IMAGE_TYPE, "the source image"))
            .output(OutputSpec::new("out", IMAGE_TYPE, "the processed image")),
        exec,
    )
}

/// `op(x, y)` per channel of two pixels.
fn zip(t: &mut Tape<'_>, x: Px, y: Px, op: Binary) -> Result<Px, OpError> {
    let mut px = [0; 4];
    for c in 0..4 {
        px[c] = t.binary32(op, x[c], y[c])?;
    }
    Ok(px)
}

/// Per-channel sum `a + b` of two images of the same size (alpha included).
#[kiln_core::op("image.add", per_pixel, out = "the combined image")]
pub fn add(
    tape: &mut Tape<'_>,
    #[input("first image")] a: Px,
    #[input("second image, the same size as `a`")] b: Px,
) -> Result<Px, OpError> {
    zip(tape, a, b, Binary::Add)
}

/// Per-channel difference `a - b` of two images of the same size (alpha included).
#[kiln_core::op("image.sub", per_pixel, out = "the combined image")]
pub fn sub(
    tape: &mut Tape<'_>,
    #[input("first image")] a: Px,
    #[input("second image, the same size as `a`")] b: Px,
) -> Result<Px, OpError> {
    zip(tape, a, b, Binary::Sub)
}

/// Per-channel product `a * b` of two images of the same size (alpha included).
#[kiln_core::op("image.mul", per_pixel, out = "the combined image")]
pub fn mul(
    tape: &mut Tape<'_>,
    #[input("first image")] a: Px,
    #[input("second image, the same size as `a`")] b: Px,
) -> Result<Px, OpError> {
    zip(tape, a, b, Binary::Mul)
}

/// Per-channel blend `a * (1 - t) + b * t` of two images of the same size.
#[kiln_core::op("image.mix", per_pixel, out = "the blended image")]
pub fn mix(
    tape: &mut Tape<'_>,
    #[input("the image at t = 0")] a: Px,
    #[input("the image at t = 1, the same size as `a`")] b: Px,
    #[input("blend factor (0 gives `a`, 1 gives `b`)", default = 0.5, rule = Rule::Finite)] t: f64,
) -> Result<Px, OpError> {
    let f = t as f32;
    let (s, f) = (tape.constant((1.0 - f) as f64)?, tape.constant(f as f64)?);
    let mut px = [0; 4];
    for c in 0..4 {
        let l = tape.binary32(Binary::Mul, a[c], s)?;
        let r = tape.binary32(Binary::Mul, b[c], f)?;
        px[c] = tape.binary32(Binary::Add, l, r)?;
    }
    Ok(px)
}

/// Register the ops of this module.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(FnOp::new(
        with_fixed_size_params(
            OpSpec::new("image.fill", "A solid image of one colour.").input(InputSpec::optional(
                "color",
                ValueType::Color,
                Value::Color([0.0, 0.0, 0.0, 1.0]),
                "the fill colour (default opaque black)",
            )),
        )
        .output(OutputSpec::new("out", IMAGE_TYPE, "the filled image")),
        |call, out| per_pixel::exec(call, out, per_pixel::fill),
    ))?;
    reg.register(AddOp::new())?;
    reg.register(SubOp::new())?;
    reg.register(MulOp::new())?;
    reg.register(MixOp::new())?;
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
        |call, out| per_pixel::exec(call, out, per_pixel::gain),
    ))?;
    reg.register(unary(
        "image.invert",
        "Invert the colour channels: `1 - rgb`, alpha unchanged.",
        |call, out| per_pixel::exec(call, out, per_pixel::invert),
    ))?;
    reg.register(unary(
        "image.clamp",
        "Clamp every channel (alpha included) to [0, 1].",
        |call, out| per_pixel::exec(call, out, per_pixel::clamp),
    ))?;
    Ok(())
}
