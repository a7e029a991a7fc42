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
use crate::image::{REQUEST_HEIGHT_DOC, REQUEST_WIDTH_DOC, SIDE_RULE, pixels_rule};
use crate::noise::{OCTAVES_RULE, mix_seed};
use crate::per_pixel;
use cells::{CellOutput, Cells};
use kiln_core::context::EvalContext;
use kiln_core::op::{OpError, Rule};
use kiln_core::registry::{Registry, RegistryError};
use lattice::{Basis, Fractal, FractalNoise};
use std::sync::Arc;

/// The doc and rule of a lattice noise's `basis` param.
pub(crate) const BASIS_DOC: &str =
    "perlin, value or simplex (simplex tiles with an even period only)";
pub(crate) const BASIS_RULE: Rule = Rule::OneOf(&["perlin", "value", "simplex"]);
/// The doc and rule of a fractal noise's `fractal` param.
pub(crate) const FRACTAL_DOC: &str = "fbm, ridged, billow or turbulence";
pub(crate) const FRACTAL_RULE: Rule = Rule::OneOf(&["fbm", "ridged", "billow", "turbulence"]);
/// The doc of a lattice's `cells` param.
pub(crate) const LATTICE_CELLS_DOC: &str = "lattice cells across the image width";
/// The doc and rule of a tileable lattice's `period` param.
pub(crate) const PERIOD_DOC: &str = "cells after which the pattern repeats in both directions (0: never); equal to `cells` for a seamless tile";
pub(crate) const PERIOD_RULE: Rule = Rule::Ints {
    min: 0,
    max: 1 << 20,
};
/// The doc of a fractal noise's `lacunarity` param.
pub(crate) const LACUNARITY_DOC: &str =
    "frequency factor per octave (rounded to a whole number when tiled)";

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

/// The index of the `period` param of `image.fractal` and `image.domain_warp` (after
/// `width`, `height`, `basis`, `fractal` and `cells`).
const PERIOD: usize = 5;

/// The fractal noise of `image.fractal`'s ports (the basis and the fractal sum by name), with
/// the seed `seed`; an odd period with the simplex basis is refused, naming `period`.
pub(crate) fn fractal_noise(
    basis: &str,
    fractal: &str,
    period: i64,
    octaves: i64,
    lacunarity: f64,
    gain: f64,
    seed: u64,
) -> Result<(FractalNoise, Fractal), OpError> {
    let basis = match basis {
        "value" => Basis::Value,
        "simplex" => Basis::Simplex,
        _ => Basis::Perlin,
    };
    let sum = match fractal {
        "ridged" => Fractal::Ridged,
        "billow" => Fractal::Billow,
        "turbulence" => Fractal::Turbulence,
        _ => Fractal::Fbm,
    };
    if basis == Basis::Simplex && period % 2 != 0 {
        return Err(OpError::param(
            PERIOD,
            format!(
                "simplex noise tiles with an even period only (its lattice shifts by half a \
                 cell per row), found {period}"
            ),
        ));
    }
    let noise = FractalNoise::new(basis, sum, seed, octaves as u32, lacunarity, gain, period);
    Ok((noise, sum))
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

/// Lattice noise (Perlin gradient, value or simplex noise) summed over octaves as fBm,
/// ridged, billow or turbulence, as a grey image; tileable with a `period` (an even one for
/// simplex).
#[kiln_core::op(
    "image.fractal",
    per_pixel,
    reads = "seed, resolution, preview",
    params_rule = pixels_rule,
    out = "the noise, grey in [0, 1]"
)]
#[allow(clippy::too_many_arguments)]
pub fn fractal(
    tape: &mut Tape<'_>,
    #[param(REQUEST_WIDTH_DOC, default = 0, rule = SIDE_RULE, plan_time)] width: i64,
    #[param(REQUEST_HEIGHT_DOC, default = 0, rule = SIDE_RULE, plan_time)] height: i64,
    #[param(BASIS_DOC, default = "perlin", rule = BASIS_RULE)] basis: &str,
    #[param(FRACTAL_DOC, default = "fbm", rule = FRACTAL_RULE)] fractal: &str,
    #[param(LATTICE_CELLS_DOC, default = 4.0, rule = Rule::POSITIVE)] cells: f64,
    #[param(PERIOD_DOC, default = 0, rule = PERIOD_RULE)] period: i64,
    #[input("octaves summed (1..=16)", default = 4, rule = OCTAVES_RULE, was_param)] octaves: i64,
    #[param(LACUNARITY_DOC, default = 2.0, rule = Rule::POSITIVE)] lacunarity: f64,
    #[param("amplitude factor per octave", default = 0.5, rule = Rule::Finite)] gain: f64,
    #[param("noise seed, mixed with the evaluation's seed", default = 0)] seed: i64,
    ctx: &EvalContext,
) -> Result<Px, OpError> {
    let t = tape;
    per_pixel::request_sized(t, width, height, ctx)?;
    let seed = mix_seed(seed, ctx.seed);
    let (noise, sum) = fractal_noise(basis, fractal, period, octaves, lacunarity, gain, seed)?;
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
    #[param(REQUEST_WIDTH_DOC, default = 0, rule = SIDE_RULE, plan_time)] width: i64,
    #[param(REQUEST_HEIGHT_DOC, default = 0, rule = SIDE_RULE, plan_time)] height: i64,
    #[param(
        "f1, f2, f2-f1 or id",
        default = "f1",
        rule = Rule::OneOf(&["f1", "f2", "f2-f1", "id"])
    )]
    output: &str,
    #[param(LATTICE_CELLS_DOC, default = 4.0, rule = Rule::POSITIVE)] cells: f64,
    #[param(PERIOD_DOC, default = 0, rule = PERIOD_RULE)] period: i64,
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

/// Register `image.fractal`, `image.domain_warp` and `image.cells`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(FractalOp::new())?;
    domain_warp::register(reg)?;
    reg.register(CellularOp::new())
}
