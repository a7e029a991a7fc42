//! The per-pixel ops as tape builders: each appends its steps to a [`Tape`] given its inputs
//! (the pixels of an image input as registers, any other input as its value) and params. The
//! op run alone builds a tape over its own inputs and renders it; `image.fused` replays the
//! builders of a whole chain onto one tape and renders once (see [`crate::fuse`]).

use crate::field::{Px, Tape};
use crate::image::{Image, check_size, request_size};
use kiln_core::context::EvalContext;
use kiln_core::op::{OpCall, OpError, Rule, RuleEnv};
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

/// The per-pixel ops: each one's id and builder. Those written with `#[op(.., per_pixel)]`
/// give both from their function; the rest (an `octaves` or `stops` input that was a param,
/// inputs that take an image or a number) are builders of their own, registered with
/// [`exec`].
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
    ("image.noise", crate::noise::noise_image),
    ("image.ramp", crate::ramp::ramp_image),
    ("image.fractal", crate::generators::fractal),
    (
        "image.domain_warp",
        crate::generators::domain_warp::domain_warp,
    ),
    ("image.expr", crate::expr::ops::build),
    ("image.blend", crate::patterns::blend),
    ("image.merge_channels", crate::channels::merge),
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

pub(crate) fn float(args: &[Arg<'_>], i: usize) -> Result<f64, OpError> {
    let v = value(args, i)?;
    v.as_f64()
        .ok_or_else(|| OpError::input(i, format!("expected float, found {}", v.type_name())))
}

pub(crate) fn vec2(args: &[Arg<'_>], i: usize) -> Result<[f64; 2], OpError> {
    match value(args, i)? {
        Value::Vec2(v) => Ok(*v),
        other => Err(OpError::input(
            i,
            format!("expected vec2, found {}", other.type_name()),
        )),
    }
}

/// Input `i` (port `port`) checked against `rule`: an op run alone has its inputs' rules
/// checked before it runs, but a fused member's inputs reach its builder unchecked, so a
/// builder whose input has a rule checks it here (the error names the port).
pub(crate) fn checked<'v>(
    args: &[Arg<'v>],
    i: usize,
    port: &str,
    rule: &Rule,
) -> Result<&'v Value, OpError> {
    let v = value(args, i)?;
    rule.check(v, &RuleEnv::default())
        .map_err(|e| OpError::input(i, format!("input `{port}`: {e}")))?;
    Ok(v)
}

/// The `octaves` input `i` of a fractal noise: an int from 1 to [`MAX_OCTAVES`](crate::noise::MAX_OCTAVES).
pub(crate) fn octaves(args: &[Arg<'_>], i: usize) -> Result<u32, OpError> {
    let v = checked(args, i, "octaves", &crate::noise::OCTAVES_RULE)?;
    v.as_i64().map(|o| o as u32).ok_or_else(|| {
        OpError::input(
            i,
            format!("input `octaves`: expected int, found {}", v.type_name()),
        )
    })
}

pub(crate) fn param_int(params: &[Value], i: usize) -> Result<i64, OpError> {
    params
        .get(i)
        .and_then(Value::as_i64)
        .ok_or_else(|| OpError::param(i, "expected int"))
}

pub(crate) fn param_float(params: &[Value], i: usize) -> Result<f64, OpError> {
    params
        .get(i)
        .and_then(Value::as_f64)
        .ok_or_else(|| OpError::param(i, "expected float"))
}

/// The size from the `width` and `height` params (the first two), a side of 0 the
/// request's.
pub(crate) fn size(p: &[Value], ctx: &EvalContext) -> Result<(u32, u32), OpError> {
    let (w, h) = request_size(param_int(p, 0)?, param_int(p, 1)?, ctx);
    check_size(w, h, 0, 1)
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
