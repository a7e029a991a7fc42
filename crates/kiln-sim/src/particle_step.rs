//! Particle simulation: `sim.particles.init` (an empty system) and `sim.particles.step`.
//!
//! A step, with `dt` seconds:
//!
//! 1. every particle ages by `dt`; those whose age reaches their life die (the order of the
//!    rest is kept);
//! 2. the emitter adds `rate · dt` particles (the fraction carried to the next step), and
//!    every `burst_every` seconds (0: never) `burst` more at once. Each new particle's random
//!    numbers come from the node's `seed` and its index, so a run is the same on any thread
//!    count: it starts at `emitter` plus a random offset within `±spread` on each axis (one
//!    offset per burst), moves at `speed` in a random direction, lives `life` (± `life_jitter`
//!    of it), and takes a random hue (one per burst). Given emission points (the `points`
//!    input, a list of vec3, such as `mesh.point_list` makes of a mesh), a particle starts
//!    at one of them instead of `emitter` (plus the same offset), picked by its own random
//!    numbers, and, given normals (`normals`, one per point), moves at `speed` along its
//!    point's normal instead of a random direction;
//! 3. forces: `gravity`, drag towards the `wind` (`drag` per second), a value-noise field of
//!    `noise` strength and `noise_scale` cells, and a vortex of `vortex` strength turning
//!    about the vertical axis through `vortex_center`;
//! 4. semi-implicit Euler: `v += a dt`, `p += v dt`;
//! 5. collisions: below the plane `y = floor` (when `floor_on`) a particle is put back on it
//!    and its vertical velocity reversed and scaled by `bounce`; inside the sphere
//!    (`sphere_center`, `sphere_radius` > 0) it is put back on the surface and its inward
//!    velocity reflected, scaled by `bounce`.

use crate::particles::{Particle, Particles};
use crate::ports::{Vec3s, f32s};
use crate::rng::Rng;
use kiln_core::memory::MemoryError;
use kiln_core::op;
use kiln_core::op::{OpCall, OpError, Rule};
use kiln_core::registry::{Registry, RegistryError};
use rayon::prelude::*;

/// Most particles a system holds (emission stops there).
pub const MAX_PARTICLES: usize = 10_000_000;

/// Everything a step reads (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParticleSettings {
    /// Seconds per step.
    pub dt: f32,
    /// Seed of the emitter's random numbers.
    pub seed: u64,
    /// Where particles start.
    pub emitter: [f32; 3],
    /// Half the size of the box around the emitter they start in.
    pub spread: [f32; 3],
    /// Particles per second.
    pub rate: f32,
    /// Seconds between bursts (0: none).
    pub burst_every: f32,
    /// Particles per burst.
    pub burst: u32,
    /// Speed at emission.
    pub speed: f32,
    /// Seconds a particle lives.
    pub life: f32,
    /// Relative spread of the lifetime (0..1).
    pub life_jitter: f32,
    /// Constant acceleration.
    pub gravity: [f32; 3],
    /// The air's velocity.
    pub wind: [f32; 3],
    /// Drag towards the wind, per second.
    pub drag: f32,
    /// Strength of the noise field.
    pub noise: f32,
    /// Size of the noise field's features.
    pub noise_scale: f32,
    /// Strength of the vortex.
    pub vortex: f32,
    /// A point on the vortex's vertical axis.
    pub vortex_center: [f32; 3],
    /// Whether the floor plane collides.
    pub floor_on: bool,
    /// Height of the floor plane.
    pub floor: f32,
    /// Centre of the collision sphere.
    pub sphere_center: [f32; 3],
    /// Radius of the collision sphere (0: none).
    pub sphere_radius: f32,
    /// Fraction of the speed kept by a bounce.
    pub bounce: f32,
}

fn lattice(seed: u64, x: i32, y: i32, z: i32, axis: u64) -> f32 {
    let k = (x as u32 as u64).wrapping_mul(0x9E37_79B1)
        ^ (y as u32 as u64).wrapping_mul(0x85EB_CA77).rotate_left(21)
        ^ (z as u32 as u64).wrapping_mul(0xC2B2_AE3D).rotate_left(42)
        ^ axis.wrapping_mul(0x27D4_EB2F_1656_67C5);
    Rng::new(seed ^ k).next_f32() * 2.0 - 1.0
}

/// A smooth random vector field in -1..1 per axis (trilinear value noise).
pub(crate) fn noise3(seed: u64, p: [f32; 3]) -> [f32; 3] {
    let (fx, fy, fz) = (p[0].floor(), p[1].floor(), p[2].floor());
    let (tx, ty, tz) = (p[0] - fx, p[1] - fy, p[2] - fz);
    let s = |t: f32| t * t * (3.0 - 2.0 * t);
    let (sx, sy, sz) = (s(tx), s(ty), s(tz));
    let (ix, iy, iz) = (fx as i32, fy as i32, fz as i32);
    let mut out = [0.0; 3];
    for (axis, o) in out.iter_mut().enumerate() {
        // A point past the `i32` cells (saturated) wraps to its neighbour, as release builds
        // add: never an overflow.
        let l = |dx: i32, dy: i32, dz: i32| {
            lattice(
                seed,
                ix.wrapping_add(dx),
                iy.wrapping_add(dy),
                iz.wrapping_add(dz),
                axis as u64,
            )
        };
        let lerp = |a: f32, b: f32, t: f32| a + (b - a) * t;
        let x00 = lerp(l(0, 0, 0), l(1, 0, 0), sx);
        let x10 = lerp(l(0, 1, 0), l(1, 1, 0), sx);
        let x01 = lerp(l(0, 0, 1), l(1, 0, 1), sx);
        let x11 = lerp(l(0, 1, 1), l(1, 1, 1), sx);
        *o = lerp(lerp(x00, x10, sy), lerp(x01, x11, sy), sz);
    }
    out
}

/// Where particles are emitted from instead of the settings' `emitter`: points, and the
/// direction each point sends its particles in (see the module docs). Both empty (the
/// default): the emitter, in random directions.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EmitFrom<'a> {
    /// The points a new particle picks from (empty: the emitter).
    pub points: &'a [[f32; 3]],
    /// Each point's direction of emission, not necessarily unit (empty, or a point past its
    /// end or with a zero normal: a random direction).
    pub normals: &'a [[f32; 3]],
}

fn unit(v: [f32; 3]) -> Option<[f32; 3]> {
    let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    (len > 0.0 && len.is_finite()).then(|| v.map(|c| c / len))
}

fn emit(s: &ParticleSettings, from: EmitFrom<'_>, index: u64, group: u64) -> Particle {
    let mut r = Rng::new(s.seed ^ index.wrapping_mul(0xA076_1D64_78BD_642F));
    let mut g = Rng::new(s.seed ^ group.wrapping_mul(0xE703_7ED1_A0B4_28DB) ^ 0x5555);
    let offset = [0, 1, 2].map(|i| (g.next_f32() * 2.0 - 1.0) * s.spread[i]);
    let hue = g.next_f32();
    // A uniform direction: z uniform in -1..1, angle uniform.
    let z = r.next_f32() * 2.0 - 1.0;
    let a = r.next_f32() * std::f32::consts::TAU;
    let rxy = (1.0 - z * z).max(0.0).sqrt();
    let dir = [rxy * a.cos(), z, rxy * a.sin()];
    let life = s.life * (1.0 + s.life_jitter * (r.next_f32() * 2.0 - 1.0));
    // The point is drawn after every number the emitter draws, so without points the
    // particle is the same bits as before points existed.
    let (origin, dir) = if from.points.is_empty() {
        (s.emitter, dir)
    } else {
        let k = r.below(from.points.len() as u64) as usize;
        let along = from.normals.get(k).and_then(|&n| unit(n));
        (from.points[k], along.unwrap_or(dir))
    };
    Particle {
        pos: [0, 1, 2].map(|i| origin[i] + offset[i]),
        vel: dir.map(|d| d * s.speed),
        age: 0.0,
        life,
        hue,
    }
}

fn update(p: &mut Particle, s: &ParticleSettings) {
    let dt = s.dt;
    let mut a = s.gravity;
    for (i, ai) in a.iter_mut().enumerate() {
        *ai += s.drag * (s.wind[i] - p.vel[i]);
    }
    if s.noise != 0.0 {
        let q = p.pos.map(|c| c / s.noise_scale.max(1e-6));
        let n = noise3(s.seed ^ 0x00C0_FFEE, q);
        for i in 0..3 {
            a[i] += s.noise * n[i];
        }
    }
    if s.vortex != 0.0 {
        let (dx, dz) = (p.pos[0] - s.vortex_center[0], p.pos[2] - s.vortex_center[2]);
        a[0] += -s.vortex * dz;
        a[2] += s.vortex * dx;
    }
    for (i, ai) in a.iter().enumerate() {
        p.vel[i] += ai * dt;
        p.pos[i] += p.vel[i] * dt;
    }
    if s.floor_on && p.pos[1] < s.floor {
        p.pos[1] = s.floor;
        if p.vel[1] < 0.0 {
            p.vel[1] = -p.vel[1] * s.bounce;
        }
    }
    if s.sphere_radius > 0.0 {
        let d = [0, 1, 2].map(|i| p.pos[i] - s.sphere_center[i]);
        let len = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
        if len < s.sphere_radius && len > 0.0 {
            let n = d.map(|c| c / len);
            p.pos = [0, 1, 2].map(|i| s.sphere_center[i] + n[i] * s.sphere_radius);
            let vn = p.vel[0] * n[0] + p.vel[1] * n[1] + p.vel[2] * n[2];
            if vn < 0.0 {
                p.vel = [0, 1, 2].map(|i| p.vel[i] - (1.0 + s.bounce) * vn * n[i]);
            }
        }
    }
}

/// One step of `state` (see the module docs), emitting from the settings' `emitter`.
pub fn step(state: &Particles, s: &ParticleSettings) -> Result<Particles, MemoryError> {
    step_from(state, s, EmitFrom::default())
}

/// One step of `state` (see the module docs), emitting from `from`'s points when it has
/// any. The particles emitted are counted before any is made, so a system over
/// [`MAX_PARTICLES`] emits only up to it (however many bursts fall in the step), and its
/// storage is checked against the memory budget and reserved fallibly.
pub fn step_from(
    state: &Particles,
    s: &ParticleSettings,
    from: EmitFrom<'_>,
) -> Result<Particles, MemoryError> {
    let survivors = state.items.iter().filter(|p| p.age + s.dt < p.life).count();
    let room = MAX_PARTICLES.saturating_sub(survivors) as u64;
    let owed = state.carry + s.rate.max(0.0) * s.dt;
    let count = owed.floor().max(0.0) as u64;
    let carry = owed - count as f32;
    let t0 = state.steps as f64 * s.dt as f64;
    // Bursts at each multiple of `burst_every` within this step's [t0, t0 + dt): the
    // first and one past the last.
    let (first, last) = if s.burst_every > 0.0 {
        let every = s.burst_every as f64;
        (
            (t0 / every).ceil() as u64,
            ((t0 + s.dt as f64) / every).ceil() as u64,
        )
    } else {
        (0, 0)
    };
    let bursts = last
        .saturating_sub(first)
        .saturating_mul(u64::from(s.burst));
    let from_bursts = bursts.min(room);
    let from_rate = count.min(room - from_bursts);
    let len = survivors + (from_bursts + from_rate) as usize;
    let need = (len as u64).saturating_mul(std::mem::size_of::<Particle>() as u64);
    kiln_core::memory::check(need, || format!("a particle system of {len} particles"))?;
    // Written into the storage of a system nobody holds any more (see `particle_pool`).
    let mut items: Vec<Particle> = crate::particle_pool::take(survivors + 16);
    items
        .try_reserve(len.saturating_sub(items.len()))
        .map_err(|_| MemoryError::OutOfMemory {
            what: format!("a particle system of {len} particles"),
            bytes: need,
        })?;
    items.extend(state.items.iter().filter_map(|p| {
        let mut p = *p;
        p.age += s.dt;
        (p.age < p.life).then_some(p)
    }));
    let mut emitted = state.emitted;
    if s.burst > 0 {
        let per = u64::from(s.burst);
        for k in 0..from_bursts {
            items.push(emit(s, from, emitted, first + k / per + 1));
            emitted += 1;
        }
    }
    for _ in 0..from_rate {
        items.push(emit(s, from, emitted, 0));
        emitted += 1;
    }
    items
        .par_iter_mut()
        .with_min_len(1024)
        .for_each(|p| update(p, s));
    Ok(Particles {
        items,
        carry,
        emitted,
        steps: state.steps + 1,
    })
}

/// An empty particle system, to seed a latch that `sim.particles.step` advances.
#[op("sim.particles.init", out = "no particles yet")]
fn particles_init() -> Particles {
    Particles::default()
}

/// One step of a particle system: age and die, emit (a rate and bursts, from the emitter or
/// from given points along their normals), forces (gravity, wind and drag, noise, vortex),
/// semi-implicit Euler, collide with a floor plane and a sphere.
#[op("sim.particles.step", out = "the system one step on")]
#[allow(clippy::too_many_arguments)]
fn particles_step(
    #[input("the system (from a latch)")] state: &Particles,
    #[input("particles emitted per second", default = 50.0)] rate: f64,
    #[input("seconds between bursts (0: none)", default = 0.0)] burst_every: f64,
    #[input("speed at emission", default = 1.0)] speed: f64,
    #[input("seconds a particle lives", default = 2.0)] life: f64,
    #[input("relative spread of the lifetime (0..1)", default = 0.0)] life_jitter: f64,
    #[input("drag towards the wind, per second", default = 0.0)] drag: f64,
    #[input("strength of the noise field", default = 0.0)] noise: f64,
    #[input("size of the noise field's features", default = 1.0)] noise_scale: f64,
    #[input("strength of the vortex about the vertical axis", default = 0.0)] vortex: f64,
    #[input("height of the floor plane", default = 0.0)] floor: f64,
    #[input("radius of the collision sphere (0: none)", default = 0.0)] sphere_radius: f64,
    #[input("fraction of the speed a bounce keeps", default = 0.5)] bounce: f64,
    #[input("where particles start", default = [0.0, 0.0, 0.0])] emitter: [f64; 3],
    #[input("half the box around the emitter they start in", default = [0.0, 0.0, 0.0])]
    spread: [f64; 3],
    #[input("constant acceleration", default = [0.0, -9.81, 0.0])] gravity: [f64; 3],
    #[input("the air's velocity", default = [0.0, 0.0, 0.0])] wind: [f64; 3],
    #[input("a point on the vortex's axis", default = [0.0, 0.0, 0.0])] vortex_center: [f64; 3],
    #[input("centre of the collision sphere", default = [0.0, 0.0, 0.0])] sphere_center: [f64; 3],
    #[input("seconds per step", default = 1.0 / 30.0, rule = Rule::NON_NEGATIVE)] dt: f64,
    #[input(
        "points to emit from instead of `emitter` (empty: the emitter)",
        default = Vec3s(&[])
    )]
    points: Vec3s<'_>,
    #[input(
        "each point's direction of emission (empty: random directions)",
        default = Vec3s(&[])
    )]
    normals: Vec3s<'_>,
    #[param("seed of the emitter", default = 0)] seed: i64,
    #[param("particles per burst", default = 100, range = 0..=1_000_000)] burst: i64,
    #[param("collide with the floor plane", default = false)] floor_on: bool,
    call: &OpCall,
) -> Result<Particles, OpError> {
    // The input indices of `points` and `normals`, for their errors.
    const POINTS: usize = 20;
    const NORMALS: usize = 21;
    let s = ParticleSettings {
        rate: rate as f32,
        burst_every: burst_every as f32,
        speed: speed as f32,
        life: life as f32,
        life_jitter: life_jitter as f32,
        drag: drag as f32,
        noise: noise as f32,
        noise_scale: noise_scale as f32,
        vortex: vortex as f32,
        floor: floor as f32,
        sphere_radius: sphere_radius as f32,
        bounce: bounce as f32,
        emitter: f32s(emitter),
        spread: f32s(spread),
        gravity: f32s(gravity),
        wind: f32s(wind),
        vortex_center: f32s(vortex_center),
        sphere_center: f32s(sphere_center),
        dt: dt as f32,
        floor_on,
        burst: burst.clamp(0, 1_000_000) as u32,
        seed: seed as u64,
    };
    let points = points.finite(POINTS)?;
    let normals = normals.finite(NORMALS)?;
    if !normals.is_empty() && normals.len() != points.len() {
        return Err(OpError::input(
            NORMALS,
            format!(
                "expected one normal per point ({} points), found {} normals",
                points.len(),
                normals.len()
            ),
        ));
    }
    let from = EmitFrom {
        points: &points,
        normals: &normals,
    };
    call.check_cancel()?;
    step_from(state, &s, from).map_err(|e| OpError::new(e.to_string()))
}

/// Register `sim.particles.init` and `sim.particles.step`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(ParticlesInitOp::new())?;
    reg.register(ParticlesStepOp::new())?;
    Ok(())
}
