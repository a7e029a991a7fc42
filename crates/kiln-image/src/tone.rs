//! Tone and channel ops as per-pixel builders (so they fuse): `image.levels`, `image.gamma`,
//! `image.posterize`, `image.threshold`, `image.grey` (formulas over the pixel, params written
//! into the formula as numbers) and `image.swizzle` (channels rearranged, no step at all).
//! Alpha passes through unchanged but for `image.swizzle`.

use crate::expr::emit::{Env, Operand, emit};
use crate::expr::parse::parse;
use crate::field::{Px, Tape};
use crate::fn_op::FnOp;
use crate::image::IMAGE_TYPE;
use crate::per_pixel::{self, Arg};
use kiln_core::context::EvalContext;
use kiln_core::op::{InputSpec, OpError, OpSpec, OutputSpec, ParamSpec, Rule, RuleEnv, Violation};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};

fn pixels(args: &[Arg<'_>]) -> Result<Px, OpError> {
    match args.first() {
        Some(Arg::Pixels(px)) => Ok(*px),
        _ => Err(OpError::input(0, "expected image")),
    }
}

fn num(p: &[Value], i: usize) -> Result<f64, OpError> {
    p.get(i)
        .and_then(Value::as_f64)
        .ok_or_else(|| OpError::param(i, "expected a number"))
}

/// r, g, b from `src` over the image `a` (each channel in turn), alpha kept.
fn per_channel(t: &mut Tape<'_>, args: &[Arg<'_>], src: &str) -> Result<Px, OpError> {
    let a = pixels(args)?;
    let items = parse(src).map_err(|e| OpError::new(format!("formula `{src}`: {e}")))?;
    let zero = t.constant(0.0)?;
    let mut px = a;
    for c in 0..3u8 {
        let env = Env {
            inputs: [
                Operand::Pixels(a),
                Operand::Scalar(zero),
                Operand::Scalar(zero),
                Operand::Scalar(zero),
            ],
            channel: c,
            pixels: true,
            noises: None,
            ramp: None,
        };
        px[c as usize] = emit(t, &items, &env)?;
    }
    Ok(px)
}

/// A number as formula text that reads back as the same `f64` (params are finite).
fn n(v: f64) -> String {
    format!("({v:?})")
}

pub(crate) fn levels<'a>(
    t: &mut Tape<'a>,
    a: &[Arg<'_>],
    p: &[Value],
    _: &EvalContext,
) -> Result<Px, OpError> {
    let (il, ih, g, ol, oh) = (num(p, 0)?, num(p, 1)?, num(p, 2)?, num(p, 3)?, num(p, 4)?);
    let src = format!(
        "mix({}, {}, pow(saturate((a - {}) / max({} - {}, 1e-12)), 1 / {}))",
        n(ol),
        n(oh),
        n(il),
        n(ih),
        n(il),
        n(g)
    );
    per_channel(t, a, &src)
}

pub(crate) fn gamma<'a>(
    t: &mut Tape<'a>,
    a: &[Arg<'_>],
    p: &[Value],
    _: &EvalContext,
) -> Result<Px, OpError> {
    per_channel(t, a, &format!("pow(max(a, 0), 1 / {})", n(num(p, 0)?)))
}

pub(crate) fn posterize<'a>(
    t: &mut Tape<'a>,
    a: &[Arg<'_>],
    p: &[Value],
    _: &EvalContext,
) -> Result<Px, OpError> {
    let k = n(num(p, 0)?);
    per_channel(
        t,
        a,
        &format!("min(floor(saturate(a) * {k}), {k} - 1) / ({k} - 1)"),
    )
}

const LUMA: &str = "(0.2126 * a.r + 0.7152 * a.g + 0.0722 * a.b)";

pub(crate) fn threshold<'a>(
    t: &mut Tape<'a>,
    a: &[Arg<'_>],
    p: &[Value],
    _: &EvalContext,
) -> Result<Px, OpError> {
    per_channel(t, a, &format!("step({}, {LUMA})", n(num(p, 0)?)))
}

pub(crate) fn grey<'a>(
    t: &mut Tape<'a>,
    a: &[Arg<'_>],
    _: &[Value],
    _: &EvalContext,
) -> Result<Px, OpError> {
    per_channel(t, a, LUMA)
}

fn swizzle_rule(v: &Value, _: &RuleEnv) -> Result<(), Violation> {
    match v.as_str() {
        Some(s) if s.len() == 4 && s.chars().all(|c| "rgba01".contains(c)) => Ok(()),
        _ => Err(Violation::new(
            "four of r, g, b, a, 0, 1 (like \"bgra\")",
            v.type_name(),
        )),
    }
}

pub(crate) fn swizzle<'a>(
    t: &mut Tape<'a>,
    a: &[Arg<'_>],
    p: &[Value],
    _: &EvalContext,
) -> Result<Px, OpError> {
    let x = pixels(a)?;
    let order = p.first().and_then(Value::as_str).unwrap_or("rgba");
    let mut px = x;
    for (k, c) in order.chars().take(4).enumerate() {
        px[k] = match c {
            'r' => x[0],
            'g' => x[1],
            'b' => x[2],
            'a' => x[3],
            '0' => t.constant(0.0)?,
            _ => t.constant(1.0)?,
        };
    }
    Ok(px)
}

fn op(
    id: &'static str,
    doc: &'static str,
    params: Vec<ParamSpec>,
    exec: crate::fn_op::ExecFn,
) -> FnOp {
    let mut spec =
        OpSpec::new(id, doc).input(InputSpec::required("image", IMAGE_TYPE, "the source image"));
    for p in params {
        spec = spec.param(p);
    }
    FnOp::new(
        spec.output(OutputSpec::new("out", IMAGE_TYPE, "the adjusted image")),
        exec,
    )
}

fn float(name: &'static str, default: f64, doc: &'static str, rule: Rule) -> ParamSpec {
    ParamSpec::new(name, ValueType::Float, Value::Float(default), doc).with_rule(rule)
}

/// Register the tone and channel ops.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(op(
        "image.levels",
        "Levels per colour channel: (c - in_low) / (in_high - in_low) clamped to [0, 1], raised to \
         1 / gamma, mapped to out_low..out_high.",
        vec![
            float("in_low", 0.0, "input black point", Rule::Finite),
            float("in_high", 1.0, "input white point", Rule::Finite),
            float(
                "gamma",
                1.0,
                "midtone gamma (above 1 brightens)",
                Rule::POSITIVE,
            ),
            float("out_low", 0.0, "output black", Rule::Finite),
            float("out_high", 1.0, "output white", Rule::Finite),
        ],
        |call, out| per_pixel::exec(call, out, levels),
    ))?;
    reg.register(op(
        "image.gamma",
        "Gamma per colour channel: max(c, 0)^(1 / gamma).",
        vec![float(
            "gamma",
            2.2,
            "the gamma (above 1 brightens)",
            Rule::POSITIVE,
        )],
        |call, out| per_pixel::exec(call, out, gamma),
    ))?;
    reg.register(op(
        "image.posterize",
        "Posterize per colour channel to `levels` evenly spaced values from 0 to 1.",
        vec![float(
            "levels",
            4.0,
            "how many values (at least 2)",
            Rule::between(2.0, 65536.0),
        )],
        |call, out| per_pixel::exec(call, out, posterize),
    ))?;
    reg.register(op(
        "image.threshold",
        "1 where the luminance (0.2126 r + 0.7152 g + 0.0722 b) is at least `threshold`, else 0, \
         in r, g and b.",
        vec![float("threshold", 0.5, "the cut", Rule::Finite)],
        |call, out| per_pixel::exec(call, out, threshold),
    ))?;
    reg.register(op(
        "image.grey",
        "The luminance (0.2126 r + 0.7152 g + 0.0722 b) in r, g and b.",
        vec![],
        |call, out| per_pixel::exec(call, out, grey),
    ))?;
    reg.register(op(
        "image.swizzle",
        "Rearrange the channels: `order` names each output channel's source (r, g, b, a, 0 or 1), \
         like \"bgra\" or \"rrr1\".",
        vec![
            ParamSpec::new(
                "order",
                ValueType::String,
                Value::str("rgba"),
                "four of r, g, b, a, 0, 1",
            )
            .with_rule(Rule::Check(swizzle_rule)),
        ],
        |call, out| per_pixel::exec(call, out, swizzle),
    ))
}
