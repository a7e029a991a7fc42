//! Tone and channel ops as per-pixel builders (so they fuse): `image.levels`, `image.gamma`,
//! `image.posterize`, `image.threshold`, `image.grey` (formulas over the pixel, params written
//! into the formula as numbers) and `image.swizzle` (channels rearranged, no step at all).
//! Alpha passes through unchanged but for `image.swizzle`.

use crate::expr::emit::{Env, Operand, emit};
use crate::expr::parse::parse;
use crate::field::{Px, Tape};
use kiln_core::op::{OpError, Rule, RuleEnv, Violation};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::Value;

/// r, g, b from `src` over the image `a` (each channel in turn), alpha kept.
fn per_channel(t: &mut Tape<'_>, a: Px, src: &str) -> Result<Px, OpError> {
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

/// Levels per colour channel: (c - in_low) / (in_high - in_low) clamped to [0, 1], raised to
/// 1 / gamma, mapped to out_low..out_high.
#[kiln_core::op("image.levels", per_pixel, out = "the adjusted image")]
pub fn levels(
    tape: &mut Tape<'_>,
    #[input("the source image")] image: Px,
    #[param("input black point", default = 0.0, rule = Rule::Finite)] in_low: f64,
    #[param("input white point", default = 1.0, rule = Rule::Finite)] in_high: f64,
    #[param("midtone gamma (above 1 brightens)", default = 1.0, rule = Rule::POSITIVE)] gamma: f64,
    #[param("output black", default = 0.0, rule = Rule::Finite)] out_low: f64,
    #[param("output white", default = 1.0, rule = Rule::Finite)] out_high: f64,
) -> Result<Px, OpError> {
    let (il, ih, g, ol, oh) = (in_low, in_high, gamma, out_low, out_high);
    let src = format!(
        "mix({}, {}, pow(saturate((a - {}) / max({} - {}, 1e-12)), 1 / {}))",
        n(ol),
        n(oh),
        n(il),
        n(ih),
        n(il),
        n(g)
    );
    per_channel(tape, image, &src)
}

/// Gamma per colour channel: max(c, 0)^(1 / gamma).
#[kiln_core::op("image.gamma", per_pixel, out = "the adjusted image")]
pub fn gamma(
    tape: &mut Tape<'_>,
    #[input("the source image")] image: Px,
    #[param("the gamma (above 1 brightens)", default = 2.2, rule = Rule::POSITIVE)] gamma: f64,
) -> Result<Px, OpError> {
    per_channel(tape, image, &format!("pow(max(a, 0), 1 / {})", n(gamma)))
}

/// Posterize per colour channel to `levels` evenly spaced values from 0 to 1.
#[kiln_core::op("image.posterize", per_pixel, out = "the adjusted image")]
pub fn posterize(
    tape: &mut Tape<'_>,
    #[input("the source image")] image: Px,
    #[param("how many values (at least 2)", default = 4.0, rule = Rule::between(2.0, 65536.0))]
    levels: f64,
) -> Result<Px, OpError> {
    let k = n(levels);
    per_channel(
        tape,
        image,
        &format!("min(floor(saturate(a) * {k}), {k} - 1) / ({k} - 1)"),
    )
}

const LUMA: &str = "(0.2126 * a.r + 0.7152 * a.g + 0.0722 * a.b)";

/// 1 where the luminance (0.2126 r + 0.7152 g + 0.0722 b) is at least `threshold`, else 0,
/// in r, g and b.
#[kiln_core::op("image.threshold", per_pixel, out = "the adjusted image")]
pub fn threshold(
    tape: &mut Tape<'_>,
    #[input("the source image")] image: Px,
    #[param("the cut", default = 0.5, rule = Rule::Finite)] threshold: f64,
) -> Result<Px, OpError> {
    per_channel(tape, image, &format!("step({}, {LUMA})", n(threshold)))
}

/// The luminance (0.2126 r + 0.7152 g + 0.0722 b) in r, g and b.
#[kiln_core::op("image.grey", per_pixel, out = "the adjusted image")]
pub fn grey(tape: &mut Tape<'_>, #[input("the source image")] image: Px) -> Result<Px, OpError> {
    per_channel(tape, image, LUMA)
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

/// Rearrange the channels: `order` names each output channel's source (r, g, b, a, 0 or 1),
/// like "bgra" or "rrr1".
#[kiln_core::op("image.swizzle", per_pixel, out = "the adjusted image")]
pub fn swizzle(
    tape: &mut Tape<'_>,
    #[input("the source image")] image: Px,
    #[param("four of r, g, b, a, 0, 1", default = "rgba", rule = Rule::Check(swizzle_rule))]
    order: &str,
) -> Result<Px, OpError> {
    let x = image;
    let mut px = x;
    for (k, c) in order.chars().take(4).enumerate() {
        px[k] = match c {
            'r' => x[0],
            'g' => x[1],
            'b' => x[2],
            'a' => x[3],
            '0' => tape.constant(0.0)?,
            _ => tape.constant(1.0)?,
        };
    }
    Ok(px)
}

/// Register the tone and channel ops.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(LevelsOp::new())?;
    reg.register(GammaOp::new())?;
    reg.register(PosterizeOp::new())?;
    reg.register(ThresholdOp::new())?;
    reg.register(GreyOp::new())?;
    reg.register(SwizzleOp::new())
}
