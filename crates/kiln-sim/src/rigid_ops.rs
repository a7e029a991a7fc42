//! The rigid-body ops: `sim.rigid.init` (a seeded pile or a leaning stack over the ground),
//! `sim.rigid.step` (rapier substeps, see [`crate::rigid`]), `sim.rigid.points` (each
//! body's centre and orientation) and `sim.rigid.view` (the bodies ray-cast from the side
//! or from above, shaded by their normals).

use crate::image_bridge::{IMAGE_TYPE, Image};
use crate::rigid::{BodyDesc, BodyShape, MAX_BODIES, MAX_SUBSTEPS, RIGID_TYPE, RigidWorld};
use crate::rng::Rng;
use crate::sim_op::{SimOp, image_size_params, with_image_size_params};
use kiln_core::op::{InputSpec, OpCall, OpError, OpSpec, OutputSpec, ParamSpec, Rule};
use kiln_core::record::Record;
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};
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

fn run_init(call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
    let count = call.param_int(1)?;
    if !(0..=MAX_BODIES as i64).contains(&count) {
        return Err(OpError::param(
            1,
            format!("expected 0 to {MAX_BODIES} bodies (MAX_BODIES), found {count}"),
        ));
    }
    let s = Scene {
        layout: call.param_str(0)?,
        count: count as usize,
        seed: call.param_int(2)? as u64,
        size: call.param_float(3)? as f32,
        density: call.param_float(4)? as f32,
        restitution: call.param_float(5)? as f32,
        friction: call.param_float(6)? as f32,
        balls: call.param_float(7)? as f32,
    };
    let ground = call.param_bool(8)?;
    let w = RigidWorld::new(&scene_bodies(&s), ground, s.friction)
        .map_err(|e| OpError::param(1, e.to_string()))?;
    out[0] = w.into_value();
    Ok(())
}

fn vec3(call: &OpCall<'_>, i: usize) -> Result<[f32; 3], OpError> {
    match call.inputs.get(i) {
        Some(Value::Vec3(v)) if v.iter().all(|c| c.is_finite()) => Ok(v.map(|c| c as f32)),
        v => Err(OpError::input(
            i,
            format!(
                "expected a finite vec3, found {}",
                v.map_or("nothing", Value::type_name)
            ),
        )),
    }
}

fn run_step(call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
    let w = call.heavy::<RigidWorld>(0, "a rigid-body world")?;
    let gravity = vec3(call, 1)?;
    let dt = call.float(2)? as f32;
    let substeps = call.param_int(0)?.clamp(1, MAX_SUBSTEPS as i64) as u32;
    call.check_cancel()?;
    out[0] = w
        .step(gravity, dt, substeps)
        .map_err(|e| OpError::input(0, e.to_string()))?
        .into_value();
    Ok(())
}

fn run_points(call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
    let w = call.heavy::<RigidWorld>(0, "a rigid-body world")?;
    let items: Vec<Value> = w
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
        .collect();
    out[0] = Value::List(items.into());
    Ok(())
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

fn run_view(call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
    let (w, h) = image_size_params(call)?;
    let world = call.heavy::<RigidWorld>(0, "a rigid-body world")?;
    let extent = call.param_float(2)? as f32;
    let (cx, cy) = (call.param_float(3)? as f32, call.param_float(4)? as f32);
    let top = call.param_str(5)? == "top";
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
    out[0] = img.into_value();
    Ok(())
}

/// Register `sim.rigid.init`, `sim.rigid.step`, `sim.rigid.points` and `sim.rigid.view`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    let p = |name, ty, v, doc| ParamSpec::new(name, ty, v, doc);
    let init = OpSpec::new(
        "sim.rigid.init",
        "A rigid-body scene at rest over the ground plane y = 0: a `pile` of boxes and balls \
         dropped from seeded spots, or a `stack` of boxes each shifted along x, which \
         topples.",
    )
    .output(OutputSpec::new("out", RIGID_TYPE, "the world"))
    .param(
        p(
            "layout",
            ValueType::String,
            Value::Str("pile".into()),
            "`pile` or `stack`",
        )
        .with_rule(Rule::OneOf(&["pile", "stack"])),
    )
    .param(
        p("count", ValueType::Int, Value::Int(20), "number of bodies").with_rule(Rule::Ints {
            min: 0,
            max: MAX_BODIES as i64,
        }),
    )
    .param(p(
        "seed",
        ValueType::Int,
        Value::Int(1),
        "seed of sizes, spots and turns",
    ))
    .param(
        p(
            "size",
            ValueType::Float,
            Value::Float(0.5),
            "typical half extent or radius",
        )
        .with_rule(Rule::between(1e-3, 1e3)),
    )
    .param(
        p(
            "density",
            ValueType::Float,
            Value::Float(1.0),
            "mass per unit volume",
        )
        .with_rule(Rule::between(1e-6, 1e6)),
    )
    .param(
        p(
            "restitution",
            ValueType::Float,
            Value::Float(0.2),
            "bounciness, 0 to 1",
        )
        .with_rule(Rule::between(0.0, 1.0)),
    )
    .param(
        p(
            "friction",
            ValueType::Float,
            Value::Float(0.6),
            "friction coefficient (bodies and ground)",
        )
        .with_rule(Rule::between(0.0, 100.0)),
    )
    .param(
        p(
            "balls",
            ValueType::Float,
            Value::Float(0.3),
            "share of a pile's bodies that are balls",
        )
        .with_rule(Rule::between(0.0, 1.0)),
    )
    .param(p(
        "ground",
        ValueType::Bool,
        Value::Bool(true),
        "whether the ground plane is there",
    ));
    reg.register(SimOp::new(init, run_init))?;
    let step = OpSpec::new(
        "sim.rigid.step",
        "Rigid bodies one tick on through rapier (deterministic solver): gravity, contacts \
         with friction and restitution, in `substeps` equal steps.",
    )
    .input(InputSpec::required(
        "state",
        RIGID_TYPE,
        "the world (from a latch)",
    ))
    .input(InputSpec::optional(
        "gravity",
        ValueType::Vec3,
        Value::Vec3([0.0, -9.81, 0.0]),
        "constant acceleration",
    ))
    .input(
        InputSpec::optional(
            "dt",
            ValueType::Float,
            Value::Float(1.0 / 30.0),
            "seconds per tick",
        )
        .with_rule(Rule::between(0.0, 10.0)),
    )
    .output(OutputSpec::new("out", RIGID_TYPE, "the world one tick on"))
    .param(
        p(
            "substeps",
            ValueType::Int,
            Value::Int(4),
            "rapier steps per tick",
        )
        .with_rule(Rule::Ints {
            min: 1,
            max: MAX_SUBSTEPS as i64,
        }),
    );
    reg.register(SimOp::new(step, run_step))?;
    let points = OpSpec::new(
        "sim.rigid.points",
        "Each body's centre and orientation, in the order they were made: a list of records \
         {position: vec3, rotation: vec4 (a unit quaternion x, y, z, w)}.",
    )
    .input(InputSpec::required("world", RIGID_TYPE, "the world"))
    .output(OutputSpec::new("out", ValueType::List, "the bodies"));
    reg.register(SimOp::new(points, run_points))?;
    let view = OpSpec::new(
        "sim.rigid.view",
        "The bodies ray-cast orthographically from the side (along -z: x right, y up) or \
         from above (along -y), shaded by their normals, over sky and ground.",
    )
    .input(InputSpec::required("world", RIGID_TYPE, "the world"))
    .output(OutputSpec::new("out", IMAGE_TYPE, "the image"));
    let view = with_image_size_params(view, 256)
        .param(
            p(
                "extent",
                ValueType::Float,
                Value::Float(5.0),
                "half the width shown",
            )
            .with_rule(Rule::between(1e-6, 1e6)),
        )
        .param(
            p(
                "center_x",
                ValueType::Float,
                Value::Float(0.0),
                "world x at the centre",
            )
            .with_rule(Rule::between(-1e6, 1e6)),
        )
        .param(
            p(
                "center_y",
                ValueType::Float,
                Value::Float(2.0),
                "world y (z from above) at the centre",
            )
            .with_rule(Rule::between(-1e6, 1e6)),
        )
        .param(
            p(
                "from",
                ValueType::String,
                Value::Str("side".into()),
                "`side` or `top`",
            )
            .with_rule(Rule::OneOf(&["side", "top"])),
        );
    reg.register(SimOp::new(view, run_view))?;
    Ok(())
}
