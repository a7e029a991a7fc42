//! Patterns and blend modes written as formulas (see [`crate::expr`]) over their params:
//! `image.checker`, `image.stripes`, `image.bricks`, `image.gradient`, `image.shape` (signed
//! distances with a bevel) and `image.blend`. Counts of whole cells tile seamlessly. Each is
//! a per-pixel op, so it fuses with the ops around it.

use crate::expr::emit::{Env, Operand, emit};
use crate::expr::parse::parse;
use crate::field::{Px, Tape};
use crate::image::{REQUEST_HEIGHT_DOC, REQUEST_WIDTH_DOC, SIDE_RULE, pixels_rule};
use crate::per_pixel::{Arg, request_sized};
use kiln_core::context::EvalContext;
use kiln_core::op::{OpError, Rule};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::ValueType;

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

/// A generator of the formula `src` over the scalars `a`, `b`, `c` (the values `abc`, 0
/// past them), on a tape of the size the `width` and `height` params give.
fn generator(
    t: &mut Tape<'_>,
    (width, height): (i64, i64),
    ctx: &EvalContext,
    src: &str,
    abc: &[f64],
) -> Result<Px, OpError> {
    request_sized(t, width, height, ctx)?;
    let mut inputs = [Operand::Scalar(0); 4];
    for (k, slot) in inputs.iter_mut().enumerate() {
        let v = abc.get(k).copied().unwrap_or(0.0);
        *slot = Operand::Scalar(t.constant(v)?);
    }
    let one = t.constant(1.0)?;
    formula(t, src, inputs, one)
}

/// A checkerboard of `cells` squares across (and down) the image: 1 and 0.
#[kiln_core::op(
    "image.checker",
    per_pixel,
    reads = "resolution, preview",
    params_rule = pixels_rule,
    out = "the pattern, grey in [0, 1]"
)]
pub fn checker(
    tape: &mut Tape<'_>,
    #[param(REQUEST_WIDTH_DOC, default = 0, rule = SIDE_RULE, plan_time)] width: i64,
    #[param(REQUEST_HEIGHT_DOC, default = 0, rule = SIDE_RULE, plan_time)] height: i64,
    #[param("squares across the image", default = 8.0, rule = Rule::POSITIVE)] cells: f64,
    ctx: &EvalContext,
) -> Result<Px, OpError> {
    generator(
        tape,
        (width, height),
        ctx,
        "mod(floor(x * a) + floor(y * a), 2)",
        &[cells],
    )
}

/// Vertical stripes: `count` across the image, each 1 over the first `duty` of its width.
#[kiln_core::op(
    "image.stripes",
    per_pixel,
    reads = "resolution, preview",
    params_rule = pixels_rule,
    out = "the pattern, grey in [0, 1]"
)]
pub fn stripes(
    tape: &mut Tape<'_>,
    #[param(REQUEST_WIDTH_DOC, default = 0, rule = SIDE_RULE, plan_time)] width: i64,
    #[param(REQUEST_HEIGHT_DOC, default = 0, rule = SIDE_RULE, plan_time)] height: i64,
    #[param("stripes across the image", default = 8.0, rule = Rule::POSITIVE)] count: f64,
    #[param(
        "the lit fraction of each stripe (0..=1)",
        default = 0.5,
        rule = Rule::between(0.0, 1.0)
    )]
    duty: f64,
    ctx: &EvalContext,
) -> Result<Px, OpError> {
    generator(
        tape,
        (width, height),
        ctx,
        "1 - step(b, fract(x * a))",
        &[count, duty],
    )
}

/// A running-bond brick mask: 1 on bricks, 0 on mortar; `columns` x `rows` bricks, odd rows
/// shifted by half a brick.
#[kiln_core::op(
    "image.bricks",
    per_pixel,
    reads = "resolution, preview",
    params_rule = pixels_rule,
    out = "the pattern, grey in [0, 1]"
)]
pub fn bricks(
    tape: &mut Tape<'_>,
    #[param(REQUEST_WIDTH_DOC, default = 0, rule = SIDE_RULE, plan_time)] width: i64,
    #[param(REQUEST_HEIGHT_DOC, default = 0, rule = SIDE_RULE, plan_time)] height: i64,
    #[param("bricks across the image", default = 4.0, rule = Rule::POSITIVE)] columns: f64,
    #[param("rows down the image", default = 8.0, rule = Rule::POSITIVE)] rows: f64,
    #[param(
        "mortar width, a fraction of a brick's height",
        default = 0.1,
        rule = Rule::between(0.0, 1.0)
    )]
    mortar: f64,
    ctx: &EvalContext,
) -> Result<Px, OpError> {
    // a columns, b rows, c mortar (a fraction of a brick's height); odd rows shift by half a
    // brick. fx, fy: the place inside the brick.
    generator(
        tape,
        (width, height),
        ctx,
        "step(c * 0.5 * a / b, fract(x * a + 0.5 * mod(floor(y * b), 2))) \
         * step(fract(x * a + 0.5 * mod(floor(y * b), 2)), 1 - c * 0.5 * a / b) \
         * step(c * 0.5, fract(y * b)) * step(fract(y * b), 1 - c * 0.5)",
        &[columns, rows, mortar],
    )
}

/// A gradient: linear (x, 0 at the left to 1 at the right), radial (0 at the centre to 1 at
/// the middle of each edge) or angular (the angle about the centre, 0 to 1).
#[kiln_core::op(
    "image.gradient",
    per_pixel,
    reads = "resolution, preview",
    params_rule = pixels_rule,
    out = "the pattern, grey in [0, 1]"
)]
pub fn gradient(
    tape: &mut Tape<'_>,
    #[param(REQUEST_WIDTH_DOC, default = 0, rule = SIDE_RULE, plan_time)] width: i64,
    #[param(REQUEST_HEIGHT_DOC, default = 0, rule = SIDE_RULE, plan_time)] height: i64,
    #[param(
        "linear, radial or angular",
        default = "linear",
        rule = Rule::OneOf(&["linear", "radial", "angular"])
    )]
    mode: &str,
    ctx: &EvalContext,
) -> Result<Px, OpError> {
    let src = match mode {
        "radial" => "saturate(2 * sqrt((x - 0.5) ^ 2 + (y - 0.5) ^ 2))",
        "angular" => "atan2(y - 0.5, x - 0.5) / tau + 0.5",
        _ => "x",
    };
    let t = tape;
    request_sized(t, width, height, ctx)?;
    let zero = t.constant(0.0)?;
    let one = t.constant(1.0)?;
    formula(t, src, [Operand::Scalar(zero); 4], one)
}

/// A centred circle or square from its signed distance d (negative inside): saturate(-d /
/// bevel), so 1 inside, 0 outside and a ramp `bevel` wide at the edge.
#[kiln_core::op(
    "image.shape",
    per_pixel,
    reads = "resolution, preview",
    params_rule = pixels_rule,
    out = "the pattern, grey in [0, 1]"
)]
pub fn shape(
    tape: &mut Tape<'_>,
    #[param(REQUEST_WIDTH_DOC, default = 0, rule = SIDE_RULE, plan_time)] width: i64,
    #[param(REQUEST_HEIGHT_DOC, default = 0, rule = SIDE_RULE, plan_time)] height: i64,
    #[param(
        "circle or box",
        default = "circle",
        rule = Rule::OneOf(&["circle", "box"])
    )]
    shape: &str,
    #[param(
        "radius or half side, in the unit square",
        default = 0.3,
        rule = Rule::Finite
    )]
    size: f64,
    #[param("width of the edge ramp", default = 0.05, rule = Rule::NON_NEGATIVE)] bevel: f64,
    ctx: &EvalContext,
) -> Result<Px, OpError> {
    // a: radius (circle) or half side (box), b: bevel width; the value is the signed
    // distance d (negative inside) as saturate(-d / bevel).
    let src = match shape {
        "box" => "saturate(-(max(abs(x - 0.5), abs(y - 0.5)) - a) / max(b, 1e-9))",
        _ => "saturate(-(sqrt((x - 0.5) ^ 2 + (y - 0.5) ^ 2) - a) / max(b, 1e-9))",
    };
    let t = tape;
    request_sized(t, width, height, ctx)?;
    let a = t.constant(size)?;
    let b = t.constant(bevel)?;
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

/// Blend `b` over `a` by a mode (normal, multiply, screen, overlay, soft-light, add,
/// subtract, difference, darken, lighten): per colour channel mix(a, f(a, b), opacity *
/// mask); alpha is a's.
#[kiln_core::op("image.blend", per_pixel, out = "the blended image")]
pub fn blend(
    tape: &mut Tape<'_>,
    #[input("the base image")] a: Px,
    #[input("the blended layer, the size of `a`")] b: Px,
    #[input(
        "where to blend: an image (per channel) or a number",
        ty = ValueType::Any,
        default = 1.0
    )]
    mask: Arg<'_>,
    #[input("the strength of the blend", default = 1.0, rule = Rule::Finite)] opacity: f64,
    #[param(
        "the blend mode",
        default = "normal",
        rule = Rule::OneOf(&[
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
        ])
    )]
    mode: &str,
) -> Result<Px, OpError> {
    let t = tape;
    let f = BLEND_MODES
        .iter()
        .find(|(m, _)| *m == mode)
        .map(|(_, f)| *f)
        .ok_or_else(|| OpError::param(0, format!("unknown blend mode `{mode}`")))?;
    let mask = match mask {
        Arg::Pixels(px) => Operand::Pixels(px),
        Arg::Value(v) => Operand::Scalar(t.constant(v.as_f64().unwrap_or(1.0))?),
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

/// Register the patterns and `image.blend`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(CheckerOp::new())?;
    reg.register(StripesOp::new())?;
    reg.register(BricksOp::new())?;
    reg.register(GradientOp::new())?;
    reg.register(ShapeOp::new())?;
    reg.register(BlendOp::new())
}
