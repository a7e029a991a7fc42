//! Gray–Scott reaction–diffusion (Pearson 1993): two chemicals `u` and `v` on a torus,
//!
//! ```text
//! u' = u + dt (du ∇²u − u v² + feed (1 − u))
//! v' = v + dt (dv ∇²v + u v² − (feed + kill) v)
//! ```
//!
//! with the 3 × 3 Laplacian of weights −1 at the centre, 0.2 at the four sides and 0.05 at
//! the four corners, forward Euler in time.
//!
//! * `sim.grayscott.init` — a 2-channel grid (`u`, `v`): `u = 1`, `v = 0` everywhere but
//!   `spots` seeded squares of side `2 radius` holding `u = 0.5`, `v = 0.25`.
//! * `sim.grayscott.step` — `substeps` Euler steps of the state. `feed`, `kill`, `du` and
//!   `dv` are numbers or maps (a grid's first channel or an image's red channel, of the
//!   state's size), so the pattern can vary across the field.

use crate::field::{Field, field};
use crate::grid::Grid;
use crate::ports::{SIDE, grid_size, with_channels};
use crate::rng::Rng;
use crate::rows::{for_each_row, wrap};
use kiln_core::op;
use kiln_core::op::{OpCall, OpError};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::Value;

/// The rates of one step, each per cell.
#[derive(Clone, Copy, Debug)]
pub struct Rates<'a> {
    pub(crate) feed: Field<'a>,
    pub(crate) kill: Field<'a>,
    pub(crate) du: Field<'a>,
    pub(crate) dv: Field<'a>,
}

impl Rates<'static> {
    /// The same rates at every cell.
    pub fn uniform(feed: f32, kill: f32, du: f32, dv: f32) -> Rates<'static> {
        Rates {
            feed: Field::Uniform(feed),
            kill: Field::Uniform(kill),
            du: Field::Uniform(du),
            dv: Field::Uniform(dv),
        }
    }
}

/// One Euler step from `src` into `dst` (both 2-channel grids of the same size); every float
/// of `dst` is written. Rows run in parallel on the current Rayon pool, with the same bits
/// for any number of threads.
///
/// The arithmetic is the module's equations in a fixed order (sides north, south, west,
/// east; corners north-west, north-east, south-west, south-east). Each row reads three
/// source rows; only the first and last cell of a row wrap, and rates that are numbers are
/// read once per step instead of once per cell.
pub fn step_into(src: &Grid, dst: &mut Grid, rates: &Rates<'_>, dt: f32) {
    if let (Field::Uniform(f), Field::Uniform(k), Field::Uniform(du), Field::Uniform(dv)) =
        (rates.feed, rates.kill, rates.du, rates.dv)
    {
        step_rows(src, dst, dt, |_| (f, k, du, dv));
    } else {
        step_rows(src, dst, dt, |i| {
            (
                rates.feed.at(i),
                rates.kill.at(i),
                rates.du.at(i),
                rates.dv.at(i),
            )
        });
    }
}

/// The rates `(feed, kill, du, dv)` of cell index `i`.
trait CellRates: Fn(usize) -> (f32, f32, f32, f32) + Sync + Send {}
impl<T: Fn(usize) -> (f32, f32, f32, f32) + Sync + Send> CellRates for T {}

fn step_rows(src: &Grid, dst: &mut Grid, dt: f32, rates: impl CellRates) {
    let (w, h) = (src.width() as usize, src.height());
    let (cells, _) = src.data().as_chunks::<2>();
    let row_of = |y: u32| {
        cells
            .get(y as usize * w..(y as usize + 1) * w)
            .unwrap_or(&[])
    };
    for_each_row(dst, |y, row| {
        let (north, mid, south) = (row_of(wrap(y, -1, h)), row_of(y), row_of(wrap(y, 1, h)));
        let Some(out) = row.as_chunks_mut::<2>().0.get_mut(..w) else {
            return;
        };
        let rows = Rows { north, mid, south };
        let base = y as usize * w;
        let last = w.saturating_sub(1);
        // The first and last cells wrap; the cells between read their neighbours directly.
        for x in [0, last] {
            let (xw, xe) = (
                if x == 0 { last } else { x - 1 },
                if x == last { 0 } else { x + 1 },
            );
            if let Some(o) = out.get_mut(x) {
                *o = rows.cell(xw, x, xe, rates(base + x), dt);
            }
        }
        // The cells between, from three sliding windows: no wrapping, no bounds checks.
        let inner = out.get_mut(1..last).unwrap_or(&mut []);
        let windows = north.windows(3).zip(mid.windows(3)).zip(south.windows(3));
        for (x, (o, ((n, m), s))) in (1..).zip(inner.iter_mut().zip(windows)) {
            if let (&[nw, n, ne], &[w, c, e], &[sw, s, se]) = (n, m, s) {
                *o = update([n, s, w, e], [nw, ne, sw, se], c, rates(base + x), dt);
            }
        }
    });
}

/// The three source rows a row of the output reads.
struct Rows<'a> {
    north: &'a [[f32; 2]],
    mid: &'a [[f32; 2]],
    south: &'a [[f32; 2]],
}

impl Rows<'_> {
    /// The next `(u, v)` of the cell at `x` with west and east neighbours `xw`, `xe`.
    #[inline(always)]
    fn cell(&self, xw: usize, x: usize, xe: usize, r: (f32, f32, f32, f32), dt: f32) -> [f32; 2] {
        let at = |row: &[[f32; 2]], i: usize| row.get(i).copied().unwrap_or([0.0; 2]);
        let sides = [
            at(self.north, x),
            at(self.south, x),
            at(self.mid, xw),
            at(self.mid, xe),
        ];
        let corners = [
            at(self.north, xw),
            at(self.north, xe),
            at(self.south, xw),
            at(self.south, xe),
        ];
        update(sides, corners, at(self.mid, x), r, dt)
    }
}

/// The next `(u, v)` of a cell `c` from its sides (north, south, west, east) and corners
/// (north-west, north-east, south-west, south-east).
#[inline(always)]
fn update(
    sides: [[f32; 2]; 4],
    corners: [[f32; 2]; 4],
    c: [f32; 2],
    r: (f32, f32, f32, f32),
    dt: f32,
) -> [f32; 2] {
    let [n, s, w, e] = sides;
    let [nw, ne, sw, se] = corners;
    let lap = |k: usize| {
        let sides = n[k] + s[k] + w[k] + e[k];
        let corners = nw[k] + ne[k] + sw[k] + se[k];
        sides * 0.2 + corners * 0.05 - c[k]
    };
    let (f, k, du, dv) = r;
    let [u, v] = c;
    let uvv = u * v * v;
    [
        u + dt * (du * lap(0) - uvv + f * (1.0 - u)),
        v + dt * (dv * lap(1) + uvv - (f + k) * v),
    ]
}

/// `steps` Euler steps of `state` (at least one), ping-ponging between two recycled grids.
pub fn run(state: &Grid, rates: &Rates<'_>, dt: f32, steps: u32) -> Result<Grid, OpError> {
    let (w, h) = (state.width(), state.height());
    let mut a = Grid::uninit(w, h, 2)?;
    step_into(state, &mut a, rates, dt);
    if steps > 1 {
        let mut b = Grid::uninit(w, h, 2)?;
        for _ in 1..steps {
            step_into(&a, &mut b, rates, dt);
            std::mem::swap(&mut a, &mut b);
        }
    }
    Ok(a)
}

/// The initial field (see the module docs).
pub fn init(width: u32, height: u32, seed: u64, spots: u32, radius: u32) -> Result<Grid, OpError> {
    let mut g = Grid::filled(width, height, &[1.0, 0.0])?;
    let mut rng = Rng::new(seed);
    let r = radius as i64;
    for _ in 0..spots {
        let cx = rng.below(width as u64) as i64;
        let cy = rng.below(height as u64) as i64;
        for y in cy - r..cy + r {
            for x in cx - r..cx + r {
                let (x, y) = (
                    x.rem_euclid(width as i64) as u32,
                    y.rem_euclid(height as i64) as u32,
                );
                g.set(x, y, 0, 0.5);
                g.set(x, y, 1, 0.25);
            }
        }
    }
    Ok(g)
}

/// The seed of a Gray–Scott field: a 2-channel grid (u, v) with u = 1, v = 0 but for
/// seeded square spots of u = 0.5, v = 0.25. Wire it to a latch's init.
#[op("sim.grayscott.init", out = "the field (channels u, v)")]
fn grayscott_init(
    #[param("width in cells", default = 256, rule = SIDE, plan_time)] width: i64,
    #[param("height in cells", default = 256, rule = SIDE, plan_time)] height: i64,
    #[param("where the spots fall", default = 0)] seed: i64,
    #[param("how many spots", default = 10, range = 0..=10_000)] spots: i64,
    #[param("half the side of a spot, in cells", default = 4, range = 0..=1024)] radius: i64,
) -> Result<Grid, OpError> {
    let (w, h) = grid_size(width, height)?;
    init(
        w,
        h,
        seed as u64,
        spots.clamp(0, 10_000) as u32,
        radius.clamp(0, 1024) as u32,
    )
}

/// Gray–Scott reaction–diffusion: `substeps` forward-Euler steps of a (u, v) grid on a
/// torus (3 × 3 Laplacian). Rates are numbers or maps of the state's size (a grid's first
/// channel, an image's red channel).
#[op("sim.grayscott.step", out = "the field after the steps")]
#[allow(clippy::too_many_arguments)]
fn grayscott_step(
    #[input("the field (from a latch)")] state: &Grid,
    #[input("feed rate of u (number or map)", default = Value::Float(0.055))] feed: &Value,
    #[input("kill rate of v (number or map)", default = Value::Float(0.062))] kill: &Value,
    #[input("diffusion rate of u (number or map)", default = Value::Float(1.0))] du: &Value,
    #[input("diffusion rate of v (number or map)", default = Value::Float(0.5))] dv: &Value,
    #[input("time step of each substep", default = 1.0)] dt: f64,
    #[param("Euler steps per tick", default = 1, range = 1..=100_000)] substeps: i64,
    call: &OpCall,
) -> Result<Grid, OpError> {
    let state = with_channels(state, 0, 2, "a Gray–Scott state")?;
    let (w, h) = (state.width(), state.height());
    let rates = Rates {
        feed: field(feed, 1, w, h)?,
        kill: field(kill, 2, w, h)?,
        du: field(du, 3, w, h)?,
        dv: field(dv, 4, w, h)?,
    };
    let steps = substeps.clamp(1, 100_000) as u32;
    call.check_cancel()?;
    run(state, &rates, dt as f32, steps)
}

/// Register `sim.grayscott.init` and `sim.grayscott.step`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(GrayscottInitOp::new())?;
    reg.register(GrayscottStepOp::new())?;
    Ok(())
}
