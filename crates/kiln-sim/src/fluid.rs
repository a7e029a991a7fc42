//! 2D stable fluids (Stam 1999) on a torus: a 3-channel grid (velocity `x`, `y` in cells per
//! second, and dye). Each step, in order:
//!
//! 1. **forces**: inside a disk of `radius` (a fraction of the width) around `source` (in
//!    0..1 of the field), add `dye` per second of dye and `force` (cells/s²) of velocity;
//!    everywhere, buoyancy lifts dye (`buoyancy` · dye upwards, y grows downwards) and
//!    vorticity confinement (`vorticity` ε) adds `ε (N × ω)`, `N` the unit gradient of |ω|;
//! 2. **project**: remove the divergence (backward differences), solving the Poisson
//!    equation by `iterations` red-black Gauss–Seidel sweeps, then subtract the pressure's gradient (forward
//!    differences: their composition is the 5-point Laplacian the sweeps solve);
//! 3. **advect** velocity and dye semi-Lagrangian (back-traced, bilinear, on a staggered
//!    grid: a cell's `x` velocity lives on its right face, its `y` velocity on its lower
//!    face, its dye at its centre), the dye fading by
//!    `dissipation` per second;
//! 4. **project** again.
//!
//! Every pass computes each row from the previous pass only (a red-black half sweep reads
//! only the other colour's cells), so the bits do not depend on the thread count.

use crate::grid::Grid;
use crate::ports::{SIDE, grid_size, with_channels};
use crate::rows::{for_each_row, wrap};
use kiln_core::op;
use kiln_core::op::{OpCall, OpError, Rule};
use kiln_core::registry::{Registry, RegistryError};

/// The settings of one step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FluidSettings {
    /// Seconds per step.
    pub dt: f32,
    /// Centre of the source disk, in 0..1 of the width and height.
    pub source: [f32; 2],
    /// Radius of the source disk, as a fraction of the width.
    pub radius: f32,
    /// Dye added per second inside the source.
    pub dye: f32,
    /// Velocity added per second inside the source (cells/s²).
    pub force: [f32; 2],
    /// Upward acceleration per unit of dye.
    pub buoyancy: f32,
    /// Vorticity confinement strength ε.
    pub vorticity: f32,
    /// Fraction of the dye lost per second.
    pub dissipation: f32,
    /// Red-black Gauss–Seidel sweeps per projection.
    pub iterations: u32,
}

/// A field of `ch` channels of the state's size, each cell from `f(x, y, out)`.
fn map(
    w: u32,
    h: u32,
    ch: u32,
    f: impl Fn(u32, u32, &mut [f32]) + Sync + Send,
) -> Result<Grid, OpError> {
    let mut g = Grid::uninit(w, h, ch)?;
    for_each_row(&mut g, |y, row| {
        for (x, cell) in row.chunks_exact_mut(ch as usize).enumerate() {
            f(x as u32, y, cell);
        }
    });
    Ok(g)
}

/// Channel `c` of `g` at cell (x + dx, y + dy), wrapping.
#[inline(always)]
fn at(g: &Grid, x: u32, y: u32, dx: i32, dy: i32, c: u32) -> f32 {
    g.get(wrap(x, dx, g.width()), wrap(y, dy, g.height()), c)
}

/// Channel `c` of `g` at the point (x, y) in cells, bilinear, wrapping.
fn sample(g: &Grid, x: f32, y: f32, c: u32) -> f32 {
    let (w, h) = (g.width() as f32, g.height() as f32);
    let (x, y) = (x.rem_euclid(w), y.rem_euclid(h));
    let (x0, y0) = (x.floor(), y.floor());
    let (fx, fy) = (x - x0, y - y0);
    let (x0, y0) = (x0 as u32 % g.width(), y0 as u32 % g.height());
    let a = at(g, x0, y0, 0, 0, c);
    let b = at(g, x0, y0, 1, 0, c);
    let cc = at(g, x0, y0, 0, 1, c);
    let d = at(g, x0, y0, 1, 1, c);
    (a * (1.0 - fx) + b * fx) * (1.0 - fy) + (cc * (1.0 - fx) + d * fx) * fy
}

/// The velocity at the point (x, y) in cells (cell centres at whole numbers): `vx` of a cell
/// lives on its right face and `vy` on its lower face (a staggered grid, which the
/// projection's differences assume).
fn velocity_at(v: &Grid, x: f32, y: f32) -> [f32; 2] {
    [sample(v, x - 0.5, y, 0), sample(v, x, y - 0.5, 1)]
}

/// The divergence of the velocity in channels 0 and 1 of `v` (backward differences).
pub fn divergence(v: &Grid) -> Result<Grid, OpError> {
    map(v.width(), v.height(), 1, |x, y, o| {
        o[0] = (at(v, x, y, 0, 0, 0) - at(v, x, y, -1, 0, 0))
            + (at(v, x, y, 0, 0, 1) - at(v, x, y, 0, -1, 1));
    })
}

/// `v` (channels 0 and 1 the velocity, the others carried along) with its divergence
/// removed by `iterations` red-black Gauss–Seidel sweeps (see the module docs).
pub fn project(v: &Grid, iterations: u32) -> Result<Grid, OpError> {
    let (w, h) = (v.width(), v.height());
    let div = divergence(v)?;
    let mut p = Grid::filled(w, h, &[0.0])?;
    let mut next = Grid::uninit(w, h, 1)?;
    // Red-black Gauss-Seidel: a half sweep updates the cells of one colour from the other's,
    // so every cell reads only the previous half sweep (any thread count, the same bits).
    for _ in 0..iterations {
        for colour in [0, 1] {
            let from = &p;
            for_each_row(&mut next, |y, row| {
                for (x, o) in row.iter_mut().enumerate() {
                    let x = x as u32;
                    *o = if (x + y) % 2 == colour {
                        let s = at(from, x, y, -1, 0, 0)
                            + at(from, x, y, 1, 0, 0)
                            + at(from, x, y, 0, -1, 0)
                            + at(from, x, y, 0, 1, 0);
                        (s - div.get(x, y, 0)) * 0.25
                    } else {
                        from.get(x, y, 0)
                    };
                }
            });
            std::mem::swap(&mut p, &mut next);
        }
    }
    map(w, h, v.channels(), |x, y, o| {
        for (c, out) in o.iter_mut().enumerate() {
            *out = v.get(x, y, c as u32);
        }
        o[0] -= at(&p, x, y, 1, 0, 0) - at(&p, x, y, 0, 0, 0);
        o[1] -= at(&p, x, y, 0, 1, 0) - at(&p, x, y, 0, 0, 0);
    })
}

/// One step of `state` (see the module docs).
pub fn step(state: &Grid, s: &FluidSettings) -> Result<Grid, OpError> {
    let (w, h) = (state.width(), state.height());
    let dt = s.dt;
    let (cx, cy) = (s.source[0] * w as f32, s.source[1] * h as f32);
    let r = s.radius * w as f32;
    let curl = map(w, h, 1, |x, y, o| {
        o[0] = 0.5
            * ((at(state, x, y, 1, 0, 1) - at(state, x, y, -1, 0, 1))
                - (at(state, x, y, 0, 1, 0) - at(state, x, y, 0, -1, 0)));
    })?;
    let forced = map(w, h, 3, |x, y, o| {
        let (mut vx, mut vy, mut dye) =
            (state.get(x, y, 0), state.get(x, y, 1), state.get(x, y, 2));
        let (dx, dy) = (x as f32 + 0.5 - cx, y as f32 + 0.5 - cy);
        if dx * dx + dy * dy <= r * r {
            dye += s.dye * dt;
            vx += s.force[0] * dt;
            vy += s.force[1] * dt;
        }
        vy -= s.buoyancy * dye * dt;
        if s.vorticity != 0.0 {
            let gx = 0.5 * (at(&curl, x, y, 1, 0, 0).abs() - at(&curl, x, y, -1, 0, 0).abs());
            let gy = 0.5 * (at(&curl, x, y, 0, 1, 0).abs() - at(&curl, x, y, 0, -1, 0).abs());
            let len = (gx * gx + gy * gy).sqrt() + 1e-5;
            let omega = curl.get(x, y, 0);
            vx += s.vorticity * (gy / len) * omega * dt;
            vy -= s.vorticity * (gx / len) * omega * dt;
        }
        o.copy_from_slice(&[vx, vy, dye]);
    })?;
    drop(curl);
    let v = project(&forced, s.iterations)?;
    drop(forced);
    let keep = (1.0 - s.dissipation * dt).max(0.0);
    let advected = map(w, h, 3, |x, y, o| {
        let (x, y) = (x as f32, y as f32);
        // Each quantity is traced back from where it lives: vx on the cell's right face,
        // vy on its lower face, the dye at its centre.
        let back = |px: f32, py: f32| {
            let [u, v2] = velocity_at(&v, px, py);
            (px - dt * u, py - dt * v2)
        };
        let (ax, ay) = back(x + 0.5, y);
        o[0] = sample(&v, ax - 0.5, ay, 0);
        let (bx, by) = back(x, y + 0.5);
        o[1] = sample(&v, bx, by - 0.5, 1);
        let (cx, cy) = back(x, y);
        o[2] = sample(&v, cx, cy, 2) * keep;
    })?;
    drop(v);
    project(&advected, s.iterations)
}

/// The seed of a 2D fluid: a still, clear 3-channel grid (velocity x, y and dye).
#[op("sim.fluid.init", out = "the fluid (vx, vy, dye)")]
fn fluid_init(
    #[param("width in cells", default = 128, rule = SIDE, plan_time)] width: i64,
    #[param("height in cells", default = 128, rule = SIDE, plan_time)] height: i64,
) -> Result<Grid, OpError> {
    let (w, h) = grid_size(width, height)?;
    Grid::filled(w, h, &[0.0, 0.0, 0.0])
}

/// One step of 2D stable fluids (Stam) on a torus: a dye and force source, buoyancy,
/// vorticity confinement, projection (red-black Gauss–Seidel), semi-Lagrangian advection,
/// projection.
#[op("sim.fluid.step", out = "the fluid one step on")]
#[allow(clippy::too_many_arguments)]
fn fluid_step(
    #[input("the fluid (from a latch)")] state: &Grid,
    #[input("centre of the source, in 0..1 of the field", default = [0.5, 0.85])] source: [f64; 2],
    #[input("radius of the source, a fraction of the width", default = 0.06, range = 0.0..=1.0)]
    radius: f64,
    #[input("dye added per second inside the source", default = 4.0)] dye: f64,
    #[input(
        "velocity added per second inside the source (cells/s², y down)",
        default = [0.0, -40.0]
    )]
    force: [f64; 2],
    #[input("upward acceleration per unit of dye", default = 0.0)] buoyancy: f64,
    #[input("vorticity confinement strength", default = 0.0)] vorticity: f64,
    #[input(
        "fraction of the dye lost per second",
        default = 0.0,
        rule = Rule::NON_NEGATIVE
    )]
    dissipation: f64,
    #[input("seconds per step", default = 1.0 / 30.0, rule = Rule::NON_NEGATIVE)] dt: f64,
    #[param(
        "red-black Gauss–Seidel sweeps per projection",
        default = 40,
        range = 1..=10_000,
        plan_time
    )]
    iterations: i64,
    call: &OpCall,
) -> Result<Grid, OpError> {
    let state = with_channels(state, 0, 3, "a fluid state")?;
    let f32s = |[a, b]: [f64; 2]| [a as f32, b as f32];
    let s = FluidSettings {
        source: f32s(source),
        radius: radius as f32,
        dye: dye as f32,
        force: f32s(force),
        buoyancy: buoyancy as f32,
        vorticity: vorticity as f32,
        dissipation: dissipation as f32,
        dt: dt as f32,
        iterations: iterations.clamp(1, 10_000) as u32,
    };
    call.check_cancel()?;
    step(state, &s)
}

/// Register `sim.fluid.init` and `sim.fluid.step`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(FluidInitOp::new())?;
    reg.register(FluidStepOp::new())?;
    Ok(())
}
