//! SmoothLife (Rafler 2011): Life on a continuous field. Each cell has a state in `[0, 1]`;
//! `m` is the mean over a disk of radius `ri` around it and `n` the mean over the ring from
//! `ri` to `ra = 3 ri` (edges weighted by coverage, half a cell wide), and the next state is
//!
//! ```text
//! s(n, m) = σ2(n, σm(b1, d1, m), σm(b2, d2, m))
//! σ1(x, a, α) = 1 / (1 + exp(−4 (x − a) / α))
//! σ2(x, a, b) = σ1(x, a, αn) (1 − σ1(x, b, αn))
//! σm(x, y, m) = x (1 − σ1(m, 0.5, αm)) + y σ1(m, 0.5, αm)
//! ```
//!
//! with Rafler's constants b1 = 0.278, b2 = 0.365, d1 = 0.267, d2 = 0.445, αn = 0.028,
//! αm = 0.147. `sim.smoothlife.step` moves each cell `mix` of the way to `s` (1: the discrete
//! rule), on a torus. `sim.smoothlife.init` seeds random filled disks.

use crate::grid::Grid;
use crate::ports::{SIDE, grid_size, with_channels};
use crate::rng::Rng;
use crate::rows::{for_each_row, wrap};
use kiln_core::op;
use kiln_core::op::{OpCall, OpError};
use kiln_core::registry::{Registry, RegistryError};

/// Rafler's transition constants.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SmoothRule {
    /// Birth interval.
    pub b1: f32,
    /// Birth interval end.
    pub b2: f32,
    /// Survival interval.
    pub d1: f32,
    /// Survival interval end.
    pub d2: f32,
    /// Step width of the ring's sigmoid.
    pub alpha_n: f32,
    /// Step width of the disk's sigmoid.
    pub alpha_m: f32,
}

impl Default for SmoothRule {
    fn default() -> Self {
        SmoothRule {
            b1: 0.278,
            b2: 0.365,
            d1: 0.267,
            d2: 0.445,
            alpha_n: 0.028,
            alpha_m: 0.147,
        }
    }
}

impl SmoothRule {
    /// The transition `s(n, m)` (see the module docs).
    pub fn s(&self, n: f32, m: f32) -> f32 {
        let s1 = |x: f32, a: f32, alpha: f32| 1.0 / (1.0 + (-(x - a) * 4.0 / alpha).exp());
        let s2 = |x: f32, a: f32, b: f32| s1(x, a, self.alpha_n) * (1.0 - s1(x, b, self.alpha_n));
        let sm = |x: f32, y: f32, m: f32| {
            let t = s1(m, 0.5, self.alpha_m);
            x * (1.0 - t) + y * t
        };
        s2(n, sm(self.b1, self.d1, m), sm(self.b2, self.d2, m))
    }
}

/// The neighbourhood of radius `ri`: each offset with its disk and ring weights.
#[derive(Clone, Debug)]
pub struct Kernel {
    taps: Vec<(i32, i32, f32, f32)>,
    disk: f32,
    ring: f32,
}

impl Kernel {
    /// The disk of radius `ri` and the ring out to `3 ri`.
    pub fn new(ri: f32) -> Kernel {
        let ra = 3.0 * ri;
        let reach = (ra + 1.0).ceil() as i32;
        let mut taps = vec![];
        let (mut disk, mut ring) = (0.0, 0.0);
        for dy in -reach..=reach {
            for dx in -reach..=reach {
                let d = ((dx * dx + dy * dy) as f32).sqrt();
                let inner = (ri + 0.5 - d).clamp(0.0, 1.0);
                let outer = (ra + 0.5 - d).clamp(0.0, 1.0) - inner;
                if inner > 0.0 || outer > 0.0 {
                    taps.push((dx, dy, inner, outer));
                    disk += inner;
                    ring += outer;
                }
            }
        }
        Kernel { taps, disk, ring }
    }
    /// The total weight of the disk (about π ri²).
    pub fn disk_weight(&self) -> f32 {
        self.disk
    }
    /// The total weight of the ring (about π (ra² − ri²)).
    pub fn ring_weight(&self) -> f32 {
        self.ring
    }
}

/// One step of `src` into `dst` (1-channel grids of one size).
pub fn step_into(src: &Grid, dst: &mut Grid, k: &Kernel, rule: &SmoothRule, mix: f32) {
    let (w, h) = (src.width(), src.height());
    let d = src.data();
    for_each_row(dst, |y, row| {
        for (x, cell) in row.iter_mut().enumerate() {
            let (mut m, mut n) = (0.0f32, 0.0f32);
            for &(dx, dy, wi, wo) in &k.taps {
                let v = d[wrap(y, dy, h) as usize * w as usize + wrap(x as u32, dx, w) as usize];
                m += wi * v;
                n += wo * v;
            }
            let f = d[y as usize * w as usize + x];
            let s = rule.s(n / k.ring, m / k.disk);
            *cell = (f + mix * (s - f)).clamp(0.0, 1.0);
        }
    });
}

/// The seed of a SmoothLife field: a 1-channel grid of zeros with `blobs` seeded filled
/// disks of `radius` cells.
#[op("sim.smoothlife.init", out = "the field")]
fn smoothlife_init(
    #[param("width in cells", default = 128, rule = SIDE, plan_time)] width: i64,
    #[param("height in cells", default = 128, rule = SIDE, plan_time)] height: i64,
    #[param("where the disks fall", default = 0)] seed: i64,
    #[param("how many disks", default = 40, range = 0..=100_000)] blobs: i64,
    #[param("radius of a disk in cells", default = 6.0, range = 0.0..=1024.0)] radius: f64,
) -> Result<Grid, OpError> {
    let (w, h) = grid_size(width, height)?;
    let blobs = blobs.clamp(0, 100_000);
    let radius = radius as f32;
    let mut g = Grid::filled(w, h, &[0.0])?;
    let mut rng = Rng::new(seed as u64);
    let r = radius.ceil() as i64;
    for _ in 0..blobs {
        let cx = rng.below(w as u64) as i64;
        let cy = rng.below(h as u64) as i64;
        for y in -r..=r {
            for x in -r..=r {
                if ((x * x + y * y) as f32) <= radius * radius {
                    let px = (cx + x).rem_euclid(w as i64) as u32;
                    let py = (cy + y).rem_euclid(h as i64) as u32;
                    g.set(px, py, 0, 1.0);
                }
            }
        }
    }
    Ok(g)
}

/// One step of SmoothLife (Rafler 2011) on a torus: each cell moves `mix` of the way to the
/// transition of its disk and ring means.
#[op("sim.smoothlife.step", out = "the field one step on")]
fn smoothlife_step(
    #[input("the field (from a latch)")] state: &Grid,
    #[input("how far to move (1: the discrete rule)", default = 1.0, range = 0.0..=1.0)] mix: f64,
    #[param(
        "radius of the disk (the ring reaches 3 times as far)",
        default = 4.0,
        range = 0.5..=32.0
    )]
    inner_radius: f64,
    call: &OpCall,
) -> Result<Grid, OpError> {
    let state = with_channels(state, 0, 1, "a SmoothLife state")?;
    let kernel = Kernel::new(inner_radius as f32);
    let mut next = Grid::uninit(state.width(), state.height(), 1)?;
    call.check_cancel()?;
    step_into(
        state,
        &mut next,
        &kernel,
        &SmoothRule::default(),
        mix as f32,
    );
    Ok(next)
}

/// Register `sim.smoothlife.init` and `sim.smoothlife.step`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(SmoothlifeInitOp::new())?;
    reg.register(SmoothlifeStepOp::new())?;
    Ok(())
}
