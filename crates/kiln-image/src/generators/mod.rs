//! Generators that can tile: lattice noise with fractal sums (`image.fractal`) and cellular
//! noise (`image.cells`). Both sample the unit square of the image scaled to `cells` lattice
//! cells across the width (and as many per unit of height, so cells are square), and with a
//! `period` above 0 the lattice repeats every `period` cells in both directions: an image
//! whose `cells` is a multiple of its `period` tiles seamlessly, left edge against right and
//! top against bottom. Each is a per-pixel op (it fuses with the ops it feeds).

pub mod cells;
pub mod domain_warp;
pub mod lattice;
pub mod simplex;

use crate::field::{Binary, Coord, Px, Step, Tape, Ternary};
use crate::fn_op::FnOp;
use crate::image::{IMAGE_TYPE, SIDE_RULE, pixels_rule, with_size_params};
use crate::noise::mix_seed;
use crate::per_pixel::{self, Arg};
use cells::{CellOutput, Cells};
use kiln_core::context::EvalContext;
use kiln_core::op::{OpError, OpSpec, OutputSpec, ParamSpec, Reads, Rule};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};
use lattice::{Basis, Fractal, FractalNoise};
use std::sync::Arc;

fn int(p: &[Value], i: usize) -> Result<i64, OpError> {
    p.get(i)
        .and_then(Value::as_i64)
        .ok_or_else(|| OpError::param(i, "expected int"))
}

fn float(p: &[Value], i: usize) -> Result<f64, OpError> {
    p.get(i)
        .and_then(Value::as_f64)
        .ok_or_else(|| OpError::param(i, "expected float"))
}

fn choice(p: &[Value], i: usize) -> Result<&str, OpError> {
    p.get(i)
        .and_then(Value::as_str)
        .ok_or_else(|| OpError::param(i, "expected string"))
}

/// The sample point of a pixel: `(u, v * h / w) * cells` untiled, `(u, v) * cells` tiled
/// (the lattice's period then fits the height as well).
pub(crate) fn sample_point(t: &mut Tape<'_>, cells: f64, tiled: bool) -> Result<[u32; 2], OpError> {
    let c = t.constant(cells)?;
    let u = t.push(Step::Coord(Coord::U))?;
    let x = t.binary(Binary::Mul, u, c)?;
    let v = t.push(Step::Coord(Coord::V))?;
    let mut y = t.binary(Binary::Mul, v, c)?;
    if !tiled {
        let h = t.push(Step::Coord(Coord::Height))?;
        let w = t.push(Step::Coord(Coord::Width))?;
        let hw = t.binary(Binary::Div, h, w)?;
        y = t.binary(Binary::Mul, y, hw)?;
    }
    Ok([x, y])
}

/// A grey pixel of `g` clamped to [0, 1], alpha 1.
fn grey(t: &mut Tape<'_>, g: u32) -> Result<Px, OpError> {
    let (lo, hi) = (t.constant(0.0)?, t.constant(1.0)?);
    let g = t.push(Step::Ternary(Ternary::Clamp, g, lo, hi))?;
    Ok([g, g, g, hi])
}

/// Params of `image.fractal` after `width`, `height`.
pub(crate) const F_BASIS: usize = 2;

/// The fractal noise of the params of `image.fractal` from `F_BASIS` on and `octaves`, with
/// its seed mixed from `seed`; an odd period with the simplex basis is refused, naming
/// `period`.
pub(crate) fn fractal_noise(
    p: &[Value],
    octaves: u32,
    seed: u64,
) -> Result<(FractalNoise, Fractal, f64, i64), OpError> {
    let basis = match choice(p, F_BASIS)? {
        "value" => Basis::Value,
        "simplex" => Basis::Simplex,
        _ => Basis::Perlin,
    };
    let sum = match choice(p, F_BASIS + 1)? {
        "ridged" => Fractal::Ridged,
        "billow" => Fractal::Billow,
        "turbulence" => Fractal::Turbulence,
        _ => Fractal::Fbm,
    };
    let cells = float(p, F_BASIS + 2)?;
    let period = int(p, F_BASIS + 3)?;
    if basis == Basis::Simplex && period % 2 != 0 {
        return Err(OpError::param(
            F_BASIS + 3,
            format!(
                "simplex noise tiles with an even period only (its lattice shifts by half a \
                 cell per row), found {period}"
            ),
        ));
    }
    let lacunarity = float(p, F_BASIS + 4)?;
    let gain = float(p, F_BASIS + 5)?;
    let noise = FractalNoise::new(basis, sum, seed, octaves, lacunarity, gain, period);
    Ok((noise, sum, cells, period))
}

/// The seed of `image.fractal`'s params mixed with the evaluation's.
pub(crate) fn fractal_seed(p: &[Value], ctx: &EvalContext) -> Result<u64, OpError> {
    Ok(mix_seed(int(p, F_BASIS + 6)?, ctx.seed))
}

/// A fractal noise value `n` as grey: fBm and billow (in [-1, 1]) mapped to [0, 1].
pub(crate) fn fractal_grey(t: &mut Tape<'_>, n: u32, sum: Fractal) -> Result<Px, OpError> {
    let g = if matches!(sum, Fractal::Fbm | Fractal::Billow) {
        let half = t.constant(0.5)?;
        let m = t.binary(Binary::Mul, n, half)?;
        t.binary(Binary::Add, m, half)?
    } else {
        n
    };
    grey(t, g)
}

/// The builder of `image.fractal`.
pub(crate) fn fractal<'a>(
    t: &mut Tape<'a>,
    a: &[Arg<'_>],
    p: &[Value],
    ctx: &EvalContext,
) -> Result<Px, OpError> {
    let (w, h) = per_pixel::size(p, ctx)?;
    t.set_size(w, h, 0)?;
    let octaves = per_pixel::octaves(a, 0)?;
    let (noise, sum, cells, period) = fractal_noise(p, octaves, fractal_seed(p, ctx)?)?;
    let id = t.add_noise(Arc::new(noise))?;
    let [x, y] = sample_point(t, cells, period > 0)?;
    let n = t.push(Step::Noise { noise: id, x, y })?;
    fractal_grey(t, n, sum)
}

/// Cellular (Worley) noise as a grey image: the distance to the nearest feature point (f1),
/// the second nearest (f2), f2 - f1, or a value per cell (id), clamped to [0, 1]; tileable
/// with a `period`.
#[kiln_core::op(
    "image.cells",
    per_pixel,
    reads = "seed, resolution, preview",
    params_rule = pixels_rule,
    out = "the cells, grey in [0, 1]"
)]
#[allow(clippy::too_many_arguments)]
pub fn cellular(
    tape: &mut Tape<'_>,
    #[param(
        "width in pixels (0: the request's, 256 when it names none)",
        default = 0,
        rule = SIDE_RULE,
        plan_time
    )]
    width: i64,
    #[param(
        "height in pixels (0: the request's, 256 when it names none)",
        default = 0,
        rule = SIDE_RULE,
        plan_time
    )]
    height: i64,
    #[param(
        "f1, f2, f2-f1 or id",
        default = "f1",
        rule = Rule::OneOf(&["f1", "f2", "f2-f1", "id"])
    )]
    output: &str,
    #[param(
        "lattice cells across the image width",
        default = 4.0,
        rule = Rule::POSITIVE
    )]
    cells: f64,
    #[param(
        "cells after which the pattern repeats in both directions (0: never); equal to `cells` for a seamless tile",
        default = 0,
        rule = Rule::Ints { min: 0, max: 1 << 20 }
    )]
    period: i64,
    #[param(
        "how far points stray from their cell centres (0..=1)",
        default = 1.0,
        rule = Rule::between(0.0, 1.0)
    )]
    jitter: f64,
    #[param("cell seed, mixed with the evaluation's seed", default = 0)] seed: i64,
    ctx: &EvalContext,
) -> Result<Px, OpError> {
    let t = tape;
    per_pixel::request_sized(t, width, height, ctx)?;
    let output = match output {
        "f2" => CellOutput::F2,
        "f2-f1" => CellOutput::F2MinusF1,
        "id" => CellOutput::Id,
        _ => CellOutput::F1,
    };
    let seed = mix_seed(seed, ctx.seed);
    let id = t.add_noise(Arc::new(Cells::new(seed, period, jitter, output)))?;
    let [x, y] = sample_point(t, cells, period > 0)?;
    let n = t.push(Step::Noise { noise: id, x, y })?;
    grey(t, n)
}

fn common(spec: OpSpec, period_doc: &'static str) -> OpSpec {
    spec.param(
        ParamSpec::new(
            "cells",
            ValueType::Float,
            Value::Float(4.0),
            "lattice cells across the image width",
        )
        .with_rule(Rule::POSITIVE),
    )
    .param(
        ParamSpec::new("period", ValueType::Int, Value::Int(0), period_doc).with_rule(Rule::Ints {
            min: 0,
            max: 1 << 20,
        }),
    )
}

const PERIOD_DOC: &str = "cells after which the pattern repeats in both directions (0: never); equal to `cells` \
     for a seamless tile";

/// The params of `image.fractal` after `width` and `height`, and its `octaves` input (also
/// those of `image.domain_warp`).
pub(crate) fn fractal_params(spec: OpSpec) -> OpSpec {
    let spec = spec
        .param(
            ParamSpec::new(
                "basis",
                ValueType::String,
                Value::str("perlin"),
                "perlin, value or simplex (simplex tiles with an even period only)",
            )
            .with_rule(Rule::OneOf(&["perlin", "value", "simplex"])),
        )
        .param(
            ParamSpec::new(
                "fractal",
                ValueType::String,
                Value::str("fbm"),
                "fbm, ridged, billow or turbulence",
            )
            .with_rule(Rule::OneOf(&["fbm", "ridged", "billow", "turbulence"])),
        );
    common(spec, PERIOD_DOC)
        .input(crate::noise::octaves_input(4))
        .param(
            ParamSpec::new(
                "lacunarity",
                ValueType::Float,
                Value::Float(2.0),
                "frequency factor per octave (rounded to a whole number when tiled)",
            )
            .with_rule(Rule::POSITIVE),
        )
        .param(
            ParamSpec::new(
                "gain",
                ValueType::Float,
                Value::Float(0.5),
                "amplitude factor per octave",
            )
            .with_rule(Rule::Finite),
        )
        .param(ParamSpec::new(
            "seed",
            ValueType::Int,
            Value::Int(0),
            "noise seed, mixed with the evaluation's seed",
        ))
}

/// Register `image.fractal`, `image.domain_warp` and `image.cells`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    let spec = with_size_params(
        OpSpec::new(
            "image.fractal",
            "Lattice noise (Perlin gradient, value or simplex noise) summed over octaves as \
             fBm, ridged, billow or turbulence, as a grey image; tileable with a `period` \
             (an even one for simplex).",
        )
        .reads(Reads::SEED),
    );
    let spec = fractal_params(spec).output(OutputSpec::new(
        "out",
        IMAGE_TYPE,
        "the noise, grey in [0, 1]",
    ));
    reg.register(FnOp::new(spec, |call, out| {
        per_pixel::exec(call, out, fractal)
    }))?;
    domain_warp::register(reg)?;

    reg.register(CellularOp::new())
}
