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

use crate::field::{Binary, Px, Step, Tape, Ternary};
use crate::image::{FIXED_SIDE_RULE, Image, check_size, pixels_rule};
use crate::per_pixel::consts;
use kiln_core::op::{OpCall, OpError, Rule};
use kiln_core::registry::{Registry, RegistryError};

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

/// A solid image of one colour.
#[kiln_core::op("image.fill", per_pixel, params_rule = pixels_rule, out = "the filled image")]
pub fn fill(
    tape: &mut Tape<'_>,
    #[param("width in pixels", default = 256, rule = FIXED_SIDE_RULE, plan_time)] width: i64,
    #[param("height in pixels", default = 256, rule = FIXED_SIDE_RULE, plan_time)] height: i64,
    #[input("the fill colour (default opaque black)", default = [0.0, 0.0, 0.0, 1.0])] color: [f32;
        4],
) -> Result<Px, OpError> {
    // A size of its own: image.fill does not read the request's.
    let (w, h) = check_size(width, height, 0, 1)?;
    tape.set_size(w, h, 0)?;
    consts(tape, color)
}

/// Scale and offset the colour channels: `rgb * gain + bias`, alpha unchanged.
#[kiln_core::op("image.gain", per_pixel, out = "the adjusted image")]
pub fn gain(
    tape: &mut Tape<'_>,
    #[input("the source image")] image: Px,
    #[input("factor applied to r, g and b", default = 1.0, rule = Rule::Finite)] gain: f64,
    #[input("amount added to r, g and b after scaling", default = 0.0, rule = Rule::Finite)]
    bias: f64,
) -> Result<Px, OpError> {
    let g = tape.constant(gain as f32 as f64)?;
    let b = tape.constant(bias as f32 as f64)?;
    let mut px = image;
    for c in 0..3 {
        let m = tape.binary32(Binary::Mul, image[c], g)?;
        px[c] = tape.binary32(Binary::Add, m, b)?;
    }
    Ok(px)
}

/// Invert the colour channels: `1 - rgb`, alpha unchanged.
#[kiln_core::op("image.invert", per_pixel, out = "the processed image")]
pub fn invert(tape: &mut Tape<'_>, #[input("the source image")] image: Px) -> Result<Px, OpError> {
    let one = tape.constant(1.0)?;
    let mut px = image;
    for c in 0..3 {
        px[c] = tape.binary32(Binary::Sub, one, image[c])?;
    }
    Ok(px)
}

/// Clamp every channel (alpha included) to [0, 1].
#[kiln_core::op("image.clamp", per_pixel, out = "the processed image")]
pub fn clamp(tape: &mut Tape<'_>, #[input("the source image")] image: Px) -> Result<Px, OpError> {
    let (lo, hi) = (tape.constant(0.0)?, tape.constant(1.0)?);
    let mut px = image;
    for c in 0..4 {
        px[c] = tape.push(Step::Ternary(Ternary::Clamp, image[c], lo, hi))?;
    }
    Ok(px)
}

/// Register the ops of this module.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(FillOp::new())?;
    reg.register(AddOp::new())?;
    reg.register(SubOp::new())?;
    reg.register(MulOp::new())?;
    reg.register(MixOp::new())?;
    reg.register(GainOp::new())?;
    reg.register(InvertOp::new())?;
    reg.register(ClampOp::new())?;
    Ok(())
}
