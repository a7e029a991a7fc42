//! The rigid-body ops: `sim.rigid.init` (a seeded pile or a leaning stack over the ground),
//! `sim.rigid.step` (rapier substeps, see [`crate::rigid`]), `sim.rigid.points` (each
//! body's centre and orientation) and `sim.rigid.view` (the bodies ray-cast from the side
//! or from above, shaded by their normals).

use crate::image_bridge::Image;
use crate::ports::{SIDE, f32s, image_size};
use crate::rigid::{BodyDesc, BodyShape, MAX_BODIES, MAX_SUBSTEPS, RigidWorld};
use crate::rng::Rng;
use kiln_core::op;
use kiln_core::op::{OpCall, OpError, Rule};
use kiln_core::record::Record;
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::Value;
use rapier3d::prelude::{Ray, Vector};
use std::sync::Arc;

/// The scene settings of `sim.rigid.init`.
#[derive(Clone, Copy, Debug)]
struct Scene<'a> {
    layout: &'a str,
    count: usize,
    seed: u64,
    size: f32,
    density: f32,
    restitution: f32,
    friction: f32,
    balls: f32,
}

/// The bodies of a scene: a `pile` dropped from seeded spots, each above the last so none
/// overlap, or a `stack` of boxes each shifted along x from the one below, which topples
/// once its upper part's centre of mass passes an edge.
fn scene_bodies(s: &Scene<'_>) -> Vec<BodyDesc> {
    let mut rng = Rng::new(s.seed);
    let mut out = Vec::with_capacity(s.count);
    let tau = std::f32::consts::TAU;
    let spread = s.size * (s.count as f32).sqrt();
    for i in 0..s.count {
        let body = |shape, position, rotation| BodyDesc {
            shape,
            position,
            rotation,
            velocity: [0.0; 3],
            density: s.density,
            restitution: s.restitution,
            friction: s.friction,
        };
        if s.layout == "stack" {
            let twist = (rng.next_f32() - 0.5) * 0.2;
            out.push(body(
                BodyShape::Box([s.size; 3]),
                [
                    i as f32 * s.size * 0.45,
                    s.size * (2.0 * i as f32 + 1.0) * 1.001,
                    0.0,
                ],
                [0.0, twist, 0.0],
            ));
            continue;
        }
        let scale = s.size * (0.6 + 0.8 * rng.next_f32());
        let ball = rng.next_f32() < s.balls;
        let (x, z) = (
            (rng.next_f32() - 0.5) * spread,
            (rng.next_f32() - 0.5) * spread,
        );
        let rot = [0; 3].map(|_| (rng.next_f32() - 0.5) * tau * 0.5);
        let shape = if ball {
            BodyShape::Ball(scale)
        } else {
            BodyShape::Box([scale, scale * (0.5 + 0.5 * rng.next_f32()), scale])
        };
        // Each body clears the one below: heights 3 sizes apart (a box's diagonal is under
        // 1.74 of its largest half extent, 1.4 sizes).
        out.push(body(shape, [x, s.size * (2.0 + 3.0 * i as f32), z], rot));
    }
    out
}

/// A rigid-body scene at rest over the ground plane y = 0: a `pile` of boxes and balls
/// dropped from seeded spots, or a `stack` of boxes each shifted along x, which topples.
#[op("sim.rigid.init", out = "the world")]
#[allow(clippy::too_many_arguments)]
fn rigid_init(
    #[param("`pile` or `stack`", default = "pile", rule = Rule::OneOf(&["pile", "stack"]))]
    layout: &str,
    #[param(
        "number of bodies",
        default = 20,
        rule = Rule::Ints { min: 0, max: MAX_BODIES as i64 }
    )]
    count: i64,
    #[param("seed of sizes, spots and turns", default = 1)] seed: i64,
    #[param("typical half extent or radius", default = 0.5, range = 1e-3..=1e3)] size: f64,
    #[param("mass per unit volume", default = 1.0, range = 1e-6..=1e6)] density: f64,
    #[param("bounciness, 0 to 1", default = 0.2, range = 0.0..=1.0)] restitution: f64,
    #[param(
        "friction coefficient (bodies and ground)",
        default = 0.6,
        range = 0.0..=100.0
    )]
    friction: f64,
    #[param("share of a pile's bodies that are balls", default = 0.3, range = 0.0..=1.0)]
    balls: f64,
    #[param("whether the ground plane is there", default = true)] ground: bool,
) -> Result<RigidWorld, OpError> {
    if !(0..=MAX_BODIES as i64).contains(&count) {
        return Err(OpError::param(
            1,
            format!("expected 0 to {MAX_BODIES} bodies (MAX_BODIES), found {count}"),
        ));
    }
    let s = Scene {
        layout,
        count: count as usize,
        seed: seed as u64,
        size: size as f32,
        density: density as f32,
        restitution: restitution as f32,
        friction: friction as f32,
        balls: balls as f32,
    };
    RigidWorld::new(&scene_bodies(&s), ground, s.friction)
        .map_err(|e| OpError::param(1, e.to_string()))
}

/// Rigid bodies one tick on through rapier (deterministic solver): gravity, contacts with
/// friction and restitution, in `substeps` equal steps.
#[op("sim.rigid.step", out = "the world one tick on")]
fn rigid_step(
    #[input("the world (from a latch)")] state: &RigidWorld,
    #[input("constant acceleration", default = [0.0, -9.81, 0.0])] gravity: [f64; 3],
    #[input("seconds per tick", default = 1.0 / 30.0, range = 0.0..=10.0)] dt: f64,
    #[param(
        "rapier steps per tick",
        default = 4,
        rule = Rule::Ints { min: 1, max: MAX_SUBSTEPS as i64 }
    )]
    substeps: i64,
    call: &OpCall,
) -> Result<RigidWorld, OpError> {
    if !gravity.iter().all(|c| c.is_finite()) {
        return Err(OpError::input(1, "expected a finite vec3, found vec3"));
    }
    let substeps = substeps.clamp(1, MAX_SUBSTEPS as i64) as u32;
    call.check_cancel()?;
    state
        .step(f32s(gravity), dt as f32, substeps)
        .map_err(|e| OpError::input(0, e.to_string()))
}

/// Each body's centre and orientation, in the order they were made: a list of records
/// {position: vec3, rotation: vec4 (a unit quaternion x, y, z, w)}.
#[op("sim.rigid.points", out = "the bodies")]
fn rigid_points(#[input("the world")] world: &RigidWorld) -> Vec<Value> {
    world
        .bodies()
        .iter()
        .map(|b| {
            let f = |a: &[f32]| a.iter().map(|&c| c as f64).collect::<Vec<_>>();
            let (p, q) = (f(&b.position), f(&b.rotation));
            Value::Record(Arc::new(Record::new([
                (Arc::from("position"), Value::Vec3([p[0], p[1], p[2]])),
                (Arc::from("rotation"), Value::Vec4([q[0], q[1], q[2], q[3]])),
            ])))
        })
        .collect()
}

/// Colours of bodies, by index.
const PALETTE: [[f32; 3]; 5] = [
    [0.85, 0.35, 0.2],
    [0.95, 0.75, 0.25],
    [0.3, 0.55, 0.85],
    [0.4, 0.75, 0.4],
    [0.75, 0.4, 0.7],
];
const SKY: [f32; 4] = [0.82, 0.88, 0.95, 1.0];
const GROUND: [f32; 4] = [0.35, 0.3, 0.25, 1.0];

/// The bodies ray-cast orthographically from the side (along -z: x right, y up) or from
/// above (along -y), shaded by their normals, over sky and ground.
#[op("sim.rigid.view",
    params_rule = kiln_image::image::pixels_rule, out = "the image")]
#[allow(clippy::too_many_arguments)]
fn rigid_view(
    #[input("the world")] world: &RigidWorld,
    #[param("width in cells", default = 256, rule = SIDE, plan_time)] width: i64,
    #[param("height in cells", default = 256, rule = SIDE, plan_time)] height: i64,
    #[param("half the width shown", default = 5.0, range = 1e-6..=1e6)] extent: f64,
    #[param("world x at the centre", default = 0.0, range = -1e6..=1e6)] center_x: f64,
    #[param("world y (z from above) at the centre", default = 2.0, range = -1e6..=1e6)]
    center_y: f64,
    #[param("`side` or `top`", default = "side", rule = Rule::OneOf(&["side", "top"]))] from: &str,
    call: &OpCall,
) -> Result<Image, OpError> {
    let (w, h) = image_size(width, height)?;
    let extent = extent as f32;
    let (cx, cy) = (center_x as f32, center_y as f32);
    let top = from == "top";
    let mut img = Image::filled(w, h, SKY);
    let scale = 2.0 * extent / w as f32;
    // Looking along -z from the front (x right, y up), or along -y from above (x right,
    // z down the image).
    let dir = if top {
        Vector::new(0.0, -1.0, 0.0)
    } else {
        Vector::new(0.0, 0.0, -1.0)
    };
    let light = Vector::new(0.35, 0.8, 0.5).normalize();
    let shapes: Vec<(rapier3d::prelude::SharedShape, rapier3d::prelude::Pose)> = world
        .bodies()
        .iter()
        .map(|b| {
            let shape = match b.shape {
                BodyShape::Box(e) => rapier3d::prelude::SharedShape::cuboid(e[0], e[1], e[2]),
                BodyShape::Ball(r) => rapier3d::prelude::SharedShape::ball(r),
            };
            let q = b.rotation;
            let pose = rapier3d::prelude::Pose::from_parts(
                Vector::new(b.position[0], b.position[1], b.position[2]),
                rapier3d::prelude::Rotation::from_xyzw(q[0], q[1], q[2], q[3]),
            );
            (shape, pose)
        })
        .collect();
    for y in 0..h {
        call.check_cancel()?;
        for x in 0..w {
            let u = cx + (x as f32 + 0.5 - w as f32 / 2.0) * scale;
            let v = cy + (h as f32 / 2.0 - y as f32 - 0.5) * scale;
            let origin = if top {
                Vector::new(u, 1.0e4, -v)
            } else {
                Vector::new(u, v, 1.0e4)
            };
            let ray = Ray::new(origin, dir);
            let mut best: Option<(f32, Vector, usize)> = None;
            for (i, (shape, pose)) in shapes.iter().enumerate() {
                if let Some(hit) = shape.cast_ray_and_get_normal(pose, &ray, 2.0e4, true)
                    && best.is_none_or(|b| hit.time_of_impact < b.0)
                {
                    best = Some((hit.time_of_impact, hit.normal, i));
                }
            }
            let k = (y * w + x) as usize;
            let Some(px) = img.pixels.get_mut(k) else {
                continue;
            };
            match best {
                Some((_, n, i)) => {
                    let shade = 0.35 + 0.65 * n.dot(light).max(0.0);
                    let c = PALETTE[i % PALETTE.len()].map(|c| c * shade);
                    *px = [c[0], c[1], c[2], 1.0];
                }
                None if world.ground() && (top || v < 0.0) => *px = GROUND,
                None => {}
            }
        }
    }
    Ok(img)
}

/// Register `sim.rigid.init`, `sim.rigid.step`, `sim.rigid.points` and `sim.rigid.view`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(RigidInitOp::new())?;
    reg.register(RigidStepOp::new())?;
    reg.register(RigidPointsOp::new())?;
    reg.register(RigidViewOp::new())?;
    Ok(())
}
