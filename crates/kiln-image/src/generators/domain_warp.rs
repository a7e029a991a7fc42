//! `image.domain_warp`: fractal noise sampled at coordinates pushed by two more noise fields,
//! `f(x + a n_x(x, y), y + a n_y(x, y))` with `a` the `warp` in lattice cells (the swirls of
//! marble and smoke). `f` is the `image.fractal` of the same params and seed; `n_x` and `n_y`
//! are fBm of the same basis, octaves, lacunarity, gain and period with seeds of their own
//! ([`warp_seeds`]). With a `period` all three repeat, so the result tiles as `image.fractal`
//! does. A per-pixel op: three noise steps and four arithmetic steps on the fractal's tape.

use super::{
    BASIS_DOC, BASIS_RULE, FRACTAL_DOC, FRACTAL_RULE, LACUNARITY_DOC, LATTICE_CELLS_DOC,
    PERIOD_DOC, PERIOD_RULE, fractal_grey, fractal_noise, sample_point,
};
use crate::field::{Binary, Px, Step, Tape};
use crate::image::{REQUEST_HEIGHT_DOC, REQUEST_WIDTH_DOC, SIDE_RULE, pixels_rule};
use crate::noise::{OCTAVES_RULE, mix_seed, splitmix64};
use crate::per_pixel;
use kiln_core::context::EvalContext;
use kiln_core::op::{OpError, Rule};
use kiln_core::registry::{Registry, RegistryError};
use std::sync::Arc;

/// Largest warp, in lattice cells.
pub const MAX_WARP: f64 = 64.0;

/// The seeds of the x and y offset noises for a (mixed) noise seed.
pub fn warp_seeds(seed: u64) -> [u64; 2] {
    let mut s = seed ^ 0xD1B5_4A32_D192_ED03;
    [splitmix64(&mut s), splitmix64(&mut s)]
}

/// Domain-warped fractal noise: the `image.fractal` of the same params sampled at (x, y) +
/// warp * (n_x, n_y), where n_x and n_y are fBm of the same basis, octaves and period with
/// seeds of their own and `warp` is in lattice cells; tileable with a `period` like
/// `image.fractal`.
#[kiln_core::op(
    "image.domain_warp",
    per_pixel,
    reads = "seed, resolution, preview",
    params_rule = pixels_rule,
    out = "the warped noise, grey in [0, 1]"
)]
#[allow(clippy::too_many_arguments)]
pub fn domain_warp(
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
    #[param(
        "how far the offset noise pushes the sample point, in lattice cells",
        default = 1.0,
        rule = Rule::between(-MAX_WARP, MAX_WARP)
    )]
    warp: f64,
    ctx: &EvalContext,
) -> Result<Px, OpError> {
    let t = tape;
    per_pixel::request_sized(t, width, height, ctx)?;
    let seed = mix_seed(seed, ctx.seed);
    let (noise, sum) = fractal_noise(basis, fractal, period, octaves, lacunarity, gain, seed)?;
    // The offsets are fBm whatever the fractal sum of `f`.
    let offset = |seed| fractal_noise(basis, "fbm", period, octaves, lacunarity, gain, seed);
    let [sx, sy] = warp_seeds(seed);
    let base = t.add_noise(Arc::new(noise))?;
    let nx = t.add_noise(Arc::new(offset(sx)?.0))?;
    let ny = t.add_noise(Arc::new(offset(sy)?.0))?;
    let [x, y] = sample_point(t, cells, period > 0)?;
    let a = t.constant(warp)?;
    let mut moved = [0; 2];
    for (k, (id, c)) in [(nx, x), (ny, y)].into_iter().enumerate() {
        let n = t.push(Step::Noise { noise: id, x, y })?;
        let d = t.binary(Binary::Mul, n, a)?;
        moved[k] = t.binary(Binary::Add, c, d)?;
    }
    let n = t.push(Step::Noise {
        noise: base,
        x: moved[0],
        y: moved[1],
    })?;
    fractal_grey(t, n, sum)
}

/// Register `image.domain_warp`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(DomainWarpOp::new())
}
