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
use crate::grid::{GRID_TYPE, Grid};
use crate::rng::Rng;
use crate::rows::{for_each_row, wrap};
use crate::sim_op::{SimOp, grid_with_channels, int_param, size_params};
use kiln_core::op::{InputSpec, OpCall, OpError, OpSpec, OutputSpec, ParamSpec, Rule};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};

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
pub fn step_into(src: &Grid, dst: &mut Grid, rates: &Rates<'_>, dt: f32) {
    let (w, h) = (src.width(), src.height());
    let d = src.data();
    for_each_row(dst, |y, row| {
        let (yn, ys) = (wrap(y, -1, h), wrap(y, 1, h));
        for x in 0..w {
            let (xw, xe) = (wrap(x, -1, w), wrap(x, 1, w));
            let at = |xx: u32, yy: u32| (yy as usize * w as usize + xx as usize) * 2;
            let c = at(x, y);
            let sides = [at(x, yn), at(x, ys), at(xw, y), at(xe, y)];
            let corners = [at(xw, yn), at(xe, yn), at(xw, ys), at(xe, ys)];
            let lap = |k: usize| {
                let s = d[sides[0] + k] + d[sides[1] + k] + d[sides[2] + k] + d[sides[3] + k];
                let q =
                    d[corners[0] + k] + d[corners[1] + k] + d[corners[2] + k] + d[corners[3] + k];
                s * 0.2 + q * 0.05 - d[c + k]
            };
            let (u, v) = (d[c], d[c + 1]);
            let i = y as usize * w as usize + x as usize;
            let (f, k) = (rates.feed.at(i), rates.kill.at(i));
            let uvv = u * v * v;
            let o = x as usize * 2;
            row[o] = u + dt * (rates.du.at(i) * lap(0) - uvv + f * (1.0 - u));
            row[o + 1] = v + dt * (rates.dv.at(i) * lap(1) + uvv - (f + k) * v);
        }
    });
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

fn run_init(call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
    let (w, h) = size_params(call)?;
    let seed = int_param(call, 2)? as u64;
    let spots = int_param(call, 3)?.clamp(0, 10_000) as u32;
    let radius = int_param(call, 4)?.clamp(0, 1024) as u32;
    out[0] = init(w, h, seed, spots, radius)?.into_value();
    Ok(())
}

fn run_step(call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
    let state = grid_with_channels(call, 0, 2, "a Gray–Scott state")?;
    let (w, h) = (state.width(), state.height());
    let rates = Rates {
        feed: field(call, 1, w, h)?,
        kill: field(call, 2, w, h)?,
        du: field(call, 3, w, h)?,
        dv: field(call, 4, w, h)?,
    };
    let dt = call.float(5)? as f32;
    let steps = int_param(call, 0)?.clamp(1, 100_000) as u32;
    call.check_cancel()?;
    out[0] = run(state, &rates, dt, steps)?.into_value();
    Ok(())
}

fn map_input(name: &'static str, default: f64, doc: &'static str) -> InputSpec {
    InputSpec::optional(name, ValueType::Any, Value::Float(default), doc)
}

/// Register `sim.grayscott.init` and `sim.grayscott.step`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    let init = OpSpec::new(
        "sim.grayscott.init",
        "The seed of a Gray–Scott field: a 2-channel grid (u, v) with u = 1, v = 0 but for \
         seeded square spots of u = 0.5, v = 0.25. Wire it to a latch's init.",
    )
    .output(OutputSpec::new(
        "out",
        GRID_TYPE,
        "the field (channels u, v)",
    ));
    let init = crate::sim_op::with_size_params(init, 256)
        .param(ParamSpec::new(
            "seed",
            ValueType::Int,
            Value::Int(0),
            "where the spots fall",
        ))
        .param(
            ParamSpec::new("spots", ValueType::Int, Value::Int(10), "how many spots").with_rule(
                Rule::Ints {
                    min: 0,
                    max: 10_000,
                },
            ),
        )
        .param(
            ParamSpec::new(
                "radius",
                ValueType::Int,
                Value::Int(4),
                "half the side of a spot, in cells",
            )
            .with_rule(Rule::Ints { min: 0, max: 1024 }),
        );
    reg.register(SimOp::new(init, run_init))?;
    let step = OpSpec::new(
        "sim.grayscott.step",
        "Gray–Scott reaction–diffusion: `substeps` forward-Euler steps of a (u, v) grid on a \
         torus (3 × 3 Laplacian). Rates are numbers or maps of the state's size (a grid's \
         first channel, an image's red channel).",
    )
    .input(InputSpec::required(
        "state",
        GRID_TYPE,
        "the field (from a latch)",
    ))
    .input(map_input("feed", 0.055, "feed rate of u (number or map)"))
    .input(map_input("kill", 0.062, "kill rate of v (number or map)"))
    .input(map_input("du", 1.0, "diffusion rate of u (number or map)"))
    .input(map_input("dv", 0.5, "diffusion rate of v (number or map)"))
    .input(InputSpec::optional(
        "dt",
        ValueType::Float,
        Value::Float(1.0),
        "time step of each substep",
    ))
    .output(OutputSpec::new(
        "out",
        GRID_TYPE,
        "the field after the steps",
    ))
    .param(
        ParamSpec::new(
            "substeps",
            ValueType::Int,
            Value::Int(1),
            "Euler steps per tick",
        )
        .with_rule(Rule::Ints {
            min: 1,
            max: 100_000,
        }),
    );
    reg.register(SimOp::new(step, run_step))?;
    Ok(())
}
