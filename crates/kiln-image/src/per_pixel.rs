//! The per-pixel ops as tape builders: each appends its steps to a [`Tape`] given its inputs
//! (the pixels of an image input as registers, any other input as its value) and params. The
//! op run alone builds a tape over its own inputs and renders it; `image.fused` replays the
//! builders of a whole chain onto one tape and renders once (see [`crate::fuse`]).

use crate::field::{Px, Tape};
use crate::image::{Image, check_size, request_size};
use kiln_core::context::EvalContext;
use kiln_core::op::{OpCall, OpError};
use kiln_core::value::Value;

/// An input of a per-pixel op as its builder sees it.
#[derive(Clone, Copy, Debug)]
pub enum Arg<'v> {
    /// An image input: the registers of its pixel.
    Pixels(Px),
    /// Any other input: its value.
    Value(&'v Value),
}

/// A builder: append the op's steps to the tape and return the registers of its pixel.
pub type Build =
    for<'a> fn(&mut Tape<'a>, &[Arg<'_>], &[Value], &EvalContext) -> Result<Px, OpError>;

/// The per-pixel ops: each one's id and builder, both given by its `#[op(.., per_pixel)]`
/// function.
const PER_PIXEL: &[(&str, Build)] = &[
    crate::image_ops::AddOp::PER_PIXEL,
    crate::image_ops::SubOp::PER_PIXEL,
    crate::image_ops::MulOp::PER_PIXEL,
    crate::image_ops::MixOp::PER_PIXEL,
    crate::image_ops::FillOp::PER_PIXEL,
    crate::image_ops::GainOp::PER_PIXEL,
    crate::image_ops::InvertOp::PER_PIXEL,
    crate::image_ops::ClampOp::PER_PIXEL,
    crate::shapes::RectOp::PER_PIXEL,
    crate::tone::LevelsOp::PER_PIXEL,
    crate::tone::GammaOp::PER_PIXEL,
    crate::tone::PosterizeOp::PER_PIXEL,
    crate::tone::ThresholdOp::PER_PIXEL,
    crate::tone::GreyOp::PER_PIXEL,
    crate::tone::SwizzleOp::PER_PIXEL,
    crate::curves::CurvesOp::PER_PIXEL,
    crate::colour::HsvOp::PER_PIXEL,
    crate::colour::ColorizeOp::PER_PIXEL,
    crate::patterns::CheckerOp::PER_PIXEL,
    crate::patterns::StripesOp::PER_PIXEL,
    crate::patterns::BricksOp::PER_PIXEL,
    crate::patterns::GradientOp::PER_PIXEL,
    crate::patterns::ShapeOp::PER_PIXEL,
    crate::generators::CellularOp::PER_PIXEL,
    crate::tilings::HexagonsOp::PER_PIXEL,
    crate::tilings::WeaveOp::PER_PIXEL,
    crate::noise::ImageNoiseOp::PER_PIXEL,
    crate::ramp::ImageRampOp::PER_PIXEL,
    crate::generators::FractalOp::PER_PIXEL,
    crate::generators::domain_warp::DomainWarpOp::PER_PIXEL,
    crate::expr::ops::ImageExprOp::PER_PIXEL,
    crate::patterns::BlendOp::PER_PIXEL,
    crate::channels::MergeChannelsOp::PER_PIXEL,
];

/// The builder of a per-pixel op, by op id (`None`: not a per-pixel op).
pub fn builder(op: &str) -> Option<Build> {
    PER_PIXEL.iter().find(|(id, _)| *id == op).map(|(_, b)| *b)
}

/// Run a per-pixel op alone: its image inputs become leaves of a fresh tape.
pub fn exec(call: &OpCall<'_>, out: &mut [Value], build: Build) -> Result<(), OpError> {
    let mut tape = Tape::new();
    let mut args = Vec::with_capacity(call.inputs.len());
    for (i, v) in call.inputs.iter().enumerate() {
        args.push(match v.as_heavy::<Image>() {
            Some(img) => Arg::Pixels(tape.image(img, i)?),
            None => Arg::Value(v),
        });
    }
    let px = build(&mut tape, &args, call.params, call.ctx)?;
    out[0] = crate::field::render(call, &tape, px)?.into_value();
    Ok(())
}

/// The pixel registers of image input `i`, or an error naming the port.
pub fn pixels(args: &[Arg<'_>], i: usize) -> Result<Px, OpError> {
    match args.get(i) {
        Some(Arg::Pixels(p)) => Ok(*p),
        Some(Arg::Value(v)) => Err(OpError::input(
            i,
            format!("expected image, found {}", v.type_name()),
        )),
        None => Err(OpError::input(i, "expected image, found nothing")),
    }
}

/// The value at non-image input `i`, or an error naming the port.
pub fn value<'v>(args: &[Arg<'v>], i: usize) -> Result<&'v Value, OpError> {
    match args.get(i) {
        Some(Arg::Value(v)) => Ok(v),
        _ => Err(OpError::input(i, "expected a value, found an image")),
    }
}

/// Set the size of a generator's tape from its `width` and `height` params (a side of 0 the
/// request's, see [`request_size`]), checked as the size params' rules say; the size set.
pub(crate) fn request_sized(
    t: &mut Tape<'_>,
    width: i64,
    height: i64,
    ctx: &EvalContext,
) -> Result<(u32, u32), OpError> {
    let (w, h) = request_size(width, height, ctx);
    let (w, h) = check_size(w, h, 0, 1)?;
    t.set_size(w, h, 0)?;
    Ok((w, h))
}

/// The four channels of a colour as constants.
pub(crate) fn consts(t: &mut Tape<'_>, c: [f32; 4]) -> Result<Px, OpError> {
    let mut px = [0; 4];
    for (r, v) in px.iter_mut().zip(c) {
        *r = t.constant(v as f64)?;
    }
    Ok(px)
}
