//! Tilings as per-pixel generators (they fuse): `image.hexagons` (a hexagon tiling: the
//! distance to the cell's edge, or a random grey per cell) and `image.weave` (a plain weave
//! of warp and weft threads going over and under). Both fill the image with whole counts of
//! cells and always tile, left edge against right and top against bottom: the hexagon rows
//! and the weave's over/under alternate, so their counts must be even (an odd count is
//! refused by the param's rule, as it could not tile). The hexagons are regular when the
//! image's height / width is `1.5 rows / (sqrt(3) columns)`, otherwise stretched to fit.

use crate::field::{Coord, Noise2, Px, Step, Tape, Ternary};
use crate::image::{REQUEST_HEIGHT_DOC, REQUEST_WIDTH_DOC, SIDE_RULE, pixels_rule};
use crate::noise::mix_seed;
use crate::per_pixel;
use kiln_core::context::EvalContext;
use kiln_core::op::{OpError, Rule, RuleEnv, Violation};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::Value;
use std::sync::Arc;

/// Most cells across or down a tiling.
pub const MAX_COUNT: i64 = 4096;

const SQRT3: f64 = 1.732_050_807_568_877_2;

/// A 64-bit mix of a cell and a seed (splitmix64's finaliser).
fn hash(i: i64, j: i64, seed: u64) -> u64 {
    let mut z = seed
        ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ (j as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// What `image.hexagons` paints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HexOutput {
    /// 1 at a cell's centre to 0 at its edge (the distance to the edge over the inradius).
    Edge,
    /// A random grey in [0, 1) per cell.
    Id,
}

/// Pointy-top hexagons, `columns` across and `rows` down the unit square.
pub struct Hexagons {
    /// Cells across.
    pub columns: i64,
    /// Cell rows down (even).
    pub rows: i64,
    /// What is painted.
    pub output: HexOutput,
    /// The seed of the ids.
    pub seed: u64,
}

impl Hexagons {
    /// The cell of `(u, v)` (column, row, wrapped) and the offset from its centre in
    /// the regular hexagon's space (circumradius 1).
    pub fn cell(&self, u: f64, v: f64) -> ((i64, i64), (f64, f64)) {
        // The lattice is two rectangular ones: centres (sqrt3 i, 3 k) on even rows and
        // (sqrt3 (i + 1/2), 3 k + 3/2) on odd rows; the nearest centre is the nearer of the
        // nearest of each (found by rounding).
        let x = u * self.columns as f64 * SQRT3;
        let y = v * self.rows as f64 * 1.5;
        let (ia, ka) = ((x / SQRT3).round(), (y / 3.0).round());
        let a = (x - SQRT3 * ia, y - 3.0 * ka);
        let (ib, kb) = ((x / SQRT3 - 0.5).round(), ((y - 1.5) / 3.0).round());
        let b = (x - SQRT3 * (ib + 0.5), y - 3.0 * kb - 1.5);
        let (col, row, d) = if a.0 * a.0 + a.1 * a.1 <= b.0 * b.0 + b.1 * b.1 {
            (ia as i64, 2 * ka as i64, a)
        } else {
            (ib as i64, 2 * kb as i64 + 1, b)
        };
        ((col.rem_euclid(self.columns), row.rem_euclid(self.rows)), d)
    }
}

impl Noise2 for Hexagons {
    fn sample(&self, u: f64, v: f64) -> f64 {
        let ((i, j), (dx, dy)) = self.cell(u, v);
        match self.output {
            HexOutput::Edge => {
                let inradius = SQRT3 / 2.0;
                let m = dx.abs().max(0.5 * dx.abs() + inradius * dy.abs());
                (1.0 - m / inradius).clamp(0.0, 1.0)
            }
            HexOutput::Id => (hash(i, j, self.seed) >> 11) as f64 / (1u64 << 53) as f64,
        }
    }
}

/// What `image.weave` paints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WeaveOutput {
    /// The height of the visible thread (0 in the gaps).
    Height,
    /// Which thread is on top: 1 warp, 0.5 weft, 0 neither.
    Threads,
}

/// A plain weave: `columns` warp threads (vertical) and `rows` weft threads (horizontal)
/// over the unit square; warp `i` passes over weft `j` where `i + j` is even.
pub struct Weave {
    /// Warp threads across (even).
    pub columns: i64,
    /// Weft threads down (even).
    pub rows: i64,
    /// Thread width, a fraction of the pitch.
    pub thread: f64,
    /// What is painted.
    pub output: WeaveOutput,
}

impl Weave {
    /// The heights of the warp and weft threads at `(u, v)` (`None` off the thread): each
    /// `0.5 lift + 0.5 profile`, the profile `sqrt(1 - (2 d / width)^2)` across the thread
    /// and the lift `0.5 +- 0.5 cos(pi (t - 1/2 - k))` along it, 1 where it passes over.
    pub fn heights(&self, u: f64, v: f64) -> (Option<f64>, Option<f64>) {
        let (s, t) = (u * self.columns as f64, v * self.rows as f64);
        let (i, j) = (s.floor(), t.floor());
        let (fx, fy) = (s - i, t - j);
        let profile = |f: f64| {
            let d = 2.0 * (f - 0.5) / self.thread;
            (d.abs() < 1.0).then(|| (1.0 - d * d).sqrt())
        };
        let pi = std::f64::consts::PI;
        let warp_lift = 0.5 + 0.5 * (pi * (t - 0.5 - i)).cos();
        let weft_lift = 0.5 - 0.5 * (pi * (s - 0.5 - j)).cos();
        (
            profile(fx).map(|p| 0.5 * warp_lift + 0.5 * p),
            profile(fy).map(|p| 0.5 * weft_lift + 0.5 * p),
        )
    }
}

impl Noise2 for Weave {
    fn sample(&self, u: f64, v: f64) -> f64 {
        let (warp, weft) = self.heights(u, v);
        match (self.output, warp, weft) {
            (WeaveOutput::Height, a, b) => a.unwrap_or(0.0).max(b.unwrap_or(0.0)),
            (WeaveOutput::Threads, Some(a), Some(b)) => {
                if a >= b {
                    1.0
                } else {
                    0.5
                }
            }
            (WeaveOutput::Threads, Some(_), None) => 1.0,
            (WeaveOutput::Threads, None, Some(_)) => 0.5,
            (WeaveOutput::Threads, None, None) => 0.0,
        }
    }
}

/// A grey pixel of the noise `n` at the pixel centre's `(u, v)`, alpha 1.
fn paint(t: &mut Tape<'_>, n: Arc<dyn Noise2>) -> Result<Px, OpError> {
    let id = t.add_noise(n)?;
    let x = t.push(Step::Coord(Coord::U))?;
    let y = t.push(Step::Coord(Coord::V))?;
    let g = t.push(Step::Noise { noise: id, x, y })?;
    let (lo, hi) = (t.constant(0.0)?, t.constant(1.0)?);
    let g = t.push(Step::Ternary(Ternary::Clamp, g, lo, hi))?;
    Ok([g, g, g, hi])
}

fn even_count(v: &Value, _: &RuleEnv) -> Result<(), Violation> {
    match v.as_i64() {
        Some(n) if (2..=MAX_COUNT).contains(&n) && n % 2 == 0 => Ok(()),
        _ => Err(Violation::new(
            format!("an even int from 2 to {MAX_COUNT} (the pattern repeats every two)"),
            format!("{v:?}"),
        )),
    }
}

/// What an even count accepts (see [`even_count`]).
const EVEN: Rule = Rule::Check(even_count);

/// A tiling of pointy-top hexagons, `columns` across and `rows` (even) down, always a
/// seamless tile (regular when height / width = 1.5 rows / (sqrt 3 columns), else stretched):
/// `output` edge is 1 at a centre to 0 at the edge (distance to the edge over the inradius),
/// id a random grey per cell.
#[kiln_core::op(
    "image.hexagons",
    per_pixel,
    version = 2,
    reads = "seed, resolution, preview",
    params_rule = pixels_rule,
    out = "the pattern, grey in [0, 1]"
)]
#[allow(clippy::too_many_arguments)]
pub fn hexagons(
    tape: &mut Tape<'_>,
    #[param(REQUEST_WIDTH_DOC, default = 0, rule = SIDE_RULE, plan_time)] width: i64,
    #[param(REQUEST_HEIGHT_DOC, default = 0, rule = SIDE_RULE, plan_time)] height: i64,
    #[param(
        "hexagons across",
        default = 8,
        rule = Rule::Ints { min: 1, max: MAX_COUNT }
    )]
    columns: i64,
    #[param("rows of hexagons down (even, to tile)", default = 10, rule = EVEN)] rows: i64,
    #[param("edge or id", default = "edge", rule = Rule::OneOf(&["edge", "id"]))] output: &str,
    #[param("the seed of the ids", default = 0)] seed: i64,
    ctx: &EvalContext,
) -> Result<Px, OpError> {
    per_pixel::request_sized(tape, width, height, ctx)?;
    let hex = Hexagons {
        columns: columns.clamp(1, MAX_COUNT),
        rows: rows.clamp(2, MAX_COUNT),
        output: if output == "id" {
            HexOutput::Id
        } else {
            HexOutput::Edge
        },
        seed: mix_seed(seed, ctx.seed),
    };
    paint(tape, Arc::new(hex))
}

/// A plain weave: `columns` warp and `rows` weft threads (both even, to tile), warp i over
/// weft j where i + j is even; `output` height (each thread 0.5 lift + 0.5 round profile,
/// lift 1 where it passes over) or threads (1 warp on top, 0.5 weft, 0 a gap).
#[kiln_core::op(
    "image.weave",
    per_pixel,
    reads = "resolution, preview",
    params_rule = pixels_rule,
    out = "the pattern, grey in [0, 1]"
)]
#[allow(clippy::too_many_arguments)]
pub fn weave(
    tape: &mut Tape<'_>,
    #[param(REQUEST_WIDTH_DOC, default = 0, rule = SIDE_RULE, plan_time)] width: i64,
    #[param(REQUEST_HEIGHT_DOC, default = 0, rule = SIDE_RULE, plan_time)] height: i64,
    #[param("warp threads across (even)", default = 8, rule = EVEN)] columns: i64,
    #[param("weft threads down (even)", default = 8, rule = EVEN)] rows: i64,
    #[param(
        "thread width, a fraction of the pitch",
        default = 0.8,
        rule = Rule::between(0.05, 1.0)
    )]
    thread: f64,
    #[param(
        "height or threads",
        default = "height",
        rule = Rule::OneOf(&["height", "threads"])
    )]
    output: &str,
    ctx: &EvalContext,
) -> Result<Px, OpError> {
    per_pixel::request_sized(tape, width, height, ctx)?;
    let weave = Weave {
        columns: columns.clamp(2, MAX_COUNT),
        rows: rows.clamp(2, MAX_COUNT),
        thread,
        output: if output == "threads" {
            WeaveOutput::Threads
        } else {
            WeaveOutput::Height
        },
    };
    paint(tape, Arc::new(weave))
}

/// Register `image.hexagons` and `image.weave`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(HexagonsOp::new())?;
    reg.register(WeaveOp::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hexagon_cells_repeat_on_the_torus_and_edges_are_where_they_should_be() {
        let hex = |output| Hexagons {
            columns: 5,
            rows: 6,
            output,
            seed: 7,
        };
        let (e, id) = (hex(HexOutput::Edge), hex(HexOutput::Id));
        for k in 0..200 {
            let (u, v) = (
                (k as f64 * 0.6180339887).fract(),
                (k as f64 * 0.41421356).fract(),
            );
            for (du, dv) in [(1.0, 0.0), (0.0, 1.0), (-2.0, 3.0)] {
                assert!((e.sample(u, v) - e.sample(u + du, v + dv)).abs() < 1e-9);
                let (a, b) = (id.cell(u, v), id.cell(u + du, v + dv));
                assert_eq!(a.0, b.0, "({u}, {v})");
            }
        }
        // A centre of an even row is at (i / columns, 0); of an odd row half a cell on.
        assert!((e.sample(0.2, 0.0) - 1.0).abs() < 1e-12);
        assert!((e.sample(0.3, 1.0 / 6.0) - 1.0).abs() < 1e-12);
        // Half way between two centres of a row is the shared vertical edge.
        assert!(e.sample(0.1, 0.0).abs() < 1e-12);
        // Ids are constant over a cell (around its centre) and differ between cells.
        assert_eq!(id.sample(0.2, 0.0), id.sample(0.21, 0.01));
        assert_ne!(id.sample(0.2, 0.0), id.sample(0.4, 0.0));
    }

    #[test]
    fn the_weave_alternates_over_and_under() {
        let w = Weave {
            columns: 4,
            rows: 4,
            thread: 0.8,
            output: WeaveOutput::Threads,
        };
        // Cell (0, 0): warp over; cell (1, 0): weft over; a cell corner: a gap.
        assert_eq!(w.sample(0.125, 0.125), 1.0);
        assert_eq!(w.sample(0.375, 0.125), 0.5);
        assert_eq!(w.sample(0.0, 0.0), 0.0);
        let h = Weave {
            output: WeaveOutput::Height,
            ..w
        };
        // At a crossing the top thread's crown: 0.5 * 1 + 0.5 * 1.
        assert!((h.sample(0.125, 0.125) - 1.0).abs() < 1e-12);
        // Warp 0 at a cell's top edge (t = 0): lift 0.5 + 0.5 cos(-pi / 2) = 0.5, profile 1.
        assert!((h.sample(0.125, 0.0) - 0.75).abs() < 1e-12);
        for k in 0..200 {
            let (u, v) = (
                (k as f64 * 0.6180339887).fract(),
                (k as f64 * 0.41421356).fract(),
            );
            assert!((h.sample(u, v) - h.sample(u + 1.0, v)).abs() < 1e-9);
            assert!((h.sample(u, v) - h.sample(u, v + 1.0)).abs() < 1e-9);
        }
    }
}
