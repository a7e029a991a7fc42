//! `image.domain_warp`: fractal noise sampled at coordinates pushed by two more noise fields,
//! `f(x + a n_x(x, y), y + a n_y(x, y))` with `a` the `warp` in lattice cells (the swirls of
//! marble and smoke). `f` is the `image.fractal` of the same params and seed; `n_x` and `n_y`
//! are fBm of the same basis, octaves, lacunarity, gain and period with seeds of their own
//! ([`warp_seeds`]). With a `period` all three repeat, so the result tiles as `image.fractal`
//! does. A per-pixel op: three noise steps and four arithmetic steps on the fractal's tape.

use super::{F_BASIS, fractal_grey, fractal_noise, fractal_params, fractal_seed, sample_point};
use crate::field::{Binary, Px, Step, Tape};
use crate::fn_op::FnOp;
use crate::image::{IMAGE_TYPE, with_size_params};
use crate::noise::splitmix64;
use crate::per_pixel::{self, Arg};
use kiln_core::context::EvalContext;
use kiln_core::op::{OpError, OpSpec, OutputSpec, ParamSpec, Reads, Rule};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};
use std::sync::Arc;

/// Index of the `warp` param (after the fractal's seven).
const WARP: usize = F_BASIS + 7;

/// Largest warp, in lattice cells.
pub const MAX_WARP: f64 = 64.0;

/// The seeds of the x and y offset noises for a (mixed) noise seed.
pub fn warp_seeds(seed: u64) -> [u64; 2] {
    let mut s = seed ^ 0xD1B5_4A32_D192_ED03;
    [splitmix64(&mut s), splitmix64(&mut s)]
}

/// The builder of `image.domain_warp`.
pub(crate) fn domain_warp<'a>(
    t: &mut Tape<'a>,
    a: &[Arg<'_>],
    p: &[Value],
    ctx: &EvalContext,
) -> Result<Px, OpError> {
    let (w, h) = per_pixel::size(p, ctx)?;
    t.set_size(w, h, 0)?;
    let seed = fractal_seed(p, ctx)?;
    let octaves = per_pixel::octaves(a, 0)?;
    let (noise, sum, cells, period) = fractal_noise(p, octaves, seed)?;
    let warp = p
        .get(WARP)
        .and_then(Value::as_f64)
        .ok_or_else(|| OpError::param(WARP, "expected float"))?;
    // The offsets are fBm whatever the fractal sum of `f`.
    let mut fbm = p.to_vec();
    if let Some(v) = fbm.get_mut(F_BASIS + 1) {
        *v = Value::str("fbm");
    }
    let [sx, sy] = warp_seeds(seed);
    let base = t.add_noise(Arc::new(noise))?;
    let nx = t.add_noise(Arc::new(fractal_noise(&fbm, octaves, sx)?.0))?;
    let ny = t.add_noise(Arc::new(fractal_noise(&fbm, octaves, sy)?.0))?;
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
    let spec = with_size_params(
        OpSpec::new(
            "image.domain_warp",
            "Domain-warped fractal noise: the `image.fractal` of the same params sampled at \
             (x, y) + warp * (n_x, n_y), where n_x and n_y are fBm of the same basis, octaves \
             and period with seeds of their own and `warp` is in lattice cells; tileable with \
             a `period` like `image.fractal`.",
        )
        .reads(Reads::SEED),
    );
    let spec = fractal_params(spec)
        .param(
            ParamSpec::new(
                "warp",
                ValueType::Float,
                Value::Float(1.0),
                "how far the offset noise pushes the sample point, in lattice cells",
            )
            .with_rule(Rule::between(-MAX_WARP, MAX_WARP)),
        )
        .output(OutputSpec::new(
            "out",
            IMAGE_TYPE,
            "the warped noise, grey in [0, 1]",
        ));
    reg.register(FnOp::new(spec, |call, out| {
        per_pixel::exec(call, out, domain_warp)
    }))
}
