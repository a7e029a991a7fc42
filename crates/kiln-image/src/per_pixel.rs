//! The per-pixel ops as tape builders: each appends its steps to a [`Tape`] given its inputs
//! (the pixels of an image input as registers, any other input as its value) and params. The
//! op run alone builds a tape over its own inputs and renders it; `image.fused` replays the
//! builders of a whole chain onto one tape and renders once (see [`crate::fuse`]).

use crate::field::{Binary, Coord, Noise2, Px, Step, Tape, Ternary};
use crate::image::{Image, check_size, request_size};
use crate::noise::{Fbm, Perlin, mix_seed};
use crate::ramp::Ramp;
use kiln_core::context::EvalContext;
use kiln_core::op::{OpCall, OpError, Rule, RuleEnv};
use kiln_core::value::Value;
use std::sync::Arc;

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

/// The per-pixel ops written with `#[op(.., per_pixel)]`: each one's id and builder, both
/// from its function.
const PER_PIXEL: &[(&str, Build)] = &[
    crate::image_ops::AddOp::PER_PIXEL,
    crate::image_ops::SubOp::PER_PIXEL,
    crate::image_ops::MulOp::PER_PIXEL,
    crate::image_ops::MixOp::PER_PIXEL,
];

/// The builder of a per-pixel op, by op id (`None`: not a per-pixel op).
pub fn builder(op: &str) -> Option<Build> {
    if let Some((_, b)) = PER_PIXEL.iter().find(|(id, _)| *id == op) {
        return Some(*b);
    }
    Some(match op {
        "image.noise" => noise,
        "image.fill" => fill,
        "image.gain" => gain,
        "image.invert" => invert,
        "image.clamp" => clamp,
        "image.ramp" => ramp,
        "image.rect" => rect,
        "image.expr" => crate::expr::ops::build,
        "image.fractal" => crate::generators::fractal,
        "image.domain_warp" => crate::generators::domain_warp::domain_warp,
        "image.cells" => crate::generators::cellular,
        "image.checker" => crate::patterns::checker,
        "image.stripes" => crate::patterns::stripes,
        "image.bricks" => crate::patterns::bricks,
        "image.gradient" => crate::patterns::gradient,
        "image.shape" => crate::patterns::shape,
        "image.blend" => crate::patterns::blend,
        "image.levels" => crate::tone::levels,
        "image.gamma" => crate::tone::gamma,
        "image.posterize" => crate::tone::posterize,
        "image.threshold" => crate::tone::threshold,
        "image.grey" => crate::tone::grey,
        "image.swizzle" => crate::tone::swizzle,
        "image.curves" => crate::curves::curves,
        "image.merge_channels" => crate::channels::merge,
        "image.hsv" => crate::colour::hsv,
        "image.colorize" => crate::colour::colorize,
        "image.hexagons" => crate::tilings::hexagons,
        "image.weave" => crate::tilings::weave,
        _ => return None,
    })
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

fn float(args: &[Arg<'_>], i: usize) -> Result<f64, OpError> {
    let v = value(args, i)?;
    v.as_f64()
        .ok_or_else(|| OpError::input(i, format!("expected float, found {}", v.type_name())))
}

fn vec2(args: &[Arg<'_>], i: usize) -> Result<[f64; 2], OpError> {
    match value(args, i)? {
        Value::Vec2(v) => Ok(*v),
        other => Err(OpError::input(
            i,
            format!("expected vec2, found {}", other.type_name()),
        )),
    }
}

fn color(args: &[Arg<'_>], i: usize) -> Result<[f32; 4], OpError> {
    let v = value(args, i)?;
    v.as_color()
        .ok_or_else(|| OpError::input(i, format!("expected color, found {}", v.type_name())))
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

fn param_int(params: &[Value], i: usize) -> Result<i64, OpError> {
    params
        .get(i)
        .and_then(Value::as_i64)
        .ok_or_else(|| OpError::param(i, "expected int"))
}

fn param_float(params: &[Value], i: usize) -> Result<f64, OpError> {
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

fn consts(t: &mut Tape<'_>, c: [f32; 4]) -> Result<Px, OpError> {
    let mut px = [0; 4];
    for (r, v) in px.iter_mut().zip(c) {
        *r = t.constant(v as f64)?;
    }
    Ok(px)
}

pub(crate) fn fill<'a>(
    t: &mut Tape<'a>,
    a: &[Arg<'_>],
    p: &[Value],
    _: &EvalContext,
) -> Result<Px, OpError> {
    // A size of its own: image.fill does not read the request's.
    let (w, h) = check_size(param_int(p, 0)?, param_int(p, 1)?, 0, 1)?;
    t.set_size(w, h, 0)?;
    consts(t, color(a, 0)?)
}

pub(crate) fn gain<'a>(
    t: &mut Tape<'a>,
    a: &[Arg<'_>],
    _: &[Value],
    _: &EvalContext,
) -> Result<Px, OpError> {
    let x = pixels(a, 0)?;
    let g = t.constant(float(a, 1)? as f32 as f64)?;
    let b = t.constant(float(a, 2)? as f32 as f64)?;
    let mut px = x;
    for c in 0..3 {
        let m = t.binary32(Binary::Mul, x[c], g)?;
        px[c] = t.binary32(Binary::Add, m, b)?;
    }
    Ok(px)
}

pub(crate) fn invert<'a>(
    t: &mut Tape<'a>,
    a: &[Arg<'_>],
    _: &[Value],
    _: &EvalContext,
) -> Result<Px, OpError> {
    let x = pixels(a, 0)?;
    let one = t.constant(1.0)?;
    let mut px = x;
    for c in 0..3 {
        px[c] = t.binary32(Binary::Sub, one, x[c])?;
    }
    Ok(px)
}

pub(crate) fn clamp<'a>(
    t: &mut Tape<'a>,
    a: &[Arg<'_>],
    _: &[Value],
    _: &EvalContext,
) -> Result<Px, OpError> {
    let x = pixels(a, 0)?;
    let (lo, hi) = (t.constant(0.0)?, t.constant(1.0)?);
    let mut px = x;
    for c in 0..4 {
        px[c] = t.push(Step::Ternary(Ternary::Clamp, x[c], lo, hi))?;
    }
    Ok(px)
}

pub(crate) fn ramp<'a>(
    t: &mut Tape<'a>,
    a: &[Arg<'_>],
    _: &[Value],
    _: &EvalContext,
) -> Result<Px, OpError> {
    let x = pixels(a, 0)?;
    let ramp = Ramp::parse_input(checked(a, 1, "stops", &crate::ramp::STOPS_RULE)?, 1)?;
    let id = t.add_ramp(ramp)?;
    let lum = crate::ramp::luminance_steps(t, x)?;
    let mut px = [0; 4];
    for (c, r) in px.iter_mut().enumerate() {
        *r = t.push(Step::Ramp {
            ramp: id,
            t: lum,
            channel: c as u8,
        })?;
    }
    Ok(px)
}

/// fBm of improved Perlin noise as a field.
pub(crate) struct FbmNoise {
    pub(crate) perlin: Perlin,
    pub(crate) fbm: Fbm,
}

impl Noise2 for FbmNoise {
    fn sample(&self, x: f64, y: f64) -> f64 {
        self.perlin.fbm(x, y, &self.fbm)
    }
    fn sample_lanes(&self, xs: &[f64], ys: &[f64], out: &mut [f64]) {
        self.perlin.fbm_lanes(xs, ys, &self.fbm, out);
    }
}

pub(crate) fn noise<'a>(
    t: &mut Tape<'a>,
    a: &[Arg<'_>],
    p: &[Value],
    ctx: &EvalContext,
) -> Result<Px, OpError> {
    let (w, h) = size(p, ctx)?;
    t.set_size(w, h, 0)?;
    let fbm = Fbm {
        octaves: octaves(a, 2)?,
        lacunarity: param_float(p, 2)?,
        gain: param_float(p, 3)?,
    };
    let seed = mix_seed(param_int(p, 4)?, ctx.seed);
    let scale = float(a, 0)?;
    let offset = vec2(a, 1)?;
    let id = t.add_noise(Arc::new(FbmNoise {
        perlin: Perlin::new(seed),
        fbm,
    }))?;
    let (half, sc, wd) = (t.constant(0.5)?, t.constant(scale)?, t.constant(w as f64)?);
    let mut point = [0; 2];
    for (k, c) in [Coord::X, Coord::Y].into_iter().enumerate() {
        let i = t.push(Step::Coord(c))?;
        let s = t.binary(Binary::Add, i, half)?;
        let s = t.binary(Binary::Mul, s, sc)?;
        let s = t.binary(Binary::Div, s, wd)?;
        let o = t.constant(offset[k])?;
        point[k] = t.binary(Binary::Add, o, s)?;
    }
    let n = t.push(Step::Noise {
        noise: id,
        x: point[0],
        y: point[1],
    })?;
    let g = t.binary(Binary::Mul, n, half)?;
    let g = t.binary(Binary::Add, g, half)?;
    let (lo, hi) = (t.constant(0.0)?, t.constant(1.0)?);
    let g = t.push(Step::Ternary(Ternary::Clamp, g, lo, hi))?;
    Ok([g, g, g, hi])
}

pub(crate) fn rect<'a>(
    t: &mut Tape<'a>,
    a: &[Arg<'_>],
    _: &[Value],
    _: &EvalContext,
) -> Result<Px, OpError> {
    let x = pixels(a, 0)?;
    let [x0, y0] = vec2(a, 1)?;
    let [x1, y1] = vec2(a, 2)?;
    let paint = consts(t, color(a, 3)?)?;
    let one = t.constant(1.0)?;
    let mut inside = one;
    for (coord, lo, hi) in [(Coord::U, x0, x1), (Coord::V, y0, y1)] {
        let c = t.push(Step::Coord(coord))?;
        let (lo, hi) = (t.constant(lo)?, t.constant(hi)?);
        let above = t.binary(Binary::Step, lo, c)?;
        let past = t.binary(Binary::Step, hi, c)?;
        let below = t.binary(Binary::Sub, one, past)?;
        let m = t.binary(Binary::Mul, above, below)?;
        inside = t.binary(Binary::Mul, inside, m)?;
    }
    let mut px = [0; 4];
    for c in 0..4 {
        px[c] = t.push(Step::Ternary(Ternary::Select, inside, paint[c], x[c]))?;
    }
    Ok(px)
}
