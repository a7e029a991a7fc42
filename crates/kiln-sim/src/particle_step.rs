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

use crate::particles::{PARTICLES_TYPE, Particle, Particles};
use crate::rng::Rng;
use crate::sim_op::SimOp;
use kiln_core::list_type::list_of;
use kiln_core::memory::MemoryError;
use kiln_core::op::{InputSpec, OpCall, OpError, OpSpec, OutputSpec, ParamSpec, Rule};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};
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

fn run_init(_call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
    out[0] = Particles::default().into_value();
    Ok(())
}

fn vec3(call: &OpCall<'_>, i: usize) -> Result<[f32; 3], OpError> {
    match call.inputs.get(i) {
        Some(Value::Vec3(v)) => Ok(v.map(|c| c as f32)),
        v => Err(OpError::input(
            i,
            format!(
                "expected a vec3, found {}",
                v.map_or("nothing", Value::type_name)
            ),
        )),
    }
}

/// The inputs of `sim.particles.step` after `state`, in order: name, default, doc.
const FLOAT_INPUTS: [(&str, f64, &str); 12] = [
    ("rate", 50.0, "particles emitted per second"),
    ("burst_every", 0.0, "seconds between bursts (0: none)"),
    ("speed", 1.0, "speed at emission"),
    ("life", 2.0, "seconds a particle lives"),
    ("life_jitter", 0.0, "relative spread of the lifetime (0..1)"),
    ("drag", 0.0, "drag towards the wind, per second"),
    ("noise", 0.0, "strength of the noise field"),
    ("noise_scale", 1.0, "size of the noise field's features"),
    (
        "vortex",
        0.0,
        "strength of the vortex about the vertical axis",
    ),
    ("floor", 0.0, "height of the floor plane"),
    (
        "sphere_radius",
        0.0,
        "radius of the collision sphere (0: none)",
    ),
    ("bounce", 0.5, "fraction of the speed a bounce keeps"),
];
const VEC_INPUTS: [(&str, [f64; 3], &str); 6] = [
    ("emitter", [0.0, 0.0, 0.0], "where particles start"),
    (
        "spread",
        [0.0, 0.0, 0.0],
        "half the box around the emitter they start in",
    ),
    ("gravity", [0.0, -9.81, 0.0], "constant acceleration"),
    ("wind", [0.0, 0.0, 0.0], "the air's velocity"),
    (
        "vortex_center",
        [0.0, 0.0, 0.0],
        "a point on the vortex's axis",
    ),
    (
        "sphere_center",
        [0.0, 0.0, 0.0],
        "centre of the collision sphere",
    ),
];

/// Input `i` as a list of finite vec3, its length checked against
/// [`kiln_std::lists::MAX_LIST_LEN`] before the copy is made.
fn vec3_list(call: &OpCall<'_>, i: usize) -> Result<Vec<[f32; 3]>, OpError> {
    let v = call.inputs.get(i);
    let items = v.and_then(Value::as_list).ok_or_else(|| {
        OpError::input(
            i,
            format!(
                "expected a list of vec3, found {}",
                v.map_or("nothing", Value::type_name)
            ),
        )
    })?;
    let limit = kiln_std::lists::MAX_LIST_LEN;
    if items.len() as u64 > limit {
        return Err(OpError::input(
            i,
            format!(
                "the list has {} elements, over the limit of {limit} \
                 (kiln_std::lists::MAX_LIST_LEN)",
                items.len()
            ),
        ));
    }
    items
        .iter()
        .enumerate()
        .map(|(k, v)| match v {
            Value::Vec3(p) if p.iter().all(|c| c.is_finite()) => Ok(p.map(|c| c as f32)),
            v => Err(OpError::input(
                i,
                format!(
                    "element {k}: expected a finite vec3, found {}",
                    v.type_name()
                ),
            )),
        })
        .collect()
}

fn run_step(call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
    let state = call.heavy::<Particles>(0, "a particle system")?;
    let f = |i: usize| call.float(i).map(|v| v as f32);
    let v0 = 1 + FLOAT_INPUTS.len();
    let s = ParticleSettings {
        rate: f(1)?,
        burst_every: f(2)?,
        speed: f(3)?,
        life: f(4)?,
        life_jitter: f(5)?,
        drag: f(6)?,
        noise: f(7)?,
        noise_scale: f(8)?,
        vortex: f(9)?,
        floor: f(10)?,
        sphere_radius: f(11)?,
        bounce: f(12)?,
        emitter: vec3(call, v0)?,
        spread: vec3(call, v0 + 1)?,
        gravity: vec3(call, v0 + 2)?,
        wind: vec3(call, v0 + 3)?,
        vortex_center: vec3(call, v0 + 4)?,
        sphere_center: vec3(call, v0 + 5)?,
        dt: f(v0 + 6)?,
        floor_on: call.param_bool(2)?,
        burst: call.param_int(1)?.clamp(0, 1_000_000) as u32,
        seed: call.param_int(0)? as u64,
    };
    let points = vec3_list(call, v0 + 7)?;
    let normals = vec3_list(call, v0 + 8)?;
    if !normals.is_empty() && normals.len() != points.len() {
        return Err(OpError::input(
            v0 + 8,
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
    out[0] = step_from(state, &s, from)
        .map_err(|e| OpError::new(e.to_string()))?
        .into_value();
    Ok(())
}

/// Register `sim.particles.init` and `sim.particles.step`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    let init = OpSpec::new(
        "sim.particles.init",
        "An empty particle system, to seed a latch that `sim.particles.step` advances.",
    )
    .output(OutputSpec::new("out", PARTICLES_TYPE, "no particles yet"));
    reg.register(SimOp::new(init, run_init))?;
    let mut step = OpSpec::new(
        "sim.particles.step",
        "One step of a particle system: age and die, emit (a rate and bursts, from the \
         emitter or from given points along their normals), forces \
         (gravity, wind and drag, noise, vortex), semi-implicit Euler, collide with a floor \
         plane and a sphere.",
    )
    .input(InputSpec::required(
        "state",
        PARTICLES_TYPE,
        "the system (from a latch)",
    ));
    for (name, default, doc) in FLOAT_INPUTS {
        step = step.input(InputSpec::optional(
            name,
            ValueType::Float,
            Value::Float(default),
            doc,
        ));
    }
    for (name, default, doc) in VEC_INPUTS {
        step = step.input(InputSpec::optional(
            name,
            ValueType::Vec3,
            Value::Vec3(default),
            doc,
        ));
    }
    let step = step
        .input(
            InputSpec::optional(
                "dt",
                ValueType::Float,
                Value::Float(1.0 / 30.0),
                "seconds per step",
            )
            .with_rule(Rule::NON_NEGATIVE),
        )
        .input(InputSpec::optional(
            "points",
            list_of(ValueType::Vec3),
            Value::list([]),
            "points to emit from instead of `emitter` (empty: the emitter)",
        ))
        .input(InputSpec::optional(
            "normals",
            list_of(ValueType::Vec3),
            Value::list([]),
            "each point's direction of emission (empty: random directions)",
        ))
        .output(OutputSpec::new(
            "out",
            PARTICLES_TYPE,
            "the system one step on",
        ))
        .param(ParamSpec::new(
            "seed",
            ValueType::Int,
            Value::Int(0),
            "seed of the emitter",
        ))
        .param(
            ParamSpec::new(
                "burst",
                ValueType::Int,
                Value::Int(100),
                "particles per burst",
            )
            .with_rule(Rule::Ints {
                min: 0,
                max: 1_000_000,
            }),
        )
        .param(ParamSpec::new(
            "floor_on",
            ValueType::Bool,
            Value::Bool(false),
            "collide with the floor plane",
        ));
    reg.register(SimOp::new(step, run_step))?;
    Ok(())
}
