//! Patterns and blend modes written as formulas (see [`crate::expr`]) over their params:
//! `image.checker`, `image.stripes`, `image.bricks`, `image.gradient`, `image.shape` (signed
//! distances with a bevel) and `image.blend`. Counts of whole cells tile seamlessly. Each is
//! a per-pixel op, so it fuses with the ops around it.

use crate::expr::emit::{Env, Operand, emit};
use crate::expr::parse::parse;
use crate::field::{Px, Tape};
use crate::fn_op::FnOp;
use crate::image::{IMAGE_TYPE, with_size_params};
use crate::per_pixel::{self, Arg};
use kiln_core::context::EvalContext;
use kiln_core::op::{InputSpec, OpError, OpSpec, OutputSpec, ParamSpec, Rule};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};

/// r, g and b from the formula `src` over `inputs` (a grey formula gives the same three),
/// alpha from `alpha`.
fn formula(t: &mut Tape<'_>, src: &str, inputs: [Operand; 4], alpha: u32) -> Result<Px, OpError> {
    let items = parse(src).map_err(|e| OpError::new(format!("formula `{src}`: {e}")))?;
    let mut px = [alpha; 4];
    for c in 0..3u8 {
        let env = Env {
            inputs,
            channel: c,
            pixels: true,
            noises: None,
            ramp: None,
        };
        px[c as usize] = emit(t, &items, &env)?;
    }
    Ok(px)
}

fn num(p: &[Value], i: usize) -> Result<f64, OpError> {
    p.get(i)
        .and_then(Value::as_f64)
        .ok_or_else(|| OpError::param(i, "expected a number"))
}

fn text(p: &[Value], i: usize) -> Result<&str, OpError> {
    p.get(i)
        .and_then(Value::as_str)
        .ok_or_else(|| OpError::param(i, "expected a string"))
}

/// A generator from its params `2..` (after the size) as scalars `a`, `b`, `c`.
fn generator(
    t: &mut Tape<'_>,
    p: &[Value],
    ctx: &EvalContext,
    src: &str,
    n: usize,
) -> Result<Px, OpError> {
    let (w, h) = per_pixel::size(p, ctx)?;
    t.set_size(w, h, 0)?;
    let mut inputs = [Operand::Scalar(0); 4];
    for (k, slot) in inputs.iter_mut().enumerate() {
        let v = if k < n { num(p, 2 + k)? } else { 0.0 };
        *slot = Operand::Scalar(t.constant(v)?);
    }
    let one = t.constant(1.0)?;
    formula(t, src, inputs, one)
}

pub(crate) fn checker<'a>(
    t: &mut Tape<'a>,
    _: &[Arg<'_>],
    p: &[Value],
    ctx: &EvalContext,
) -> Result<Px, OpError> {
    generator(t, p, ctx, "mod(floor(x * a) + floor(y * a), 2)", 1)
}

pub(crate) fn stripes<'a>(
    t: &mut Tape<'a>,
    _: &[Arg<'_>],
    p: &[Value],
    ctx: &EvalContext,
) -> Result<Px, OpError> {
    generator(t, p, ctx, "1 - step(b, fract(x * a))", 2)
}

pub(crate) fn bricks<'a>(
    t: &mut Tape<'a>,
    _: &[Arg<'_>],
    p: &[Value],
    ctx: &EvalContext,
) -> Result<Px, OpError> {
    // a columns, b rows, c mortar (a fraction of a brick's height); odd rows shift by half a
    // brick. fx, fy: the place inside the brick.
    generator(
        t,
        p,
        ctx,
        "step(c * 0.5 * a / b, fract(x * a + 0.5 * mod(floor(y * b), 2))) \
         * step(fract(x * a + 0.5 * mod(floor(y * b), 2)), 1 - c * 0.5 * a / b) \
         * step(c * 0.5, fract(y * b)) * step(fract(y * b), 1 - c * 0.5)",
        3,
    )
}

pub(crate) fn gradient<'a>(
    t: &mut Tape<'a>,
    _: &[Arg<'_>],
    p: &[Value],
    ctx: &EvalContext,
) -> Result<Px, OpError> {
    let src = match text(p, 2)? {
        "radial" => "saturate(2 * sqrt((x - 0.5) ^ 2 + (y - 0.5) ^ 2))",
        "angular" => "atan2(y - 0.5, x - 0.5) / tau + 0.5",
        _ => "x",
    };
    let (w, h) = per_pixel::size(p, ctx)?;
    t.set_size(w, h, 0)?;
    let zero = t.constant(0.0)?;
    let one = t.constant(1.0)?;
    formula(t, src, [Operand::Scalar(zero); 4], one)
}

pub(crate) fn shape<'a>(
    t: &mut Tape<'a>,
    _: &[Arg<'_>],
    p: &[Value],
    ctx: &EvalContext,
) -> Result<Px, OpError> {
    // a: radius (circle) or half side (box), b: bevel width; the value is the signed
    // distance d (negative inside) as saturate(-d / bevel).
    let src = match text(p, 2)? {
        "box" => "saturate(-(max(abs(x - 0.5), abs(y - 0.5)) - a) / max(b, 1e-9))",
        _ => "saturate(-(sqrt((x - 0.5) ^ 2 + (y - 0.5) ^ 2) - a) / max(b, 1e-9))",
    };
    let (w, h) = per_pixel::size(p, ctx)?;
    t.set_size(w, h, 0)?;
    let a = t.constant(num(p, 3)?)?;
    let b = t.constant(num(p, 4)?)?;
    let one = t.constant(1.0)?;
    formula(
        t,
        src,
        [
            Operand::Scalar(a),
            Operand::Scalar(b),
            Operand::Scalar(one),
            Operand::Scalar(one),
        ],
        one,
    )
}

/// The blend modes and their formulas over the base `a` and the layer `b` (per channel).
pub const BLEND_MODES: [(&str, &str); 10] = [
    ("normal", "b"),
    ("multiply", "a * b"),
    ("screen", "1 - (1 - a) * (1 - b)"),
    (
        "overlay",
        "select(0.5 - a, 2 * a * b, 1 - 2 * (1 - a) * (1 - b))",
    ),
    ("soft-light", "(1 - 2 * b) * a * a + 2 * b * a"),
    ("add", "a + b"),
    ("subtract", "a - b"),
    ("difference", "abs(a - b)"),
    ("darken", "min(a, b)"),
    ("lighten", "max(a, b)"),
];

pub(crate) fn blend<'a>(
    t: &mut Tape<'a>,
    args: &[Arg<'_>],
    p: &[Value],
    _: &EvalContext,
) -> Result<Px, OpError> {
    let mode = text(p, 0)?;
    let f = BLEND_MODES
        .iter()
        .find(|(m, _)| *m == mode)
        .map(|(_, f)| *f)
        .ok_or_else(|| OpError::param(0, format!("unknown blend mode `{mode}`")))?;
    let image = |k: usize| match args.get(k) {
        Some(Arg::Pixels(px)) => Ok(*px),
        _ => Err(OpError::input(k, "expected image")),
    };
    let (a, b) = (image(0)?, image(1)?);
    let mask = match args.get(2) {
        Some(Arg::Pixels(px)) => Operand::Pixels(*px),
        Some(Arg::Value(v)) => Operand::Scalar(t.constant(v.as_f64().unwrap_or(1.0))?),
        None => Operand::Scalar(t.constant(1.0)?),
    };
    let opacity = match args.get(3) {
        Some(Arg::Value(v)) => v.as_f64().unwrap_or(1.0),
        _ => 1.0,
    };
    let d = Operand::Scalar(t.constant(opacity)?);
    let src = format!("mix(a, {f}, d * c)");
    formula(
        t,
        &src,
        [Operand::Pixels(a), Operand::Pixels(b), mask, d],
        a[3],
    )
}

fn count(name: &'static str, default: f64, doc: &'static str) -> ParamSpec {
    ParamSpec::new(name, ValueType::Float, Value::Float(default), doc).with_rule(Rule::POSITIVE)
}

fn generator_op(
    id: &'static str,
    doc: &'static str,
    params: Vec<ParamSpec>,
    exec: crate::fn_op::ExecFn,
) -> FnOp {
    let mut spec = with_size_params(OpSpec::new(id, doc));
    for p in params {
        spec = spec.param(p);
    }
    FnOp::new(
        spec.output(OutputSpec::new(
            "out",
            IMAGE_TYPE,
            "the pattern, grey in [0, 1]",
        )),
        exec,
    )
}

/// Register the patterns and `image.blend`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(generator_op(
        "image.checker",
        "A checkerboard of `cells` squares across (and down) the image: 1 and 0.",
        vec![count("cells", 8.0, "squares across the image")],
        |call, out| per_pixel::exec(call, out, checker),
    ))?;
    reg.register(generator_op(
        "image.stripes",
        "Vertical stripes: `count` across the image, each 1 over the first `duty` of its width.",
        vec![
            count("count", 8.0, "stripes across the image"),
            ParamSpec::new(
                "duty",
                ValueType::Float,
                Value::Float(0.5),
                "the lit fraction of each stripe (0..=1)",
            )
            .with_rule(Rule::between(0.0, 1.0)),
        ],
        |call, out| per_pixel::exec(call, out, stripes),
    ))?;
    reg.register(generator_op(
        "image.bricks",
        "A running-bond brick mask: 1 on bricks, 0 on mortar; `columns` x `rows` bricks, odd rows \
         shifted by half a brick.",
        vec![
            count("columns", 4.0, "bricks across the image"),
            count("rows", 8.0, "rows down the image"),
            ParamSpec::new(
                "mortar",
                ValueType::Float,
                Value::Float(0.1),
                "mortar width, a fraction of a brick's height",
            )
            .with_rule(Rule::between(0.0, 1.0)),
        ],
        |call, out| per_pixel::exec(call, out, bricks),
    ))?;
    reg.register(generator_op(
        "image.gradient",
        "A gradient: linear (x, 0 at the left to 1 at the right), radial (0 at the centre to 1 \
         at the middle of each edge) or angular (the angle about the centre, 0 to 1).",
        vec![
            ParamSpec::new(
                "mode",
                ValueType::String,
                Value::str("linear"),
                "linear, radial or angular",
            )
            .with_rule(Rule::OneOf(&["linear", "radial", "angular"])),
        ],
        |call, out| per_pixel::exec(call, out, gradient),
    ))?;
    reg.register(generator_op(
        "image.shape",
        "A centred circle or square from its signed distance d (negative inside): \
         saturate(-d / bevel), so 1 inside, 0 outside and a ramp `bevel` wide at the edge.",
        vec![
            ParamSpec::new(
                "shape",
                ValueType::String,
                Value::str("circle"),
                "circle or box",
            )
            .with_rule(Rule::OneOf(&["circle", "box"])),
            ParamSpec::new(
                "size",
                ValueType::Float,
                Value::Float(0.3),
                "radius or half side, in the unit square",
            )
            .with_rule(Rule::Finite),
            ParamSpec::new(
                "bevel",
                ValueType::Float,
                Value::Float(0.05),
                "width of the edge ramp",
            )
            .with_rule(Rule::NON_NEGATIVE),
        ],
        |call, out| per_pixel::exec(call, out, shape),
    ))?;
    reg.register(FnOp::new(
        OpSpec::new(
            "image.blend",
            "Blend `b` over `a` by a mode (normal, multiply, screen, overlay, soft-light, add, \
             subtract, difference, darken, lighten): per colour channel mix(a, f(a, b), \
             opacity * mask); alpha is a's.",
        )
        .input(InputSpec::required("a", IMAGE_TYPE, "the base image"))
        .input(InputSpec::required(
            "b",
            IMAGE_TYPE,
            "the blended layer, the size of `a`",
        ))
        .input(InputSpec::optional(
            "mask",
            ValueType::Any,
            Value::Float(1.0),
            "where to blend: an image (per channel) or a number",
        ))
        .input(
            InputSpec::optional(
                "opacity",
                ValueType::Float,
                Value::Float(1.0),
                "the strength of the blend",
            )
            .with_rule(Rule::Finite),
        )
        .param(
            ParamSpec::new(
                "mode",
                ValueType::String,
                Value::str("normal"),
                "the blend mode",
            )
            .with_rule(Rule::OneOf(&[
                "normal",
                "multiply",
                "screen",
                "overlay",
                "soft-light",
                "add",
                "subtract",
                "difference",
                "darken",
                "lighten",
            ])),
        )
        .output(OutputSpec::new("out", IMAGE_TYPE, "the blended image")),
        |call, out| per_pixel::exec(call, out, blend),
    ))
}
