//! The `image.expr` and `math.expr` nodes.

use super::emit::{Env, Operand, emit};
use super::parse::{Item, parse};
use crate::field::{Noise2, Px, Tape, eval::run_scalar};
use crate::image::{REQUEST_HEIGHT_DOC, REQUEST_WIDTH_DOC, SIDE_RULE, pixels_rule};
use crate::noise::{Fbm, FbmNoise, MAX_OCTAVES, Perlin, mix_seed};
use crate::per_pixel::{self, Arg};
use crate::ramp::Ramp;
use kiln_core::context::EvalContext;
use kiln_core::op::{OpError, Rule, RuleEnv, Violation};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};
use std::sync::Arc;

/// The op id of the image formula.
pub const IMAGE_EXPR_OP: &str = "image.expr";
/// The op id of the number formula.
pub const MATH_EXPR_OP: &str = "math.expr";

fn formula_rule(v: &Value, _env: &RuleEnv) -> Result<(), Violation> {
    let src = v
        .as_str()
        .ok_or_else(|| Violation::new("a formula (a string)", v.type_name()))?;
    parse(src)
        .map(drop)
        .map_err(|e| Violation::new("a formula", e.to_string()))
}

/// One octave of the node's Perlin noise.
struct PerlinNoise(Perlin);

impl Noise2 for PerlinNoise {
    fn sample(&self, x: f64, y: f64) -> f64 {
        self.0.noise(x, y)
    }
}

/// The names of `image.expr`'s inputs.
const INPUTS: [&str; 4] = ["a", "b", "c", "d"];

/// A formula per pixel over the inputs a..d (images or numbers), the pixel coordinates (x, y
/// in the unit square; px, py; w, h) and the clock (t), e.g. `mix(a, b, smoothstep(0.3, 0.7,
/// y)) * (1 + 0.1 * sin(t))`: r, g and b are the formula (an image input is the channel
/// computed; a.r picks one), alpha 1. The size is the image inputs' (they must agree), else
/// width x height.
#[kiln_core::op(
    "image.expr",
    per_pixel,
    reads = "seed, time, resolution, preview",
    params_rule = pixels_rule,
    out = "the image the formula paints"
)]
#[allow(clippy::too_many_arguments)]
pub fn image_expr(
    tape: &mut Tape<'_>,
    #[input(
        "an image or a number the formula reads by this name",
        ports = INPUTS,
        ty = ValueType::Any,
        default = 0.0
    )]
    inputs: &[Arg<'_>],
    #[param(REQUEST_WIDTH_DOC, default = 0, rule = SIDE_RULE, plan_time)] width: i64,
    #[param(REQUEST_HEIGHT_DOC, default = 0, rule = SIDE_RULE, plan_time)] height: i64,
    #[param(
        "the formula (see the kiln-image docs of `expr`)",
        default = "a",
        rule = Rule::Check(formula_rule)
    )]
    formula: &str,
    #[param(
        "the colour ramp `ramp(t)` reads",
        ty = ValueType::List,
        default = crate::ramp::default_stops(),
        rule = Rule::Check(crate::ramp::stops_rule)
    )]
    stops: &Value,
    #[param(
        "the seed of noise(x, y) and fbm(x, y), mixed with the evaluation's",
        default = 0
    )]
    seed: i64,
    #[param(
        "octaves of fbm(x, y)",
        default = 5,
        rule = Rule::Ints { min: 1, max: MAX_OCTAVES }
    )]
    octaves: i64,
    ctx: &EvalContext,
) -> Result<Px, OpError> {
    let t = tape;
    // r, g and b from the formula (one pass per channel over the postfix items), alpha 1.
    let items = parse(formula).map_err(|e| OpError::param(2, e.to_string()))?;
    let mut operands = [Operand::Scalar(0); 4];
    for (k, slot) in operands.iter_mut().enumerate() {
        *slot = match inputs.get(k) {
            Some(Arg::Pixels(px)) => Operand::Pixels(*px),
            Some(Arg::Value(v)) => match v.as_f64() {
                Some(f) => Operand::Scalar(t.constant(f)?),
                None if matches!(v, Value::Empty) => Operand::Scalar(t.constant(0.0)?),
                None => {
                    return Err(OpError::input(
                        k,
                        format!("expected a number or an image, found {}", v.type_name()),
                    ));
                }
            },
            None => Operand::Scalar(t.constant(0.0)?),
        };
    }
    if t.size.is_none() {
        per_pixel::request_sized(t, width, height, ctx)?;
    }
    let uses = |f: super::parse::Func| items.iter().any(|(i, _)| *i == Item::Call(f));
    let seed = mix_seed(seed, ctx.seed);
    let noises = if uses(super::parse::Func::Noise) || uses(super::parse::Func::Fbm) {
        let octaves = octaves.clamp(1, MAX_OCTAVES) as u32;
        let one = t.add_noise(Arc::new(PerlinNoise(Perlin::new(seed))))?;
        let many = t.add_noise(Arc::new(FbmNoise {
            perlin: Perlin::new(seed),
            fbm: Fbm {
                octaves,
                ..Fbm::default()
            },
        }))?;
        Some((one, many))
    } else {
        None
    };
    let ramp = if uses(super::parse::Func::Ramp) {
        // `stops` is param 3 (after `width`, `height` and `formula`).
        Some(t.add_ramp(Ramp::parse(stops, 3)?)?)
    } else {
        None
    };
    let mut px = [0; 4];
    for c in 0..3u8 {
        let env = Env {
            inputs: operands,
            channel: c,
            pixels: true,
            noises,
            ramp,
        };
        px[c as usize] = emit(t, &items, &env)?;
    }
    px[3] = t.constant(1.0)?;
    Ok(px)
}

/// Register `image.expr` and `math.expr`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(ImageExprOp::new())?;
    reg.register(MathExprOp::new())
}

/// A formula over the numbers a..d and the clock t, e.g. `clamp(a * 2 - b, 0, 1)` (the
/// functions of image.expr but noise and ramp).
#[kiln_core::op("math.expr", reads = "time", out = "the formula's value")]
pub fn math_expr(
    #[input("a number the formula reads by this name", default = 0.0)] a: f64,
    #[input("a number the formula reads by this name", default = 0.0)] b: f64,
    #[input("a number the formula reads by this name", default = 0.0)] c: f64,
    #[input("a number the formula reads by this name", default = 0.0)] d: f64,
    #[param("the formula", default = "a", rule = Rule::Check(formula_rule))] formula: &str,
    ctx: &EvalContext,
) -> Result<f64, OpError> {
    let items = parse(formula).map_err(|e| OpError::param(0, e.to_string()))?;
    let mut t = Tape::new();
    let mut inputs = [Operand::Scalar(0); 4];
    for (slot, v) in inputs.iter_mut().zip([a, b, c, d]) {
        *slot = Operand::Scalar(t.constant(v)?);
    }
    let env = Env {
        inputs,
        channel: 0,
        pixels: false,
        noises: None,
        ramp: None,
    };
    let r = emit(&mut t, &items, &env)?;
    Ok(run_scalar(&t, r, ctx.time))
}
