//! The `image.expr` and `math.expr` nodes.

use super::emit::{Env, Operand, emit};
use super::parse::{Item, parse};
use crate::field::{Noise2, Px, Tape, eval::run_scalar};
use crate::image::{IMAGE_TYPE, with_size_params};
use crate::noise::{Fbm, FbmNoise, MAX_OCTAVES, Perlin, mix_seed};
use crate::per_pixel::{self, Arg};
use crate::ramp::Ramp;
use kiln_core::context::EvalContext;
use kiln_core::op::{
    InputSpec, OpError, OpSpec, OutputSpec, ParamSpec, Reads, Rule, RuleEnv, Violation,
};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};
use std::sync::Arc;

/// The op id of the image formula.
pub const IMAGE_EXPR_OP: &str = "image.expr";
/// The op id of the number formula.
pub const MATH_EXPR_OP: &str = "math.expr";

/// Param indices of `image.expr` (after `width`, `height`).
const FORMULA: usize = 2;
const STOPS: usize = 3;
const SEED: usize = 4;
const OCTAVES: usize = 5;

fn formula_rule(v: &Value, _env: &RuleEnv) -> Result<(), Violation> {
    let src = v
        .as_str()
        .ok_or_else(|| Violation::new("a formula (a string)", v.type_name()))?;
    parse(src)
        .map(drop)
        .map_err(|e| Violation::new("a formula", e.to_string()))
}

fn items(params: &[Value], i: usize) -> Result<Vec<(Item, usize)>, OpError> {
    let src = params
        .get(i)
        .and_then(Value::as_str)
        .ok_or_else(|| OpError::param(i, "expected a formula"))?;
    parse(src).map_err(|e| OpError::param(i, e.to_string()))
}

/// One octave of the node's Perlin noise.
struct PerlinNoise(Perlin);

impl Noise2 for PerlinNoise {
    fn sample(&self, x: f64, y: f64) -> f64 {
        self.0.noise(x, y)
    }
}

/// The builder of `image.expr`: r, g and b from the formula (one pass per channel over the
/// postfix items), alpha 1.
pub(crate) fn build<'a>(
    t: &mut Tape<'a>,
    args: &[Arg<'_>],
    params: &[Value],
    ctx: &EvalContext,
) -> Result<Px, OpError> {
    let items = items(params, FORMULA)?;
    let mut inputs = [Operand::Scalar(0); 4];
    for (k, slot) in inputs.iter_mut().enumerate() {
        *slot = match args.get(k) {
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
        let (w, h) = per_pixel::size(params, ctx)?;
        t.set_size(w, h, 0)?;
    }
    let uses = |f: super::parse::Func| items.iter().any(|(i, _)| *i == Item::Call(f));
    let seed = mix_seed(
        params.get(SEED).and_then(Value::as_i64).unwrap_or(0),
        ctx.seed,
    );
    let noises = if uses(super::parse::Func::Noise) || uses(super::parse::Func::Fbm) {
        let octaves = params
            .get(OCTAVES)
            .and_then(Value::as_i64)
            .unwrap_or(5)
            .clamp(1, MAX_OCTAVES) as u32;
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
        let r = Ramp::parse(params.get(STOPS).unwrap_or(&Value::Empty), STOPS)?;
        Some(t.add_ramp(r)?)
    } else {
        None
    };
    let mut px = [0; 4];
    for c in 0..3u8 {
        let env = Env {
            inputs,
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

const INPUTS: [&str; 4] = ["a", "b", "c", "d"];

/// Register `image.expr` and `math.expr`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    let mut spec = with_size_params(
        OpSpec::new(
            IMAGE_EXPR_OP,
            "A formula per pixel over the inputs a..d (images or numbers), the pixel \
             coordinates (x, y in the unit square; px, py; w, h) and the clock (t), e.g. \
             `mix(a, b, smoothstep(0.3, 0.7, y)) * (1 + 0.1 * sin(t))`: r, g and b are the \
             formula (an image input is the channel computed; a.r picks one), alpha 1. The \
             size is the image inputs' (they must agree), else width x height.",
        )
        .reads(Reads::SEED.with(Reads::TIME)),
    );
    debug_assert!(spec.reads.has(Reads::RESOLUTION));
    for name in INPUTS {
        spec = spec.input(InputSpec::optional(
            name,
            ValueType::Any,
            Value::Float(0.0),
            "an image or a number the formula reads by this name",
        ));
    }
    let spec = spec
        .param(
            ParamSpec::new(
                "formula",
                ValueType::String,
                Value::str("a"),
                "the formula (see the kiln-image docs of `expr`)",
            )
            .with_rule(Rule::Check(formula_rule)),
        )
        .param(
            ParamSpec::new(
                "stops",
                ValueType::List,
                crate::ramp::default_stops(),
                "the colour ramp `ramp(t)` reads",
            )
            .with_rule(Rule::Check(crate::ramp::stops_rule)),
        )
        .param(ParamSpec::new(
            "seed",
            ValueType::Int,
            Value::Int(0),
            "the seed of noise(x, y) and fbm(x, y), mixed with the evaluation's",
        ))
        .param(
            ParamSpec::new(
                "octaves",
                ValueType::Int,
                Value::Int(5),
                "octaves of fbm(x, y)",
            )
            .with_rule(Rule::Ints {
                min: 1,
                max: MAX_OCTAVES,
            }),
        )
        .output(OutputSpec::new(
            "out",
            IMAGE_TYPE,
            "the image the formula paints",
        ));
    reg.register(crate::fn_op::FnOp::new(spec, |call, out| {
        per_pixel::exec(call, out, build)
    }))?;

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
